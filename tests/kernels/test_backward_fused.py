"""The 5-matmul backward (kernels/backward_fused.py) against float64 torch autograd, in Triton's interpreter.

Idiom per gradient: max|g - g64| <= 2 * max|g_naive_same_dtype - g64| + eps. The interpreter has no TMA
reduction, so these runs take the tl.atomic_add path; tests/kernels/test_backward_fused_gpu.py runs the compiled one.
"""
import pytest
import torch

import flashviz_kernels as fk
from flashviz_kernels import api, backward_pick
from helpers.backward import DEV, check, inputs


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
    q, k, v, do, _ = inputs(1, 2, 80, 72, 32, torch.float32, seed=5)
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
    q, k, v, do, _ = inputs(1, 1, 32, 32, 16, torch.float32, seed=2)
    xs = [x.requires_grad_() for x in (q, k, v)]
    ref = torch.autograd.grad(fk.attention(*xs, impl="fast"), xs, do)
    monkeypatch.setattr(backward_pick, "BACKWARD_KIND", "fused")
    seen = []
    from flashviz_kernels import backward_fused
    real = backward_fused.backward
    monkeypatch.setattr(backward_fused, "backward", lambda *a, **kw: seen.append(1) or real(*a, **kw))
    got = torch.autograd.grad(fk.attention(*xs, impl="fast"), xs, do)
    assert seen and all(torch.allclose(a, b, atol=1e-5) for a, b in zip(got, ref))


