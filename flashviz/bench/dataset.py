"""Load and validate benchmark datasets (committed ones and user uploads); find the committed files.

Nothing is ever evaluated: bytes -> size cap -> strict UTF-8 -> json (NaN/Infinity literals, overflowing
floats, huge integers and duplicate keys rejected) -> nesting depth cap -> schema (flashviz.bench docstring)
-> DatasetError naming the offending field. No torch here: the page can import it cheaply. The page's helpers
that read a validated dataset (nearest configuration, cells, rows, provenance fields, label) are in
dataset_query.py and re-exported here.
"""
from __future__ import annotations

import datetime
import json
import math
import os
import re
from pathlib import Path

from flashviz.errors import DatasetError
from flashviz_kernels.rules import as_int

from .dataset_query import (DTYPE_ALIASES, cells_for, configs, dataset_label, nearest_cell,  # noqa: F401 (API)
                            nearest_config, provenance_fields, tidy_rows)
from .spec import (CONFIG_KEYS, DATASET_KIND, DTYPES, MODES, SCHEMA_VERSION, STATUSES, config_key, flops,
                   ideal_bytes)

MAX_BYTES = 5 * 1024 * 1024
MAX_CELLS = 20000
MAX_DEPTH = 6
IMPL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$")
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "assets" / "benchmarks"

_NUM = (int, float)
# cell field -> (kind, bound); "pos" > 0, "nonneg" >= 0; all optional ones may be null
CELL_NUMBERS = {"ms": ("pos", 1e7), "ms_p20": ("nonneg", 1e7), "ms_p80": ("nonneg", 1e7), "tflops": ("nonneg", 1e5),
                "peak_over_ideal": ("nonneg", 1e9), "max_abs_err": ("nonneg", 1e30), "rel_err": ("nonneg", 1e30),
                "speedup_vs_cudnn": ("nonneg", 1e9), "speedup_vs_flash": ("nonneg", 1e9),
                "speedup_vs_naive": ("nonneg", 1e9), "speedup_vs_fa4": ("nonneg", 1e9),
                "memory_vs_naive": ("nonneg", 1e9),
                "graph_ms": ("pos", 1e7), "graph_tflops": ("nonneg", 1e5), "graph_speedup_vs_cudnn": ("nonneg", 1e9)}
CELL_INTS = {"n": (1, 1 << 22), "d": (1, 4096), "batch": (1, 1 << 16), "heads": (1, 1 << 16),
             "reps": (1, 10 ** 9), "peak_extra_bytes": (0, 1 << 50), "ideal_bytes": (0, 1 << 60),
             "block_m": (1, 1024), "block_n": (1, 1024)}     # tiles pinned for the teaching kernel, if any
CELL_KEYS = set(CELL_NUMBERS) | set(CELL_INTS) | {"impl", "causal", "dtype", "mode", "status", "message",
                                                  "flops", "correct", "graph_message"}
# graph_ms / graph_tflops / graph_speedup_vs_cudnn / graph_message came later: files recorded before them
# (without these keys) stay valid, read as "no graph timing".
PROV_REQUIRED = ("device", "device_name", "torch", "python", "platform", "created_utc", "git_commit", "command",
                 "timer")
PROV_INTS = ("sm_count", "total_memory_bytes", "cudnn_version", "cpu_threads")
PROV_BOOLS = ("git_dirty",)


def _fail(where: str, what: str, **params):
    """A schema error at `where` (a JSON path); `what` is the key of the message (flashviz/i18n/errors.py) or, for
    the schemas of the committed recordings that nobody uploads (HBM bytes, ring attention), a plain English text."""
    from flashviz.i18n.errors import STRINGS
    if f"errors.ds_{what}" not in STRINGS:
        raise DatasetError(key="errors.ds_field_text", where=where, what=what)
    raise DatasetError(key="errors.ds_field", where=where, what=(f"errors.ds_{what}", params))


def _or_null(kind: str, null: bool) -> str:
    return f"{kind} or null" if null else kind


# ---- bytes -> python ------------------------------------------------------------------------------------------

