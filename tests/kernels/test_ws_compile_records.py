"""The CPU compile recordings that kernels/ws_schedule.py's docstrings cite hold what those docstrings say (no GPU:
the files were made by tools.compile_check, which builds for sm_90 and reads ptxas's output and the SASS)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from flashviz_kernels import ws_schedule

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
    assert ws_schedule.pair_max_default("3.8.0") and ws_schedule.local_sum_default("3.8.0")
    assert ws_schedule.pair_max_default("3.9.0") and ws_schedule.local_sum_default("3.9.0")


@pytest.mark.parametrize("title,lo,hi", [("triton 3.8.0", 2.5, 2.8), ("triton 3.9.0", 3.3, 3.7),
                                         ("triton 3.9.0, FLASHVIZ_WS_PAIR_MAX=1 FLASHVIZ_WS_LOCAL_SUM=1", 2.5, 2.8)])
def test_d64_dense_exponential_spacing(title, lo, hi):
    """pair_max_default's sentence: in the 8 dense d = 64 builds 3.9 without the two switches spaces MUFU.EX2
    3.3-3.7 instructions apart on average, with both 2.5-2.8, as 3.8's default does."""
    dense = _dense(_sections(D64)[title])
    assert len(dense) == 8
    assert all(lo <= s <= hi for _, s, _ in dense), [s for _, s, _ in dense]
