"""The variants charts carry the engine's and the recording's numbers, pass plotly's own validation, and export."""
import json

import numpy as np
import plotly.graph_objects as go
import pytest

from flashviz.charts import export
from flashviz.engine import variants as V
from flashviz.charts import variants as C
from flashviz.engine.online_softmax import make_qkv, variant_trace


def valid(fig):
    go.Figure(fig.to_dict())                                    # plotly's own validation of what was built


def _exports(fig, name):
    item = export.ChartExport(name=name, slug="t", fig=fig, meta={"test": True})
    assert export.to_csv(item) and json.loads(export.to_json(item)) and b"plotly" in export.to_html(item).lower()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_block_map_and_savings(lang):
    v = V.make_variant(causal=True, window=(40, 0), doc_lens=(50, 30, 48))
    c = V.variant_costs(v, 128, 16, 16, 32)
    fig = C.block_map_figure(c["blocks"], lang, label="x")
    valid(fig)
    assert np.array_equal(np.asarray(fig.data[0].z), c["blocks"].kind)
    sav = C.savings_figure(c, lang)
    valid(sav)
    assert np.allclose(sav.data[0].y, [100 * c["executed_flops"] / c["dense_flops"],
                                       100 * c["useful_flops"] / c["dense_flops"],
                                       100 * c["variant_bytes"] / c["dense_bytes"]])
    assert sav.data[0].y[1] <= sav.data[0].y[0] < 100                # useful <= executed < dense
    _exports(fig, "variants_blocks")
    _exports(sav, "variants_savings")


def test_row_figure_shows_the_variant_scores_and_m():
    q, k, v = make_qkv(64, 8, 2)
    plain = variant_trace(q, k, v, 50, 8)
    var = variant_trace(q, k, v, 50, 8, causal=True, window=(20, 0), softcap=0.75)
    fig = C.row_figure(plain, var, "en", softcap=0.75)
    valid(fig)
    shown = np.asarray(fig.data[1].y, dtype=float)
    vis = np.isfinite(var.scores)
    assert np.allclose(shown[vis], var.scores[vis]) and np.isnan(shown[~vis]).all()
    assert list(fig.data[2].x) == list(np.flatnonzero(~vis))
    m = np.asarray(fig.data[3].y, dtype=float)[1::2]                   # m after each tile, at its last key
    assert list(np.asarray(fig.data[3].x)[1::2]) == list(var.stop - 1)
    assert np.allclose(m[np.isfinite(var.m)], var.m[np.isfinite(var.m)]) and np.nanmax(m) <= 0.75
    part = C.row_figure(plain, var, "en", step=2)
    assert len(part.data[3].y) == 6 and len(part.layout.shapes) == len(var.start) - 1 + 1   # tiles 1-3, shaded
    _exports(fig, "variants_row")


def test_gqa_and_measured_figures():
    c = V.variant_costs(V.make_variant(causal=True, heads=32, group=4), 1024, 128, 128, 64, batch=4)
    fig = C.gqa_figure(c, 4, "zh")
    valid(fig)
    assert np.allclose(fig.data[0].y, np.array([c["kv_cache_mha"], c["kv_reads_per_head"]]) / 2 ** 20)
    assert np.allclose(fig.data[1].y, np.array([c["kv_cache_gqa"], c["kv_reads_shared"]]) / 2 ** 20)
    cells = [dict(variant="window", impl="flex", n=64, status="ok", ms=2.0),
             dict(variant="window", impl="sdpa", n=64, status="ok", ms=1.0),
             dict(variant="softcap", impl="sdpa", n=64, status="unavailable", ms=None),
             dict(variant="softcap", impl="flex", n=64, status="ok", ms=3.0)]
    fig = C.measured_figure(cells, "en", n=64)
    valid(fig)
    by = {tr.name: list(tr.y) for tr in fig.data}
    assert by == {"flex": [2.0, 3.0], "sdpa": [1.0, None]}
    _exports(fig, "variants_measured")
