"""Page "Online softmax, tile by tile": one query row streamed through the online-softmax recurrence.

Thin: read the shared config, get the cached trace from the engine, hand (trace, step) to chart builders.
Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import streamlit as st

from flashviz.cache import MiB, memo
from flashviz.charts import stepper as charts
from flashviz.charts.common import compact, fmt_num
from flashviz.i18n import t
from flashviz.online_softmax import Trace, online_softmax_trace
from flashviz.ui import state, stepper_formula, steps
from flashviz.ui.common import chart, shown_errors
from flashviz.ui.config import Config, row_problem

NS = "stepper"            # session-state namespace of this page's step index
TABLE_ROWS = 32           # the table shows at most the last 32 tiles (the chart shows them all)


@memo("stepper.trace", 128 * MiB)
def cached_trace(cfg: Config) -> Trace:
    """The engine's trace for this configuration (keyed on every field of the frozen config); shared by every
    session, read-only. At N = 16384, d = 256 one trace holds up to ~100 MiB: the budget is in bytes."""
    scores, values = row_problem(cfg)
    return online_softmax_trace(scores, values, cfg.tile, guard=cfg.guard)


def recurrence_table(tr: Trace, step: int, lang: str) -> pd.DataFrame:
    """Rows for tiles 1..step+1 (the last TABLE_ROWS of them): tile, keys, tile max, m, α, ℓ, rescale.
    Numbers are formatted text (4 decimals; NaN and −∞ spelled out, which a numeric column would hide)."""
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


def _show_table(df: pd.DataFrame, lang: str) -> None:
    resc = df.columns[-1]

    def highlight(d: pd.DataFrame) -> pd.DataFrame:   # rescale rows light vermillion, NaN cells vermillion text
        css = np.where((d[resc] != "").to_numpy()[:, None], "background-color: #F7D9C4;", "")
        css = np.char.add(np.broadcast_to(css, d.shape).astype(str),
                          np.where(d.to_numpy() == "NaN", "color: #D55E00; font-weight: bold;", ""))
        return pd.DataFrame(css, index=d.index, columns=d.columns)

    helps = {"m": "stepper.col_m", "α": "stepper.col_alpha", "ℓ": "stepper.col_l"}
    cfg = {c: st.column_config.TextColumn(c, help=t(helps[c], lang)) for c in helps}
    st.dataframe(df.style.apply(highlight, axis=None), hide_index=True, column_config=cfg,
                 height=min(38 + 35 * len(df), 400), key=f"{NS}.table")


def _counters(cfg: Config, tr: Trace, step: int, lang: str) -> None:
    n, last = tr.n, step == tr.steps - 1
    err = tr.error(step)
    c = st.columns(4)
    c[0].metric(t("stepper.ctr_resident", lang), f"{int(tr.stop[step] - tr.start[step])} / {n}",
                help=t("stepper.ctr_resident_help", lang))
    c[1].metric(t("stepper.ctr_naive", lang), f"{compact(n)} / {compact(n * n)}", help=t("stepper.ctr_naive_help", lang))
    c[2].metric(t("stepper.ctr_rescales", lang), int(tr.rescaled[:step + 1].sum()),
                help=t("stepper.ctr_rescales_help", lang))
    shown = ("NaN" if np.isnan(err) else f"{err:.2e}") if last else "—"
    c[3].metric(t("stepper.ctr_error", lang), shown, help=t("stepper.ctr_error_help", lang))
    if not last:
        st.caption(t("stepper.ctr_err_pending", lang))


def _pitfall_notes(tr: Trace, step: int, lang: str) -> None:
    seen_nan = bool(np.isnan(tr.l[:step + 1]).any())
    if seen_nan:
        st.error(t("stepper.nan_now", lang), icon=":material/warning:")
    elif tr.guard and tr.m[0] == -np.inf:
        st.info(t("stepper.guard_saved", lang), icon=":material/shield:")


def step_view(cfg: Config, tr: Trace, lang: str, step: int) -> None:
    """Everything that changes with the step (drawn inside the step fragment, so errors are caught here)."""
    slug = f"{cfg.slug()}_step{step + 1}"
    lo, hi = int(tr.start[step]), int(tr.stop[step])
    st.markdown(t("stepper.step_label", lang, i=step + 1, n=tr.steps, lo=lo, hi=hi - 1))
    with shown_errors(lang, where="score strip"):
        chart(charts.strip_figure(tr, step, lang), "strip", slug, height=360, key=f"{NS}.strip")
    with shown_errors(lang, where="counters"):
        _pitfall_notes(tr, step, lang)
        _counters(cfg, tr, step, lang)
    st.caption(t("stepper.explain_io", lang))

    st.subheader(t("stepper.rec_header", lang))
    left, right = st.columns([1, 1])
    with left, shown_errors(lang, where="recurrence table"):
        if step + 1 > TABLE_ROWS:
            st.caption(t("stepper.table_window", lang, k=TABLE_ROWS, n=step + 1))
        _show_table(recurrence_table(tr, step, lang), lang)
    with right, shown_errors(lang, where="recurrence chart"):
        chart(charts.recurrence_figure(tr, step, lang), "recurrence", slug, key=f"{NS}.rec")
    st.markdown(t("stepper.explain_alpha", lang))
    with shown_errors(lang, where="recurrence formulas"):
        stepper_formula.render(cfg, tr, lang, step)       # the recurrence with this step's numbers, FA2 / FA1

    st.subheader(t("stepper.acc_header", lang))
    left, right = st.columns(2)
    with left, shown_errors(lang, where="accumulator chart"):
        chart(charts.accumulator_figure(tr, step, lang), "accumulator", slug, key=f"{NS}.acc")
    with right, shown_errors(lang, where="error chart"):
        chart(charts.error_figure(tr, step, lang), "error", slug, key=f"{NS}.err")
    st.markdown(t("stepper.explain_no_early_exit", lang))


def _describe(cfg: Config, tr: Trace, lang: str) -> None:
    key = "stepper.describe_typed" if cfg.typed else "stepper.describe"
    st.caption(t(key, lang, row=cfg.row, n=tr.n, d=tr.d, tile=tr.tile_size, tc=tr.steps, dtype=cfg.dtype,
                 seed=cfg.seed))


def _tile_lesson(cfg: Config, tr: Trace, lang: str) -> None:
    st.subheader(t("stepper.tile_header", lang))
    st.markdown(t("stepper.explain_tile", lang))
    if cfg.tile != 1:
        st.button(t("stepper.try_tile1", lang), key=f"{NS}.tile1", icon=":material/grid_on:",
                  on_click=state.set_values, kwargs=dict(block_n=1))
    st.markdown(t("stepper.explain_nan", lang))
    if cfg.guard:
        st.button(t("stepper.try_pitfall", lang), key=f"{NS}.pitfall", icon=":material/science:",
                  on_click=_show_pitfall)


def _show_pitfall() -> None:
    """Preset 'causal with a fully masked tile', guard off: the first tile is all -inf."""
    state.apply_preset("masked_tile")
    state.set_values(guard=False)
    steps.go(NS, 0)


def kernel_panel(cfg: Config, tr: Trace, lang: str) -> None:
    """The panel "The kernel's own numbers" (flashviz/ui/kernel_panel.py): the Triton kernel's m, l, alpha per
    tile for query row cfg.row, tile cfg.block_n, overlaid on the simulator's `tr`, with the max difference."""
    from flashviz.ui import kernel_panel as panel
    panel.render(cfg, tr, lang)


def render() -> None:
    lang, cfg = state.page_start(NS, fields=state.STEPPER_FIELDS)

    tr = None
    with shown_errors(lang, where="trace"):
        tr = cached_trace(cfg)
    if tr is None:
        st.info(t("stepper.fix_input", lang), icon=":material/edit:")
        return
    _describe(cfg, tr, lang)

    interval = steps.autoplay_controls(NS, lang)
    with shown_errors(lang, where="steps"):
        steps.stepped(NS, tr.steps, lang, functools.partial(step_view, cfg, tr, lang), interval=interval)
    with shown_errors(lang, where="tile lesson"):
        _tile_lesson(cfg, tr, lang)
    with shown_errors(lang, where="kernel panel"):
        kernel_panel(cfg, tr, lang)       # the real kernel's m, l, alpha beside the simulator's
