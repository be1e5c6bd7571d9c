"""Charts of the page "Variants": engine (flashviz.engine.variants, online_softmax.variant_trace) or recorded data in, plotly
Figure out (no streamlit).

block_map_figure   the Tr x Tc blocks of a variant: skipped / partial / full (z = tiling's FULL, MASKED, SKIPPED)
savings_figure     executed and useful FLOPs and HBM bytes of the variant as % of dense attention
row_figure         one query row: raw scores, the variant's scores (softcap, ALiBi, mask), running max m per tile
gqa_figure         K/V cache bytes and streamed K/V reads, MHA vs GQA
measured_figure    recorded time per variant and impl at one N (flashviz.bench.variants_dataset)
Labels through t(key, lang); colours Okabe-Ito (palette.py).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..i18n import t
from ..engine.online_softmax import Trace
from ..engine.tiling import FULL, MASKED, SKIPPED
from ..engine.variants import BlockMap
from . import palette as P
from .common import axis, base_layout, figure, finite_or_none

KIND_COLORS = {FULL: P.BLUE, MASKED: P.ORANGE, SKIPPED: P.WHITE}
KIND_KEYS = {FULL: "variants.kind_full", MASKED: "variants.kind_partial", SKIPPED: "variants.kind_skipped"}
MAX_HOVER = 1 << 14
IMPL_COLORS = {"fast": P.BLUE, "teaching": P.SKY_BLUE, "naive": P.DARK_GREY, "flex": P.ORANGE, "sdpa": P.GREEN,
              "fa4": P.PURPLE}


def _square(name: str, color: str) -> dict:
    return dict(type="scatter", x=[None], y=[None], mode="markers", name=name, hoverinfo="skip",
                marker=dict(symbol="square", size=13, color=color, line=dict(color=P.OUTLINE, width=1)))


def block_map_figure(bm: BlockMap, lang: str, *, label: str = "") -> go.Figure:
    """fig.data[0].z is bm.kind; the title counts the blocks of each kind."""
    tr, tc = bm.kind.shape
    scale = []
    for code in range(3):                                    # FULL 0, MASKED 1, SKIPPED 2: a stepped scale
        scale += [[code / 3, KIND_COLORS[code]], [(code + 1) / 3, KIND_COLORS[code]]]
    heat = dict(type="heatmap", z=bm.kind, x=np.arange(tc), y=np.arange(tr), zmin=0, zmax=3, colorscale=scale,
                showscale=False, xgap=1 if max(tr, tc) <= 64 else 0, ygap=1 if max(tr, tc) <= 64 else 0, name="",
                hovertemplate=t("variants.hover_block", lang) + ("<br>%{customdata}" if tr * tc <= MAX_HOVER else "")
                + "<extra></extra>")
    if tr * tc <= MAX_HOVER:
        names = np.array([t(KIND_KEYS[c], lang) for c in range(3)], dtype=object)
        heat["customdata"] = names[bm.kind]
    data = [heat] + [_square(t(KIND_KEYS[c], lang), KIND_COLORS[c]) for c in (FULL, MASKED, SKIPPED)]
    title = t("variants.map_title", lang, label=label, run=int(bm.run.sum()), total=tr * tc,
              partial=bm.count("partial"), full=bm.count("full"))
    h = int(min(560, max(260, 18 * tr)))
    lay = base_layout(title, height=h + 230, plot_bgcolor=P.GAP,
                      xaxis=axis(t("variants.axis_kv", lang, bc=bm.bc), side="top", range=[-0.5, tc - 0.5],
                                 showgrid=False, zeroline=False),
                      yaxis=axis(t("variants.axis_q", lang, br=bm.br), range=[tr - 0.5, -0.5], showgrid=False,
                                 zeroline=False),
                      margin=dict(l=70, r=20, t=140, b=80), legend=dict(orientation="h", y=-0.02, x=0, yanchor="top"))
    lay["title"].update(y=0.985, yref="container", yanchor="top")
    return figure(data, lay)


def savings_figure(costs: dict, lang: str) -> go.Figure:
    """Bars in % of dense: executed FLOPs, useful FLOPs, HBM bytes (FA2 order). y values are exact ratios x 100."""
    names = [t("variants.bar_exec", lang), t("variants.bar_useful", lang), t("variants.bar_hbm", lang)]
    y = [100 * costs["executed_flops"] / costs["dense_flops"], 100 * costs["useful_flops"] / costs["dense_flops"],
         100 * costs["variant_bytes"] / costs["dense_bytes"]]
    bars = dict(type="bar", x=names, y=y, marker=dict(color=[P.BLUE, P.GREEN, P.PURPLE]), name="",
                text=[f"{v:.1f} %" for v in y], textposition="outside", hovertemplate="%{x}: %{y:.2f} %<extra></extra>")
    lay = base_layout(t("variants.save_title", lang), height=380,
                      xaxis=axis(), yaxis=axis(t("variants.axis_pct", lang), range=[0, 115]),
                      shapes=[dict(type="line", xref="paper", x0=0, x1=1, y0=100, y1=100,
                                   line=dict(color=P.DARK_GREY, dash="dash"))], showlegend=False)
    return figure([bars], lay)


def _over_tiles(tr: Trace, upto: int) -> dict:
    """m after each tile drawn across that tile: x = first, last key of tile t, y = m[t] twice (x[1::2] = the
    tiles' last keys, y[1::2] = m)."""
    x = np.stack([tr.start[:upto], tr.stop[:upto] - 1], axis=1).reshape(-1)
    y = np.repeat(finite_or_none(tr.m[:upto]), 2)
    return dict(x=x, y=y)


def row_figure(plain: Trace, var: Trace, lang: str, *, softcap: float | None = None, step: int | None = None) -> go.Figure:
    """One row, key by key. data[0]: raw scores q·k·scale; data[1]: the variant's scores (gaps where masked);
    data[2]: masked keys; data[3]: the variant's running max m after each tile (at the tile's last key);
    data[4]: plain attention's m. With `step`, m is drawn up to that tile and the tile is shaded."""
    j = np.arange(plain.n)
    upto = var.steps if step is None else step + 1
    masked = ~np.isfinite(var.scores)
    low = float(np.nanmin(finite_or_none(np.concatenate([plain.scores, var.scores])))) if np.isfinite(
        var.scores).any() or np.isfinite(plain.scores).any() else 0.0
    data = [dict(type="scatter", x=j, y=finite_or_none(plain.scores), mode="markers", name=t("variants.raw", lang),
                 marker=dict(color=P.GREY, size=6)),
            dict(type="scatter", x=j, y=finite_or_none(var.scores), mode="markers", name=t("variants.modified", lang),
                 marker=dict(color=P.BLUE, size=7)),
            dict(type="scatter", x=j[masked], y=np.full(int(masked.sum()), low - 0.5), mode="markers",
                 name=t("variants.masked", lang), marker=dict(color=P.VERMILLION, symbol="x-thin", size=8,
                                                              line=dict(width=2, color=P.VERMILLION))),
            dict(type="scatter", **_over_tiles(var, upto), mode="lines", line=dict(color=P.ORANGE, width=3),
                 name=t("variants.m_variant", lang)),
            dict(type="scatter", **_over_tiles(plain, upto), mode="lines", line=dict(color=P.DARK_GREY, dash="dot"),
                 name=t("variants.m_plain", lang))]
    shapes = [dict(type="line", x0=s - 0.5, x1=s - 0.5, yref="paper", y0=0, y1=1,
                   line=dict(color=P.RULE, width=1)) for s in var.start[1:]]
    if step is not None:
        shapes.append(dict(type="rect", x0=var.start[step] - 0.5, x1=var.stop[step] - 0.5, yref="paper", y0=0, y1=1,
                           fillcolor=P.ORANGE, opacity=0.15, line=dict(width=0), layer="below"))
    if softcap is not None:
        shapes.append(dict(type="line", xref="paper", x0=0, x1=1, y0=softcap, y1=softcap,
                           line=dict(color=P.VERMILLION, dash="dash")))
    lay = base_layout(t("variants.row_title", lang, bc=var.tile_size), height=420, shapes=shapes,
                      xaxis=axis(t("variants.axis_key", lang)), yaxis=axis(t("variants.axis_score", lang)))
    return figure(data, lay)


def gqa_figure(costs: dict, group: int, lang: str) -> go.Figure:
    """MiB of K/V: the cache (MHA vs GQA) and the FA2 order's streamed reads (each program vs one per group)."""
    mib = 1 / 2 ** 20
    x = [t("variants.gqa_cache", lang), t("variants.gqa_reads", lang)]
    data = [dict(type="bar", x=x, y=[costs["kv_cache_mha"] * mib, costs["kv_reads_per_head"] * mib],
                 name=t("variants.gqa_mha", lang), marker=dict(color=P.DARK_GREY)),
            dict(type="bar", x=x, y=[costs["kv_cache_gqa"] * mib, costs["kv_reads_shared"] * mib],
                 name=t("variants.gqa_gqa", lang, g=group), marker=dict(color=P.BLUE))]
    lay = base_layout(t("variants.gqa_title", lang), height=360, barmode="group", xaxis=axis(),
                      yaxis=axis(t("variants.axis_mib", lang)))
    return figure(data, lay)


def measured_figure(cells: list[dict], lang: str, *, n: int) -> go.Figure:
    """Recorded median time (ms) per variant, one bar series per impl, at N = n (cells with status ok)."""
    ok = [c for c in cells if c["n"] == n and c["status"] == "ok"]
    variants = list(dict.fromkeys(c["variant"] for c in cells if c["n"] == n))
    data = []
    for impl in dict.fromkeys(c["impl"] for c in cells):
        by = {c["variant"]: c for c in ok if c["impl"] == impl}
        data.append(dict(type="bar", name=impl, x=[t(f"variants.v_{v}", lang) for v in variants],
                         y=[by[v]["ms"] if v in by else None for v in variants],
                         marker=dict(color=IMPL_COLORS.get(impl, P.BLACK)),
                         hovertemplate=impl + " · %{x}: %{y:.3f} ms<extra></extra>"))
    lay = base_layout(t("variants.m_title", lang, n=f"{n:,}"), height=400, barmode="group", xaxis=axis(),
                      yaxis=axis(t("variants.axis_ms", lang)))
    return figure(data, lay)
