"""Attention-variant benchmark datasets (`python -m flashviz.bench --preset h200-variants`): schema, loading (no torch).

The bytes go through the speed datasets' guarded JSON reading (flashviz.bench.dataset.read_json: size cap, strict
UTF-8, no NaN/Infinity, no duplicate keys, depth cap), then this schema; DatasetError names the offending field.
They live in assets/benchmarks/variants/ (the speed page reads only assets/benchmarks/*.json).

Dataset JSON, kind "flashviz-variants", schema_version 1
    {"schema_version": 1, "kind": "flashviz-variants", "complete": bool, "elapsed_s": float, "stopped": str (optional),
     "provenance": {the speed datasets' fields (flashviz.bench): device, device_name, driver, CUDA, torch, triton,
                    created_utc, git_commit, git_dirty, source_sha256, command, timer, ...},
     "config": {"preset", "batch", "heads", "d", "dtype", "window" (left; right = 0), "softcap", "kv_heads",
                "ns": [N...], "impls": [...], "variants": [...], "compile" (flex under torch.compile), "warmup_ms",
                "rep_ms", "min_reps", "seed", "budget_s", "flex_block": [Br, Bc]},
     "cells": [{"variant" (variants_spec.VARIANTS, all causal), "impl" ("flex"|"sdpa"|"fast"|"teaching"|"naive"), "n",
                "status" ("ok"|"oom"|"unavailable"|"error"), "message", "ms" (median), "ms_p20", "ms_p80", "reps",
                "compile_s" (flex: first call, compile included, not in ms), "block_mask_s" (flex: create_block_mask),
                "ms_new_ids" (ours, docs: median with a new seq_ids tensor per call, tables rebuilt; optional),
                "compiled" (flex: bool), "flops_useful" = 4·d·B·H·(visible pairs), "flops_executed" (the run tiles
                of "tiles" = [Br, Bc]: flex's block size, our kernels' launched tiles (recordings before 2026-12-01
                counted 128 x 64 for ours whatever ran); naive: every pair; null where unknown), "tiles",
                "tflops_useful", "tflops_executed" = flops / ms / 1e9, "max_abs_err", "rel_err" (vs float64 rows of
                two heads), "correct", "speedup_vs_flex" = t_flex / t (same run), "doc_lens" (docs variant)}]}
"""
from __future__ import annotations

import math

from flashviz_kernels.rules import as_int

from . import dataset as _ds
from . import schema as sc
from .recording import check_object, check_top, complete_first
from .ring_dataset import STD_PROV
from .variants_spec import IMPLS, KIND, SCHEMA_VERSION, STATUSES, VARIANTS, cell_flops, doc_lens

DEFAULT_DIR = _ds.DEFAULT_DIR / "variants"
TOP = ("schema_version", "kind", "complete", "elapsed_s", "stopped", "provenance", "config", "cells")
CONFIG_INTS = {"batch": (1, 1 << 16), "heads": (1, 1024), "d": (1, 256), "window": (0, 1 << 26),
               "kv_heads": (1, 1024), "min_reps": (1, 10 ** 6), "seed": (-(1 << 63), 1 << 64)}
CONFIG_KEYS = {*CONFIG_INTS, "preset", "dtype", "softcap", "ns", "impls", "variants", "compile", "warmup_ms", "rep_ms",
               "budget_s", "flex_block"}
CELL_NUMBERS = ("ms", "ms_p20", "ms_p80", "compile_s", "block_mask_s", "ms_new_ids", "tflops_useful",
                "tflops_executed", "max_abs_err", "rel_err", "speedup_vs_flex", "speedup_vs_fa4")
CELL_KEYS = {*CELL_NUMBERS, "variant", "impl", "n", "status", "message", "reps", "compiled", "flops_useful",
             "flops_executed", "tiles", "correct", "doc_lens"}


