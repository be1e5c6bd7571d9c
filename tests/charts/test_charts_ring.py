"""The ring charts carry the simulation's and the recording's numbers (checked against the engine and the cells)."""
import numpy as np
import plotly.graph_objects as go
import pytest

from flashviz.engine import ring
from flashviz.charts import ring as C
from flashviz.charts import ring_measured as M
from flashviz.i18n import t
from flashviz.engine.online_softmax import make_qkv


def sim(world=4, layout="zigzag", causal=True, chunk=3, row=1):
    n = chunk * world * (2 if layout == "zigzag" else 1)
    return ring.simulate(*make_qkv(n, 4, 7), world, layout, causal, row)


def valid(fig):
    go.Figure(fig.to_dict())                                    # plotly's own validation of what was built


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("layout,causal", [("contiguous", True), ("zigzag", True), ("contiguous", False)])
def test_ring_figure_marks_held_blocks_work_and_transfers(lang, layout, causal):
    s = sim(4, layout, causal)
    for step in range(4):
        fig = C.ring_figure(s, step, lang)
        valid(fig)
        cd = np.asarray(fig.data[0].customdata)
        assert np.array_equal(cd[:, 1], s.held[step]) and np.array_equal(cd[:, 2], s.work[step])
        assert list(fig.data[0].marker.color) == [C.BUSY if w > 0 else C.IDLE for w in s.work[step]]
        arrows = [a for a in fig.layout.annotations if a.showarrow]
        assert len(arrows) == (4 if step < 3 else 0)           # the last step sends nothing
        sending = [a.text for a in fig.layout.annotations if not a.showarrow and "K/V" in a.text
                   and "<br>" not in a.text]
        assert sorted(sending) == sorted(t("ring.sending", lang, src=int(h)) for h in s.held[step]) * (step < 3)


def test_ring_figure_single_device():
    fig = C.ring_figure(sim(1, "contiguous", True, chunk=4, row=0), 0)
    assert len(fig.data[0].x) == 1 and not [a for a in fig.layout.annotations if a.showarrow]


def test_matrix_and_state_figures():
    s = sim()
    for step in range(s.world):
        fig = C.matrix_figure(s, step)
        valid(fig)
        assert np.array_equal(np.asarray(fig.data[0].z), ring.matrix_states(s.world, s.n, s.layout, True, step))
        assert np.array_equal(np.asarray(fig.data[1].z)[:, 0], ring.owner(s.world, s.n, s.layout))
        assert sorted(sh.y0 + 0.5 for sh in fig.layout.shapes) == sorted(s.tracked.tolist())
        st = C.state_figure(s, step)
        valid(st)
        lines = [tr for tr in st.data if tr.mode == "lines+markers"]
        for r in range(s.world):
            m_line, l_line = lines[2 * r], lines[2 * r + 1]
            assert np.allclose(np.asarray(m_line.y, dtype=float), s.m[: step + 1, r])
            assert np.allclose(np.asarray(l_line.y, dtype=float), s.l[: step + 1, r])
        singles = [tr for tr in st.data if tr.mode == "markers"]
        assert [tr.y[0] for tr in singles] == [v for r in range(s.world) for v in (s.single[r].m, s.single[r].l)]


def test_work_figure_and_titles():
    wc, wz = ring.work_table(4, 48, "contiguous", True), ring.work_table(4, 48, "zigzag", True)
    fig = C.work_figure(wc, wz, "en")
    valid(fig)
    assert np.array_equal(np.asarray(fig.data[0].z), wc) and np.array_equal(np.asarray(fig.data[1].z), wz)
    ic = ring.imbalance(wc)
    assert fig.layout.annotations[0].text == t("ring.work_panel", "en", layout="contiguous", idle=ic["idle"],
                                               ratio=f"{ic['critical_over_ideal']:.2f}")
    assert sum(row.count("idle") for row in fig.data[0].text) == ic["idle"] == 6


