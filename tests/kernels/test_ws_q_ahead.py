"""Q_AHEAD (ws_switches.q_ahead_default): why it is off, read from the committed H100 files. tools/window_trace.py's
traces of the persistent d = 128 window of 1024 (triton 3.8 and 3.6, each side of the switch) and the window's A/B
in alternating processes under 3.8 (tools/device/window_check.sh ab), and the forward's GPU files with it forced."""
import json
from pathlib import Path

from flashviz.bench.rounds_tables import window_shares
from flashviz_kernels import ws_switches
from helpers.ws import forced_suite

ROOT = Path(__file__).resolve().parents[2]
TUNE = ROOT / "assets" / "benchmarks" / "tune"


def _load(name: str) -> dict:
    rec = json.loads((TUNE / f"{name}-2026-12-07.json").read_text(encoding="utf-8"))
    assert rec["device"].startswith("NVIDIA H100") and rec["git_commit"].startswith("19061bd"), name
    return rec


def _trace(e: int, triton: str) -> dict:
    rec = _load(f"nvidia-h100-window-trace-d128-q-ahead{e}-triton{triton}")
    assert rec["triton"] == {"38": "3.8.0", "36": "3.6.0"}[triton]
    assert rec["switches"] == {ws_switches.Q_AHEAD_ENV: str(e), "FLASHVIZ_WS_TRACE_EDGES": "1"}
    assert (rec["window"], rec["d"], rec["schedule"]["persistent"], rec["schedule"]["half"]) == (1024, 128, True, True)
    return rec["edges"]


def test_under_38_the_consumers_hardly_waited_for_q():
    """Without the switch, each consumer's median wait for its tile's Q was under 1 % of the tile's period: what
    kept them idle between key loops (lead) was their own code, ten times that wait or more."""
    for c in _trace(0, "38").values():
        assert c["tiles"] > 500
        assert c["q_ready"] < 0.01 * c["period"] and c["lead"] > 10 * c["q_ready"], c


def test_the_window_ran_slower_with_it_under_38():
    """Window 1024 (and 2048): more time with Q_AHEAD than without in both pairs of processes; so it stays off,
    with a gate row for the forward's files run with it (all passed)."""
    pairs = [tuple(_load(f"nvidia-h100-window-fit-d128-q-ahead{e}-pair{p}-triton38") for e in (0, 1)) for p in (1, 2)]
    for off, on in pairs:
        assert off["switches"] == {ws_switches.Q_AHEAD_ENV: "0"} and on["switches"] == {ws_switches.Q_AHEAD_ENV: "1"}
        ms = {w: [next(s["ms"] for s in window_shares(r, 128) if s["window"] == w) for r in (off, on)]
              for w in (1024, 2048)}
        assert all(b > a for a, b in ms.values()), ms
    assert not any(ws_switches.q_ahead_default(v) for v in ("3.6.0", "3.8.0", "3.9.0"))
    suite = forced_suite(ws_switches.Q_AHEAD_ENV)
    assert (suite["passed"], suite["failed"], suite["errors"]) == (354, 0, 0)
    assert suite["switches"] == {ws_switches.Q_AHEAD_ENV: "1"} and suite["versions"]["triton"] == "3.8.0"
