"""The Gluon ws backward (kernels/ws_bwd.py) on a Hopper GPU (marker `gpu`; skipped with the reason where it cannot
run: no CUDA, not sm_90, not the verified triton).

Gradients against float64 torch autograd, idiom max|g - g64| <= 2 * max|g_naive_lowprec - g64| + eps
(helpers.backward.check with kind="ws"); rows that see no key get zero gradients (check asserts it); non-finite
values in another head do not leak; the peak extra memory the module docstring states, measured. The gradient tests
run every dQ mode that takes block_m 64 ("split", "tma", "tma2", "tma3", "frag": d = 128 only; ws_bwd.DQ_MODES;
"split-scalar" only in the tile test below, "rows" in its own).
"""
import pytest
import torch

import flashviz_kernels as fk
from helpers.backward import EPS, check, check_peak_extra_memory, inputs

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("needs_ws_bwd")]   # skipped, with the reason, where it cannot run


@pytest.fixture(params=["split", "tma", "tma2", "tma3", "frag"])
def dq_mode(request, monkeypatch):
    """Every ws backward of the test runs this dq_mode (kind="ws" takes the backward table's launch): "frag" is the
    table's at d = 128 (d = 64 keeps its own); the others at both head dims, with 2 ring stages at d = 128 (as they
    were timed there; "tma3" fits no more)."""
    from flashviz_kernels import backward_table, ws_bwd
    mode = request.param
    assert ws_bwd.CONFIGS[128][4] == "frag"
    rows = tuple(r if mode == "frag" else r.but(dq_mode=mode, **({"stages": 2} if r.d[0] == 128 else {}))
                 for r in backward_table.WS_BWD_LAUNCHES)
    monkeypatch.setattr(backward_table, "WS_BWD_LAUNCHES", rows)
    assert ws_bwd.CONFIGS[128][4] == mode and (mode == "frag" or ws_bwd.CONFIGS[64][4] == mode)
    return mode


@pytest.mark.parametrize("n", [1, 17, 1000, 4093])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_ws_bwd_full_size(n, d, causal, dq_mode):
    check(1, 4, n, n, d, torch.float16, causal, seed=n + d, kind="ws")


@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_ws_bwd_n16384(d, causal):
    """The longest sequence the issue names, at CONFIGS' switches (one head: the float64 reference holds N x N
    matrices)."""
    check(1, 1, 16384, 16384, d, torch.float16, causal, seed=d + causal, kind="ws")


@pytest.mark.parametrize("nq,nk,causal,d", [(1000, 1500, True, 64), (1500, 1000, True, 64), (1000, 1500, False, 64),
                                            (300, 100, True, 128), (4093, 17, True, 64), (200, 700, True, 128)])
def test_ws_bwd_nq_ne_nk_and_masked_rows(nq, nk, causal, d, dq_mode):
    """Causal with Nq > Nk leaves rows that see no key: zero gradient (check asserts it)."""
    check(2, 4, nq, nk, d, torch.float16, causal, seed=nq + 3 * nk, kind="ws")


@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_ws_bwd_bf16(d, causal, dq_mode):
    check(1, 4, 777, 777, d, torch.bfloat16, causal, seed=d, kind="ws")


@pytest.mark.parametrize("causal,nq,nk", [(True, 1000, 600), (False, 640, 640)])
def test_ws_bwd_with_dlse(causal, nq, nk, dq_mode):
    check(1, 4, nq, nk, 64, torch.float16, causal, seed=9, with_dlse=True, kind="ws")


@pytest.mark.parametrize("mode", ["rows", "rows-frag"])
@pytest.mark.parametrize("dq_first", [False, True])
@pytest.mark.parametrize("nq,nk,causal,dtype", [(1, 1, False, torch.float16), (1000, 1000, True, torch.float16),
                                                (1000, 1500, True, torch.bfloat16), (1500, 1000, True, torch.float16),
                                                (777, 1000, False, torch.float16), (4093, 17, True, torch.float16)])
def test_ws_bwd_rows(monkeypatch, nq, nk, causal, dtype, dq_first, mode):
    """dq_mode "rows" (d = 64, block_m 128: each consumer's dQ piece is half the rows, all columns; "rows-frag" staged
    in the MMA accumulator's order), dQ's MMAs after or before dK's: float64 autograd's gradients within the naive
    bound, no gradient for rows that see no key."""
    from helpers.dispatch import ws_bwd_launch
    ws_bwd_launch(monkeypatch, dq_mode=mode, block_m=128, dq_first=dq_first, early_dq=False)
    check(2, 3, nq, nk, 64, dtype, causal, seed=nq + nk, kind="ws")


