"""Everything the browser needs to step through one configuration with no server: the payload (pure, no streamlit).

One JSON document per (configuration, language), built once and cached by the page (flashviz/ui/stepper_view.py),
read by flashviz/client/player.js and embedded in the offline page (flashviz.charts.offline.stepper_html):

  arrays   every step's numbers as little-endian float64 in base64 (exact: NaN and ±∞ survive, no rounding):
           the row's scores (N); per tile tile_max, m, alpha, l, tile_sum, rescaled, err (max |o/ℓ − exact|), gap
           (FA2's o/ℓ vs Algorithm 1's o); o_norm (Tc × dk, the accumulator chart), o2 / o1 / pv / out2 (Tc × 4,
           the formulas' vectors in FA2's and Algorithm 1's form), exact (dk), fin (both forms' final errors)
  figs     the four charts of flashviz/charts/stepper.py, built at the last step; the browser rewrites only what
           changes with the step
  text     the page's strings in its language; formula: the recurrence's templates (charts/stepper_formula.py)

Size: at most about MAX_FLOATS numbers; past that the accumulator chart shows the first dk of d dimensions (the
page says so). The error per step is computed here over all d dimensions either way.
"""
from __future__ import annotations

import base64
import json
import types

import numpy as np

from ..i18n import STRINGS, t
from ..engine.online_softmax import Trace
from . import palette as P
from . import stepper as charts
from .common import EXPORT_HEIGHT, EXPORT_SCALE, EXPORT_WIDTH, compact
from .stepper_formula import SHOWN_DIMS, TEMPLATES

MAX_FLOATS = 1 << 18            # ~2 MiB of float64 per configuration before the accumulator chart is cut
TABLE_ROWS = 32                 # the table shows at most the last 32 tiles (the chart shows them all)
PRESENT_FONTS = (17, 21)        # chart text in presenter mode (ui/common.PRESENT_FONT, PRESENT_TITLE_FONT)
EXPORT_HEIGHTS = {"strip": 360}
TEXT_PREFIXES = ("stepper.", "recurrence.")
TEXT_KEYS = ("common.step_first", "common.step_prev", "common.step_next", "common.step_last", "common.step_slider",
             "common.step_slider_help", "common.autoplay", "common.autoplay_help", "common.speed",
             "common.speed_value")


def b64(a) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype="<f8").tobytes()).decode("ascii")


def shown_dims(n: int, d: int, steps: int) -> int:
    """Dimensions of o the accumulator chart carries per step: all d unless that would pass MAX_FLOATS."""
    fixed = n + steps * (9 + 4 * SHOWN_DIMS)
    room = (MAX_FLOATS - fixed) // (steps + 1)
    return int(min(d, max(min(d, SHOWN_DIMS), room)))


def texts(lang: str) -> dict[str, str]:
    keys = [k for k in STRINGS if k.startswith(TEXT_PREFIXES)] + list(TEXT_KEYS)
    return {k: t(k, lang) for k in keys}


# What the browser rewrites at every step (trace index -> fields): sent empty, not at the last step's size.
STEPPED = {"strip": {0: ("z", "customdata")}, "rec": {i: ("x", "y", "text") for i in range(7)},
           "acc": {0: ("y",), 2: ("x", "y", "text")}, "err": {0: ("x", "y", "customdata"), 1: ("x", "y", "text")}}


def _plain(v):
    """JSON-ready: numpy arrays and scalars as lists and numbers, NaN and ±∞ as null (plotly.js draws a gap)."""
    if isinstance(v, np.ndarray):
        if v.dtype.kind == "f":
            return [None if not np.isfinite(x) else x for x in v.tolist()] if not np.isfinite(v).all() else v.tolist()
        return _plain(v.tolist()) if v.dtype == object else v.tolist()
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return None
    return v


def _fig_json(name: str, raw: tuple[list, dict]) -> str:
    """The figure as plotly.js reads it, from the builder's plain dicts, its stepped fields empty. Its template
    'none' is empty for plotly.js (plotly.js has no built-in template), so it is left out rather than named."""
    data, lay = raw
    data = [dict(tr) for tr in data]
    for i, fields in STEPPED[name].items():
        for f in fields:
            data[i][f] = []
    lay = {k: v for k, v in lay.items() if k != "template"}
    return json.dumps({"data": _plain(data), "layout": _plain(lay)}, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":"))


def build(fa2: Trace, fa1: Trace, lang: str, *, key: str, slug: str, typed: bool = False) -> bytes:
    """The payload of the configuration whose FA2 and Algorithm-1 traces are `fa2` and `fa1`, as UTF-8 JSON."""
    if fa2.form != "fa2" or fa1.form != "fa1" or fa2.steps != fa1.steps:
        raise ValueError("build() wants the FA2 and the Algorithm 1 trace of one configuration")
    n, d, tc = fa2.n, fa2.d, fa2.steps
    ds, dk = min(d, SHOWN_DIMS), shown_dims(n, d, tc)
    last = tc - 1
    err = charts.step_errors(fa2)
    with np.errstate(invalid="ignore"):
        gap = np.abs(fa2.o_normalised - fa1.o_normalised).max(axis=1)
    fin = [float(np.max(np.abs(x.output - x.exact))) for x in (fa2, fa1)]
    arrays = dict(scores=fa2.scores, tile_max=fa2.tile_max, m=fa2.m, alpha=fa2.alpha, l=fa2.l, tile_sum=fa2.tile_sum,
                  rescaled=fa2.rescaled.astype(np.float64), err=err, gap=gap, fin=fin,
                  o_norm=fa2.o_normalised[:, :dk], exact=fa2.exact[:dk], o2=fa2.o[:, :ds], pv=fa2.tile_pv[:, :ds],
                  o1=fa1.o[:, :ds], out2=fa2.o_normalised[:, :ds])
    cut = types.SimpleNamespace(d=dk, steps=tc, o_normalised=fa2.o_normalised[:, :dk], exact=fa2.exact[:dk])
    figs = {"strip": charts.strip_figure(fa2, last, lang, raw=True),
            "rec": charts.recurrence_figure(fa2, last, lang, raw=True),
            "acc": charts.accumulator_figure(cut, last, lang, raw=True),
            "err": charts.error_figure(fa2, last, lang, raw=True)}
    meta = dict(v=1, id=key, lang=lang, slug=slug, n=n, d=d, tile=fa2.tile_size, steps=tc, ds=ds, dk=dk,
                guard=bool(fa2.guard), typed=typed, naive=f"{compact(n)} / {compact(n * n)}",
                colors=dict(blue=P.BLUE, sky=P.SKY_BLUE), present_fonts=list(PRESENT_FONTS),
                image=dict(width=EXPORT_WIDTH, height=EXPORT_HEIGHT, scale=EXPORT_SCALE), heights=EXPORT_HEIGHTS,
                limits=dict(table_rows=TABLE_ROWS, max_markers=charts.MAX_MARKERS, max_cell_text=charts.MAX_CELL_TEXT,
                            max_hover_text=charts.MAX_HOVER_TEXT, err_floor=charts.ERR_FLOOR),
                text=texts(lang), formula=TEMPLATES, arrays={k: b64(v) for k, v in arrays.items()})
    head = json.dumps(meta, ensure_ascii=False, allow_nan=False)
    body = ",".join(f'"{k}":{_fig_json(k, f)}' for k, f in figs.items())
    return (head[:-1] + ',"figs":{' + body + "}}").encode("utf-8")