def _config(c) -> None:
    check_object("config", c, CONFIG_KEYS)
    for k, (lo, hi) in CONFIG_INTS.items():
        sc.int_in(f"config.{k}", c.get(k), lo, hi)
    if c["heads"] % c["kv_heads"]:
        sc.fail("config.kv_heads", "must divide heads")
    if c.get("dtype") not in ("float16", "bfloat16", "float32"):
        sc.fail("config.dtype", "must be float16, bfloat16 or float32")
    sc.number("config.softcap", c.get("softcap"), "pos", 1e6, null=False)
    sc.text("config.preset", c.get("preset"), 40)
    for k in ("ns", "impls", "variants"):
        if not isinstance(c.get(k), list) or not 1 <= len(c[k]) <= 64:
            sc.fail(f"config.{k}", "must be a list of 1 to 64 values")
    sc.boolean("config.compile", c.get("compile"))


def _cell(i: int, c, cfg: dict) -> None:
    w = f"cells[{i}]"
    check_object(w, c, CELL_KEYS, ("variant", "impl", "n", "status", "flops_useful"))
    for k, allowed in (("variant", VARIANTS), ("impl", IMPLS), ("status", STATUSES)):
        if c[k] not in allowed:
            sc.fail(f"{w}.{k}", f"must be one of {', '.join(allowed)}")
    sc.int_in(f"{w}.n", c["n"], 1, 1 << 22)
    sc.int_in(f"{w}.reps", c.get("reps"), 1, 10 ** 7, null=True)
    sc.text(f"{w}.message", c.get("message"), 2000, null=True)
    for k in ("compiled", "correct"):
        sc.boolean(f"{w}.{k}", c.get(k), null=True)
    for k in CELL_NUMBERS:
        sc.number(f"{w}.{k}", c.get(k), "pos" if k == "ms" else "nonneg", 1e9)
    tiles = c.get("tiles")
    if tiles is not None and not (isinstance(tiles, list) and len(tiles) == 2 and all(
            as_int(x) is not None and 1 <= x <= c["n"] for x in tiles)):
        sc.fail(f"{w}.tiles", "must be null or [Br, Bc], each in 1..N")
    if c["impl"] == "naive" and tiles is not None:
        sc.fail(f"{w}.tiles", "must be null for naive (it computes every pair)")
    useful, executed, _ = cell_flops(c["variant"], c["impl"], c["n"], cfg, tiles=tiles or None)
    if tiles is None and c["impl"] != "naive":
        executed = None
    if not math.isclose(c["flops_useful"], useful, rel_tol=1e-9):
        sc.fail(f"{w}.flops_useful", "is not 4·d·B·H times the visible pairs of the variant")
    if (executed is None) != (c.get("flops_executed") is None) or (
            executed is not None and not math.isclose(c["flops_executed"], executed, rel_tol=1e-9)):
        sc.fail(f"{w}.flops_executed", "is not the FLOPs of the run blocks at the cell's tiles")
    if c["variant"] == "docs" and c.get("doc_lens") != list(doc_lens(c["n"])):
        sc.fail(f"{w}.doc_lens", "are not the benchmark's packed documents for this N")
    if c["status"] == "ok":
        if c.get("ms") is None:
            sc.fail(f"{w}.ms", "is required when status is 'ok'")
        for f, t in (("flops_useful", "tflops_useful"), ("flops_executed", "tflops_executed")):
            if c.get(f) is not None and (c.get(t) is None or not math.isclose(c[t], c[f] / (c["ms"] * 1e9),
                                                                              rel_tol=1e-6)):
                sc.fail(f"{w}.{t}", "does not equal flops / time")
    elif c.get("ms") is not None:
        sc.fail(f"{w}.ms", f"must be null when status is {c['status']!r}")


def validate_variants_dataset(obj) -> dict:
    check_top(obj, kind=KIND, about="is this an attention-variants recording?", versions=(SCHEMA_VERSION,),
                  keys=TOP, required=("provenance", "config", "cells"))
    p = obj["provenance"]
    if not isinstance(p, dict):
        sc.fail("provenance", "must be an object")
    sc.provenance({k: v for k, v in p.items() if k in STD_PROV})
    _config(obj["config"])
    sc.unique_cells(obj["cells"], lambda i, c: _cell(i, c, obj["config"]), lambda c: (c["variant"], c["impl"], c["n"]),
                    most=_ds.MAX_CELLS, same="variant, impl, N")
    return obj


SCHEMA = sc.Schema(validate_variants_dataset, lambda: DEFAULT_DIR)


