"""AppTest of app.py with the page "Online softmax, tile by tile": what a student clicks, what the page shows."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app_util import clean, run_app

from flashviz.charts.common import fmt_num
from flashviz.online_softmax import online_softmax_trace
from flashviz.ui.config import Config, row_problem

APP = str(Path(__file__).resolve().parents[1] / "app.py")
W = "_w.cfg."                                             # widget keys of the shared configuration


def engine(at: AppTest):
    c = Config(**{f: at.session_state[f"cfg.{f}"] for f in Config.__dataclass_fields__})
    s, v = row_problem(c)
    return online_softmax_trace(s, v, c.tile, guard=c.guard)


def metric(at: AppTest, i: int) -> str:
    return at.metric[i].value


def table(at: AppTest):
    return at.dataframe[0].value


def test_renders_with_defaults():
    at = run_app()
    clean(at)
    assert at.title[0].value == "Online softmax, tile by tile"
    assert any("Step 1 of 4" in m.value for m in at.markdown)
    assert len(at.get("plotly_chart")) == 4
    assert metric(at, 0) == "4 / 16" and metric(at, 1) == "16 / 256" and metric(at, 3) == "—"
    assert len(table(at)) == 1


@pytest.mark.parametrize("tile", [1, 3, 5, 16])
def test_tile_size_sets_the_number_of_steps(tile):
    at = run_app()
    at.number_input(key=W + "block_n").set_value(tile).run()
    clean(at)
    n_steps = math.ceil(16 / tile)
    assert at.session_state["stepper.n_steps"] == n_steps
    if n_steps > 1:
        at.button(key="stepper.last").click().run()
    assert len(table(at)) == n_steps
    assert any(f"Step {n_steps} of {n_steps}" in m.value for m in at.markdown)
    if n_steps > 1:
        assert at.slider(key="_w.stepper.slider").max == n_steps


def test_next_and_previous_move_the_table():
    at = run_app()
    tr = engine(at)
    for want in (2, 3, 2, 1, 2):
        key = "stepper.next" if want > len(table(at)) else "stepper.prev"
        at.button(key=key).click().run()
        df = table(at)
        assert len(df) == want
        last = df.iloc[-1]                                 # what the page shows: the engine's values, 4 decimals
        assert (last["m"], last["α"], last["ℓ"]) == tuple(fmt_num(a[want - 1]) for a in (tr.m, tr.alpha, tr.l))
        assert float(last["ℓ"]) == pytest.approx(tr.l[want - 1], abs=5e-5)


def test_slider_scrubs_and_step_survives_reruns():
    at = run_app()
    at.slider(key="_w.stepper.slider").set_value(3).run()
    assert len(table(at)) == 3
    at.run().run()
    assert len(table(at)) == 3 and at.session_state["stepper.step"] == 2


def test_last_step_error_is_zero():
    at = run_app()
    at.button(key="stepper.last").click().run()
    clean(at)
    tr = engine(at)
    assert float(metric(at, 3)) < 1e-12 and metric(at, 3) == f"{tr.error(tr.steps - 1):.2e}"
    assert int(metric(at, 2)) == int(engine(at).rescaled.sum())


BAD = [
    ("scores", "1, abc", "is not a number"),
    ("scores", "nan", "NaN"),
    ("block_n", 0, "tile size must be between 1 and N = 16, got 0"),
    ("block_n", -3, "tile size must be between 1 and N = 16, got -3"),
    ("block_n", 17, "tile size must be between 1 and N = 16, got 17"),
    ("n", 0, "N must be between 1 and 16384"),
    ("n", 20000, "N must be between 1 and 16384"),
    ("d", 0, "head dim d must be between 1 and 256"),
    ("masked", "0-99", "outside 0..15"),
    ("masked", "x", "not a position"),
    ("row", 16, "query row must be in 0..15"),
    ("seed", -1, "seed must be 0 or more"),
]


@pytest.mark.parametrize("field, value, message", BAD, ids=[f"{f}={v}" for f, v, _ in BAD])
def test_bad_input_shows_the_engine_message_and_recovers(field, value, message):
    at = run_app()
    widget = at.text_input(key=W + field) if isinstance(value, str) else at.number_input(key=W + field)
    good = widget.value
    widget.set_value(value).run()
    assert not at.exception
    assert len(at.error) == 1 and message in at.error[0].value
    assert not at.get("plotly_chart")
    widget = at.text_input(key=W + field) if isinstance(value, str) else at.number_input(key=W + field)
    widget.set_value(good).run()
    clean(at)
    assert len(at.get("plotly_chart")) == 4


def test_typed_scores_replace_the_row():
    at = run_app()
    at.text_input(key=W + "scores").set_value("0.86, 0.45, 1.45, 0.10, -inf").run()
    clean(at)
    assert at.session_state["stepper.n_steps"] == 2
    at.button(key="stepper.last").click().run()
    assert float(metric(at, 3)) < 1e-12 and metric(at, 0) == "1 / 5"


def test_guard_off_with_a_fully_masked_first_tile_shows_nan():
    at = run_app()
    at.button(key="stepper.pitfall").click().run()
    assert not at.exception
    assert at.session_state["cfg.guard"] is False and at.session_state["cfg.masked"] == "0-3"
    assert any("NaN" in e.value and "exp(−∞ − (−∞))" in e.value for e in at.error)
    assert table(at).iloc[0]["ℓ"] == "NaN" and table(at).iloc[0]["α"] == "NaN" and table(at).iloc[0]["m"] == "−∞"
    at.button(key="stepper.last").click().run()
    assert metric(at, 3) == "NaN"
    at.toggle(key=W + "guard").set_value(True).run()          # the guard repairs it
    clean(at)
    assert float(metric(at, 3)) < 1e-12
    assert any("guard handles it" in i.value for i in at.info)


def test_try_tile_one_gives_more_steps_and_rescales():
    at = run_app()
    at.button(key="stepper.last").click().run()
    rescales4 = int(metric(at, 2))
    at.button(key="stepper.tile1").click().run()
    at.button(key="stepper.last").click().run()
    clean(at)
    assert at.session_state["stepper.n_steps"] == 16 and float(metric(at, 3)) < 1e-12
    assert int(metric(at, 2)) > rescales4


def test_preset_writes_the_shared_config():
    at = run_app()
    at.selectbox(key="_w.preset").set_value("long").run()
    clean(at)
    assert at.session_state["cfg.n"] == 4096 and at.session_state["cfg.block_n"] == 64
    assert at.number_input(key=W + "n").value == 4096 and at.session_state["stepper.n_steps"] == 64
    assert at.selectbox(key="_w.preset").value is None          # back to the placeholder


def test_changing_n_moves_the_default_row_and_clamps_the_step():
    at = run_app()
    at.button(key="stepper.last").click().run()
    at.number_input(key=W + "n").set_value(8).run()
    clean(at)
    assert at.session_state["cfg.row"] == 7 and at.session_state["stepper.n_steps"] == 2
    assert at.session_state["stepper.step"] == 1


def test_config_persists_across_reruns():
    at = run_app()
    at.number_input(key=W + "n").set_value(32).run()
    at.number_input(key=W + "block_n").set_value(8).run()
    at.toggle(key=W + "causal").set_value(True).run()
    at.button(key="stepper.next").click().run()
    for _ in range(3):
        at.run()
    clean(at)
    assert [at.session_state[f"cfg.{k}"] for k in ("n", "block_n", "causal", "row")] == [32, 8, True, 31]
    assert at.number_input(key=W + "n").value == 32 and at.session_state["stepper.step"] == 1


PAGE_SWITCH = '''
import streamlit as st
from flashviz.ui import state
state.init()
fields = state.ALL_FIELDS if st.session_state.get("show_all", True) else ("n",)
cfg = state.config_sidebar("en", fields=fields)
st.write(repr(cfg))
'''


def test_canonical_values_survive_pages_that_hide_widgets():
    """What a page switch does: the other page does not draw some widgets, Streamlit drops their state."""
    at = AppTest.from_string(PAGE_SWITCH, default_timeout=30).run()
    at.number_input(key=W + "d").set_value(8).run()
    at.selectbox(key=W + "dtype").set_value("bfloat16").run()
    at.number_input(key=W + "block_m").set_value(16).run()
    at.session_state["show_all"] = False
    at.run().run()                                          # two runs without those widgets
    assert W + "d" not in at.session_state or at.session_state[W + "d"] == 8
    at.session_state["show_all"] = True
    at.run()
    assert not at.exception
    assert at.number_input(key=W + "d").value == 8 and at.selectbox(key=W + "dtype").value == "bfloat16"
    assert at.number_input(key=W + "block_m").value == 16
    assert "d=8" in at.markdown[0].value and "block_m=16" in at.markdown[0].value


def test_language_switch_renders_chinese():
    at = run_app()
    at.segmented_control(key="_w.lang").set_value("zh").run()
    assert not at.exception
    assert at.title[0].value == "在线 softmax，逐块推进"
    assert at.button(key="stepper.next").label == "下一步"
    assert any("第 1 / 4 步" in m.value for m in at.markdown)
    assert at.metric[2].label == "目前的重缩放次数"
    assert at.query_params.get("lang") == "zh"


@pytest.mark.parametrize("how", ["query", "locale"])
def test_language_defaults_from_query_or_browser(how):
    at = AppTest.from_file(APP, default_timeout=30)
    if how == "query":
        at.query_params["lang"] = "zh"
    else:
        at.context["locale"] = "zh-CN"
    at.run()
    assert at.title[0].value == "在线 softmax，逐块推进"


def test_autoplay_from_the_end_starts_over_and_tick_stops_at_the_end():
    at = run_app()
    at.button(key="stepper.last").click().run()
    at.toggle(key="_w.stepper.play").set_value(True).run()
    assert not at.exception
    assert at.session_state["stepper.play"] is True and at.session_state["stepper.step"] == 0
    at.segmented_control(key="_w.stepper.speed").set_value(0.5).run()
    assert at.session_state["stepper.speed"] == 0.5
    at.toggle(key="_w.stepper.play").set_value(False).run()
    assert at.session_state["stepper.play"] is False


TICK = '''
import streamlit as st
from flashviz.ui import steps
st.session_state.setdefault("stepper.step", 0)
st.session_state["stepper.play"] = True
st.markdown(f'{steps.tick("stepper", 3)} {st.session_state["stepper.step"]} {st.session_state["stepper.play"]}')
'''


def test_tick_advances_then_stops():
    at = AppTest.from_string(TICK).run()
    assert at.markdown[0].value.split() == ["True", "1", "True"]
    at.run()
    at.run()
    assert at.markdown[0].value.split() == ["False", "2", "False"]


def test_kernel_panel_hook_is_there():
    from flashviz.ui import stepper
    assert callable(stepper.kernel_panel)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_inputs_are_rounded_like_torch(dtype):
    """The simulator reads the same q, K, V a kernel in that dtype reads (torch's rounding)."""
    import torch

    from flashviz.online_softmax import make_qkv
    from flashviz.ui.config import inputs

    cfg = Config(n=64, d=8, seed=5, dtype=dtype)
    for ours, raw in zip(inputs(cfg), make_qkv(64, 8, 5)):
        want = torch.from_numpy(raw).to(getattr(torch, dtype)).double().numpy()
        np.testing.assert_array_equal(ours, want)


def test_slug_names_the_configuration():
    assert Config().slug() == "N16_d4_Br4_Bc4_fp32_seed12_row15"
    assert Config(causal=True, guard=False, dtype="bfloat16").slug().endswith("bf16_seed12_row15_causal_noguard")


def test_a_bug_in_an_optional_panel_is_a_message_not_a_traceback(monkeypatch):
    from flashviz.ui import stepper

    def broken(cfg, tr, lang):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(stepper, "kernel_panel", broken)
    at = run_app()
    assert not at.exception
    assert len(at.error) == 1 and "kernel exploded" in at.error[0].value and "RuntimeError" in at.error[0].value
    assert len(at.get("plotly_chart")) == 4                 # the rest of the page is intact