def _reject_constant(name):
    raise DatasetError(key="errors.ds_literal", name=name)


def _float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise DatasetError(key="errors.ds_overflow", text=text[:40])
    return x


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 24:
        raise DatasetError(key="errors.ds_int_long", text=text[:40])
    return int(text)


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise DatasetError(key="errors.ds_dup_key", k=repr(k[:60]))
        out[k] = v
    return out


def _depth(obj) -> int:
    deepest, stack = 0, [(obj, 0)]
    while stack:
        o, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > MAX_DEPTH:
            break
        if isinstance(o, dict):
            stack += [(v, d + 1) for v in o.values()]
        elif isinstance(o, list):
            stack += [(v, d + 1) for v in o]
    return deepest


def read_json(data: bytes):
    """Bytes of a dataset file -> the parsed JSON object, read with every guard (size, UTF-8, no NaN or huge
    numbers, no duplicate keys, depth); DatasetError otherwise. Shared by every recorded-dataset schema."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DatasetError(key="errors.ds_bytes_type", got=type(data).__name__)
    data = bytes(data)
    if len(data) > MAX_BYTES:
        raise DatasetError(key="errors.ds_file_size", mib=f"{len(data) / 2**20:.1f}", cap=f"{MAX_BYTES / 2**20:.0f}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DatasetError(key="errors.ds_not_utf8", reason=e.reason, pos=e.start) from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_float, parse_int=_int,
                          object_pairs_hook=_no_duplicates)
    except DatasetError:                                 # ours, from the hooks above: already says what is wrong
        raise
    except json.JSONDecodeError as e:
        raise DatasetError(key="errors.ds_not_json", reason=e.msg, line=e.lineno, col=e.colno) from None
    except RecursionError:
        raise DatasetError(key="errors.ds_too_deep", max=MAX_DEPTH) from None
    except ValueError as e:                              # int conversion limits etc.
        raise DatasetError(key="errors.ds_value", detail=str(e)) from None


def read_source(source) -> bytes:
    """A path (str or Path) or bytes -> the bytes of a dataset file, within MAX_BYTES; DatasetError otherwise."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    path = Path(os.fspath(source))
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise DatasetError(key="errors.ds_path_size", name=path.name, mib=f"{size / 2**20:.1f}",
                               cap=f"{MAX_BYTES / 2**20:.0f}")
        return path.read_bytes()
    except OSError as e:
        raise DatasetError(key="errors.ds_cannot_read", name=path.name, reason=e.strerror) from None


def parse_dataset(data: bytes) -> dict:
    """Bytes of a dataset file -> validated dict; DatasetError otherwise."""
    return validate_dataset(read_json(data))


def load_dataset(source) -> dict:
    """A path (str or Path) or bytes -> validated dataset dict."""
    return parse_dataset(read_source(source))


# ---- schema ---------------------------------------------------------------------------------------------------

def _str(where, v, limit=200, null=False):
    if v is None and null:
        return
    if not isinstance(v, str):
        _fail(where, "type", kind=_or_null("a string", null), got=type(v).__name__)
    if len(v) > limit:
        _fail(where, "too_long", limit=limit)


def _number(where, v, kind="nonneg", bound=1e30, null=True):
    if v is None and null:
        return
    if isinstance(v, bool) or not isinstance(v, _NUM):
        _fail(where, "type", kind=_or_null("a number", null), got=type(v).__name__)
    if not math.isfinite(v):
        _fail(where, "finite")
    if v < 0 or (kind == "pos" and v == 0):
        _fail(where, "sign", sign="positive" if kind == "pos" else "non-negative", got=v)
    if v > bound:
        _fail(where, "large", got=f"{v:g}", bound=f"{bound:g}")


def _int_in(where, v, lo, hi, null=False):
    if v is None and null:
        return
    if as_int(v) is None:
        _fail(where, "type", kind=_or_null("an integer", null), got=type(v).__name__)
    if not lo <= v <= hi:
        _fail(where, "range", lo=lo, hi=hi, got=v)


