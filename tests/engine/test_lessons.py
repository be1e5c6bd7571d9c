"""The lesson engines (flashviz.engine.lessons) against brute force and hand arithmetic."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

from flashviz.infra.errors import InputError
from flashviz.engine.lessons import (ALIGNS, alignment_blocks, alignment_summary, causal_visible, dropout_state_bytes,
                                     flash_kept_bytes, fused_compulsory_bytes, score_matrix_bytes, size_examples,
                                     unfused_stages)
from flashviz.engine.tiling import FULL, MASKED, SKIPPED, block_kinds, make_config
from flashviz.engine.traffic import standard_counts

MiB, GiB = 2**20, 2**30


def brute_mask(nq: int, nk: int, align: str) -> np.ndarray:
    """Element by element, written out: the rule of each alignment."""
    m = np.zeros((nq, nk), bool)
    for i in range(nq):
        for j in range(nk):
            m[i, j] = j <= (i + nk - nq if align == "bottom_right" else i)
    return m


def brute_blocks(mask: np.ndarray, br: int, bc: int) -> np.ndarray:
    nq, nk = mask.shape
    out = np.empty((-(-nq // br), -(-nk // bc)), np.int8)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            blk = mask[i * br:(i + 1) * br, j * bc:(j + 1) * bc]
            out[i, j] = FULL if blk.all() else SKIPPED if not blk.any() else MASKED
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.data(), st.sampled_from(ALIGNS))
def test_alignment_blocks_match_a_brute_force_mask(nq, nk, data, align):
    br, bc = data.draw(st.integers(1, nq)), data.draw(st.integers(1, nk))
    mask = brute_mask(nq, nk, align)
    np.testing.assert_array_equal(causal_visible(nq, nk, align), mask)
    np.testing.assert_array_equal(alignment_blocks(nq, nk, br, bc, align), brute_blocks(mask, br, bc))
    s = alignment_summary(nq, nk, br, bc, align)
    assert s["visible_pairs"] == mask.sum()
    assert s["dead_rows"] == (~mask.any(axis=1)).sum()
    assert s["hidden_keys"] == (~mask.any(axis=0)).sum()
    assert s["full"] + s["masked"] + s["skipped"] == s["tr"] * s["tc"]


@pytest.mark.parametrize("nq, nk", [(5, 9), (9, 5), (16, 16)])
def test_bottom_right_is_what_the_kernels_mask(nq, nk):
    from flashviz_kernels.naive import causal_mask
    np.testing.assert_array_equal(causal_visible(nq, nk, "bottom_right"), causal_mask(nq, nk, "cpu").numpy())
    # top-left is torch's own lower triangle
    np.testing.assert_array_equal(causal_visible(nq, nk, "top_left"), torch.ones(nq, nk).tril().bool().numpy())


def test_square_alignment_agrees_with_the_block_grid():
    cfg = make_config(10, 2, br=4, bc=3, causal=True)
    for align in ALIGNS:                                     # Nq = Nk: both alignments are the same triangle
        np.testing.assert_array_equal(alignment_blocks(10, 10, 4, 3, align), block_kinds(cfg))


def test_alignment_bad_input():
    with pytest.raises(InputError, match="alignment must be one of"):
        alignment_blocks(4, 4, 2, 2, "centre")
    with pytest.raises(InputError, match="Br must be in 1..4"):
        alignment_blocks(4, 8, 5, 2, "top_left")


def test_sizes_by_hand():
    assert score_matrix_bytes(2048, 1, 2) == 2048 * 2048 * 2 == 8 * MiB
    assert score_matrix_bytes(8192, 32, 2) == 4 * GiB
    assert score_matrix_bytes(65536, 32, 2) == 256 * GiB
    assert score_matrix_bytes(1024, 8, 4, batch=2) == 2 * 8 * 1024**2 * 4
    assert flash_kept_bytes(2048, 128, 1, 2) == 2048 * 128 * 2 + 2048 * 4 == 520 * 1024
    assert flash_kept_bytes(65536, 128, 32, 2) == 32 * 65536 * (256 + 4) == 520 * MiB
    rows = size_examples()
    assert [(r["n"], r["heads"]) for r in rows] == [(2048, 1), (8192, 32), (65536, 32)]
    assert [r["scores"] for r in rows] == [8 * MiB, 4 * GiB, 256 * GiB]
    assert rows[2]["ratio"] == pytest.approx(256 * GiB / (520 * MiB))
    assert size_examples(extra=(16, 4))[-1] == dict(n=16, heads=4, scores=16 * 16 * 2 * 4,
                                                    kept=4 * 16 * 128 * 2 + 4 * 16 * 4,
                                                    ratio=(16 * 16 * 2 * 4) / (4 * 16 * 128 * 2 + 4 * 16 * 4))


@pytest.mark.parametrize("n, d, e", [(16, 4, 4), (1024, 64, 2), (4096, 128, 2)])
def test_unfused_chain_is_standard_attention_plus_its_extra_kernels(n, d, e):
    core = unfused_stages(n, d, e, scale=False)
    assert [s["stage"] for s in core] == ["qk", "softmax", "pv"]
    assert sum(s["reads"] + s["writes"] for s in core) == standard_counts(n, d, elem_bytes=e).total_bytes
    full = unfused_stages(n, d, e, mask=True, dropout=True)
    assert [s["stage"] for s in full] == ["scale", "qk", "mask", "softmax", "dropout", "pv"]
    extra = {s["stage"]: s["reads"] + s["writes"] for s in full if s["stage"] in ("scale", "mask", "dropout")}
    assert extra == {"scale": 2 * n * d * e, "mask": 2 * n * n * e + n * n, "dropout": 2 * n * n * e + n * n}
    assert fused_compulsory_bytes(n, d, e) == 4 * n * d * e + 4 * n


def test_dropout_state_by_hand():
    s = dropout_state_bytes(4096, 4, 32)
    assert s["elements"] == 4 * 32 * 4096**2
    assert s["bool_bytes"] == 2 * GiB and s["bit_bytes"] == 256 * MiB
    assert s["philox_bytes"] == 16
    assert dropout_state_bytes(3, 1, 1)["bit_bytes"] == 2               # 9 bits round up to 2 bytes


def test_the_claims_about_pytorch_the_page_makes():
    # "PyTorch's native dropout saves a bool keep-mask, one byte per element"
    out, keep = torch.native_dropout(torch.ones(8, 8), 0.5, True)
    assert keep.dtype == torch.bool and keep.element_size() == 1 and keep.shape == out.shape
    # "SDPA's is_causal is top-left aligned" (so the app passes an explicit bottom-right mask when Nq != Nk)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, n, 8, generator=g, dtype=torch.float64) for n in (3, 7, 7))
    F = torch.nn.functional
    got = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    top_left = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.from_numpy(causal_visible(3, 7, "top_left")))
    bottom_right = F.scaled_dot_product_attention(q, k, v,
                                                  attn_mask=torch.from_numpy(causal_visible(3, 7, "bottom_right")))
    torch.testing.assert_close(got, top_left)
    assert not torch.allclose(got, bottom_right)
