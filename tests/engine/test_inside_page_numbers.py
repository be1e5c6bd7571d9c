"""The numbers the "Inside the kernel" page states (flashviz.engine.kernel_timeline), against references computed another
way: per-cycle occupancy arrays instead of interval arithmetic, the synthetic trace's known layout, and the SM's
rates from the vendor's peak figures."""
from pathlib import Path

import pytest

from flashviz.engine import kernel_timeline as kt
from flashviz.bench import timeline_dataset as td
from flashviz.engine.hardware import HARDWARE
from helpers.timeline import counted_numbers, dataset

ROOT = Path(__file__).resolve().parents[2]
REC = ROOT / "assets/benchmarks/timeline"


def test_the_sms_rates_are_the_vendors_peak_and_the_exponential_ratio_is_64_over_d():
    h100 = HARDWARE["H100"]["peak_fp16"]
    assert kt.TENSOR_FLOP_PER_CLK * 132 * 1.83e9 == pytest.approx(h100, rel=1e-3)   # 989.4 TFLOP/s at 1830 MHz
    assert kt.SFU_EXP_PER_CLK * 132 * 1.83e9 == pytest.approx(3.9e12, rel=0.01)     # FlashAttention-3: 3.9 TFLOPS
    for d in (32, 64, 128, 256):
        exp_clocks, mma_clocks = 1 / 16, 4 * d / 4096                                 # one (query, key) pair
        assert kt.exp_vs_mma_clocks(d) == pytest.approx(exp_clocks / mma_clocks) == pytest.approx(64 / d)
    assert kt.exp_vs_mma_clocks(128) == 0.5 and kt.exp_vs_mma_clocks(64) == 1.0


def test_the_synthetic_ws_cta_gives_its_known_layout():
    """helpers.timeline.ws_trace: the producer's tma_kv at 1000 j (150 cycles), warpgroup 0's qk at 200 + 1000 j, its
    softmax 300 cycles later for 500; warpgroup 1 the same 500 cycles later. So K_j is issued 50 cycles before its
    Q·Kᵀ, one tile per 1000 cycles, softmax half of each iteration, and warpgroup 1 is in a matrix multiply for the
    whole of warpgroup 0's softmax except on the first tile (its qk covers 300 of 500 cycles there: no P·V before)."""
    cell = dataset()["cells"][1]
    tk = kt.takeaway(cell)
    assert tk.tiles == 4 and tk.period_cycles == 1000 and tk.lead_cycles == 50 and tk.lead_iterations == 0.05
    assert tk.mma_under_softmax == pytest.approx((300 + 3 * 500) / (4 * 500))
    assert tk.softmax_together == 0.0
    assert tk.softmax_share == 0.5                                                # 500 of every 1000 cycles
    ref = counted_numbers(cell)
    assert (tk.mma_under_softmax, tk.softmax_together, tk.lead_cycles) == pytest.approx(
        (ref["under"], ref["both"], ref["lead"]))


def test_the_window_is_whole_iterations_from_the_middle():
    cell = dataset()["cells"][1]
    w = kt.window(cell, 2)
    assert (w.iterations, w.first, w.kept) == (2, 1, 4)
    assert (w.start, w.end) == (1200, 3200)                   # qk of tile 1 (no wait_kv scope here) to tile 3
    fast = dataset()["cells"][0]
    wf = kt.window(fast, 3)
    marks = sorted(r[2] for r in fast["timeline"] if r[0] == 0 and fast["scopes"][r[1]] == "qk")
    loads = sorted(r[2] for r in fast["timeline"] if r[0] == 0 and fast["scopes"][r[1]] == "load_k")
    assert wf.kept == len(marks) and wf.iterations == 3
    assert wf.start == max(x for x in loads if x <= marks[wf.first])             # its load_k starts the iteration
    assert wf.end == max(x for x in loads if x <= marks[wf.first + 3])
    assert kt.window(cell, 99).iterations == 3                                    # at most the kept tiles minus one


@pytest.mark.parametrize("name", [p.name for p in sorted(REC.glob("*.json"))])
def test_every_committed_ws_cell_against_cycle_counting(name):
    data = td.load_timeline_dataset(REC / name)
    cells = [c for c in data["cells"] if c["impl"] == "ws" and c["status"] == "ok"]
    assert cells
    for c in cells:
        tk, ref = kt.takeaway(c), counted_numbers(c)
        assert tk.mma_under_softmax == pytest.approx(ref["under"])
        assert tk.softmax_together == pytest.approx(ref["both"])
        assert tk.lead_cycles == pytest.approx(ref["lead"]) and tk.period_cycles == ref["period"]
        assert 0 < tk.lead_cycles                               # the producer issues K_j before its Q·Kᵀ starts
        assert 0 <= tk.softmax_together <= 1 and 0 <= tk.mma_under_softmax <= 1


def test_what_the_newest_recording_shows():
    """The figures the page's opening sentence and schedule table carry for the committed 12-01b recording: the
    producer runs ahead in every configuration (0.6 to 1.9 iterations), and without ping-pong (N = 4096, the
    configuration the old page promised to show) warpgroup 1 is in a matrix multiply for 46 % of warpgroup 0's
    softmax time and in its own softmax for 34 %."""
    data = td.load_timeline_dataset(REC / "nvidia-h200-2026-12-01b.json")
    got = {(c["n"], c["d"], c["causal"], c["schedule"]): kt.takeaway(c) for c in data["cells"]
           if c["impl"] == "ws"}
    no_pp = got[(4096, 128, False, "overlap")]
    assert round(100 * no_pp.mma_under_softmax) == 46 and round(100 * no_pp.softmax_together) == 34
    pp = got[(8192, 128, True, "overlap+pingpong")]
    assert round(pp.lead_iterations, 1) == 0.6 and round(100 * pp.mma_under_softmax) == 52
    assert all(0.5 < tk.lead_iterations < 2 for tk in got.values())
