"""FRESH (ws_switches.fresh_default), alone and with WALK: why both are off, read from the committed H100 files of
the d = 128 windows' A/B in alternating processes under triton 3.8 (tools/device/window_check.sh ab; the last set,
run by hand with that script's tools.window_fit command, both switches together against neither), the traces of
its lead (tools.window_trace), its same-process A/B (tools.window_fit --switch) and its forced GPU files."""
import json
from pathlib import Path

from flashviz.bench.rounds_tables import window_shares
from flashviz_kernels import ws_switches

TUNE = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "tune"
FRESH, WALK = ws_switches.FRESH_ENV, ws_switches.WALK_ENV


def _pairs(stem: str, pairs: int, switches) -> list:
    """[(off ms, on ms) per window] for each pair of the files stem{0,1}-pair{p}; switches(e): their switches."""
    out = []
    for p in range(1, pairs + 1):
        sides = []
        for e in (0, 1):
            rec = json.loads((TUNE / f"nvidia-h100-window-fit-d128-{stem}{e}-pair{p}-triton38-2026-12-07.json")
                             .read_text(encoding="utf-8"))
            assert rec["device"].startswith("NVIDIA H100") and rec["triton"] == "3.8.0"
            assert rec["switches"] == switches(str(e)), (stem, p, e)
            sides.append({s["window"]: s["ms"] for s in window_shares(rec, 128)})
        out.append({w: (sides[0][w], sides[1][w]) for w in (512, 1024, 2048)})
    return out


def _faster(pairs, w) -> int:
    return sum(on < off for pair in pairs for off, on in [pair[w]])


def test_fresh_alone_left_the_1024_window_no_faster():
    """Alternating processes, the sizes alone read afresh (before the program count was): 512 and 2048 faster in
    every pair, 1024 in at most one."""
    pairs = _pairs("fresh", 4, lambda e: {FRESH: e})
    assert _faster(pairs, 512) == 4 and _faster(pairs, 2048) == 4 and _faster(pairs, 1024) <= 1, pairs


def test_walk_beside_fresh_traded_512_for_1024():
    pairs = _pairs("fresh1-walk", 4, lambda e: {FRESH: "1", WALK: e})
    assert _faster(pairs, 1024) == 4 and _faster(pairs, 512) == 0, pairs


def test_both_against_neither_moved_no_window_one_way_and_both_stay_off():
    pairs = _pairs("fresh-walk-both", 3, lambda e: {FRESH: e, WALK: e})
    assert all(0 < _faster(pairs, w) < 3 for w in (512, 1024, 2048)), pairs
    assert all(abs(on / off - 1) < 0.03 for pair in pairs for off, on in pair.values()), pairs
    for v in ("3.6.0", "3.8.0", "3.9.0"):
        assert not ws_switches.fresh_default(v) and not ws_switches.walk_default(v)


def _lead(tag: str) -> dict:
    """tools.window_trace's edges of the persistent window of 1024 (d = 128) with the lead split into its scopes,
    one process per switch set at d419c33 on the H100 under 3.8."""
    rec = json.loads((TUNE / f"nvidia-h100-window-trace-d128-lead-{tag}-triton38-2026-12-07.json")
                     .read_text(encoding="utf-8"))
    assert rec["device"].startswith("NVIDIA H100") and rec["triton"] == "3.8.0"
    assert rec["git_commit"].startswith("d419c33") and (rec["window"], rec["d"]) == (1024, 128)
    want = {"FLASHVIZ_WS_TRACE_EDGES": "1", **{"default": {}, "fresh1": {FRESH: "1"},
                                               "fresh1-walk1": {FRESH: "1", WALK: "1"}}[tag]}
    assert rec["switches"] == want and rec["schedule"]["persistent"] and rec["schedule"]["half"]
    return rec


