"""Property tests of the one-row online-softmax engine (flashviz.engine.online_softmax) against torch float64.

The reference is independent of the engine: torch's own softmax / logsumexp over each prefix of keys,
with a running max from numpy's maximum.accumulate, never the engine's `exact_attention_row`.

Error measure. The answer o = sum_j p_j v_j is a convex combination of rows of V. Floating-point error
in such a sum scales with the magnitudes of the terms, sum_j p_j |v_j|, not with the result, which can
cancel to ~0 when V has mixed signs (then a plain |o - ref| / |ref| blows up without any bug). So we
measure max|o - ref| / max(max(P |V|), 1e-300): a normwise relative error against the natural scale of
the sum. The floor 1e-300 only matters for a fully masked prefix, where both sides must be exactly 0.
"""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

from flashviz.infra.errors import InputError
from flashviz.engine.online_softmax import (
    MAX_D, apply_mask, make_qkv, online_softmax_trace, parse_positions, parse_scores, row_scores,
)

TOL = 1e-12


# ----------------------------------------------------------------------------- the reference

def prefix_reference(s: np.ndarray, v: np.ndarray, stops: np.ndarray) -> dict:
    """For each prefix keys[:stop]: softmax @ V, the running max, l, o and the error scale (torch float64)."""
    n = s.shape[0]
    st_ = torch.as_tensor(s, dtype=torch.float64)
    vt = torch.as_tensor(v, dtype=torch.float64)
    seen = torch.arange(n)[None, :] < torch.as_tensor(stops)[:, None]        # (Tc, N)
    logits = torch.where(seen, st_[None, :], torch.tensor(-math.inf, dtype=torch.float64))
    any_visible = torch.isfinite(logits).any(dim=1)                           # (Tc,)
    p = torch.softmax(logits, dim=1)                                          # NaN rows if nothing visible
    p = torch.where(any_visible[:, None], p, torch.zeros((), dtype=torch.float64))
    out = (p @ vt).numpy()                                                    # (Tc, d)
    scale = (p @ vt.abs()).numpy().max(axis=1)                                # (Tc,)  max(P |V|)
    m = np.maximum.accumulate(s)[stops - 1]                                   # max over keys seen so far
    lse = torch.logsumexp(logits, dim=1).numpy()                              # log sum exp(s), -inf if none
    with np.errstate(invalid="ignore"):
        l = np.where(np.isfinite(m), np.exp(lse - m), 0.0)                    # sum exp(s - m)
    return {"out": out, "scale": scale, "m": m, "l": l, "o": l[:, None] * out}


def rel_err(got: np.ndarray, ref: np.ndarray, scale) -> np.ndarray:
    """Row-wise max|got - ref| / max(scale, 1e-300) (see the module docstring)."""
    got, ref = np.atleast_2d(got), np.atleast_2d(ref)
    return np.max(np.abs(got - ref), axis=1) / np.maximum(np.atleast_1d(scale), 1e-300)


# ----------------------------------------------------------------------------- inputs

MASK_KINDS = ["none", "random", "tiles", "first_tile", "row", "all_but_last"]


@st.composite
def rows(draw, max_n=512):
    """(scores, values, tile, mask kind): N 1..max_n, tile 1..N, scores at several scales, masks."""
    n = draw(st.integers(1, max_n))
    tile = draw(st.integers(1, n))
    d = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    scale = draw(st.sampled_from([0.01, 1.0, 8.0, 60.0]))
    kind = draw(st.sampled_from(MASK_KINDS))
    rng = np.random.default_rng(seed)
    s = rng.standard_normal(n) * scale
    v = rng.standard_normal((n, d)) * rng.choice([1e-3, 1.0, 1e3])
    tc = math.ceil(n / tile)
    if kind == "random":
        s[rng.random(n) < rng.random()] = -np.inf
    elif kind == "tiles":                         # whole tiles masked, chosen at random
        for t in np.flatnonzero(rng.random(tc) < 0.5):
            s[t * tile:(t + 1) * tile] = -np.inf
    elif kind == "first_tile":
        s[:tile] = -np.inf
    elif kind == "row":
        s[:] = -np.inf
    elif kind == "all_but_last":
        s[:-1] = -np.inf
    return s, v, tile, kind


# ----------------------------------------------------------------------------- properties

