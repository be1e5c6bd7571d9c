"""Ring-attention benchmark datasets (written by `torchrun ... -m flashviz.bench.ring_bench`): schema, loading, helpers.

No torch here (the page imports it). The bytes go through the same guarded JSON reading as the speed datasets
(size cap, strict UTF-8, no NaN/Infinity, no duplicate keys, depth cap), then this schema; DatasetError names
the offending field. They live in assets/benchmarks/ring/ (the speed page reads only assets/benchmarks/*.json).

Dataset JSON, kind "flashviz-ring", schema_version 2 (1 is still read: it has no "ms_exposed" and no
"compute_only", and its "hidden" was 1 - (ms - ms_compute) / ms_comm, a difference of two noisy totals)
    {"schema_version": 1, "kind": "flashviz-ring", "complete": bool, "elapsed_s": float, "stopped": str (optional),
     "provenance": {the speed datasets' fields (flashviz.bench), plus "backend" ("nccl"|"gloo"), "nccl_version"
                    (str|null), "world_size" (int), "gpu_names" (one per rank, comma separated), optional
                    "ring_merge" (str: which log-sum-exp merge ran, kernels/ring_block.merge_label)},
     "config": {"batch", "heads", "d", "dtype", "impl", "warmup", "reps", "min_reps", "rep_s", "budget_s", "seed",
                "overlap" (bool: the transfer-only loop timed too), "compute_only" (bool: the loop without
                transfers timed too), "chunks" (optional, int, "auto" or null: ring_bench --chunks; null =
                the kernel's default when recorded, today the plain ring; nvidia-h200-x2-2026-11-30b.json ran
                under the memory-bounded rule, the default for a while; every cell records the S it ran)},
     "checks": [{"world", "layout", "causal", "n", "err_ring", "err_single", "ok"}]   (float64 rows, see ring_bench),
     "cells": [{"n", "world", "layout", "causal", "mode" ("fwd"|"fwd+bwd"), "status" ("ok"|"oom"|"error"|"skipped"),
                "message", "ms" (median over reps of the slowest rank), "ms_p20", "ms_p80", "reps",
                "ms_compute" (the same loop without transfers, or null), "ms_comm" (only the transfers),
                "ms_exposed" (time the compute stream waited for transfers per call, CUDA events around each
                step's wait, slowest rank, median), "hidden" = 1 - ms_exposed / ms_comm (share of the transfer
                time hidden under compute),
                "flops" (whole attention: 4*B*H*N^2*d, halved when causal, x3.5 for fwd+bwd), "tflops" (all GPUs),
                "peak_bytes" (max over ranks of torch.cuda.max_memory_allocated), "peak_bytes_min",
                "input_bytes" (one rank's q, k, v (+ dout) shards), "step_bytes" (K and V bytes of one block, what a
                plain-ring step sends; with chunks S > 1 every query slab moves each block again, in S sub-chunk
                passes, so a call sends S (W - 1) step_bytes per rank, not W - 1), "chunks" (optional: the forward's key sub-chunks S on
                w > 1, 1 = the plain ring; absent from older recordings, which all ran the plain ring), "bwd_chunks"
                (optional, fwd+bwd cells on w > 1: the backward's key sub-chunks S, kernels/ring_chunked_bwd.py's
                backward_count; 1 = the plain ring's backward; absent from older recordings, whose backward was the
                plain ring's at every S)}]}
"""
from __future__ import annotations

import math


from . import dataset as _ds
from . import schema as sc
from .recording import check_object, check_top
from .spec import DTYPES, flops

KIND = "flashviz-ring"
SCHEMA_VERSION = 2
READS = (1, 2)
LAYOUTS = ("contiguous", "zigzag")
MODES = ("fwd", "fwd+bwd")
STATUSES = ("ok", "oom", "error", "skipped")
DEFAULT_DIR = _ds.DEFAULT_DIR / "ring"
STD_PROV = set(sc.PROV_REQUIRED) | set(sc.PROV_INTS) | set(sc.PROV_BOOLS) | {
    "sm_count", "compute_capability", "driver_version", "cuda_version", "cudnn_version", "triton", "numpy",
    "source_sha256", "flashviz",
    "backward_kernel", "ws_status", "ws_verified_triton", "fast_uses_ws", "ws_schedule",   # added to provenance.collect later
    "ws_pingpong", "ws_half",                                                             # (2026-12-03)
    "ws_p_pack", "ws_early_rescale", "ws_local_sum", "ws_split_bars", "ws_pair_max",      # (2026-12-05)
    "ws_lpt", "ws_skip", "ws_thread_arrive", "ws_bwd_thread_arrive",                      # (2026-12-06)
    "ws_half_tail", "ws_q_ahead", "ws_walk", "ws_fresh", "ws_named",                      # (2026-12-07)
    "ws_poly", "ws_mma_sum",                                                              # (2026-12-08)
    "flash_attn_4", "cutlass_dsl"}                                                        # the FA4 peer's versions
