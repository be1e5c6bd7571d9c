"""Intra-kernel timeline datasets (written by `python -m flashviz.bench --preset h200-timeline`): schema, loader, helpers.

No torch here (the page imports it). Read with the timing datasets' guarded JSON reading (flashviz/bench/dataset.py:
size cap, strict UTF-8, no NaN/Infinity, no duplicate keys, depth cap), then this schema; every failure is a
DatasetError naming the field. Files live in assets/benchmarks/timeline/.

kind "flashviz-timeline", schema_version 1:
    {"schema_version": 1, "kind": "flashviz-timeline", "complete": bool, "elapsed_s": float,
     "provenance": {the timing datasets' fields (device, driver, CUDA, torch, triton, date, commit, command, ...)},
     "method": {"profiler", "granularity", "mode" (proton's mode string), "semantic" (the caveat in words),
                "clock_mhz" (SM clock read while the kernels ran, or null), "clock_source", "timer_plain",
                "timer_kernel", "representative"},
     "cells": [{"impl", "kernel", "status" ("ok"|"error"|"no_scopes"), "message",
                "n", "d", "causal", "dtype", "batch", "heads", "block_m", "block_n", "num_warps", "num_stages",
                "grid" ([programs along N, batch x heads]), "buffer" ("global"|"shared": where proton kept events),
                "schedule" (ws only, optional: its OVERLAP/PINGPONG switches, one of SCHEDULES),
                "ms_plain" (do_bench median, not instrumented), "ms_kernel_plain", "ms_kernel_instrumented"
                (GPU time of the kernel alone, CUPTI, median of "reps_kernel" launches; null if not measured),
                and for status "ok" the parsed trace (flashviz/bench/timeline_trace.py, times in SM cycles):
                "ctas", "ctas_expected", "events", "events_expected" (null when unknown),
                "events_per_cta_min", "events_per_cta_max",
                "cta": {"id", "core", "span_cycles", "rank", "rule"} (the CTA whose events are kept),
                "span_cycles": {"min", "median", "max", "mean"} over all CTAs,
                "scopes": [names], "warps": [warp ids], "roles": [one per warp],
                "timeline": [[warp, scope index, start, duration], ...] (that CTA, from its first event),
                "shares": [{"role", "scope", "share", "mean_cycles", "count"}] (over all CTAs)}]}
"""
from __future__ import annotations

import math


from . import dataset as _ds
from . import schema as sc
from .recording import check_object, check_top
from .spec import DTYPES

KIND = "flashviz-timeline"
SCHEMA_VERSION = 1
DEFAULT_DIR = _ds.DEFAULT_DIR / "timeline"
STATUSES = ("ok", "error", "no_scopes")
BUFFERS = ("global", "shared")
MAX_EVENTS = 20000                    # timeline rows of one cell
BIG = 1 << 50
TOP_KEYS = ("schema_version", "kind", "complete", "elapsed_s", "stopped", "provenance", "method", "cells")
METHOD_STRS = ("profiler", "granularity", "mode", "semantic", "clock_source", "timer_plain", "timer_kernel",
               "representative")
CONFIG_INTS = {"n": (1, 1 << 22), "d": (1, 4096), "batch": (1, 1 << 16), "heads": (1, 1 << 16),
               "block_m": (1, 1024), "block_n": (1, 1024), "num_warps": (1, 64), "num_stages": (1, 16)}
MS_KEYS = ("ms_plain", "ms_kernel_plain", "ms_kernel_instrumented")
PARSED_INTS = ("ctas", "events", "events_per_cta_min", "events_per_cta_max")
PARSED_KEYS = (*PARSED_INTS, "ctas_expected", "events_expected", "cta", "span_cycles", "scopes", "warps", "roles",
               "timeline", "shares")
CELL_KEYS = ("impl", "kernel", "status", "message", "dtype", "causal", "grid", "buffer", *CONFIG_INTS, *MS_KEYS,
             "reps_kernel", "schedule", *PARSED_KEYS)
SCHEDULES = ("overlap+pingpong", "overlap", "pingpong", "plain")   # ws's OVERLAP / PINGPONG switches (optional)


def schedule_name(overlap: bool, pingpong: bool) -> str:
    """The SCHEDULES name of the ws kernel's two switches."""
    return {(True, True): "overlap+pingpong", (True, False): "overlap", (False, True): "pingpong",
            (False, False): "plain"}[(bool(overlap), bool(pingpong))]
_fail = sc.fail


def _method(m) -> None:
    check_object("method", m, (*METHOD_STRS, "clock_mhz"))
    for k in METHOD_STRS:
        sc.text(f"method.{k}", m.get(k), 2000)
    sc.number("method.clock_mhz", m.get("clock_mhz"), "pos", 1e5)


