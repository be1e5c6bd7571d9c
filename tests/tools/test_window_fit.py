"""tools/window_fit.py's arithmetic: the key tiles a causal window walks, against a float64 brute force of which
(row, key) pairs are visible, and the fit that splits a run's time."""
import os

import numpy as np
import pytest

from tools.window_fit import fit, key_tiles


@pytest.mark.parametrize("n,bm,bn,window", [(1024, 128, 128, None), (1024, 128, 128, 256), (1000, 128, 64, 100),
                                            (777, 192, 128, 300), (640, 64, 128, 64), (512, 128, 128, 5000),
                                            (130, 128, 128, 1)])
def test_key_tiles_are_the_tiles_holding_a_visible_pair(n, bm, bn, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    seen = (j <= i) & ((j >= i - window) if window is not None else True)
    want = sum(int(seen[s:s + bm, t:t + bn].any()) for s in range(0, n, bm) for t in range(0, n, bn))
    assert key_tiles(n, bm, bn, window) == (want, -(-n // bm))


def test_fit_recovers_the_per_tile_and_per_query_tile_costs():
    rng = np.random.default_rng(0)
    rows = [dict(tiles=t, qtiles=q, ms=14.5e-6 * t + 26e-6 * q) for t, q in rng.integers(1000, 100000, (6, 2))]
    a, b = fit(rows)
    assert a == pytest.approx(14.5e-6, rel=1e-9) and b == pytest.approx(26e-6, rel=1e-9)


FITS = ("2026-12-03", "2026-12-03b", "2026-12-03c", "2026-12-03d")   # at 3002e92, 16dea62, d5188c9, 01ea696
HALF_FIT = "2026-12-03e"              # at 4a66295 under triton 3.8.0, HALF on (the gate's), 6 interleaved rounds
HALF_FIT_36 = "2026-12-03f"           # at 7042c7c under triton 3.6.0, HALF on through ws.half_code's workaround
# on an H100 at 5afa322 and 0c07b35 (the three after it: 3.6 twice, 3.8 once), 6 interleaved rounds each
H100_FITS = ("nvidia-h100-window-fit-2026-12-05", "nvidia-h100-window-fit-d128-run1-2026-12-05",
             "nvidia-h100-window-fit-run2-2026-12-05", "nvidia-h100-window-fit-triton38-2026-12-05")
H100_FA4 = "nvidia-h100-window-fit-fa4-triton38-2026-12-06"    # at 7c1b809 under 3.8, FA4 timed in the same rounds
H100_FA4_TAIL = "nvidia-h100-window-fit-fa4-triton38-2026-12-07"   # the same at ee54fc3, HALF_TAIL 3.8's default


def _recording(tag):
    import json
    from pathlib import Path
    name = tag if tag.startswith("nvidia-") else f"nvidia-h200-window-fit-{tag}"
    path = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "tune" / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("tag", FITS + (HALF_FIT, HALF_FIT_36) + H100_FITS + (H100_FA4, H100_FA4_TAIL))
def test_committed_fits_are_their_rows(tag):
    """Each committed run: its key and query tiles are key_tiles' at its tiles (B * H heads), and its stored fit is
    the least squares of its window rows (so its per-key-tile and per-query-tile figures come from the timings)."""
    rec = _recording(tag)
    heads = rec["batch"] * rec["heads"]
    assert rec["device"].startswith("NVIDIA H100" if "h100" in tag else "NVIDIA H200")
    assert rec["command"].startswith("python -m tools.window_fit")
    for row in rec["rows"]:
        tiles, nq = key_tiles(row["n"], row["block_m"], row["block_n"], row["window"])
        assert (row["tiles"], row["qtiles"]) == (tiles * heads, nq * heads)
    for f in rec["fits"]:
        wins = [r for r in rec["rows"] if r["d"] == f["d"] and r["window"] is not None]
        assert len(wins) == 6
        assert fit(wins) == pytest.approx((f["ms_per_tile"], f["ms_per_qtile"]), rel=1e-12)


def test_window_1024_against_its_tile_bound():
    """d = 128, N = 16384, window 1024 (128 x 128 tiles, bound 7.40x dense causal): the epilogue under the next
    tile's Q·Kᵀ (3002e92) and per-row mask bounds (16dea62, d5188c9) cut the fixed cost per query tile to 0.81-0.88
    of the first run's, and the window's speed-up over dense causal in the runs since is 0.86-0.91 of the bound
    (issue 32 asks 0.9)."""
    def at(tag):
        rec = _recording(tag)
        dense, win = (next(r for r in rec["rows"] if r["d"] == 128 and r["window"] == w) for w in (None, 1024))
        fixed = next(f["ms_per_qtile"] for f in rec["fits"] if f["d"] == 128)
        return dense["ms"] / win["ms"] / (dense["tiles"] / win["tiles"]), dense["tiles"] / win["tiles"], fixed
    first, *later = (at(t) for t in FITS)
    assert all(7.39 < bound < 7.41 for _, bound, _ in (first, *later))
    assert all(fixed < 0.9 * first[2] for _, _, fixed in later)
    assert all(0.86 < share < 0.91 for share, _, _ in later)


def test_window_1024_with_half_against_its_tile_bound():
    """HALF's run (triton 3.8.0, where kernels/gates.py opens it): each time is the median of its interleaved rounds;
    the window's speed-up over dense causal is 0.9 of the 7.40x bound (issue 32's target), its fixed cost per query
    tile below every earlier run's. The dense causal rate in that run was the slowest of the five (a slower
    denominator helps the ratio): the window's own per-key-tile rate is within 3 % of the earlier runs'."""
    rec = _recording(HALF_FIT)
    assert rec["triton"] == "3.8.0" and "--rounds 6" in rec["command"]
    for row in rec["rows"]:
        assert len(row["ms_rounds"]) == 6 and row["ms"] == pytest.approx(float(np.median(row["ms_rounds"])))
    dense, win = (next(r for r in rec["rows"] if r["d"] == 128 and r["window"] == w) for w in (None, 1024))
    share = dense["ms"] / win["ms"] / (dense["tiles"] / win["tiles"])
    assert 0.9 <= share < 0.91
    f = next(f for f in rec["fits"] if f["d"] == 128)
    earlier = [next(g for g in _recording(t)["fits"] if g["d"] == 128) for t in FITS]
    assert all(f["ms_per_qtile"] < g["ms_per_qtile"] for g in earlier)
    assert all(f["dense_ms_per_tile"] > g["dense_ms_per_tile"] for g in earlier)
    assert all(abs(f["ms_per_tile"] / g["ms_per_tile"] - 1) < 0.03 for g in earlier)


def test_window_1024_with_half_on_triton_36():
    """The same run under triton 3.6.0, where HALF runs through ws.half_code's workaround: 0.89 of the bound, short
    of 0.9. Unlike 3.8's, its window took no less time than the runs before HALF (within 2 % of them) and its fixed
    cost per query tile sits inside their range: HALF's gain measured under 3.8 (tune/...-window-half-*.txt) is not
    seen here."""
    rec = _recording(HALF_FIT_36)
    assert rec["triton"] == "3.6.0" and "--rounds 6" in rec["command"] and rec["git_commit"].startswith("7042c7c")

    def rows(r):
        return (next(x for x in r["rows"] if x["d"] == 128 and x["window"] == w) for w in (None, 1024))
    dense, win = rows(rec)
    assert 0.885 < dense["ms"] / win["ms"] / (dense["tiles"] / win["tiles"]) < 0.9
    before = [_recording(t) for t in FITS[1:]]                     # the runs since the first cut, all triton 3.6.0
    assert all(abs(win["ms"] / w["ms"] - 1) < 0.02 and win["ms"] > w["ms"] for _, w in map(rows, before))
    fixed = [next(g["ms_per_qtile"] for g in r["fits"] if g["d"] == 128) for r in before]
    assert min(fixed) < next(f["ms_per_qtile"] for f in rec["fits"] if f["d"] == 128) < max(fixed)


def test_window_1024_on_an_h100_short_of_the_bound():
    """The H100's runs (HALF on, the gate's; triton 3.6 and 3.8): window 1024 at d = 128 reaches 0.87-0.9 of its
    7.40x tile bound in each, short of issue 32's 0.9; its fixed cost per query tile is 15-18 % of its time there."""
    for tag in H100_FITS:
        rec = _recording(tag)
        dense, win = (next(r for r in rec["rows"] if r["d"] == 128 and r["window"] == w) for w in (None, 1024))
        bound = dense["tiles"] / win["tiles"]
        assert 7.39 < bound < 7.41 and 0.87 < dense["ms"] / win["ms"] / bound < 0.9
        f = next(f for f in rec["fits"] if f["d"] == 128)
        assert 0.15 < f["ms_per_qtile"] * win["qtiles"] / win["ms"] < 0.18


def test_fixed_budget_is_the_fixed_cost_at_that_share_of_the_bound():
    """A window row whose time is its key tiles at the fit's rate plus fixed_budget per query tile runs exactly that
    share of its key-tile bound; more fixed cost, less of it; a rate too slow for the share leaves a negative budget."""
    from tools.window_fit import fixed_budget
    dense = dict(tiles=1056768, ms=14.9)
    win = dict(tiles=142848, qtiles=16384)
    for share in (0.8, 0.9, 1.0):
        budget = fixed_budget(dense, win, 14.3e-6, share)
        ms = 14.3e-6 * win["tiles"] + budget * win["qtiles"]
        assert dense["ms"] / ms / (dense["tiles"] / win["tiles"]) == pytest.approx(share, rel=1e-12)
    assert fixed_budget(dense, win, 14.3e-6, 0.8) > fixed_budget(dense, win, 14.3e-6, 0.9) > 0
    assert fixed_budget(dense, win, dense["ms"] / dense["tiles"] * 1.2, 1.0) < 0


def test_what_window_1024_lacks_of_the_target_per_query_tile():
    """d = 128, window 1024, under triton 3.8 (what a fresh install gets): each run's own fixed cost per query tile
    ((ms - the fit's rate * key tiles) / query tiles) against fixed_budget's for 0.9 of the bound. The H200's HALF
    run is at or under its budget (0.9 of the bound, the test above); the H100's runs need it 10-25 % lower."""
    from tools.window_fit import fixed_budget

    def lack(tag):
        rec = _recording(tag)
        dense, win = (next(r for r in rec["rows"] if r["d"] == 128 and r["window"] == w) for w in (None, 1024))
        a = next(f["ms_per_tile"] for f in rec["fits"] if f["d"] == 128)
        assert rec["triton"] == "3.8.0"
        return fixed_budget(dense, win, a) / ((win["ms"] - a * win["tiles"]) / win["qtiles"])
    assert lack(HALF_FIT) >= 1.0
    assert 0.85 < lack("nvidia-h100-window-fit-triton38-2026-12-05") < 0.9
    assert 0.75 < lack(H100_FA4) < 0.85         # the next day's run (its FA4 below): 15-25 % lower, so not met


def test_window_1024_beside_fa4_on_the_h100():
    """Issue 32's window target beside FlashAttention-4, timed in the same rounds (d = 128, N = 16384, causal, 128 x
    128 tiles): dense causal / window 1024 against our tiles' bound (7.40x) is under 0.9 for both, and FA4's is the
    lower: FA4 runs its dense causal faster than ours and its window 1024 slower, with every output within 1e-3 of
    ours. At d = 64 our window 1024 and FA4's take the same time to within 1 %."""
    rec = _recording(H100_FA4)
    assert rec["triton"] == "3.8.0" and rec["device"].startswith("NVIDIA H100")

    def row(d, w):
        return next(r for r in rec["rows"] if r["d"] == d and r["window"] == w)
    assert all(r["fa4_maxerr"] <= 1e-3 for r in rec["rows"])
    dense, win = row(128, None), row(128, 1024)
    bound = dense["tiles"] / win["tiles"]
    ours, fa4 = dense["ms"] / win["ms"] / bound, dense["fa4_ms"] / win["fa4_ms"] / bound
    assert fa4 < ours < 0.9, (fa4, ours)
    assert dense["fa4_ms"] < dense["ms"] and win["fa4_ms"] > win["ms"]
    assert row(64, 1024)["fa4_ms"] / row(64, 1024)["ms"] == pytest.approx(1.0, abs=0.01)


def test_fa4_beside_the_windows_without_a_gpu():
    """FA4's runs need a CUDA GPU (flashviz.bench.peers says why not, and window_fit records that reason); a row's
    FA4 fields are the median of its rounds with its first call's max |difference| from ours, or the error of
    whichever failed."""
    import torch

    from tools.window_fit import fa4_fields, fa4_runs
    runs, why = fa4_runs(*(torch.zeros(1, 1, 8, 64, dtype=torch.float16) for _ in range(3)), [None, 4])
    assert runs == {} and "NVIDIA GPUs only" in why
    assert fa4_fields(2.5e-4, [1.0, 3.0, 2.0]) == dict(fa4_ms=2.0, fa4_ms_rounds=[1.0, 3.0, 2.0], fa4_maxerr=2.5e-4)
    assert fa4_fields("RuntimeError: no", [1.0]) == dict(fa4_error="RuntimeError: no")
    assert fa4_fields(1e-4, "OutOfMemoryError: x") == dict(fa4_error="OutOfMemoryError: x")


def test_shares_text_reads_each_recordings_windows_against_its_own_dense_run():
    """--shares: one line per recording and head dim, its switches named, each window's ms and its share of the
    key-tile bound (dense causal ms / window ms over dense tiles / window tiles) recomputed here by hand."""
    from tools.window_fit import shares_text
    rows = [dict(d=128, window=None, ms=14.0, tiles=1000, qtiles=10), dict(d=128, window=1024, ms=2.5, tiles=150,
                                                                         qtiles=10)]
    lines = shares_text([dict(switches={"FLASHVIZ_WS_EARLY_RESCALE": "1"}, rows=rows), dict(switches={}, rows=rows)])
    share = (14.0 / 2.5) / (1000 / 150)
    assert lines == [f"EARLY_RESCALE=1 d=128 dense 14.000 | w1024 2.500 ({share:.3f})",
                     f"defaults d=128 dense 14.000 | w1024 2.500 ({share:.3f})"]


def test_window_1024_on_an_h100_beside_fa4_after_half_tail():
    """The newest H100 fit (HALF_TAIL on, FA4 in the same rounds): window 1024 at d = 128 still short of 0.9 of its
    bound, and FA4's speed-up over its own dense causal further from it than ours; the day-to-day spread of the
    share (0.865 here, 0.875 in the fit before it, 0.86-0.90 in the day's A/B processes) is as large as
    HALF_TAIL's gain, which only the A/B's paired processes resolve (tests/kernels/test_ws_half_tail.py)."""
    from flashviz.bench.rounds_tables import window_shares
    rec = _recording(H100_FA4_TAIL)
    assert rec["triton"] == "3.8.0" and rec["git_commit"].startswith("ee54fc3") and rec["switches"] == {}
    w = next(s for s in window_shares(rec, 128) if s["window"] == 1024)
    assert 7.39 < w["bound"] < 7.41 and 0.85 < w["share"] < 0.9
    assert w["fa4_share"] < w["share"] and w["fa4_over_ours"] > 1.0


def test_switch_times_both_sides_in_the_same_rounds(tmp_path, monkeypatch):
    """--switch ENV: each run called with ENV=0 and with ENV=1 (set around the call, restored after), both sides in
    one time_rounds, each side's rows and fit in its own record, which names its side and the other file. Fakes
    stand in for the GPU: a launch whose ms depends on the window and on ENV as the call sees it."""
    import types

    from tools import window_fit
    from tools.tune_record import time_rounds
    env = "FLASHVIZ_WS_FRESH"
    monkeypatch.delenv(env, raising=False)
    seen = []

    def attention(q, k, v, impl, causal, window=None):
        seen.append(os.environ.get(env))
        return FakeOut(window and window[0], os.environ.get(env))

    plan = types.SimpleNamespace(kernel="ws", block_m=128, block_n=128)
    api = types.SimpleNamespace(launch_plan=lambda *a, **kw: plan, attention=attention)
    torch = types.SimpleNamespace(randn=lambda *a, **kw: None, float16=None,
                                  cuda=types.SimpleNamespace(synchronize=lambda: None))
    triton = types.SimpleNamespace(testing=types.SimpleNamespace(do_bench=lambda f, **kw: f().ms))
    windows = [512, 1024, 2048]
    args = types.SimpleNamespace(n=4096, windows=windows, rounds=3, fa4=True, switch=env)
    outs = [str(tmp_path / "off.json"), str(tmp_path / "on.json")]
    header = dict(batch=1, heads=2, switches={"FLASHVIZ_WS_HALF": "1"}, rows=[])
    records = {s: window_fit.side_record(header, env, s, outs) for s in ("0", "1")}
    window_fit.measure(128, args, ["0", "1"], records, api, torch, triton, time_rounds)
    assert os.environ.get(env) is None                # restored after every call
    assert seen.count("0") == seen.count("1") == 3 * 4 and seen.count(None) == 4   # 3 rounds x 4 runs, 4 checks
    for side, other in (("0", "on.json"), ("1", "off.json")):
        rec = records[side]
        assert rec["switches"] == {"FLASHVIZ_WS_HALF": "1", env: side} and rec["same_process"] == other
        assert rec["fa4"] == "--switch"
        ms = {r["window"]: r["ms"] for r in rec["rows"]}
        assert ms == {w: FakeOut(w, side).ms for w in (None, *windows)}
        (f,) = rec["fits"]
        assert fit(rec["rows"][1:]) == pytest.approx((f["ms_per_tile"], f["ms_per_qtile"]), rel=1e-12)
    assert header["switches"] == {"FLASHVIZ_WS_HALF": "1"} and header["rows"] == []   # the header is not mutated


class FakeOut:
    """A launch's stand-in result: its ms from the window's left side w (None: dense causal) and the switch's side
    as the call saw it."""
    def __init__(self, w, side):
        self.ms = (14.0 if w is None else 0.6 + w / 1000) * (0.95 if side == "1" else 1.0)


def test_with_env_restores_a_value_set_before(monkeypatch):
    from tools.fa4_rounds import with_env
    monkeypatch.setenv("FLASHVIZ_X", "7")
    assert with_env(lambda: os.environ["FLASHVIZ_X"], "FLASHVIZ_X", "1")() == "1"
    assert os.environ["FLASHVIZ_X"] == "7"
    f = lambda: 3                                     # noqa: E731
    assert with_env(f, None, None) is f