@given(rows())
def test_final_and_every_prefix_match_torch(case):
    s, v, tile, _ = case
    tr = online_softmax_trace(s, v, tile)
    ref = prefix_reference(s, v, tr.stop)
    # final answer
    assert rel_err(tr.output, ref["out"][-1], ref["scale"][-1])[0] <= TOL
    # every intermediate o/l is the softmax over the keys seen so far, times V
    assert np.all(rel_err(tr.o_normalised, ref["out"], ref["scale"]) <= TOL)
    # the engine's own exact answer agrees with torch too
    assert rel_err(tr.exact, ref["out"][-1], ref["scale"][-1])[0] <= TOL


@given(rows())
def test_m_l_o_alpha_and_rescaled_follow_their_definitions(case):
    s, v, tile, _ = case
    tr = online_softmax_trace(s, v, tile)
    ref = prefix_reference(s, v, tr.stop)
    tc = math.ceil(len(s) / tile)
    # tiles: contiguous, Bc keys each, the last one ragged
    assert tr.steps == tc
    np.testing.assert_array_equal(tr.start, np.arange(tc) * tile)
    np.testing.assert_array_equal(tr.stop, np.minimum(np.arange(1, tc + 1) * tile, len(s)))
    np.testing.assert_array_equal(tr.tile_max, [s[a:b].max() for a, b in zip(tr.start, tr.stop)])
    # m[t] = max of the scores seen so far (exact: max is exact)
    np.testing.assert_array_equal(tr.m, ref["m"])
    # l[t] = sum exp(s - m[t]) over seen keys (0 while nothing visible); l >= 1 once anything is seen
    np.testing.assert_allclose(tr.l, ref["l"], rtol=TOL, atol=0)
    # o[t] = sum exp(s - m[t]) v over seen keys; scale of that sum is l * max(P|V|)
    assert np.all(rel_err(tr.o, ref["o"], ref["l"] * ref["scale"]) <= TOL)
    # alpha[t] = exp(m[t-1] - m[t]); 0 on the first tile and while nothing was seen
    prev = np.concatenate([[-np.inf], ref["m"][:-1]])
    with np.errstate(invalid="ignore"):
        want_alpha = np.where(np.isfinite(prev) & np.isfinite(ref["m"]), np.exp(prev - ref["m"]), 0.0)
    np.testing.assert_allclose(tr.alpha, want_alpha, rtol=TOL, atol=0)
    assert tr.alpha[0] == 0.0
    # rescaled: the max moved while something had been accumulated
    np.testing.assert_array_equal(tr.rescaled, np.isfinite(prev) & (ref["m"] > prev))
    assert np.all(tr.alpha[tr.rescaled] < 1.0) and np.all(tr.alpha[~tr.rescaled & np.isfinite(prev)] == 1.0)


@given(rows(max_n=200))
def test_guard_off_nan_exactly_when_first_tile_fully_masked(case):
    s, v, tile, _ = case
    on = online_softmax_trace(s, v, tile, guard=True)
    off = online_softmax_trace(s, v, tile, guard=False)
    np.testing.assert_array_equal(off.m, on.m)               # the max itself never goes NaN
    if np.all(s[:tile] == -np.inf):                           # exp(-inf - -inf) strikes on tile 0 ...
        assert np.isnan(off.l).all() and np.isnan(off.o_normalised).all() and np.isnan(off.output).all()
    else:                                                     # ... and only then; otherwise bit-identical
        for name in ("alpha", "l", "o", "o_normalised"):
            np.testing.assert_array_equal(getattr(off, name), getattr(on, name))
    assert not np.isnan(on.o_normalised).any() and not np.isnan(on.l).any()


# ----------------------------------------------------------------------------- named cases

def test_lesson_pitfall_first_tile_masked():
    rng = np.random.default_rng(7)
    s = rng.standard_normal(16)
    v = rng.standard_normal((16, 4))
    s[:4] = -np.inf                                           # tile 0 fully masked (causal/ragged batch)
    off = online_softmax_trace(s, v, 4, guard=False)
    assert np.isnan(off.alpha[0]) and np.isnan(off.output).all()
    on = online_softmax_trace(s, v, 4, guard=True)
    p = np.exp(s[4:] - s[4:].max())
    want = (p / p.sum()) @ v[4:]                              # the 12 visible keys only
    np.testing.assert_allclose(on.output, want, rtol=1e-13, atol=1e-15)
    assert on.alpha[0] == 0.0 and on.l[0] == 0.0 and on.m[0] == -np.inf
    np.testing.assert_array_equal(on.o_normalised[0], np.zeros(4))
    assert on.alpha[1] == 0.0 and not on.rescaled[1]          # first visible tile: nothing to rescale


