"""Measured-HBM datasets (Nsight Compute DRAM bytes per attention call): schema, loader, look-ups. No torch.

Written by `python -m flashviz.bench --preset h200-hbm` (flashviz/bench/hbm.py), kept in assets/hbm/ (apart
from the timing datasets in assets/benchmarks/, whose loader expects another kind). Schema_version 1:
    {"schema_version": 1, "kind": "flashviz-hbm", "complete": bool, "elapsed_s": float,
     "provenance": {as the timing datasets (flashviz.bench docstring), + "ncu_version"},
     "method": {"metrics": [...], "nvtx_range", "cache_control", "clock_control", "l2_bytes",
                "flush_read_bytes", "flush_programs", "ncu_command"},
     "cells": [{"impl": "naive"|"teaching"|"fast", "n", "d", "causal", "dtype", "batch", "heads",
                "block_m", "block_n" (the kernel's Br, Bc; null for naive),
                "kernels": [{"name", "read_bytes", "write_bytes"}]   (every kernel of the measured call),
                "read_bytes", "write_bytes" (their sums), "flush_write_bytes" (the call's dirty L2 lines,
                written back while the probe's flush kernel ran), "flush_read_bytes"}]}
Parsing is as strict as the timing datasets' (flashviz/bench/dataset.py: size cap, strict UTF-8 and JSON,
depth cap), and every failure is a DatasetError naming the field.
"""
from __future__ import annotations

from pathlib import Path


from . import schema as sc
from .recording import check_object, check_top
from .spec import DTYPES

SCHEMA_VERSION = 1
DATASET_KIND = "flashviz-hbm"
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "assets" / "hbm"
HBM_IMPLS = ("naive", "teaching", "fast")
MAX_KERNELS = 64
BIG = 1 << 50
TOP_KEYS = ("schema_version", "kind", "complete", "elapsed_s", "provenance", "method", "cells")
METHOD_INTS = ("l2_bytes", "flush_read_bytes", "flush_programs")
METHOD_STRS = ("nvtx_range", "cache_control", "clock_control", "ncu_command")
CELL_KEYS = ("impl", "n", "d", "causal", "dtype", "batch", "heads", "block_m", "block_n", "kernels", "read_bytes",
             "write_bytes", "flush_write_bytes", "flush_read_bytes")
_fail = sc.fail


def _method(m):
    check_object("method", m, ("metrics", *METHOD_INTS, *METHOD_STRS))
    mets = m.get("metrics")
    if not isinstance(mets, list) or not 1 <= len(mets) <= 8 or not all(isinstance(x, str) and len(x) <= 80
                                                                         for x in mets):
        _fail("method.metrics", "must be a list of 1 to 8 metric names")
    for k in METHOD_INTS:
        sc.int_in(f"method.{k}", m.get(k), 0, BIG)
    for k in METHOD_STRS:
        sc.text(f"method.{k}", m.get(k), 1000, null=k == "ncu_command")


def _cell(i, c):
    w = f"cells[{i}]"
    check_object(w, c, CELL_KEYS, CELL_KEYS)
    if c["impl"] not in HBM_IMPLS:
        _fail(f"{w}.impl", f"must be one of {', '.join(HBM_IMPLS)}, got {str(c['impl'])[:40]!r}")
    if c["dtype"] not in DTYPES:
        _fail(f"{w}.dtype", f"must be one of {', '.join(DTYPES)}, got {str(c['dtype'])[:40]!r}")
    sc.boolean(f"{w}.causal", c["causal"])
    for k, hi in (("n", 1 << 22), ("d", 4096), ("batch", 1 << 16), ("heads", 1 << 16)):
        sc.int_in(f"{w}.{k}", c[k], 1, hi)
    for k in ("block_m", "block_n"):
        sc.int_in(f"{w}.{k}", c[k], 1, 1024, null=True)
    if (c["impl"] == "naive") != (c["block_m"] is None) or (c["block_m"] is None) != (c["block_n"] is None):
        _fail(f"{w}.block_m", "the flash kernels record their Br and Bc; naive records none")
    for k in ("read_bytes", "write_bytes", "flush_write_bytes", "flush_read_bytes"):
        sc.int_in(f"{w}.{k}", c[k], 0, BIG)
    ks = c["kernels"]
    if not isinstance(ks, list) or not 1 <= len(ks) <= MAX_KERNELS:
        _fail(f"{w}.kernels", f"must be a list of 1 to {MAX_KERNELS} kernels")
    for j, k in enumerate(ks):
        wk = f"{w}.kernels[{j}]"
        if not isinstance(k, dict) or set(k) != {"name", "read_bytes", "write_bytes"}:
            _fail(wk, "must be an object with name, read_bytes and write_bytes")
        sc.text(f"{wk}.name", k["name"], 200)
        sc.int_in(f"{wk}.read_bytes", k["read_bytes"], 0, BIG)
        sc.int_in(f"{wk}.write_bytes", k["write_bytes"], 0, BIG)
    for k in ("read_bytes", "write_bytes"):
        if c[k] != sum(x[k] for x in ks):
            _fail(f"{w}.{k}", "is not the sum over the call's kernels")


def validate_hbm_dataset(obj) -> dict:
    """Check a parsed measured-HBM dataset; returns it unchanged or raises DatasetError."""
    check_top(obj, kind=DATASET_KIND, about="a measured-HBM dataset", versions=(SCHEMA_VERSION,), keys=TOP_KEYS,
                  required=("provenance", "method", "cells"))
    sc.provenance(obj["provenance"])
    _method(obj["method"])
    sc.unique_cells(obj["cells"], _cell, cell_key, least=1, most=4096, same="impl and configuration")
    return obj


SCHEMA = sc.Schema(validate_hbm_dataset, lambda: DEFAULT_DIR)


def parse_hbm_dataset(data: bytes) -> dict:
    """Bytes of a file -> the validated recording (never evaluated)."""
    return SCHEMA.parse(data)


def load_hbm_dataset(source) -> dict:
    """A path or bytes -> the validated recording."""
    return SCHEMA.load(source)


def list_hbm_datasets(directory=None) -> list:
    """The committed recordings of this kind, newest name first; [] while none is recorded."""
    return SCHEMA.list(directory)


def cell_key(c: dict) -> tuple:
    return (c["impl"], c["n"], c["d"], c["causal"], c["dtype"], c["batch"], c["heads"])


def matching_cells(dataset: dict, *, n: int, d: int, causal: bool) -> list[dict]:
    """The recorded cells (one per impl, any dtype/batch/heads) at exactly this N, d and causal."""
    return [c for c in dataset["cells"] if c["n"] == n and c["d"] == d and c["causal"] == bool(causal)]


def recorded_configs(dataset: dict) -> list[tuple[int, int, bool]]:
    """Distinct (N, d, causal) recorded, in recorded order: what a page can offer to jump to."""
    out: dict = {}
    for c in dataset["cells"]:
        out.setdefault((c["n"], c["d"], c["causal"]), None)
    return list(out)
