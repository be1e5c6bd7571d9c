"""The Gluon ws kernel's variants on a Hopper GPU (marker `gpu`): causal sliding windows (left, 0), causal ALiBi,
packed documents and GQA/MQA, against the independent float64 reference of tests/helpers/variant_ref.py with the usual idiom
max|out - ref64| <= 2 * max|naive_same_dtype - ref64| + eps. Every case runs one tile per program and persistent,
and at d = 64 also with two consumer warpgroups (one tile and persistent) besides the default three. Skipped where
ws cannot run."""
import pytest
import torch

import flashviz_kernels as fk
from helpers.attn_ref import check_close
from helpers.variant_inputs import EPS, GRAD_EPS, docs, make, short_docs, slopes
from helpers.variant_ref import reference

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("needs_ws")]   # skipped, with the reason, where it cannot run


@pytest.fixture(autouse=True, params=["one-tile", "persistent", "nc2", "persistent-nc2"])
def schedule(request, monkeypatch):
    from flashviz_kernels import ws
    monkeypatch.setenv(ws.PERSISTENT_ENV, "1" if request.param.startswith("persistent") else "0")
    if request.param.endswith("nc2"):
        monkeypatch.setenv(ws.CONSUMERS_ENV, "2")
    return request.param


# name -> (b, h, h_kv, nq, nk, d, dtype, left of the causal window or None for plain causal, causal); an "alibi"
# name adds ALiBi slopes ((B, H) when it says so)
CASES = {
    "window 1024": (1, 8, 8, 4096, 4096, 128, torch.float16, 1024, True),
    "window 300 GQA bf16": (1, 8, 2, 4093, 4093, 64, torch.bfloat16, 300, True),
    "window 0 MQA Nq<Nk": (2, 4, 1, 1000, 4093, 128, torch.float16, 0, True),
    "window 64 Nq>Nk dead rows": (1, 4, 4, 4093, 1000, 64, torch.float16, 64, True),
    "window 127 ragged": (1, 4, 2, 777, 777, 128, torch.float16, 127, True),
    "window wider than N": (1, 4, 4, 300, 300, 64, torch.float16, 5000, True),
    "window 1 bf16": (2, 2, 2, 129, 129, 128, torch.bfloat16, 1, True),
    "GQA causal": (1, 16, 4, 2048, 2048, 128, torch.float16, None, True),
    "GQA plain ragged": (2, 6, 3, 1000, 1500, 64, torch.float16, None, False),
    "MQA plain": (1, 8, 1, 2048, 2048, 128, torch.bfloat16, None, False),
    "alibi causal": (1, 8, 8, 4096, 4096, 128, torch.float16, None, True),
    "alibi(B,H) causal GQA ragged bf16": (2, 8, 2, 1000, 1000, 64, torch.bfloat16, None, True),
    "alibi window 300 Nq<Nk": (1, 4, 4, 1000, 4093, 128, torch.float16, 300, True),
    "alibi dead rows Nq>Nk": (1, 4, 2, 4093, 1000, 64, torch.float16, None, True),
}


def _kw(left, causal, name="", b=1, h=1):
    kw = dict(causal=causal) if left is None else dict(causal=True, window=(left, 0))
    if "alibi" in name:
        kw["alibi_slopes"] = slopes(h, b if "(B,H)" in name else None)
    return kw


def _check_case(name, seed, label):
    """impl="ws" on CASES[name] against the float64 reference (naive's error sets the tolerance): the output, rows
    that see no key exactly zero with LSE -inf, and the other rows' LSE."""
    b, h, h_kv, nq, nk, d, dtype, left, causal = CASES[name]
    q, k, v, _ = make(b, h, h_kv, nq, nk, d, dtype, seed=seed)
    kw = _kw(left, causal, name, b, h)
    out64, lse64 = reference(q, k, v, **kw)
    naive = fk.attention(q, k, v, impl="naive", **kw)
    out, lse = fk.attention_with_lse(q, k, v, impl="ws", **kw)
    check_close(out, out64, naive, EPS[dtype], label)
    dead = torch.isneginf(lse64)
    assert torch.equal(torch.isneginf(lse), dead)
    assert torch.all(out[dead] == 0)
    assert torch.allclose(lse.double()[~dead], lse64[~dead], atol=2e-2)


@pytest.mark.parametrize("name", list(CASES))
def test_ws_variant_against_float64(name, schedule):
    if schedule.endswith("nc2") and CASES[name][5] != 64:
        pytest.skip("d = 128 runs two consumers already")
    _check_case(name, len(name), f"ws {name} {schedule}")


@pytest.mark.parametrize("name", [n for n in CASES if CASES[n][-1]])
def test_ws_half_against_float64(name, schedule, monkeypatch):
    """HALF (kernels/_ws_half.py: a band edge's tile a consumer sees half of runs as that half) on every causal
    case, each schedule: the same float64 check as without it."""
    from flashviz_kernels import ws
    if schedule.endswith("nc2") and CASES[name][5] != 64:
        pytest.skip("d = 128 runs two consumers already")
    if ws.gate_reason(ws.HALF_GATE):
        pytest.skip(f"HALF does not run here: {ws.gate_reason(ws.HALF_GATE)}")
    monkeypatch.setenv(ws.HALF_ENV, "1")
    _check_case(name, len(name) + 1, f"ws HALF {name} {schedule}")