def test_fully_masked_row_gives_zeros_with_guard_and_nan_without():
    v = np.arange(12.0).reshape(6, 2)
    s = np.full(6, -np.inf)
    on = online_softmax_trace(s, v, 4)
    np.testing.assert_array_equal(on.o_normalised, np.zeros((2, 2)))
    np.testing.assert_array_equal(on.l, [0.0, 0.0])
    np.testing.assert_array_equal(on.alpha, [0.0, 0.0])
    assert not on.rescaled.any()
    assert np.isnan(online_softmax_trace(s, v, 4, guard=False).output).all()


def test_masked_middle_tile_is_harmless_even_unguarded():
    s = np.array([1.0, 2.0, -np.inf, -np.inf, 0.5])
    v = np.eye(5)[:, :3]
    off = online_softmax_trace(s, v, 2, guard=False)
    assert np.isfinite(off.o_normalised).all()
    assert off.alpha[1] == 1.0 and off.l[1] == off.l[0]      # masked tile adds nothing, rescales nothing


def test_ragged_last_tile_and_worked_example():
    # the lesson's strip: 0.86 0.45 1.45 0.10 ..., tile 3 over 7 keys -> tiles of 3, 3, 1
    s = np.array([0.86, 0.45, 1.45, 0.10, 2.5, -0.3, 0.7])
    v = np.arange(14.0).reshape(7, 2)
    tr = online_softmax_trace(s, v, 3)
    np.testing.assert_array_equal(tr.stop - tr.start, [3, 3, 1])
    np.testing.assert_array_equal(tr.m, [1.45, 2.5, 2.5])
    np.testing.assert_array_equal(tr.rescaled, [False, True, False])
    assert tr.alpha[1] == pytest.approx(math.exp(1.45 - 2.5), rel=1e-15)
    assert tr.l[0] == pytest.approx(math.exp(0.86 - 1.45) + math.exp(0.45 - 1.45) + 1.0, rel=1e-15)
    w = np.exp(s - 2.5)
    np.testing.assert_allclose(tr.output, (w / w.sum()) @ v, rtol=1e-14)


@pytest.mark.parametrize("n", [1, 2, 37, 512])
def test_tile_one_and_tile_n_agree(n):
    q, k, v = make_qkv(n, 8, seed=n)
    s = row_scores(q[0], k)
    one = online_softmax_trace(s, v, 1)
    whole = online_softmax_trace(s, v, n)
    assert one.steps == n and whole.steps == 1
    ref = prefix_reference(s, v, np.array([n]))
    for tr in (one, whole):
        assert rel_err(tr.output, ref["out"][0], ref["scale"][0])[0] <= TOL
    assert whole.alpha[0] == 0.0 and not whole.rescaled.any()
    # tile = 1: the max moves exactly at the running records of the row
    records = np.flatnonzero(s[1:] > np.maximum.accumulate(s)[:-1]) + 1
    np.testing.assert_array_equal(np.flatnonzero(one.rescaled), records)


def test_widest_head_dim_and_helpers():
    q, k, v = make_qkv(20, MAX_D, seed=3)
    assert q.shape == k.shape == v.shape == (20, MAX_D)
    np.testing.assert_array_equal(make_qkv(20, MAX_D, seed=3)[2], v)          # seeded
    s = row_scores(q[5], k)
    np.testing.assert_allclose(s, [q[5] @ k[j] / 16.0 for j in range(20)], rtol=1e-14)
    sm = apply_mask(s, causal_row=5, masked=[0, 2])
    assert np.isneginf(sm[[0, 2, 6, 19]]).all() and np.isfinite(sm[[1, 3, 4, 5]]).all()
    tr = online_softmax_trace(sm, v, 7)
    ref = prefix_reference(sm, v, tr.stop)
    assert rel_err(tr.output, ref["out"][-1], ref["scale"][-1])[0] <= TOL


# ----------------------------------------------------------------------------- bad input

