"""Charts of the recorded intra-kernel timelines (flashviz/charts/timeline.py): every bar is a number of the dataset
cell (the real H200 fixture and a synthetic warp-specialised trace), converted with the recorded clock."""
import numpy as np
import plotly.graph_objects as go
import pytest

from helpers.app import array
from flashviz.engine import kernel_timeline as kt
from flashviz.charts import timeline as ch
from flashviz.i18n import t
from helpers.timeline import dataset


def _valid(fig) -> go.Figure:
    return go.Figure(fig.to_dict())                   # the builders skip validation; plotly checks it here


@pytest.mark.parametrize("clock", [1980.0, None])
def test_gantt_bars_are_the_kept_ctas_events(clock):
    cell = dataset()["cells"][0]
    fig = _valid(ch.gantt_figure(cell, "en", clock_mhz=clock, title="x"))
    div = clock or 1000.0
    assert [tr.meta for tr in fig.data] == ["load_k", "qk", "softmax", "pv"]
    assert [tr.name for tr in fig.data] == [ch.scope_label(s, "en") for s in ("load_k", "qk", "softmax", "pv")]
    assert sum(len(array(tr.x)) for tr in fig.data) == len(cell["timeline"]) == 512
    labels = list(fig.layout.yaxis.ticktext)
    assert labels == [f"warp {w} · warpgroup 0" for w in range(4)] and list(fig.layout.yaxis.tickvals) == [0, 1, 2, 3]
    for i, tr in enumerate(fig.data):
        rows = [r for r in cell["timeline"] if r[1] == i]
        np.testing.assert_allclose(array(tr.x), [r[3] / div for r in rows], rtol=1e-6)
        np.testing.assert_allclose(array(tr.base), [r[2] / div for r in rows], rtol=1e-6)
        assert [labels[y] for y in array(tr.y)] == [f"warp {r[0]} · warpgroup 0" for r in rows]
        custom = array(tr.customdata).reshape(-1, 4)
        assert list(custom[:, 3]) == [r[3] for r in rows] and list(custom[:, 0]) == [r[0] for r in rows]
        assert tr.orientation == "h" and tr.marker.color == ch.SCOPE_COLORS[tr.meta]
    assert fig.layout.xaxis.range[1] == pytest.approx(cell["cta"]["span_cycles"] / div * 1.01)
    unit = "us" if clock else "kcycles"
    assert fig.layout.xaxis.title.text == t(f"inside.axis_{unit}", "en", clock=f"{clock:g}" if clock else "")


def test_gantt_of_the_warp_specialised_kernel_labels_roles_and_shares_an_axis():
    cell = dataset()["cells"][1]
    fig = _valid(ch.gantt_figure(cell, "zh", clock_mhz=2000.0, x_max=50.0))
    rows = list(fig.layout.yaxis.ticktext)
    assert rows[0] == "warp 0 · warpgroup 0" and rows[4] == "warp 4 · warpgroup 1" and rows[8] == "warp 8 · 生产者"
    tma = next(tr for tr in fig.data if tr.meta == "tma_kv")
    assert tma.name == t("inside.scope_tma_kv", "zh")
    assert set(array(tma.y)) == {8} and len(array(tma.x)) == 4
    np.testing.assert_allclose(array(tma.x), [150 / 2000.0] * 4)
    assert fig.layout.xaxis.range[1] == pytest.approx(50.0 * 1.01)


def test_the_whole_cta_figure_stays_small():
    """A recorded CTA is thousands of bars: numbered rows and float32 arrays keep its JSON far below one string
    label and four float64 numbers per bar (the committed 12-01b recording's largest cell: 4,096 bars)."""
    from pathlib import Path

    from flashviz.bench import timeline_dataset as td
    root = Path(__file__).parents[2]
    data = td.load_timeline_dataset(root / "assets/benchmarks/timeline/nvidia-h200-2026-12-01b.json")
    big = max((c for c in data["cells"] if c["status"] == "ok"), key=lambda c: len(c["timeline"]))
    size = len(ch.gantt_figure(big, "en", clock_mhz=1980.0).to_json())
    assert len(big["timeline"]) == 4096 and size < 40 * len(big["timeline"])


def _window_rows(fig) -> list[str]:
    return list(fig.layout.yaxis.ticktext)


