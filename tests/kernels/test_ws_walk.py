"""WALK (ws_switches.walk_default): why it is off, read from the committed H100 files: the d = 128 windows' A/B in
alternating processes under triton 3.8 (tools/device/window_check.sh ab FLASHVIZ_WS_WALK 3) and the forward's GPU
files with it forced. The walk's order itself is checked on the host (test_ws_host.py)."""
import json
from pathlib import Path

from flashviz.bench.rounds_tables import window_shares
from flashviz_kernels import ws_switches
from helpers.ws import forced_suite

ROOT = Path(__file__).resolve().parents[2]
TUNE = ROOT / "assets" / "benchmarks" / "tune"


def _pair(p: int) -> tuple:
    recs = []
    for e in (0, 1):
        rec = json.loads((TUNE / f"nvidia-h100-window-fit-d128-walk{e}-pair{p}-triton38-2026-12-07.json")
                         .read_text(encoding="utf-8"))
        assert rec["device"].startswith("NVIDIA H100") and rec["triton"] == "3.8.0"
        assert rec["git_commit"].startswith("fbd414a") and rec["switches"] == {ws_switches.WALK_ENV: str(e)}
        recs.append({s["window"]: s["ms"] for s in window_shares(rec, 128)})
    return tuple(recs)


def test_the_windows_ran_no_faster_with_it_under_38():
    """Window 512 slower with WALK in all three pairs; 1024 faster in some pairs and slower in others (even); so
    it stays off, with a gate row for the forward's files run with it (all passed)."""
    pairs = [_pair(p) for p in (1, 2, 3)]
    assert all(on[512] > off[512] for off, on in pairs), pairs
    assert {on[1024] > off[1024] for off, on in pairs} == {True, False}, pairs
    assert not any(ws_switches.walk_default(v) for v in ("3.6.0", "3.8.0", "3.9.0"))
    suite = forced_suite(ws_switches.WALK_ENV)
    assert (suite["passed"], suite["failed"], suite["errors"]) == (354, 0, 0)
    assert suite["switches"] == {ws_switches.WALK_ENV: "1"} and suite["versions"]["triton"] == "3.8.0"
    assert suite["commit"].startswith("fbd414a")
