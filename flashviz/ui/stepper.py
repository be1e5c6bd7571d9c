"""Page "Online softmax, tile by tile": one query row streamed through the online-softmax recurrence.

Its idea and its picture first (the stepper, flashviz/ui/stepper_view.py: stepping, scrubbing, autoplay and the
keys run in the browser from the configuration's whole trace); depth behind expanders named for their reader.
Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import streamlit as st

from flashviz.charts import export, offline
from flashviz.infra.cache import MiB, memo
from flashviz.charts import stepper as charts
from flashviz.charts import stepper_payload
from flashviz.charts.common import fmt_num
from flashviz.i18n import t
from flashviz.engine.online_softmax import Trace
from flashviz.engine.softmax_loop import LOOP_SOURCE, online_softmax
from flashviz.ui import state, stepper_view
from flashviz.ui.common import register_export, shown_errors
from flashviz.ui.config import Config, row_problem

NS = "stepper"            # session-state namespace of this page
SEEN = "stepper.seen"     # the configuration of the last run: says so when a change of N moved the row


TABLE_ROWS = stepper_payload.TABLE_ROWS


def cached_trace(cfg: Config) -> Trace:
    """The engine's FA2 trace of this configuration (shared read-only by every session)."""
    return stepper_view.trace(cfg, "fa2")


def recurrence_table(tr: Trace, step: int, lang: str) -> pd.DataFrame:
    """The stepper's table as data (other pages show it): tiles 1..step+1 (the last TABLE_ROWS of them) with tile,
    keys, tile max, m, α, ℓ, rescale; numbers as the page prints them (NaN and −∞ spelled out)."""
    lo = max(0, step + 1 - TABLE_ROWS)
    rows = slice(lo, step + 1)

    def fmt(a: np.ndarray) -> list[str]:
        return [fmt_num(float(v)) for v in a]

    return pd.DataFrame({
        t("stepper.col_tile", lang): np.arange(lo + 1, step + 2),
        t("stepper.col_keys", lang): [f"{a}–{b - 1}" for a, b in zip(tr.start[rows], tr.stop[rows])],
        t("stepper.col_tile_max", lang): fmt(tr.tile_max[rows]),
        "m": fmt(tr.m[rows]),
        "α": fmt(tr.alpha[rows]),
        "ℓ": fmt(tr.l[rows]),
        t("stepper.col_rescale", lang): np.where(tr.rescaled[rows], t("stepper.yes", lang), ""),
    })


def _describe(cfg: Config, tr: Trace, lang: str) -> None:
    key = "stepper.describe_typed" if cfg.typed else "stepper.describe"
    st.caption(t(key, lang, row=cfg.row, n=tr.n, d=tr.d, tile=tr.tile_size, tc=tr.steps, dtype=cfg.dtype,
                 seed=cfg.seed) + " " + t("stepper.keys_hint", lang))


def _row_note(cfg: Config, lang: str) -> None:
    """A change of N keeps the query row (config.follow_row); when the row no longer exists, say where it went. The
    note stays until the next change of the configuration."""
    ss = st.session_state
    seen = ss.get(SEEN)
    ss[SEEN] = cfg
    if seen is not None and seen != cfg:
        moved = (seen.n != cfg.n and seen.row != cfg.row and isinstance(seen.row, int) and isinstance(cfg.n, int)
                 and seen.row >= cfg.n)
        ss[f"{NS}.row_note"] = t("stepper.row_moved", lang, old=seen.row, n=cfg.n, row=cfg.row) if moved else None
    if ss.get(f"{NS}.row_note"):
        st.info(ss[f"{NS}.row_note"], icon=":material/swap_vert:")


def why_notes(tr: Trace, lang: str) -> list[str]:
    """True statements about this trace: α on the first tile, and where ℓ fell (at a rescale) or that it never did."""
    out = []
    if tr.alpha[0] == 0:
        out.append(t("stepper.alpha_first", lang))
    with np.errstate(invalid="ignore"):
        fell = np.flatnonzero(tr.l[1:] < tr.l[:-1]) + 1
    if fell.size:
        k = int(fell[0])
        out.append(t("stepper.l_fell", lang, k=k + 1, a=fmt_num(tr.l[k - 1]), b=fmt_num(tr.l[k]),
                     alpha=fmt_num(tr.alpha[k]), add=fmt_num(tr.tile_sum[k])))
    elif np.isfinite(tr.l).all():
        out.append(t("stepper.l_never_fell", lang))
    return out


@memo("stepper.loop", 8 * MiB)
def loop_answer(cfg: Config) -> np.ndarray:
    """What the page's dozen-line loop (flashviz.engine.softmax_loop) returns on this configuration's row."""
    scores, values = row_problem(cfg)
    with np.errstate(invalid="ignore", divide="ignore"):
        return online_softmax(scores, values, cfg.tile)


def _vec(v: np.ndarray) -> str:
    return "[" + ", ".join(fmt_num(float(x)) for x in v[:4]) + (", …" if v.size > 4 else "") + "]"


def _code(cfg: Config, tr: Trace, lang: str) -> None:
    st.caption(t("stepper.code_intro", lang))
    st.code(LOOP_SOURCE, language="python")
    got, want = loop_answer(cfg), tr.output
    if np.isnan(got).any():
        st.caption(t("stepper.code_nan", lang, want=_vec(want)))
    else:
        st.caption(t("stepper.code_result", lang, got=_vec(got), want=_vec(want),
                     diff=f"{float(np.max(np.abs(got - want))):.1e}"))


