"""Charts of the page "Backward and recomputation": numbers in, plotly Figure out (no streamlit).

stored_figure   bytes each path keeps for the backward pass: S, P (standard) vs O, LSE (FlashAttention), log y
peak_figure     measured peak extra memory of a training step vs N per implementation, log-log; OOM marked on
                the device's memory line, the least a flash kernel needs (O + LSE + dQ, dK, dV) dotted
flops_figure    FLOPs per pass in units of the forward's: 2 matmuls, 4 reading P back, 5 recomputing, ours 7
times_figure    recorded backward-alone and training-step times per implementation at one configuration
registers_figure  the ws backward's same tiles two ways (lse, delta in registers / starting the accumulators),
                speed relative to SDPA cuDNN per recorded cell (bench/tune_record.register_rows)

Every label goes through t(key, lang); colours are Okabe-Ito (palette.py), one per implementation.
"""
from __future__ import annotations

import math

import plotly.graph_objects as go

from ..i18n import t
from ..engine.recompute import Stored
from ..infra.units import fmt_bytes
from . import palette as P
from .common import axis, base_layout, figure

IMPLS = ("naive", "sdpa-flash", "sdpa-cudnn", "fa4", "teaching", "fast")     # fa4: a peer, beside cuDNN
IMPL_COLORS = {"naive": P.VERMILLION, "sdpa-flash": P.SKY_BLUE, "sdpa-cudnn": P.PURPLE, "fa4": P.GREEN,
               "teaching": P.ORANGE, "fast": P.BLUE}
IMPL_SYMBOLS = {"naive": "square", "sdpa-flash": "diamond", "sdpa-cudnn": "triangle-up", "fa4": "star-diamond",
                "teaching": "circle", "fast": "circle"}
PASS_COLORS = {"fwd": P.GREEN, "bwd_stored": P.DARK_GREY, "bwd_recompute": P.SKY_BLUE, "bwd_ours": P.BLUE}
MIB = 2 ** 20


def impl_key(impl: str) -> tuple:
    """Sort key of the rows, bars and lines: IMPLS' order (peers beside cuDNN, ours last), any other impl after them
    by name."""
    return (IMPLS.index(impl), "") if impl in IMPLS else (len(IMPLS), impl)


def impl_name(impl: str, lang: str = "en") -> str:
    key = f"backward.impl_{impl.replace('-', '_')}"
    try:
        return t(key, lang)
    except KeyError:                                   # an implementation this page has no name for
        return impl


def _log_range(values, pad: float = 0.25) -> list[float]:
    vals = [v for v in values if v and v > 0 and math.isfinite(v)]
    lo, hi = math.log10(min(vals)), math.log10(max(vals))
    return [lo - pad, hi + pad]


def _byte_ticks(values) -> dict:
    """Log-axis ticks at powers of two spelled in B / KiB / MiB / GiB (plotly's SI 'B' would read as billion)."""
    lo, hi = _log_range(values, 0.35)
    k0, k1 = math.floor(lo / math.log10(2)), math.ceil(hi / math.log10(2))
    step = max(1, math.ceil((k1 - k0) / 7))
    vals = [2 ** k for k in range(k0 - k0 % step, k1 + 1, step) if k >= 0]
    return dict(tickvals=vals, ticktext=[fmt_bytes(v).replace(".00", "") for v in vals], range=[lo, hi])


def stored_figure(rows: list[Stored], lang: str = "en", *, ratio: float) -> go.Figure:
    """One bar per tensor, coloured by the path that keeps it; bytes on a log axis (the gap is N / d-ish)."""
    data = []
    for path, color in (("naive", P.VERMILLION), ("flash", P.BLUE)):
        kept = [r for r in rows if getattr(r, path)]
        data.append(dict(type="bar", name=t(f"backward.keeps_{path}", lang), marker=dict(color=color),
                         x=[f"{r.name} ({r.shape})" for r in kept], y=[r.bytes for r in kept],
                         text=[fmt_bytes(r.bytes) for r in kept], textposition="outside", cliponaxis=False,
                         hovertemplate="%{x}: %{y:,} B<extra></extra>"))
    lay = base_layout(t("backward.stored_title", lang, ratio=f"{ratio:,.1f}"), height=380,
                      xaxis=axis(t("backward.axis_tensor", lang)),
                      yaxis=axis(t("backward.axis_bytes", lang), type="log", **_byte_ticks([r.bytes for r in rows])),
                      barmode="group", margin=dict(l=70, r=20, t=50, b=100))
    return figure(data, lay)


