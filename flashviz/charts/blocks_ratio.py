"""Charts of how much HBM traffic FlashAttention saves: standard ÷ flash vs N and vs M (no streamlit).

ratio_vs_n_figure  standard ÷ FA1 and ÷ FA2 (exact counts) and the Θ ratio (constant 1) vs N at fixed blocks,
                   with dashed lines at the values they level off at (traffic.ratio_limits)
ratio_vs_m_figure  the same vs SRAM size M at fixed N, with Theorem 2's range d <= M <= N·d shaded and the M
                   at which one K/V block holds the whole sequence (Bc = N) marked

Data: traffic.Sweep (exact element counts from the engine). Labels through t(key, lang). Okabe-Ito colours.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..infra.errors import InputError
from ..i18n import t
from ..engine.traffic import Sweep
from . import palette as P
from .blocks import axis_style, block_layout

SERIES = (("fa1", "traffic.series_fa1", P.BLUE), ("fa2", "traffic.series_fa2", P.GREEN))


def _line(x, y, name: str, color: str, dash: str | None = None) -> go.Scatter:
    return go.Scatter(x=x, y=y, mode="lines+markers" if len(x) <= 40 else "lines", name=name,
                      line=dict(color=color, width=2.5 if dash is None else 2, dash=dash), marker=dict(size=5),
                      hovertemplate="%{x:,}: %{y:.3f}×<extra>" + name + "</extra>")


def _ratio_traces(sw: Sweep, x, lang: str) -> list:
    out = [_line(x, sw.ratio(k), t(key, lang), color) for k, key, color in SERIES]
    if np.isfinite(sw.theta_ratio).any():
        out.append(_line(x, sw.theta_ratio, t("traffic.series_theta", lang), P.DARK_GREY, "dot"))
    return out


def _hline(y: float, color: str) -> dict:
    return dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=y, y1=y, line=dict(color=color, width=1.5,
                                                                                         dash="dash"))


def _hnote(y: float, text: str, color: str) -> dict:
    return dict(x=1.0, xref="paper", y=float(np.log10(y)), yref="y", text=text, showarrow=False, xanchor="right",
                yanchor="bottom", font=dict(size=11, color=color))


def ratio_vs_n_figure(sw: Sweep, limits: dict, lang: str = "en", *, mark_n: int | None = None) -> go.Figure:
    """Log-log, x = N. Traces (in order): standard ÷ FA1, standard ÷ FA2, Θ ratio (only with M). Shapes: a dashed
    line at each limit (limits["fa1"], ["fa2"], ["theta"] where finite), a dotted vertical line at mark_n."""
    if sw.x_name != "N":
        raise InputError(key="errors.needs_sweep", what="ratio_vs_n_figure", over="N (traffic.sweep_n)")
    shapes, notes = [], []
    for k, color in (("fa1", P.BLUE), ("fa2", P.GREEN), ("theta", P.DARK_GREY)):
        y = limits.get(k, float("nan"))
        if np.isfinite(y) and y > 0:
            shapes.append(_hline(y, color))
            notes.append(_hnote(y, t("traffic.limit", lang, v=f"{y:.2f}"), color))
    if mark_n is not None:
        shapes.append(dict(type="line", xref="x", yref="paper", x0=mark_n, x1=mark_n, y0=0, y1=1,
                           line=dict(color=P.DARK_GREY, width=1, dash="dot")))
    if sw.sram_bytes is not None:
        blocks = t("blocks.blocks_from_m", lang, m=f"{sw.sram_bytes / 1024:g}")
    else:
        blocks = t("blocks.blocks_pinned", lang, br=int(sw.br[-1]), bc=int(sw.bc[-1]))
    lay = block_layout(t("traffic.vs_n_title", lang, d=sw.d, blocks=blocks), height=460, shapes=shapes,
                  annotations=notes, xaxis=axis_style(t("blocks.axis_n", lang), type="log"),
                  yaxis=axis_style(t("traffic.axis_ratio", lang), type="log"))
    return go.Figure(data=_ratio_traces(sw, sw.x, lang), layout=lay)


def ratio_vs_m_figure(sw: Sweep, lang: str = "en") -> go.Figure:
    """Log-log, x = M in KiB. Traces as ratio_vs_n_figure. Shapes: Theorem 2's range d <= M <= N·d (elements,
    shaded, shapes[0]) and the M = 4·N·d where Bc = N (dotted line, shapes[1])."""
    if sw.x_name != "M":
        raise InputError(key="errors.needs_sweep", what="ratio_vs_m_figure", over="M (traffic.sweep_sram)")
    kib_per_elem = sw.elem_bytes / 1024
    lo, hi = sw.d * kib_per_elem, sw.n * sw.d * kib_per_elem
    whole = 4 * sw.n * sw.d * kib_per_elem
    shapes = [dict(type="rect", xref="x", yref="paper", x0=lo, x1=hi, y0=0, y1=1, fillcolor=P.SKY_BLUE,
                   opacity=0.15, line=dict(width=0), layer="below"),
              dict(type="line", xref="x", yref="paper", x0=whole, x1=whole, y0=0, y1=1,
                   line=dict(color=P.DARK_GREY, width=1, dash="dot"))]
    notes = [dict(x=float(np.log10(np.sqrt(max(lo, sw.x[0] / 1024) * hi))), xref="x", y=1.0, yref="paper",
                  text=t("traffic.valid", lang), showarrow=False, yanchor="top", font=dict(size=11)),
             dict(x=float(np.log10(whole)), xref="x", y=0.0, yref="paper", text=t("traffic.whole", lang),
                  showarrow=False, textangle=-90, xanchor="right", yanchor="bottom",
                  font=dict(size=11, color=P.DARK_GREY))]
    lay = block_layout(t("traffic.vs_m_title", lang, n=sw.n, d=sw.d), height=460, shapes=shapes, annotations=notes,
                  xaxis=axis_style(t("blocks.axis_m", lang), type="log"),
                  yaxis=axis_style(t("traffic.axis_ratio", lang), type="log"))
    return go.Figure(data=_ratio_traces(sw, sw.x / 1024, lang), layout=lay)
