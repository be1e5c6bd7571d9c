"""Charts of the recorded intra-kernel timelines (flashviz.bench.timeline_dataset cells in, Figures out).

gantt_figure   one CTA of one kernel: a row per warp, a horizontal bar per scope occurrence (colour = scope),
               time from the CTA's first recorded event; µs at the recorded SM clock, else thousands of cycles
window_figure  a few loop iterations of each kernel (flashviz.engine.kernel_timeline.window), one row per warp role
shares_figure  per implementation and warp role: the share of the CTA's time spent inside each scope (mean over
               all CTAs), and the rest ("outside any scope") in grey
Times in the dataset are SM cycles; every number drawn comes from the cell.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..engine import kernel_timeline as kt
from ..i18n import STRINGS, t
from . import palette as P
from .common import axis, base_layout, figure

# waits for a free ring slot in dark grey: light grey is "outside any scope"; V's copy and wait are hatched
SCOPE_COLORS = {"load_k": P.SKY_BLUE, "tma_issue": P.SKY_BLUE, "tma_wait_slot": P.DARK_GREY,
                "tma_issue_v": P.SKY_BLUE, "tma_wait_slot_v": P.DARK_GREY, "wait_kv": P.PURPLE,
                "wait_turn": P.YELLOW, "qk": P.BLUE, "softmax": P.ORANGE, "load_v_pv": P.GREEN, "pv": P.GREEN}
SCOPE_PATTERNS = {"tma_issue_v": "/", "tma_wait_slot_v": "/"}
OTHER_COLORS = (P.VERMILLION, P.PURPLE, P.YELLOW, P.DARK_GREY, P.BLACK)
LEGEND_PER_ROW = 4          # horizontal legend entries per row at the narrowest width the page lays charts out


def _marker(scope: str, scopes: list[str]) -> dict:
    m = dict(color=scope_color(scope, scopes))
    if scope in SCOPE_PATTERNS:
        m["pattern"] = dict(shape=SCOPE_PATTERNS[scope], fillmode="overlay", fgcolor=P.WHITE, solidity=0.3)
    return m


def _legend_px(entries: int) -> int:
    """Pixels a horizontal legend of this many entries takes (rows of LEGEND_PER_ROW, ~22 px each)."""
    return 22 * -(-entries // LEGEND_PER_ROW)


def scope_color(scope: str, scopes: list[str]) -> str:
    if scope in SCOPE_COLORS:
        return SCOPE_COLORS[scope]
    unknown = [s for s in scopes if s not in SCOPE_COLORS]
    return OTHER_COLORS[unknown.index(scope) % len(OTHER_COLORS)] if scope in unknown else P.GREY


def time_unit(clock_mhz: float | None) -> tuple[float, str]:
    """(cycles per displayed unit, unit key): µs at the recorded clock, else thousands of cycles."""
    return (float(clock_mhz), "us") if clock_mhz else (1000.0, "kcycles")


def warp_label(warp: int, role: str, lang: str) -> str:
    return t("inside.warp_label", lang, w=warp, role=role_label(role, lang))


def role_label(role: str, lang: str) -> str:
    if role == "producer":
        return t("inside.role_producer", lang)
    if role.startswith("warpgroup "):
        return t("inside.role_wg", lang, k=role.split()[1])
    return role


def scope_label(scope: str, lang: str) -> str:
    """A scope's name in words (inside.scope_<name>), else the name itself."""
    key = f"inside.scope_{scope}"
    return t(key, lang) if key in STRINGS else scope


def _bars(rows: list, div: float, shift: float = 0.0) -> dict:
    """x (duration), base (start) and customdata [warp, start, duration, cycles] as float32 arrays (Plotly 7 sends
    numpy arrays as compact binary): a whole CTA is thousands of bars."""
    a = np.asarray([(r[0], r[2], r[3]) for r in rows], dtype=np.float64).reshape(-1, 3)
    start, dur = (a[:, 1] - shift) / div, a[:, 2] / div
    return dict(x=dur.astype(np.float32), base=start.astype(np.float32),
                customdata=np.stack([a[:, 0], start, dur, a[:, 2]], axis=1).astype(np.float32))


