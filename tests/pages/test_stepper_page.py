"""AppTest of app.py with the page "Online softmax, tile by tile": what a student changes on the server and what the
page sends the browser (the stepper's payload: every step of the engine's trace, flashviz/charts/stepper_payload.py).
What the browser does with it is tests/browser/'s."""
from __future__ import annotations

import base64
import json
import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from helpers.app import clean, run_app

from flashviz.charts.common import fmt_num
from flashviz.engine.online_softmax import online_softmax_trace
from flashviz.ui.config import Config, row_problem

APP = str(Path(__file__).resolve().parents[2] / "app.py")
W = "_w.cfg."                                             # widget keys of the shared configuration


def engine(at: AppTest, form: str = "fa2"):
    c = Config(**{f: at.session_state[f"cfg.{f}"] for f in Config.__dataclass_fields__})
    s, v = row_problem(c)
    return online_softmax_trace(s, v, c.tile, guard=c.guard, form=form)


def parts(at: AppTest) -> list[dict]:
    """The stepper component's parts on the page: each one's header (and, for the main part, its payload)."""
    out = []
    for el in at.get("bidi_component"):
        head, _, body = el.proto.bytes.partition(b"\n")
        out.append({"head": json.loads(head), "payload": json.loads(body) if body else None})
    return out


def payload(at: AppTest) -> dict:
    [main] = [p for p in parts(at) if p["head"]["part"] == "main"]
    doc = main["payload"]
    doc["a"] = {k: np.frombuffer(base64.b64decode(v), dtype="<f8") for k, v in doc["arrays"].items()}
    doc["head"] = main["head"]
    return doc


def test_renders_with_defaults():
    at = run_app()
    clean(at)
    assert at.title[0].value == "Online softmax, tile by tile"
    assert [p["head"]["part"] for p in parts(at)] == ["main", "formula", "acc"]
    assert not at.get("plotly_chart")                         # the stepper draws its charts in the browser
    doc = payload(at)
    assert (doc["n"], doc["d"], doc["tile"], doc["steps"]) == (16, 4, 4, 4)
    assert at.session_state["stepper.n_steps"] == 4


def test_the_payload_carries_every_step_of_the_engine_exactly():
    """Bit for bit: what the browser steps through is the engine's trace (FA2 and Algorithm 1), float64."""
    at = run_app(n=37, d=6, block_n=5, seed=4, row=20, causal=True)
    clean(at)
    fa2, fa1, doc = engine(at), engine(at, "fa1"), payload(at)
    a = doc["a"]
    assert doc["steps"] == fa2.steps == 8 and doc["ds"] == 4 and doc["dk"] == 6
    for name in ("m", "alpha", "l", "tile_max", "tile_sum"):
        np.testing.assert_array_equal(a[name], getattr(fa2, name))
    np.testing.assert_array_equal(a["scores"], fa2.scores)                   # −∞ where masked survives
    np.testing.assert_array_equal(a["rescaled"], fa2.rescaled.astype(float))
    np.testing.assert_array_equal(a["o_norm"].reshape(8, 6), fa2.o_normalised)
    np.testing.assert_array_equal(a["o2"].reshape(8, 4), fa2.o[:, :4])
    np.testing.assert_array_equal(a["o1"].reshape(8, 4), fa1.o[:, :4])
    np.testing.assert_array_equal(a["pv"].reshape(8, 4), fa2.tile_pv[:, :4])
    np.testing.assert_array_equal(a["err"], [fa2.error(k) for k in range(8)])
    np.testing.assert_array_equal(a["gap"], np.abs(fa2.o_normalised - fa1.o_normalised).max(axis=1))
    assert a["fin"].tolist() == [float(np.max(np.abs(x.output - x.exact))) for x in (fa2, fa1)]


@pytest.mark.parametrize("tile", [1, 3, 5, 16])
def test_tile_size_sets_the_number_of_steps(tile):
    at = run_app()
    at.number_input(key=W + "block_n").set_value(tile).run()
    clean(at)
    n_steps = math.ceil(16 / tile)
    assert at.session_state["stepper.n_steps"] == n_steps == payload(at)["steps"]
    assert any(f"Bc = {tile} → Tc = {n_steps} steps" in c.value for c in at.caption)