@pytest.mark.parametrize("d,block_m,stages,dq_split,rotate,mode", [
    (64, 128, 2, 1, True, "split-scalar"), (64, 64, 3, 1, False, "split"), (128, 64, 3, 2, True, "split"),
    (128, 64, 2, 1, False, "split"), (64, 64, 3, 1, True, "split"), (64, 64, 2, 1, True, "split-scalar"),
    (128, 64, 2, 2, True, "split"), (128, 64, 3, 1, False, "split-scalar"), (64, 128, 2, 1, True, "split"),
    (128, 64, 3, 1, False, "tma"), (64, 128, 2, 1, True, "tma"), (64, 64, 4, 1, True, "tma"),
    (128, 64, 2, 1, False, "tma2"), (64, 64, 2, 1, True, "tma2"), (64, 64, 4, 1, True, "tma3"),
    (128, 64, 2, 1, True, "tma3"), (128, 64, 2, 1, False, "frag"), (128, 64, 3, 1, True, "frag"),
    (128, 64, 3, 1, True, "tma2"), (64, 128, 2, 1, True, "rows-frag")])
def test_ws_bwd_other_tiles(d, block_m, stages, dq_split, rotate, mode):
    """The switches ws_bwd.backward takes for tuning compute the same gradients (causal, ragged N)."""
    from flashviz_kernels import ws_bwd
    q, k, v, do, _ = inputs(1, 4, 1000, 1000, d, torch.float16, seed=3)
    o, lse = fk.attention_with_lse(q, k, v, causal=True, impl="fast")
    ref = fk.attention_backward(q, k, v, o, lse, do, causal=True, kind="reference")
    got = ws_bwd.backward(q, k, v, o, lse, do, causal=True, sm_scale=d ** -0.5, block_m=block_m, stages=stages,
                          dq_split=dq_split, rotate=rotate, dq_mode=mode)
    for name, a, r in zip("qkv", got, ref):
        assert torch.isfinite(a).all(), name
        assert (a.float() - r.float()).abs().max().item() < 2e-2, name


@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("stats_acc,early_dq,dq_first,prefetch,mode,scale", [
    (False, False, False, False, "tma2", None), (True, False, False, False, "tma2", None),
    (True, True, False, False, "tma2", None), (True, True, False, False, "tma", None),
    (True, True, False, False, "tma2", 0.0), (True, False, False, False, "tma2", -0.07),
    (True, False, False, False, "tma2", 1e-30), (True, False, True, False, "tma2", None),
    (True, False, True, False, "tma3", None), (True, False, True, False, "tma", None),
    (False, False, True, False, "tma2", 0.0), (True, False, False, True, "tma2", None),
    (False, False, False, True, "tma2", None), (True, False, True, True, "tma3", 1e-30)])
@pytest.mark.parametrize("causal,nq,nk", [(True, 1000, 1300), (False, 777, 1000)])
def test_ws_bwd_schedules(d, stats_acc, early_dq, dq_first, prefetch, mode, scale, causal, nq, nk):
    """lse and delta held in registers or starting the S^T / dP^T accumulators (loaded at each block or a block
    ahead: prefetch), dQ's MMAs after, right behind dV's and dK's, or before dK's (dq_first): float64 autograd's
    gradients within the fp16 naive bound, also at sm_scale 0 (where the accumulator start cannot apply: there is no
    1 / qk_scale), a negative sm_scale (attention_backward takes both; the fast forward does not, so the naive one
    makes o and lse there) and 1e-30, below ws_bwd.STATS_ACC_MIN_SCALE (the statistics are held in registers there;
    every P is about 1 / Nk). At d = 128 with 2 ring stages, as these modes were timed there."""
    _check_schedule(d, stats_acc, early_dq, dq_first, prefetch, mode, scale, causal, nq, nk, 2 if d == 128 else None)


@pytest.mark.parametrize("stats_acc,early_dq,dq_first,prefetch,scale", [
    (True, False, False, 2, None), (True, False, False, 0, None), (True, False, False, 1, None),
    (True, True, False, 0, None), (True, False, True, 0, None), (True, False, False, 2, 0.0),
    (False, False, False, 2, -0.07), (True, False, False, 2, 1e-30)])
@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("causal,nq,nk", [(True, 1000, 1300), (False, 777, 1000), (True, 4093, 4093)])
def test_ws_bwd_frag_schedules(stats_acc, early_dq, dq_first, prefetch, scale, stages, causal, nq, nk):
    """"frag" (d = 128's default: dQ staged in the accumulator's order, put back by the cast pass) under every
    schedule switch, 2 or 3 ring stages, ragged Nq: as test_ws_bwd_schedules."""
    _check_schedule(128, stats_acc, early_dq, dq_first, prefetch, "frag", scale, causal, nq, nk, stages)


