"""The stepper's chart builders: the right data at the right step, valid Plotly, palette colours, translated."""
from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go
import pytest

from flashviz.charts import palette as P
from flashviz.charts import stepper as C
from flashviz.charts.common import plotly_config
from flashviz.engine.online_softmax import online_softmax_trace
from flashviz.ui.config import Config, PRESETS, row_problem, with_preset

BUILDERS = (C.strip_figure, C.recurrence_figure, C.accumulator_figure, C.error_figure)


def trace(cfg: Config = Config()):
    s, v = row_problem(cfg)
    return online_softmax_trace(s, v, cfg.tile, guard=cfg.guard)


def arr(x) -> np.ndarray:
    """A trace array as numpy, whether stored as an array, a tuple, or plotly 7's {dtype, bdata}."""
    if isinstance(x, dict) and "bdata" in x:
        return np.frombuffer(base64.b64decode(x["bdata"]), dtype=np.dtype(x["dtype"]))
    return np.asarray(x, dtype=np.float64)


def test_every_builder_is_valid_plotly_in_both_languages():
    tr = trace()
    for build in BUILDERS:
        for step in (0, tr.steps - 1):
            en, zh = build(tr, step, "en"), build(tr, step, "zh")
            go.Figure(en.to_dict())                       # re-validate what was built without validation
            go.Figure(zh.to_dict())
            assert en.layout.title.text != zh.layout.title.text
            assert any("\u4e00" <= ch <= "\u9fff" for ch in zh.layout.title.text)


def test_strip_states_and_masked_keys():
    tr = trace(with_preset(Config(), "masked_tile"))      # causal row 9, keys 0-3 masked, tile 4
    fig = C.strip_figure(tr, 1, "en")                     # tile 2 = keys 4..7 on chip
    states = np.asarray(fig.data[0].z[0])
    assert list(states[:4]) == [C.DISCARDED] * 4 and list(states[4:8]) == [C.ON_CHIP] * 4
    assert (states[8:] == C.NOT_LOADED).all()
    assert list(arr(fig.data[4].x)) == [0, 1, 2, 3, *range(10, 16)]     # the crossed (masked) keys
    colors = {c for _, c in fig.data[0].colorscale}
    assert colors == {P.GREY, P.ORANGE, P.DARK_GREY}
    assert [d.marker.color for d in fig.data[1:4]] == [P.GREY, P.ORANGE, P.DARK_GREY]


def test_strip_numbers_for_small_rows_only():
    small = C.strip_figure(trace(), 0, "en")
    texts = [a.text for a in small.layout.annotations]
    assert f"{trace().scores[0]:.2f}" in texts and "—" in texts        # loaded keys show scores, others a dash
    big = C.strip_figure(trace(Config(n=4096, block_n=64, row=4095)), 3, "en")
    assert len(big.layout.annotations) == 1 and big.data[0].customdata is None


@pytest.mark.parametrize("step", [0, 1, 3])
def test_recurrence_series_match_engine(step):
    tr = trace()
    fig = C.recurrence_figure(tr, step, "en")
    k = step + 1
    np.testing.assert_array_equal(arr(fig.data[0].y), tr.m[:k])
    np.testing.assert_array_equal(arr(fig.data[2].y), tr.alpha[:k])
    np.testing.assert_array_equal(arr(fig.data[4].y), tr.l[:k])
    np.testing.assert_array_equal(arr(fig.data[6].x), np.flatnonzero(tr.rescaled[:k]) + 1)
    assert fig.data[6].marker.color == P.VERMILLION
    assert fig.layout.shapes[0].x0 == k                      # the current step is marked


def test_accumulator_and_exact_marker():
    tr = trace()
    for step in range(tr.steps):
        fig = C.accumulator_figure(tr, step, "en")
        np.testing.assert_array_equal(arr(fig.data[0].y), tr.o_normalised[step])
        np.testing.assert_array_equal(arr(fig.data[1].y), tr.exact)
        assert fig.data[1].marker.color == P.GREEN
    last = arr(C.accumulator_figure(tr, tr.steps - 1, "en").data[0].y)
    assert np.max(np.abs(last - tr.exact)) < 1e-12          # converged at the last tile


def test_error_curve():
    tr = trace()
    fig = C.error_figure(tr, tr.steps - 1, "en")
    err = arr(fig.data[0].customdata)
    np.testing.assert_allclose(err, [tr.error(i) for i in range(tr.steps)])
    assert err[-1] < 1e-12 and err[0] > 1e-3
    assert (arr(fig.data[0].y) >= C.ERR_FLOOR).all()


def test_nan_pitfall_is_labelled():
    tr = trace(Config(**{**PRESETS["masked_tile"], "guard": False}))   # first tile masked, guard off
    assert np.isnan(tr.l).all()
    rec = C.recurrence_figure(tr, 1, "en")
    assert "NaN" in list(rec.data[5].text)                   # α's marks
    assert list(rec.data[1].text)[0] == "−∞"                 # m is −∞ after the masked first tile
    acc = C.accumulator_figure(tr, 1, "en")
    assert set(acc.data[2].text) == {"NaN"}


def test_plotly_config_for_export():
    png = plotly_config("flashviz_strip_N16 d4", "png", height=360)
    opts = png["toImageButtonOptions"]
    assert opts["format"] == "png" and opts["filename"] == "flashviz_strip_N16_d4"
    assert opts["width"] == 1280 and opts["height"] == 360 and opts["scale"] == 2
    assert plotly_config("x", "svg")["toImageButtonOptions"]["format"] == "svg"
    assert png["displaylogo"] is False
    with pytest.raises(ValueError):
        plotly_config("x", "gif")