def test_the_part_headers_name_the_main_payload():
    """The formula and accumulator parts carry only the id of the payload the main part brings (sent once)."""
    at = run_app()
    ps = parts(at)
    assert {p["head"]["id"] for p in ps} == {payload(at)["id"]}
    assert all(p["payload"] is None for p in ps[1:])
    at.number_input(key=W + "seed").set_value(13).run()
    assert {p["head"]["id"] for p in parts(at)} == {payload(at)["id"]} != {ps[0]["head"]["id"]}


def test_plotly_js_is_served_from_the_installed_package():
    """The page loads plotly.js from this server (the installed package's copy), never from a CDN."""
    import gzip

    import plotly

    from flashviz import client
    at = run_app()
    src = parts(at)[0]["head"]["plotly"]
    assert src["gz"].startswith("/component/") and src["js"].startswith("/component/")
    folder, gz, plain = client.plotly_assets()
    assert src["gz"].endswith("/" + gz) and src["js"].endswith("/" + plain)
    original = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()
    assert gzip.decompress((folder / gz).read_bytes()) == original == (folder / plain).read_bytes()


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
    assert not at.get("bidi_component")
    widget = at.text_input(key=W + field) if isinstance(value, str) else at.number_input(key=W + field)
    widget.set_value(good).run()
    clean(at)
    assert len(at.get("bidi_component")) == 3


def test_typed_scores_replace_the_row():
    at = run_app()
    at.text_input(key=W + "scores").set_value("0.86, 0.45, 1.45, 0.10, -inf").run()
    clean(at)
    doc = payload(at)
    assert at.session_state["stepper.n_steps"] == 2 == doc["steps"] and doc["n"] == 5
    assert doc["a"]["scores"].tolist() == [0.86, 0.45, 1.45, 0.10, -np.inf]
    assert doc["a"]["err"][-1] < 1e-12


def test_guard_off_with_a_fully_masked_first_tile_shows_nan():
    at = run_app()
    nonce = parts(at)[0]["head"]["opts"]["nonce"]
    at.button(key="stepper.pitfall").click().run()
    assert not at.exception
    assert at.session_state["cfg.guard"] is False and at.session_state["cfg.masked"] == "0-3"
    doc = payload(at)
    assert doc["head"]["opts"]["goto"] == 0 and doc["head"]["opts"]["nonce"] == nonce + 1   # back to step 1
    a = doc["a"]
    assert np.isnan(a["l"][0]) and np.isnan(a["alpha"][0]) and a["m"][0] == -np.inf and np.isnan(a["err"][-1])
    assert "NaN" in doc["text"]["stepper.nan_now"] and "exp(−∞ − (−∞))" in doc["text"]["stepper.nan_now"]
    at.toggle(key=W + "guard").set_value(True).run()          # the guard repairs it
    clean(at)
    a = payload(at)["a"]
    assert a["err"][-1] < 1e-12 and a["l"][0] == 0.0 and a["alpha"][0] == 0.0


def test_try_tile_one_gives_more_steps_and_rescales():
    at = run_app()
    rescales4 = int(payload(at)["a"]["rescaled"].sum())
    at.button(key="stepper.tile1").click().run()
    clean(at)
    a = payload(at)["a"]
    assert at.session_state["stepper.n_steps"] == 16 and a["err"][-1] < 1e-12
    assert int(a["rescaled"].sum()) > rescales4


def test_preset_writes_the_shared_config():
    at = run_app()
    at.selectbox(key="_w.preset").set_value("long").run()
    clean(at)
    assert at.session_state["cfg.n"] == 4096 and at.session_state["cfg.block_n"] == 64
    assert at.number_input(key=W + "n").value == 4096 and at.session_state["stepper.n_steps"] == 64
    assert at.selectbox(key="_w.preset").value is None          # back to the placeholder


def test_changing_n_keeps_a_valid_row_and_says_when_it_cannot():
    at = run_app()
    at.number_input(key=W + "n").set_value(32).run()           # row 15 still exists: it stays, silently
    clean(at)
    assert at.session_state["cfg.row"] == 15 and not at.info
    at.number_input(key=W + "n").set_value(8).run()            # row 15 does not: the last row, and a note
    clean(at)
    assert at.session_state["cfg.row"] == 7 and at.session_state["stepper.n_steps"] == 2
    assert [i.value for i in at.info] == ["Query row 15 does not exist at N = 8, so the stepper now follows row 7, "
                                          "the last one."]
    at.number_input(key=W + "seed").set_value(3).run()          # the next change clears the note
    assert not at.info


