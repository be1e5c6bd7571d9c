"""The backward page's charts carry the numbers they are given, in English and Chinese, and validate as plotly
figures. Inputs are written out by hand (cells shaped like a recorded dataset's)."""
import subprocess
import sys

import numpy as np
import plotly.graph_objects as go
import pytest

from flashviz.charts import backward as B
from flashviz.i18n import STRINGS, t
from flashviz.engine.recompute import matmul_rows, stored_tensors, stored_totals

MIB = 2 ** 20


def valid(fig):
    go.Figure(fig.to_dict())                     # re-validate what was built without validation
    return fig


def trace(fig, name):
    found = [tr for tr in fig.data if tr.name == name]
    assert len(found) == 1, name
    return found[0]


def step_cell(impl, n, status="ok", peak=None, ms=None, mode="fwd+bwd"):
    return dict(impl=impl, n=n, d=64, causal=False, dtype="float16", batch=4, heads=32, mode=mode, status=status,
                ms=ms, peak_extra_bytes=peak, ideal_bytes=n * 1000)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_stored_figure_numbers(lang):
    rows = stored_tensors(1024, 64, "float16", 2, 8)
    naive, flash, ratio = stored_totals(rows)
    fig = valid(B.stored_figure(rows, lang, ratio=ratio))
    keep_n, keep_f = trace(fig, t("backward.keeps_naive", lang)), trace(fig, t("backward.keeps_flash", lang))
    nn = 2 * 8 * 1024 * 1024 * 2
    assert list(keep_n.y) == [nn, nn] and list(keep_n.x) == ["S (N × N)", "P (N × N)"]
    assert list(keep_f.y) == [2 * 8 * 1024 * 64 * 2, 2 * 8 * 1024 * 4] and list(keep_f.x) == ["O (N × d)", "LSE (N)"]
    assert list(keep_n.text) == ["32.00 MiB", "32.00 MiB"]
    assert ratio == pytest.approx(2 * 1024 * 2 / (64 * 2 + 4))
    assert f"{ratio:,.1f}×" in fig.layout.title.text and fig.layout.yaxis.type == "log"
    ticks = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext))     # bytes, not SI "B" = billion
    assert ticks[2 ** 20] == "1 MiB" and all(v & (v - 1) == 0 for v in ticks)


def test_peak_figure_marks_oom_on_the_memory_line():
    cells = [step_cell("naive", 4096, peak=16 * 2 ** 30), step_cell("naive", 8192, status="oom"),
             step_cell("fast", 4096, peak=264 * MIB), step_cell("fast", 8192, peak=528 * MIB)]
    fig = valid(B.peak_figure(cells, device_bytes=140 * 2 ** 30, mark_n=4096))
    fast = trace(fig, "ours: fast")
    assert list(fast.x) == [4096, 8192] and np.allclose(fast.y, [264, 528])
    oom = trace(fig, "naive (autograd): out of memory")
    assert list(oom.x) == [8192] and oom.y[0] == pytest.approx(140 * 1024) and list(oom.text) == ["OOM"]
    ideal = trace(fig, t("backward.ideal_name", "en"))
    assert np.allclose(ideal.y, [4096 * 1000 / MIB, 8192 * 1000 / MIB])
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert [s.x0 for s in fig.layout.shapes if s.yref == "paper"] == [4096]          # the user's N
    assert "140 GiB" in fig.layout.annotations[0].text
    no_dev = B.peak_figure(cells, lang="zh")                                      # no device size: above the data
    assert trace(no_dev, "朴素实现（autograd）：显存不足").y[0] == pytest.approx(16 * 1024 * 4)


def test_flops_figure_counts_matmuls():
    rows = matmul_rows(2048, 128, True, 1, 1)
    fig = valid(B.flops_figure(rows, "en"))                                    # horizontal, forward on top
    assert fig.data[0].orientation == "h"
    assert list(fig.data[0].x) == [3.5, 2.5, 2.0, 1.0]
    assert list(fig.data[0].text) == ["7 matmuls · 3.5×", "5 matmuls · 2.5×", "4 matmuls · 2×", "2 matmuls · 1×"]
    one = 2 * 2048 * 2048 * 128 / 2                                              # causal halves it
    assert list(fig.data[0].customdata) == [7 * one, 5 * one, 4 * one, 2 * one]
    assert fig.data[0].y[0] == "our teaching backward (2 kernels)" and fig.data[0].y[-1] == "forward"


def test_times_figure_bars_and_oom():
    cells = [step_cell("naive", 16384, status="oom", mode="bwd"), step_cell("fast", 16384, ms=67.77, mode="bwd"),
             step_cell("naive", 16384, status="oom"), step_cell("fast", 16384, ms=88.87),
             step_cell("custom-impl", 16384, ms=50.0)]
    fig = valid(B.times_figure(cells, "en"))
    bwd, step = trace(fig, "backward alone"), trace(fig, "training step (forward + backward)")
    assert list(bwd.x) == ["naive (autograd)", "ours: fast", "custom-impl"]   # an unknown impl keeps its name
    assert list(bwd.y) == [0, 67.77, 0] and list(bwd.text) == ["OOM", "67.77", "—"]
    assert list(step.y) == [0, 88.87, 50.0] and list(step.text) == ["OOM", "88.87", "50.00"]
    zh = valid(B.times_figure(cells, "zh"))
    assert zh.layout.title.text == "各实现的实测时间"


def test_backward_strings_complete_in_both_languages():
    keys = [k for k in STRINGS if k.startswith("backward.")]
    assert len(keys) > 80
    zh = " ".join(STRINGS[k]["zh"] for k in keys)
    for term in ("重计算", "反向传播", "显存", "HBM", "片上 SRAM", "统计量 m 和 ℓ", "log-sum-exp"):
        assert term in zh, term


def test_charts_do_not_import_streamlit():
    code = "import sys, flashviz.charts.backward; sys.exit('streamlit' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
