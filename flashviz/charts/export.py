"""Chart export, pure (no streamlit): a Plotly figure in, file bytes out.

    png / svg   kaleido driving the system Chromium (flashviz.infra.images: one browser per process, replaced when
                it dies or hangs, a failed start tried again later)
    html        self-contained and offline (plotly.js inlined, ~4.8 MB), configuration in a <script> tag
    csv         one row per point (per cell for 2-D z), configuration in '# ' header lines
    json        the traces' x / y / z / text / customdata and names, plus the configuration
    zip         all of the above for several charts, and a manifest.json

Arrays come out of `fig.to_dict()`, which plotly 7 encodes as typed arrays ({"dtype", "bdata", "shape"});
`plain()` decodes them. JSON has no NaN or ±∞: they become null there (CSV keeps 'nan', 'inf', '-inf').
An image that cannot be made raises an ImageError saying why (ImagesUnavailable: no browser, or it failed to
start; ImageFailed: this image failed); everything else still works, and a zip's manifest lists what it holds.
"""
from __future__ import annotations

import base64
import csv
import io
import json
import math
import time
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

from .. import __version__
from ..infra import images
from .common import EXPORT_HEIGHT, EXPORT_SCALE, EXPORT_WIDTH, plotly_config
from ..infra.images import (NO_BROWSER, ImageError, ImageFailed, ImagesUnavailable,  # noqa: F401 (the API)
                            find_browser, reset)

IMAGE_FORMATS = ("png", "svg")
FORMATS = ("png", "svg", "html", "csv", "json")
MIME = {"png": "image/png", "svg": "image/svg+xml", "html": "text/html", "csv": "text/csv",
        "json": "application/json", "zip": "application/zip"}
DATA_KEYS = ("x", "y", "z", "text", "customdata")       # what CSV / JSON carry per trace
MAX_STEM = 150
image_status = images.status                            # (True, browser) or (False, why); instant
image_check = images.check                              # the same, and is the browser answering? (<= 1.5 s)
IMAGE_HUNG = images.HUNG                                # check()'s reason when the browser did not answer
last_image_failure = images.last_failure                # why the last image failed, if it did lately


@dataclass
class ChartExport:
    """One chart as the page drew it: the figure, its name and configuration slug, and metadata."""

    name: str
    slug: str
    fig: object                                   # plotly.graph_objects.Figure (or a LazyFigure)
    meta: dict = field(default_factory=dict)
    height: int | None = None                     # export height (px) as the modebar uses it

    @property
    def stem(self) -> str:
        return file_stem(self.name, self.slug)

    def figure(self):
        """The figure (a LazyFigure is built now, once)."""
        return self.fig.figure() if isinstance(self.fig, LazyFigure) else self.fig


class LazyFigure:
    """A figure made on first use: what a page registers for export when it draws the chart in the browser (the
    stepper), so that no figure is built on a run that exports nothing. Every attribute is the built figure's."""

    def __init__(self, build):
        self._build, self._fig = build, None

    def figure(self):
        if self._fig is None:
            self._fig = self._build()
        return self._fig

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.figure(), name)


@dataclass
class FileExport:
    """A whole file a page offers besides its charts (the stepper's offline page): its name and a function that
    makes its bytes when asked (a click, a zip)."""

    name: str
    make: object                                  # () -> bytes
    mime: str = "text/html"


# ----------------------------------------------------------------------------- names