def gantt_figure(cell: dict, lang: str, *, clock_mhz: float | None, title: str = "", x_max: float | None = None
                 ) -> go.Figure:
    """The kept CTA's scopes per warp. x_max (in the displayed unit) lets two figures share one time axis.
    Rows are numbered (one label per warp on the axis), so the thousands of bars carry no repeated strings."""
    div, unit = time_unit(clock_mhz)
    order = {w: i for i, w in enumerate(cell["warps"])}
    labels = [warp_label(w, r, lang) for w, r in zip(cell["warps"], cell["roles"])]
    data = []
    for i, scope in enumerate(cell["scopes"]):
        rows = [r for r in cell["timeline"] if r[1] == i]
        if not rows:
            continue
        data.append(dict(
            type="bar", orientation="h", name=scope_label(scope, lang), y=np.asarray([order[r[0]] for r in rows],
                                                                                      dtype=np.int16),
            marker=dict(_marker(scope, cell["scopes"]), line=dict(width=0)), **_bars(rows, div),
            hovertemplate=t(f"inside.hover_{unit}", lang) + "<extra></extra>", meta=scope))
    span = cell["cta"]["span_cycles"] / div
    xaxis = axis(t(f"inside.axis_{unit}", lang, clock=f"{clock_mhz:g}" if clock_mhz else ""),
                 range=[0, (x_max or span) * 1.01])
    top, bottom = 50, 80 + _legend_px(len(data))
    height = max(300, top + bottom + 26 * len(labels))
    below = -70 / (height - top - bottom)            # the legend 70 px under the plot, clear of the axis title
    yaxis = axis("", tickvals=list(range(len(labels))), ticktext=labels, autorange="reversed", showgrid=False)
    return figure(data, base_layout(title, height=height, barmode="overlay", bargap=0.25, xaxis=xaxis, yaxis=yaxis,
                                    legend=dict(orientation="h", yanchor="top", y=below, xanchor="left", x=0.0),
                                    margin=dict(l=150, r=20, t=top, b=bottom)))


