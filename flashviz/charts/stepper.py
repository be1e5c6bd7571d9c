"""Charts of the online-softmax stepper: a Trace and the current step in, a plotly Figure out.

strip_figure        the row of scores, each key not loaded / in the current tile (SRAM) / discarded; masked keys crossed
recurrence_figure   m, alpha, l per tile up to the current step; rescale steps marked
accumulator_figure  o/l per output dimension after the current tile vs the exact answer (green ticks)
error_figure        max |o/l - exact| per tile up to the current step (log scale)

Every label goes through t(key, lang). Non-finite values (−∞ from masking, NaN from the unguarded
pitfall) cannot be drawn, so they leave a gap and get a text marker instead. Traces are plain dicts
(see common.figure); raw=True returns them without a Figure (the browser's copy, charts/stepper_payload.py).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..i18n import t
from ..engine.online_softmax import Trace
from . import palette as P
from .common import axis, base_layout, figure, finite_or_none, nonfinite_labels

NOT_LOADED, ON_CHIP, DISCARDED = 0, 1, 2
STATE_COLORS = (P.GREY, P.ORANGE, P.DARK_GREY)
STATE_KEYS = ("stepper.state_not_loaded", "stepper.state_on_chip", "stepper.state_discarded")
MAX_CELL_TEXT = 32      # write the score inside each cell up to this many keys
MAX_HOVER_TEXT = 512    # per-key hover text up to this many keys (then: key index only)
MAX_MARKERS = 64        # draw markers on lines up to this many tiles
ERR_FLOOR = 1e-17       # exact agreement is drawn here on the log axis
EPS64 = 2.220446049250313e-16


def key_states(n: int, lo: int, hi: int) -> np.ndarray:
    """(N,) state of each key while the tile [lo, hi) is on chip."""
    j = np.arange(n)
    return np.where(j < lo, DISCARDED, np.where(j < hi, ON_CHIP, NOT_LOADED)).astype(np.int8)


def _out(data: list[dict], lay: dict, raw: bool):
    """A Figure, or with raw=True the plain (data, layout) dicts it would hold (flashviz/charts/stepper_payload.py
    serialises those for the browser without building a Figure)."""
    return (data, lay) if raw else figure(data, lay)


def _legend_square(name: str, color: str) -> dict:
    return dict(type="scatter", x=[None], y=[None], mode="markers", name=name, showlegend=True, hoverinfo="skip",
                marker=dict(symbol="square", size=13, color=color, line=dict(color=P.OUTLINE, width=1)))


def strip_figure(tr: Trace, step: int, lang: str, *, raw: bool = False):
    """One cell per key, coloured by where the key is at `step`. data[0].z[0] = states, data[4].x = masked keys."""
    n, lo, hi = tr.n, int(tr.start[step]), int(tr.stop[step])
    states = key_states(n, lo, hi)
    masked = np.isneginf(tr.scores)
    names = [t(k, lang) for k in STATE_KEYS]
    key_word = t("stepper.hover_key", lang)
    if n <= MAX_HOVER_TEXT:
        shown = np.char.mod("%.4f", tr.scores).astype(object)          # hover: the score, or why there is none
        shown[masked] = "−∞"
        shown[(states == NOT_LOADED) & ~masked] = "—"                     # not loaded: never seen yet
        custom = np.stack([shown, np.array(names, dtype=object)[states]], axis=-1)[None]   # (1, N, 2)
        hover = (f"{key_word} %{{x}}<br>{t('stepper.hover_score', lang)} %{{customdata[0]}}"
                 "<br>%{customdata[1]}<extra></extra>")
    else:
        custom, hover = None, f"{key_word} %{{x}}<extra></extra>"
    scale = [[0, STATE_COLORS[0]], [1 / 3, STATE_COLORS[0]], [1 / 3, STATE_COLORS[1]],
             [2 / 3, STATE_COLORS[1]], [2 / 3, STATE_COLORS[2]], [1, STATE_COLORS[2]]]
    data = [dict(type="heatmap", z=states[None, :], x0=0, dx=1, y=[0], zmin=-0.5, zmax=2.5, colorscale=scale,
                 showscale=False, xgap=1 if n <= 128 else 0, name="", customdata=custom, hovertemplate=hover)]
    data += [_legend_square(nm, c) for nm, c in zip(names, STATE_COLORS)]
    mx = np.flatnonzero(masked).astype(np.int32)
    data.append(dict(type="scatter", x=mx, y=np.zeros(mx.size, np.int8), mode="markers",
                     name=t("stepper.state_masked", lang), hoverinfo="skip",
                     marker=dict(symbol="x-thin", size=max(5, min(16, 480 // n)), color=P.BLACK,
                                 line=dict(color=P.BLACK, width=2))))
    notes = []
    if n <= MAX_CELL_TEXT:                          # the numbers themselves, like the lesson's strip
        for j in np.flatnonzero(~masked):          # masked keys: the cross says it
            txt = "—" if states[j] == NOT_LOADED else f"{tr.scores[j]:.2f}"
            notes.append(dict(x=int(j), y=0, text=txt, showarrow=False,
                              font=dict(size=12 if n <= 16 else 10,
                                        color="white" if states[j] == DISCARDED else P.CELL_TEXT)))
    mid = (lo + hi - 1) / 2
    side = "left" if mid < 0.15 * n else "right" if mid > 0.85 * n else "center"   # keep the label inside
    notes.append(dict(x=mid, y=0.5, yref="y", showarrow=True, arrowhead=2, arrowcolor=P.ORANGE, xanchor=side,
                      ax=0, ay=-28, font=dict(color=P.ORANGE_TEXT, size=13),
                      text=t("stepper.strip_tile", lang, t=step + 1, lo=lo, hi=hi - 1)))
    lay = base_layout(t("stepper.strip_title", lang, n=n, tile=tr.tile_size), height=230,
                      xaxis=axis(t("stepper.axis_key", lang), range=[-0.5, n - 0.5], showgrid=False,
                                 zeroline=False),
                      yaxis=dict(visible=False, range=[-0.5, 1.2], fixedrange=True),
                      annotations=notes, margin=dict(l=20, r=20, t=80, b=45),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0))
    return _out(data, lay, raw)


def _series(x, y, name: str, color: str, yaxis: str, mark_y: float = 0.0) -> list[dict]:
    """[line with gaps at non-finite values, text marks at `mark_y` saying what each gap was] (two traces)."""
    y = np.asarray(y, dtype=np.float64)
    line = dict(type="scatter", x=x, y=finite_or_none(y), mode="lines+markers" if len(x) <= MAX_MARKERS else "lines",
                name=name, yaxis=yaxis, connectgaps=False, line=dict(color=color, width=2.5),
                marker=dict(size=7, color=color), hovertemplate=f"{name}: %{{y:.6g}}<extra>%{{x}}</extra>")
    bad = np.flatnonzero(~np.isfinite(y))
    marks = dict(type="scatter", x=np.asarray(x)[bad], y=np.full(bad.size, mark_y), mode="text", yaxis=yaxis,
                 text=nonfinite_labels(y[bad]), showlegend=False, hoverinfo="skip",
                 textfont=dict(color=P.VERMILLION, size=13))
    return [line, marks]


def recurrence_figure(tr: Trace, step: int, lang: str, *, raw: bool = False):
    """Three stacked panels over tiles 1..Tc, filled up to `step`: data[0].y = m, data[2].y = α, data[4].y = ℓ;
    data[6] marks the rescale steps."""
    k = step + 1
    x = np.arange(1, k + 1, dtype=np.int32)
    data = []
    for name_key, arr, color, ax in (("stepper.col_m", tr.m, P.BLUE, "y3"),
                                     ("stepper.col_alpha", tr.alpha, P.PURPLE, "y2"),
                                     ("stepper.col_l", tr.l, P.SKY_BLUE, "y")):
        data += _series(x, arr[:k], t(name_key, lang), color, ax)
    resc = np.flatnonzero(tr.rescaled[:k])
    data.append(dict(type="scatter", x=(resc + 1).astype(np.int32), y=finite_or_none(tr.alpha[resc]),
                     mode="markers", yaxis="y2", name=t("stepper.rescale", lang), hovertemplate="%{x}<extra></extra>",
                     marker=dict(symbol="diamond", size=11, color=P.VERMILLION, line=dict(color="white", width=1))))
    lay = base_layout(t("stepper.rec_title", lang), height=480, margin=dict(l=60, r=20, t=50, b=110),
                      legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0.0),
                      xaxis=axis(t("stepper.axis_tile", lang), range=[0.5, tr.steps + 0.5], anchor="y",
                                 tickformat="d"),
                      yaxis=axis("ℓ", domain=[0.0, 0.28]),
                      yaxis2=axis("α", domain=[0.36, 0.64]),
                      yaxis3=axis("m", domain=[0.72, 1.0]),
                      shapes=[dict(type="line", xref="x", yref="paper", x0=k, x1=k, y0=0, y1=1,
                                   line=dict(color=P.ORANGE, width=2, dash="dot"))])
    return _out(data, lay, raw)


def accumulator_figure(tr: Trace, step: int, lang: str, *, raw: bool = False):
    """Bars o/ℓ per output dim after tile `step` (data[0].y); green ticks at the exact answer (data[1].y)."""
    d, final = tr.d, step == tr.steps - 1
    x = np.arange(d, dtype=np.int32)
    cur = tr.o_normalised[step]
    exact_name = t("stepper.acc_exact", lang)
    data = [dict(type="bar", x=x, y=finite_or_none(cur), name=t("stepper.acc_now", lang, t=step + 1),
                 marker=dict(color=P.BLUE if final else P.SKY_BLUE, line=dict(color=P.BLUE, width=1)),
                 hovertemplate="o[%{x}]/ℓ = %{y:.6g}<extra></extra>"),
            dict(type="scatter", x=x, y=np.array(tr.exact, dtype=np.float64), mode="markers", name=exact_name,
                 marker=dict(symbol="line-ew", size=max(10, min(44, 700 // max(d, 1))), color=P.GREEN,
                             line=dict(color=P.GREEN, width=4)),
                 hovertemplate=exact_name + " %{y:.6g}<extra></extra>")]
    bad = np.flatnonzero(~np.isfinite(cur))
    data.append(dict(type="scatter", x=x[bad], y=np.zeros(bad.size), mode="text", text=nonfinite_labels(cur[bad]),
                     showlegend=False, hoverinfo="skip", textfont=dict(color=P.VERMILLION, size=14)))
    few = d <= 32
    lay = base_layout(t("stepper.acc_title", lang, t=step + 1, tc=tr.steps), height=380, bargap=0.35,
                      xaxis=axis(t("stepper.axis_dim", lang), tickmode="array" if few else "auto",
                                 tickvals=x if few else None, ticktext=[f"o[{i}]" for i in x] if few else None),
                      yaxis=axis(t("stepper.axis_value", lang)))
    return _out(data, lay, raw)


def step_errors(tr: Trace) -> np.ndarray:
    """(Tc,) max |o/ℓ - exact| after each tile; NaN where the pitfall struck."""
    return np.abs(tr.o_normalised - tr.exact[None, :]).max(axis=1)


def error_figure(tr: Trace, step: int, lang: str, *, raw: bool = False):
    """Max |o/ℓ - exact| after each tile up to `step`, log scale. data[0].y = errors floored at ERR_FLOOR,
    data[0].customdata = the errors themselves."""
    k = step + 1
    err = step_errors(tr)[:k]
    with np.errstate(invalid="ignore"):
        shown = np.where(err < ERR_FLOOR, ERR_FLOOR, err)
    data = _series(np.arange(1, k + 1, dtype=np.int32), shown, t("stepper.err_name", lang), P.VERMILLION, "y",
                   mark_y=1.0)                                  # log axis: NaN marks at 10^0
    data[0].update(customdata=err, hovertemplate="%{customdata:.3g}<extra>%{x}</extra>")
    lay = base_layout(t("stepper.err_title", lang), height=380, margin=dict(l=85, r=20, t=50, b=60), showlegend=False,
                      xaxis=axis(t("stepper.axis_tile", lang), range=[0.5, tr.steps + 0.5], tickformat="d"),
                      yaxis=axis(t("stepper.err_axis", lang), type="log", exponentformat="power"),
                      shapes=[dict(type="line", xref="paper", x0=0, x1=1, y0=EPS64, y1=EPS64,
                                   line=dict(color=P.GREEN, width=1.5, dash="dash"))],
                      annotations=[dict(xref="paper", x=1, y=float(np.log10(EPS64)), yref="y", xanchor="right",
                                        yanchor="bottom", showarrow=False, text=t("stepper.err_eps", lang),
                                        font=dict(color=P.GREEN_TEXT, size=12))])
    return _out(data, lay, raw)
