"""Tests of flashviz.engine.decoding: flash-decoding split/merge and paged attention.

References are independent: torch float64 softmax for the answers and for each worker's (m, l), and the
contiguous single pass (the engine over unshuffled keys) for the paged loop. The error measure is the
one of test_online_softmax.py: max|o - ref| / max(P|V|), the natural scale of a weighted sum.
"""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

from flashviz.engine.decoding import (
    State, build_paged_cache, empty_state, flash_decode, merge, merge_all, paged_attention, split_keys,
    state_from_trace,
)
from flashviz.infra.errors import InputError
from flashviz.engine.online_softmax import apply_mask, online_softmax_trace, row_scores

TOL = 1e-12


def torch_attention(s, v):
    """softmax(s) @ v in torch float64 (zeros if all masked), the error scale max(P|V|), and m, l."""
    st_, vt = torch.as_tensor(s, dtype=torch.float64), torch.as_tensor(v, dtype=torch.float64)
    if not torch.isfinite(st_).any():
        return np.zeros(v.shape[1]), 0.0, -math.inf, 0.0
    p = torch.softmax(st_, 0)
    m = float(st_.max())
    return (p @ vt).numpy(), float((p @ vt.abs()).max()), m, math.exp(float(torch.logsumexp(st_, 0)) - m)


def err(got, ref, scale):
    return float(np.max(np.abs(np.asarray(got) - ref))) / max(scale, 1e-300)


@st.composite
def rows(draw, max_n=300):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    s = rng.standard_normal(n) * draw(st.sampled_from([0.1, 1.0, 10.0, 50.0]))
    v = rng.standard_normal((n, d))
    kind = draw(st.sampled_from(["none", "random", "run", "row", "head"]))
    if kind == "random":
        s[rng.random(n) < 0.5] = -np.inf
    elif kind == "run":                                  # a long masked run: whole workers masked
        a = draw(st.integers(0, n - 1))
        s[a:draw(st.integers(a, n))] = -np.inf
    elif kind == "row":
        s[:] = -np.inf
    elif kind == "head":                                 # the first worker(s) see nothing
        s[: draw(st.integers(1, n))] = -np.inf
    return s, v


# ----------------------------------------------------------------------------- flash-decoding

@given(rows(), st.data())
def test_merge_equals_single_pass_for_any_split(case, data):
    s, v = case
    n = len(s)
    w = data.draw(st.integers(1, n))
    tile = data.draw(st.one_of(st.none(), st.integers(1, n)))
    tree = data.draw(st.booleans())
    res = flash_decode(s, v, w, tile_size=tile, tree=tree)
    ref, scale, m, l = torch_attention(s, v)
    assert res.workers == w and res.start[0] == 0 and res.stop[-1] == n
    assert np.all(res.stop - res.start >= 1) and np.all(res.start[1:] == res.stop[:-1])
    assert err(res.output, ref, scale) <= TOL
    assert err(res.output, res.single.output, scale) <= TOL
    assert res.merged.m == m == res.single.m[-1]
    assert res.merged.l == pytest.approx(l, rel=TOL, abs=0)
    # every worker's partial state is its own softmax statistics (torch), whatever its tile size
    for (a, b), p in zip(zip(res.start, res.stop), res.partials):
        r_out, r_scale, r_m, r_l = torch_attention(s[a:b], v[a:b])
        assert p.m == r_m and p.l == pytest.approx(r_l, rel=TOL, abs=0)
        assert err(p.output, r_out, r_scale) <= TOL
    # the running merge ends at the merged state; weights are each worker's share of the mass
    assert res.running[-1].m == res.merged.m
    wts = res.weights
    if l > 0:
        assert wts.sum() == pytest.approx(1.0, rel=1e-12)
        for (a, b), wt in zip(zip(res.start, res.stop), wts):
            sub = s[a:b]
            share = float(np.exp(sub[np.isfinite(sub)] - m).sum() / np.exp(s[np.isfinite(s)] - m).sum()) \
                if np.isfinite(sub).any() else 0.0
            assert wt == pytest.approx(share, rel=1e-10, abs=1e-300)
    else:
        np.testing.assert_array_equal(res.output, np.zeros(v.shape[1]))
        np.testing.assert_array_equal(wts, np.zeros(w))


