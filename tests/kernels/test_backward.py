"""Gradients of the Triton kernels (forward + recomputing backward) against float64 autograd.

Idiom per gradient: max|g - g64| <= 2 * max|g_naive_same_dtype - g64| + eps. Small shapes run in
Triton's interpreter on CPU (CI); the `gpu`-marked cases run compiled at full size.
"""
import pytest
import torch

import flashviz_kernels as fk
from helpers.attn_ref import attention_rows, lse_rows
from helpers.gpu import big_reference

DEV = "cuda" if torch.cuda.is_available() else "cpu"
EPS = {torch.float32: 3e-6, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def grads(impl, q, k, v, do, causal, dtype=None):
    xs = [x.detach().to(dtype or x.dtype).clone().requires_grad_() for x in (q, k, v)]
    out = fk.attention(*xs, causal=causal, impl=impl)
    out.backward(do.to(out.dtype))
    return out.detach(), [x.grad for x in xs]


def check_grads(b, h, nq, nk, d, dtype, causal, impl, seed):
    g = torch.Generator(device=DEV).manual_seed(seed)
    mk = lambda n: torch.randn((b, h, n, d), device=DEV, generator=g).to(dtype)  # noqa: E731
    q, k, v, do = mk(nq), mk(nk), mk(nk), mk(nq)
    with big_reference(b, h, nq, nk):                 # B=2, H=16, N=4096: ~20 GB; one such test at a time per GPU
        _, ref = grads("naive", q, k, v, do, causal, torch.float64)
        _, low = grads("naive", q, k, v, do, causal)
        out, got = grads(impl, q, k, v, do, causal)
    assert out.dtype == dtype
    for name, a, n_, r in zip("qkv", got, low, ref):
        assert a.dtype == dtype and a.shape == r.shape
        assert torch.isfinite(a).all(), f"d{name} has non-finite entries"
        err = (a.double() - r).abs().max().item()
        base = (n_.double() - r).abs().max().item()
        assert err <= 2 * base + EPS[dtype], f"{impl} d{name}: {err:.3g} > 2 * {base:.3g} + {EPS[dtype]}"


CPU_CASES = [(1, 17, 17, 16, False), (1, 100, 100, 32, True), (2, 64, 40, 16, True), (1, 40, 64, 16, True),
             (1, 1, 1, 16, False), (1, 70, 70, 64, True)]


@pytest.mark.skipif(DEV == "cuda", reason="the interpreter cases; GPU cases below")
@pytest.mark.parametrize("impl", ["fast", "teaching"])
@pytest.mark.parametrize("b,nq,nk,d,causal", CPU_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_grads_small(impl, b, nq, nk, d, causal, dtype):
    check_grads(b, 2, nq, nk, d, dtype, causal, impl, seed=nq * 3 + nk)


@pytest.mark.skipif(DEV == "cuda", reason="interpreter case")
def test_grads_bf16_small():
    check_grads(1, 2, 33, 33, 48, torch.bfloat16, True, "fast", seed=1)


LSE_CASES = [(64, 64, False, 32, 64), (64, 64, True, 64, 32), (96, 40, True, 32, 32), (40, 96, True, 32, 64),
             (50, 128, False, 64, 64)]


@pytest.mark.parametrize("impl", ["teaching", "fast"])
@pytest.mark.parametrize("nq,nk,causal,bm,bn", LSE_CASES)
def test_out_and_lse_gradients_match_float64(impl, nq, nk, causal, bm, bn):
    """attention_with_lse is differentiable in both outputs (merging partial results, as ring attention does,
    needs d(out) and d(lse)): loss = <out, g> + <lse, h> against float64 torch autograd. Causal with Nq > Nk
    leaves rows that see no key: lse -inf, a gradient h reaching them must change nothing."""
    gen = torch.Generator(device=DEV).manual_seed(nq * 5 + nk)
    mk = lambda *s: torch.randn(s, device=DEV, generator=gen)  # noqa: E731
    q, k, v, g, h = mk(1, 2, nq, 16), mk(1, 2, nk, 16), mk(1, 2, nk, 16), mk(1, 2, nq, 16), mk(1, 2, nq)

    def grads(fn, dtype, use_out=True):
        xs = [x.to(dtype).requires_grad_() for x in (q, k, v)]
        out, lse = fn(*xs)
        loss = (lse * h.to(lse.dtype)).sum() + ((out * g.to(out.dtype)).sum() if use_out else 0)
        gs = torch.autograd.grad(loss, xs, allow_unused=True)     # lse alone does not depend on v
        return out.detach(), lse.detach(), [torch.zeros_like(x) if g_ is None else g_ for x, g_ in zip(xs, gs)]

    rows = torch.arange(nq)
    ref = lambda q_, k_, v_: (attention_rows(q_, k_, v_, rows, causal=causal),  # noqa: E731
                              lse_rows(q_, k_, rows, causal=causal))
    naive = lambda *xs: fk.attention_with_lse(*xs, causal=causal, impl="naive")  # noqa: E731
    ours = lambda *xs: fk.attention_with_lse(*xs, causal=causal, impl=impl, block_m=bm, block_n=bn)  # noqa: E731
    for use_out in (True, False):                                # out and lse, then lse alone
        o64, l64, g64 = grads(ref, torch.float64, use_out)
        _, _, g32 = grads(naive, torch.float32, use_out)
        out, lse, got = grads(ours, torch.float32, use_out)
        assert torch.allclose(out.double(), o64, atol=1e-5) and torch.equal(torch.isneginf(lse), torch.isneginf(l64))
        live = torch.isfinite(l64)
        assert torch.allclose(lse.double()[live], l64[live], atol=1e-5)
        for name, a, n_, r in zip("qkv", got, g32, g64):
            assert torch.isfinite(r).all() and torch.isfinite(a).all(), f"d{name} not finite"
            err, base = (a.double() - r).abs().max().item(), (n_.double() - r).abs().max().item()
            assert err <= 2 * base + EPS[torch.float32], (impl, name, use_out, err, base)
    dead = max(0, nq - nk) if causal else 0
    assert torch.all(got[0][:, :, :dead] == 0)                   # rows that see no key get no gradient


def test_directional_finite_difference():
    """Gradcheck-style: <grad, u> equals (L(x + e u) - L(x - e u)) / 2e for the fp32 kernel."""
    g = torch.Generator(device=DEV).manual_seed(0)
    mk = lambda *s: torch.randn(s, device=DEV, generator=g, dtype=torch.float64)  # noqa: E731
    q, k, v, w = mk(1, 1, 19, 16), mk(1, 1, 19, 16), mk(1, 1, 19, 16), mk(1, 1, 19, 16)
    loss = lambda q_, k_, v_: (fk.attention(q_.float(), k_.float(), v_.float(), causal=True,  # noqa: E731
                                            impl="fast").double() * w).sum()
    xs = [x.float().requires_grad_() for x in (q, k, v)]
    (fk.attention(*xs, causal=True, impl="fast").double() * w).sum().backward()
    e = 1e-2
    for i in range(3):
        u = mk(1, 1, 19, 16)
        plus = [x + e * u if j == i else x for j, x in enumerate((q, k, v))]
        minus = [x - e * u if j == i else x for j, x in enumerate((q, k, v))]
        fd = (loss(*plus) - loss(*minus)).item() / (2 * e)
        an = (xs[i].grad.double() * u).sum().item()
        assert abs(fd - an) <= 2e-3 * max(1.0, abs(an)), (i, fd, an)


def test_no_grad_path_and_naive_autograd_agree():
    g = torch.Generator(device=DEV).manual_seed(3)
    q, k, v = (torch.randn((1, 2, 24, 16), device=DEV, generator=g) for _ in range(3))
    with torch.no_grad():
        a = fk.attention(q, k, v, impl="fast", causal=True)
    b = fk.attention(q.requires_grad_(), k, v, impl="fast", causal=True)
    assert b.requires_grad and torch.allclose(a, b.detach())


GPU_CASES = [(2, 16, 4096, 64, torch.float16), (2, 16, 4096, 128, torch.bfloat16),
             (1, 32, 1000, 128, torch.float16), (1, 32, 777, 32, torch.bfloat16), (1, 32, 512, 64, torch.float32)]


@pytest.mark.gpu
@pytest.mark.parametrize("b,h,n,d,dtype", GPU_CASES)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("impl", ["fast", "teaching"])
def test_grads_full_size_gpu(b, h, n, d, dtype, causal, impl):
    check_grads(b, h, n, n, d, dtype, causal, impl, seed=n + d)


@pytest.mark.gpu
def test_grads_fully_masked_rows_gpu():
    check_grads(2, 16, 300, 100, 64, torch.float16, True, "fast", seed=2)


@pytest.mark.timeout(120)
def test_backward_while_caller_holds_the_launch_lock():
    """flashviz.bench holds LAUNCH_LOCK around a whole training step; on a GPU autograd runs the
    backward on its own thread, which must not wait for that lock (it deadlocked once)."""
    g = torch.Generator(device=DEV).manual_seed(4)
    q, k, v = (torch.randn((1, 2, 64, 32), device=DEV, generator=g).requires_grad_() for _ in range(3))
    with fk.LAUNCH_LOCK:
        out = fk.attention(q, k, v, impl="fast", causal=True)
        dq, dk, dv = torch.autograd.grad(out, (q, k, v), torch.ones_like(out))
    assert all(torch.isfinite(x).all() for x in (dq, dk, dv))


@pytest.mark.parametrize("n_q,d,block_d", [(100, 64, 64), (7, 40, 64), (130, 16, 16)])
@pytest.mark.parametrize("lse_scale", [1.0, 1.4426950408889634])
@pytest.mark.parametrize("with_dlse", [False, True])
def test_row_stats_patches_dead_rows_and_subtracts_dlse(n_q, d, block_d, lse_scale, with_dlse):
    """backward.row_stats (one pre-pass kernel) against float64 torch: delta = rowsum(dO * O) - dlse with a dead
    row's (lse -inf) dlse ignored even when it is inf or NaN, lse * lse_scale with dead rows sent as +inf, ragged
    Nq, a head dim below its power-of-two tile; the caller's lse is left as it was."""
    from flashviz_kernels import backward
    g = torch.Generator(device=DEV).manual_seed(n_q + d)
    o, do = (torch.randn((2, 3, n_q, d), device=DEV, generator=g).to(torch.float16) for _ in range(2))
    lse = torch.randn((2, 3, n_q), device=DEV, generator=g) * 4
    dead = torch.rand((2, 3, n_q), device=DEV, generator=g) < 0.3
    lse[dead] = float("-inf")
    dlse = torch.randn((2, 3, n_q), device=DEV, generator=g) if with_dlse else None
    if with_dlse:
        dlse[dead] = torch.tensor([float("inf"), float("nan")], device=DEV).repeat(int(dead.sum()))[:int(dead.sum())]
    before = lse.clone()
    lse_out, delta = backward.row_stats(o, do, lse, dlse, block_d, lse_scale=lse_scale)
    want_delta = (o.double() * do.double()).sum(-1) - (0 if dlse is None else torch.where(dead, 0, dlse.double()))
    want_lse = torch.where(dead, float("inf"), lse.double() * lse_scale)
    assert lse_out.dtype == delta.dtype == torch.float32 and lse_out.shape == delta.shape == lse.shape
    assert torch.equal(torch.isposinf(lse_out), dead) and not torch.isnan(delta).any()
    torch.testing.assert_close(lse_out[~dead].double(), want_lse[~dead], rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(delta.double(), want_delta, rtol=1e-5, atol=1e-4)
    assert torch.equal(lse, before)


def test_attention_backward_refuses_statistics_it_cannot_read():
    """lse and dlse of integer dtype (a caller's bug: -inf has no integer form) or on another device than q give
    a typed error naming the tensor, before any launch; floating lse of another width is read as float32."""
    q = torch.randn((1, 2, 40, 16), device=DEV)
    lse = torch.randn((1, 2, 40), device=DEV)
    for bad, name in ((lse.long(), "lse"), (None, "dlse")):
        with pytest.raises(fk.KernelInputError, match=name):
            fk.attention_backward(q, q, q, q, bad if name == "lse" else lse, q,
                                  dlse=lse.to(torch.int32) if name == "dlse" else None, kind="reference")
    with pytest.raises(fk.KernelInputError, match="device"):                    # another device than q's
        fk.attention_backward(q, q, q, q, torch.empty((1, 2, 40), device="meta"), q, kind="reference")
    got = fk.attention_backward(q, q, q, q, lse.double(), q, kind="reference")
    want = fk.attention_backward(q, q, q, q, lse, q, kind="reference")
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b)
