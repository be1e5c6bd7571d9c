"""Charts of the hardware page: roofline and measured-vs-formula HBM bytes. No streamlit.

roofline_figure   log-log: the GPU's bandwidth and compute roofs, the ridge point, the SRAM-only model's
                  intensities of naive / FA1 / FA2 (on the roof: the model's ceiling, which the L2 lets a real
                  kernel pass), and recorded speeds at the intensity of the bytes Nsight measured
hbm_bytes_figure  per impl: the engine's formula bytes next to the bytes Nsight Compute measured
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..engine.hardware import gpu
from ..i18n import t
from . import palette as P
from .common import axis, base_layout
from .speed import IMPL_STYLE, impl_label

ALGO_STYLE = {"standard": (P.VERMILLION, "circle"), "fa1": (P.PURPLE, "square"), "fa2": (P.BLUE, "diamond")}


def roofline_figure(gpu_name: str, points: dict, measured: list[dict], lang: str = "en") -> go.Figure:
    """points: {algo: roofline.Point} (the SRAM-only model); measured: roofline.measured_bytes_points(...) (recorded
    speed at the intensity of the measured bytes). y in TFLOP/s, x in FLOP/byte. fig.data[0] is the roof (x, y),
    data[1] the ridge; then one trace per algo (model), then one per measured impl."""
    g = gpu(gpu_name)
    peak, bw = g["peak_fp16"], g["hbm_bw"]
    ridge = peak / bw
    xs = [p.intensity for p in points.values()] + [m["intensity"] for m in measured]
    lo = min([ridge, *xs]) / 4
    hi = max([ridge, *xs]) * 4
    roof_x = np.array([lo, ridge, hi])
    roof_y = np.minimum(peak, bw * roof_x) / 1e12
    data = [go.Scatter(x=roof_x, y=roof_y, mode="lines", name=t("hardware.roof", lang, gpu=g["name"]),
                       line=dict(color=P.BLACK, width=3),
                       hovertemplate="I = %{x:.3g} FLOP/B<br>%{y:.4g} TFLOP/s<extra></extra>"),
            go.Scatter(x=[ridge], y=[peak / 1e12], mode="markers+text", name=t("hardware.ridge", lang, x=ridge),
                       text=[t("hardware.ridge_short", lang, x=ridge)], textposition="bottom right",
                       marker=dict(color=P.BLACK, size=9, symbol="x"), hoverinfo="skip")]
    for algo, p in points.items():
        color, symbol = ALGO_STYLE[algo]
        y = min(peak, bw * p.intensity) / 1e12
        data.append(go.Scatter(x=[p.intensity], y=[y], mode="markers", name=t(f"hardware.algo_{algo}", lang),
                               marker=dict(color=color, size=12, symbol=symbol + "-open", line=dict(width=2)),
                               hovertemplate=t("hardware.hover_model", lang) + "<extra></extra>",
                               customdata=[[p.flops, p.bytes]]))
    by_impl: dict[str, list[dict]] = {}
    for m in measured:
        by_impl.setdefault(m["impl"], []).append(m)
    for impl, ms in by_impl.items():
        color, symbol, _ = IMPL_STYLE.get(impl, (P.DARK_GREY, "circle", "solid"))
        data.append(go.Scatter(
            x=[m["intensity"] for m in ms], y=[m["achieved"] / 1e12 for m in ms], mode="markers+text",
            name=t("hardware.measured", lang, impl=impl_label(impl, lang)),
            text=[impl_label(impl, lang)] * len(ms), textposition="top left",
            marker=dict(color=color, size=13, symbol=symbol.removesuffix("-open"), line=dict(color=P.INK, width=1)),
            customdata=[[m["dtype"], m["batch"], m["heads"], m["ms"], m["bytes_per_head"]] for m in ms],
            hovertemplate=t("hardware.hover_measured", lang) + "<extra></extra>"))
    lay = base_layout(t("hardware.roofline_title", lang, gpu=g["name"]), height=480,
                      xaxis=axis(t("hardware.axis_intensity", lang), type="log"),
                      yaxis=axis(t("hardware.axis_flops", lang), type="log"),
                      margin=dict(l=70, r=20, t=50, b=150),
                      legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0.0))
    return go.Figure(data=data, layout=lay)


def hbm_bytes_figure(rows: list[dict], lang: str = "en") -> go.Figure:
    """rows: [{impl, formula, measured, measured_reads, measured_writes}] (bytes of one call).
    Two bar traces: formula (data[0]) and measured reads + writes (data[1], stacked parts in hover)."""
    names = [impl_label(r["impl"], lang) for r in rows]
    data = [go.Bar(x=names, y=[r["formula"] / 1e6 for r in rows], name=t("hardware.bytes_formula", lang),
                   marker_color=P.GREY, marker_line=dict(color=P.OUTLINE, width=1),
                   hovertemplate="%{x}: %{y:,.2f} MB<extra></extra>"),
            go.Bar(x=names, y=[r["measured"] / 1e6 for r in rows], name=t("hardware.bytes_measured", lang),
                   marker_color=P.BLUE,
                   customdata=[[r["measured_reads"] / 1e6, r["measured_writes"] / 1e6] for r in rows],
                   hovertemplate=t("hardware.hover_bytes", lang) + "<extra></extra>")]
    lay = base_layout(t("hardware.bytes_title", lang), height=400, barmode="group",
                      xaxis=axis(""), yaxis=axis(t("hardware.axis_mb", lang), type="log"))
    return go.Figure(data=data, layout=lay)
