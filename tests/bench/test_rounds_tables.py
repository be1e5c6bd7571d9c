"""flashviz.bench.rounds_tables: the medians and shares docs/BENCHMARKS.md prints for issue 32's yardsticks, against
plain recomputation from made-up rounds, and the recordings the document names."""
import json
import statistics

import numpy as np
import pytest

from flashviz.bench import benchmarks_doc, rounds_tables


def _row(ours, fa4, cudnn=None, **cell):
    impls = dict(fast=dict(ms=float(np.median(ours)), ms_all=ours), fa4=dict(ms=float(np.median(fa4)), ms_all=fa4))
    if cudnn is not None:
        impls["sdpa-cudnn"] = dict(error="RuntimeError: no cuDNN")
    return dict(mode="fwd", n=4096, d=64, causal=True, impls=impls, **cell)


def test_ratios_are_per_round_peer_over_ours():
    ours, fa4 = [1.0, 2.0, 4.0, 1.0], [1.1, 1.8, 4.4, 0.9]
    med, lo, hi = rounds_tables.ratios(_row(ours, fa4), "fa4")
    per_round = np.array(fa4, dtype=np.float64) / np.array(ours, dtype=np.float64)
    assert (med, lo, hi) == pytest.approx((np.median(per_round), per_round.min(), per_round.max()), rel=1e-15)
    assert rounds_tables.ratios(_row(ours, fa4, cudnn=True), "sdpa-cudnn") is None
    lines = rounds_tables.rounds_table(dict(rows=[_row(ours, fa4, cudnn=True)]))
    assert lines[2] == ("| fwd | 4096 | 64 | yes | 1.500 | 1.450 | RuntimeError: no cuDNN "
                        "| 1.000 (0.900–1.100) | — |")


def test_window_shares_against_recomputation():
    rec = dict(rows=[dict(d=128, window=None, tiles=1000, ms=10.0, fa4_ms=9.0),
                     dict(d=128, window=256, tiles=100, ms=2.0, fa4_ms=2.5),
                     dict(d=128, window=128, tiles=50, ms=1.25)])
    (w128, w256) = rounds_tables.window_shares(rec, 128)
    assert (w128["window"], w256["window"]) == (128, 256)
    assert w256["speedup"] == 5.0 and w256["bound"] == 10.0 and w256["share"] == 0.5
    assert w256["fa4_speedup"] == pytest.approx(3.6) and w256["fa4_share"] == pytest.approx(0.36)
    assert w256["fa4_over_ours"] == 1.25 and "fa4_ms" not in w128
    lines = rounds_tables.window_table(rec)
    assert lines[2].endswith("| — | — | — | — |") and lines[3].endswith("| 2.500 | 3.60 | 0.360 | 1.250 |")


def test_the_document_names_full_recordings_with_fa4():
    """The rounds file holds every cell of issue 32's grid, fwd and bwd, each with FA4 and cuDNN timed (the later
    forward file its forward cells, on the same device and triton); the window fit holds dense causal and six
    windows at both head dims, FA4 in every row."""
    rounds = json.loads(benchmarks_doc.FA4_ROUNDS.read_text(encoding="utf-8"))
    assert {(r["mode"], r["n"], r["d"], r["causal"]) for r in rounds["rows"]} == {
        (m, n, d, c) for m in ("fwd", "bwd") for n in (4096, 16384) for d in (64, 128) for c in (0, 1)}
    assert all(rounds_tables.ratios(r, p) for r in rounds["rows"] for p in ("fa4", "sdpa-cudnn"))
    fwd = json.loads(benchmarks_doc.FA4_ROUNDS_FWD.read_text(encoding="utf-8"))
    assert {(r["mode"], r["n"], r["d"], r["causal"]) for r in fwd["rows"]} == {
        (m, n, d, c) for m, n, d, c in ((r["mode"], r["n"], r["d"], r["causal"]) for r in rounds["rows"]) if m == "fwd"}
    assert all(rounds_tables.ratios(r, p) for r in fwd["rows"] for p in ("fa4", "sdpa-cudnn"))
    assert fwd["triton"] == rounds["triton"] and fwd["device"] == rounds["device"]
    window = json.loads(benchmarks_doc.WINDOW_FA4.read_text(encoding="utf-8"))
    for d in (64, 128):
        shares = rounds_tables.window_shares(window, d)
        assert len(shares) == 6 and all("fa4_share" in s for s in shares)


