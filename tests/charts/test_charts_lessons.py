"""Chart builders of the hardware and connecting lessons (charts/roofline.py, charts/lessons.py) carry the
engines' numbers; every figure re-validates as a plotly Figure; labels exist in English and Chinese."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from flashviz.charts import lessons as L, roofline as R
from flashviz.engine.hardware import gpu
from flashviz.i18n import t
from flashviz.engine.lessons import ALIGNS, alignment_blocks, size_examples, unfused_stages
from flashviz.engine.roofline import attainable, model_points
from flashviz.engine.tiling import make_config


def valid(fig) -> go.Figure:
    go.Figure(fig.to_dict())                              # plotly's own validation of every property
    return fig


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_roofline_roofs_points_and_measurements(lang):
    cfg = make_config(1024, 64, br=64, bc=64, elem_bytes=2)
    pts = model_points(cfg)
    # recorded speeds at the intensity of measured bytes (roofline.measured_bytes_points)
    measured = [dict(impl="fast", dtype="float16", batch=4, heads=32, intensity=512.0, bytes_per_head=1.0e6,
                     achieved=211e12, ms=0.16),
                dict(impl="naive", dtype="float16", batch=4, heads=32, intensity=pts["standard"].intensity,
                     bytes_per_head=4.0e6, achieved=88e12, ms=0.39)]
    fig = valid(R.roofline_figure("H100", pts, measured, lang))
    g = gpu("H100")
    roof = fig.data[0]
    ridge = g["peak_fp16"] / g["hbm_bw"]
    assert roof.x[1] == pytest.approx(ridge)
    np.testing.assert_allclose(roof.y, np.minimum(g["peak_fp16"], g["hbm_bw"] * np.asarray(roof.x)) / 1e12)
    assert roof.x[0] < min(p.intensity for p in pts.values()) and roof.x[-1] > ridge
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "log"
    for algo in ("standard", "fa1", "fa2"):
        tr = next(d for d in fig.data if d.name == t(f"hardware.algo_{algo}", lang))
        assert tr.x[0] == pts[algo].intensity
        assert tr.y[0] == pytest.approx(attainable("H100", pts[algo].intensity) / 1e12)
    fast = next(d for d in fig.data if d.name == t("hardware.measured", lang, impl=R.impl_label("fast", lang)))
    assert (fast.x[0], fast.y[0]) == (512.0, 211.0)
    assert t("hardware.roofline_title", lang, gpu=g["name"]) == fig.layout.title.text


def test_roofline_moves_with_n_d_and_blocks():
    a = valid(R.roofline_figure("A100", model_points(make_config(1024, 64, br=64, bc=64, elem_bytes=2)), []))
    b = valid(R.roofline_figure("A100", model_points(make_config(4096, 128, br=128, bc=64, elem_bytes=2)), []))
    fa2 = t("hardware.algo_fa2", "en")
    xa = next(d for d in a.data if d.name == fa2).x[0]
    xb = next(d for d in b.data if d.name == fa2).x[0]
    assert xb > xa


def test_hbm_bytes_figure():
    rows = [dict(impl="naive", formula=2.2e9, measured=2.19e9, measured_reads=1.1e9, measured_writes=1.09e9),
            dict(impl="fast", formula=5.4e8, measured=3.4e7, measured_reads=2.5e7, measured_writes=9e6)]
    fig = valid(R.hbm_bytes_figure(rows, "zh"))
    assert list(fig.data[0].y) == [2200.0, 540.0] and list(fig.data[1].y) == [2190.0, 34.0]
    assert fig.data[1].customdata[1][0] == pytest.approx(25.0)
    assert fig.data[0].name == t("hardware.bytes_formula", "zh")


@pytest.mark.parametrize("nq, nk, br, bc", [(8, 16, 4, 4), (16, 8, 4, 3), (7, 7, 2, 3)])
def test_alignment_figure_draws_the_engines_blocks(nq, nk, br, bc):
    fig = valid(L.alignment_figure(nq, nk, br, bc, "en"))
    for k, align in enumerate(ALIGNS):
        np.testing.assert_array_equal(np.asarray(fig.data[k].z), alignment_blocks(nq, nk, br, bc, align))
        line = fig.data[2 + k]
        off = nk - nq if align == "bottom_right" else 0
        assert line.x[0] == pytest.approx(off / bc - 0.5) and line.y[1] == pytest.approx(nq / br - 0.5)
    assert fig.data[0].xaxis == "x" and fig.data[1].xaxis == "x2"
    assert {d.name for d in fig.data} >= {t("lessons.kind_full"), t("lessons.kind_partial"), t("lessons.kind_empty")}
    assert [a.text for a in fig.layout.annotations] == [t(f"lessons.align_{a}") for a in ALIGNS]


def test_sizes_and_fusion_figures():
    rows = size_examples()
    fig = valid(L.sizes_figure(rows, "zh"))
    assert list(fig.data[0].y) == [r["scores"] for r in rows] and list(fig.data[1].y) == [r["kept"] for r in rows]
    assert fig.data[0].text[0] == "8 MiB" and fig.data[0].text[2] == "256 GiB"
    assert fig.layout.yaxis.type == "log"
    stages = unfused_stages(1024, 64, 2, mask=True, dropout=True)
    fig = valid(L.fusion_figure(stages, 4_460_544, "en"))
    assert list(fig.data[0].y) == [s["reads"] / 1e6 for s in stages]
    assert list(fig.data[1].y) == [s["writes"] / 1e6 for s in stages]
    assert list(fig.data[2].y) == [4.460544]
    total = sum(s["reads"] + s["writes"] for s in stages) / 1e6
    assert f"{total:,.2f}" in fig.layout.title.text
    assert list(fig.data[0].x) == [t(f"lessons.stage_{s['stage']}") for s in stages]