def _names(where: str, v, limit: int) -> None:
    if not isinstance(v, list) or not 1 <= len(v) <= limit or not all(isinstance(x, str) and 0 < len(x) <= 60
                                                                      for x in v):
        _fail(where, f"must be a list of 1 to {limit} names")


def _parsed(w: str, c: dict) -> None:
    for k in PARSED_KEYS:
        if k not in c:
            _fail(w, f"missing required field {k!r} (status 'ok')")
    for k in PARSED_INTS:
        sc.int_in(f"{w}.{k}", c[k], 1, BIG)
    for k in ("ctas_expected", "events_expected"):
        sc.int_in(f"{w}.{k}", c[k], 1, BIG, null=True)
    if c["events_per_cta_min"] > c["events_per_cta_max"] or c["events_per_cta_max"] > c["events"]:
        _fail(f"{w}.events_per_cta_min", "must be <= events_per_cta_max <= events")
    cta = c["cta"]
    if not isinstance(cta, dict) or set(cta) != {"id", "core", "span_cycles", "rank", "rule"}:
        _fail(f"{w}.cta", "must be an object with id, core, span_cycles, rank and rule")
    for k in ("id", "core", "span_cycles", "rank"):
        sc.int_in(f"{w}.cta.{k}", cta[k], 0, BIG)
    if cta["rank"] >= c["ctas"]:
        _fail(f"{w}.cta.rank", "must be below ctas")
    sc.text(f"{w}.cta.rule", cta["rule"], 40)
    sp = c["span_cycles"]
    if not isinstance(sp, dict) or set(sp) != {"min", "median", "max", "mean"}:
        _fail(f"{w}.span_cycles", "must be an object with min, median, max and mean")
    for k in sp:
        sc.number(f"{w}.span_cycles.{k}", sp[k], "nonneg", 1e15, null=False)
    if not sp["min"] <= sp["median"] <= sp["max"] or not sp["min"] <= sp["mean"] <= sp["max"]:
        _fail(f"{w}.span_cycles", "must have min <= median, mean <= max")
    if not sp["min"] <= cta["span_cycles"] <= sp["max"]:
        _fail(f"{w}.cta.span_cycles", "must lie within span_cycles min..max")
    _names(f"{w}.scopes", c["scopes"], 64)
    if len(set(c["scopes"])) != len(c["scopes"]):
        _fail(f"{w}.scopes", "must not repeat a name")
    warps, roles = c["warps"], c["roles"]
    if not isinstance(warps, list) or not 1 <= len(warps) <= 64 or len(set(map(str, warps))) != len(warps):
        _fail(f"{w}.warps", "must be a list of 1 to 64 distinct warp ids")
    for i, x in enumerate(warps):
        sc.int_in(f"{w}.warps[{i}]", x, 0, 63)
    _names(f"{w}.roles", roles, 64)
    if len(roles) != len(warps):
        _fail(f"{w}.roles", "must give one role per warp")
    rows = c["timeline"]
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_EVENTS:
        _fail(f"{w}.timeline", f"must be a list of 1 to {MAX_EVENTS} events")
    for i, r in enumerate(rows):
        wr = f"{w}.timeline[{i}]"
        if not isinstance(r, list) or len(r) != 4:
            _fail(wr, "must be [warp, scope index, start, duration]")
        sc.int_in(wr + "[0]", r[0], 0, 63)
        if r[0] not in warps:
            _fail(wr, "names a warp that is not in warps")
        sc.int_in(wr + "[1]", r[1], 0, len(c["scopes"]) - 1)
        sc.int_in(wr + "[2]", r[2], 0, BIG)
        sc.int_in(wr + "[3]", r[3], 0, BIG)
        if r[2] + r[3] > cta["span_cycles"]:
            _fail(wr, "ends after the CTA's span")
    shares = c["shares"]
    if not isinstance(shares, list) or not 1 <= len(shares) <= 64 * 64:
        _fail(f"{w}.shares", "must be a non-empty list")
    total: dict[str, float] = {}
    for i, s in enumerate(shares):
        ws = f"{w}.shares[{i}]"
        if not isinstance(s, dict) or set(s) != {"role", "scope", "share", "mean_cycles", "count"}:
            _fail(ws, "must be an object with role, scope, share, mean_cycles and count")
        if s["role"] not in roles:
            _fail(f"{ws}.role", "is not one of the roles")
        if s["scope"] not in c["scopes"]:
            _fail(f"{ws}.scope", "is not one of the scopes")
        sc.number(f"{ws}.share", s["share"], "nonneg", 1.0 + 1e-9, null=False)
        sc.number(f"{ws}.mean_cycles", s["mean_cycles"], "nonneg", 1e15, null=False)
        sc.int_in(f"{ws}.count", s["count"], 1, BIG)
        total[s["role"]] = total.get(s["role"], 0.0) + s["share"]
    for r, v in total.items():
        if v > 1.0 + 1e-6:
            _fail(f"{w}.shares", f"the shares of {r!r} add up to more than the CTA's time ({v:.4f})")