GOOD_S, GOOD_V = np.zeros(8), np.zeros((8, 2))


@pytest.mark.parametrize("tile, words", [
    (0, "between 1 and N = 8, got 0"), (-3, "between 1 and N = 8, got -3"), (9, "between 1 and N = 8, got 9"),
    (2.0, "integer"), ("4", "integer"), (True, "integer"), (None, "integer"),
])
def test_bad_tile(tile, words):
    with pytest.raises(InputError, match=words) as exc:
        online_softmax_trace(GOOD_S, GOOD_V, tile)
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize("scores, values, words", [
    (np.zeros(0), np.zeros((0, 2)), "N must be at least 1"),
    (np.array([0.0, np.nan, 1.0]), np.zeros((3, 2)), "NaN at key 1"),
    (np.array([0.0, np.inf]), np.zeros((2, 2)), r"\+inf"),
    (np.zeros((2, 2)), np.zeros((2, 2)), "one row"),
    (np.zeros(3), np.zeros((4, 2)), r"shaped \(N, d\) = \(3, d\)"),
    (np.zeros(3), np.zeros(3), r"shaped \(N, d\)"),
    (np.zeros(3), np.zeros((3, MAX_D + 1)), "head dim d must be 1..256"),
    (np.zeros(3), np.zeros((3, 0)), "head dim d must be 1..256"),
    (np.zeros(3), np.array([[0.0], [np.inf], [1.0]]), "values must be finite"),
])
def test_bad_rows(scores, values, words):
    with pytest.raises(InputError, match=words):
        online_softmax_trace(scores, values, 1)


@pytest.mark.parametrize("text, words", [
    ("1, abc", r"score 2 \('abc'\) is not a number"),
    ("nan", "score 1 is NaN"),
    ("", "no scores typed"),
    ("   ", "no scores typed"),
    ("inf", "score 1 is infinite"),
    ("0.5 +inf", "score 2 is infinite"),
])
def test_parse_scores_rejects(text, words):
    with pytest.raises(InputError, match=words):
        parse_scores(text)


def test_parse_scores_accepts():
    np.testing.assert_array_equal(parse_scores("0.86, 0.45 1.45; -inf mask 1e-3"),
                                  [0.86, 0.45, 1.45, -np.inf, -np.inf, 1e-3])


def test_parse_positions():
    assert parse_positions("0 1, 5-3; 1", 8) == [0, 1, 3, 4, 5]
    assert parse_positions("", 8) == []
    for text, words in [("8", "position 8 is outside 0..7"), ("-1", "position -1 is outside"),
                        ("6-9", "position 8 is outside"), ("x", "'x' is not a position"),
                        ("1-", "is not a position")]:
        with pytest.raises(InputError, match=words):
            parse_positions(text, 8)


def test_make_qkv_and_apply_mask_reject():
    with pytest.raises(InputError, match=r"N must be in 1\.\."):
        make_qkv(0, 4, 0)
    with pytest.raises(InputError, match="N must be an integer"):
        make_qkv(4.0, 4, 0)
    with pytest.raises(InputError, match="head dim d"):
        make_qkv(4, MAX_D + 1, 0)
    with pytest.raises(InputError, match="query row must be in 0..3"):
        apply_mask(np.zeros(4), causal_row=4)
    with pytest.raises(InputError, match="masked position 9 is outside 0..3"):
        apply_mask(np.zeros(4), masked=[9])


# ----------------------------------------------------------------------------- the two accumulator forms

@given(rows())
def test_fa1_and_fa2_forms_land_on_the_float64_answer(case):
    """Algorithm 1 of the first paper (o normalised every step by diag(l_new)^-1) and the FA2 form
    (o unnormalised, divided once) both equal torch's float64 softmax(s) V after every tile."""
    s, v, tile, _ = case
    fa2 = online_softmax_trace(s, v, tile, form="fa2")
    fa1 = online_softmax_trace(s, v, tile, form="fa1")
    ref = prefix_reference(s, v, fa2.stop)
    assert (fa2.form, fa1.form) == ("fa2", "fa1")
    for tr in (fa1, fa2):
        assert rel_err(tr.output, ref["out"][-1], ref["scale"][-1])[0] <= TOL
        assert np.all(rel_err(tr.o_normalised, ref["out"], ref["scale"]) <= TOL)
    # fa1 records o in its own (normalised) form; fa2 the unnormalised sum exp(s - m) v
    assert np.all(rel_err(fa1.o, ref["out"], ref["scale"]) <= TOL)
    assert np.all(rel_err(fa2.o, ref["o"], ref["l"] * ref["scale"]) <= TOL)
    np.testing.assert_array_equal(fa1.o, fa1.o_normalised)
    # the statistics do not depend on the form
    for name in ("m", "alpha", "l", "tile_sum", "tile_pv", "rescaled"):
        np.testing.assert_array_equal(getattr(fa1, name), getattr(fa2, name))