@pytest.mark.parametrize("exp_mode", ["late", "poly", "late-poly"])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("scale", [None, 1e-30])
@pytest.mark.parametrize("causal,nq,nk", [(True, 1000, 1300), (False, 777, 1000), (True, 4093, 4093), (False, 1, 1),
                                          (True, 1300, 1000)])
def test_ws_bwd_exp_modes(exp_mode, d, scale, causal, nq, nk):
    """P^T's exponentials waited for with dP^T ("late") and half of them as a cubic on the FMA pipe ("poly"), at the
    table's launch (and at 1e-30, where lse and delta sit in registers, not in the accumulators): float64 autograd's
    gradients within the fp16 naive bound; rows that see no key (causal, Nq > Nk) get zero gradients."""
    from flashviz_kernels import ws_bwd
    _, stages, _, _, mode = ws_bwd.CONFIGS[d]
    _check_schedule(d, True, False, False, 2, mode, scale, causal, nq, nk, stages, exp_mode=exp_mode)


@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal,nq,nk", [(True, 1000, 1300), (True, 4093, 4093), (True, 1300, 1000), (True, 1, 1),
                                          (True, 127, 4093), (False, 777, 1000), (True, 2048, 2048)])
def test_ws_bwd_asm_mask(d, causal, nq, nk):
    """mask_mode "asm" (each masked score zeroed by one compare-and-select asm statement) at the table's launch:
    float64 autograd's gradients within the fp16 naive bound, on the causal band (bottom-right, Nq < Nk and
    Nq > Nk: rows that see no key get zero gradients), a ragged last key block and an aligned N."""
    from flashviz_kernels import ws_bwd
    _, stages, _, _, mode = ws_bwd.CONFIGS[d]
    _check_schedule(d, True, False, False, 2, mode, None, causal, nq, nk, stages, mask_mode="asm")


@pytest.mark.parametrize("next_s", [1, 2])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("exp_mode,mask_mode", [("mufu", None), ("late", "asm")])
@pytest.mark.parametrize("causal,nq,nk", [(True, 1000, 1300), (False, 777, 1000), (True, 4093, 4093), (False, 1, 1),
                                          (True, 1300, 1000), (True, 127, 4093), (False, 64, 2000),
                                          (False, 129, 129), (True, 2048, 2048)])
def test_ws_bwd_next(next_s, d, exp_mode, mask_mode, causal, nq, nk):
    """next_s 1 and 2 (the next query block's S^T issued behind this block's dK / dQ: kernels/_ws_bwd_next.py) at
    the table's launch: float64 autograd's gradients within the fp16 naive bound over walks of one block (Nq <= 64),
    two, and many, masked and not, ragged and aligned; with EXP "late" (S^T and dP^T waited for together) and the
    asm masks too; rows that see no key get zero gradients."""
    from flashviz_kernels import ws_bwd
    _, stages, _, _, mode = ws_bwd.CONFIGS[d]
    _check_schedule(d, True, False, False, 2, mode, None, causal, nq, nk, stages, exp_mode=exp_mode,
                    mask_mode=mask_mode, next_s=next_s)


@pytest.mark.parametrize("d,next_s,dp_zero", [(64, 1, "1"), (64, 0, "1"), (128, 0, "1"), (64, 1, "0")])
@pytest.mark.parametrize("causal,nq,nk", [(True, 1000, 1300), (False, 777, 1000), (True, 4093, 4093), (False, 1, 1),
                                          (True, 127, 4093), (False, 129, 129)])
def test_ws_bwd_dp_zero(monkeypatch, d, next_s, dp_zero, causal, nq, nk):
    """DP_ZERO_ENV=1 (dP^T's accumulator from zero, delta subtracted in dS: ws_bwd.stats_code) at the table's launch,
    with and without next_s 1, and =0 where it is the default (d = 64 with next_s 1 under 3.8 and 3.9): float64
    autograd's gradients within the fp16 naive bound, ragged and aligned."""
    from flashviz_kernels import ws_bwd
    monkeypatch.setenv(ws_bwd.DP_ZERO_ENV, dp_zero)
    _, stages, _, _, mode = ws_bwd.CONFIGS[d]
    _check_schedule(d, True, False, False, 2, mode, None, causal, nq, nk, stages, next_s=next_s)


