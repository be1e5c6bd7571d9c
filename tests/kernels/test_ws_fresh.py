"""FRESH (ws_switches.fresh_default), alone and with WALK: why both are off, read from the committed H100 files of
the d = 128 windows' A/B in alternating processes under triton 3.8 (tools/device/window_check.sh ab; the last set,
run by hand with that script's tools.window_fit command, both switches together against neither)."""
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
