"""Load and validate benchmark datasets (committed ones and user uploads); find the committed files.

Nothing is ever evaluated: bytes -> size cap -> strict UTF-8 -> json (NaN/Infinity literals, overflowing
floats, huge integers and duplicate keys rejected) -> nesting depth cap -> schema (flashviz.bench docstring)
-> DatasetError naming the offending field. No torch here: the page can import it cheaply. The page's helpers
that read a validated dataset (nearest configuration, cells, rows, provenance fields, label) are in
dataset_query.py and re-exported here.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from flashviz.infra.errors import DatasetError

from .dataset_query import (DTYPE_ALIASES, cells_for, configs, dataset_label, nearest_cell,  # noqa: F401 (API)
                            nearest_config, provenance_fields, tidy_rows)
from .schema import (MAX_BYTES, MAX_DEPTH, PROV_BOOLS, PROV_INTS, PROV_REQUIRED,  # noqa: F401 (API)
                     boolean, depth, fail, int_in, list_json, number, provenance, read_json, read_source, text)
from .spec import (CONFIG_KEYS, DATASET_KIND, DTYPES, MODES, SCHEMA_VERSION, STATUSES, config_key, flops,
                   ideal_bytes)

MAX_CELLS = 20000
IMPL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$")
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "assets" / "benchmarks"

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


def parse_dataset(data: bytes) -> dict:
    """Bytes of a dataset file -> validated dict; DatasetError otherwise."""
    return validate_dataset(read_json(data))


def load_dataset(source) -> dict:
    """A path (str or Path) or bytes -> validated dataset dict."""
    return parse_dataset(read_source(source))


# ---- schema ---------------------------------------------------------------------------------------------------

def _sweep(s):
    if not isinstance(s, dict):
        fail("sweep", "object")
    grids = s.get("grids")
    if not isinstance(grids, list) or not 1 <= len(grids) <= 64:
        fail("sweep.grids", "grids")
    for i, g in enumerate(grids):
        if not isinstance(g, dict):
            fail(f"sweep.grids[{i}]", "object")
        for k, vals in g.items():
            where = f"sweep.grids[{i}].{k}"
            text(where + " (key)", k, 40)
            if not isinstance(vals, list) or len(vals) > 256:
                fail(where, "list_max", max=256)
            for v in vals:
                if not (v is None or isinstance(v, (str, bool, int, float))) or (isinstance(v, str) and len(v) > 40):
                    fail(where, "list_items")
                if isinstance(v, float) and not math.isfinite(v):
                    fail(where, "finite")
    for k in ("warmup_ms", "rep_ms", "budget_s"):
        number(f"sweep.{k}", s.get(k), bound=1e7)
    for k, v in s.items():
        if k not in ("grids", "warmup_ms", "rep_ms", "budget_s", "min_reps", "rounds", "seed", "check", "preset"):
            fail(f"sweep.{str(k)[:40]}", "unknown_field")
    int_in("sweep.min_reps", s.get("min_reps"), 1, 10 ** 6, null=True)
    int_in("sweep.rounds", s.get("rounds"), 1, 1000, null=True)
    int_in("sweep.seed", s.get("seed"), -(1 << 63), 1 << 64, null=True)
    boolean("sweep.check", s.get("check"), null=True)
    text("sweep.preset", s.get("preset"), 40, null=True)


def _cell(i, c):
    w = f"cells[{i}]"
    if not isinstance(c, dict):
        fail(w, "object")
    for k in c:
        if k not in CELL_KEYS:
            fail(f"{w}.{str(k)[:40]}", "unknown_field")
    for k in ("impl", "status", *CONFIG_KEYS, "flops", "ideal_bytes"):
        if k not in c:
            fail(w, "missing_field", field=repr(k))
    text(f"{w}.impl", c["impl"], 40)
    if not IMPL_RE.match(c["impl"]):
        fail(f"{w}.impl", "impl_name", got=repr(c["impl"]))
    if c["status"] not in STATUSES:
        fail(f"{w}.status", "one_of", choices=", ".join(STATUSES), got=repr(str(c["status"])[:40]))
    if c["dtype"] not in DTYPES:
        fail(f"{w}.dtype", "one_of", choices=", ".join(DTYPES), got=repr(str(c["dtype"])[:40]))
    if c["mode"] not in MODES:
        fail(f"{w}.mode", "one_of", choices=", ".join(MODES), got=repr(str(c["mode"])[:40]))
    boolean(f"{w}.causal", c["causal"])
    boolean(f"{w}.correct", c.get("correct"), null=True)
    text(f"{w}.message", c.get("message"), 2000, null=True)
    text(f"{w}.graph_message", c.get("graph_message"), 2000, null=True)
    for k, (lo, hi) in CELL_INTS.items():
        int_in(f"{w}.{k}", c.get(k), lo, hi, null=k not in ("n", "d", "batch", "heads", "ideal_bytes"))
    for k, (kind, bound) in CELL_NUMBERS.items():
        number(f"{w}.{k}", c.get(k), kind, bound)
    number(f"{w}.flops", c["flops"], "pos", 1e30, null=False)
    args = (c["n"], c["d"], c["causal"], c["batch"], c["heads"], c["mode"])
    if not math.isclose(c["flops"], flops(*args), rel_tol=1e-9):
        fail(f"{w}.flops", "flops", got=f"{c['flops']:g}")
    if c["ideal_bytes"] != ideal_bytes(c["n"], c["d"], c["dtype"], c["batch"], c["heads"], c["mode"]):
        fail(f"{w}.ideal_bytes", "ideal")
    if c["status"] == "ok":
        for k in ("ms", "tflops"):
            if c.get(k) is None:
                fail(f"{w}.{k}", "required_ok")
        if not math.isclose(c["tflops"], c["flops"] / (c["ms"] * 1e9), rel_tol=1e-6):
            fail(f"{w}.tflops", "tflops")
    elif c.get("ms") is not None or c.get("tflops") is not None:
        fail(f"{w}.ms", "null_when", status=repr(c["status"]))
    if (c.get("graph_ms") is None) != (c.get("graph_tflops") is None):
        fail(f"{w}.graph_tflops", "graph_pair")
    if c.get("graph_ms") is not None and not math.isclose(c["graph_tflops"], c["flops"] / (c["graph_ms"] * 1e9),
                                                          rel_tol=1e-6):
        fail(f"{w}.graph_tflops", "tflops")


def validate_dataset(obj) -> dict:
    """Check a parsed dataset against the schema; returns it unchanged or raises DatasetError."""
    if not isinstance(obj, dict):
        raise DatasetError(key="errors.ds_top_object")
    if depth(obj) > MAX_DEPTH:
        raise DatasetError(key="errors.ds_too_deep", max=MAX_DEPTH)
    if "schema_version" not in obj:
        fail("schema_version", "schema_missing")
    v = obj["schema_version"]
    if isinstance(v, bool) or v != SCHEMA_VERSION:
        fail("schema_version", "schema_version", got=str(v)[:20], version=SCHEMA_VERSION)
    if obj.get("kind") != DATASET_KIND:
        fail("kind", "kind", kind=repr(DATASET_KIND))
    for k in obj:
        if k not in ("schema_version", "kind", "complete", "elapsed_s", "stopped", "provenance", "sweep", "cells"):
            fail(str(k)[:40], "unknown_field")
    for k in ("provenance", "sweep", "cells"):
        if k not in obj:
            fail(k, "missing")
    boolean("complete", obj.get("complete"), null=True)
    number("elapsed_s", obj.get("elapsed_s"), bound=1e7)
    text("stopped", obj.get("stopped"), 300, null=True)
    provenance(obj["provenance"])
    _sweep(obj["sweep"])
    cells = obj["cells"]
    if not isinstance(cells, list) or len(cells) > MAX_CELLS:
        fail("cells", "cells", max=MAX_CELLS)
    seen = set()
    for i, c in enumerate(cells):
        _cell(i, c)
        key = (*config_key(c), c["impl"])
        if key in seen:
            fail(f"cells[{i}]", "duplicate")
        seen.add(key)
    return obj


# ---- committed files ------------------------------------------------------------------------------------------

def list_datasets(directory=None) -> list[Path]:
    """Committed datasets (*.json), newest name first; [] if the folder is absent."""
    d = Path(directory) if directory is not None else DEFAULT_DIR
    if not d.is_dir():
        d = Path.cwd() / "assets" / "benchmarks" if directory is None else d
    return list_json(d)
