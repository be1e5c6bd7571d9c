"""Stepper section: the recurrence the page animates, printed with this step's numbers (st.latex).

A switch picks the accumulator form: FA2's (o unnormalised, divided by ℓ once; what the app's kernels do) or
Algorithm 1 of the first paper (o normalised after every tile with diag(ℓ_new)^-1). Both traces come from the
one engine function (flashviz.online_softmax.online_softmax_trace(form=...)); the page shows how far apart
their answers are. Called from ui/stepper.py's step view, inside the step fragment.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from flashviz.charts.common import fmt_num
from flashviz.i18n import t
from flashviz.online_softmax import FORMS, Trace, online_softmax_trace
from flashviz.ui.config import Config, row_problem

NS = "stepper"
SHOWN_DIMS = 4               # components of o written out (the rest as "…")


@st.cache_data(max_entries=16, show_spinner=False)
def cached_form_trace(cfg: Config, form: str) -> Trace:
    """The engine's trace of this configuration in accumulator form `form`."""
    scores, values = row_problem(cfg)
    return online_softmax_trace(scores, values, cfg.tile, guard=cfg.guard, form=form)


def num(v: float) -> str:
    """A number for LaTeX: 4 decimals, −∞ and NaN spelled as LaTeX can set them."""
    s = fmt_num(float(v))
    return {"−∞": r"-\infty", "+∞": r"+\infty", "NaN": r"\text{NaN}"}.get(s, s)


def vec(v: np.ndarray) -> str:
    parts = [num(x) for x in np.asarray(v)[:SHOWN_DIMS]]
    more = r",\ \ldots" if len(v) > SHOWN_DIMS else ""
    return r"\left[" + r",\ ".join(parts) + more + r"\right]"


def step_values(tr: Trace, step: int) -> dict:
    """Everything the formulas substitute at `step`: the state before (m, ℓ, o) and after the tile."""
    first = step == 0
    return dict(m_prev=-np.inf if first else tr.m[step - 1], l_prev=0.0 if first else tr.l[step - 1],
                o_prev=np.zeros(tr.d) if first else tr.o[step - 1], tile_max=tr.tile_max[step],
                m=tr.m[step], alpha=tr.alpha[step], tile_sum=tr.tile_sum[step], pv=tr.tile_pv[step],
                l=tr.l[step], o=tr.o[step], out=tr.o_normalised[step])


def latex_lines(tr: Trace, step: int) -> list[str]:
    """The recurrence in tr.form, each line symbolic = substituted = result."""
    v = step_values(tr, step)
    lines = [
        r"m_{\text{new}} = \max\big(m,\ \operatorname{rowmax}(S_j)\big) = \max(%s,\ %s) = %s"
        % (num(v["m_prev"]), num(v["tile_max"]), num(v["m"])),
        r"\alpha = e^{\,m - m_{\text{new}}} = e^{\,%s - %s} = %s" % (num(v["m_prev"]), num(v["m"]), num(v["alpha"])),
        r"\ell_{\text{new}} = \alpha\,\ell + \operatorname{rowsum}\big(e^{\,S_j - m_{\text{new}}}\big) = "
        r"%s \cdot %s + %s = %s" % (num(v["alpha"]), num(v["l_prev"]), num(v["tile_sum"]), num(v["l"])),
    ]
    if tr.form == "fa2":
        lines.append(r"o_{\text{new}} = \alpha\,o + e^{\,S_j - m_{\text{new}}}\,V_j = %s \cdot %s + %s = %s"
                     % (num(v["alpha"]), vec(v["o_prev"]), vec(v["pv"]), vec(v["o"])))
        lines.append(r"\text{out} = o / \ell = %s \,/\, %s = %s" % (vec(v["o"]), num(v["l"]), vec(v["out"])))
    else:
        lines.append(r"o_{\text{new}} = \operatorname{diag}(\ell_{\text{new}})^{-1}\big(\alpha\,\ell\,o + "
                     r"e^{\,S_j - m_{\text{new}}}\,V_j\big) = \tfrac{1}{%s}\big(%s \cdot %s \cdot %s + %s\big) = %s"
                     % (num(v["l"]), num(v["alpha"]), num(v["l_prev"]), vec(v["o_prev"]), vec(v["pv"]), vec(v["o"])))
        lines.append(r"\text{out} = o = %s" % vec(v["out"]))
    return lines


def render(cfg: Config, tr: Trace, lang: str, step: int) -> None:
    """The formulas with this step's numbers, the form switch, and the two forms' agreement."""
    st.markdown(t("recurrence.header", lang))
    st.session_state.setdefault(f"{NS}.form", "fa2")
    form = st.segmented_control(t("recurrence.form", lang), FORMS, required=True, key=f"{NS}.form",
                                format_func=lambda f: t(f"recurrence.form_{f}", lang), help=t("recurrence.form_help", lang))
    other = "fa1" if form == "fa2" else "fa2"
    shown = tr if tr.form == form else cached_form_trace(cfg, form)
    twin = tr if tr.form == other else cached_form_trace(cfg, other)
    for line in latex_lines(shown, step):
        st.latex(line)
    if shown.d > SHOWN_DIMS:
        st.caption(t("recurrence.dims", lang, k=SHOWN_DIMS, d=shown.d))
    if cfg.guard and shown.m[step] == -np.inf:
        st.caption(t("recurrence.guarded", lang))
    gap = float(np.max(np.abs(shown.o_normalised[step] - twin.o_normalised[step])))
    last = step == shown.steps - 1
    err = {f: float(np.max(np.abs(x.output - x.exact))) for f, x in ((form, shown), (other, twin))}
    st.markdown(t("recurrence.explain_" + form, lang))
    st.caption(t("recurrence.agree_last" if last else "recurrence.agree", lang, gap=f"{gap:.1e}", e2=f"{err['fa2']:.1e}",
                 e1=f"{err['fa1']:.1e}"))
    st.session_state[f"{NS}.formula_view"] = dict(form=form, step=step, gap=gap, errors=err,
                                                  lines=latex_lines(shown, step))     # what is shown (tests)