def _show_pitfall() -> None:
    """Preset 'causal with a fully masked tile', guard off: the first tile is all -inf."""
    state.apply_preset("masked_tile")
    state.set_values(guard=False)
    stepper_view.request_step(0)


def _lessons(cfg: Config, tr: Trace, lang: str) -> None:
    with st.expander(t("stepper.exp_why", lang)):
        st.markdown(t("stepper.explain_io", lang))
        st.markdown(t("stepper.explain_alpha", lang))
    with st.expander(t("stepper.exp_tile", lang)):
        st.markdown(t("stepper.explain_tile", lang))
        if cfg.tile != 1:
            st.button(t("stepper.try_tile1", lang), key=f"{NS}.tile1", icon=":material/grid_on:",
                      on_click=state.set_values, kwargs=dict(block_n=1))
    with st.expander(t("stepper.exp_nan", lang)):
        st.markdown(t("stepper.explain_nan", lang))
        if cfg.guard:
            st.button(t("stepper.try_pitfall", lang), key=f"{NS}.pitfall", icon=":material/science:",
                      on_click=_show_pitfall)


def _final_figures(cfg: Config, lang: str) -> dict:
    """The four charts at the last step, built only when an export asks for them."""
    def make(builder):
        def build():
            tr = cached_trace(cfg)
            return builder(tr, tr.steps - 1, lang)
        return build
    return {"strip": make(charts.strip_figure), "recurrence": make(charts.recurrence_figure),
            "accumulator": make(charts.accumulator_figure), "error": make(charts.error_figure)}


def offline_html(cfg: Config, lang: str) -> bytes:
    tr = cached_trace(cfg)
    key = "stepper.describe_typed" if cfg.typed else "stepper.describe"
    texts = dict(title=t("stepper.title", lang), intro=t("stepper.intro", lang),
                 describe=t(key, lang, row=cfg.row, n=tr.n, d=tr.d, tile=tr.tile_size, tc=tr.steps, dtype=cfg.dtype,
                            seed=cfg.seed), keys=t("stepper.keys_hint", lang),
                 formula=t("stepper.exp_formula", lang), acc=t("stepper.exp_acc", lang),
                 note=t("stepper.offline_note", lang, version=export.__version__))
    return offline.stepper_html(stepper_view.payload(cfg, lang), texts, lang, meta=dict(configuration=cfg.to_dict()))


def _exports(cfg: Config, lang: str) -> None:
    slug = f"{cfg.slug()}_step{cached_trace(cfg).steps}"
    heights = {"strip": 360}
    items = [export.ChartExport(name=name, slug=slug, fig=export.LazyFigure(make), height=heights.get(name))
             for name, make in _final_figures(cfg, lang).items()]
    player = export.FileExport(f"flashviz_stepper_{cfg.slug()}.html", functools.partial(offline_html, cfg, lang))
    register_export(items, [player], lang, title=t("stepper.export", lang), note=t("stepper.export_charts", lang),
                    extra_labels={player.name: (t("stepper.export_html", lang), t("stepper.export_html_help", lang))},
                    chart_labels={i.name: t(f"stepper.chart_{i.name}", lang) for i in items}, key=f"{NS}.export")


def kernel_panel(cfg: Config, tr: Trace, lang: str) -> None:
    """The panel "The kernel's own numbers" (flashviz/ui/kernel_panel.py): the Triton kernel's m, l, alpha per
    tile for query row cfg.row, tile cfg.block_n, overlaid on the simulator's `tr`, with the max difference."""
    from flashviz.ui import kernel_panel as panel
    panel.render(cfg, tr, lang)


def render() -> None:
    lang, cfg = state.page_start(NS, fields=state.STEPPER_FIELDS)
    _row_note(cfg, lang)
    tr = None
    with shown_errors(lang, where="trace"):
        tr = cached_trace(cfg)
    if tr is None:
        st.info(t("stepper.fix_input", lang), icon=":material/edit:")
        return
    st.session_state[f"{NS}.n_steps"] = tr.steps
    _describe(cfg, tr, lang)
    with shown_errors(lang, where="steps"):
        stepper_view.main(cfg, lang)            # the picture: every step, stepped in the browser
    with shown_errors(lang, where="notes"):
        st.caption(" ".join(why_notes(tr, lang)))
    with shown_errors(lang, where="export"):
        _exports(cfg, lang)
    with st.expander(t("stepper.exp_formula", lang)), shown_errors(lang, where="recurrence formulas"):
        stepper_view.part("formula", cfg, lang)
    with st.expander(t("stepper.exp_acc", lang)), shown_errors(lang, where="accumulator"):
        stepper_view.part("acc", cfg, lang)
        st.markdown(t("stepper.explain_no_early_exit", lang))
    with st.expander(t("stepper.exp_code", lang)), shown_errors(lang, where="python loop"):
        _code(cfg, tr, lang)
    with shown_errors(lang, where="lessons"):
        _lessons(cfg, tr, lang)
    with st.expander(t("stepper.exp_kernel", lang)), shown_errors(lang, where="kernel panel"):
        kernel_panel(cfg, tr, lang)             # the real kernel's m, l, alpha beside the simulator's