def test_split_keys():
    a, b = split_keys(10, 4)
    np.testing.assert_array_equal(b - a, [3, 3, 2, 2])
    np.testing.assert_array_equal(a, [0, 3, 6, 8])
    for n, w in [(1, 1), (7, 7), (1000, 3)]:
        a, b = split_keys(n, w)
        assert b[-1] == n and (b - a).min() >= 1 and (b - a).max() - (b - a).min() <= 1
    with pytest.raises(InputError, match=r"W must be in 1\.\.5, got 6"):
        split_keys(5, 6)
    with pytest.raises(InputError, match=r"W must be in 1\.\.5, got 0"):
        split_keys(5, 0)


def test_masked_worker_needs_the_guard():
    rng = np.random.default_rng(1)
    s, v = rng.standard_normal(12), rng.standard_normal((12, 3))
    s[4:8] = -np.inf                                      # worker 1 of 3 sees only masked keys
    on = flash_decode(s, v, 3)
    assert on.partials[1].m == -np.inf and on.partials[1].l == 0.0 and not on.partials[1].o.any()
    ref, scale, _, _ = torch_attention(s, v)
    assert err(on.output, ref, scale) <= TOL
    assert on.weights[1] == 0.0
    off = flash_decode(s, v, 3, guard=False)              # its own recurrence hits exp(-inf - -inf)
    assert np.isnan(off.partials[1].l) and np.isnan(off.output).all()
    # a fully masked row: zeros with the guard, NaN without
    s[:] = -np.inf
    np.testing.assert_array_equal(flash_decode(s, v, 4).output, np.zeros(3))
    assert np.isnan(flash_decode(s, v, 4, guard=False).output).all()


@st.composite
def states(draw):
    d = 3
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    out = []
    for _ in range(3):
        n = draw(st.integers(1, 20))
        s = rng.standard_normal(n) * 5
        if draw(st.booleans()) and draw(st.booleans()):
            s[:] = -np.inf                                # an empty worker now and then
        out.append(state_from_trace(online_softmax_trace(s, rng.standard_normal((n, d)), n)))
    return out


def same(x: State, y: State):
    return x.m == y.m and x.l == y.l and np.array_equal(x.o, y.o)


@given(states())
def test_merge_is_commutative_associative_with_identity(sts):
    a, b, c = sts
    assert same(merge(a, b), merge(b, a))                 # exactly: IEEE + and * commute
    left, right = merge(merge(a, b), c), merge(a, merge(b, c))
    assert left.m == right.m
    assert left.l == pytest.approx(right.l, rel=1e-14, abs=0)
    scale = max(np.abs(left.o).max(), left.l, 1e-300)
    assert np.abs(left.o - right.o).max() <= 1e-14 * scale
    e = empty_state(3)
    for x in sts:
        assert same(merge(x, e), x) and same(merge(e, x), x)      # the empty worker changes nothing
    assert same(merge(e, e), e)
    assert np.isnan(merge(e, e, guard=False).l)                    # the pitfall, unguarded
    tree, seq = merge_all(sts, tree=True), merge_all(sts)
    assert tree.m == seq.m and tree.l == pytest.approx(seq.l, rel=1e-14, abs=0)


def test_merge_by_hand():
    a = State(1.0, 2.0, np.array([2.0, 0.0]))             # two keys at score 1, both with value e0
    b = State(3.0, 1.0, np.array([0.0, 1.0]))             # one key at score 3 (value e1)
    c = merge(a, b)
    assert c.m == 3.0
    assert c.l == pytest.approx(2 * math.exp(-2) + 1, rel=1e-15)
    np.testing.assert_allclose(c.output, np.array([2 * math.exp(-2), 1]) / (2 * math.exp(-2) + 1), rtol=1e-15)
    with pytest.raises(InputError, match="at least one state"):
        merge_all([])