def _bool(where, v, null=False):
    if not (isinstance(v, bool) or (null and v is None)):
        _fail(where, "bool", kind=_or_null("true or false", null))


def _provenance(p):
    if not isinstance(p, dict):
        _fail("provenance", "object")
    for k in PROV_REQUIRED:
        if k not in p:
            _fail("provenance", "missing_field", field=repr(k))
    for k, v in p.items():
        where = f"provenance.{k}"
        _str(where + " (key)", k, 60)
        if k in PROV_INTS:
            _int_in(where, v, 0, 1 << 60, null=True)
        elif k in PROV_BOOLS:
            _bool(where, v, null=True)
        elif k in PROV_REQUIRED:
            _str(where, v, 4000 if k == "command" else 300)
        else:
            _str(where, v, 300, null=True)
    if p["device"] not in ("cuda", "cpu"):
        _fail("provenance.device", "device", got=repr(p["device"][:40]))
    try:
        datetime.datetime.fromisoformat(p["created_utc"])
    except ValueError:
        _fail("provenance.created_utc", "not_iso")


def _sweep(s):
    if not isinstance(s, dict):
        _fail("sweep", "object")
    grids = s.get("grids")
    if not isinstance(grids, list) or not 1 <= len(grids) <= 64:
        _fail("sweep.grids", "grids")
    for i, g in enumerate(grids):
        if not isinstance(g, dict):
            _fail(f"sweep.grids[{i}]", "object")
        for k, vals in g.items():
            where = f"sweep.grids[{i}].{k}"
            _str(where + " (key)", k, 40)
            if not isinstance(vals, list) or len(vals) > 256:
                _fail(where, "list_max", max=256)
            for v in vals:
                if not (v is None or isinstance(v, (str, bool, int, float))) or (isinstance(v, str) and len(v) > 40):
                    _fail(where, "list_items")
                if isinstance(v, float) and not math.isfinite(v):
                    _fail(where, "finite")
    for k in ("warmup_ms", "rep_ms", "budget_s"):
        _number(f"sweep.{k}", s.get(k), bound=1e7)
    for k, v in s.items():
        if k not in ("grids", "warmup_ms", "rep_ms", "budget_s", "min_reps", "seed", "check", "preset"):
            _fail(f"sweep.{str(k)[:40]}", "unknown_field")
    _int_in("sweep.min_reps", s.get("min_reps"), 1, 10 ** 6, null=True)
    _int_in("sweep.seed", s.get("seed"), -(1 << 63), 1 << 64, null=True)
    _bool("sweep.check", s.get("check"), null=True)
    _str("sweep.preset", s.get("preset"), 40, null=True)


