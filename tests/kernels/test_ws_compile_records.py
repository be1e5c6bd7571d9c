"""The CPU compile recordings that kernels/ws_switches.py's (and ws_schedule.half_default's) docstrings cite hold
what those docstrings say (no GPU: the files were made by tools.compile_check, which builds for sm_90 and reads
ptxas's output and the SASS)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from flashviz_kernels import ws_switches

TUNE = Path(__file__).resolve().parents[2] / "assets/benchmarks/tune"
D64 = TUNE / "cpu-sm90-compile-fwd-d64-triton38-vs-39-2026-12-05.txt"


def _sections(path: Path) -> dict:
    """{section title: [(launch fields, mean MUFU.EX2 spacing, max spill bytes)]} from a compile_check recording."""
    out, title = {}, None
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            title = line[3:]
            out[title] = []
        elif line.startswith("  NC="):
            fields = dict(kv.split("=") for kv in line.split(":")[0].split())
            spacing = float(re.search(r"mean spacing ([0-9.]+)", line).group(1))
            spill = max(int(x) for x in re.search(r"spill stores (\d+) B loads (\d+) B", line).groups())
            out[title].append((fields, spacing, spill))
    return out


def _dense(builds):
    return [(f, s, b) for f, s, b in builds if f["window"] == f["alibi"] == f["docs"] == "0"]


def test_d64_recording_is_the_three_builds_pair_max_default_cites():
    """Three sections (3.8's defaults, 3.9's at 85a475f, 3.9 with PAIR_MAX and LOCAL_SUM on), each the same 28
    d = 64 builds. 3.9's defaults then were both off; both on since they were timed there (test_ws_forward_39.py),
    so its third section is 3.9's defaults now, as the first is 3.8's."""
    secs = _sections(D64)
    assert list(secs) == ["triton 3.8.0", "triton 3.9.0",
                          "triton 3.9.0, FLASHVIZ_WS_PAIR_MAX=1 FLASHVIZ_WS_LOCAL_SUM=1"]
    keys = [[tuple(sorted(f.items())) for f, _, _ in b] for b in secs.values()]
    assert len(keys[0]) == 28 and keys[0] == keys[1] == keys[2]
    assert all(f["d"] == "64" for b in secs.values() for f, _, _ in b)
    assert ws_switches.pair_max_default("3.8.0") and ws_switches.local_sum_default("3.8.0")
    assert ws_switches.pair_max_default("3.9.0") and ws_switches.local_sum_default("3.9.0")


@pytest.mark.parametrize("title,lo,hi", [("triton 3.8.0", 2.5, 2.8), ("triton 3.9.0", 3.3, 3.7),
                                         ("triton 3.9.0, FLASHVIZ_WS_PAIR_MAX=1 FLASHVIZ_WS_LOCAL_SUM=1", 2.5, 2.8)])
def test_d64_dense_exponential_spacing(title, lo, hi):
    """pair_max_default's sentence: in the 8 dense d = 64 builds 3.9 without the two switches spaces MUFU.EX2
    3.3-3.7 instructions apart on average, with both 2.5-2.8, as 3.8's default does."""
    dense = _dense(_sections(D64)[title])
    assert len(dense) == 8
    assert all(lo <= s <= hi for _, s, _ in dense), [s for _, s, _ in dense]


def test_d128_backward_spills_least_at_the_tables_launch():
    """cpu-sm90-bwd-d128-spills: of 32 ws backward builds at d = 128 (dq_mode frag / tma2 x STATS_ACC x NEXT x
    DP_ZERO x causal), the table's launch spills least at both causal values (tma2 ties it without a mask), every
    build spills, and next_s 1 or dP^T from zero (slower there on an H100) each spill more than it."""
    from flashviz_kernels import backward_table, ws_bwd
    builds = []
    for line in (TUNE / "cpu-sm90-bwd-d128-spills-triton38-2026-12-06.txt").read_text().splitlines():
        if line.startswith("  frag ") or line.startswith("  tma2 "):
            fields = dict(kv.split("=") for kv in line.split(":")[0].split()[1:] if "=" in kv)
            fields["mode"] = line.split()[0]
            builds.append((fields, int(re.search(r"spill stores (\d+) B", line).group(1))))
    assert len(builds) == 32 and all(b > 0 for _, b in builds)
    table = backward_table.ws_launch(128)
    assert (table["dq_mode"], ws_bwd.REGS[0]) == ("frag", 240)
    for causal in ("0", "1"):
        mine = [(f, b) for f, b in builds if f["causal"] == causal]
        default = next(b for f, b in mine if f["mode"] == "frag" and f["stats_acc"] == "1" and f["next"] == "0"
                       and f["dp_zero"] == "0")
        assert default == min(b for _, b in mine)
        assert all(b > default for f, b in mine if f["mode"] == "frag" and (f["next"] == "1" or f["dp_zero"] == "1"))


def test_half_in_the_dense_causal_launches_builds_as_the_schedule_says():
    """cpu-sm90-compile-half (ws_schedule.half_default cites it): the table's dense causal launches (one tile per
    program, three consumers at d = 64, two at d = 128) with HALF's half steps, which 3.8 runs from 701240a: no
    spill at d = 128, 56 B at d = 64 where whole tiles spill none (and it still timed faster there)."""
    from flashviz_kernels import ws_schedule
    (builds,) = _sections(TUNE / "cpu-sm90-compile-half-triton38-2026-12-06.txt").values()
    dense = {(f["NC"], f["d"], f.get("half", "0")): b for f, _, b in _dense(builds)
             if f["causal"] == "1" and f["persistent"] == "0"}
    for d in (64, 128):
        *_, pers, nc = ws_schedule.CONFIGS[(d, True)]         # (block_m, ..., persistent, consumers)
        assert not pers and (d, nc) in ((64, 3), (128, 2))
        assert dense[(str(nc), str(d), "0")] == 0
    assert dense[("2", "128", "1")] == 0 and dense[("3", "64", "1")] == 56
    assert ws_schedule.half_default(64, True, version="3.8.0") and ws_schedule.half_default(128, True, version="3.8.0")