# ----------------------------------------------------------------------------- paged

@given(st.integers(1, 200), st.data())
def test_paged_equals_contiguous(n, data):
    d = data.draw(st.integers(1, 6))
    bs = data.draw(st.integers(1, n))
    seed = data.draw(st.integers(0, 2**31))
    extra = data.draw(st.integers(0, 5))
    rng = np.random.default_rng(seed)
    q, k, v = rng.standard_normal(d), rng.standard_normal((n, d)), rng.standard_normal((n, d))
    masked = sorted(set(data.draw(st.lists(st.integers(0, n - 1), max_size=n))))
    logical = math.ceil(n / bs)
    cache = build_paged_cache(k, v, bs, seed=seed, num_physical=logical + extra)
    res = paged_attention(q, cache, masked=masked)
    contiguous = online_softmax_trace(apply_mask(row_scores(q, k), masked=masked), v, bs)
    ref, scale, _, _ = torch_attention(apply_mask(row_scores(q, k), masked=masked), v)
    assert err(res.output, contiguous.output, scale) <= TOL and err(res.output, ref, scale) <= TOL
    # same tiles, same running max (a block matvec may round the last bit differently from the full one)
    np.testing.assert_allclose(res.trace.m, contiguous.m, rtol=1e-14, atol=1e-15)
    # the table: distinct physical slots, each holding its logical block's keys; NaN everywhere else
    table = cache.block_table
    assert len(set(table.tolist())) == logical and table.max() < logical + extra
    np.testing.assert_array_equal(cache.owner[table], np.arange(logical))
    assert (cache.owner == -1).sum() == extra
    for b, p in enumerate(table):
        nb = min(bs, n - b * bs)
        np.testing.assert_array_equal(cache.k_cache[p, :nb], k[b * bs:b * bs + nb])
        assert np.isnan(cache.k_cache[p, nb:]).all()
    assert np.isnan(cache.v_cache[cache.owner == -1]).all()
    np.testing.assert_array_equal(res.order, np.column_stack([np.arange(logical), table, cache.valid]))
    assert cache.valid.sum() == n


def test_paged_is_seeded_and_shuffled():
    rng = np.random.default_rng(0)
    k, v = rng.standard_normal((64, 4)), rng.standard_normal((64, 4))
    t1 = build_paged_cache(k, v, 4, seed=3).block_table
    np.testing.assert_array_equal(t1, build_paged_cache(k, v, 4, seed=3).block_table)
    assert not np.array_equal(t1, np.arange(16)) and sorted(t1) == list(range(16))
    assert not np.array_equal(t1, build_paged_cache(k, v, 4, seed=4).block_table)


def test_bad_input():
    k = np.zeros((10, 4))
    with pytest.raises(InputError, match=r"block size must be in 1\.\.10"):
        build_paged_cache(k, k, 11)
    with pytest.raises(InputError, match=r"physical blocks must be in 5\.\."):
        build_paged_cache(k, k, 2, num_physical=4)
    with pytest.raises(InputError, match="must both be"):
        build_paged_cache(k, np.zeros((10, 3)), 2)
    with pytest.raises(InputError, match="query must have shape"):
        paged_attention(np.zeros(3), build_paged_cache(k, k, 2))
    with pytest.raises(InputError, match="masked position 10 is outside"):
        paged_attention(np.zeros(4), build_paged_cache(k, k, 2), masked=[10])
    with pytest.raises(InputError, match=r"tile size must be in 1\.\.10"):
        flash_decode(np.zeros(10), k, 2, tile_size=0)
    with pytest.raises(InputError, match="NaN"):
        flash_decode(np.array([0.0, np.nan]), np.zeros((2, 1)), 1)
    with pytest.raises(InputError, match="values must be shaped"):
        flash_decode(np.zeros(10), np.zeros((9, 2)), 2)
    with pytest.raises(InputError, match="W must be"):
        flash_decode(np.zeros(3), np.zeros((3, 2)), 4)