def safe(text: str) -> str:
    """File-name-safe: letters, digits, '-', '_', '.'; anything else becomes '_'."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in str(text))


def file_stem(name: str, slug: str) -> str:
    """'flashviz_<chart>_<configuration>', e.g. flashviz_strip_N16_d4_Br4_Bc4_fp32_seed12_row15_step1."""
    return safe(f"flashviz_{name}_{slug}" if slug else f"flashviz_{name}")[:MAX_STEM]


# ----------------------------------------------------------------------------- plain data

def _decode(v: dict) -> np.ndarray:
    arr = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]).newbyteorder("<"))
    shape = v.get("shape")
    if shape:
        arr = arr.reshape([int(s) for s in str(shape).split(",")] if isinstance(shape, str) else shape)
    return arr


def plain(v, *, json_safe: bool = False):
    """Lists, numbers, strings and None from numpy arrays, typed-array dicts, tuples and scalars.
    With json_safe, NaN and ±∞ become None."""
    if isinstance(v, dict) and "bdata" in v and "dtype" in v:
        v = _decode(v)
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [plain(x, json_safe=json_safe) for x in v]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, dict):
        return {k: plain(x, json_safe=json_safe) for k, x in v.items()}
    if json_safe and isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _title(obj) -> str:
    t = (obj or {}).get("title")
    return (t.get("text") if isinstance(t, dict) else t) or ""


def traces(fig, *, json_safe: bool = False) -> list[dict]:
    """[{index, name, type, x?, y?, z?, text?, customdata?, x0?, dx?, y0?, dy?}] for every trace of `fig`."""
    out = []
    for i, tr in enumerate(fig.to_dict().get("data", [])):
        row = {"index": i, "name": tr.get("name") or "", "type": tr.get("type", "scatter")}
        for k in DATA_KEYS + ("x0", "dx", "y0", "dy"):
            if tr.get(k) is not None and not (k == "text" and isinstance(tr[k], str)):
                row[k] = plain(tr[k], json_safe=json_safe)
        out.append(row)
    return out


def axes(fig) -> dict:
    """{'xaxis': title, 'yaxis2': title, ...} for every axis with a title."""
    lay = fig.to_dict().get("layout", {})
    return {k: _title(v) for k, v in sorted(lay.items()) if k[1:5] == "axis" and isinstance(v, dict) and _title(v)}


def _cell(v) -> str:
    """CSV text: '' for None, repr-exact floats, ' | ' between the parts of a list."""
    if v is None:
        return ""
    if isinstance(v, list):
        return " | ".join(_cell(x) for x in v)
    return str(v)


def rows(tr: dict) -> list[list]:
    """One CSV row per point: [trace, name, type, i, j, x, y, z, text, customdata]; a 2-D z gives one per cell."""
    z, x, y = tr.get("z"), tr.get("x"), tr.get("y")
    text, custom = tr.get("text"), tr.get("customdata")

    def at(a, *idx):
        for k in idx:
            if not isinstance(a, list) or k >= len(a):
                return None
            a = a[k]
        return a

    def coord(arr, start, step, k):
        if arr is not None:
            return at(arr, k)
        return None if start is None and step is None else (start or 0) + (step if step is not None else 1) * k

    head = [tr["index"], tr["name"], tr["type"]]
    if isinstance(z, list) and z and isinstance(z[0], list):                 # heatmap-like: cells
        return [head + [i, j, coord(x, tr.get("x0"), tr.get("dx"), j), coord(y, tr.get("y0"), tr.get("dy"), i),
                        zz, at(text, i, j), at(custom, i, j)]
                for i, zrow in enumerate(z) for j, zz in enumerate(zrow)]
    n = max((len(a) for a in (x, y, z, text) if isinstance(a, list)), default=0)
    return [head + [i, "", at(x, i), at(y, i), at(z, i), at(text, i), at(custom, i)] for i in range(n)]


CSV_COLUMNS = ["trace", "name", "type", "i", "j", "x", "y", "z", "text", "customdata"]


# ----------------------------------------------------------------------------- formats

def fig_dict(fig) -> dict:
    """fig.to_dict() with a template named by a string (figures built without validation keep 'none' as
    text) replaced by the template itself, as validation would have done."""
    import plotly.io as pio

    d = fig.to_dict()
    lay = d.setdefault("layout", {})
    if isinstance(lay.get("template"), str):
        name = lay["template"]
        lay["template"] = pio.templates[name].to_plotly_json() if name in pio.templates else {}
    return d


def _meta_doc(item: ChartExport) -> dict:
    return {"app": "flashviz", "version": __version__, "chart": item.name, "file": item.stem,
            "title": _title(item.figure().to_dict().get("layout", {})), **plain(item.meta, json_safe=True)}


def to_csv(item: ChartExport) -> bytes:
    """Long CSV (see CSV_COLUMNS); the chart's metadata first, as '# key: value' lines."""
    buf = io.StringIO()
    for k, v in _meta_doc(item).items():
        buf.write(f"# {k}: {json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v}\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for tr in traces(item.figure()):
        w.writerows([[_cell(c) for c in r] for r in rows(tr)])
    return buf.getvalue().encode("utf-8")


def to_json(item: ChartExport) -> bytes:
    """{'meta': ..., 'axes': ..., 'traces': [...]}; strict JSON (NaN and ±∞ as null)."""
    doc = {"meta": _meta_doc(item), "axes": axes(item.figure()), "traces": traces(item.figure(), json_safe=True),
           "notes": "NaN and ±infinity are null here; the CSV keeps them as nan / inf / -inf."}
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, indent=1).encode("utf-8")


