"""Attention variants in the engine: the block map against PyTorch FlexAttention's create_block_mask (an independent
implementation of the same block rule), the one-row engine against a float64 reference written from the
definitions (here and helpers/variant_ref.py), the costs against tiling's own schedule and brute-force counts, and bad input as typed errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch.nn.attention.flex_attention import create_block_mask

from flashviz.engine import variants as V
from flashviz.infra.errors import InputError
from flashviz.engine.online_softmax import make_qkv, variant_trace
from flashviz.engine.tiling import FULL, MASKED, SKIPPED, Schedule, make_config
from helpers.variant_ref import ref_visible


# ----------------------------------------------------------------------------- references written from the definitions

def _flex(n, br, bc, *, causal=False, window=None, ids=None, pad_visible=False):
    """FlexAttention's block mask of the mask written as a mask_mod. pad_visible: Q and K/V padded up to whole
    blocks, the padding counted as visible (so a ragged block's "full" means every pair inside N is visible)."""
    left, right = window if window is not None else (-1, -1)
    t_ids = None if ids is None else torch.as_tensor(ids)

    def mask_mod(b, h, q, kv):
        ok = kv >= 0
        if left >= 0:
            ok = ok & (kv >= q - left)
        if right >= 0:
            ok = ok & (kv <= q + right)
        if causal:
            ok = ok & (kv <= q)
        if t_ids is not None:
            ok = ok & (t_ids[torch.clamp(q, max=n - 1)] == t_ids[torch.clamp(kv, max=n - 1)])
        if pad_visible:
            ok = ok | (q >= n) | (kv >= n)
        return ok

    tr, tc = -(-n // br), -(-n // bc)
    qlen, kvlen = (tr * br, tc * bc) if pad_visible else (n, n)
    return create_block_mask(mask_mod, None, None, qlen, kvlen, device="cpu", BLOCK_SIZE=(br, bc))


def _kinds(bm, tr, tc) -> np.ndarray:
    """(Tr, Tc) FULL / MASKED / SKIPPED from a BlockMask: kv_num_blocks / kv_indices are the partial blocks,
    full_kv_num_blocks / full_kv_indices the full ones."""
    kind = np.full((tr, tc), SKIPPED, np.int8)
    for nums, idx, k in ((bm.kv_num_blocks, bm.kv_indices, MASKED), (bm.full_kv_num_blocks, bm.full_kv_indices, FULL)):
        for i in range(tr):
            for j in idx[0, 0, i, :int(nums[0, 0, i])].tolist():
                kind[i, j] = k
    return kind


def flex_kinds(n, br, bc, **mask) -> np.ndarray:
    """Our block rule from FlexAttention: a block runs iff flex runs it at exactly N (flex masks its padding);
    it is full iff flex calls it full once the padding counts as visible (the block clipped to N)."""
    tr, tc = -(-n // br), -(-n // bc)
    exact = _kinds(_flex(n, br, bc, **mask), tr, tc)
    padded = _kinds(_flex(n, br, bc, pad_visible=True, **mask), tr, tc)
    kind = np.where(exact != SKIPPED, MASKED, SKIPPED).astype(np.int8)
    kind[(exact != SKIPPED) & (padded == FULL)] = FULL
    if n % br == 0 and n % bc == 0:                 # no ragged block: flex's own kinds, unchanged
        assert np.array_equal(kind, exact)
    return kind


def _ids(lens):
    return np.repeat(np.arange(len(lens)), lens)


MASKS = [dict(), dict(causal=True), dict(window=(7, 0)), dict(window=(7, 0), causal=True), dict(window=(5, 5)),
         dict(window=(-1, 3)), dict(window=(3, -1)), dict(window=(0, 0)), dict(window=(20, 2), causal=True),
         dict(ids="docs"), dict(ids="docs", causal=True), dict(ids="docs", window=(6, 0), causal=True),
         dict(window=(2, 9), causal=True)]
SHAPES = [(64, 16, 16), (64, 32, 16), (64, 16, 32), (60, 16, 16), (61, 16, 32), (50, 32, 16), (37, 8, 8), (96, 32, 32),
          (100, 16, 8)]


@pytest.mark.parametrize("n,br,bc", SHAPES)
@pytest.mark.parametrize("mask", MASKS, ids=lambda m: "-".join(f"{k}{v}" for k, v in m.items()) or "dense")
def test_block_map_equals_flex_attention(n, br, bc, mask):
    ids = None
    if mask.get("ids") == "docs":
        lens = [n // 3, n // 5 + 1]
        ids = _ids(lens + [n - sum(lens)])
    var = V.make_variant(causal=mask.get("causal", False), window=mask.get("window"),
                         doc_lens=None if ids is None else np.bincount(ids).tolist(), n=n)
    bm = V.block_map(var, n, br, bc)
    flex = flex_kinds(n, br, bc, causal=var.causal, window=mask.get("window"), ids=ids)
    assert np.array_equal(bm.kind, flex), (bm.kind, flex)
    vis = ref_visible(n, n, causal=var.causal, window=mask.get("window"), ids=ids)
    assert bm.visible_pairs == int(vis.sum())
    assert np.array_equal(V.visible_matrix(var, n), vis)


@pytest.mark.parametrize("seed", range(6))
def test_random_masks_and_blocks_against_flex(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(17, 130))
    br, bc = (int(x) for x in rng.choice([8, 16, 32], 2))
    window = tuple(int(x) if x >= 0 else -1 for x in rng.integers(-1, 40, 2))
    causal = bool(rng.integers(2))
    cuts = np.sort(rng.choice(np.arange(1, n), int(rng.integers(0, 4)), replace=False))
    lens = np.diff(np.concatenate([[0], cuts, [n]])).tolist()
    ids = _ids(lens)
    var = V.make_variant(causal=causal, window=window, doc_lens=lens, n=n)
    assert np.array_equal(V.block_map(var, n, br, bc).kind, flex_kinds(n, br, bc, causal=causal, window=window, ids=ids))


def test_rectangular_rows_follow_the_bottom_right_alignment():
    for nq, nk, w in ((5, 9, (2, 0)), (9, 5, (1, 1)), (4, 12, (-1, 0))):
        var = V.make_variant(window=w)
        assert np.array_equal(V.visible_matrix(var, nq, nk), ref_visible(nq, nk, window=w))


# ----------------------------------------------------------------------------- the one-row engine

def ref_attention(q, k, v, *, scale, causal=False, window=None, softcap=None, slope=None, ids=None) -> np.ndarray:
    """float64 softmax(mask(alibi(softcap(q·k·scale)))) @ v, whole matrix; rows with no key give zeros."""
    nq, nk = q.shape[0], k.shape[0]
    s = (q @ k.T) * scale
    if softcap is not None:
        s = softcap * np.tanh(s / softcap)
    if slope is not None:
        i, j = np.arange(nq)[:, None], np.arange(nk)[None, :]
        s = s - slope * np.abs(i + nk - nq - j)
    s = np.where(ref_visible(nq, nk, causal=causal, window=window, ids=ids), s, -np.inf)
    out = np.zeros((nq, v.shape[1]))
    for r in range(nq):
        if np.isfinite(s[r]).any():
            p = np.exp(s[r] - s[r].max())
            out[r] = p / p.sum() @ v
    return out


CASES = [dict(), dict(causal=True), dict(window=(5, 0), causal=True), dict(window=(3, 4)), dict(softcap=0.5),
         dict(softcap=2.0, causal=True), dict(alibi=True, causal=True), dict(alibi=True, window=(6, 6)),
         dict(ids=True, causal=True), dict(ids=True, softcap=1.0, alibi=True, window=(4, 0))]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_variant_row_equals_float64_reference(case):
    n, d, h = 29, 8, 4
    q, k, v = make_qkv(n, d, 5)
    q = q * 3.0                                                   # large scores: softcap and ALiBi matter
    ids = _ids([9, 11, 9]) if case.get("ids") else None
    slopes = V.alibi_slopes(h) if case.get("alibi") else None
    for head in (0, 3) if slopes is not None else (0,):
        slope = None if slopes is None else float(slopes[head])
        want = ref_attention(q, k, v, scale=1 / math.sqrt(d), causal=case.get("causal", False),
                             window=case.get("window"), softcap=case.get("softcap"), slope=slope, ids=ids)
        for row in range(n):
            tr = variant_trace(q, k, v, row, 4, head=head, causal=case.get("causal", False), window=case.get("window"),
                               softcap=case.get("softcap"), alibi_slopes=slopes, seq_ids=ids)
            assert np.allclose(tr.output, want[row], atol=1e-12), (row, case)
            if case.get("softcap"):
                assert np.all(tr.m[np.isfinite(tr.m)] <= case["softcap"])      # softcap bounds the running max


def test_a_window_makes_early_tiles_empty_and_alibi_tilts_scores():
    n, d = 64, 8
    q, k, v = make_qkv(n, d, 1)
    row = 60
    tr = variant_trace(q, k, v, row, 8, causal=True, window=(10, 0))
    lo = row - 10                                                  # first visible key
    empty = tr.stop <= lo
    assert empty.sum() == lo // 8 and np.all(tr.tile_max[empty] == -np.inf) and np.all(tr.l[empty] == 0)
    flat = variant_trace(np.zeros((n, d)), k, v, row, 8, causal=True)
    tilted = variant_trace(np.zeros((n, d)), k, v, row, 8, causal=True, alibi_slopes=[0.25])
    assert np.allclose(flat.scores[:row + 1], 0)
    assert np.allclose(tilted.scores[:row + 1], -0.25 * (row - np.arange(row + 1)))


# ----------------------------------------------------------------------------- costs

def test_causal_costs_match_tilings_schedule_and_brute_force():
    n, d, br, bc = 1000, 64, 64, 32
    var = V.make_variant(causal=True, heads=4)
    c = V.variant_costs(var, n, d, br, bc, batch=2, elem_bytes=2)
    sched = Schedule(make_config(n, d, br=br, bc=bc, causal=True, elem_bytes=2), "fa2").totals()
    assert c["variant_io"].total_bytes == sched.total_bytes                # tiling's causal skipping, other code
    dense = Schedule(make_config(n, d, br=br, bc=bc, elem_bytes=2), "fa2").totals()
    assert c["dense_bytes"] == dense.total_bytes * 8
    vis = ref_visible(n, n, causal=True)
    run_area = sum(min(br, n - i0) * min(bc, n - j0) for i0 in range(0, n, br) for j0 in range(0, n, bc)
                   if vis[i0:i0 + br, j0:j0 + bc].any())
    assert c["dense_flops"] == 4 * 2 * 4 * n * n * d
    assert c["executed_flops"] == pytest.approx(4 * 8 * run_area * d, rel=1e-12)
    assert c["useful_flops"] == pytest.approx(4 * 8 * vis.sum() * d, rel=1e-12)


def test_window_saves_more_as_n_grows_and_gqa_divides_kv_bytes():
    saved = []
    for n in (1024, 4096, 16384):
        c = V.variant_costs(V.make_variant(causal=True, window=(256, 0)), n, 64, 128, 64)
        saved.append(1 - c["executed_flops"] / c["dense_flops"])
    assert saved[0] < saved[1] < saved[2] < 1
    c = V.variant_costs(V.make_variant(causal=True, heads=32, group=4), 4096, 128, 128, 64, batch=4, elem_bytes=2)
    assert c["kv_cache_mha"] == 2 * 4 * 32 * 4096 * 128 * 2 and c["kv_cache_gqa"] * 4 == c["kv_cache_mha"]
    assert c["kv_reads_shared"] * 4 == c["kv_reads_per_head"]


def test_alibi_slopes_are_the_standard_geometric_ones():
    def bloom(h):                                                  # BLOOM's build_alibi_tensor, written out
        p = 2 ** math.floor(math.log2(h))
        base = 2 ** (-(2 ** -(math.log2(p) - 3)))
        out = [base ** i for i in range(1, p + 1)]
        if p != h:
            extra = 2 ** (-(2 ** -(math.log2(2 * p) - 3)))
            out += [extra ** i for i in range(1, 1 + 2 * (h - p), 2)]
        return out
    for h in (1, 2, 8, 12, 32, 40):
        assert np.allclose(V.alibi_slopes(h), bloom(h), rtol=1e-14)
    assert V.alibi_slopes(8)[0] == 0.5 and V.alibi_slopes(8)[-1] == 1 / 256


@pytest.mark.parametrize("kw,key", [(dict(window=(-2, 0)), "errors.window_side"),
                                    (dict(window=(3, -5)), "errors.window_side"),
                                    (dict(heads=32, group=5), "errors.gqa_group"),
                                    (dict(softcap=0), "errors.softcap_pos"), (dict(softcap=-3), "errors.softcap_pos"),
                                    (dict(softcap=float("nan")), "errors.softcap_pos"),
                                    (dict(doc_lens=(10, 20), n=64), "errors.doc_lens_sum"),
                                    (dict(doc_lens=(0, 64), n=64), "errors.int_min")])
def test_bad_input_is_a_typed_error(kw, key):
    with pytest.raises(InputError) as e:
        V.make_variant(**kw)
    assert e.value.key == key and e.value.localized("zh") != str(e.value)


def test_seq_ids_must_not_decrease():
    with pytest.raises(InputError) as e:
        V.row_intervals(V.Variant(), 4, 4, seq_ids=np.array([0, 1, 0, 1]))
    assert e.value.key == "errors.seq_ids_order"


def test_softcap_alibi_and_gqa_skip_no_block():
    """The page's claim: only the window, the causal bound and the documents change the block map."""
    for base in (dict(), dict(causal=True), dict(causal=True, window=(30, 0), doc_lens=(40, 60, 28))):
        plain = V.block_map(V.make_variant(heads=8, **base), 128, 16, 32).kind
        for extra in (dict(softcap=0.1), dict(alibi=True), dict(group=4), dict(softcap=2.0, alibi=True, group=8)):
            assert np.array_equal(V.block_map(V.make_variant(heads=8, **base, **extra), 128, 16, 32).kind, plain)
    causal = V.block_map(V.make_variant(causal=True), 128, 16, 32).kind
    assert not np.array_equal(causal, V.block_map(V.make_variant(), 128, 16, 32).kind)


def test_batched_seq_ids_against_flex():
    n, br, bc = 64, 16, 8                                          # whole blocks: flex's own kinds apply
    ids = np.stack([_ids([20, 30, 14]), _ids([64]), _ids([5, 5, 40, 14])])
    t_ids = torch.as_tensor(ids)

    def mask_mod(b, h, q, kv):
        return (kv <= q) & (kv >= q - 24) & (t_ids[b, q] == t_ids[b, kv])

    bm = create_block_mask(mask_mod, 3, None, n, n, device="cpu", BLOCK_SIZE=(br, bc))
    got = V.batch_block_kinds(V.make_variant(causal=True, window=(24, 0)), n, br, bc, ids)
    for b in range(3):
        want = _kinds(type("One", (), {k: getattr(bm, k)[b:b + 1] for k in
                                       ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices")}),
                      n // br, n // bc)
        assert np.array_equal(got[b], want), b
    assert not np.array_equal(got[0], got[1])
