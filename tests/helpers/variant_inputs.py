"""Inputs of the variants' GPU tests (tests/kernels/test_variants_gpu.py and the ws kernels' variant tests): packed-document
ids, ALiBi slopes, q / k / v / dO with H_kv heads, and the tolerances of the usual idiom."""
import torch

DEV = "cuda"
EPS = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float32: 2e-5}
GRAD_EPS = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float32: 2e-5}


def docs(b: int, n: int, seed: int) -> torch.Tensor:
    """(B, N) non-decreasing ids: random document lengths (some of length 1), each batch entry its own."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.zeros(b, n, dtype=torch.int64)
    for bi in range(b):
        cuts = torch.randint(1, n, (7,), generator=g).tolist() + [5, 6]        # 5..6: a document of one token
        for c in sorted(set(cuts)):
            ids[bi, c:] += 1
    return ids.to(DEV)


def short_docs(b: int, n: int) -> torch.Tensor:
    """(B, N) ids of documents 1..40 tokens long: many per tile, so most tiles are partial and some rows see one
    key."""
    rows = []
    for bi in range(b):
        lens = torch.randint(1, 41, (n,), generator=torch.Generator().manual_seed(n + bi))
        rows.append(torch.repeat_interleave(torch.arange(n), lens)[:n])
    return torch.stack(rows).to(DEV)


def make(b, h, h_kv, nq, nk, d, dtype, seed):
    g = torch.Generator(device=DEV).manual_seed(seed)
    mk = lambda *s: torch.randn(s, device=DEV, generator=g).to(dtype)  # noqa: E731
    return mk(b, h, nq, d), mk(b, h_kv, nk, d), mk(b, h_kv, nk, d), mk(b, h, nq, d)


def slopes(h: int, b: int | None = None) -> torch.Tensor:
    s = 2.0 ** (-8.0 * torch.arange(1, h + 1, dtype=torch.float32, device=DEV) / h)   # ALiBi's geometric slopes
    return s if b is None else s[None].repeat(b, 1) * (1 + 0.1 * torch.arange(b, device=DEV)[:, None])
