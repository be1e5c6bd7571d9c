"""Charts of the page "Speed and memory": benchmark cells (recorded or live) in, plotly Figures out.

family            the cells of one recorded family (same d, causal, dtype, B, H, mode), every N, sorted
ratio_rows        one row per impl of one configuration: time, TFLOP/s, peak, ratios vs naive and vs sdpa-cudnn
perf_figure       time (log-log, N² and N reference slopes) or TFLOP/s (log x) vs N, one line per impl
memory_figure     peak extra memory vs N (log-log, N² and N slopes, output + LSE dashed), one line per impl
cpu_memory_figure lesson exercise 3 on this CPU: naive vs tiled peak intermediate memory, N² theory line

Cells follow the dataset schema of flashviz.bench. A cell that is not "ok" leaves a gap in its line and gets
a marker at the top of the chart saying why (OOM, error); "unavailable" cells are left out. No streamlit here.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..infra import literal
from ..i18n import STRINGS, t
from . import palette as P
from .common import axis, base_layout, figure

IMPL_ORDER = ("naive", "sdpa-math", "sdpa", "sdpa-efficient", "sdpa-flash", "sdpa-cudnn", "fa4", "teaching", "fast",
              "ws")
IMPL_STYLE = {                      # colour + marker + dash: distinguishable without colour too
    "naive": (P.VERMILLION, "circle", "solid"),
    "sdpa-math": (P.DARK_GREY, "triangle-down", "dot"),
    "sdpa": (P.PURPLE, "star", "dot"),
    "sdpa-efficient": (P.GREEN, "triangle-up", "dashdot"),
    "sdpa-flash": (P.SKY_BLUE, "square", "dash"),
    "sdpa-cudnn": (P.BLACK, "diamond", "longdash"),
    "teaching": (P.ORANGE, "cross", "dashdot"),
    "fast": (P.BLUE, "circle-open", "solid"),
    "ws": (P.BLUE, "x", "dot"),                         # the fast path's Gluon kernel, pinned (same family)
    "fa4": (P.GREEN, "star-diamond", "longdash"),       # FlashAttention-4, a peer (flashviz/bench/peers.py)
}
FAMILY_KEYS = ("d", "causal", "dtype", "batch", "heads", "mode")
MIB = 2 ** 20


def impl_label(impl: str, lang: str) -> str:
    key = f"speed.impl_{impl}"
    return t(key, lang) if key in STRINGS else impl


def _order(impl: str) -> tuple:
    return (IMPL_ORDER.index(impl) if impl in IMPL_ORDER else len(IMPL_ORDER), impl)


def family(cells: list[dict], like: dict, impls=None) -> list[dict]:
    """Cells sharing `like`'s d, causal, dtype, batch, heads and mode (any N), by impl then N."""
    out = [c for c in cells if all(c[k] == like[k] for k in FAMILY_KEYS) and (impls is None or c["impl"] in impls)]
    return sorted(out, key=lambda c: (_order(c["impl"]), c["n"]))


def _ratio(a, b):
    return a / b if a is not None and b else None


def ratio_rows(cells: list[dict]) -> list[dict]:
    """Per impl of one configuration: ms, TFLOP/s, peak MiB and the ratios (None where a side is missing).
    speed-up = t_base / t (above 1: faster); memory ratio = peak / peak_base (below 1: smaller). graph_ms and its
    speed-up: the same calls replayed from a CUDA graph (GPU time, no host launch cost) where the cell has it.
    spread: the per-call times' p20-p80 range as a share of their median (how far apart its runs were)."""
    by = {c["impl"]: c for c in cells}

    def ok(c, field):
        return c[field] if c is not None and c["status"] == "ok" and c.get(field) is not None else None

    rows = []
    for impl in sorted(by, key=_order):
        c = by[impl]
        ms, peak = ok(c, "ms"), ok(c, "peak_extra_bytes")
        p20, p80 = ok(c, "ms_p20"), ok(c, "ms_p80")
        rows.append(dict(impl=impl, status=c["status"], message=c.get("message"), ms=ms, tflops=ok(c, "tflops"),
                         spread=(p80 - p20) / ms if ms and p20 is not None and p80 is not None else None,
                         peak_mib=None if peak is None else peak / MIB, correct=c.get("correct"),
                         speedup_vs_naive=_ratio(ok(by.get("naive"), "ms"), ms),
                         speedup_vs_cudnn=_ratio(ok(by.get("sdpa-cudnn"), "ms"), ms),
                         memory_vs_naive=_ratio(peak, ok(by.get("naive"), "peak_extra_bytes")),
                         memory_vs_cudnn=_ratio(peak, ok(by.get("sdpa-cudnn"), "peak_extra_bytes")),
                         graph_ms=ok(c, "graph_ms"),
                         graph_speedup_vs_cudnn=_ratio(ok(by.get("sdpa-cudnn"), "graph_ms"), ok(c, "graph_ms"))))
    return rows