# name -> (b, h, h_kv, n, d, dtype, keywords besides seq_ids)
DOC_CASES = {
    "docs causal": (2, 8, 8, 4096, 128, torch.float16, dict(causal=True)),
    "docs plain GQA ragged bf16": (2, 8, 2, 1000, 64, torch.bfloat16, dict()),
    "docs window 300 alibi(B,H) GQA": (2, 8, 4, 4093, 128, torch.float16,
                                       dict(causal=True, window=(300, 0), alibi=True)),
    "docs causal MQA ragged": (1, 4, 1, 777, 64, torch.float16, dict(causal=True)),
    "docs short causal": (2, 4, 4, 1500, 128, torch.bfloat16, dict(causal=True, short=True)),
    "docs short plain d64": (2, 4, 2, 2049, 64, torch.float16, dict(short=True)),
}


@pytest.mark.parametrize("name", list(DOC_CASES))
def test_ws_documents_against_float64(name, schedule):
    """Packed documents on the ws kernel: the host's tables give each query tile its key tiles and each row its keys
    (causal side, window and document edges), with ALiBi and GQA/MQA, every schedule."""
    b, h, h_kv, n, d, dtype, extra = DOC_CASES[name]
    if schedule.endswith("nc2") and d != 64:
        pytest.skip("d = 128 runs two consumers already")
    kw = {key: val for key, val in extra.items() if key not in ("alibi", "short")}
    kw["seq_ids"] = short_docs(b, n) if extra.get("short") else docs(b, n, len(name))
    if extra.get("alibi"):
        kw["alibi_slopes"] = slopes(h, b)
    q, k, v, _ = make(b, h, h_kv, n, n, d, dtype, seed=len(name))
    out64, lse64 = reference(q, k, v, **kw)
    out, lse = fk.attention_with_lse(q, k, v, impl="ws", **kw)
    check_close(out, out64, fk.attention(q, k, v, impl="naive", **kw), EPS[dtype], f"ws {name} {schedule}")
    assert torch.isfinite(lse).all()                  # every row of a document sees itself
    assert torch.allclose(lse.double(), lse64, atol=2e-2)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_ws_gqa_poisoned_kv_head_stays_in_its_group(schedule):
    """kv head 1 of batch 0 holds inf / NaN: only its query heads (2, 3 of 8 with H_kv = 4) may be hit; every other
    head of both batch entries matches float64 (a wrong kv-head index would read the poison elsewhere)."""
    q, k, v, _ = make(2, 8, 4, 2049, 2049, 64, torch.float16, seed=9)
    k[0, 1], v[0, 1] = float("inf"), float("nan")
    kw = dict(causal=True, window=(256, 0))
    out = fk.attention(q, k, v, impl="ws", **kw)
    for bi, heads in ((0, [0, 1, 4, 5, 6, 7]), (1, list(range(8)))):
        kv_heads = [hh // 2 for hh in heads]
        args = (q[bi:bi + 1, heads], k[bi:bi + 1, kv_heads], v[bi:bi + 1, kv_heads])
        ref, _ = reference(*args, **kw)
        check_close(out[bi:bi + 1, heads], ref, fk.attention(*args, impl="naive", **kw), EPS[torch.float16],
                    f"batch {bi}")


@pytest.mark.parametrize("variant", ["window", "alibi", "alibi+window", "docs", "docs+window"])
def test_fast_runs_ws_for_a_window_and_gradients_flow(schedule, monkeypatch, variant):
    """impl="fast" at a size the dispatch table gives ws (d = 128, N = 2048) takes the window, causal ALiBi, packed
    documents (a docs row at d = 128 set here) and GQA to it; the backward then matches float64 too."""
    from flashviz_kernels import ws
    if schedule != "one-tile":
        pytest.skip("the dispatch, once")
    calls = []
    real = ws.forward
    from helpers.dispatch import ws_from_table
    ws_from_table(monkeypatch, docs=(128,))
    monkeypatch.setattr(ws, "forward", lambda *a, **kw: calls.append((kw["window_left"],
                                                                      kw["alibi_slopes"] is not None))
                        or real(*a, **kw))
    q, k, v, do = make(1, 8, 2, 2048, 2048, 128, torch.float16, seed=11)
    kw = dict(causal=True)
    if "window" in variant:
        kw["window"] = (500, 0)
    if "alibi" in variant:
        kw["alibi_slopes"] = slopes(8)
    if "docs" in variant:
        kw["seq_ids"] = docs(1, 2048, 5)

    def grads(fn, dt):
        xs = [x.detach().to(dt).requires_grad_() for x in (q, k, v)]
        out = fn(*xs)
        return (out, *torch.autograd.grad(out, xs, do.to(out.dtype)))

    got = grads(lambda *xs: fk.attention(*xs, impl="fast", **kw), torch.float16)
    assert calls == [(500 if "window" in variant else -1, "alibi" in variant)]
    ref = grads(lambda *xs: reference(*xs, **kw)[0], torch.float64)
    low = grads(lambda *xs: fk.attention(*xs, impl="naive", **kw), torch.float16)
    for what, a, n_, r in zip(("out", "dq", "dk", "dv"), got, low, ref):
        assert torch.isfinite(a).all(), what
        err, base = (a.double() - r).abs().max().item(), (n_.double() - r).abs().max().item()
        assert err <= 2 * base + GRAD_EPS[torch.float16], f"{what}: {err:.3g} > 2 * {base:.3g}"
