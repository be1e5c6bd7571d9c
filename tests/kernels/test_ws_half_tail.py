"""HALF_TAIL (ws_switches.half_tail_default): what the H100 showed under triton 3.8, read from the committed files.
The window of 1024 at d = 128 against its own runs without it (tools/device/window_check.sh ab: alternating
processes, each timing dense causal beside the windows), dense causal forward cells against cuDNN in the same
processes (fv_ab, fa4_rounds --ab), the forward's GPU files with it forced, and what was tried beside it and not
kept: its leading-edge mirror (HALF_LEAD), the build switches never timed on a window before, SPLIT_BARS after it."""
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


def _ratios(stem: str, var: str, n: int) -> dict:
    """{window: [ms without / ms with, per pair]} over a window A/B's n pairs (None: each process's dense causal)."""
    out = {}
    for off, on in _pairs(stem, var, {}, n):
        for w in (None, 512, 1024, 2048):
            ms = [next(r["ms"] for r in rec["rows"] if r["d"] == 128 and r["window"] == w) for rec in (off, on)]
            out.setdefault(w, []).append(ms[0] / ms[1])
    return out


def _geo(xs: list) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def test_the_gain_shows_at_1024_only():
    """The windows of 512 and 2048 and dense causal, timed in the same processes: even with it (within half a
    percent in the geometric mean of the seven pairs, each side faster in some pairs), so the gain at 1024 is not
    the same saving on every query tile (that would show most at 512, the shortest)."""
    r = _ratios("half-tail", ws_switches.HALF_TAIL_ENV, 7)
    assert _geo(r[1024]) > 1.01 and min(r[1024]) > 1.0
    for w in (None, 512, 2048):
        assert abs(math.log(_geo(r[w]))) < 0.005 and min(r[w]) < 1.0 < max(r[w]), (w, r[w])


def test_split_barriers_on_the_window_stay_off():
    """SPLIT_BARS (with HALF_TAIL on, 3.8): the window of 1024 faster with it in all four pairs, those of 512 and 2048
    slower in most and in their geometric mean; its 3.8 GPU run passed, but it stays off (split_bars_default)."""
    r = _ratios("split-bars", ws_switches.SPLIT_BARS_ENV, 4)
    assert min(r[1024]) > 1.0
    for w in (512, 2048):
        assert _geo(r[w]) < 1.0 and sum(x < 1.0 for x in r[w]) >= 3, (w, r[w])
    assert not ws_switches.split_bars_default("3.8.0")
    suite = json.loads((TUNE.parents[1] / "verified" / "nvidia-h100-triton-3.8.0-ws-forward-split-bars.json")
                       .read_text(encoding="utf-8"))
    assert (suite["passed"], suite["failed"], suite["switches"]) == (354, 0, {ws_switches.SPLIT_BARS_ENV: "1"})


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
