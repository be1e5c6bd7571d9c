"""Timeline datasets for the tests, built from a real proton trace and from synthetic ones, and the numbers the
"Inside the kernel" page states counted cycle by cycle (counted_numbers: the reference for kernel_timeline).

tests/data/proton_fast_2cta.chrome_trace: two CTAs (ids 0 and 39: the shortest span and the median span) cut
from a real trace recorded on the H200 (triton 3.6.0, torch 2.11; the fast tl kernel with proton scopes load_k,
qk, softmax, pv; B=1, H=4, N=4096, d=128, fp16, non-causal, 128 x 64 tiles, 4 warps; warp granularity, the
default shared circular buffer, which kept 512 of each CTA's 1024 events). Every event of those two CTAs is
kept with name, ph, pid, tid, ts, dur and args "Frequency (MHz)"; the other args (call stack, finalization
time), cat and cname were dropped to keep the file small. The full trace (128 CTAs, 16 MB) is not committed.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

from flashviz.bench import timeline_dataset, timeline_trace

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "proton_fast_2cta.chrome_trace"
FIXTURE_CONFIG = dict(n=4096, d=128, causal=False, dtype="float16", batch=1, heads=4)
FIXTURE_TILES = (128, 64, 4, 2)               # block_m, block_n, num_warps, num_stages


def fixture_trace() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def ev(cta: int, warp: int, scope: str, start: int, dur: int, kernel: str = "k", freq: float = 1000.0) -> dict:
    """One chrome-trace event as proton writes it; start and dur in cycles (ts/dur = cycles / freq µs)."""
    return {"ph": "X", "name": scope, "pid": f"{kernel} Core{cta + 3} CTA{cta}", "tid": f"warp {warp} (line 0)",
            "ts": start / freq, "dur": dur / freq, "args": {"Frequency (MHz)": freq}}


def ws_trace(ctas: int = 2, tiles: int = 4) -> dict:
    """A warp-specialised CTA as its scopes would look: warp 8 a TMA producer (tma_kv per tile), warpgroups 0 and
    1 (warps 0-3, 4-7) taking turns: qk 300, softmax 500, pv 200 cycles per tile, warpgroup 1 offset by 500."""
    out = []
    for c in range(ctas):
        base = 1000 * c
        for j in range(tiles):
            out.append(ev(c, 8, "tma_kv", base + 1000 * j, 150, "ws_fwd"))
            for w in range(8):
                t0 = base + 200 + 1000 * j + (500 if w >= 4 else 0)
                out += [ev(c, w, "qk", t0, 300, "ws_fwd"), ev(c, w, "softmax", t0 + 300, 500, "ws_fwd"),
                        ev(c, w, "pv", t0 + 800, 200, "ws_fwd")]
    return {"traceEvents": out}


PROVENANCE = dict(device="cuda", device_name="NVIDIA H200", sm_count=132, driver_version="570.00",
                  cuda_version="12.8", torch="2.11.0", triton="3.6.0", python="3.12.0", platform="Linux",
                  created_utc="2026-11-30T13:00:00+00:00", git_commit="0" * 40, git_dirty=False,
                  command="python -m flashviz.bench --preset h200-timeline", timer="do_bench + CUPTI")
METHOD = dict(profiler="triton proton", granularity="warp", mode="default", semantic="tl scopes are approximate",
              clock_mhz=1980.0, clock_source="nvidia-smi clocks.sm", timer_plain="do_bench median",
              timer_kernel="CUPTI median of 10", representative="median span")


def cell(impl: str, trace: dict, cfg: dict, tiles: tuple, per_cta: list[int], *, ms=(0.1, 0.09, 0.12),
         buffer="shared") -> dict:
    """A dataset cell from a trace; per_cta: the key tiles of each CTA in the trace (these traces hold 2 CTAs)."""
    bm, bn, warps, stages = tiles
    parsed = timeline_trace.summarize(trace, tiles=per_cta)
    return dict(impl=impl, kernel=parsed["kernel"], status="ok", message=None, **cfg, block_m=bm, block_n=bn,
                num_warps=warps, num_stages=stages, grid=[-(-cfg["n"] // bm), cfg["batch"] * cfg["heads"]],
                buffer=buffer, ms_plain=ms[0], ms_kernel_plain=ms[1], ms_kernel_instrumented=ms[2], reps_kernel=10,
                **{k: v for k, v in parsed.items() if k != "kernel"})


def dataset() -> dict:
    """fast (the real fixture) and ws (synthetic) at the fixture's configuration; at N=8192 d=64 a fast cell
    that failed, as a run that could not instrument it would record."""
    small = dict(FIXTURE_CONFIG, n=8192, d=64, heads=2)
    failed = dict(impl="fast", kernel="_fast_fwd", status="error", message="global buffer failed (RuntimeError: x)",
                  **small, block_m=128, block_n=128, num_warps=4, num_stages=3, grid=[64, 2], buffer="shared",
                  ms_plain=0.2, ms_kernel_plain=None, ms_kernel_instrumented=None, reps_kernel=10)
    data = dict(schema_version=1, kind="flashviz-timeline", complete=True, elapsed_s=42.0,
                provenance=copy.deepcopy(PROVENANCE), method=copy.deepcopy(METHOD),
                cells=[cell("fast", fixture_trace(), FIXTURE_CONFIG, FIXTURE_TILES, [64, 64]),
                       cell("ws", ws_trace(), FIXTURE_CONFIG, (128, 128, 4, 2), [4, 4], ms=(0.08, 0.07, 0.075),
                            buffer="global"), failed])
    return timeline_dataset.validate_timeline_dataset(data)


# ----------------------------------------------------------------------------- numbers counted cycle by cycle

def busy_cycles(cell: dict, warp: int, scopes, span: int) -> np.ndarray:
    """A boolean per cycle: is `warp` inside one of `scopes`?"""
    out = np.zeros(span + 1, dtype=bool)
    idx = {cell["scopes"].index(s) for s in scopes if s in cell["scopes"]}
    for w, i, start, dur in cell["timeline"]:
        if w == warp and i in idx:
            out[start:start + dur] = True
    return out


def counted_numbers(cell: dict) -> dict:
    """Overlap shares by counting cycles; the producer's lead by pairing the k-th K copy from the end with the k-th
    Q·Kᵀ from the end."""
    span = cell["cta"]["span_cycles"]
    first = {}
    for w, r in zip(cell["warps"], cell["roles"]):
        first.setdefault(r, w)
    w0, w1 = first["warpgroup 0"], first["warpgroup 1"]
    sm0 = busy_cycles(cell, w0, ("softmax",), span)
    under = (sm0 & busy_cycles(cell, w1, ("qk", "pv", "load_v_pv"), span)).sum() / sm0.sum()
    both = (sm0 & busy_cycles(cell, w1, ("softmax",), span)).sum() / sm0.sum()
    qk = sorted(r[2] for r in cell["timeline"] if r[0] == w0 and cell["scopes"][r[1]] == "qk")
    issue = sorted(r[2] + r[3] for r in cell["timeline"] if r[0] == first["producer"]
                   and cell["scopes"][r[1]] in ("tma_issue", "tma_kv"))
    n = min(len(qk), len(issue))
    lead = float(np.median(np.array(qk[-n:]) - np.array(issue[-n:])))
    return dict(under=under, both=both, lead=lead, period=float(np.median(np.diff(qk))))
