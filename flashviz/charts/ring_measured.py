"""Charts of the recorded ring-attention measurement (flashviz.bench.ring_dataset cells in, Figures out).

series          the cells of one pass (fwd / fwd+bwd) and mask, grouped by (world size, layout), N ascending
time_figure     median time vs N (log-log), one line per group; 1 GPU is the plain single-GPU kernel
speedup_figure  t(1 GPU) / t(W GPUs) at the same N, per layout; the ideal W dashed
hidden_figure   share of the transfer time hidden under compute, 1 - (t - t_compute) / t_comm, per layout
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
    return base_layout(title, height=400, xaxis=axis(t("ring.axis_n", lang), type="log", dtick=0.30103), **kw)


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


def hidden_figure(cells: list[dict], lang: str, *, mode: str, causal: bool, title: str = "") -> go.Figure:
    data = []
    for k, cs in series(cells, mode, causal).items():
        cs = [c for c in cs if c["world"] > 1 and c.get("hidden") is not None]
        if cs:
            data.append(_line(k, [c["n"] for c in cs], [100 * c["hidden"] for c in cs], lang,
                              customdata=[[c["ms"], c["ms_compute"], c["ms_comm"]] for c in cs],
                              hovertemplate=t("ring.hover_hidden", lang) + "<extra></extra>"))
    ys = [y for d in data for y in d["y"]] + [0, 100]
    return go.Figure(data=data, layout=_layout(
        title or t("ring.m_hidden_title", lang), t("ring.axis_hidden", lang), lang,
        yaxis=axis(t("ring.axis_hidden", lang), range=[min(ys) - 5, max(ys) + 5], ticksuffix=" %")))


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
