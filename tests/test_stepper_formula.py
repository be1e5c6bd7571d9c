"""AppTest of the stepper's recurrence section (flashviz/ui/stepper_formula.py): the printed formulas carry the
engine's numbers of the current step, in the FA2 form and in Algorithm 1's form, in English and Chinese."""
from __future__ import annotations

import re

import numpy as np
import pytest

from app_util import clean, open_page

from flashviz.charts.common import fmt_num
from flashviz.online_softmax import online_softmax_trace
from flashviz.ui.config import Config, row_problem
from flashviz.ui.stepper_formula import latex_lines

STEPPER = "stepper"


def engine(at, form: str):
    c = Config(**{f: at.session_state[f"cfg.{f}"] for f in Config.__dataclass_fields__})
    s, v = row_problem(c)
    return online_softmax_trace(s, v, c.tile, guard=c.guard, form=form)


def shown(at) -> list[str]:
    return [el.value for el in at.latex]


def numbers(latex: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d+", latex)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_formulas_carry_this_steps_numbers(lang):
    at = open_page(STEPPER, lang=lang)
    clean(at)
    for step in range(3):
        tr = engine(at, "fa2")
        lines = shown(at)
        assert len(lines) == 5 and lines == [f"$$\n{x}\n$$" for x in latex_lines(tr, step)]
        # the substituted numbers are the engine's, to the 4 decimals printed
        prev_m = tr.m[step - 1] if step else None
        m_line = numbers(lines[0])
        if prev_m is not None:
            assert m_line[0] == pytest.approx(prev_m, abs=5e-5)
        assert m_line[-2:] == pytest.approx([tr.tile_max[step], tr.m[step]], abs=5e-5)
        assert numbers(lines[1])[-1] == pytest.approx(tr.alpha[step], abs=5e-5)
        l_line = numbers(lines[2])
        assert l_line[-2:] == pytest.approx([tr.tile_sum[step], tr.l[step]], abs=5e-5)
        assert l_line[-1] == pytest.approx(l_line[0] * l_line[1] + l_line[2], abs=2e-4)   # the line adds up
        o_line = numbers(lines[3])
        assert o_line[-4:] == pytest.approx(tr.o[step][:4], abs=5e-5)
        assert numbers(lines[4])[-4:] == pytest.approx(tr.o_normalised[step][:4], abs=5e-5)
        view = at.session_state["stepper.formula_view"]
        assert view["form"] == "fa2" and view["step"] == step
        at.button(key="stepper.next").click().run()
        clean(at)


def test_switch_to_algorithm_1_and_both_land_on_the_same_answer():
    at = open_page(STEPPER)
    at.session_state["stepper.form"] = "fa1"
    at.button(key="stepper.last").click().run()
    clean(at)
    fa1, fa2 = engine(at, "fa1"), engine(at, "fa2")
    last = fa1.steps - 1
    lines = shown(at)
    assert "diag" in lines[3] and lines == [f"$$\n{x}\n$$" for x in latex_lines(fa1, last)]
    o_line = numbers(lines[3])
    assert o_line[0] == pytest.approx(fa1.l[last], abs=5e-5)                  # 1 / ℓ_new
    assert o_line[-4:] == pytest.approx(fa1.o[last][:4], abs=5e-5)
    view = at.session_state["stepper.formula_view"]
    assert view["gap"] == float(np.max(np.abs(fa1.output - fa2.output))) and view["gap"] < 1e-12
    for form, tr in (("fa1", fa1), ("fa2", fa2)):
        assert view["errors"][form] == float(np.max(np.abs(tr.output - tr.exact))) < 1e-12
    assert any(f"{view['gap']:.1e}" in c.value for c in at.caption)


def test_guarded_masked_tile_is_explained():
    at = open_page(STEPPER, n=16, d=4, block_n=4, causal=True, row=9, masked="0-3", guard=True)
    clean(at)
    tr = engine(at, "fa2")
    assert tr.m[0] == -np.inf
    assert r"\max(-\infty,\ -\infty) = -\infty" in shown(at)[0]
    assert any("guard puts 0" in c.value for c in at.caption)


def test_chinese_strings_and_numbers_match_english():
    en, zh = open_page(STEPPER, lang="en"), open_page(STEPPER, lang="zh")
    clean(zh)
    assert shown(en) == shown(zh)                                           # formulas are language-free
    assert any("本步的递推式" in m.value for m in zh.markdown)
    assert fmt_num(engine(zh, "fa2").l[0]) in shown(zh)[2]