def _cell(i, c):
    w = f"cells[{i}]"
    if not isinstance(c, dict):
        _fail(w, "object")
    for k in c:
        if k not in CELL_KEYS:
            _fail(f"{w}.{str(k)[:40]}", "unknown_field")
    for k in ("impl", "status", *CONFIG_KEYS, "flops", "ideal_bytes"):
        if k not in c:
            _fail(w, "missing_field", field=repr(k))
    _str(f"{w}.impl", c["impl"], 40)
    if not IMPL_RE.match(c["impl"]):
        _fail(f"{w}.impl", "impl_name", got=repr(c["impl"]))
    if c["status"] not in STATUSES:
        _fail(f"{w}.status", "one_of", choices=", ".join(STATUSES), got=repr(str(c["status"])[:40]))
    if c["dtype"] not in DTYPES:
        _fail(f"{w}.dtype", "one_of", choices=", ".join(DTYPES), got=repr(str(c["dtype"])[:40]))
    if c["mode"] not in MODES:
        _fail(f"{w}.mode", "one_of", choices=", ".join(MODES), got=repr(str(c["mode"])[:40]))
    _bool(f"{w}.causal", c["causal"])
    _bool(f"{w}.correct", c.get("correct"), null=True)
    _str(f"{w}.message", c.get("message"), 2000, null=True)
    _str(f"{w}.graph_message", c.get("graph_message"), 2000, null=True)
    for k, (lo, hi) in CELL_INTS.items():
        _int_in(f"{w}.{k}", c.get(k), lo, hi, null=k not in ("n", "d", "batch", "heads", "ideal_bytes"))
    for k, (kind, bound) in CELL_NUMBERS.items():
        _number(f"{w}.{k}", c.get(k), kind, bound)
    _number(f"{w}.flops", c["flops"], "pos", 1e30, null=False)
    args = (c["n"], c["d"], c["causal"], c["batch"], c["heads"], c["mode"])
    if not math.isclose(c["flops"], flops(*args), rel_tol=1e-9):
        _fail(f"{w}.flops", "flops", got=f"{c['flops']:g}")
    if c["ideal_bytes"] != ideal_bytes(c["n"], c["d"], c["dtype"], c["batch"], c["heads"], c["mode"]):
        _fail(f"{w}.ideal_bytes", "ideal")
    if c["status"] == "ok":
        for k in ("ms", "tflops"):
            if c.get(k) is None:
                _fail(f"{w}.{k}", "required_ok")
        if not math.isclose(c["tflops"], c["flops"] / (c["ms"] * 1e9), rel_tol=1e-6):
            _fail(f"{w}.tflops", "tflops")
    elif c.get("ms") is not None or c.get("tflops") is not None:
        _fail(f"{w}.ms", "null_when", status=repr(c["status"]))
    if (c.get("graph_ms") is None) != (c.get("graph_tflops") is None):
        _fail(f"{w}.graph_tflops", "graph_pair")
    if c.get("graph_ms") is not None and not math.isclose(c["graph_tflops"], c["flops"] / (c["graph_ms"] * 1e9),
                                                          rel_tol=1e-6):
        _fail(f"{w}.graph_tflops", "tflops")


def validate_dataset(obj) -> dict:
    """Check a parsed dataset against the schema; returns it unchanged or raises DatasetError."""
    if not isinstance(obj, dict):
        raise DatasetError(key="errors.ds_top_object")
    if _depth(obj) > MAX_DEPTH:
        raise DatasetError(key="errors.ds_too_deep", max=MAX_DEPTH)
    if "schema_version" not in obj:
        _fail("schema_version", "schema_missing")
    v = obj["schema_version"]
    if isinstance(v, bool) or v != SCHEMA_VERSION:
        _fail("schema_version", "schema_version", got=str(v)[:20], version=SCHEMA_VERSION)
    if obj.get("kind") != DATASET_KIND:
        _fail("kind", "kind", kind=repr(DATASET_KIND))
    for k in obj:
        if k not in ("schema_version", "kind", "complete", "elapsed_s", "stopped", "provenance", "sweep", "cells"):
            _fail(str(k)[:40], "unknown_field")
    for k in ("provenance", "sweep", "cells"):
        if k not in obj:
            _fail(k, "missing")
    _bool("complete", obj.get("complete"), null=True)
    _number("elapsed_s", obj.get("elapsed_s"), bound=1e7)
    _str("stopped", obj.get("stopped"), 300, null=True)
    _provenance(obj["provenance"])
    _sweep(obj["sweep"])
    cells = obj["cells"]
    if not isinstance(cells, list) or len(cells) > MAX_CELLS:
        _fail("cells", "cells", max=MAX_CELLS)
    seen = set()
    for i, c in enumerate(cells):
        _cell(i, c)
        key = (*config_key(c), c["impl"])
        if key in seen:
            _fail(f"cells[{i}]", "duplicate")
        seen.add(key)
    return obj


# ---- committed files ------------------------------------------------------------------------------------------

def list_json(directory: Path) -> list[Path]:
    """The *.json files of a folder, newest name first; [] if the folder is absent."""
    return sorted(directory.glob("*.json"), reverse=True) if directory.is_dir() else []


def list_datasets(directory=None) -> list[Path]:
    """Committed datasets (*.json), newest name first; [] if the folder is absent."""
    d = Path(directory) if directory is not None else DEFAULT_DIR
    if not d.is_dir():
        d = Path.cwd() / "assets" / "benchmarks" if directory is None else d
    return list_json(d)
