"""The ws forward at block_n = ws.WIDE_BN (128 x 256 tiles, two consumers, d = 64) on a Hopper GPU (marker `gpu`):
against the float64 reference of tests/helpers/variant_ref.py with the usual idiom (max|out - ref64| <= 2 *
max|naive_same_dtype - ref64| + eps), plain, causal, ragged, windows, packed documents and GQA/MQA, rows that see no
key, 2 and 3 ring stages; every case one tile per program and persistent, with and without PINGPONG. Skipped where
ws cannot run. tests/kernels/test_ws_wide.py checks the same launches' host rules and sm_90 build without a GPU."""
import pytest
import torch

import flashviz_kernels as fk
from helpers.attn_ref import check_close
from helpers.variant_inputs import EPS, docs, make, short_docs
from helpers.variant_ref import reference

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("needs_ws")]


@pytest.fixture(autouse=True, params=["one-tile", "persistent", "one-tile-pp0", "persistent-pp0"])
def schedule(request, monkeypatch):
    from flashviz_kernels import ws
    monkeypatch.setenv(ws.PERSISTENT_ENV, "1" if request.param.startswith("persistent") else "0")
    monkeypatch.setenv(ws.PINGPONG_ENV, "0" if request.param.endswith("pp0") else "1")
    return request.param


# name -> (b, h, h_kv, nq, nk, dtype, keywords: causal / window / "docs" / "short docs", num_stages)
CASES = {
    "plain 1": (2, 3, 3, 1, 1, torch.float16, dict(), 2),
    "causal 17": (2, 3, 3, 17, 17, torch.float16, dict(causal=True), 2),
    "plain 255 stages 3": (2, 3, 3, 255, 255, torch.float16, dict(), 3),
    "causal 257": (2, 3, 3, 257, 257, torch.float16, dict(causal=True), 2),
    "plain 4093": (1, 4, 4, 4093, 4093, torch.float16, dict(), 2),
    "causal 4093 stages 3": (1, 4, 4, 4093, 4093, torch.float16, dict(causal=True), 3),
    "plain Nq<Nk": (2, 2, 2, 300, 1000, torch.float16, dict(), 2),
    "causal Nq>Nk dead rows": (2, 2, 2, 1000, 300, torch.float16, dict(causal=True), 2),
    "causal 17x4093": (2, 2, 2, 17, 4093, torch.float16, dict(causal=True), 3),
    "plain 4093x129": (2, 2, 2, 4093, 129, torch.float16, dict(), 2),
    "causal bf16": (2, 4, 4, 2049, 2049, torch.bfloat16, dict(causal=True), 2),
    "window 1024": (1, 8, 8, 4096, 4096, torch.float16, dict(window=(1024, 0)), 2),
    "window 300 GQA bf16": (1, 8, 2, 4093, 4093, torch.bfloat16, dict(window=(300, 0)), 2),
    "window 0 MQA Nq<Nk": (2, 4, 1, 1000, 4093, torch.float16, dict(window=(0, 0)), 2),
    "window 64 Nq>Nk dead rows": (1, 4, 4, 4093, 1000, torch.float16, dict(window=(64, 0)), 3),
    "window wider than N": (1, 4, 4, 300, 300, torch.float16, dict(window=(5000, 0)), 2),
    "GQA causal": (1, 16, 4, 2048, 2048, torch.float16, dict(causal=True), 2),
    "MQA plain ragged": (2, 6, 1, 1000, 1500, torch.bfloat16, dict(), 2),
    "docs causal": (2, 8, 8, 4096, 4096, torch.float16, dict(causal=True, docs=True), 2),
    "docs plain GQA bf16": (2, 8, 2, 1000, 1000, torch.bfloat16, dict(docs=True), 2),
    "short docs causal": (2, 4, 4, 1500, 1500, torch.float16, dict(causal=True, docs="short"), 2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_wide_tile_against_float64(name, schedule):
    b, h, h_kv, nq, nk, dtype, extra, stages = CASES[name]
    q, k, v, _ = make(b, h, h_kv, nq, nk, 64, dtype, seed=len(name))
    kw = {key: val for key, val in extra.items() if key != "docs"}
    if "window" in kw:
        kw["causal"] = True
    if extra.get("docs"):
        kw["seq_ids"] = short_docs(b, nq) if extra["docs"] == "short" else docs(b, nq, len(name))
    out64, lse64 = reference(q, k, v, **kw)
    out, lse = fk.attention_with_lse(q, k, v, impl="ws", block_m=128, block_n=256, num_stages=stages, **kw)
    check_close(out, out64, fk.attention(q, k, v, impl="naive", **kw), EPS[dtype], f"ws 128x256 {name} {schedule}")
    dead = torch.isneginf(lse64)
    assert torch.equal(torch.isneginf(lse), dead) and not torch.isnan(lse).any()
    assert torch.all(out[dead] == 0)
    assert torch.allclose(lse.double()[~dead], lse64[~dead], atol=2e-2)


def test_wide_tile_matches_the_table_launch(schedule):
    """Every row's online softmax sees the same keys in 256- or 128-key steps: the outputs agree to rounding."""
    q, k, v, _ = make(4, 16, 16, 2000, 2000, 64, torch.float16, seed=21)
    for causal in (False, True):
        o2, l2 = fk.attention_with_lse(q, k, v, impl="ws", causal=causal, block_m=128, block_n=256)
        o1, l1 = fk.attention_with_lse(q, k, v, impl="ws", causal=causal)
        assert (o2.float() - o1.float()).abs().max().item() <= 2e-3
        assert torch.allclose(l2, l1, atol=1e-4, rtol=1e-5)