def test_config_persists_across_reruns():
    at = run_app()
    at.number_input(key=W + "n").set_value(32).run()
    at.number_input(key=W + "block_n").set_value(8).run()
    at.toggle(key=W + "causal").set_value(True).run()
    for _ in range(3):
        at.run()
    clean(at)
    assert [at.session_state[f"cfg.{k}"] for k in ("n", "block_n", "causal", "row")] == [32, 8, True, 15]
    doc = payload(at)
    assert at.number_input(key=W + "n").value == 32 and doc["steps"] == 4
    assert np.isneginf(doc["a"]["scores"][16:]).all() and np.isfinite(doc["a"]["scores"][:16]).all()   # causal


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
    doc = payload(at)
    assert doc["lang"] == "zh" and doc["text"]["common.step_next"] == "下一步"
    assert doc["text"]["stepper.step_label"] == "**第 {i} / {n} 步** · key {lo}–{hi} 位于 SRAM"
    assert doc["text"]["stepper.ctr_rescales"] == "目前的重缩放次数"
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

    from flashviz.engine.online_softmax import make_qkv
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
    assert len(at.get("bidi_component")) == 3               # the rest of the page is intact


# ----------------------------------------------------------------------------- the lesson's statements, checked

CASES = [dict(), dict(seed=3), dict(block_n=1), dict(n=64, d=8, block_n=8, row=40, seed=9),
         dict(n=33, block_n=5, causal=True, row=20, seed=21)]


@pytest.mark.parametrize("values", CASES, ids=str)
def test_the_caption_on_alpha_and_l_is_true_for_this_configuration(values):
    from flashviz.ui.stepper import why_notes
    at = run_app(**values)
    clean(at)
    tr = engine(at)
    notes = why_notes(tr, "en")
    caption = " ".join(notes)
    assert any(caption in c.value for c in at.caption)
    assert tr.alpha[0] == 0 and notes[0].startswith("On tile 1, α = 0")     # nothing seen before tile 1
    fell = [k for k in range(1, tr.steps) if tr.l[k] < tr.l[k - 1]]
    assert all(tr.rescaled[k] and tr.alpha[k] < 1 for k in fell)           # ℓ falls only at a rescale
    if fell:
        k = fell[0]
        assert f"ℓ fell at tile {k + 1} ({fmt_num(tr.l[k - 1])} → {fmt_num(tr.l[k])})" in caption
        assert f"α = {fmt_num(tr.alpha[k])}" in caption
        assert tr.alpha[k] * tr.l[k - 1] + tr.tile_sum[k] == pytest.approx(tr.l[k], rel=1e-12)
    else:
        assert "Here ℓ never fell" in caption


def test_l_falls_somewhere_among_the_seeds():
    """The caption's first case is not hypothetical: with tile = 1 it happens for the lesson's row."""
    cfg = Config(block_n=1)
    s, v = row_problem(cfg)
    tr = online_softmax_trace(s, v, 1)
    assert any(tr.l[k] < tr.l[k - 1] for k in range(1, tr.steps))


@pytest.mark.parametrize("values", CASES, ids=str)
def test_the_python_loop_on_the_page_runs_and_equals_the_engine(values):
    """The code the page shows (st.code), executed as it stands, gives the engine's answer on the page's row."""
    at = run_app(**values)
    [code] = [c for c in at.code if "def online_softmax" in c.value]
    namespace = {}
    exec(compile(code.value, "<page>", "exec"), namespace)
    c = Config(**{f: at.session_state[f"cfg.{f}"] for f in Config.__dataclass_fields__})
    s, v = row_problem(c)
    got = namespace["online_softmax"](s, v, c.tile)
    want = engine(at).output
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13)
    assert len(code.value.strip().splitlines()) <= 18                       # a dozen lines of loop
    assert any("largest difference" in x.value for x in at.caption)


def test_the_loop_without_a_guard_gives_nan_and_the_page_says_so():
    at = run_app(causal=True, row=9, masked="0-3")
    [code] = [c for c in at.code if "def online_softmax" in c.value]
    namespace = {}
    exec(compile(code.value, "<page>", "exec"), namespace)
    s, v = row_problem(Config(causal=True, row=9, masked="0-3"))
    with np.errstate(invalid="ignore"):
        assert np.isnan(namespace["online_softmax"](s, v, 4)).all()
    assert any("gives NaN" in x.value for x in at.caption)