def test_timeline_figure_bars_are_the_model():
    tl = ring.timeline(4, 65536, "contiguous", True, batch=1, heads=32, d=128, elem_bytes=2)
    fig = C.timeline_figure(tl)
    valid(fig)
    comp, xfer = fig.data[0], fig.data[1]
    busy = tl.compute > 0
    assert np.allclose(sorted(comp.x), sorted(tl.compute[busy] * 1e3))
    assert np.allclose(sorted(comp.base), sorted(tl.start[busy] * 1e3))
    assert len(comp.x) == busy.sum() == 16 - 6                  # 6 idle (GPU, step) slots skipped
    assert np.allclose(xfer.x, ((tl.xfer_end - tl.xfer_start) * 1e3).ravel())
    assert fig.layout.shapes[0].x0 == pytest.approx(tl.total_s * 1e3)


# ----------------------------------------------------------------------------- the recorded measurement

def cell(n, world, layout, causal, mode, ms, **kw):
    base = dict(n=n, world=world, layout=layout, causal=causal, mode=mode, status="ok", ms=ms, ms_p20=ms, ms_p80=ms,
                reps=3, ms_compute=None, ms_comm=None, hidden=None, peak_bytes=None, input_bytes=3 * n, step_bytes=0)
    base.update(kw)
    return base


CELLS = [cell(1024, 1, "contiguous", True, "fwd", 8.0, peak_bytes=2 * 2 ** 30),
         cell(2048, 1, "contiguous", True, "fwd", 30.0, peak_bytes=4 * 2 ** 30),
         cell(1024, 2, "zigzag", True, "fwd", 4.5, ms_compute=4.2, ms_comm=1.0, hidden=0.7, peak_bytes=2 ** 30),
         cell(2048, 2, "zigzag", True, "fwd", 15.5, ms_compute=15.3, ms_comm=2.0, hidden=0.9, peak_bytes=2 ** 31),
         cell(2048, 2, "contiguous", True, "fwd", 22.0, ms_compute=21.0, ms_comm=2.0, hidden=0.5),
         dict(cell(1024, 2, "contiguous", True, "fwd", None), status="skipped"),
         cell(2048, 1, "contiguous", False, "fwd", 50.0)]


