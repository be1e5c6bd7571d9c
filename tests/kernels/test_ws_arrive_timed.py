"""The GPU timing behind THREAD_ARRIVE_TRITONS = (): each thread's own arrive (kernels/ws_switches.py
thread_arrive_default) timed against the default on the H100 under triton 3.8, in alternating processes with cuDNN as
the peer in each (tools/fa4_rounds.py ab). The pair whose two files came back is recomputed here; the log's lines
must be what tools.fa4_rounds --ab prints for it, and no pair in the log may show the switch faster."""
import json
import re
from pathlib import Path

from flashviz_kernels import ws_switches
from tools import fa4_rounds

TUNE = Path(__file__).resolve().parents[2] / "assets/benchmarks/tune"
LOG = TUNE / "nvidia-h100-fwd-arrive-ab-triton38-2026-12-07.txt"
PAIR = ("nvidia-h100-fwd-arrive0-split0-run1-triton38-2026-12-07.json",
        "nvidia-h100-fwd-arrive1-split0-run1-triton38-2026-12-07.json")


def _load(name: str) -> dict:
    return json.loads((TUNE / name).read_text())


def test_the_pair_is_what_its_names_say():
    off, on = (_load(n) for n in PAIR)
    for rec, arrive in ((off, "0"), (on, "1")):
        assert rec["switches"] == {"FLASHVIZ_WS_SPLIT_BARS": "0", "FLASHVIZ_WS_THREAD_ARRIVE": arrive}
        assert rec["device"].startswith("NVIDIA H100") and rec["triton"] == "3.8.0"
        assert rec["git_commit"] == off["git_commit"] and len(rec["git_commit"]) == 40
        assert "--mode fwd --n 16384" in rec["command"]
        assert {(r["n"], r["d"], bool(r["causal"])) for r in rec["rows"]} == {(16384, d, c) for d in (64, 128)
                                                                          for c in (False, True)}
    assert _load("nvidia-h100-fwd-arrive0-split1-run1-triton38-2026-12-07.json")["switches"] == {
        "FLASHVIZ_WS_SPLIT_BARS": "1", "FLASHVIZ_WS_THREAD_ARRIVE": "0"}


def test_the_log_prints_what_the_pair_gives_and_the_switch_is_never_faster_overall():
    text = LOG.read_text()
    assert fa4_rounds.ab_text([tuple(_load(n) for n in PAIR)]) in text             # the split0 pair, recomputed
    means = [float(x) for x in re.findall(r"against sdpa-cudnn: geomean ([0-9.]+)", text)]
    assert len(means) == 3 and all(m < 1.0 for m in means)                         # 2 pairs split1, 1 split0
    cells = [float(x) for x in re.findall(r"causal=[01] ([0-9.]+)", text)]
    assert len(cells) == 12 and sum(c < 1.0 for c in cells) >= 9                    # slower in most cells
    assert ws_switches.THREAD_ARRIVE_TRITONS == ()                                  # so off everywhere


def test_the_sanity_lines_are_within_fp16_error_of_float64():
    errs = [float(x) for x in re.findall(r"max\|o-ref\| ([0-9.e-]+)", LOG.read_text())]
    assert len(errs) == 6 and max(errs) < 2e-3
