"""The ws backward's tune files (assets/benchmarks/tune/nvidia-h200-backward-ws-*.json, written by `python -m
tools.tune_backward --kind ws --out FILE`): read, validate, and the one comparison the Backward page draws
from them: the same ws tiles with each query row's lse and delta held in registers ("acc=0") or starting the two
MMAs' accumulators ("acc=1"), per recorded cell, against SDPA cuDNN's backward timed in the same run. No UI.
"""
from __future__ import annotations

import math
from pathlib import Path

from flashviz_kernels import ws_bwd

from ..infra.errors import DatasetError
from . import schema as sc

DEFAULT = Path(__file__).resolve().parents[2] / "assets/benchmarks/tune/nvidia-h200-backward-ws-2026-12-01d.json"
PROVENANCE = ("device", "driver", "cuda", "torch", "triton", "date", "git_commit", "command")
HELD, STARTED = " acc=0 early=0", " acc=1 early=0"      # tune_backward._name's suffixes for the two schedules
PEER = "sdpa-cudnn"
WG_THREADS = 128                                       # threads of one consumer warpgroup


def _bad(detail: str):
    return DatasetError(key="errors.ds_value", detail=detail)


def _ms(x, where: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x <= 0:
        raise _bad(f"{where}: ms must be a positive finite number, got {x!r}")
    return float(x)


def validate_tune(rec) -> dict:
    """The parsed JSON of a tune file, checked: provenance strings, rows of (d, n, causal, impls), each impl with a
    positive ms or an error. Returns rec unchanged (never a copy that callers might mutate: it is not cached)."""
    if not isinstance(rec, dict):
        raise DatasetError(key="errors.ds_top_object")
    for k in PROVENANCE:
        if not isinstance(rec.get(k), str) or not rec[k]:
            raise _bad(f"provenance field {k!r} missing or not text")
    rows = rec.get("rows")
    if not isinstance(rows, list) or not rows:
        raise _bad("'rows' must be a non-empty list")
    for i, r in enumerate(rows):
        if not isinstance(r, dict):
            raise _bad(f"rows[{i}] is not an object")
        for k in ("d", "n"):
            if isinstance(r.get(k), bool) or not isinstance(r.get(k), int) or r[k] <= 0:
                raise _bad(f"rows[{i}].{k} must be a positive integer, got {r.get(k)!r}")
        if not isinstance(r.get("causal"), bool):
            raise _bad(f"rows[{i}].causal must be true or false")
        if not isinstance(r.get("impls"), dict):
            raise _bad(f"rows[{i}].impls must be an object")
        for name, v in r["impls"].items():
            if not isinstance(v, dict) or ("ms" not in v and not isinstance(v.get("error"), str)):
                raise _bad(f"rows[{i}].impls[{name!r}] needs ms or an error")
            if "ms" in v:
                _ms(v["ms"], f"rows[{i}].impls[{name!r}]")
    return rec


def load_tune(source=DEFAULT) -> dict:
    """A path or bytes -> the validated record (DatasetError for an unreadable, non-JSON or malformed file)."""
    return validate_tune(sc.read_json(sc.read_source(source)))


def register_rows(rec: dict) -> list[dict]:
    """Per recorded cell and tile config timed both ways: {d, n, causal, tiles, held_ms, started_ms, cudnn_ms, held,
    started}, the last two as speed relative to cuDNN (cuDNN's ms / ours: above 1 is faster). Sorted by d, N, causal."""
    out = []
    for r in rec["rows"]:
        impls = r["impls"]
        peer = impls.get(PEER, {}).get("ms")
        for name, v in impls.items():
            if not name.endswith(HELD) or "ms" not in v or peer is None:
                continue
            tiles = name[:-len(HELD)]
            twin = impls.get(tiles + STARTED, {})
            if "ms" in twin:
                out.append(dict(d=r["d"], n=r["n"], causal=r["causal"], tiles=tiles, held_ms=v["ms"],
                                started_ms=twin["ms"], cudnn_ms=peer, held=peer / v["ms"],
                                started=peer / twin["ms"]))
    return sorted(out, key=lambda x: (x["d"], x["n"], x["causal"], x["tiles"]))


def geomeans(rows: list[dict]) -> dict[int, dict]:
    """d -> {held, started, cells}: the geometric means of the two speeds over that head dim's cells."""
    out = {}
    for d in sorted({r["d"] for r in rows}):
        mine = [r for r in rows if r["d"] == d]
        gm = lambda k: math.exp(sum(math.log(r[k]) for r in mine) / len(mine))  # noqa: E731
        out[d] = dict(held=gm("held"), started=gm("started"), cells=len(mine))
    return out


def accumulator_registers(d: int) -> int:
    """32-bit registers per consumer thread that its keys' dK and dV (float32, ws_bwd.BLOCK_N / 2 keys x d each)
    take for the whole key block."""
    return 2 * (ws_bwd.BLOCK_N // 2) * d // WG_THREADS


def register_budget() -> int:
    """Registers per thread a consumer warpgroup may use (setmaxnreg, ws_bwd.REGS)."""
    return ws_bwd.REGS[0]
