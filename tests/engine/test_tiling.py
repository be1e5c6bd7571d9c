"""Tests of flashviz.engine.tiling and flashviz.engine.traffic: the block schedule and its HBM counts.

The independent reference is a literal simulation of each algorithm's loops (`simulate` below): it
walks the blocks, decides skipping/masking pair by pair, and adds every row it loads or stores,
snapshotting the running totals after each inner step. The engine's counts are arithmetic on
cumulative arrays, so agreement on ragged and causal sizes is a real check.
"""
import math
import tracemalloc
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, strategies as st

from flashviz.infra.errors import InputError
from flashviz.engine.tiling import (
    FULL, GPU_PRESETS, GRID_CURRENT, GRID_DONE, GRID_PENDING, GRID_SKIPPED, MASKED, SEED_EXAMPLE, SKIPPED,
    TENSORS, Schedule, block_sizes, config_for_order, fa2_block_sizes, make_config, preset_sram_bytes,
)
from flashviz.engine.traffic import (
    closed_form, ratio_limits, seed_example, standard_counts, sweep_n, sweep_sram, theta_flash, theta_standard,
)


# ----------------------------------------------------------------------------- literal simulation

def simulate(n, d, br, bc, causal, order):
    """Run the loops literally; return [(i, j, masked, reads, writes)] with running Counters per step."""
    tr, tc = math.ceil(n / br), math.ceil(n / bc)
    q_rows = [range(i * br, min((i + 1) * br, n)) for i in range(tr)]
    k_rows = [range(j * bc, min((j + 1) * bc, n)) for j in range(tc)]

    def visible_pairs(i, j):                      # (query, key) pairs the causal mask lets through
        return sum(1 for q in q_rows[i] for k in k_rows[j] if not causal or k <= q)

    reads, writes, out = Counter(), Counter(), []

    def move(counter, tensor, rows, width):
        for _ in rows:
            counter[tensor] += width

    def snap(i, j):
        vis = visible_pairs(i, j)
        out.append((i, j, vis < len(q_rows[i]) * len(k_rows[j]), Counter(reads), Counter(writes)))

    if order == "fa1":
        move(writes, "O", range(n), d)            # Algorithm 1 line 2: O, l, m initialised in HBM
        move(writes, "l", range(n), 1)
        move(writes, "m", range(n), 1)
        for j in range(tc):
            move(reads, "K", k_rows[j], d)        # line 6: load K_j, V_j
            move(reads, "V", k_rows[j], d)
            for i in range(tr):
                if visible_pairs(i, j) == 0:      # block entirely above the diagonal: skipped
                    continue
                for t in ("Q", "O"):              # line 8: load Q_i, O_i, l_i, m_i
                    move(reads, t, q_rows[i], d)
                for t in ("l", "m"):
                    move(reads, t, q_rows[i], 1)
                move(writes, "O", q_rows[i], d)   # lines 12-13: write O_i, l_i, m_i
                move(writes, "l", q_rows[i], 1)
                move(writes, "m", q_rows[i], 1)
                snap(i, j)
    else:
        for i in range(tr):
            cols = [j for j in range(tc) if visible_pairs(i, j) > 0]
            move(reads, "Q", q_rows[i], d)        # Q_i once per program
            for j in cols:
                move(reads, "K", k_rows[j], d)
                move(reads, "V", k_rows[j], d)
                if j == cols[-1]:                 # epilogue: O_i and L_i once
                    move(writes, "O", q_rows[i], d)
                    move(writes, "L", q_rows[i], 1)
                snap(i, j)
    return out


def full(counter):
    return {k: counter.get(k, 0) for k in TENSORS}


# ----------------------------------------------------------------------------- schedule vs simulation

@st.composite
def problems(draw, max_n=70):
    n = draw(st.integers(1, max_n))
    return (n, draw(st.integers(1, 4)), draw(st.integers(1, n)), draw(st.integers(1, n)),
            draw(st.booleans()), draw(st.sampled_from(["fa1", "fa2"])))