# ----------------------------------------------------------------------------- building blocks

def _groups(cells: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for c in sorted(cells, key=lambda c: (_order(c["impl"]), c["n"])):
        if c["status"] != "unavailable":
            out.setdefault(c["impl"], []).append(c)
    return out


def _visible(impl: str, groups: dict, shown) -> bool | str:
    """True, or "legendonly" (hidden until clicked) for impls outside `shown` when some of `shown` are present."""
    if shown is None or impl in shown or not any(i in shown for i in groups):
        return True
    return "legendonly"


def _line(impl: str, cs: list[dict], y: list, lang: str, unit: str, visible=True) -> dict:
    color, symbol, dash = IMPL_STYLE.get(impl, (P.DARK_GREY, "circle", "solid"))
    name = impl_label(impl, lang)
    return dict(type="scatter", x=[c["n"] for c in cs], y=y, mode="lines+markers", name=name, connectgaps=False,
                legendgroup=impl, visible=visible,
                line=dict(color=color, width=2.5, dash=dash), marker=dict(color=color, symbol=symbol, size=9),
                hovertemplate=f"{name}<br>N = %{{x}}<br>%{{y:.4g}} {unit}<extra></extra>")


def _failures(groups: dict[str, list[dict]], top: float, lang: str, shown=None) -> list[dict]:
    """Markers at `top` for cells that ran out of memory or failed, labelled OOM / error (grouped with their
    impl's line in the legend, so hiding the line hides them)."""
    out = []
    for impl, cs in groups.items():
        bad = [c for c in cs if c["status"] in ("oom", "error")]
        if not bad:
            continue
        color = IMPL_STYLE.get(impl, (P.DARK_GREY,))[0]
        text = [t("speed.mark_oom" if c["status"] == "oom" else "speed.mark_error", lang) for c in bad]
        out.append(dict(type="scatter", x=[c["n"] for c in bad], y=[top] * len(bad), mode="markers+text",
                        text=text, textposition="top center", showlegend=False, legendgroup=impl,
                        visible=_visible(impl, groups, shown),
                        textfont=dict(color=P.VERMILLION, size=12),
                        marker=dict(symbol="x", size=13, color=P.VERMILLION, line=dict(color=color, width=1)),
                        customdata=[literal.plotly((c.get("message") or "")[:160]) for c in bad],
                        hovertemplate=impl_label(impl, lang) + " · N = %{x}<br>%{text}: %{customdata}<extra></extra>"))
    return out


def slope_trace(xs, anchor_x: float, anchor_y: float, power: int, name: str, dash: str) -> dict:
    """Reference line y = anchor_y * (x / anchor_x)^power over xs (grey, no markers)."""
    xs = np.asarray(sorted(set(xs)), dtype=np.float64)
    ys = anchor_y * (xs / anchor_x) ** power
    return dict(type="scatter", x=xs, y=ys, mode="lines", name=name, hoverinfo="skip",
                line=dict(color=P.REFERENCE, width=1.5, dash=dash))


def _anchor(groups: dict[str, list[dict]], field: str, prefer: tuple[str, ...], pick=max):
    """(N, value) of the first preferred impl with an ok value there (largest/smallest N by `pick`)."""
    for impl in (*prefer, *groups):
        pts = [(c["n"], c[field]) for c in groups.get(impl, []) if c["status"] == "ok" and c.get(field)]
        if pts:
            return pick(pts)
    return None


def _mark_n(mark_n: int | None, lang: str) -> tuple[list, list]:
    if mark_n is None:
        return [], []
    shape = dict(type="line", xref="x", yref="paper", x0=mark_n, x1=mark_n, y0=0, y1=1,
                 line=dict(color=P.ORANGE, width=2, dash="dot"))
    note = dict(x=float(np.log10(mark_n)), xref="x", y=1.0, yref="paper", yanchor="bottom", showarrow=False,
                text=t("speed.mark_your_n", lang, n=mark_n), font=dict(color=P.ORANGE_TEXT, size=12))
    return [shape], [note]


def two_line_title(title: str, subtitle: str = "") -> str:
    """A title with a smaller second line (the configuration), so long ones fit a half-width chart."""
    return f"{title}<br><sup>{subtitle}</sup>" if subtitle else title


def _layout(title: str, xtitle: str, ytitle: str, ylog: bool, mark_n, lang: str, **kw) -> dict:
    shapes, notes = _mark_n(mark_n, lang)
    yextra = dict(dtick=1, exponentformat="none") if ylog else dict(rangemode="tozero")
    return base_layout(title, height=600, margin=dict(l=75, r=20, t=80, b=250),   # legend at the bottom edge
                       legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.0, xanchor="left", x=0.0),
                       xaxis=axis(xtitle, type="log", dtick=np.log10(2), tickformat="d"),
                       yaxis=axis(ytitle, type="log" if ylog else "linear", **yextra),
                       shapes=shapes, annotations=notes, **kw)


