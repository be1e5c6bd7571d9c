"""The backward kernels against float64 torch autograd (the fused and the ws backward, on CPU and on a GPU).

check(...)   gradients of <out, dO> + <lse, dlse> by `kind`, idiom per gradient:
             max|g - g64| <= 2 * max|g_naive_same_dtype - g64| + EPS; rows that see no key get zero gradients
check_peak_extra_memory(kind)   on CUDA: what a backward allocates beyond its inputs, against its formula
"""
import torch

import flashviz_kernels as fk
from helpers.gpu import big_reference

DEV = "cuda" if torch.cuda.is_available() else "cpu"
EPS = {torch.float32: 3e-6, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def inputs(b, h, nq, nk, d, dtype, seed):
    g = torch.Generator(device=DEV).manual_seed(seed)
    mk = lambda *s: torch.randn(s, device=DEV, generator=g).to(dtype)  # noqa: E731
    return mk(b, h, nq, d), mk(b, h, nk, d), mk(b, h, nk, d), mk(b, h, nq, d), mk(b, h, nq).float()


def naive_grads(q, k, v, do, dlse, causal, dtype):
    """Gradients of <out, do> + <lse, dlse> through naive attention computed in `dtype`."""
    xs = [x.detach().to(dtype).requires_grad_() for x in (q, k, v)]
    out, lse = fk.attention_with_lse(*xs, causal=causal, impl="naive")
    loss = (out * do.to(dtype)).sum()
    if dlse is not None:
        live = torch.isfinite(lse)                        # a row that sees no key: its lse carries no gradient
        loss = loss + (torch.where(live, lse, 0) * dlse.to(lse.dtype)).sum()
    gs = torch.autograd.grad(loss, xs, allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for x, g in zip(xs, gs)]


def check(b, h, nq, nk, d, dtype, causal, seed, with_dlse=False, kind="fused"):
    q, k, v, do, dlse = inputs(b, h, nq, nk, d, dtype, seed)
    dlse = dlse if with_dlse else None
    o, lse = fk.attention_with_lse(q, k, v, causal=causal, impl="fast")
    got = fk.attention_backward(q, k, v, o, lse, do, causal=causal, dlse=dlse, kind=kind)
    with big_reference(b, h, nq, nk):                 # N = 16384: 2 GiB per float64 N x N matrix
        ref = naive_grads(q, k, v, do, dlse, causal, torch.float64)
        low = naive_grads(q, k, v, do, dlse, causal, dtype if dtype != torch.bfloat16 else torch.bfloat16)
    for name, a, n_, r in zip("qkv", got, low, ref):
        assert a.dtype == dtype and a.shape == r.shape
        assert torch.isfinite(a).all(), f"d{name} has non-finite entries"
        err = (a.double() - r).abs().max().item()
        base = (n_.double() - r).abs().max().item()
        assert err <= 2 * base + EPS[dtype], f"d{name}: {err:.3g} > 2 * {base:.3g} + {EPS[dtype]}"
    dead = max(0, nq - nk) if causal else 0
    assert torch.all(got[0][:, :, :dead] == 0), "rows that see no key must get no gradient"
    return got


def check_peak_extra_memory(kind: str):
    """On CUDA (the gpu tests of the fused and ws backwards): a backward of `kind` at B=2, H=8, N=4096, d=128, causal
    allocates dQ, dK, dV (fp16), the fp32 dQ buffer and two fp32 rows (lse copy, delta) and nothing else (64 KB
    slack)."""
    b, h, n, d = 2, 8, 4096, 128
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v, do = (torch.randn((b, h, n, d), device="cuda", generator=g, dtype=torch.float16) for _ in range(4))
    o, lse = fk.attention_with_lse(q, k, v, causal=True, impl="fast")
    run = lambda: fk.attention_backward(q, k, v, o, lse, do, causal=True, kind=kind)  # noqa: E731
    run()                                                  # compile first
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    grads = run()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    formula = 3 * b * h * n * d * 2 + b * h * n * d * 4 + 2 * b * h * n * 4
    assert formula <= peak <= formula + (1 << 16), (peak, formula)
    del grads