@given(rows())
def test_tile_shares_follow_their_definitions(case):
    """tile_sum[t] = rowsum(exp(s_t - m[t])), tile_pv[t] = exp(s_t - m[t]) V_t, and the recurrence closes:
    l[t] = alpha[t] l[t-1] + tile_sum[t], o[t] = alpha[t] o[t-1] + tile_pv[t] (fa2)."""
    s, v, tile, _ = case
    tr = online_softmax_trace(s, v, tile)
    for t_, (a, b) in enumerate(zip(tr.start, tr.stop)):
        ref_m = tr.m[t_] if np.isfinite(tr.m[t_]) else 0.0          # the guard's stand-in
        p = np.exp(s[a:b] - ref_m)
        np.testing.assert_allclose(tr.tile_sum[t_], p.sum(), rtol=1e-14, atol=0)
        np.testing.assert_allclose(tr.tile_pv[t_], p @ v[a:b], rtol=1e-12, atol=1e-300 + 1e-12 * (p @ np.abs(v[a:b])).max())
        l_prev = tr.l[t_ - 1] if t_ else 0.0
        o_prev = tr.o[t_ - 1] if t_ else np.zeros(tr.d)
        np.testing.assert_allclose(tr.l[t_], tr.alpha[t_] * l_prev + tr.tile_sum[t_], rtol=1e-14, atol=0)
        np.testing.assert_allclose(tr.o[t_], tr.alpha[t_] * o_prev + tr.tile_pv[t_], rtol=1e-14, atol=0)


def test_fa1_guard_off_nan_and_fully_masked_row():
    rng = np.random.default_rng(3)
    s, v = rng.standard_normal(12), rng.standard_normal((12, 3))
    s[:4] = -np.inf
    assert np.isnan(online_softmax_trace(s, v, 4, guard=False, form="fa1").output).all()
    on = online_softmax_trace(s, v, 4, form="fa1")
    np.testing.assert_array_equal(on.o[0], np.zeros(3))                       # l = 0: o stays 0, no 0/0
    w = np.exp(s[4:] - s[4:].max())
    np.testing.assert_allclose(on.output, (w / w.sum()) @ v[4:], rtol=1e-13)
    dead = online_softmax_trace(np.full(5, -np.inf), v[:5], 2, form="fa1")
    np.testing.assert_array_equal(dead.o, np.zeros((3, 3)))


def test_fa1_step_by_hand():
    """Two tiles of two keys, written out: the per-step normalised o of Algorithm 1."""
    s = np.array([1.0, 0.0, 3.0, 2.0])
    v = np.array([[1.0], [2.0], [3.0], [4.0]])
    fa1 = online_softmax_trace(s, v, 2, form="fa1")
    l1 = 1 + math.exp(-1)
    o1 = (1 * 1 + math.exp(-1) * 2) / l1
    assert fa1.l[0] == pytest.approx(l1, rel=1e-15) and fa1.o[0, 0] == pytest.approx(o1, rel=1e-15)
    alpha = math.exp(1 - 3)
    l2 = alpha * l1 + 1 + math.exp(-1)
    o2 = (alpha * l1 * o1 + 3 + math.exp(-1) * 4) / l2
    assert fa1.alpha[1] == pytest.approx(alpha, rel=1e-15)
    assert fa1.o[1, 0] == pytest.approx(o2, rel=1e-14)
    w = np.exp(s - 3)
    assert fa1.output[0] == pytest.approx((w @ v[:, 0]) / w.sum(), rel=1e-14)


def test_bad_form():
    with pytest.raises(InputError, match="accumulator form must be one of fa2, fa1"):
        online_softmax_trace(GOOD_S, GOOD_V, 2, form="fa3")