def test_window_figure_draws_each_kernels_iterations_from_its_window_start():
    cells = dataset()["cells"][:2]
    panels = [(c, kt.window(c, 2)) for c in cells]
    fig = _valid(ch.window_figure(panels, "en", clock_mhz=2000.0, title="w"))
    rows = _window_rows(fig)
    assert rows == ["fast · warpgroup 0 (warp 0)", "ws · producer (warp 8)", "ws · warpgroup 0 (warp 0)",
                    "ws · warpgroup 1 (warp 4)"]
    length = max(w.end - w.start for _, w in panels)
    assert fig.layout.xaxis.range[1] == pytest.approx(length / 2000.0)
    for tr in fig.data:
        y = set(array(tr.y))
        assert len(y) == 1
        row = rows[y.pop()]
        cell, win = panels[0] if row.startswith("fast") else panels[1]
        warp = int(row.rsplit("warp ", 1)[1].rstrip(")"))
        scope = cell["scopes"].index(tr.meta)
        want = [r for r in cell["timeline"] if r[0] == warp and r[1] == scope and r[2] + r[3] > win.start
                and r[2] < win.start + length]
        np.testing.assert_allclose(array(tr.base), [(r[2] - win.start) / 2000.0 for r in want], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(array(tr.x), [r[3] / 2000.0 for r in want], rtol=1e-6)
    names = [tr.name for tr in fig.data if tr.showlegend is not False]
    assert len(names) == len(set(names))                       # one legend entry per scope label


def test_shares_bars_are_the_recorded_shares_and_the_rest():
    cells = dataset()["cells"]
    fig = _valid(ch.shares_figure(cells, "en"))
    ys = ["fast · warpgroup 0", "ws · warpgroup 0", "ws · warpgroup 1", "ws · producer"]
    want = {}
    for c in cells[:2]:
        for s in c["shares"]:
            want[(f"{c['impl']} · {ch.role_label(s['role'], 'en')}", s["scope"])] = 100 * s["share"]
    by = {tr.meta or tr.name: tr for tr in fig.data}
    assert set(by) == {"load_k", "qk", "softmax", "pv", "tma_kv", t("inside.outside", "en")}
    for name, tr in by.items():
        assert list(tr.y) == ys
        if name == t("inside.outside", "en"):
            continue
        np.testing.assert_allclose(tr.x, [want.get((y, name), 0.0) for y in ys])
    rest = by[t("inside.outside", "en")].x
    for y, r in zip(ys, rest):
        assert r == pytest.approx(100 - sum(v for (yy, _), v in want.items() if yy == y))
    # the error cell (no parsed trace) draws nothing
    assert len(ch.share_rows(cells)) == 4 and ch.share_rows(cells[2:]) == []


def test_unknown_scopes_get_distinct_colours():
    scopes = ["qk", "epilogue", "store"]
    assert ch.scope_color("qk", scopes) == ch.SCOPE_COLORS["qk"]
    assert ch.scope_color("epilogue", scopes) != ch.scope_color("store", scopes)


def test_slot_waits_stand_apart_from_the_rest_and_the_legend_has_room():
    """On the committed ws recording (producer scopes for K and V apart): waiting for a ring slot is not drawn in
    the light grey of "outside any scope", V's scopes are hatched, and each chart's bottom margin holds its legend
    (rows of LEGEND_PER_ROW entries) 70 px under the plot, below the axis title."""
    from pathlib import Path

    from flashviz.bench import timeline_dataset as td
    root = Path(__file__).parents[2]
    data = td.load_timeline_dataset(root / "assets/benchmarks/timeline/nvidia-h200-2026-12-01b.json")
    cells = [c for c in data["cells"] if (c["n"], c["d"], c["causal"]) == (4096, 128, False)]
    ws_cell = next(c for c in cells if c["impl"] == "ws")
    assert {"tma_wait_slot", "tma_wait_slot_v", "tma_issue_v"} <= set(ws_cell["scopes"])
    for fig in (_valid(ch.shares_figure(cells, "en")), _valid(ch.gantt_figure(ws_cell, "en", clock_mhz=1980.0))):
        by = {tr.meta or tr.name: tr for tr in fig.data}
        outside = by.get(t("inside.outside", "en"))
        for name in ("tma_wait_slot", "tma_wait_slot_v"):
            assert by[name].marker.color != (outside.marker.color if outside else ch.P.GREY)
        assert by["tma_wait_slot_v"].marker.pattern.shape == "/" and by["tma_issue_v"].marker.pattern.shape == "/"
        rows = -(-len(fig.data) // ch.LEGEND_PER_ROW)
        plot_h = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
        assert fig.layout.margin.b >= 70 + 22 * rows
        assert fig.layout.legend.y * plot_h == pytest.approx(-70)
