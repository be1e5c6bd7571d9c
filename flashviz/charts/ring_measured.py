"""Charts of the recorded ring-attention measurement (flashviz.bench.ring_dataset cells in, Figures out).

series          the cells of one pass (fwd / fwd+bwd) and mask, grouped by (world size, layout), N ascending
time_figure     median time vs N (log-log), one line per group; 1 GPU is the plain single-GPU kernel
speedup_figure  t(1 GPU) / t(W GPUs) at the same N, per layout; the ideal W dashed
overlap_rows    per ring cell: the transfers alone (t_comm) and the exposed time, both as a share of the compute:
                the waits timed directly (recordings of schema 2), or t - t_compute (schema 1)
overlap_figure  those shares per layout; a schema-1 exposed time carries the ring time's p20-p80 range as error
                bars, since it is a difference of two noisy totals (the page then shows no hidden share).
memory_figure   peak memory per GPU vs N (the busiest rank), with one rank's inputs dashed
Only cells with status "ok" are drawn; the page lists the others (skipped by the time budget, OOM, error).
"""
from __future__ import annotations

import plotly.graph_objects as go

from ..i18n import t
from . import palette as P
from .common import axis, base_layout

GIB = 2 ** 30
STYLE = {"contiguous": (P.VERMILLION, "square", "dash"), "zigzag": (P.BLUE, "circle", "solid")}


def series(cells: list[dict], mode: str, causal: bool) -> dict[tuple[int, str], list[dict]]:
    out: dict[tuple[int, str], list[dict]] = {}
    for c in cells:
        if c["mode"] == mode and c["causal"] == causal and c["status"] == "ok":
            out.setdefault((c["world"], c["layout"] if c["world"] > 1 else "single"), []).append(c)
    return {k: sorted(v, key=lambda c: c["n"]) for k, v in sorted(out.items())}


def label(key: tuple[int, str], lang: str) -> str:
    w, layout = key
    return t("ring.m_single", lang) if w == 1 else t("ring.m_multi", lang, w=w, layout=t(f"ring.layout_{layout}", lang))


def _style(key):
    w, layout = key
    if w == 1:
        return P.BLACK, "diamond", "solid"
    return STYLE[layout]


def _line(key, xs, ys, lang, **kw) -> dict:
    color, symbol, dash = _style(key)
    return dict(type="scatter", x=list(xs), y=list(ys), mode="lines+markers", name=label(key, lang),
                line=dict(color=color, dash=dash, width=2), marker=dict(symbol=symbol, size=8, color=color), **kw)


def _layout(title: str, ytitle: str, lang: str, *, ylog: bool = False, **kw) -> dict:
    kw.setdefault("yaxis", axis(ytitle, type="log" if ylog else "linear"))
    # powers of two as 32k, 64k, ... (plotly's SI ticks print 65536 as "65.53601k")
    ticks = [1 << p for p in range(10, 25)]
    return base_layout(title, height=400, xaxis=axis(t("ring.axis_n", lang), type="log", tickvals=ticks,
                                                     ticktext=[f"{x >> 10}k" for x in ticks]), **kw)


def time_figure(cells: list[dict], lang: str, *, mode: str, causal: bool, title: str = "") -> go.Figure:
    data = [_line(k, [c["n"] for c in cs], [c["ms"] for c in cs], lang,
                  customdata=[[c["reps"], c["ms_p20"], c["ms_p80"]] for c in cs],
                  hovertemplate=t("ring.hover_time", lang) + "<extra></extra>")
            for k, cs in series(cells, mode, causal).items()]
    return go.Figure(data=data, layout=_layout(title or t("ring.m_time_title", lang), t("ring.axis_ms", lang), lang,
                                               ylog=True))


def speedups(cells: list[dict], mode: str, causal: bool) -> dict[tuple[int, str], list[tuple[int, float]]]:
    """{(W, layout): [(N, t_1 / t_W)]} where both were measured."""
    groups = series(cells, mode, causal)
    one = {c["n"]: c["ms"] for c in groups.get((1, "single"), [])}
    return {k: [(c["n"], one[c["n"]] / c["ms"]) for c in cs if c["n"] in one]
            for k, cs in groups.items() if k[0] > 1}