def to_html(item: ChartExport) -> bytes:
    """A self-contained page (plotly.js inlined: works offline) with a <title> and the metadata in
    <script type="application/json" id="flashviz-metadata">."""
    doc = _meta_doc(item)
    import plotly.io as pio

    html = pio.to_html(fig_dict(item.figure()), include_plotlyjs=True, full_html=True, validate=False,
                       config=plotly_config(item.stem, "png", height=item.height))
    meta = json.dumps(doc, ensure_ascii=False, allow_nan=False).replace("</", "<\\/")
    head = (f'<head>\n    <title>{escape(doc["title"] or item.name)}</title>\n'
            f'    <meta name="generator" content="flashviz {__version__}" />\n'
            f'    <script type="application/json" id="flashviz-metadata">{meta}</script>')
    return html.replace("<head>", head, 1).encode("utf-8")


def escape(s: str) -> str:
    """Text safe inside an HTML element (&, <, >). Quotes stay: an attribute written with it takes known values only
    (offline.stepper_html's lang)."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def image_size(item: ChartExport) -> tuple[int, int]:
    """The slide-friendly size the modebar camera also uses: 1280 wide, the chart's export height or 720."""
    return EXPORT_WIDTH, item.height or EXPORT_HEIGHT


def to_image(item: ChartExport, fmt: str) -> bytes:
    """PNG (2x scale: 2560 px wide) or SVG through kaleido; an ImageError saying why when it cannot be made."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"unknown image format {fmt!r}")
    w, h = image_size(item)
    opts = dict(format=fmt, width=w, height=h, scale=EXPORT_SCALE if fmt == "png" else 1)
    return images.render(fig_dict(item.figure()), opts)


def export(item: ChartExport, fmt: str) -> bytes:
    """Bytes of `item` in `fmt` (one of FORMATS)."""
    if fmt in IMAGE_FORMATS:
        return to_image(item, fmt)
    return {"html": to_html, "csv": to_csv, "json": to_json}[fmt](item)


def to_zip(items: list[ChartExport], manifest: dict | None = None, *, images: bool = True,
           extra_files: list[FileExport] = ()) -> bytes:
    """Every chart as HTML, CSV, JSON and (when a browser works) PNG and SVG, plus manifest.json listing the files
    each chart really has and, for any that is missing, why. After the first image that fails, the remaining
    images are skipped with that reason: a dead browser costs one image's timeout, not one per chart."""
    ok, why = image_status() if images else (False, "images not requested")
    skip = None if ok else why
    charts, stems, made, reasons = [], set(), 0, []
    started = time.monotonic()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for item in items:
            stem, k = item.stem, 2
            while stem in stems:                                        # two charts with the same name
                stem, k = f"{item.stem}_{k}", k + 1
            stems.add(stem)
            files, errors = [], {}
            for fmt in ("html", "csv", "json") + IMAGE_FORMATS:
                if fmt in IMAGE_FORMATS and skip is not None:
                    if images:
                        errors[fmt] = f"not included: {skip}"
                    continue
                try:
                    zf.writestr(f"{stem}.{fmt}", export(item, fmt))
                    files.append(f"{stem}.{fmt}")
                    made += fmt in IMAGE_FORMATS
                except ImageError as e:                                 # no browser, it died or hung: stop trying
                    skip = str(e)
                    reasons.append(skip)
                    errors[fmt] = f"not included: {e}"
                except Exception as e:                                  # one bad chart must not sink the zip
                    errors[fmt] = f"{type(e).__name__}: {e}"
            charts.append({"chart": item.name, "title": _meta_doc(item)["title"], "files": files,
                           **({"errors": errors} if errors else {}), "meta": plain(item.meta, json_safe=True)})
        extra = []
        for f in extra_files:                                           # whole files: the stepper's offline page
            try:
                zf.writestr(safe(f.name), f.make())
                extra.append({"file": safe(f.name)})
            except Exception as e:
                extra.append({"file": safe(f.name), "error": f"{type(e).__name__}: {e}"})
        wanted = len(IMAGE_FORMATS) * len(items)
        reason = reasons[0] if reasons else why if not ok else "see each chart's errors"
        if not items and not extra_files:
            summary = "no charts"
        elif not items:
            summary = "no charts: files only"
        elif made == wanted:
            summary = "png and svg included"
        elif made == 0:
            summary = f"png and svg not included: {reason}"
        else:
            summary = f"png and svg included for {made} of {wanted} images; the rest not included: {reason}"
        doc = {"app": "flashviz", "version": __version__,
               "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
               **plain(manifest or {}, json_safe=True), "images": summary,
               "seconds": round(time.monotonic() - started, 2), "charts": charts,
               **({"files": extra} if extra_files else {})}
        zf.writestr("manifest.json", json.dumps(doc, ensure_ascii=False, allow_nan=False, indent=1))
    return buf.getvalue()
