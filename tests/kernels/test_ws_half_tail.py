"""HALF_TAIL (ws_switches.half_tail_default): what the H100 showed under triton 3.8, read from the committed files.
The window of 1024 at d = 128 against its own runs without it (tools/device/window_check.sh ab: alternating
processes, each timing dense causal beside the windows), dense causal forward cells against cuDNN in the same
processes (fv_ab, fa4_rounds --ab), the forward's GPU files with it forced, and the two things tried beside it and not
kept: its leading-edge mirror (HALF_LEAD) and the build switches never timed on a window."""
import json
import math
from pathlib import Path

import pytest

from flashviz.bench.rounds_tables import window_shares
from flashviz_kernels import gates, ws_switches
from tools import fa4_rounds

TUNE = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "tune"
DAY = "triton38-2026-12-07"


def _rec(name: str, switches: dict) -> dict:
    rec = json.loads((TUNE / f"{name}-{DAY}.json").read_text(encoding="utf-8"))
    assert rec["triton"] == "3.8.0" and rec["device"].startswith("NVIDIA H100"), name
    assert rec["switches"] == switches, (name, rec["switches"])
    return rec


def _w1024(rec: dict) -> dict:
    return next(s for s in window_shares(rec, 128) if s["window"] == 1024)


def _pairs(stem: str, var: str, fixed: dict, n: int = 3) -> list[tuple[dict, dict]]:
    return [tuple(_rec(f"nvidia-h100-window-fit-d128-{stem}{e}-pair{p}", {**fixed, var: str(e)}) for e in (0, 1))
            for p in range(1, n + 1)]


def test_the_window_runs_faster_with_it_in_every_pair():
    """Window 1024: less time with it than without in each of seven pairs (three at a44dfb3, four more at ee54fc3,
    where it was the default; every process times its own dense causal beside it), 1-2 % in their mean; and 3.8's
    default, with a gate row for the forward's files run with it."""
    pairs = _pairs("half-tail", ws_switches.HALF_TAIL_ENV, {}, 7)
    assert {on["git_commit"][:7] for _, on in pairs} == {"a44dfb3", "ee54fc3"}
    ms = [(_w1024(off)["ms"], _w1024(on)["ms"]) for off, on in pairs]
    assert all(on < off for off, on in ms), ms
    gain = sum(off for off, _ in ms) / sum(on for _, on in ms)
    assert 1.01 < gain < 1.02, gain
    assert ws_switches.half_tail_default("3.8.0") and not ws_switches.half_tail_default("3.6.0")
    rows = [v for v in gates.VERIFIED if v.path == "ws-half" and v.triton == "3.8."
            and getattr(v.evidence, "env", {}).get(ws_switches.HALF_TAIL_ENV) == "1"]
    assert rows and all(v.evidence.env.get("FLASHVIZ_WS_HALF") == "1" for v in rows)
    suite = json.loads((Path(gates.__file__).resolve().parents[1] / rows[0].evidence.file).read_text(encoding="utf-8"))
    assert (suite["passed"], suite["failed"], suite["errors"]) == (354, 0, 0)
    assert suite["switches"] == {"FLASHVIZ_WS_HALF": "1", ws_switches.HALF_TAIL_ENV: "1"}


def test_dense_causal_is_even_with_it():
    """Dense causal (d 64 / 128, N 4096 / 16384, HALF's diagonal tiles): against cuDNN in the same process, the two
    pairs' geometric means straddle 1 and their mean is within a percent of it."""
    geo = []
    for r in (1, 2):
        off, on = (_rec(f"nvidia-h100-fwd-half-tail{e}-run{r}", {ws_switches.HALF_TAIL_ENV: str(e)}) for e in (0, 1))
        cells = dict(fa4_rounds.ab(off, on, "sdpa-cudnn"))
        assert len(cells) == 4 and all("causal=1" in c for c in cells), cells
        geo.append(math.exp(sum(math.log(x) for x in cells.values()) / len(cells)))
    assert min(geo) < 1.0 < max(geo), geo
    assert abs(math.log(geo[0] * geo[1]) / 2) < 0.01, geo


def test_its_leading_mirror_was_no_faster():
    """HALF_LEAD (reverted at 0651b6f): with HALF_TAIL on both sides, the window ran slower with it in two of three
    pairs and in their mean."""
    pairs = _pairs("half-lead", "FLASHVIZ_WS_HALF_LEAD", {ws_switches.HALF_TAIL_ENV: "1"})
    ms = [(_w1024(off)["ms"], _w1024(on)["ms"]) for off, on in pairs]
    assert sum(on > off for off, on in ms) == 2 and sum(on for _, on in ms) > sum(off for off, _ in ms), ms
    assert not hasattr(ws_switches, "HALF_LEAD_ENV")


@pytest.mark.parametrize("name", ["none", "early-rescale", "split-bars", "thread-arrive"])
def test_no_build_switch_brings_the_window_to_its_bound(name):
    """The build switches timed on dense launches only, each on the window before HALF_TAIL (two passes, order
    reversed in the second): within 0.86-0.89 of the key-tile bound, none at 0.9."""
    env = {} if name == "none" else {"FLASHVIZ_WS_" + name.upper().replace("-", "_"): "1"}
    for p in (1, 2):
        share = _w1024(_rec(f"nvidia-h100-window-fit-d128-{name}-pass{p}", env))["share"]
        assert 0.86 < share < 0.9, (name, p, share)