def speedup_figure(cells: list[dict], lang: str, *, mode: str, causal: bool, title: str = "") -> go.Figure:
    sp = speedups(cells, mode, causal)
    data = [_line(k, [n for n, _ in v], [s for _, s in v], lang, hovertemplate=t("ring.hover_speedup", lang)
                  + "<extra></extra>") for k, v in sp.items() if v]
    worlds = sorted({k[0] for k in sp})
    shapes = [dict(type="line", xref="paper", x0=0, x1=1, y0=w, y1=w, line=dict(color=P.DARK_GREY, dash="dot"))
              for w in worlds]
    notes = [dict(xref="paper", x=1, y=w, xanchor="right", yanchor="bottom", showarrow=False,
                  text=t("ring.m_ideal", lang, w=w), font=dict(size=11, color=P.DARK_GREY)) for w in worlds]
    top = max([s for v in sp.values() for _, s in v] + worlds + [1.0])
    return go.Figure(data=data, layout=_layout(title or t("ring.m_speedup_title", lang), t("ring.axis_speedup", lang),
                                               lang, shapes=shapes, annotations=notes,
                                               yaxis=axis(t("ring.axis_speedup", lang), range=[0, top * 1.15])))


def overlap_rows(cells: list[dict], mode: str, causal: bool) -> list[dict]:
    """Ring cells (W > 1) of one pass and mask whose transfer-only loop was timed, by (W, layout) then N.

    direct (schema 2): the exposed time is the recorded ms_exposed, the waits for transfers timed with CUDA
    events; the compute is ms - ms_exposed; hidden = 1 - exposed / ms_comm.
    otherwise (schema 1): exposed = ms - ms_compute, a difference of two noisy totals (below 0 = within noise),
    and no hidden share.
    Each row: n, world, layout, ms, ms_compute, ms_comm, exposed, direct, hidden, comm_pct and exposed_pct (% of
    the compute), p20, p80, spread_pct = (ms_p80 - ms_p20) / ms in % (None if not recorded)."""
    out = []
    for (w, layout), cs in series(cells, mode, causal).items():
        for c in cs:
            direct = c.get("ms_exposed") is not None
            if w < 2 or c.get("ms_comm") is None or not (direct or c.get("ms_compute") is not None):
                continue
            exposed = c["ms_exposed"] if direct else c["ms"] - c["ms_compute"]
            compute = c["ms"] - exposed if direct else c["ms_compute"]
            if not compute > 0:
                continue
            p20, p80 = c.get("ms_p20"), c.get("ms_p80")
            out.append(dict(n=c["n"], world=w, layout=layout, ms=c["ms"], ms_compute=compute, ms_comm=c["ms_comm"],
                            exposed=exposed, direct=direct,
                            hidden=1 - exposed / c["ms_comm"] if direct and c["ms_comm"] > 0 else None,
                            comm_pct=100 * c["ms_comm"] / compute, exposed_pct=100 * exposed / compute, p20=p20,
                            p80=p80, spread_pct=None if p20 is None or p80 is None else 100 * (p80 - p20) / c["ms"]))
    return out


def overlap_by_layout(rows: list[dict]) -> dict[str, dict[str, list[dict]]]:
    """overlap_rows' directly timed rows per layout (a hidden share only means something per layout), split into
    "hidden": the cells whose waits stayed within the transfers alone, and "over": the cells that waited longer
    than the transfers take, a wait no link explains (the neighbour still computing: load imbalance)."""
    out: dict[str, dict[str, list[dict]]] = {}
    for r in rows:
        if r["direct"]:
            g = out.setdefault(r["layout"], dict(hidden=[], over=[]))
            g["hidden" if r["exposed"] <= r["ms_comm"] else "over"].append(r)
    return out