def window_figure(panels: list[tuple[dict, kt.Window]], lang: str, *, clock_mhz: float | None,
                  title: str = "") -> go.Figure:
    """A few loop iterations of each kernel, one row per warp role (its first warp speaks for the warpgroup), on one
    time scale: each kernel's rows start at its own window's start; the axis spans the longest window. Dotted lines
    mark where each Q·Kᵀ of the first consumer warpgroup begins (one per key tile)."""
    div, unit = time_unit(clock_mhz)
    length = max((w.end - w.start for _, w in panels), default=0) / div
    labels, data, shapes, seen = [], [], [], set()
    for cell, win in panels:
        lead = kt.lead_warps(cell)
        roles = (["producer"] if "producer" in lead else []) + kt.consumer_roles(cell)
        top = len(labels)
        for role in roles:
            warp, y = lead[role], len(labels)
            labels.append(t("inside.window_row", lang, impl=cell["impl"], role=role_label(role, lang), w=warp))
            for i, scope in enumerate(cell["scopes"]):
                rows = [r for r in cell["timeline"] if r[0] == warp and r[1] == i
                        and r[2] + r[3] > win.start and r[2] < win.start + length * div]
                if not rows:
                    continue
                name = scope_label(scope, lang)
                data.append(dict(type="bar", orientation="h", name=name, legendgroup=name, showlegend=name not in seen,
                                 y=np.full(len(rows), y, dtype=np.int16), meta=scope,
                                 marker=dict(_marker(scope, cell["scopes"]), line=dict(width=0)),
                                 **_bars(rows, div, shift=win.start),
                                 hovertemplate=t(f"inside.hover_{unit}", lang) + "<extra></extra>"))
                seen.add(name)
        consumers = kt.consumer_roles(cell)
        if consumers:
            marks = kt.intervals(cell, lead[consumers[0]], (kt.TILE_MARK,))[:, 0]
            for m in marks[(marks >= win.start) & (marks <= win.start + length * div)]:
                x = (m - win.start) / div
                shapes.append(dict(type="line", x0=x, x1=x, y0=top - 0.5, y1=len(labels) - 0.5, xref="x", yref="y",
                                   line=dict(color=P.DARK_GREY, width=1, dash="dot")))
        if top and roles:
            shapes.append(dict(type="line", xref="paper", x0=0, x1=1, y0=top - 0.5, y1=top - 0.5, yref="y",
                               line=dict(color=P.BLACK, width=1)))
    top_px, bottom = 50, 80 + _legend_px(len(seen))
    height = max(260, top_px + bottom + 38 * len(labels))
    xaxis = axis(t(f"inside.axis_window_{unit}", lang, clock=f"{clock_mhz:g}" if clock_mhz else ""),
                 range=[0, length])
    yaxis = axis("", tickvals=list(range(len(labels))), ticktext=labels, range=[len(labels) - 0.5, -0.5],
                 showgrid=False)
    return figure(data, base_layout(title, height=height, barmode="overlay", bargap=0.3, xaxis=xaxis, yaxis=yaxis,
                                    shapes=shapes, legend=dict(orientation="h", yanchor="top",
                                                               y=-70 / (height - top_px - bottom), xanchor="left",
                                                               x=0.0),
                                    margin=dict(l=230, r=20, t=top_px, b=bottom)))


def share_rows(cells: list[dict]) -> list[tuple[str, str, dict[str, float]]]:
    """(impl, role, {scope: share}) per implementation and warp role, in the cells' order, for status-ok cells."""
    out = []
    for c in cells:
        if c["status"] != "ok":
            continue
        for role in dict.fromkeys(c["roles"]):
            out.append((c["impl"], role, {s["scope"]: s["share"] for s in c["shares"] if s["role"] == role}))
    return out


def shares_figure(cells: list[dict], lang: str, *, title: str = "") -> go.Figure:
    """Stacked horizontal bars in percent of the CTA's time: one bar per (implementation, role)."""
    rows = share_rows(cells)
    ys = [f"{impl} · {role_label(role, lang)}" for impl, role, _ in rows]
    scopes = list(dict.fromkeys(s for c in cells if c["status"] == "ok" for s in c["scopes"]))
    data = []
    for scope in scopes:
        xs = [100 * shares.get(scope, 0.0) for _, _, shares in rows]
        if not any(xs):
            continue
        data.append(dict(type="bar", orientation="h", name=scope_label(scope, lang), y=ys, x=xs, meta=scope,
                         marker=_marker(scope, scopes),
                         hovertemplate=t("inside.hover_share", lang) + "<extra></extra>"))
    rest = [max(0.0, 100 * (1 - sum(shares.values()))) for _, _, shares in rows]
    data.append(dict(type="bar", orientation="h", name=t("inside.outside", lang), y=ys, x=rest,
                     marker=dict(color=P.GREY),
                     hovertemplate=t("inside.hover_share", lang) + "<extra></extra>"))
    top, bottom = 50, 80 + _legend_px(len(data))
    height = max(260, top + bottom + 40 * len(ys))
    return figure(data, base_layout(title or t("inside.shares_title", lang), height=height,
                                    barmode="stack", xaxis=axis(t("inside.axis_share", lang), range=[0, 100]),
                                    yaxis=axis("", type="category", autorange="reversed"),
                                    legend=dict(orientation="h", yanchor="top", y=-70 / (height - top - bottom),
                                                xanchor="left", x=0.0, traceorder="normal"),
                                    margin=dict(l=190, r=20, t=top, b=bottom)))
