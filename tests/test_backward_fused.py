"""The 5-matmul backward (kernels/backward_fused.py) against float64 torch autograd, in Triton's interpreter.

Idiom per gradient: max|g - g64| <= 2 * max|g_naive_same_dtype - g64| + eps. The interpreter has no TMA
reduction, so these runs take the tl.atomic_add path; tests/test_backward_fused_gpu.py runs the compiled one.
"""
import pytest
import torch

import flashviz_kernels as fk
from flashviz_kernels import api, backward_pick

DEV = "cuda" if torch.cuda.is_available() else "cpu"
EPS = {torch.float32: 3e-6, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def _inputs(b, h, nq, nk, d, dtype, seed):
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
    q, k, v, do, dlse = _inputs(b, h, nq, nk, d, dtype, seed)
    dlse = dlse if with_dlse else None
    o, lse = fk.attention_with_lse(q, k, v, causal=causal, impl="fast")
    got = fk.attention_backward(q, k, v, o, lse, do, causal=causal, dlse=dlse, kind=kind)
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


CPU_CASES = [(1, 17, 17, 16, False), (1, 100, 100, 32, True), (2, 64, 40, 16, True), (1, 40, 64, 16, True),
             (1, 1, 1, 16, False), (1, 70, 70, 64, True), (1, 96, 33, 32, False)]


@pytest.mark.skipif(DEV == "cuda", reason="interpreter cases; the GPU ones are in test_backward_fused_gpu.py")
@pytest.mark.parametrize("b,nq,nk,d,causal", CPU_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_fused_grads_small(b, nq, nk, d, causal, dtype):
    check(b, 2, nq, nk, d, dtype, causal, seed=nq * 3 + nk)


@pytest.mark.skipif(DEV == "cuda", reason="interpreter cases")
@pytest.mark.parametrize("nq,nk,causal", [(64, 64, False), (96, 40, True), (40, 96, True)])
def test_fused_with_dlse(nq, nk, causal):
    """The gradient reaching lse enters as delta - dlse; rows with lse = -inf (causal, Nq > Nk) ignore it."""
    check(1, 2, nq, nk, 16, torch.float32, causal, seed=nq + 7 * nk, with_dlse=True)


@pytest.mark.skipif(DEV == "cuda", reason="interpreter case")
def test_fused_bf16_small():
    check(1, 2, 33, 33, 48, torch.bfloat16, True, seed=1)


@pytest.mark.skipif(DEV == "cuda", reason="interpreter case")
def test_fused_agrees_with_reference_kernel():
    """Same sums, different order: the two backward kernels agree to fp32 rounding."""
    q, k, v, do, _ = _inputs(1, 2, 80, 72, 32, torch.float32, seed=5)
    o, lse = fk.attention_with_lse(q, k, v, causal=True, impl="fast")
    a = fk.attention_backward(q, k, v, o, lse, do, causal=True, kind="fused")
    r = fk.attention_backward(q, k, v, o, lse, do, causal=True, kind="reference")
    for x, y in zip(a, r):
        assert torch.allclose(x, y, rtol=1e-5, atol=1e-5), (x - y).abs().max()


def test_backward_kind_dispatch():
    q = torch.zeros(1, 1, 8, 16)
    assert api.backward_kind(q, "fused") == "fused" and api.backward_kind(q, "reference") == "reference"
    if fk.INTERPRET:                                       # auto: fused only where verified compiled
        assert api.backward_kind(q) == "reference" and api.backward_label().startswith("auto: reference")
    assert api.backward_kind(q, "auto", config=(32, 32, 4, 2, True)) == "fused"
    assert api.backward_kind(q, "auto", config=(32, 32, 32, 32, 4, 2)) == "reference"
    with pytest.raises(fk.KernelInputError, match="backward kind"):
        api.backward_kind(q, "fast")
    with pytest.raises(fk.KernelInputError, match="config"):
        api.backward_kind(q, "fused", config=(32, 32, 32, 32, 4, 2))
    odd = torch.zeros(1, 1, 8, 20, dtype=torch.float16)   # 40-byte rows: no TMA descriptor
    with pytest.raises(fk.KernelInputError, match="16 bytes"):
        api.backward_kind(odd, "fused")
    assert api.backward_kind(odd, "auto") == "reference"


@pytest.mark.skipif(DEV == "cuda", reason="interpreter case")
def test_module_level_choice_drives_autograd(monkeypatch):
    """BACKWARD_KIND = "fused" sends autograd through the fused kernel (a 5-number config error proves the route)."""
    q, k, v, do, _ = _inputs(1, 1, 32, 32, 16, torch.float32, seed=2)
    xs = [x.requires_grad_() for x in (q, k, v)]
    ref = torch.autograd.grad(fk.attention(*xs, impl="fast"), xs, do)
    monkeypatch.setattr(backward_pick, "BACKWARD_KIND", "fused")
    seen = []
    from flashviz_kernels import backward_fused
    real = backward_fused.backward
    monkeypatch.setattr(backward_fused, "backward", lambda *a, **kw: seen.append(1) or real(*a, **kw))
    got = torch.autograd.grad(fk.attention(*xs, impl="fast"), xs, do)
    assert seen and all(torch.allclose(a, b, atol=1e-5) for a, b in zip(got, ref))


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