def overlap_figure(cells: list[dict], lang: str, *, mode: str, causal: bool, title: str = "") -> go.Figure:
    """Per (W, layout): the transfers alone as % of the compute (line), and the exposed time as % of it
    (markers: the timed waits; for a schema-1 recording t - t_compute with error bars where the ring time's
    p20..p80 puts it). Nothing is clipped."""
    rows = overlap_rows(cells, mode, causal)
    direct = bool(rows) and all(r["direct"] for r in rows)
    sfx = "_direct" if direct else ""
    data = []
    for key in dict.fromkeys((r["world"], r["layout"]) for r in rows):
        rs = [r for r in rows if (r["world"], r["layout"]) == key]
        color, symbol, dash = _style(key)
        name = label(key, lang)
        custom = [[r["ms"], r["ms_compute"], r["ms_comm"], r["exposed"]] for r in rs]
        data.append(dict(type="scatter", x=[r["n"] for r in rs], y=[r["comm_pct"] for r in rs], mode="lines+markers",
                         name=t("ring.m_comm_series", lang, what=name), customdata=custom,
                         line=dict(color=color, dash=dash, width=2),
                         marker=dict(symbol=f"{symbol}-open", size=9, color=color),
                         hovertemplate=t("ring.hover_comm" + sfx, lang) + "<extra></extra>"))
        # error bars from the median down to p20 and up to p80 (a percentile never lies on the wrong side of the
        # median, max(.., 0) only guards a malformed file); a cell without percentiles gets no bar
        # (a directly timed wait has no such bar: it is not a difference of the ring's time and another)
        lo = [0.0 if r["p20"] is None or r["direct"] else 100 * max(r["ms"] - r["p20"], 0.0) / r["ms_compute"]
              for r in rs]
        hi = [0.0 if r["p80"] is None or r["direct"] else 100 * max(r["p80"] - r["ms"], 0.0) / r["ms_compute"]
              for r in rs]
        data.append(dict(type="scatter", x=[r["n"] for r in rs], y=[r["exposed_pct"] for r in rs], mode="markers",
                         name=t("ring.m_exposed_series" + sfx, lang, what=name), customdata=custom,
                         marker=dict(symbol=symbol, size=8, color=color),
                         error_y=dict(type="data", symmetric=False, array=hi, arrayminus=lo, color=color, width=4),
                         hovertemplate=t("ring.hover_exposed" + sfx, lang) + "<extra></extra>"))
    zero = [dict(type="line", xref="paper", x0=0, x1=1, y0=0, y1=0, line=dict(color=P.DARK_GREY, dash="dot"))]
    return go.Figure(data=data, layout=_layout(
        title or t("ring.m_overlap_title", lang), t("ring.axis_pct_compute" + sfx, lang), lang, shapes=zero,
        yaxis=axis(t("ring.axis_pct_compute" + sfx, lang), ticksuffix=" %", zeroline=False)))


def memory_figure(cells: list[dict], lang: str, *, mode: str, causal: bool, title: str = "") -> go.Figure:
    groups = {k: [c for c in cs if c.get("peak_bytes")] for k, cs in series(cells, mode, causal).items()}
    data = [_line(k, [c["n"] for c in cs], [c["peak_bytes"] / GIB for c in cs], lang,
                  hovertemplate=t("ring.hover_memory", lang) + "<extra></extra>") for k, cs in groups.items() if cs]
    for w in sorted({k[0] for k, cs in groups.items() if cs}):
        cs = next(cs for k, cs in groups.items() if k[0] == w and cs)
        data.append(dict(type="scatter", x=[c["n"] for c in cs], y=[c["input_bytes"] / GIB for c in cs], mode="lines",
                         name=t("ring.m_inputs", lang, w=w), line=dict(color=_style((w, "zigzag"))[0] if w > 1
                                                                         else P.BLACK, dash="dot", width=1.5),
                         hovertemplate=t("ring.hover_memory", lang) + "<extra></extra>"))
    return go.Figure(data=data, layout=_layout(title or t("ring.m_memory_title", lang), t("ring.axis_gib", lang), lang,
                                               ylog=True))