def test_the_lead_is_more_than_its_named_parts():
    """Consumer 0 (no lead half step): of its lead (pv_last's end to key tile 0's K wait) the loop's return, the
    decode, the Q wait and attend's set-up account for half or more but not all; the rest lies between those scopes
    (code ptxas moved across them, local-memory reloads), at defaults and with FRESH."""
    for tag in ("default", "fresh1"):
        c0 = _lead(tag)["edges"]["consumer0"]
        named = c0["ret"] + c0["top"] + c0["q_ready"] + c0["pro"]
        assert c0["half_lo"] == 0 and 0.4 * c0["lead"] < named < 0.8 * c0["lead"], (tag, c0)


def test_fresh_shortened_the_traced_tile():
    """Under instrumentation FRESH shortened both consumers' tile period and the instrumented kernel; the
    uninstrumented launch (do_bench) moved by less than 1 % either way, which is why the same-process A/B decides."""
    off, on = _lead("default"), _lead("fresh1")
    for c in ("consumer0", "consumer1"):
        assert on["edges"][c]["period"] < off["edges"][c]["period"]
        assert on["edges"][c]["ret"] < off["edges"][c]["ret"]
    assert on["ms_kernel_instrumented"] < off["ms_kernel_instrumented"]
    assert abs(on["ms"] / off["ms"] - 1) < 0.01


def _same(p: int) -> tuple:
    """The two sides of same-process run p (tools.window_fit --switch FLASHVIZ_WS_FRESH at 4d07e40): each names
    the other's file, and its switches its own side."""
    recs = []
    for e in (0, 1):
        rec = json.loads((TUNE / f"nvidia-h100-window-fit-fresh-same{p}-{e}-triton38-2026-12-07.json")
                         .read_text(encoding="utf-8"))
        assert rec["device"].startswith("NVIDIA H100") and rec["triton"] == "3.8.0"
        assert rec["git_commit"].startswith("4d07e40") and rec["switches"] == {FRESH: str(e)}
        assert "--switch FLASHVIZ_WS_FRESH" in rec["command"] and rec["same_process"] == f"fresh-sp{p}-{1 - e}.json"
        recs.append(rec)
    return tuple(recs)


def _change(off: dict, on: dict, d: int) -> dict:
    """{window: on ms / off ms - 1} at head dim d."""
    ms = [{s["window"]: s["ms"] for s in window_shares(r, d)} for r in (off, on)]
    return {w: ms[1][w] / ms[0][w] - 1 for w in ms[0]}


def test_fresh_in_the_same_rounds_was_no_steady_gain():
    """Both sides in the same interleaved rounds: the d = 128 window of 1024 within 2 % either way and not faster in
    every process; every d = 64 window slower; dense d = 128 without a mask slower at both N. So FRESH stays off."""
    w1024 = [_change(*_same(p), 128)[1024] for p in (1, 2, 3, 4)]
    assert all(abs(c) < 0.02 for c in w1024) and sum(c < 0 for c in w1024) == 3, w1024
    d64 = [c for p in (3, 4) for c in _change(*_same(p), 64).values()]
    assert len(d64) == 6 and all(c > 0 for c in d64), d64
    dense = json.loads((TUNE / "nvidia-h100-fwd-fresh-switch-d128-triton38-2026-12-07.json").read_text("utf-8"))
    assert dense["git_commit"].startswith("4d07e40")
    for row in dense["rows"]:
        assert (row["d"], row["causal"], row["switch"]["name"]) == (128, False, FRESH)
        assert row["impls"]["fast FLASHVIZ_WS_FRESH=1"]["ms"] > row["impls"]["fast"]["ms"], row["n"]
    assert not any(ws_switches.fresh_default(v) for v in ("3.6.0", "3.8.0", "3.9.0"))


def test_its_gpu_files_passed_with_it_forced():
    from helpers.ws import forced_suite
    suite = forced_suite(FRESH)
    assert (suite["passed"], suite["failed"], suite["errors"]) == (354, 0, 0)
    assert suite["switches"] == {FRESH: "1"} and suite["commit"].startswith("4d07e40")
