"""Charts of the lessons that tie the pages together (blocks page). Engine data in, Plotly figure out.

alignment_figure  causal masks on the Br x Bc block grid, top-left and bottom-right side by side
sizes_figure      the N x N score matrix vs what the flash kernel keeps (O + LSE), log scale
fusion_figure     HBM bytes per kernel of the unfused chain vs the fused kernel
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..i18n import t
from ..engine.lessons import ALIGNS, alignment_blocks
from ..engine.tiling import FULL, MASKED, SKIPPED
from . import palette as P
from .common import axis, base_layout, figure

KIND_COLORS = {FULL: P.BLUE, MASKED: P.SKY_BLUE, SKIPPED: P.WHITE}
KIND_KEYS = {FULL: "lessons.kind_full", MASKED: "lessons.kind_partial", SKIPPED: "lessons.kind_empty"}


def _fmt_bytes(b: float) -> str:
    for div, unit in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if b >= div:
            return f"{b / div:,.3g} {unit}"
    return f"{int(b)} B"


def alignment_figure(nq: int, nk: int, br: int, bc: int, lang: str = "en") -> go.Figure:
    """Two heatmaps (data[0] top-left on axes x/y, data[1] bottom-right on x2/y2) of block kinds 0 FULL,
    1 MASKED, 2 SKIPPED; the boundary j = i + offset over each (data[2], data[3]); legend squares after.
    Built from plain dicts (make_subplots and per-property validation cost ~0.5 s per rerun)."""
    kinds = {a: alignment_blocks(nq, nk, br, bc, a) for a in ALIGNS}
    tr, tc = kinds[ALIGNS[0]].shape
    scale = []
    for code in range(3):
        scale += [[code / 3, KIND_COLORS[code]], [(code + 1) / 3, KIND_COLORS[code]]]
    gap = 1 if max(tr, tc) <= 64 else 0
    names = np.array([t(KIND_KEYS[c], lang) for c in range(3)], dtype=object)
    axes = {"top_left": ("x", "y"), "bottom_right": ("x2", "y2")}
    data = [dict(type="heatmap", z=kinds[a], zmin=0, zmax=3, colorscale=scale, showscale=False, xgap=gap, ygap=gap,
                 customdata=names[kinds[a]], name=t(f"lessons.align_{a}", lang), xaxis=axes[a][0], yaxis=axes[a][1],
                 hovertemplate=t("lessons.hover_block", lang) + "<extra></extra>") for a in ALIGNS]
    qs = np.array([0.0, nq])                         # the boundary key = query + offset, in block units
    for k, a in enumerate(ALIGNS):
        off = nk - nq if a == "bottom_right" else 0
        data.append(dict(type="scatter", x=(qs + off) / bc - 0.5, y=qs / br - 0.5, mode="lines", showlegend=k == 0,
                         name=t("lessons.diag", lang), line=dict(color=P.VERMILLION, width=2, dash="dash"),
                         hoverinfo="skip", xaxis=axes[a][0], yaxis=axes[a][1]))
    for code in range(3):
        data.append(dict(type="scatter", x=[None], y=[None], mode="markers", name=t(KIND_KEYS[code], lang),
                         marker=dict(symbol="square", size=13, color=KIND_COLORS[code],
                                     line=dict(color=P.OUTLINE, width=1))))
    xr, yr = [-0.5, tc - 0.5], [tr - 0.5, -0.5]
    lay = base_layout(t("lessons.align_title", lang, nq=nq, nk=nk, br=br, bc=bc), height=520,
                      plot_bgcolor=P.GAP, margin=dict(l=60, r=20, t=90, b=110),
                      xaxis=axis(t("lessons.axis_kv", lang, bc=bc), domain=[0, 0.46], range=xr, showgrid=False,
                                 zeroline=False),
                      yaxis=axis(t("lessons.axis_q", lang, br=br), range=yr, showgrid=False, zeroline=False),
                      xaxis2=axis(t("lessons.axis_kv", lang, bc=bc), domain=[0.54, 1], range=xr, showgrid=False,
                                  zeroline=False),
                      yaxis2=axis("", anchor="x2", range=yr, showgrid=False, zeroline=False),
                      annotations=[dict(text=t(f"lessons.align_{a}", lang), showarrow=False, xref="paper", yref="paper",
                                        x=x, y=1.0, xanchor="center", yanchor="bottom", font=dict(size=14))
                                   for a, x in zip(ALIGNS, (0.23, 0.77))])
    return figure(data, lay)


def sizes_figure(rows: list[dict], lang: str = "en") -> go.Figure:
    """rows: lessons.size_examples(...). data[0] score-matrix bytes, data[1] O + LSE bytes (log y)."""
    labels = [t("lessons.size_label", lang, n=f"{r['n']:,}", h=r["heads"]) for r in rows]
    data = [go.Bar(x=labels, y=[r["scores"] for r in rows], name=t("lessons.size_scores", lang),
                   marker_color=P.VERMILLION, text=[_fmt_bytes(r["scores"]) for r in rows], textposition="outside"),
            go.Bar(x=labels, y=[r["kept"] for r in rows], name=t("lessons.size_kept", lang), marker_color=P.GREEN,
                   text=[_fmt_bytes(r["kept"]) for r in rows], textposition="outside")]
    lay = base_layout(t("lessons.size_title", lang), height=420, barmode="group",
                      xaxis=axis(""), yaxis=axis(t("lessons.axis_bytes", lang), type="log"))
    return go.Figure(data=data, layout=lay)


def fusion_figure(stages: list[dict], fused: int, lang: str = "en") -> go.Figure:
    """Stacked reads + writes per unfused kernel (data[0] reads, data[1] writes), then the fused kernel's bar
    (data[2]), in MB of one (batch, head)."""
    names = [t(f"lessons.stage_{s['stage']}", lang) for s in stages]
    data = [go.Bar(x=names, y=[s["reads"] / 1e6 for s in stages], name=t("lessons.reads", lang),
                   marker_color=P.SKY_BLUE),
            go.Bar(x=names, y=[s["writes"] / 1e6 for s in stages], name=t("lessons.writes", lang),
                   marker_color=P.VERMILLION),
            go.Bar(x=[t("lessons.stage_fused", lang)], y=[fused / 1e6], name=t("lessons.fused", lang),
                   marker_color=P.GREEN)]
    total = sum(s["reads"] + s["writes"] for s in stages)
    lay = base_layout(t("lessons.fusion_title", lang, total=f"{total / 1e6:,.2f}", fused=f"{fused / 1e6:,.3f}"),
                      height=420, barmode="stack", xaxis=axis(""), yaxis=axis(t("lessons.axis_mb_head", lang)))
    return go.Figure(data=data, layout=lay)
