"""Charts of the page "Blocks and memory traffic": tiling / decoding data in, plotly Figure out (no streamlit).

grid_figure          the Tr x Tc grid of score blocks S_ij at step t: pending / done / on chip / skipped,
                     masked (diagonal) blocks crossed, the on-chip Q row and K/V column outlined
traffic_bars_figure  HBM traffic per tensor: so far, whole run, standard attention
traffic_vs_m_figure  exact HBM accesses of standard / FA1 / FA2 vs SRAM size M, with the Θ curves
traffic_vs_n_figure  the same vs sequence length N
decoding_figure      flash-decoding: each worker's share and partial o/ℓ, the merge vs the single pass
paged_figure         the block table: logical blocks (visit order) -> shuffled physical blocks

Block indices are 0-based like the kernel's program ids (the paper counts from 1); steps are shown
1-based. Every label goes through t(key, lang). Colours: Okabe-Ito (palette.py).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..engine.decoding import DecodeResult, PagedResult
from ..infra.errors import InputError
from ..i18n import t
from ..engine.tiling import GRID_CURRENT, GRID_DONE, GRID_PENDING, GRID_SKIPPED, MASKED, TENSORS, IOCounts, Schedule
from ..engine.traffic import Sweep
from . import palette as P
from .common import axis_name, cell_axes, figure, merge, subplot_layout

FONT = "Source Sans Pro, Noto Sans CJK SC, Noto Sans SC, Microsoft YaHei, Arial, sans-serif"
GRID_COLORS = {GRID_PENDING: P.GREY, GRID_DONE: P.DARK_GREY, GRID_CURRENT: P.ORANGE, GRID_SKIPPED: P.WHITE}
GRID_KEYS = {GRID_PENDING: "blocks.state_pending", GRID_DONE: "blocks.state_done",
             GRID_CURRENT: "blocks.state_current", GRID_SKIPPED: "blocks.state_skipped"}
Q_ROW_COLOR, KV_COL_COLOR = P.BLUE, P.PURPLE
SHOWN = {"l": "ℓ", "L": "L = m + log ℓ"}   # tensor names as the paper writes them
MAX_HOVER_CELLS = 1 << 14      # per-cell hover text up to this many blocks
MAX_PARTIAL_POINTS = 4096      # per-worker markers in the decoding chart up to W x d points


def block_layout(title: str, *, height: int = 420, **kw) -> dict:
    lay = dict(template="none", title=dict(text=title, x=0.01, xanchor="left", font=dict(size=15)),
               font=dict(family=FONT, size=13, color=P.INK), height=height, paper_bgcolor="white",
               plot_bgcolor="white", margin=dict(l=70, r=20, t=60, b=150),
               legend=dict(orientation="h", yanchor="top", y=-0.3, xanchor="left", x=0.0))
    lay.update(kw)
    return lay


def axis_style(title: str = "", **kw) -> dict:
    return dict(title=dict(text=title), gridcolor=P.GRID, linecolor=P.AXIS, showline=True,
                ticks="outside", **kw)


def _legend_square(name: str, color: str) -> dict:
    return dict(type="scatter", x=[None], y=[None], mode="markers", name=name, hoverinfo="skip",
                marker=dict(symbol="square", size=13, color=color, line=dict(color=P.OUTLINE, width=1)))


def _human(x: float) -> str:
    """1234567 -> '1.23e6'-style compact count for titles (exact numbers live in the traces)."""
    return f"{x:,.0f}" if abs(x) < 1e5 else f"{x:.3g}"


# ----------------------------------------------------------------------------- the block grid

def grid_figure(schedule: Schedule, step: int, lang: str = "en") -> go.Figure:
    """The Tr x Tc grid at `step`. fig.data[0].z holds the GRID_* states; fig.data[1] marks masked blocks;
    layout.shapes[0] outlines the on-chip Q row i, shapes[1] the on-chip K/V column j."""
    grid = schedule.grid_at(step)                                      # (Tr, Tc)
    s = schedule.step(step)
    tr, tc = grid.shape
    scale = []
    for code in range(4):                                              # a stepped colour scale, 4 codes
        scale += [[code / 4, GRID_COLORS[code]], [(code + 1) / 4, GRID_COLORS[code]]]
    gap = 1 if max(tr, tc) <= 64 else 0
    heat = dict(type="heatmap", z=grid, x=np.arange(tc), y=np.arange(tr), zmin=0, zmax=4, colorscale=scale,
                showscale=False, xgap=gap, ygap=gap, name="", hovertemplate=t("blocks.hover_block", lang)
                + ("<br>%{customdata}" if tr * tc <= MAX_HOVER_CELLS else "") + "<extra></extra>")
    if tr * tc <= MAX_HOVER_CELLS:
        names = np.array([t(GRID_KEYS[c], lang) for c in range(4)], dtype=object)
        heat["customdata"] = names[grid]
    mi, mj = np.nonzero(schedule.block_kind == MASKED)
    cell = max(4, min(22, 520 // max(tr, tc)))
    masked = dict(type="scatter", x=mj, y=mi, mode="markers", name=t("blocks.state_masked", lang), hoverinfo="skip",
                  marker=dict(symbol="line-ne", size=cell, color=P.BLACK, line=dict(color=P.BLACK, width=2)))
    data = [heat, masked] + [_legend_square(t(GRID_KEYS[c], lang), GRID_COLORS[c])
                             for c in (GRID_CURRENT, GRID_DONE, GRID_PENDING, GRID_SKIPPED)]
    data += [dict(type="scatter", x=[None], y=[None], mode="lines", name=t("blocks.onchip_q", lang, i=s.i),
                  line=dict(color=Q_ROW_COLOR, width=3)),
             dict(type="scatter", x=[None], y=[None], mode="lines", name=t("blocks.onchip_kv", lang, j=s.j),
                  line=dict(color=KV_COL_COLOR, width=3, dash="dot"))]
    shapes = [dict(type="rect", x0=-0.5, x1=tc - 0.5, y0=s.i - 0.5, y1=s.i + 0.5,
                   line=dict(color=Q_ROW_COLOR, width=3)),
              dict(type="rect", x0=s.j - 0.5, x1=s.j + 0.5, y0=-0.5, y1=tr - 0.5,
                   line=dict(color=KV_COL_COLOR, width=3, dash="dot"))]
    order = t("blocks.order_fa1" if schedule.order == "fa1" else "blocks.order_fa2", lang)
    c = schedule.cfg
    plot_h = int(min(560, max(240, 26 * tr)))                          # rows get ~26 px while they fit
    lay = block_layout(t("blocks.grid_title", lang, i=step + 1, n=schedule.steps, order=order), height=plot_h + 280,
                  shapes=shapes, plot_bgcolor=P.GAP,              # gaps show between white (skipped) cells
                  xaxis=axis_style(t("blocks.axis_kv", lang, bc=c.bc), side="top", range=[-0.5, tc - 0.5],
                              showgrid=False, zeroline=False),
                  yaxis=axis_style(t("blocks.axis_q", lang, br=c.br), range=[tr - 0.5, -0.5], showgrid=False,
                              zeroline=False),
                  margin=dict(l=70, r=20, t=120, b=150), legend=dict(orientation="h", y=-0.03, x=0, yanchor="top"))
    lay["title"].update(y=0.985, yref="container", yanchor="top")
    return figure(data, lay)


# ----------------------------------------------------------------------------- traffic per tensor

def _per_tensor(c: IOCounts, unit: str) -> dict:
    r, w = (c.reads_bytes, c.writes_bytes) if unit == "bytes" else (c.reads, c.writes)
    return {k: r[k] + w[k] for k in TENSORS}


def _check_unit(unit: str) -> None:
    if unit not in ("elements", "bytes"):
        raise InputError(key="errors.one_of", name="unit", choices="elements, bytes", got=repr(unit))


def _unit_total(c: IOCounts, unit: str) -> int:
    return c.total_bytes if unit == "bytes" else c.total


def traffic_bars_figure(sofar: IOCounts, total: IOCounts, standard: IOCounts, lang: str = "en",
                        unit: str = "elements") -> go.Figure:
    """Reads + writes per tensor: so far (fig.data[0]), whole run (data[1]), standard attention (data[2])."""
    _check_unit(unit)
    names = [k for k in TENSORS if any(_per_tensor(c, "elements")[k] for c in (sofar, total, standard))]
    data = []
    for counts, key, color in ((sofar, "blocks.bars_sofar", P.ORANGE), (total, "blocks.bars_total", P.BLUE),
                               (standard, "blocks.bars_standard", P.GREY)):
        vals = _per_tensor(counts, unit)
        data.append(dict(type="bar", y=[SHOWN.get(k, k) for k in names], x=[vals[k] for k in names],
                         orientation="h", name=t(key, lang), marker=dict(color=color),
                         hovertemplate="%{y}: %{x:,}<extra>" + t(key, lang) + "</extra>"))
    title = t("blocks.bars_title", lang, sofar=_human(_unit_total(sofar, unit)),
              total=_human(_unit_total(total, unit)), std=_human(_unit_total(standard, unit)))
    lay = block_layout(title, height=420, barmode="group",
                  xaxis=axis_style(t("blocks.axis_bytes" if unit == "bytes" else "blocks.axis_elements", lang)),
                  yaxis=axis_style(t("blocks.axis_tensor", lang), autorange="reversed"))
    return figure(data, lay)


# ----------------------------------------------------------------------------- traffic vs M, vs N

def _sweep_traces(sw: Sweep, x, lang: str, unit: str, theta_scale: float, std_scale: float) -> list:
    src = sw.bytes if unit == "bytes" else sw.elements
    per = sw.elem_bytes if unit == "bytes" else 1          # Θ counts elements; x element size for bytes
    def line(y, key, color, dash=None, **f):
        return dict(type="scatter", x=x, y=y, mode="lines+markers" if len(x) <= 40 else "lines",
                    name=t(key, lang, **f), marker=dict(size=6),
                    line=dict(color=color, width=2.5) if dash is None else dict(color=color, width=2, dash=dash))
    out = [line(src["standard"], "blocks.series_standard", P.VERMILLION),
           line(sw.theta_standard * std_scale * per, "blocks.series_theta_std", P.VERMILLION, "dot",
                c=f"{std_scale:g}"),
           line(src["fa1"], "blocks.series_fa1", P.BLUE),
           line(src["fa2"], "blocks.series_fa2", P.GREEN)]
    if np.isfinite(sw.theta_flash).any():
        out.append(line(sw.theta_flash * theta_scale * per, "blocks.series_theta_flash", P.BLUE, "dash",
                        c=f"{theta_scale:g}"))
    return out


def traffic_vs_m_figure(sw: Sweep, lang: str = "en", *, unit: str = "elements", theta_scale: float = 1.0,
                        std_scale: float = 1.0, mark_bytes: int | None = None,
                        presets: dict | None = None) -> go.Figure:
    """Log-log: x = M in KiB. Traces: standard, Θ(Nd+N²)·std_scale, FA1, FA2, Θ(N²d²/M)·theta_scale.
    theta_scale = 12 overlays FA1's leading term 12 N²d²/M; std_scale = 4 gives standard's exact 4(N²+Nd).
    `presets` {label: bytes} and `mark_bytes` draw vertical lines."""
    if sw.x_name != "M":
        raise InputError(key="errors.needs_sweep", what="traffic_vs_m_figure", over="M (tiling.sweep_sram)")
    _check_unit(unit)
    kib = sw.x / 1024
    shapes, notes = [], []
    marks = dict(presets or {})
    if mark_bytes is not None:
        marks[t("blocks.this_m", lang)] = mark_bytes
    for label, b in marks.items():
        shapes.append(dict(type="line", xref="x", yref="paper", x0=b / 1024, x1=b / 1024, y0=0, y1=1,
                           line=dict(color=P.DARK_GREY, width=1, dash="dot")))
        notes.append(dict(x=float(np.log10(b / 1024)), xref="x", y=1.0, yref="paper", text=label, showarrow=False,
                          textangle=-90, xanchor="right", yanchor="top", font=dict(size=11, color=P.DARK_GREY)))
    lay = block_layout(t("blocks.vs_m_title", lang, n=sw.n, d=sw.d), height=480, shapes=shapes, annotations=notes,
                  xaxis=axis_style(t("blocks.axis_m", lang), type="log"),
                  yaxis=axis_style(t("blocks.axis_bytes" if unit == "bytes" else "blocks.axis_elements", lang), type="log"))
    return figure(_sweep_traces(sw, kib, lang, unit, theta_scale, std_scale), lay)


def traffic_vs_n_figure(sw: Sweep, lang: str = "en", *, unit: str = "elements", theta_scale: float = 1.0,
                        std_scale: float = 1.0) -> go.Figure:
    """Log-log: x = N. Same traces as traffic_vs_m_figure (Θ(N²d²/M) only when the blocks came from M)."""
    if sw.x_name != "N":
        raise InputError(key="errors.needs_sweep", what="traffic_vs_n_figure", over="N (tiling.sweep_n)")
    _check_unit(unit)
    if sw.sram_bytes is not None:
        blocks = t("blocks.blocks_from_m", lang, m=f"{sw.sram_bytes / 1024:g}")
    else:
        blocks = t("blocks.blocks_pinned", lang, br=int(sw.br[-1]), bc=int(sw.bc[-1]))
    lay = block_layout(t("blocks.vs_n_title", lang, d=sw.d, blocks=blocks), height=480,
                  xaxis=axis_style(t("blocks.axis_n", lang), type="log"),
                  yaxis=axis_style(t("blocks.axis_bytes" if unit == "bytes" else "blocks.axis_elements", lang), type="log"))
    return figure(_sweep_traces(sw, sw.x, lang, unit, theta_scale, std_scale), lay)


# ----------------------------------------------------------------------------- flash-decoding

def decoding_figure(res: DecodeResult, lang: str = "en") -> go.Figure:
    """Left: each worker's share of the softmax mass (fig.data[0], text = its m). Right, per output dim:
    each worker's own o/ℓ (grey markers, if not too many), the merged o/ℓ (bars), the single pass
    (diamonds), the exact answer (green ticks). Trace names identify them."""
    w, d = res.workers, res.output.shape[0]
    lay = subplot_layout(1, 2, column_widths=[0.35, 0.65], horizontal_spacing=0.1)
    labels = [f"W{k}" for k in range(w)]
    hover = [t("blocks.dec_worker_hover", lang, w=k, lo=int(a), hi=int(b) - 1)
             for k, (a, b) in enumerate(zip(res.start, res.stop))]
    left, right = cell_axes(1, 1, 2), cell_axes(1, 2, 2)
    data = [dict(type="bar", x=labels, y=res.weights, name=t("blocks.dec_share", lang), marker=dict(color=P.SKY_BLUE),
                 text=[f"m={p.m:.3g}" for p in res.partials], textposition="outside", customdata=hover,
                 hovertemplate="%{customdata}<br>%{y:.4f}<extra></extra>", **left)]
    dims = np.arange(d)
    if w * d <= MAX_PARTIAL_POINTS:
        xs = np.tile(dims, w)
        ys = np.concatenate([p.output for p in res.partials])
        data.append(dict(type="scatter", x=xs, y=ys, mode="markers", name=t("blocks.dec_partial", lang),
                         marker=dict(color=P.GREY, size=6, line=dict(color=P.DARK_GREY, width=1)),
                         customdata=np.repeat(labels, d), hovertemplate="%{customdata}: %{y:.4f}<extra></extra>",
                         **right))
    data.append(dict(type="bar", x=dims, y=res.output, name=t("blocks.dec_merged", lang), marker=dict(color=P.BLUE),
                     opacity=0.8, **right))
    data.append(dict(type="scatter", x=dims, y=res.single.output, mode="markers", name=t("blocks.dec_single", lang),
                     marker=dict(symbol="diamond", size=9, color=P.BLACK), **right))
    data.append(dict(type="scatter", x=dims, y=res.exact, mode="markers", name=t("blocks.dec_exact", lang),
                     marker=dict(symbol="line-ew", size=22, color=P.GREEN, line=dict(color=P.GREEN, width=3)),
                     **right))
    with np.errstate(invalid="ignore"):
        diff = float(np.max(np.abs(res.output - res.single.output)))
    merge(lay, block_layout(t("blocks.dec_title", lang, w=w, diff=f"{diff:.1e}"), height=460, barmode="overlay"))
    merge(lay[axis_name("x", 1, 1, 2)], dict(title=dict(text=t("blocks.dec_worker", lang))))
    merge(lay[axis_name("y", 1, 1, 2)], dict(title=dict(text=t("blocks.dec_share", lang)), range=[0, 1.15]))
    merge(lay[axis_name("x", 1, 2, 2)], dict(title=dict(text=t("blocks.dec_dim", lang))))
    return figure(data, lay)


# ----------------------------------------------------------------------------- paged

def paged_figure(res: PagedResult, lang: str = "en", step: int | None = None) -> go.Figure:
    """Top row (y = 1): logical blocks in visit order; bottom row (y = 0): physical blocks, labelled with the
    logical block they hold or 'free'. fig.data[0] are the table's arrows as line segments b -> table[b];
    `step` highlights one lookup."""
    c = res.cache
    table, owner = c.block_table, c.owner
    lx, px = np.arange(c.num_logical), np.arange(c.num_physical)
    seg_x = np.column_stack([lx, table, np.full(len(lx), np.nan)]).ravel()
    seg_y = np.tile([1.0, 0.0, np.nan], len(lx))
    big = max(c.num_logical, c.num_physical)
    size = int(max(6, min(30, 700 // big)))
    text_on = big <= 48
    data = [dict(type="scatter", x=seg_x, y=seg_y, mode="lines", name=t("blocks.paged_lookup", lang),
                 hoverinfo="skip", line=dict(color=P.DARK_GREY, width=1)),
            dict(type="scatter", x=lx, y=np.ones(len(lx)), mode="markers+text" if text_on else "markers",
                 name=t("blocks.paged_logical", lang), text=[str(b) for b in lx], textposition="middle center",
                 marker=dict(symbol="square", size=size, color=P.SKY_BLUE, line=dict(color=P.OUTLINE, width=1)),
                 customdata=np.column_stack([table, c.valid]),
                 hovertemplate="b = %{x} → p = %{customdata[0]} (%{customdata[1]} keys)<extra></extra>"),
            dict(type="scatter", x=px, y=np.zeros(len(px)), mode="markers+text" if text_on else "markers",
                 name=t("blocks.paged_physical", lang),
                 text=[str(o) if o >= 0 else "·" for o in owner], textposition="middle center",
                 textfont=dict(color="white"),
                 marker=dict(symbol="square", size=size, color=[P.BLUE if o >= 0 else P.GREY for o in owner],
                             line=dict(color=P.OUTLINE, width=1)),
                 customdata=[str(o) if o >= 0 else t("blocks.paged_free", lang) for o in owner],
                 hovertemplate="p = %{x}: %{customdata}<extra></extra>")]
    if step is not None:
        b = int(step)
        if not 0 <= b < c.num_logical:
            raise InputError(key="errors.int_range", name="step", lo=0, hi=c.num_logical - 1, got=step)
        data.append(dict(type="scatter", x=[b, int(table[b])], y=[1.0, 0.0], mode="lines+markers",
                         name=t("blocks.paged_now", lang), line=dict(color=P.ORANGE, width=3),
                         marker=dict(symbol="square-open", size=size + 6, color=P.ORANGE, line=dict(width=3))))
    lay = block_layout(t("blocks.paged_title", lang, bs=c.block_size, n=c.seq_len), height=300,
                  xaxis=axis_style("", range=[-1, big], showgrid=False, zeroline=False),
                  yaxis=dict(range=[-0.5, 1.5], tickvals=[0, 1], fixedrange=True, showgrid=False, zeroline=False,
                             ticktext=[t("blocks.paged_physical", lang), t("blocks.paged_logical", lang)]),
                  margin=dict(l=170, r=20, t=60, b=70), legend=dict(orientation="h", y=-0.2, x=0, yanchor="top"))
    return figure(data, lay)