CELL_NUMBERS = ("ms", "ms_p20", "ms_p80", "ms_compute", "ms_comm", "ms_exposed", "tflops")
CELL_INTS = {"n": (1, 1 << 26), "world": (1, 1 << 12), "reps": (1, 10 ** 6), "peak_bytes": (0, 1 << 50),
             "peak_bytes_min": (0, 1 << 50), "input_bytes": (0, 1 << 50), "step_bytes": (0, 1 << 50),
             "chunks": (1, 1 << 26), "bwd_chunks": (1, 1 << 26)}
CELL_KEYS = set(CELL_NUMBERS) | set(CELL_INTS) | {"layout", "causal", "mode", "status", "message", "hidden", "flops"}
CONFIG_INTS = {"batch": (1, 1 << 16), "heads": (1, 1 << 16), "d": (1, 4096), "warmup": (0, 1000),
               "reps": (1, 10 ** 6), "min_reps": (1, 10 ** 6), "seed": (-(1 << 63), 1 << 64)}
CHECK_KEYS = {"world", "layout", "causal", "n", "err_ring", "err_single", "ok"}


def _provenance(p) -> None:
    if not isinstance(p, dict):
        sc.fail("provenance", "must be an object")
    sc.provenance({k: v for k, v in p.items() if k in STD_PROV})
    sc.text("provenance.backend", p.get("backend"), 20)
    if p["backend"] not in ("nccl", "gloo"):
        sc.fail("provenance.backend", "must be 'nccl' or 'gloo'")
    sc.text("provenance.nccl_version", p.get("nccl_version"), 40, null=True)
    sc.int_in("provenance.world_size", p.get("world_size"), 1, 1 << 12)
    sc.text("provenance.gpu_names", p.get("gpu_names"), 2000, null=True)
    sc.text("provenance.ring_merge", p.get("ring_merge"), 200, null=True)      # optional: later recordings
    extra = set(p) - STD_PROV - {"backend", "nccl_version", "world_size", "gpu_names", "ring_merge"}
    if extra:
        sc.fail(f"provenance.{sorted(extra)[0][:40]}", "is not a field of the schema")


def _config(c) -> None:
    check_object("config", c, (*CONFIG_INTS, "dtype", "impl", "rep_s", "budget_s", "overlap", "compute_only",
                               "chunks"))
    for k, (lo, hi) in CONFIG_INTS.items():
        sc.int_in(f"config.{k}", c.get(k), lo, hi)
    if c.get("dtype") not in DTYPES:
        sc.fail("config.dtype", f"must be one of {', '.join(DTYPES)}")
    sc.text("config.impl", c.get("impl"), 40)
    if not _ds.IMPL_RE.match(c["impl"]):
        sc.fail("config.impl", "is not a plain implementation name")
    sc.number("config.rep_s", c.get("rep_s"), bound=1e6)
    sc.number("config.budget_s", c.get("budget_s"), bound=1e7)
    sc.boolean("config.overlap", c.get("overlap"))
    sc.boolean("config.compute_only", c.get("compute_only"), null=True)
    if c.get("chunks") != "auto":
        sc.int_in("config.chunks", c.get("chunks"), 1, 1 << 26, null=True)


def _cell(i: int, c, cfg: dict) -> None:
    w = f"cells[{i}]"
    check_object(w, c, CELL_KEYS, ("n", "world", "layout", "causal", "mode", "status", "flops"))
    if c["layout"] not in LAYOUTS:
        sc.fail(f"{w}.layout", f"must be one of {', '.join(LAYOUTS)}")
    if c["mode"] not in MODES:
        sc.fail(f"{w}.mode", f"must be one of {', '.join(MODES)}")
    if c["status"] not in STATUSES:
        sc.fail(f"{w}.status", f"must be one of {', '.join(STATUSES)}")
    sc.boolean(f"{w}.causal", c["causal"])
    sc.text(f"{w}.message", c.get("message"), 2000, null=True)
    for k, (lo, hi) in CELL_INTS.items():
        sc.int_in(f"{w}.{k}", c.get(k), lo, hi, null=k not in ("n", "world"))
    for k in CELL_NUMBERS:
        sc.number(f"{w}.{k}", c.get(k), "pos" if k == "ms" else "nonneg", 1e7)
    h = c.get("hidden")
    if h is not None and (isinstance(h, bool) or not isinstance(h, (int, float)) or not math.isfinite(h)
                          or abs(h) > 1e6):
        sc.fail(f"{w}.hidden", "must be a finite number or null")
    if not math.isclose(c["flops"], flops(c["n"], cfg["d"], c["causal"], cfg["batch"], cfg["heads"], c["mode"]),
                        rel_tol=1e-9):
        sc.fail(f"{w}.flops", "is not 4*B*H*N^2*d (halved when causal, x3.5 for fwd+bwd)")
    if c["status"] == "ok":
        for k in ("ms", "tflops"):
            if c.get(k) is None:
                sc.fail(f"{w}.{k}", "is required when status is 'ok'")
        if not math.isclose(c["tflops"], c["flops"] / (c["ms"] * 1e9), rel_tol=1e-6):
            sc.fail(f"{w}.tflops", "does not equal flops / time")
    elif c.get("ms") is not None:
        sc.fail(f"{w}.ms", f"must be null when status is {c['status']!r}")


