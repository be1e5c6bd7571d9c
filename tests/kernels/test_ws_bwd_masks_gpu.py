"""The Gluon ws backward with masks beyond causal (sliding windows, packed documents: the host's by-key tables) and
GQA/MQA (dK/dV per query head, summed per group) on a Hopper GPU (marker `gpu`; skipped where it cannot run).
Gradients of kind="ws" against float64 autograd through the independent reference of tests/helpers/variant_ref.py, idiom
max|g - g64| <= 2 * max|g_naive_lowprec - g64| + eps; rows that see no key get zero dQ. Every case runs the default
dQ mode, "split" (another code path through the same block walk: pointer atomics, one dS slot), the default with
mask_mode "asm" (ws_bwd.MASK_MODES) and the default with next_s 1 and 2 (kernels/_ws_bwd_next.py's walk); "partial"
is refused with tables (ws_bwd.check_table_mode)."""
import pytest
import torch

import flashviz_kernels as fk
from helpers.variant_inputs import GRAD_EPS, docs, make, short_docs
from helpers.variant_ref import reference

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("needs_ws_bwd")]   # skipped, with the reason, where it cannot run


# name -> (b, h, nq, nk, d, dtype, keywords builder)
CASES = {
    "causal window 300": (1, 4, 2048, 2048, 128, torch.float16, lambda b, n: dict(causal=True, window=(300, 0))),
    "diagonal window (0, 0) ragged bf16": (2, 2, 777, 777, 64, torch.bfloat16, lambda b, n: dict(window=(0, 0))),
    "two-sided window 256/128": (1, 4, 4096, 4096, 64, torch.float16, lambda b, n: dict(window=(256, 128))),
    "window Nq<Nk": (1, 4, 1000, 4093, 128, torch.float16, lambda b, n: dict(window=(300, 40))),
    "window dead rows Nq>Nk": (1, 4, 4093, 1000, 64, torch.float16, lambda b, n: dict(window=(64, 0))),
    "right side only": (1, 2, 1500, 1500, 128, torch.bfloat16, lambda b, n: dict(window=(-1, 200))),
    "docs causal": (2, 4, 4096, 4096, 128, torch.float16, lambda b, n: dict(causal=True, seq_ids=docs(b, n, 3))),
    "docs plain ragged": (2, 4, 1000, 1000, 64, torch.bfloat16, lambda b, n: dict(seq_ids=docs(b, n, 4))),
    "docs+window causal": (2, 4, 4093, 4093, 64, torch.float16,
                           lambda b, n: dict(causal=True, window=(512, 0), seq_ids=docs(b, n, 5))),
    "short docs causal": (2, 2, 1500, 1500, 128, torch.float16,
                          lambda b, n: dict(causal=True, seq_ids=short_docs(b, n))),
    "short docs plain d64": (1, 4, 2049, 2049, 64, torch.float16, lambda b, n: dict(seq_ids=short_docs(b, n))),
}


@pytest.fixture(params=["default", "split", "mask asm", "next", "next 2"])
def dq_mode(request, monkeypatch):
    """The launch's dQ mode, or ("mask asm") the default one with ws_bwd.MASK_MODES' "asm" masks, or ("next") the
    default one with the next query block's S^T issued early (ws_bwd.NEXT_MODES' 1 and 2, through its environment
    switch)."""
    from helpers.dispatch import ws_bwd_launch
    if request.param == "mask asm":
        from flashviz_kernels import ws_bwd, ws_bwd_switches
        monkeypatch.setattr(ws_bwd_switches, "MASK_DEFAULT", "asm")      # where mask_code reads it
        assert ws_bwd.mask_code(None) == ws_bwd.MASK_MODES["asm"]
    elif request.param.startswith("next"):
        from flashviz_kernels import ws_bwd
        monkeypatch.setenv(ws_bwd.NEXT_ENV, "2" if request.param == "next 2" else "1")
    elif request.param != "default":
        ws_bwd_launch(monkeypatch, dq_mode=request.param)
    return request.param