def peak_figure(cells: list[dict], lang: str = "en", *, device_bytes: int | None = None,
                mark_n: int | None = None) -> go.Figure:
    """cells: fwd+bwd cells of one (d, causal, dtype, B, H) at several N. OOM cells: an x on the memory line."""
    data, ys, oom_x = [], [], []
    ns = sorted({c["n"] for c in cells})
    top = device_bytes / MIB if device_bytes else None
    for impl in sorted({c["impl"] for c in cells}, key=impl_key):
        ok = sorted((c for c in cells if c["impl"] == impl and c.get("peak_extra_bytes") is not None),
                    key=lambda c: c["n"])
        oom = sorted(c["n"] for c in cells if c["impl"] == impl and c["status"] == "oom")
        color = IMPL_COLORS.get(impl, P.BLACK)
        y = [c["peak_extra_bytes"] / MIB for c in ok]
        ys += y
        data.append(dict(type="scatter", mode="lines+markers", name=impl_name(impl, lang), x=[c["n"] for c in ok],
                         y=y, line=dict(color=color, width=2, dash="dot" if impl == "teaching" else "solid"),
                         marker=dict(color=color, size=9, symbol=IMPL_SYMBOLS.get(impl, "circle")),
                         hovertemplate=f"{impl_name(impl, lang)}<br>N = %{{x}}<br>%{{y:,.0f}} MiB<extra></extra>"))
        if oom:
            oom_x += oom
            data.append(dict(type="scatter", mode="markers+text", name=t("backward.oom_name", lang, impl=impl_name(
                impl, lang)), x=oom, y=[top or (max(ys) * 4 if ys else 1)] * len(oom),
                text=[t("backward.oom", lang)] * len(oom), textposition="bottom center",
                marker=dict(color=color, size=14, symbol="x", line=dict(width=1, color=P.BLACK)),
                textfont=dict(color=P.VERMILLION), hovertemplate=t("backward.oom_hover", lang) + "<extra></extra>"))
    ideal = {c["n"]: c["ideal_bytes"] / MIB for c in cells}
    data.append(dict(type="scatter", mode="lines", name=t("backward.ideal_name", lang), x=ns,
                     y=[ideal[n] for n in ns], line=dict(color=P.BLACK, dash="dot", width=1.5),
                     hovertemplate="N = %{x}<br>%{y:,.0f} MiB<extra></extra>"))
    ys += [ideal[n] for n in ns]
    shapes, notes = [], []
    if top:
        ys.append(top)
        shapes.append(dict(type="line", xref="paper", x0=0, x1=1, y0=top, y1=top, line=dict(color=P.DARK_GREY,
                                                                                            dash="dash")))
        notes.append(dict(xref="paper", x=0.0, y=math.log10(top), yref="y", yanchor="bottom", xanchor="left",
                          showarrow=False, font=dict(size=11, color=P.DARK_GREY),
                          text=t("backward.device_memory", lang, gib=f"{device_bytes / 2**30:.0f}")))
    if mark_n:
        shapes.append(dict(type="line", yref="paper", y0=0, y1=1, x0=mark_n, x1=mark_n,
                           line=dict(color=P.ORANGE, width=1, dash="dash")))
    lay = base_layout(t("backward.peak_title", lang), height=480, legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.0, xanchor="left", x=0.0),
                      xaxis=axis(t("backward.axis_n", lang), type="log", tickvals=ns, ticktext=[str(n) for n in ns]),
                      yaxis=axis(t("backward.axis_mib", lang), type="log", dtick=1, range=_log_range(ys, 0.3)),
                      shapes=shapes, annotations=notes, margin=dict(l=70, r=20, t=50, b=180))
    return figure(data, lay)