def _check(i: int, c) -> None:
    w = f"checks[{i}]"
    if not isinstance(c, dict) or set(c) != CHECK_KEYS:
        sc.fail(w, f"must be an object with exactly {', '.join(sorted(CHECK_KEYS))}")
    sc.int_in(f"{w}.world", c["world"], 1, 1 << 12)
    sc.int_in(f"{w}.n", c["n"], 1, 1 << 26)
    if c["layout"] not in LAYOUTS:
        sc.fail(f"{w}.layout", f"must be one of {', '.join(LAYOUTS)}")
    for k in ("causal", "ok"):
        sc.boolean(f"{w}.{k}", c[k])
    for k in ("err_ring", "err_single"):
        sc.number(f"{w}.{k}", c[k], bound=1e30)


def validate_ring_dataset(obj) -> dict:
    check_top(obj, kind=KIND, about="is this a ring-attention recording?", versions=READS,
                  keys=("schema_version", "kind", "complete", "elapsed_s", "stopped", "provenance", "config", "checks",
                        "cells"), required=("provenance", "config", "cells"))
    _provenance(obj["provenance"])
    _config(obj["config"])
    checks = obj.get("checks", [])
    if not isinstance(checks, list) or len(checks) > 1000:
        sc.fail("checks", "must be a list of at most 1000 checks")
    for i, c in enumerate(checks):
        _check(i, c)
    sc.unique_cells(obj["cells"], lambda i, c: _cell(i, c, obj["config"]),
                    lambda c: (c["n"], c["world"], c["layout"], c["causal"], c["mode"]), most=_ds.MAX_CELLS,
                    same="N, world, layout, causal, mode")
    return obj


SCHEMA = sc.Schema(validate_ring_dataset, lambda: DEFAULT_DIR)


def parse_ring_dataset(data: bytes) -> dict:
    """Bytes of a file -> the validated recording (never evaluated)."""
    return SCHEMA.parse(data)


def load_ring_dataset(source) -> dict:
    """A path or bytes -> the validated recording."""
    return SCHEMA.load(source)


def list_ring_datasets(directory=None) -> list:
    """The committed recordings of this kind, newest name first; [] while none is recorded."""
    return SCHEMA.list(directory)


def markdown_table(data: dict) -> str:
    """docs/BENCHMARKS.md's table of a recording: per pass, mask, layout and N, 1 vs 2 GPUs, transfers and memory.
    `python -m flashviz.bench.ring_dataset FILE` prints it (so the document's numbers come from the file)."""
    ok = [c for c in data["cells"] if c["status"] == "ok"]
    one = {(c["n"], c["causal"], c["mode"]): c for c in ok if c["world"] == 1}
    lines = ["| pass | N | causal | layout | 1 GPU | 2 GPUs | speed-up | transfers alone | waited for them | hidden "
             "| peak GiB per GPU (2 / 1) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    key = lambda c: (MODES.index(c["mode"]), c["causal"], c["layout"], c["n"])           # noqa: E731
    for c in sorted((c for c in ok if c["world"] == 2), key=key):
        o = one.get((c["n"], c["causal"], c["mode"]))
        f = lambda x, p="": "—" if x is None else f"{x:{p}}"                            # noqa: E731
        gib = lambda x: None if x is None or x.get("peak_bytes") is None else x["peak_bytes"] / 2 ** 30  # noqa: E731
        lines.append(" | ".join([
            f"| {c['mode']}", f"{c['n'] // 1024}k", "yes" if c["causal"] else "no",
            c["layout"] + (f", S = {c['chunks']}" if (c.get("chunks") or 1) > 1 else ""), f(o and o["ms"], ".0f"),
            f(c["ms"], ".0f"), "—" if o is None else f"{o['ms'] / c['ms']:.2f}x", f(c.get("ms_comm"), ".1f"),
            f(c.get("ms_exposed"), ".2f"), "—" if c.get("hidden") is None else f"{100 * c['hidden']:.1f} %",
            f(gib(c), ".1f") + " / " + f(gib(o), ".1f") + " |"]))
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    print(markdown_table(load_ring_dataset(sys.argv[1])))