# ----------------------------------------------------------------------------- figures

def perf_figure(cells: list[dict], lang: str, *, metric: str = "ms", title: str = "",
                mark_n: int | None = None, shown=None) -> go.Figure:
    """metric "ms": median time vs N, log-log, with ∝N² and ∝N slopes anchored at naive's largest ok N;
    metric "tflops": TFLOP/s vs N (log x, linear y). One trace per impl first (in IMPL_ORDER), then extras.
    Impls outside `shown` (if given) start hidden, listed in the legend ("legendonly")."""
    if metric not in ("ms", "tflops"):
        raise ValueError(f"metric must be 'ms' or 'tflops', got {metric!r}")
    groups = _groups(cells)
    unit = "ms" if metric == "ms" else "TFLOP/s"
    data = [_line(impl, cs, [c[metric] if c["status"] == "ok" else None for c in cs], lang, unit,
                  _visible(impl, groups, shown)) for impl, cs in groups.items()]
    vals = [c[metric] for cs in groups.values() for c in cs if c["status"] == "ok" and c.get(metric)]
    top = (max(vals) * (2.0 if metric == "ms" else 1.1)) if vals else 1.0
    xs = [c["n"] for cs in groups.values() for c in cs]
    if metric == "ms" and vals:
        a = _anchor(groups, "ms", ("naive",))
        data.append(slope_trace(xs, *a, 2, t("speed.slope_n2", lang), "dash"))
        b = _anchor(groups, "ms", ("fast", "sdpa-cudnn", "sdpa-flash", "teaching"), pick=min)
        data.append(slope_trace(xs, *b, 1, t("speed.slope_n", lang), "dot"))
    data += _failures(groups, top, lang, shown)
    ytitle = t("speed.axis_ms" if metric == "ms" else "speed.axis_tflops", lang)
    return figure(data, _layout(title, t("speed.axis_n", lang), ytitle, metric == "ms", mark_n, lang))