def parse_variants_dataset(data: bytes) -> dict:
    """Bytes of a file -> the validated recording (never evaluated)."""
    return SCHEMA.parse(data)


def load_variants_dataset(source) -> dict:
    """A path or bytes -> the validated recording."""
    return SCHEMA.load(source)


def list_variants_datasets(directory=None) -> list:
    """The committed recordings of this kind, newest name first; [] while none is recorded."""
    return SCHEMA.list(directory)


def fullest_first(recordings: dict[str, dict]) -> dict[str, dict]:
    """The same {name: recording}, complete ones first and, among those, the ones covering more variants first
    (each group keeps its given order, newest name first): the Variants page opens on the fullest recent run, not
    on a newer one that timed two variants to check a kernel change."""
    by_breadth = sorted(recordings.items(), key=lambda kv: -len({c["variant"] for c in kv[1]["cells"]}))
    return complete_first(dict(by_breadth))                        # both sorts stable


def measured(ds: dict, variant: str, n: int | None = None) -> list[dict]:
    """The cells of one variant (at N, or at the largest N recorded for it), in the recorded impl order."""
    cells = [c for c in ds["cells"] if c["variant"] == variant]
    if not cells:
        return []
    n = max(c["n"] for c in cells) if n is None else n
    return [c for c in cells if c["n"] == n]


def window_account(ds: dict, n: int, impl: str = "fast") -> dict | None:
    """Why a window is not as much faster as its pairs suggest, from one recording at N: our impl's window cell against
    its dense-causal cell: speedup (time), useful (visible pairs), executed (pairs of the tiles run, at the tiles the
    window cell ran), efficiency (window's executed TFLOP/s over dense causal's) and those tiles. None when either
    cell is missing or did not run."""
    by = {c["variant"]: c for c in ds["cells"] if c["n"] == n and c["impl"] == impl and c["status"] == "ok"}
    w, dense = by.get("window"), by.get("dense-causal")
    if w is None or dense is None or not w.get("flops_executed") or not dense.get("flops_executed"):
        return None
    return dict(speedup=dense["ms"] / w["ms"], useful=dense["flops_useful"] / w["flops_useful"],
                executed=dense["flops_executed"] / w["flops_executed"],
                efficiency=w["tflops_executed"] / dense["tflops_executed"], tiles=list(w["tiles"]))


def markdown_table(data: dict, ns=None) -> str:
    """docs/BENCHMARKS.md's table of a recording: per variant and N (those in ns; None: all), ms of each impl and
    ours (fast) over Flex and FlashAttention-4 (where the run timed them).
    `python -m flashviz.bench.variants_dataset FILE` prints it (so the document's numbers come from the file)."""
    cells = [c for c in data["cells"] if ns is None or c["n"] in ns]
    impls = list(dict.fromkeys(c["impl"] for c in cells))
    keys = list(dict.fromkeys((c["variant"], c["n"]) for c in cells))
    by = {(c["variant"], c["n"], c["impl"]): c for c in cells}

    def show(c):
        if c is None:
            return "—"
        if c["status"] != "ok":
            return c["status"]
        fresh = f" ({c['ms_new_ids']:.3g} new ids)" if c.get("ms_new_ids") is not None else ""
        return f"{c['ms']:.3g}{fresh}"
    peers = [p for p in ("flex", "fa4") if p in impls]            # ours over each peer in the run
    lines = ["| variant | N | " + " | ".join(f"{i} ms" for i in impls) + "".join(f" | fast / {p}" for p in peers)
             + " |", "|---|---|" + "---|" * (len(impls) + len(peers))]
    for v, n in keys:
        fast = by.get((v, n, "fast"))
        ratios = []
        for p in peers:
            peer = by.get((v, n, p))
            ratios.append(f"{peer['ms'] / fast['ms']:.2f}x" if fast and peer and fast["status"] == peer["status"]
                          == "ok" else "—")
        lines.append(f"| {v} | {n} | " + " | ".join(show(by.get((v, n, i))) for i in impls)
                     + "".join(f" | {r}" for r in ratios) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    print(markdown_table(load_variants_dataset(sys.argv[1])))
