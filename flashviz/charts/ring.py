"""Charts of the page "Ring attention": simulation data (flashviz.engine.ring) in, plotly Figures out (no streamlit).

ring_figure      W devices on a circle at one step: the query chunks each owns, the K/V block it holds, busy
                 or idle (causal), the blocks on their way to the next device
matrix_figure    the N x N score matrix by global position: computed this step / before / later / masked,
                 each query row's owner in a strip on the left, the tracked rows outlined
state_figure     each device's running m and ℓ of its tracked query row after every step, the single pass's
work_figure      visible (query, key) pairs per device and step, contiguous next to zigzag (idle = 0)
timeline_figure  the cost model's compute and transfer bars per device (flashviz.engine.ring.timeline)
The recorded two-GPU measurement: charts/ring_measured.py. Every label goes through t(key, lang).
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from ..i18n import t
from ..engine.ring import (CELL_CURRENT, CELL_DONE, CELL_MASKED, CELL_PENDING, RingSim, Timeline, chunks_of, imbalance,
                           matrix_states, owner)
from . import palette as P
from .common import axis, axis_name, base_layout, cell_axes, figure, fmt_num, merge, subplot_layout

CELL_COLORS = {CELL_MASKED: P.WHITE, CELL_PENDING: P.GREY, CELL_DONE: P.DARK_GREY, CELL_CURRENT: P.ORANGE}
CELL_KEYS = {CELL_MASKED: "ring.cell_masked", CELL_PENDING: "ring.cell_pending", CELL_DONE: "ring.cell_done",
             CELL_CURRENT: "ring.cell_current"}
BUSY, IDLE = P.ORANGE, P.GREY


DEVICE_COLORS = (P.BLUE, P.GREEN, P.VERMILLION, P.PURPLE, P.SKY_BLUE, P.YELLOW, P.BLACK, P.BROWN)   # no orange/grey


def device_color(r: int) -> str:
    return DEVICE_COLORS[r % len(DEVICE_COLORS)]


def _chunks(r: int, world: int, layout: str) -> str:
    return ", ".join(f"C{c}" for c in chunks_of(r, world, layout))


def _legend(name: str, color: str, symbol: str = "square") -> dict:
    return dict(type="scatter", x=[None], y=[None], mode="markers", name=name, hoverinfo="skip",
                marker=dict(symbol=symbol, size=13, color=color, line=dict(color=P.OUTLINE, width=1)))


# ----------------------------------------------------------------------------- the ring

def ring_figure(sim: RingSim, step: int, lang: str = "en", *, height: int = 520) -> go.Figure:
    """fig.data[0]: one marker per device (customdata: [device, block held, work]); one arrow annotation per
    transfer in flight (none at the last step)."""
    w = sim.world
    ang = np.pi / 2 - 2 * np.pi * np.arange(w) / w
    x, y = np.cos(ang), np.sin(ang)
    held = sim.held[step]
    work = sim.work[step]
    colors = [BUSY if work[r] > 0 else IDLE for r in range(w)]
    short = height < 500                                 # a short figure: its labels in the hover only
    text = [t("ring.device_label", lang, r=r, q=_chunks(r, w, sim.layout), src=int(held[r]),
              k=_chunks(int(held[r]), w, sim.layout),
              work=t("ring.idle", lang) if work[r] == 0 else t("ring.pairs", lang, n=int(work[r])))
            for r in range(w)]
    pos = ["middle center"] * w
    dev = dict(type="scatter", x=x, y=y, mode="markers+text", text=[f"GPU {r}" for r in range(w)],
               textposition=pos, textfont=dict(color="white", size=13), name="",
               marker=dict(size=58, color=colors, line=dict(color=P.STRONG_OUTLINE, width=2)),
               customdata=np.stack([np.arange(w), held, work], axis=1), hovertext=text,
               hovertemplate="%{hovertext}<extra></extra>", showlegend=False)
    notes = []
    for r in range(w) if not short else ():             # the label outside its device (a short figure: hover only)
        side = "left" if x[r] > 0.3 else "right" if x[r] < -0.3 else "center"
        vert = "bottom" if side == "center" and y[r] > 0 else "top" if side == "center" else "middle"
        dx = 0.28 if side == "left" else -0.28 if side == "right" else 0.0
        dy = 0.3 if vert == "bottom" else -0.3 if vert == "top" else 0.0
        notes.append(dict(x=x[r] + dx, y=y[r] + dy, text=text[r], showarrow=False, font=dict(size=12),
                          xanchor=side, yanchor=vert, align="center" if side == "center" else side))
    arrows = []
    if w > 1 and step + 1 < w:
        for r in range(w):
            nxt = (r + 1) % w
            a, b = np.array([x[r], y[r]]), np.array([x[nxt], y[nxt]])
            u = (b - a) / max(np.linalg.norm(b - a), 1e-9)
            perp = np.array([u[1], -u[0]]) * 0.12             # right of the direction of travel: W = 2 has two
            a2, b2 = a + 0.24 * u + perp, b - 0.24 * u + perp  # arrows on one line, side by side
            arrows.append(dict(x=b2[0], y=b2[1], ax=a2[0], ay=a2[1], xref="x", yref="y", axref="x", ayref="y",
                               showarrow=True, arrowhead=3, arrowsize=1.2, arrowwidth=2.5, arrowcolor=P.BLUE, text=""))
            away = perp if w == 2 else -perp                   # the label beside its arrow, outside the ring
            mid = (a2 + b2) / 2 + away / np.linalg.norm(away) * 0.06
            anchor = "left" if away[0] > 1e-9 else "right" if away[0] < -1e-9 else "center"
            notes.append(dict(x=mid[0], y=mid[1], text=t("ring.sending", lang, src=int(held[r])), showarrow=False,
                              xanchor=anchor, yanchor="middle" if anchor != "center" else
                              ("bottom" if away[1] > 0 else "top"), font=dict(size=11, color=P.BLUE),
                              bgcolor=P.VEIL))
    data = [dev, _legend(t("ring.busy", lang), BUSY, "circle"), _legend(t("ring.idle", lang), IDLE, "circle"),
            dict(type="scatter", x=[None], y=[None], mode="lines", name=t("ring.in_flight", lang),
                 line=dict(color=P.BLUE, width=3))]
    lay = base_layout(t("ring.ring_title", lang, s=step + 1, w=w), height=height,
                      xaxis=dict(visible=False, range=[-1.9, 1.9] if short else [-2.6, 2.6]),
                      # a short figure keeps the x range (the labels) and lets y follow the aspect ratio
                      yaxis=dict(visible=False, scaleanchor="x", **({} if short else {"range": [-1.8, 1.8]})),
                      margin=dict(l=10, r=10, t=50, b=60))
    if arrows or notes:
        lay["annotations"] = arrows + notes
    lay["legend"].update(y=-0.02)
    return figure(data, lay)


# ----------------------------------------------------------------------------- the score matrix

def matrix_figure(sim: RingSim, step: int, lang: str = "en", *, height: int = 560,
                  legend_right: bool = False) -> go.Figure:
    """fig.data[0].z: CELL_* codes (queries by row, keys by column); fig.data[1]: each row's owner. legend_right:
    the legend in a column right of the matrix (a short figure keeps its plot square)."""
    n, w = sim.n, sim.world
    z = matrix_states(w, n, sim.layout, sim.causal, step)
    scale = []
    for code in range(4):
        scale += [[code / 4, CELL_COLORS[code]], [(code + 1) / 4, CELL_COLORS[code]]]
    names = np.array([t(CELL_KEYS[c], lang) for c in range(4)], dtype=object)
    heat = dict(type="heatmap", z=z, x=np.arange(n), y=np.arange(n), zmin=0, zmax=4, colorscale=scale,
                showscale=False, customdata=names[z], xgap=1 if n <= 64 else 0, ygap=1 if n <= 64 else 0, name="",
                hovertemplate=t("ring.hover_cell", lang) + "<extra></extra>")
    own = owner(w, n, sim.layout)
    dscale = []
    for r in range(w):
        dscale += [[r / w, device_color(r)], [(r + 1) / w, device_color(r)]]
    strip = dict(type="heatmap", z=own[:, None], x=[-2], y=np.arange(n), zmin=0, zmax=w, colorscale=dscale,
                 showscale=False, name="", hovertemplate=t("ring.hover_owner", lang) + "<extra></extra>")
    shapes = [dict(type="rect", x0=-0.5, x1=n - 0.5, y0=int(i) - 0.5, y1=int(i) + 0.5,
                   line=dict(color=P.BLUE, width=2)) for i in sim.tracked]
    data = [heat, strip] + [_legend(t(CELL_KEYS[c], lang), CELL_COLORS[c])
                            for c in (CELL_CURRENT, CELL_DONE, CELL_PENDING, CELL_MASKED)]
    data += [_legend(f"GPU {r}", device_color(r)) for r in range(w)]
    data += [dict(type="scatter", x=[None], y=[None], mode="lines", name=t("ring.tracked_rows", lang),
                  line=dict(color=P.BLUE, width=2))]
    lay = base_layout(t("ring.matrix_title", lang, s=step + 1, w=w), height=height, shapes=shapes,
                      plot_bgcolor=P.GAP,
                      xaxis=axis(t("ring.axis_key", lang), side="top", range=[-2.5, n - 0.5], showgrid=False,
                                 zeroline=False),
                      yaxis=axis(t("ring.axis_query", lang), range=[n - 0.5, -0.5], showgrid=False, zeroline=False),
                      margin=dict(l=70, r=20, t=90, b=130))
    if legend_right:
        lay.update(margin=dict(l=60, r=10, t=105, b=10), title=dict(lay["title"], y=0.99, yanchor="top"),
                   legend=dict(orientation="v", x=1.02, xanchor="left", y=1.0, yanchor="top"))
    return figure(data, lay)


# ----------------------------------------------------------------------------- running (m, ℓ)

def state_figure(sim: RingSim, step: int, lang: str = "en") -> go.Figure:
    """Row 1: m, row 2: ℓ after steps 1..step+1, one line per device; diamonds: the single pass over all keys.
    Built from dicts (make_subplots' grid once per process: charts.common.subplot_layout)."""
    lay = subplot_layout(2, 1, (t("ring.state_m", lang), t("ring.state_l", lang)), shared_xaxes=True,
                         vertical_spacing=0.08)
    xs = np.arange(1, step + 2)
    data = []
    for r in range(sim.world):
        col = device_color(r)
        name = t("ring.state_row", lang, r=r, i=int(sim.tracked[r]))
        for row, vals in ((1, sim.m[: step + 1, r]), (2, sim.l[: step + 1, r])):
            y = np.where(np.isfinite(vals), vals, np.nan)
            data.append(dict(type="scatter", x=xs, y=y, mode="lines+markers", name=name, legendgroup=str(r),
                             showlegend=row == 1, line=dict(color=col, width=2),
                             hovertemplate=t("ring.hover_state", lang) + "<extra></extra>", **cell_axes(row, 1, 1)))
        for row, v in ((1, sim.single[r].m), (2, sim.single[r].l)):
            data.append(dict(type="scatter", x=[sim.world + 0.35], y=[v], mode="markers", legendgroup=str(r),
                             showlegend=False, marker=dict(symbol="diamond", size=11, color=col),
                             hovertemplate=t("ring.hover_single", lang) + "<extra></extra>", **cell_axes(row, 1, 1)))
    merge(lay, base_layout(t("ring.state_title", lang, s=step + 1, w=sim.world), height=520))
    merge(lay["xaxis"], dict(axis(), range=[0.5, sim.world + 0.8], dtick=1))
    merge(lay["xaxis2"], dict(axis(t("ring.axis_step", lang)), range=[0.5, sim.world + 0.8], dtick=1))
    merge(lay["yaxis"], axis())
    merge(lay["yaxis2"], axis())
    return figure(data, lay)


# ----------------------------------------------------------------------------- work per step

def work_figure(contiguous: np.ndarray, zigzag: np.ndarray, lang: str = "en") -> go.Figure:
    """Two heatmaps (steps down, devices across): fig.data[0].z contiguous, fig.data[1].z zigzag."""
    titles = []
    for name, wk in (("contiguous", contiguous), ("zigzag", zigzag)):
        im = imbalance(wk)
        titles.append(t("ring.work_panel", lang, layout=t(f"ring.layout_{name}", lang), idle=im["idle"],
                        ratio=f"{im['critical_over_ideal']:.2f}"))
    lay = subplot_layout(1, 2, titles, horizontal_spacing=0.08)
    top = max(int(contiguous.max()), int(zigzag.max()), 1)
    data = []
    for c, wk in enumerate((contiguous, zigzag), start=1):
        s, w = wk.shape
        text = [[t("ring.idle", lang) if v == 0 else f"{int(v):,}" for v in row] for row in wk]
        heat = dict(type="heatmap", z=wk, x=[f"GPU {r}" for r in range(w)], y=[str(i + 1) for i in range(s)],
                    zmin=0, zmax=top, colorscale=[[0, P.HEAT_LOW], [1, P.ORANGE]], showscale=False, text=text,
                    xgap=2, ygap=2, hovertemplate=t("ring.hover_work", lang) + "<extra></extra>", **cell_axes(1, c, 2))
        if w * s <= 144:
            heat["texttemplate"] = "%{text}"
        data.append(heat)
        merge(lay[axis_name("y", 1, c, 2)], dict(axis(t("ring.axis_step", lang) if c == 1 else ""),
                                                 autorange="reversed"))
        merge(lay[axis_name("x", 1, c, 2)], axis())
    merge(lay, base_layout(t("ring.work_title", lang), height=max(300, 90 + 34 * contiguous.shape[0])))
    return figure(data, lay)


# ----------------------------------------------------------------------------- cost-model timeline

def timeline_figure(tl: Timeline, lang: str = "en", *, title: str = "") -> go.Figure:
    """fig.data[0]: compute bars (base = start, x = duration, ms); fig.data[1]: incoming transfers."""
    w = tl.compute.shape[1]
    ms = 1e3
    ys = [f"GPU {r}" for r in range(w)]
    cx, cb, cy, ctext = [], [], [], []
    for s in range(w):
        for r in range(w):
            if tl.compute[s, r] > 0:
                cx.append(tl.compute[s, r] * ms)
                cb.append(tl.start[s, r] * ms)
                cy.append(ys[r])
                ctext.append(str(s + 1))
    comp = dict(type="bar", orientation="h", x=cx, base=cb, y=cy, name=t("ring.tl_compute", lang), text=ctext,
                textposition="inside", insidetextanchor="middle", textangle=0,
                marker=dict(color=P.ORANGE, line=dict(color="white", width=1.5)), offsetgroup="c",
                width=0.45, hovertemplate=t("ring.hover_tl", lang) + "<extra></extra>")
    xs = tl.xfer_end - tl.xfer_start
    tr = dict(type="bar", orientation="h", x=(xs * ms).ravel().tolist(), base=(tl.xfer_start * ms).ravel().tolist(),
              y=[ys[r] for _ in range(xs.shape[0]) for r in range(w)], name=t("ring.tl_transfer", lang),
              marker=dict(color=P.BLUE), offsetgroup="x", width=0.3,
              hovertemplate=t("ring.hover_tl", lang) + "<extra></extra>")
    end = tl.total_s * ms
    lay = base_layout(title or t("ring.tl_title", lang), height=max(300, 120 + 48 * w), barmode="overlay",
                      xaxis=axis(t("ring.axis_ms", lang), range=[0, end * 1.04 if end > 0 else 1]),
                      yaxis=axis("", autorange="reversed"),
                      shapes=[dict(type="line", x0=end, x1=end, y0=-0.5, y1=w - 0.5,
                                   line=dict(color=P.BLACK, dash="dot"))],
                      annotations=[dict(x=end, y=-0.5, yanchor="bottom", showarrow=False, font=dict(size=12),
                                        text=t("ring.tl_end", lang, ms=fmt_num(end, 3)))])
    return figure([comp, tr], lay)


def human_ms(seconds: float) -> str:
    """Seconds as a short millisecond string for captions."""
    v = seconds * 1e3
    return f"{v:.3g}" if v < 100 else f"{v:,.0f}" if math.isfinite(v) else "—"
