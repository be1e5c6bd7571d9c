"""Sections of the page "Blocks and memory traffic" about how much traffic FlashAttention saves (thin, streamlit).

ratio_section    standard ÷ flash vs N (it levels off) and vs M (Theorem 2's range), numbers from traffic.py
budget_section   what one step holds on chip, buffer by buffer, against M (tiling.sram_budget)
seed_section     the worked example of Theorem 2 (N = 1024, d = 64, M = 100 KiB): Θ with constant 1 next to
                 the exact counts, the constants explained, and the plateau at this M
Every number in the text is computed here from the engine and formatted into the i18n string.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from flashviz.infra.cache import frozen_figure
from flashviz.charts import blocks_ratio as charts
from flashviz.i18n import t
from flashviz.engine.tiling import BUFFERS, GPU_PRESETS, SEED_EXAMPLE, MAX_N, Schedule, TilingConfig
from flashviz.engine.traffic import PAPER_FIG2, ratio_limits, seed_example, sweep_n, sweep_sram
from flashviz.ui import state, steps
from flashviz.ui.common import chart, shown_errors

NS = "blocks"
N_RATIO = tuple(2 ** k for k in range(4, 21))          # 16 .. 1,048,576: far enough to see the plateau
M_POINTS = 41
SHOWN = {"l": "ℓ_i", "m": "m_i", "Q": "Q_i", "O": "O_i", "K": "K_j", "V": "V_j", "S": "S_ij"}


def pct(part: float, whole: float) -> str:
    """A share in percent: one decimal below 10 %, so small blocks do not read as 0 %."""
    p = 100 * part / whole
    return f"{p:.1f}" if p < 10 else f"{p:.0f}"


def _kib(b: float) -> str:
    return f"{b / 1024:,.2f} KiB" if b % 1024 else f"{b // 1024:,} KiB"


# ----------------------------------------------------------------------------- engines (cached figures)

@st.cache_resource(max_entries=32, show_spinner=False)
def vs_n(d: int, eb: int, sram_bytes: int | None, br: int | None, bc: int | None, n: int, lang: str):
    """(figure, sweep, limits) of standard ÷ flash vs N, non-causal, at this M or these pinned blocks; the figure
    serialised once and read-only (a FrozenFigure)."""
    ns = sorted(set(N_RATIO) | {n})
    sw = sweep_n(ns, d, sram_bytes=sram_bytes, br=br, bc=bc, elem_bytes=eb)
    lim = (ratio_limits(d, sram_elems=sram_bytes // eb) if sram_bytes is not None
           else ratio_limits(d, br=br, bc=bc))
    return frozen_figure(charts.ratio_vs_n_figure(sw, lim, lang, mark_n=n)), sw, lim


@st.cache_resource(max_entries=32, show_spinner=False)
def vs_m(n: int, d: int, eb: int, lang: str):
    """(figure, sweep) of standard ÷ flash vs M at this N, from 4d elements to past 4·N·d (Bc = N)."""
    lo, hi = 4 * d * eb, max(16 * n * d * eb, 8 * d * eb)
    xs = np.unique(np.geomspace(lo, hi, M_POINTS).round().astype(np.int64))
    sw = sweep_sram(n, d, xs, elem_bytes=eb)
    return frozen_figure(charts.ratio_vs_m_figure(sw, lang)), sw


@st.cache_data(show_spinner=False)
def cached_seed_example() -> dict:
    return seed_example()


# ----------------------------------------------------------------------------- sections

def ratio_section(sch: Schedule, sram_bytes: int, from_m: bool, name: str, lang: str) -> None:
    """Both ratio charts and what they show, for this d and element size (non-causal)."""
    c = sch.cfg
    n_max = max(n for n in N_RATIO if n <= MAX_N)
    left, right = st.columns(2)
    with left, shown_errors(lang, where="ratio vs N"):
        fig, sw, lim = vs_n(c.d, c.elem_bytes, sram_bytes if from_m else None, None if from_m else c.br,
                            None if from_m else c.bc, c.n, lang)
        chart(fig, "ratio_vs_N", name, key=f"{NS}.ratio_vs_n")           # read-only: no session changes it
        k = int(np.flatnonzero(sw.x == c.n)[0])
        b1, b2 = lim["fa1_blocks"], lim["fa2_blocks"]
        st.caption(t("traffic.ratio_n_explain", lang, n=c.n, r1=sw.ratio("fa1")[k], r2=sw.ratio("fa2")[k],
                     nmax=f"{n_max:,}", r1max=sw.ratio("fa1")[-1], r2max=sw.ratio("fa2")[-1], l1=lim["fa1"],
                     l2=lim["fa2"], bc1=b1[1], br2=b2[0]))
        if np.isfinite(lim["theta"]):
            st.caption(t("traffic.ratio_theta_explain", lang, theta=lim["theta"], m=sram_bytes // c.elem_bytes,
                         d=c.d, third=lim["theta"] / 3, l1=lim["fa1"]))
        st.session_state[f"{NS}.ratio_view"] = dict(n=c.n, r1=float(sw.ratio("fa1")[k]), l1=lim["fa1"],
                                                     l2=lim["fa2"], theta=lim["theta"])        # for tests
    with right, shown_errors(lang, where="ratio vs M"):
        fig, swm = vs_m(c.n, c.d, c.elem_bytes, lang)
        chart(fig, "ratio_vs_M", name, key=f"{NS}.ratio_vs_m")
        st.caption(t("traffic.ratio_m_explain", lang, n=c.n, d=c.d, lo=c.d, hi=f"{c.n * c.d:,}",
                     hi_kib=_kib(c.n * c.d * c.elem_bytes), whole=_kib(4 * c.n * c.d * c.elem_bytes),
                     top=swm.ratio("fa1")[-1], eb=c.elem_bytes))
    st.caption(t("traffic.ratio_l2", lang))


def budget_section(c: TilingConfig, sram_bytes: int, gpu: str | None, lang: str) -> None:
    """The on-chip buffers of one step, their sizes, and how they compare with M (never a pass/fail verdict on
    the paper's own rule: it bounds Q, K, V, O at M/4 each and claims O(M) for the whole step)."""
    m, eb = sram_bytes // c.elem_bytes, c.elem_bytes
    budget = c.sram_budget
    shapes = {"Q": f"{c.br} × {c.d}", "K": f"{c.bc} × {c.d}", "V": f"{c.bc} × {c.d}", "O": f"{c.br} × {c.d}",
              "S": f"{c.br} × {c.bc}", "l": f"{c.br}", "m": f"{c.br}"}
    quarter = -(-m // (4 * c.d)) * c.d                  # ceil(M/4d)·d: what the rule allows one block of d columns
    rows = [{t("traffic.col_buffer", lang): SHOWN[b], t("traffic.col_shape", lang): shapes[b],
             t("traffic.col_elems", lang): f"{budget[b]:,}", t("traffic.col_bytes", lang): _kib(budget[b] * eb),
             t("traffic.col_share", lang): f"{pct(budget[b], m)}%"} for b in BUFFERS]
    foot = c.sram_footprint
    rows.append({t("traffic.col_buffer", lang): t("traffic.row_total", lang), t("traffic.col_shape", lang): "",
                 t("traffic.col_elems", lang): f"{foot:,}", t("traffic.col_bytes", lang): _kib(foot * eb),
                 t("traffic.col_share", lang): f"{pct(foot, m)}%"})
    with st.expander(t("traffic.budget_header", lang, pct=pct(foot, m)), expanded=False):
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"{NS}.budget_table")
        regs = t("traffic.budget_regs", lang, gpu=GPU_PRESETS[gpu]["name"], kib=GPU_PRESETS[gpu]["registers_kib_per_sm"]
                 ) if gpu in GPU_PRESETS else ""
        if c.rule == "paper":
            text = t("traffic.budget_paper", lang, m=f"{m:,}", quarter=f"{quarter:,}", bc=c.bc, br=c.br, d=c.d,
                     foot=f"{foot:,}", pct=pct(foot, m), bound=f"{5 * quarter + 2 * c.br:,}",
                     bound_pct=pct(5 * quarter + 2 * c.br, m))
        elif c.rule == "fa2":
            text = t("traffic.budget_fa2", lang, br=c.br, bc=c.bc, pct=pct(foot, m))
        else:
            text = t("traffic.budget_pinned", lang, pct=pct(foot, m))
        st.markdown(f"{text} {regs}".strip())
    st.session_state[f"{NS}.budget_view"] = dict(budget=budget, m=m, foot=foot, rule=c.rule)     # for tests


def seed_section(lang: str) -> None:
    """The worked example next to our exact counts, with the constant factors and the plateau explained."""
    ex = cached_seed_example()
    c, c2, th_s, th_f, lim = ex["config"], ex["fa2_config"], ex["theta_standard"], ex["theta_flash"], ex["limits"]
    e = SEED_EXAMPLE
    st.markdown(t("traffic.seed_setup", lang, kib=e["sram_bytes"] // 1024, b=f"{e['sram_bytes']:,}",
                  m=ex["sram_elems"], bc=c.bc, br=c.br, tc=c.tc, tr=c.tr, br2=c2.br, tr2=c2.tr))
    r1, r2 = ex["standard"] / ex["fa1"], ex["standard"] / ex["fa2"]
    df = pd.DataFrame({
        t("traffic.seed_col_what", lang): [t(f"traffic.seed_row_{k}", lang) for k in ("std", "fa1", "fa2", "ratio")],
        t("traffic.seed_col_theta", lang): [f"{th_s:,.0f} (≈ {_sci(th_s)})", f"{th_f:,.0f} (≈ {_sci(th_f)})",
                                           f"{th_f:,.0f} (≈ {_sci(th_f)})", f"{th_s / th_f:.1f}×"],
        t("traffic.seed_col_exact", lang): [f"{ex['standard']:,}", f"{ex['fa1']:,}", f"{ex['fa2']:,}",
                                           f"{r1:.2f}× (FA1) · {r2:.2f}× (FA2)"],
        t("traffic.seed_col_factor", lang): [f"{ex['standard'] / th_s:.1f}", f"{ex['fa1'] / th_f:.1f}",
                                            f"{ex['fa2'] / th_f:.1f}", ""],
    })
    st.dataframe(df, hide_index=True, key=f"{NS}.seed_table")
    st.markdown(t("traffic.seed_explain", lang, th_ratio=th_s / th_f, fa1_f=ex["fa1"] / th_f, tc=c.tc,
                  tc_real=e["n"] / (ex["sram_elems"] / (4 * e["d"])), fa2_f=ex["fa2"] / th_f, br2=c2.br, tr2=c2.tr,
                  r1=r1, r2=r2, l1=lim["fa1"], l2=lim["fa2"], theta=lim["theta"]))
    st.caption(t("traffic.seed_paper", lang, std=PAPER_FIG2["standard_gb"], flash=PAPER_FIG2["flash_gb"],
                 ratio=PAPER_FIG2["standard_gb"] / PAPER_FIG2["flash_gb"]))
    st.button(t("traffic.seed_load", lang), key=f"{NS}.seed_load", icon=":material/upload:", on_click=_load_seed)


def _sci(x: float) -> str:
    """167772 -> '1.7e5'."""
    mant, exp = f"{x:.1e}".split("e")
    return f"{mant}e{int(exp)}"


def _load_seed() -> None:
    e = SEED_EXAMPLE
    state.set_values(n=e["n"], d=e["d"], dtype="float32", causal=False)
    st.session_state.update({f"{NS}.gpu": "custom", f"{NS}.sram_kib": e["sram_bytes"] // 1024, f"{NS}.mode": "sram",
                             f"{NS}.order": "fa1"})
    steps.go(NS, 0)
