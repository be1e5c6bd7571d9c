"""The stepper's recurrence printed with one step's numbers (flashviz/charts/stepper_formula.py), in FA2's form and
in Algorithm 1's: the substituted numbers are the engine's, each line's arithmetic holds to the printed digits, and
the two forms land on the same answer. The browser fills the same templates (tests/browser/test_browser_stepper.py checks
that the page reads exactly like text_lines)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from flashviz.charts.common import fmt_num
from flashviz.charts.stepper_formula import TEMPLATES, text_lines
from flashviz.engine.online_softmax import online_softmax_trace
from flashviz.ui.config import Config, row_problem


def trace(form: str = "fa2", **values):
    c = Config(**values)
    s, v = row_problem(c)
    return online_softmax_trace(s, v, c.tile, guard=c.guard, form=form)


def numbers(text: str) -> list[float]:
    """The printed numbers of a line, −∞ and NaN included (after the symbolic part)."""
    toks = re.findall(r"[−-]?\d+\.\d+(?:e[+-]\d+)?|[−+]?∞|NaN", text)
    return [float(x.replace("−", "-").replace("∞", "inf")) for x in toks]


@pytest.mark.parametrize("values", [dict(), dict(d=64, block_n=3, seed=5), dict(n=40, block_n=7, causal=True, row=30)],
                         ids=str)
def test_fa2_lines_carry_this_steps_numbers(values):
    tr = trace(**values)
    for step in range(tr.steps):
        lines = text_lines(tr, step)
        assert len(lines) == 5
        assert lines[0].startswith("mnew = max(m, rowmax(Sj)) = max(")
        m_line = numbers(lines[0])
        assert m_line[-2:] == pytest.approx([tr.tile_max[step], tr.m[step]], abs=5e-5)
        if step:
            assert m_line[0] == pytest.approx(tr.m[step - 1], abs=5e-5)
        else:
            assert "max(−∞, " in lines[0]
        assert numbers(lines[1])[-1] == pytest.approx(tr.alpha[step], abs=5e-5)
        l_line = numbers(lines[2])
        assert l_line[-2:] == pytest.approx([tr.tile_sum[step], tr.l[step]], abs=5e-5)
        slack = 5e-5 * (2 + abs(l_line[0]) + abs(l_line[1]))                               # printed digits
        assert l_line[-1] == pytest.approx(l_line[0] * l_line[1] + l_line[2], abs=slack)   # the line adds up
        assert lines[3].endswith(" = [" + ", ".join(fmt_num(x) for x in tr.o[step][:4])
                                 + (", …]" if tr.d > 4 else "]"))
        o_line = numbers(lines[3])
        alpha = o_line[0]
        k = min(tr.d, 4)
        prev, pv, new = o_line[1:1 + k], o_line[1 + k:1 + 2 * k], o_line[1 + 2 * k:1 + 3 * k]
        slack = [5e-5 * (2 + abs(alpha) + abs(a)) for a in prev]
        assert all(abs(x - (alpha * a + b)) <= e for x, a, b, e in zip(new, prev, pv, slack))
        assert numbers(lines[4])[-k:] == pytest.approx(tr.o_normalised[step][:k], abs=5e-5)


def test_algorithm_1_lines_and_both_forms_agree():
    fa1, fa2 = trace("fa1"), trace("fa2")
    last = fa1.steps - 1
    lines = text_lines(fa1, last)
    assert lines[3].startswith("onew = diag(ℓnew)−1(α·ℓ·o + exp(Sj − mnew)·Vj) = (1 / ")
    assert numbers(lines[3])[0] == pytest.approx(fa1.l[last], abs=5e-5)            # 1 / ℓ_new
    assert numbers(lines[3])[-4:] == pytest.approx(fa1.o[last][:4], abs=5e-5)
    assert lines[4] == "out = o = [" + ", ".join(fmt_num(x) for x in fa1.o[last]) + "]"
    assert text_lines(fa1, last)[:3] == text_lines(fa2, last)[:3]                  # same m, α, ℓ
    assert np.max(np.abs(fa1.output - fa2.output)) < 1e-12


def test_guarded_masked_tile_prints_minus_infinity():
    tr = trace(causal=True, row=9, masked="0-3")
    assert tr.m[0] == -np.inf
    assert text_lines(tr, 0)[0] == "mnew = max(m, rowmax(Sj)) = max(−∞, −∞) = −∞"


def test_templates_are_the_same_symbols_in_both_forms():
    assert TEMPLATES["fa1"][:3] == TEMPLATES["fa2"][:3]
    assert all(len(line) >= 3 for form in TEMPLATES.values() for line in form)
