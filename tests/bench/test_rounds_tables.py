"""flashviz.bench.rounds_tables: the medians and shares docs/BENCHMARKS.md prints for issue 32's yardsticks, against
plain recomputation from made-up rounds, and the recordings the document names."""
import json

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