# GQA/MQA: name -> (b, h, h_kv, nq, nk, d, dtype, keywords builder)
GQA_CASES = {
    "GQA causal": (1, 8, 2, 2048, 2048, 128, torch.float16, lambda b, n: dict(causal=True)),
    "MQA plain ragged bf16": (2, 4, 1, 1000, 1500, 64, torch.bfloat16, lambda b, n: dict()),
    "GQA causal Nq>Nk dead rows": (1, 6, 3, 1500, 1000, 64, torch.float16, lambda b, n: dict(causal=True)),
    "GQA docs causal": (2, 8, 4, 4093, 4093, 128, torch.float16,
                        lambda b, n: dict(causal=True, seq_ids=docs(b, n, 8))),
    "MQA window": (1, 4, 1, 2049, 2049, 64, torch.float16, lambda b, n: dict(causal=True, window=(300, 0))),
}


@pytest.mark.parametrize("with_dlse", [False, True])
@pytest.mark.parametrize("name", list(CASES) + list(GQA_CASES))
def test_ws_backward_masks_against_float64(name, dq_mode, with_dlse):
    if with_dlse and dq_mode != "default":
        pytest.skip("dlse once per case")
    if name in GQA_CASES:
        b, h, h_kv, nq, nk, d, dtype, build = GQA_CASES[name]
    else:
        b, h, nq, nk, d, dtype, build = CASES[name]
        h_kv = h
    q, k, v, do = make(b, h, h_kv, nq, nk, d, dtype, seed=len(name) + 7)
    kw = build(b, nq)
    dlse = torch.randn((b, h, nq), device="cuda", generator=torch.Generator("cuda").manual_seed(3)) if with_dlse \
        else None

    def grads(fn, dt):
        xs = [x.detach().to(dt).requires_grad_() for x in (q, k, v)]
        out, lse = fn(*xs)
        outs, cots = [out], [do.to(out.dtype)]
        if dlse is not None:
            alive = torch.isfinite(lse)             # a dead row's lse is -inf: no gradient reaches it
            outs.append(torch.where(alive, lse, 0.0))
            cots.append(torch.where(alive, dlse.to(lse.dtype), 0.0))
        return torch.autograd.grad(outs, xs, cots)

    g64 = grads(lambda *xs: reference(*xs, **kw), torch.float64)
    low = grads(lambda *xs: fk.attention_with_lse(*xs, impl="naive", **kw), dtype)
    o, lse = fk.attention_with_lse(q, k, v, impl="fast", **kw)
    got = fk.attention_backward(q, k, v, o, lse, do, dlse=dlse, kind="ws", **kw)
    dead = torch.isneginf(reference(q, k, v, **kw)[1])
    for what, a, n_, r in zip("qkv", got, low, g64):
        assert a.dtype == dtype and a.shape == r.shape
        assert torch.isfinite(a).all(), f"d{what} not finite"
        err, base = (a.double() - r).abs().max().item(), (n_.double() - r).abs().max().item()
        assert err <= 2 * base + GRAD_EPS[dtype], f"ws {name} d{what}: {err:.3g} > 2 * {base:.3g}"
    assert torch.all(got[0][dead] == 0)


def test_auto_takes_ws_for_masks_at_its_dims(monkeypatch):
    """With the backward table's mask rows naming d, autograd through impl="fast" runs the ws backward for a window
    and for documents (the launch is seen), and the gradients match float64."""
    from helpers.dispatch import backward_routes
    from flashviz_kernels import ws_bwd
    backward_routes(monkeypatch, masks=(128,))
    seen = []
    real = ws_bwd.backward
    monkeypatch.setattr(ws_bwd, "backward", lambda *a, **kw: seen.append(kw["variant"].describe()) or real(*a, **kw))
    q, k, v, do = make(1, 4, 4, 2048, 2048, 128, torch.float16, seed=5)
    for kw in (dict(causal=True, window=(700, 0)), dict(causal=True, seq_ids=docs(1, 2048, 6))):
        xs = [x.detach().clone().requires_grad_() for x in (q, k, v)]
        got = torch.autograd.grad(fk.attention(*xs, impl="fast", **kw), xs, do)
        xs64 = [x.detach().double().requires_grad_() for x in (q, k, v)]
        g64 = torch.autograd.grad(reference(*xs64, **kw)[0], xs64, do.double())
        xsl = [x.detach().clone().requires_grad_() for x in (q, k, v)]
        low = torch.autograd.grad(fk.attention(*xsl, impl="naive", **kw), xsl, do)
        for a, n_, r in zip(got, low, g64):
            assert (a.double() - r).abs().max() <= 2 * (n_.double() - r).abs().max() + GRAD_EPS[torch.float16]
    assert [s["window"] for s in seen] == [(700, 0), (-1, 0)] and seen[1]["seq_ids"]
