"""Shared chart plumbing: a light layout (no heavy template: figures are rebuilt on every step),
the modebar image-export config, and helpers for -inf / NaN values that Plotly cannot draw."""
from __future__ import annotations

import copy
import functools

import numpy as np
import plotly.graph_objects as go

from . import palette

EXPORT_WIDTH, EXPORT_HEIGHT, EXPORT_SCALE = 1280, 720, 2      # 16:9 slide; PNG at 2x = 2560 x 1440
FONT = "Source Sans Pro, Noto Sans CJK SC, Noto Sans SC, Microsoft YaHei, Arial, sans-serif"
GRID = palette.GRID


def plotly_config(filename: str, fmt: str = "png", *, height: int | None = None) -> dict:
    """Config for st.plotly_chart(fig, config=...): modebar on, camera button saves `filename`.`fmt`."""
    if fmt not in ("png", "svg", "jpeg", "webp"):
        raise ValueError(f"unknown image format {fmt!r}")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in filename)
    return {
        "displaylogo": False,                  # the modebar appears on hover; its camera saves the image
        "modeBarButtonsToRemove": ["lasso2d", "select2d"],
        "toImageButtonOptions": {"format": fmt, "filename": safe, "width": EXPORT_WIDTH,
                                 "height": height or EXPORT_HEIGHT, "scale": EXPORT_SCALE if fmt != "svg" else 1},
    }


def axis(title: str = "", **kw) -> dict:
    return dict(title=dict(text=title), gridcolor=GRID, zerolinecolor=palette.ZERO_LINE, linecolor=palette.AXIS,
                showline=True, ticks="outside", tickcolor=palette.AXIS, **kw)


def base_layout(title: str, *, height: int = 360, **kw) -> dict:
    """Plain white layout; template 'none' keeps figure construction cheap."""
    lay = dict(template="none", title=dict(text=title, x=0.01, xanchor="left", font=dict(size=16)),
               font=dict(family=FONT, size=13, color=palette.INK), height=height,
               paper_bgcolor="white", plot_bgcolor="white", margin=dict(l=60, r=20, t=50, b=95),
               legend=dict(orientation="h", yanchor="top", y=-0.26, xanchor="left", x=0.0),
               hoverlabel=dict(font=dict(family=FONT)))
    lay.update(kw)
    return lay


LAYOUT_ARRAYS = ("annotations", "shapes", "images", "sliders", "updatemenus", "selections")


def figure(data: list[dict], layout: dict) -> go.Figure:
    """A Figure from plain dicts without Plotly's per-property validation (figures are rebuilt on every
    step; validation dominated the rerun time). The chart tests re-validate every builder's output. An empty
    list of annotations, shapes, ... is left out, as validation leaves it out."""
    if any(k in layout and not layout[k] for k in LAYOUT_ARRAYS):
        layout = {k: v for k, v in layout.items() if not (k in LAYOUT_ARRAYS and not v)}
    return go.Figure(data=data, layout=layout, _validate=False)


def merge(base: dict, extra: dict) -> dict:
    """`base` updated by `extra` in place, nested dicts merged key by key (as Figure.update_layout merges a
    compound property); returns `base`."""
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v
    return base


@functools.lru_cache(maxsize=64)
def _grid(rows: int, cols: int, titled: tuple[bool, ...], options: tuple) -> dict:
    from plotly.subplots import make_subplots
    titles = tuple(f"\x00{i}" if on else "" for i, on in enumerate(titled))
    kw = {k: list(v) if isinstance(v, tuple) else v for k, v in options}
    lay = make_subplots(rows=rows, cols=cols, subplot_titles=titles or None, **kw).to_dict()["layout"]
    lay.pop("template", None)
    return lay


def subplot_layout(rows: int, cols: int, titles=(), **options) -> dict:
    """make_subplots(rows, cols, subplot_titles=titles, **options)'s layout (axes' domains and anchors, the
    titles' annotations) as a new plain dict, without its template. make_subplots runs once per grid and options
    (it validates every property: ~10 ms); the titles are filled in per call. Traces go on a cell with
    `cell_axes(row, col, cols)`."""
    opts = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items()))
    lay = copy.deepcopy(_grid(rows, cols, tuple(bool(x) for x in titles), opts))
    for note in lay.get("annotations", ()):
        if note.get("text", "").startswith("\x00"):
            note["text"] = titles[int(note["text"][1:])]
    return lay


def cell_axes(row: int, col: int, cols: int) -> dict:
    """{'xaxis': 'x3', 'yaxis': 'y3'}: the axes a trace on cell (row, col) of a `cols`-wide grid uses, as
    Figure.add_trace(row=, col=) sets them."""
    k = (row - 1) * cols + col
    return {"xaxis": "x" if k == 1 else f"x{k}", "yaxis": "y" if k == 1 else f"y{k}"}


def axis_name(kind: str, row: int, col: int, cols: int) -> str:
    """'xaxis', 'yaxis2', ...: the layout key of cell (row, col)'s x or y axis."""
    k = (row - 1) * cols + col
    return f"{kind}axis" if k == 1 else f"{kind}axis{k}"


def finite_or_none(y: np.ndarray) -> np.ndarray:
    """Float array with non-finite values as NaN (Plotly leaves a gap); the input is not modified."""
    y = np.asarray(y, dtype=np.float64).copy()
    y[~np.isfinite(y)] = np.nan
    return y


def nonfinite_labels(y: np.ndarray) -> list[str]:
    """'NaN', '−∞', '+∞' or '' per value: text for markers that stand in for what cannot be drawn."""
    y = np.asarray(y, dtype=np.float64)
    return ["NaN" if np.isnan(v) else "−∞" if v == -np.inf else "+∞" if v == np.inf else "" for v in y]


def fmt_num(v: float, digits: int = 4) -> str:
    """4-digit number, or NaN / −∞ / +∞ spelled out."""
    if np.isnan(v):
        return "NaN"
    if np.isinf(v):
        return "−∞" if v < 0 else "+∞"
    return f"{v:.{digits}g}" if abs(v) < 1e-3 and v != 0 else f"{v:.{digits}f}"


def compact(n: int) -> str:
    """1234 -> '1,234'; 16777216 -> '16.8M'; 268435456 -> '268M' (fits a metric tile)."""
    if n < 100_000:
        return f"{n:,}"
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            v = n / div
            return f"{v:.3g}{unit}"
    return str(n)


COLORS = palette  # re-export for builders: charts.common.COLORS.ORANGE