@given(problems())
def test_every_step_matches_literal_loops(p):
    n, d, br, bc, causal, order = p
    cfg = make_config(n, d, br=br, bc=bc, causal=causal, elem_bytes=2, stats_bytes=4)
    sch = Schedule(cfg, order)
    sim = simulate(n, d, br, bc, causal, order)
    assert sch.steps == len(sim)
    reads, writes = sch.cumulative_arrays(np.arange(sch.steps))
    for t, (i, j, masked, r, w) in enumerate(sim):
        assert {k: int(v[t]) for k, v in reads.items() if v[t]} == {k: v for k, v in r.items() if v}
        assert {k: int(v[t]) for k, v in writes.items() if v[t]} == {k: v for k, v in w.items() if v}
    # step() on a few steps: block, rows, mask flag, per-step deltas, bytes
    for t in sorted({0, sch.steps // 2, sch.steps - 1}):
        s = sch.step(t)
        i, j, masked, r, w = sim[t]
        assert (s.i, s.j, s.masked) == (i, j, masked)
        assert s.q_rows == (i * br, min((i + 1) * br, n)) and s.kv_rows == (j * bc, min((j + 1) * bc, n))
        assert s.cumulative.reads == full(r) and s.cumulative.writes == full(w)
        prev_r, prev_w = (sim[t - 1][3], sim[t - 1][4]) if t else (Counter(), Counter(
            {"O": n * d, "l": n, "m": n} if order == "fa1" else {}))
        assert s.loaded == {k: v for k, v in (r - prev_r).items() if v}
        assert s.stored == {k: v for k, v in (w - prev_w).items() if v}
        assert s.cumulative.total_bytes == 2 * sum(v for k, v in (r + w).items() if k not in "lmL") + \
            4 * sum(v for k, v in (r + w).items() if k in "lmL")
    # the final totals, and the order/grid arrays
    assert sch.totals().total == sum(sim[-1][3].values()) + sum(sim[-1][4].values())
    idx = sch.order_index
    for t, (i, j, *_rest) in enumerate(sim):
        assert idx[i, j] == t
    assert (idx >= 0).sum() == sch.steps
    kinds = sch.block_kind
    assert np.array_equal(kinds == SKIPPED, idx < 0)
    for t, (i, j, masked, *_rest) in enumerate(sim):
        assert kinds[i, j] == (MASKED if masked else FULL)
    t = sch.steps // 3
    g = sch.grid_at(t)
    assert g[sim[t][0], sim[t][1]] == GRID_CURRENT and (g == GRID_CURRENT).sum() == 1
    assert (g == GRID_DONE).sum() == t and (g == GRID_SKIPPED).sum() == (idx < 0).sum()
    assert (g == GRID_PENDING).sum() == sch.steps - t - 1


@pytest.mark.parametrize("n, d, br, bc", [(256, 16, 32, 64), (512, 64, 64, 64), (96, 8, 96, 12),
                                          (100, 8, 7, 13), (1, 1, 1, 1)])
@pytest.mark.parametrize("order", ["fa1", "fa2"])
def test_closed_form_non_causal(n, d, br, bc, order):
    cfg = make_config(n, d, br=br, bc=bc)
    tr, tc = math.ceil(n / br), math.ceil(n / bc)
    got = Schedule(cfg, order).totals()
    assert got == closed_form(cfg, order)
    if order == "fa1":   # reads 2Nd + Tc(2Nd + 2N), writes (Tc + 1)(Nd + 2N)
        assert got.total_reads == 2 * n * d + tc * (2 * n * d + 2 * n)
        assert got.total_writes == (tc + 1) * (n * d + 2 * n)
    else:                # reads Nd + 2 Tr N d, writes Nd + N
        assert got.total_reads == n * d + 2 * tr * n * d
        assert got.total_writes == n * d + n


@pytest.mark.parametrize("n, b", [(256, 32), (512, 64), (64, 64), (60, 4)])
@pytest.mark.parametrize("order", ["fa1", "fa2"])
def test_closed_form_causal_even(n, b, order):
    cfg = make_config(n, 8, br=b, bc=b, causal=True)
    t = n // b
    sch = Schedule(cfg, order)
    assert sch.steps == t * (t + 1) // 2                       # lower triangle incl. the diagonal
    assert sch.totals() == closed_form(cfg, order)
    kinds = sch.block_kind
    assert np.array_equal(np.flatnonzero(np.diag(kinds) == MASKED), np.arange(t))   # diagonal masked
    assert (kinds == MASKED).sum() == t and (kinds == SKIPPED).sum() == t * (t - 1) // 2
    with pytest.raises(InputError, match="Br = Bc dividing N"):
        closed_form(make_config(n + 1, 8, br=b, bc=b, causal=True), order)


# ----------------------------------------------------------------------------- FA1 vs FA2

@given(st.integers(1, 3000), st.integers(1, 128), st.data())
def test_fa1_fa2_relations(n, d, data):
    br, bc = data.draw(st.integers(1, n)), data.draw(st.integers(1, n))
    cfg = make_config(n, d, br=br, bc=bc)
    a, b = Schedule(cfg, "fa1"), Schedule(cfg, "fa2")
    ta, tb = a.totals(), b.totals()
    assert a.steps == b.steps == cfg.tr * cfg.tc
    assert ta.reads["K"] == ta.reads["V"] == n * d                 # FA1: each K, V element once
    assert tb.reads["K"] == cfg.tr * ta.reads["K"]                 # FA2: K, V once per Q block
    assert tb.reads["Q"] == n * d and ta.reads["Q"] == cfg.tc * tb.reads["Q"]
    assert ta.reads["O"] == ta.reads["Q"] and tb.reads["O"] == 0   # FA2 keeps O_i on chip
    assert ta.writes["O"] == (cfg.tc + 1) * tb.writes["O"]
    assert tb.writes["l"] == tb.writes["m"] == 0 and ta.writes["L"] == 0 and tb.writes["L"] == n
    # every computed block is visited exactly once in both orders
    if cfg.tr * cfg.tc <= 1 << 16:
        assert sorted(a.order_index.ravel()) == sorted(b.order_index.ravel()) == list(range(a.steps))


@given(st.integers(2, 400), st.data())
def test_causal_saves_traffic_and_both_orders_skip_the_same_blocks(n, data):
    br, bc = data.draw(st.integers(1, n)), data.draw(st.integers(1, n))
    dense, causal = make_config(n, 4, br=br, bc=bc), make_config(n, 4, br=br, bc=bc, causal=True)
    for order in ("fa1", "fa2"):
        assert Schedule(causal, order).totals().total <= Schedule(dense, order).totals().total
    a, b = Schedule(causal, "fa1"), Schedule(causal, "fa2")
    assert a.steps == b.steps == int((a.block_kind != SKIPPED).sum())
    assert np.array_equal(a.order_index < 0, b.order_index < 0)


# ----------------------------------------------------------------------------- standard attention

@pytest.mark.parametrize("n, d", [(1, 1), (1024, 64), (4096, 128), (777, 3)])
def test_standard_counts(n, d):
    c = standard_counts(n, d, elem_bytes=2)
    assert c.reads == {**dict.fromkeys(TENSORS, 0), "Q": n * d, "K": n * d, "S": n * n, "P": n * n, "V": n * d}
    assert c.writes == {**dict.fromkeys(TENSORS, 0), "S": n * n, "P": n * n, "O": n * d}
    assert c.total == 4 * n * n + 4 * n * d == 4 * theta_standard(n, d)
    assert c.total_bytes == 2 * c.total


# ----------------------------------------------------------------------------- the paper's numbers

def test_block_sizes_rule_and_seed_example():
    assert block_sizes(64, 25_600) == (64, 100)                     # Bc = ceil(25600 / 256), Br = min(Bc, d)
    assert block_sizes(128, 25_600) == (50, 50)                      # Br = Bc when M / 4d < d
    assert block_sizes(64, 256) == (1, 1)                            # the smallest M that fits d
    e = seed_example()
    cfg, cfg2 = e["config"], e["fa2_config"]
    assert (e["sram_elems"], cfg.br, cfg.bc, cfg.tr, cfg.tc, cfg.rule) == (25_600, 64, 100, 16, 11, "paper")
    assert (cfg2.br, cfg2.bc, cfg2.tr, cfg2.rule, cfg2.sram_elems) == (128, 64, 8, "fa2", 25_600)
    assert e["theta_standard"] == 1_114_112                          # Θ(Nd + N²) with constant 1
    assert e["theta_flash"] == pytest.approx(167_772.16)             # Θ(N²d²/M) with constant 1
    assert e["theta_standard"] / e["theta_flash"] == pytest.approx(6.64, abs=0.01)
    # exact counts, against the literal simulation, and their documented factors over the Θ numbers
    for order, c in (("fa1", cfg), ("fa2", cfg2)):
        sim = simulate(1024, 64, c.br, c.bc, False, order)[-1]
        assert e[order] == sum(sim[3].values()) + sum(sim[4].values())
    assert (e["standard"], e["fa1"], e["fa2"]) == (4_456_448, 2_406_400, 1_180_672)
    assert e["standard"] == 4 * e["theta_standard"]
    assert 12 <= e["fa1"] / e["theta_flash"] <= 15                   # ≈ 12 N²d²/M, ceil and K/V/l/m terms
    assert e["fa2"] == 1024 * 64 + 2 * 8 * 1024 * 64 + 1024 * 64 + 1024     # Nd + 2 Tr N d + Nd + N, Tr = 8
    assert SEED_EXAMPLE["sram_bytes"] == 102_400
    assert e["standard"] / e["fa1"] == pytest.approx(1.852, abs=1e-3)


def test_the_ratio_levels_off_as_n_grows():
    """standard ÷ flash tends to 4Bc/(3d+4) (FA1) and 2Br/d (FA2) at fixed blocks, not to infinity."""
    lim = ratio_limits(64, sram_elems=25_600)
    assert lim["fa1"] == pytest.approx(400 / 196) and lim["fa2"] == 2 * 128 / 64 and lim["theta"] == 6.25
    assert lim["fa1_blocks"] == (64, 100) and lim["fa2_blocks"] == (128, 64)
    ns = [2 ** k for k in range(10, 21)]
    sw = sweep_n(ns, 64, sram_bytes=102_400)
    r1, r2 = sw.ratio("fa1"), sw.ratio("fa2")
    assert r1[0] == pytest.approx(1.852, abs=1e-3)                   # the worked example
    assert abs(r1[-1] - lim["fa1"]) < 1e-3 * lim["fa1"] and abs(r2[-1] - lim["fa2"]) < 1e-3 * lim["fa2"]
    assert r1.max() <= lim["fa1"] * 1.0001 and r2.max() <= lim["fa2"]   # approached from below, never passed
    # from N = 2^14 to 2^20 (64x longer) the ratio moves by less than 1%: a plateau, not growth
    assert r1[-1] / r1[4] < 1.01 and r2[-1] / r2[4] < 1.01
    np.testing.assert_allclose(sw.theta_ratio, [(n * 64 + n * n) * 25_600 / (n * n * 64 * 64) for n in ns])
    # the closed forms of the exact ratios, at every N
    for k, n in enumerate(ns):
        tc, tr = -(-n // 100), -(-n // 128)
        assert r1[k] == pytest.approx(4 * (n + 64) / (3 * 64 + 2 + tc * (3 * 64 + 4)))
        assert r2[k] == pytest.approx(4 * (n + 64) / (2 * 64 + 1 + 2 * tr * 64))
    pinned = ratio_limits(64, br=64, bc=64)
    assert pinned["fa1"] == pytest.approx(256 / 196) and pinned["fa2"] == 2.0 and math.isnan(pinned["theta"])


def test_the_fa2_order_uses_the_kernel_tiles_not_the_paper_rule():
    assert fa2_block_sizes(64) == (128, 64) and fa2_block_sizes(128) == (128, 64) and fa2_block_sizes(256) == (64, 64)
    h100 = make_config(8192, 64, sram_bytes=preset_sram_bytes("H100"), elem_bytes=2)
    fa2 = config_for_order(h100, "fa2")
    assert (fa2.br, fa2.bc, fa2.sram_elems) == (128, 64, h100.sram_elems)
    assert config_for_order(fa2, "fa1") == h100 and config_for_order(h100, "fa1") is h100
    pinned = make_config(256, 64, br=32, bc=16)
    assert config_for_order(pinned, "fa2") is pinned
    assert make_config(100, 64, sram_bytes=1 << 20, rule="fa2").br == 100           # clamped to N
    # with the paper's Br = min(Bc, d) = 64 the FA2 order would stream K, V twice as often as with 128
    wrong = Schedule(h100, "fa2").totals().total
    right = Schedule(fa2, "fa2").totals().total
    assert right < wrong and (wrong - 8192 * 64 * 2 - 8192) == 2 * (right - 8192 * 64 * 2 - 8192)


def test_the_texts_quote_the_fa2_tiles_the_engine_uses():
    from flashviz.i18n import t
    for lang in ("en", "zh"):
        text = t("blocks.ctl_mode_help", lang)
        assert "{} × {}".format(*fa2_block_sizes(64)) in text and "{} × {}".format(*fa2_block_sizes(256)) in text
        assert "d > 128" in text and fa2_block_sizes(128) == fa2_block_sizes(64) != fa2_block_sizes(129)


def test_sram_budget_per_buffer():
    cfg = seed_example()["config"]
    b = cfg.sram_budget
    assert b == {"Q": 64 * 64, "K": 100 * 64, "V": 100 * 64, "O": 64 * 64, "S": 64 * 100, "l": 64, "m": 64}
    assert cfg.sram_footprint == sum(b.values()) == 27_520
    m = cfg.sram_elems
    # the rule's guarantee: each of Q, K, V, O (and S, since Br <= d) within ceil(M/4d)·d ~ M/4
    for k in ("Q", "K", "V", "O", "S"):
        assert b[k] <= -(-m // (4 * cfg.d)) * cfg.d
    for mm in (256, 1000, 25_600, 116_736, 1 << 20):      # the whole step stays O(M): <= 5(M/4 + d) + 2Br
        c = make_config(1 << 20, 64, sram_elems=mm)
        assert c.sram_footprint <= 5 * (mm / 4 + 64) + 2 * c.br


def test_fa1_approaches_twelve_n2d2_over_m_when_blocks_divide():
    # M = 4 d Bc with Bc | N: Tc = 4Nd/M exactly, so FA1 = 12 N²d²/M + 2Nd + (Tc + 1)(...) lower terms
    n, d, bc = 4096, 64, 128
    m = 4 * d * bc
    tot = Schedule(make_config(n, d, sram_elems=m), "fa1").totals()
    tc = n // bc
    assert tot.reads["Q"] + tot.reads["O"] + tot.writes["O"] - n * d == 12 * theta_flash(n, d, m)
    assert tot.total == 12 * theta_flash(n, d, m) + 2 * n * d + 4 * tc * n + n * d + 2 * n


def test_presets():
    assert GPU_PRESETS["A100"]["sms"] == 108 and GPU_PRESETS["H100"]["sms"] == GPU_PRESETS["H200"]["sms"] == 132
    assert GPU_PRESETS["A100"]["l1_shared_kib_per_sm"] == 192 and GPU_PRESETS["A100"]["shared_kib_per_sm"] == 164
    for k in ("H100", "H200"):
        assert GPU_PRESETS[k]["l1_shared_kib_per_sm"] == 256 and GPU_PRESETS[k]["shared_kib_per_sm"] == 228
    assert all(p["source"] and p["shared_kib_per_block"] < p["shared_kib_per_sm"] for p in GPU_PRESETS.values())
    assert preset_sram_bytes("A100") == 163 * 1024                   # M: what one thread block may use
    cfg = make_config(8192, 64, sram_bytes=preset_sram_bytes("H100"), elem_bytes=2)
    assert (cfg.sram_elems, cfg.bc, cfg.br) == (116_224, 454, 64)
    assert cfg.launch_grid == (128, 1) and make_config(8192, 64, br=128, bc=64, batch=4, heads=32).programs == 64 * 128
    with pytest.raises(InputError, match="unknown GPU preset"):
        preset_sram_bytes("V100")


# ----------------------------------------------------------------------------- sweeps

def test_sweeps_match_single_configs():
    ms = [256 * 4, 25_600 * 4, 1 << 20, 1 << 24]
    sw = sweep_sram(1024, 64, ms)
    assert sw.x_name == "M" and list(sw.x) == ms
    for k, mb in enumerate(ms):
        cfg = make_config(1024, 64, sram_bytes=mb)
        assert sw.elements["fa1"][k] == Schedule(cfg, "fa1").totals().total
        assert sw.bytes["fa2"][k] == Schedule(config_for_order(cfg, "fa2"), "fa2").totals().total_bytes
        assert (sw.br[k], sw.bc[k]) == (cfg.br, cfg.bc) and (sw.fa2_br[k], sw.fa2_bc[k]) == (128, 64)
    assert np.all(sw.elements["standard"] == 4_456_448)
    assert np.all(np.diff(sw.elements["fa1"]) <= 0)                  # more SRAM, fewer passes
    assert sw.elements["fa1"][-1] == 2 * 1024 * 64 * 2 + 2 * 1024 + 2 * (1024 * 64 + 2 * 1024)   # Tc = 1
    np.testing.assert_allclose(sw.theta_flash, [1024**2 * 64**2 / (m / 4) for m in ms])
    swn = sweep_n([64, 1000, 4096], 64, br=64, bc=64, causal=True)
    assert swn.x_name == "N" and np.isnan(swn.theta_flash).all()
    assert swn.elements["fa2"][2] == closed_form(make_config(4096, 64, br=64, bc=64, causal=True), "fa2").total
    np.testing.assert_array_equal(swn.theta_standard, [64 * 64 + 64**2, 1000 * 64 + 1000**2, 4096 * 64 + 4096**2])


# ----------------------------------------------------------------------------- speed

def _peak_bytes(fn):
    """(fn(), the most bytes Python allocated while it ran): deterministic, unlike a stopwatch."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_step_queries_are_arithmetic_not_loops():
    """step(t) is a binary search plus arithmetic (O(Tr + Tc) arrays made once), never a walk over the steps:
    at N = 2^20 with 1 x 1 blocks there are ~5.5e11 steps, so a per-step loop or array could not finish, and the
    query allocates a few KiB, not O(steps). grid_at is one (Tr, Tc) array pass: its memory is O(Tr * Tc)."""
    n = 1 << 20
    for order in ("fa1", "fa2"):
        sch = Schedule(make_config(n, 8, br=1, bc=1, causal=True), order)
        assert sch.steps == n * (n + 1) // 2
        s, peak = _peak_bytes(lambda: sch.step(sch.steps - 1))
        assert (s.i, s.j) == (n - 1, n - 1) and peak < 64 * 1024, peak
        mid, _ = _peak_bytes(lambda: sch.step(sch.steps // 2))
        assert 0 <= mid.j <= mid.i < n
    big = Schedule(make_config(16384, 64, br=16, bc=16), "fa1")       # 1024 x 1024 blocks
    s = big.step(big.steps - 1)
    g, peak = _peak_bytes(lambda: big.grid_at(big.steps // 2))
    assert (s.i, s.j) == (1023, 1023) and g.shape == (1024, 1024)
    assert peak < 40 * 1024 * 1024, peak                               # a few (Tr, Tc) arrays of <= 8 bytes


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, words", [
    (dict(n=0, d=64, br=1, bc=1), "N must be in 1.."),
    (dict(n=-5, d=64, br=1, bc=1), "N must be in 1.."),
    (dict(n=64, d=0, br=1, bc=1), "head dim d must be in 1..256"),
    (dict(n=64, d=257, br=1, bc=1), "head dim d must be in 1..256"),
    (dict(n=64, d=8, br=0, bc=8), "block size Br must be in 1..64"),
    (dict(n=64, d=8, br=8, bc=-1), "block size Bc must be in 1..64"),
    (dict(n=64, d=8, br=65, bc=8), "block size Br must be in 1..64, got 65"),
    (dict(n=64, d=8, br=8.0, bc=8), "block size Br must be an integer"),
    (dict(n=64.0, d=8, br=8, bc=8), "N must be an integer"),
    (dict(n=64, d=8, br=8), "both block sizes"),
    (dict(n=64, d=8), "give the SRAM size M"),
    (dict(n=64, d=8, sram_bytes=4096, br=8, bc=8), "not both"),
    (dict(n=64, d=8, sram_bytes=4096, sram_elems=1024), "bytes or in elements, not both"),
    (dict(n=64, d=64, sram_elems=255), "too small for d = 64.*4d = 256"),
    (dict(n=64, d=64, sram_bytes=1000), "too small for d = 64"),
    (dict(n=64, d=8, sram_bytes=0), "SRAM size .bytes. must be at least 1"),
    (dict(n=64, d=8, br=8, bc=8, elem_bytes=0), "element size"),
])
def test_bad_config(kwargs, words):
    with pytest.raises(InputError, match=words) as exc:
        make_config(**kwargs)
    assert isinstance(exc.value, ValueError)


def test_bad_queries():
    sch = Schedule(make_config(64, 8, br=8, bc=8), "fa1")
    for t in (-1, 64, 1.5, None):
        with pytest.raises(InputError, match="step"):
            sch.step(t)
    with pytest.raises(InputError, match="loop order"):
        Schedule(sch.cfg, "fa3")
    with pytest.raises(InputError, match="above the cap"):
        _ = Schedule(make_config(1 << 20, 8, br=1, bc=1), "fa2").grid_at(0)
    with pytest.raises(InputError, match="N must be in"):
        standard_counts(0, 8)