def check_cell(i: int, c) -> None:
    w = f"cells[{i}]"
    check_object(w, c, CELL_KEYS, ("impl", "kernel", "status", "dtype", "causal", "grid", "buffer", *CONFIG_INTS,
                                   *MS_KEYS))
    sc.text(f"{w}.impl", c["impl"], 40)
    if not _ds.IMPL_RE.match(c["impl"]):
        _fail(f"{w}.impl", "is not a plain implementation name")
    sc.text(f"{w}.kernel", c["kernel"], 200)
    if c["status"] not in STATUSES:
        _fail(f"{w}.status", f"must be one of {', '.join(STATUSES)}")
    if c["dtype"] not in DTYPES:
        _fail(f"{w}.dtype", f"must be one of {', '.join(DTYPES)}")
    if c["buffer"] not in BUFFERS:
        _fail(f"{w}.buffer", f"must be one of {', '.join(BUFFERS)}")
    sc.boolean(f"{w}.causal", c["causal"])
    sc.text(f"{w}.message", c.get("message"), 2000, null=True)
    if c.get("schedule") is not None and c["schedule"] not in SCHEDULES:
        _fail(f"{w}.schedule", f"must be null or one of {', '.join(SCHEDULES)}")
    for k, (lo, hi) in CONFIG_INTS.items():
        sc.int_in(f"{w}.{k}", c[k], lo, hi)
    g = c["grid"]
    if not isinstance(g, list) or len(g) != 2:
        _fail(f"{w}.grid", "must be [programs along N, batch x heads]")
    sc.int_in(f"{w}.grid[0]", g[0], 1, BIG)
    sc.int_in(f"{w}.grid[1]", g[1], 1, BIG)
    if g[1] != c["batch"] * c["heads"] or g[0] != -(-c["n"] // c["block_m"]):
        _fail(f"{w}.grid", "is not [ceil(N / block_m), batch x heads]")
    for k in MS_KEYS:
        sc.number(f"{w}.{k}", c[k], "pos", 1e7)
    sc.int_in(f"{w}.reps_kernel", c.get("reps_kernel"), 1, 10 ** 6, null=True)
    if c["status"] == "ok":
        _parsed(w, c)
    elif any(k in c for k in PARSED_KEYS):
        _fail(f"{w}.{next(k for k in PARSED_KEYS if k in c)}", f"must be absent when status is {c['status']!r}")


def validate_timeline_dataset(obj) -> dict:
    """Check a parsed timeline dataset; returns it unchanged or raises DatasetError."""
    check_top(obj, kind=KIND, about="an intra-kernel timeline recording", versions=(SCHEMA_VERSION,),
                  keys=TOP_KEYS, required=("provenance", "method", "cells"))
    sc.provenance(obj["provenance"])
    _method(obj["method"])
    sc.unique_cells(obj["cells"], check_cell, lambda c: (c["impl"], *config_key(c)), least=1, most=256,
                    same="impl and configuration")
    return obj


SCHEMA = sc.Schema(validate_timeline_dataset, lambda: DEFAULT_DIR)


def parse_timeline_dataset(data: bytes) -> dict:
    """Bytes of a file -> the validated recording (never evaluated)."""
    return SCHEMA.parse(data)


def load_timeline_dataset(source) -> dict:
    """A path or bytes -> the validated recording."""
    return SCHEMA.load(source)


def list_timeline_datasets(directory=None) -> list:
    """The committed recordings of this kind, newest name first; [] while none is recorded."""
    return SCHEMA.list(directory)


# ---- helpers for the page -------------------------------------------------------------------------------------

def config_key(c: dict) -> tuple:
    return (c["n"], c["d"], bool(c["causal"]), c["dtype"], c["batch"], c["heads"])


def configs(dataset: dict) -> list[tuple]:
    """Distinct configurations, in recorded order."""
    return list(dict.fromkeys(config_key(c) for c in dataset["cells"]))


def cells_at(dataset: dict, key: tuple) -> list[dict]:
    return [c for c in dataset["cells"] if config_key(c) == key]


def overhead(c: dict) -> float | None:
    """Instrumented over plain GPU time of the kernel alone (same timer), or None when either is missing."""
    a, b = c.get("ms_kernel_instrumented"), c.get("ms_kernel_plain")
    return a / b if a and b else None


def dropped(c: dict) -> int | None:
    """Events the circular buffer dropped (expected - recorded), 0 when none, None when the expectation is unknown."""
    if c.get("events_expected") is None:
        return None
    return max(0, c["events_expected"] - c["events"])


def clock_us(cycles: float, clock_mhz: float | None) -> float | None:
    return None if not clock_mhz or not math.isfinite(clock_mhz) else cycles / clock_mhz