def flops_figure(rows: list[dict], lang: str = "en") -> go.Figure:
    """rows from recompute.matmul_rows: one horizontal bar per pass (forward on top), length = FLOPs / forward's."""
    rows = rows[::-1]
    data = [dict(type="bar", orientation="h", y=[t(f"backward.pass_{r['key']}", lang) for r in rows],
                 x=[r["vs_fwd"] for r in rows], marker=dict(color=[PASS_COLORS[r["key"]] for r in rows]),
                 text=[t("backward.matmuls", lang, m=r["matmuls"], x=f"{r['vs_fwd']:g}") for r in rows],
                 textposition="outside", cliponaxis=False, showlegend=False,
                 customdata=[r["flops"] for r in rows],
                 hovertemplate="%{y}<br>%{customdata:.3s}FLOP<extra></extra>")]
    lay = base_layout(t("backward.flops_title", lang), height=300,
                      xaxis=axis(t("backward.axis_vs_fwd", lang), range=[0, 4.9]), yaxis=axis("", automargin=True),
                      margin=dict(l=190, r=90, t=50, b=50))
    return figure(data, lay)


def times_figure(cells: list[dict], lang: str = "en") -> go.Figure:
    """cells: one configuration, modes "bwd" and "fwd+bwd"; bars of ms per implementation, OOM written in."""
    impls = sorted({c["impl"] for c in cells}, key=impl_key)
    data = []
    for mode, color in (("bwd", P.BLUE), ("fwd+bwd", P.ORANGE)):
        by = {c["impl"]: c for c in cells if c["mode"] == mode}
        ms = [by[i]["ms"] if i in by else None for i in impls]
        text = [f"{m:.2f}" if m is not None else (t("backward.oom", lang) if i in by and by[i]["status"] == "oom"
                                                   else "—") for i, m in zip(impls, ms)]
        data.append(dict(type="bar", name=t(f"backward.mode_{mode.replace('+', '_')}", lang),
                         x=[impl_name(i, lang) for i in impls], y=[m or 0 for m in ms], text=text,
                         textposition="outside", cliponaxis=False, marker=dict(color=color),
                         hovertemplate="%{x}<br>%{text} ms<extra></extra>"))
    lay = base_layout(t("backward.times_title", lang), height=380, barmode="group",
                      xaxis=axis(""), yaxis=axis(t("backward.axis_ms", lang)),
                      margin=dict(l=60, r=20, t=50, b=100))
    return figure(data, lay)


def registers_figure(rows: list[dict], lang: str = "en") -> go.Figure:
    """rows from tune_record.register_rows: per cell two bars, cuDNN's time over ours for each schedule (1 = as fast
    as SDPA cuDNN, dashed; the note on its left end), the value written on each bar."""
    cells = [t("backward.regs_cell", lang, d=r["d"], n=r["n"],
               causal=t("backward.causal_yes" if r["causal"] else "backward.causal_no", lang)) for r in rows]
    data = [dict(type="bar", name=t(f"backward.regs_{k}", lang), x=cells, y=[r[k] for r in rows],
                 text=[f"{r[k]:.2f}" for r in rows], textposition="outside", cliponaxis=False,
                 textfont=dict(size=10), marker=dict(color=color), customdata=[r[f"{k}_ms"] for r in rows],
                 hovertemplate="%{x}<br>%{customdata:.2f} ms · %{y:.2f}×<extra></extra>")
            for k, color in (("held", P.DARK_GREY), ("started", P.BLUE))]
    top = max([1.0] + [r[k] for r in rows for k in ("held", "started")])
    shapes = [dict(type="line", xref="paper", x0=0, x1=1, y0=1, y1=1, line=dict(color=P.PURPLE, dash="dash"))]
    notes = [dict(xref="paper", x=0.0, y=1, yref="y", xanchor="left", yanchor="bottom", showarrow=False,
                  font=dict(size=11, color=P.PURPLE), text=t("backward.regs_cudnn_line", lang))]
    lay = base_layout(t("backward.regs_title", lang), height=420, barmode="group", shapes=shapes, annotations=notes,
                      xaxis=axis(""), yaxis=axis(t("backward.axis_vs_cudnn", lang), range=[0, top * 1.18]),
                      margin=dict(l=70, r=20, t=60, b=120))
    return figure(data, lay)
