"""Inputs and tolerances of the GPU kernel tests (tests/kernels/test_kernels_gpu.py and the ws kernel's): inputs made on
the GPU from a seed, the sample of query rows whose float64 reference is computed (all N x N would not fit), and the
eps of the idiom max|out - ref64| <= 2 * max|naive_same_dtype - ref64| + eps; big_reference: the tests whose full
float64 references do not fit beside each other run one at a time."""
import contextlib
import gc
import os
import tempfile

import torch

EPS = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float32: 2e-5}


def sample_rows(n: int, count: int = 192, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    rows = torch.randperm(n, generator=g)[:count]
    return torch.unique(torch.cat([rows, torch.tensor([0, n - 1])]))


def make(b, h, nq, nk, d, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    mk = lambda n: torch.randn((b, h, n, d), device="cuda", generator=g, dtype=torch.float32).to(dtype)  # noqa: E731
    return mk(nq), mk(nk), mk(nk)


BIG_LOCK = "flashviz-gpu-big-tests.lock"


@contextlib.contextmanager
def one_at_a_time(name: str = BIG_LOCK, directory: str | None = None):
    """An exclusive lock on a file that every pytest-xdist worker on this machine sees: the tests whose float64
    references hold ~20 GB of GPU memory (B=2, H=16, N=4096: 4 GiB per N x N matrix) run one at a time. 14 workers
    running them together ran the H200 out of memory (2026-12-02, triton 3.6 and 3.8 alike). Each hands its cached
    memory back before the next one starts."""
    import fcntl
    path = os.path.join(directory or tempfile.gettempdir(), name)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            gc.collect()
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            fcntl.flock(f, fcntl.LOCK_UN)


def big_reference(b: int, h: int, nq: int, nk: int):
    """one_at_a_time() on CUDA when one float64 (B, H, Nq, Nk) matrix of the reference takes 1 GiB or more (autograd
    keeps several); otherwise nothing."""
    big = torch.cuda.is_available() and b * h * nq * nk * 8 >= 2 ** 30
    return one_at_a_time() if big else contextlib.nullcontext()