def test_series_and_speedups():
    g = M.series(CELLS, "fwd", True)
    assert list(g) == [(1, "single"), (2, "contiguous"), (2, "zigzag")]
    assert [c["n"] for c in g[(2, "contiguous")]] == [2048]            # the skipped cell is left out
    sp = M.speedups(CELLS, "fwd", True)
    assert sp[(2, "zigzag")] == [(1024, 8.0 / 4.5), (2048, 30.0 / 15.5)]
    assert sp[(2, "contiguous")] == [(2048, 30.0 / 22.0)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_measured_figures(lang):
    kw = dict(mode="fwd", causal=True)
    for fn in (M.time_figure, M.speedup_figure, M.overlap_figure, M.memory_figure):
        valid(fn(CELLS, lang, **kw))
    tf = M.time_figure(CELLS, lang, **kw)
    by = {tr.name: tr for tr in tf.data}
    assert list(by[t("ring.m_single", lang)].y) == [8.0, 30.0]
    sf = M.speedup_figure(CELLS, lang, **kw)
    z = next(tr for tr in sf.data if tr.name == M.label((2, "zigzag"), lang))
    assert list(z.y) == [8.0 / 4.5, 30.0 / 15.5]
    assert [s.y0 for s in sf.layout.shapes] == [2]                     # the ideal 2x line
    of = M.overlap_figure(CELLS, lang, **kw)
    by = {tr.name: tr for tr in of.data}
    zl = M.label((2, "zigzag"), lang)
    assert np.allclose(by[t("ring.m_comm_series", lang, what=zl)].y, [100 * 1.0 / 4.2, 100 * 2.0 / 15.3])
    assert np.allclose(by[t("ring.m_exposed_series", lang, what=zl)].y, [100 * 0.3 / 4.2, 100 * 0.2 / 15.3])
    assert len(of.data) == 4                                           # (transfers, exposed) x (contiguous, zigzag)
    mf = M.memory_figure(CELLS, lang, **kw)
    z = next(tr for tr in mf.data if tr.name == M.label((2, "zigzag"), lang))
    assert list(z.y) == [1.0, 2.0]
    assert not [tr for tr in mf.data if tr.name == M.label((2, "contiguous"), lang)]   # no peak recorded: no line


def test_overlap_rows_keep_negative_exposed_times_and_the_noise():
    """Exposed = t - t_compute is drawn as measured, below zero too; the error bars are the ring's p20..p80."""
    cells = [cell(4096, 1, "contiguous", False, "fwd", 20.0),
             cell(4096, 2, "zigzag", False, "fwd", 10.0, ms_p20=9.5, ms_p80=10.8, ms_compute=10.2, ms_comm=0.3,
                  hidden=1 - (10.0 - 10.2) / 0.3),
             cell(8192, 2, "zigzag", False, "fwd", 40.0, ms_compute=39.0, ms_comm=0.5, hidden=-1.0)]
    rows = M.overlap_rows(cells, "fwd", False)
    assert [(r["n"], r["world"], r["layout"]) for r in rows] == [(4096, 2, "zigzag"), (8192, 2, "zigzag")]
    r = rows[0]
    assert r["exposed"] == pytest.approx(-0.2) and r["exposed_pct"] == pytest.approx(-0.2 / 10.2 * 100)
    assert r["comm_pct"] == pytest.approx(0.3 / 10.2 * 100) and r["spread_pct"] == pytest.approx(1.3 / 10.0 * 100)
    assert rows[1]["spread_pct"] == 0 and rows[1]["exposed"] == pytest.approx(1.0)
    fig = M.overlap_figure(cells, "en", mode="fwd", causal=False)
    valid(fig)
    exp = fig.data[1]
    assert np.allclose(exp.y, [-0.2 / 10.2 * 100, 1.0 / 39.0 * 100])           # not clipped at 0
    assert np.allclose(exp.error_y.arrayminus, [0.5 / 10.2 * 100, 0])
    assert np.allclose(exp.error_y.array, [0.8 / 10.2 * 100, 0])
    assert all("hidden" not in tr.name.lower() for tr in fig.data)
    assert M.overlap_rows(cells, "fwd", True) == [] and not M.overlap_figure(cells, "en", mode="fwd", causal=True).data


def test_overlap_rows_of_a_recording_with_timed_waits():
    """Schema 2: the exposed time is the timed wait, the compute is the ring's time minus it, the hidden share
    1 - waits / transfers alone; no error bars (a timed wait is not a difference of two totals)."""
    cells = [cell(1024, 1, "contiguous", True, "fwd", 8.0),
             cell(1024, 2, "zigzag", True, "fwd", 4.5, ms_comm=1.0, ms_exposed=0.25, hidden=0.75),
             cell(2048, 2, "zigzag", True, "fwd", 15.5, ms_comm=2.0, ms_exposed=0.0, hidden=1.0)]
    rows = M.overlap_rows(cells, "fwd", True)
    assert [(r["n"], r["direct"]) for r in rows] == [(1024, True), (2048, True)]
    assert [r["ms_compute"] for r in rows] == [4.25, 15.5]
    assert [r["hidden"] for r in rows] == pytest.approx([0.75, 1.0])
    assert [r["comm_pct"] for r in rows] == pytest.approx([100 / 4.25, 200 / 15.5])
    fig = M.overlap_figure(cells, "en", mode="fwd", causal=True)
    ex = [tr for tr in fig.data if tr.name == t("ring.m_exposed_series_direct", "en", what=M.label((2, "zigzag"), "en"))]
    assert len(ex) == 1 and list(ex[0].y) == pytest.approx([100 * 0.25 / 4.25, 0.0])
    assert not any(ex[0].error_y.array) and fig.layout.yaxis.title.text == t("ring.axis_pct_compute_direct", "en")
