"""Chart of the panel "The kernel's own numbers": the Triton kernel's m, ℓ, α per tile over the simulator's.

overlay_figure(engine, kernel, lang, title) -> Figure with three side-by-side panels (m, ℓ, α) over tiles 1..Tc.
`engine` and `kernel` map "m", "l", "alpha" to (Tc,) arrays; the kernel's are NaN where it skipped a tile
(causal: entirely above the diagonal of its query block). Traces, in order, per panel: the simulator's line,
then the kernel's markers; data[0..1] = m, data[2..3] = ℓ, data[4..5] = α. No streamlit here.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..i18n import t
from . import palette as P
from .common import axis, base_layout, figure, finite_or_none

QUANTITIES = (("m", "m", "x", "y"), ("l", "ℓ", "x2", "y2"), ("alpha", "α", "x3", "y3"))
DOMAINS = ((0.0, 0.28), (0.36, 0.64), (0.72, 1.0))
MAX_MARKERS = 128


def overlay_figure(engine: dict, kernel: dict, lang: str, title: str = "") -> go.Figure:
    tc = len(engine["m"])
    x = np.arange(1, tc + 1, dtype=np.int32)
    sim, ker = t("kernel.series_engine", lang), t("kernel.series_kernel", lang)
    data, lay = [], {}
    for i, ((field, symbol, xa, ya), dom) in enumerate(zip(QUANTITIES, DOMAINS)):
        first = i == 0
        e, k = finite_or_none(engine[field]), finite_or_none(kernel[field])
        data.append(dict(type="scatter", x=x, y=e, xaxis=xa, yaxis=ya, name=sim, legendgroup="engine",
                         showlegend=first, mode="lines+markers" if tc <= MAX_MARKERS else "lines",
                         line=dict(color=P.BLUE, width=2.5), marker=dict(color=P.BLUE, size=6),
                         hovertemplate=f"{sim} {symbol} = %{{y:.7g}}<extra>%{{x}}</extra>"))
        data.append(dict(type="scatter", x=x, y=k, xaxis=xa, yaxis=ya, name=ker, legendgroup="kernel",
                         showlegend=first, mode="markers",
                         marker=dict(color=P.ORANGE, size=14, symbol="circle-open", line=dict(width=2.5)),
                         hovertemplate=f"{ker} {symbol} = %{{y:.7g}}<extra>%{{x}}</extra>"))
        suffix = "" if first else str(i + 1)
        lay[f"xaxis{suffix}"] = axis(t("kernel.axis_tile", lang), domain=list(dom), anchor=ya,
                                     range=[0.5, tc + 0.5], tickformat="d")
        lay[f"yaxis{suffix}"] = axis(symbol, anchor=xa)
    skipped = np.flatnonzero(np.isnan(np.asarray(kernel["m"], dtype=np.float64)))
    shapes = [dict(type="rect", xref=xa, yref="paper", x0=skipped[0] + 0.5, x1=tc + 0.5, y0=0, y1=1,
                   fillcolor=P.SHADE, line=dict(width=0), layer="below")
              for _, _, xa, _ in QUANTITIES] if skipped.size else []
    notes = [dict(xref="x", yref="paper", x=tc + 0.5, y=1.0, xanchor="right", yanchor="bottom",
                  showarrow=False, text=t("kernel.skipped_mark", lang), font=dict(size=11, color=P.MUTED_TEXT))
             ] if skipped.size else []
    return figure(data, base_layout(title, height=380, margin=dict(l=60, r=20, t=60, b=115), shapes=shapes,
                                    annotations=notes, legend=dict(orientation="h", yanchor="top", y=-0.32,
                                                                   xanchor="left", x=0.0), **lay))