def test_cycle_ratio_takes_each_rounds_clock_out():
    """cycle_ratio is the median over rounds of (peer ms x peer MHz) / (ours ms x ours MHz): a peer 10 % faster at a
    clock 10 % lower took the same cycles; a round without a clock sample is left out; clocks_table names the reason
    bits seen (power cap here) and prints '—' for an impl with no samples."""
    row = dict(mode="fwd", n=16384, d=128, causal=False, impls={
        "fast": dict(ms=10.0, ms_all=[10.0, 10.0, 12.0], clocks=dict(sm_mhz=[1400.0, 1400.0, None], power_w=[699.0],
                                                                      reasons=[4, 4, 0])),
        "fa4": dict(ms=9.0, ms_all=[9.0, 10.0, 6.0], clocks=dict(sm_mhz=[1400.0 / 0.9, 1540.0, 1400.0],
                                                                 power_w=[700.0], reasons=[4, 0, 0])),
        "sdpa-cudnn": dict(ms=11.0, ms_all=[11.0, 11.0, 11.0])})
    assert rounds_tables.cycle_ratio(row, "fa4") == pytest.approx(statistics.median([1.0, 1.1]))
    assert rounds_tables.cycle_ratio(row, "sdpa-cudnn") is None
    lines = rounds_tables.clocks_table(dict(rows=[row]))
    assert lines[2] == "| fwd | 16384 | 128 | no | fast | 10.000 | 1400 | 699 | power cap | — |"
    assert lines[3] == "| fwd | 16384 | 128 | no | fa4 | 9.000 | 1540 | 700 | power cap | 1.050 |"
    assert lines[4] == "| fwd | 16384 | 128 | no | sdpa-cudnn | 11.000 | — | — | — | — |"


def test_the_clock_recordings_sampled_every_impl_of_every_cell():
    """docs/BENCHMARKS.md's clock tables: each file's impls all ran, with an SM clock sample in every round, FA4 and
    cuDNN among them, at the forward's N = 16384 cells (the three files together: all four)."""
    cells = set()
    for path in benchmarks_doc.FA4_CLOCKS:
        rec = json.loads(path.read_text(encoding="utf-8"))
        assert not rec["clocks"]["error"]
        for r in rec["rows"]:
            cells.add((r["mode"], r["n"], r["d"], r["causal"]))
            assert set(r["impls"]) == {"fast", "fa4", "sdpa-cudnn"}
            for x in r["impls"].values():
                assert len(x["ms_all"]) == rec["rounds"] and None not in x["clocks"]["sm_mhz"]
    assert cells == {("fwd", 16384, d, c) for d in (64, 128) for c in (False, True)}


def test_the_readmes_clock_bullet_is_what_the_clock_recordings_hold():
    """README, "Clocks": in every forward cell of the clock recordings each impl's clock was held by the power cap
    in every round, and FA4 took fewer SM cycles than ours (cycle_ratio below 1), in both timers' files."""
    readme = " ".join((benchmarks_doc.ROOT / "README.md").read_text(encoding="utf-8").split())
    assert ("all three implementations ran held at the board's power cap, and FA4 took fewer SM cycles than ours in "
            "every forward cell, timed call by call and as graph replays") in readme
    timers = set()
    for path in benchmarks_doc.FA4_CLOCKS:
        rec = json.loads(path.read_text(encoding="utf-8"))
        timers.add(rec["timer"].split(" ")[0])
        for r in rec["rows"]:
            assert r["mode"] == "fwd" and rounds_tables.cycle_ratio(r, "fa4") < 1
            for x in r["impls"].values():             # held: the cap's bit seen in every round
                assert all("power cap" in rounds_tables.reason_names(bits) for bits in x["clocks"]["reasons"])
    assert timers == {"calls", "CUDA-graph"}


def test_a_long_error_is_cut_at_a_word():
    """An impl that did not run prints its error in the time column, cut at a word within 40 characters."""
    row = _row([1.0, 1.0], [1.0, 1.0])
    row["impls"]["fa4"] = dict(error="Unavailable: FlashAttention-4 is not installed (pip install -e '.[fa4]')")
    assert rounds_tables.rounds_table(dict(rows=[row]))[2].split(" | ")[5] == "Unavailable: FlashAttention-4 is not…"
    row["impls"]["fa4"] = dict(error="RuntimeError: no cuDNN")
    assert rounds_tables.rounds_table(dict(rows=[row]))[2].split(" | ")[5] == "RuntimeError: no cuDNN"