def memory_figure(cells: list[dict], lang: str, *, title: str = "", mark_n: int | None = None,
                  shown=None) -> go.Figure:
    """Peak extra memory (MiB) vs N, log-log: one trace per impl, then the ideal (output + LSE, dashed
    green), the ∝N² slope (anchored at naive) and the ∝N slope (anchored at the ideal), then failure marks."""
    groups = _groups(cells)
    data = [_line(impl, cs, [c["peak_extra_bytes"] / MIB if c["status"] == "ok" and c.get("peak_extra_bytes")
                             is not None else None for c in cs], lang, "MiB", _visible(impl, groups, shown))
            for impl, cs in groups.items()]
    ideal = sorted({c["n"]: c["ideal_bytes"] / MIB for cs in groups.values() for c in cs}.items())
    if ideal:
        data.append(dict(type="scatter", x=[n for n, _ in ideal], y=[v for _, v in ideal], mode="lines",
                         name=t("speed.series_ideal", lang), line=dict(color=P.GREEN, width=2, dash="dash"),
                         hovertemplate="N = %{x}<br>%{y:.4g} MiB<extra></extra>"))
    vals = [c["peak_extra_bytes"] for cs in groups.values() for c in cs
            if c["status"] == "ok" and c.get("peak_extra_bytes")]
    xs = [c["n"] for cs in groups.values() for c in cs]
    a = _anchor(groups, "peak_extra_bytes", ("naive", "sdpa-math"))
    if a:
        data.append(slope_trace(xs, a[0], a[1] / MIB, 2, t("speed.slope_n2", lang), "dash"))
    if ideal:
        data.append(slope_trace(xs, ideal[0][0], ideal[0][1], 1, t("speed.slope_n", lang), "dot"))
    top = max([v / MIB for v in vals] + [v for _, v in ideal] + [1.0]) * 2.0
    data += _failures(groups, top, lang, shown)
    lay = _layout(title, t("speed.axis_n", lang), t("speed.axis_peak", lang), True, mark_n, lang)
    if not vals:
        lay["annotations"] = [*lay["annotations"], dict(xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False,
                                                        text=t("speed.no_memory", lang), font=dict(size=14))]
    return figure(data, lay)


def cpu_memory_figure(rows: list[dict], lang: str) -> go.Figure:
    """Lesson exercise 3 (flashviz.bench.cpu_memory rows): data[0] naive measured, data[1] N x N theory,
    data[2] tiled measured, data[3] the output alone, data[4] one score tile; MiB, log-log."""
    rows = sorted(rows, key=lambda r: r["n"])
    ns = [r["n"] for r in rows]

    def series(key, field, color, symbol, dash, width=2.5, markers=True):
        name = t(key, lang)
        return dict(type="scatter", x=ns, y=[r[field] / MIB for r in rows], name=name,
                    mode="lines+markers" if markers else "lines", line=dict(color=color, width=width, dash=dash),
                    marker=dict(color=color, symbol=symbol, size=10),
                    hovertemplate=f"{name}<br>N = %{{x}}<br>%{{y:.4g}} MiB<extra></extra>")

    data = [series("speed.cpu_naive", "naive_peak_bytes", P.VERMILLION, "circle", "solid"),
            series("speed.cpu_theory", "naive_theory_bytes", P.REFERENCE, "circle", "dash", 1.5, False),
            series("speed.cpu_tiled", "tiled_peak_bytes", P.BLUE, "diamond", "solid"),
            series("speed.cpu_output", "output_bytes", P.GREEN, "circle", "dot", 2, False),
            series("speed.cpu_tile", "tile_theory_bytes", P.ORANGE, "square", "dashdot", 2, False)]
    r0 = rows[0] if rows else dict(d=0, block_rows=0, block_cols=0, dtype="")
    title = two_line_title(t("speed.cpu_title", lang), t("speed.cpu_subtitle", lang, d=r0["d"], br=r0["block_rows"],
                                                             bc=r0["block_cols"], dtype=r0["dtype"]))
    lay = base_layout(title, height=480, margin=dict(l=75, r=20, t=80, b=150),
                      legend=dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0.0),
                      xaxis=axis(t("speed.axis_n", lang), type="log", tickvals=ns, tickformat="d"),
                      yaxis=axis(t("speed.axis_cpu_peak", lang), type="log", dtick=1, exponentformat="none"))
    return figure(data, lay)
