"""Inputs and tolerances of the GPU kernel tests (tests/kernels/test_kernels_gpu.py and the ws kernel's): inputs made on
the GPU from a seed, the sample of query rows whose float64 reference is computed (all N x N would not fit), and the
eps of the idiom max|out - ref64| <= 2 * max|naive_same_dtype - ref64| + eps."""
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