def _check_schedule(d, stats_acc, early_dq, dq_first, prefetch, mode, scale, causal, nq, nk, stages=None,
                    exp_mode="mufu", mask_mode=None, next_s=None):
    from flashviz_kernels import ws_bwd
    q, k, v, do, _ = inputs(1, 3, nq, nk, d, torch.float16, seed=nq + d)
    sm = d ** -0.5 if scale is None else scale
    o, lse = fk.attention_with_lse(q, k, v, causal=causal, sm_scale=sm, impl="fast" if sm > 0 else "naive")
    got = ws_bwd.backward(q, k, v, o, lse, do, causal=causal, sm_scale=sm, dq_mode=mode, stats_acc=stats_acc,
                          early_dq=early_dq, dq_first=dq_first, prefetch=prefetch, stages=stages, exp_mode=exp_mode,
                          mask_mode=mask_mode, next_s=next_s)

    def grads(dtype):
        xs = [x.detach().to(dtype).requires_grad_() for x in (q, k, v)]
        s = xs[0] @ xs[1].transpose(-1, -2) * sm
        if causal:                                     # bottom-right: row i sees keys j <= i + nk - nq
            i = torch.arange(nq, device=q.device)[:, None]
            s = s.masked_fill(torch.arange(nk, device=q.device)[None, :] > i + nk - nq, float("-inf"))
        alive = (s > float("-inf")).any(-1, keepdim=True)       # a row that sees no key: no output, no gradient
        s = torch.where(alive, s, 0.0)
        p = torch.softmax(s.float() if dtype == torch.float16 else s, dim=-1) * alive
        out = p.to(dtype) @ xs[2]
        return torch.autograd.grad((out * do.to(dtype)).sum(), xs)
    ref, low = grads(torch.float64), grads(torch.float16)
    if causal and nq > nk:                             # rows that see no key
        assert (got[0][:, :, :nq - nk].float() == 0).all()
    for name, a, n_, r in zip("qkv", got, low, ref):
        assert torch.isfinite(a).all(), name
        err, base = (a.double() - r).abs().max().item(), (n_.double() - r).abs().max().item()
        assert err <= 2 * base + EPS[torch.float16], f"d{name}: {err:.3g} > 2 * {base:.3g}"


@pytest.mark.parametrize("mode,early_dq,dq_first", [("split", True, False), ("split-scalar", False, True),
                                                     ("tma2", True, True)])
def test_ws_bwd_dq_orders_need_a_tma_mode(mode, early_dq, dq_first):
    from flashviz_kernels import ws_bwd
    from flashviz_kernels.errors import KernelInputError
    x = torch.randn((1, 1, 64, 64), dtype=torch.float16, device="cuda")
    with pytest.raises(KernelInputError, match="early_dq"):
        ws_bwd.backward(x, x, x, x, torch.zeros((1, 1, 64), device="cuda"), x, causal=False, sm_scale=0.1,
                        dq_mode=mode, early_dq=early_dq, dq_first=dq_first)


@pytest.mark.parametrize("poisoned", [0, 1])
@pytest.mark.parametrize("causal", [False, True])
def test_ws_bwd_non_finite_head_does_not_leak(poisoned, causal, dq_mode):
    """Two heads of N = 1000 (ragged: the last key block and query block end inside a 128 / 64 tile, where the
    next head's rows begin in memory): inf keys, NaN values and queries in head `poisoned`; the other head's
    gradients are finite and equal (up to the atomic adds' order) those of that head alone."""
    q, k, v, do, _ = inputs(1, 2, 1000, 1000, 128, torch.float16, seed=11)
    clean = 1 - poisoned
    o, lse = fk.attention_with_lse(q, k, v, causal=causal, impl="fast")
    alone = fk.attention_backward(*(x[:, clean:clean + 1].contiguous() for x in (q, k, v, o)),
                                  lse[:, clean:clean + 1].contiguous(), do[:, clean:clean + 1].contiguous(),
                                  causal=causal, kind="ws")
    k[:, poisoned] = float("inf")
    v[:, poisoned] = float("nan")
    q[:, poisoned] = float("nan")
    got = fk.attention_backward(q, k, v, o, lse, do, causal=causal, kind="ws")
    for name, g, a in zip("qkv", got, alone):
        g = g[:, clean:clean + 1]
        assert torch.isfinite(g).all(), f"d{name} of the clean head has non-finite entries"
        assert (g.float() - a.float()).abs().max().item() <= 1e-3, name


def test_ws_bwd_peak_extra_memory():
    """dQ, dK, dV + lse (log2 copy, dead rows patched) and delta, 4 bytes per row each, + the fp32 dQ buffer."""
    check_peak_extra_memory("ws")
