"""Where a persistent ws forward spends a query tile's edges: `python -m tools.window_trace --out FILE` (CUDA, proton).

A persistent program walks many query tiles, and a window's tile has few key tiles (9 at 1024 keys and 128 x 128
tiles), so what a tile costs beyond its key loop decides the window's speed (tools/window_fit.py fits that cost;
flashviz.bench.timeline records one tile per program only). This runs the ws forward persistent on a causal window
(default 1024 keys, d = 128, B = 1, H = 8, N = 16384: about eight tiles a program on 132 SMs) once under proton's
instrumentation (warp granularity, a global buffer) with FLASHVIZ_WS_TRACE_EDGES=1, which adds scopes at a tile's edges
(kernels/_ws_tile.py EDGES: top, q_ready, pro, half_lo, store, release, pv_last; the producer's tma_q_wait), and splits
each consumer warpgroup's events into query tiles at its last P·V (pv_last). Per consumer (its first warp, every CTA
traced) it writes the median over every tile but a program's first (which follows no pv_last): the period (pv_last end
to pv_last end), q_ready (the wait for the tile's Q), lead (the previous pv_last's end to the first key tile's K wait:
the Q wait, a lead half step, bookkeeping; of it: ret, the previous pv_last's end to the loop's top; top, the tile's
decode and key range; pro, attend's set-up before its first K wait or half step), half_lo, trip0 (key tile 0 from its K
wait to its Q slot's release: Q·K_0ᵀ with the previous O's store, the first softmax), per_trip (the key loop's trips
1 .. n-1, each), pv_last (the last P·V, with HALF_TAIL a last half step too); in cycles of the SM clock. The plain
launch's time (do_bench median) and the instrumented one's are beside it. The ws switches set (FLASHVIZ_WS_*) are in the
header: run it once per side of a switch to compare. On the lent GPU under the carried triton 3.8 (trimmed, no proton):
two calls back to back, `fv_stash .whl/proton38` (tools/device/pack.sh proton 3.8.0), then `fv_triton .whl/t38 &&
fv_proton` before it.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import sys
import tempfile

EDGE_ENV = "FLASHVIZ_WS_TRACE_EDGES"
FIELDS = ("period", "q_ready", "lead", "ret", "top", "pro", "half_lo", "trip0", "per_trip", "pv_last")


def tiles_of(events: list) -> list[dict]:
    """One consumer warp's events (dicts or objects with scope, start, dur), sorted by start -> a dict per query tile
    that both starts and ends with a pv_last (FIELDS; half_lo and q_ready 0 where the tile had none)."""
    ev = [dict(scope=e["scope"], start=e["start"], dur=e["dur"]) if isinstance(e, dict) else
          dict(scope=e.scope, start=e.start, dur=e.dur) for e in events]
    ev.sort(key=lambda e: e["start"])
    ends = [i for i, e in enumerate(ev) if e["scope"] == "pv_last"]
    out = []
    for a, b in zip(ends, ends[1:]):
        t = ev[a + 1:b]
        prev_end = ev[a]["start"] + ev[a]["dur"]
        waits = [e for e in t if e["scope"] == "wait_kv"]
        rel = [e for e in t if e["scope"] == "release"]
        if not waits or not rel:
            continue
        first, rel = waits[0], rel[0]
        trip_start = rel["start"] + rel["dur"]                # key tile 1's start: after the slot's release
        trips = max(len(waits) - 1, 1)
        one = lambda name: sum(e["dur"] for e in t if e["scope"] == name)   # noqa: E731
        tops = [e for e in t if e["scope"] == "top"]
        out.append(dict(period=ev[b]["start"] + ev[b]["dur"] - prev_end, q_ready=one("q_ready"),
                        lead=first["start"] - prev_end, ret=tops[0]["start"] - prev_end if tops else 0,
                        top=one("top"), pro=one("pro"), half_lo=one("half_lo"),
                        trip0=trip_start - first["start"], per_trip=(ev[b]["start"] - trip_start) / trips,
                        pv_last=ev[b]["dur"]))
    return out


def edges(events: list, warps=(0, 4)) -> dict:
    """{"consumer<k>": {"tiles": n, FIELD: median cycles}} over every CTA's warp warps[k] (a consumer warpgroup's
    first warp); events carry cta, warp, scope, start, dur (flashviz.bench.timeline_trace.read_events' Event)."""
    by = collections.defaultdict(list)
    for e in events:
        by[(e["cta"], e["warp"]) if isinstance(e, dict) else (e.cta, e.warp)].append(e)
    out = {}
    for k, w in enumerate(warps):
        rows = [r for (cta, ww), es in sorted(by.items()) if ww == w for r in tiles_of(es)]
        out[f"consumer{k}"] = dict(tiles=len(rows), **{f: statistics.median(r[f] for r in rows) if rows else None
                                                       for f in FIELDS})
    return out


def _trace(fn, tmp: str):
    """fn's events under proton (the timeline's warp-granularity session with a global buffer of a power of two per
    warp: 12 or 16 warps)."""
    from flashviz.bench.timeline import proton_mode, proton_session
    from flashviz.bench.timeline_trace import read_events
    last = None
    for warps in (12, 16):
        stem = os.path.join(tmp, f"trace{warps}")
        try:
            proton_session(stem, "trace", proton_mode("global", warps << 16), fn)
            with open(stem + ".chrome_trace", encoding="utf-8") as f:
                return read_events(json.load(f))[1]
        except Exception as e:                        # noqa: BLE001 - the other warp count, then say why
            last = e
    raise RuntimeError(f"proton could not trace the kernel: {type(last).__name__}: {str(last)[:300]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=int, default=1024, help="the window's left side in keys (-1: dense causal)")
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--n", type=int, default=16384)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    os.environ[EDGE_ENV] = "1"                        # before the kernel modules are imported
    import torch
    import triton.testing

    from flashviz_kernels import ws
    from tools.tune_record import record_header
    if not torch.cuda.is_available():
        print("window_trace: needs a CUDA GPU")
        return 1
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(args.batch, args.heads, args.n, args.d, device="cuda", dtype=torch.float16, generator=g)
               for _ in range(3))
    sched = ws.schedule(args.d, True, window=args.window >= 0)
    fn = lambda: ws.forward(q, k, v, causal=True, sm_scale=args.d ** -0.5, block_m=64 * sched["consumers"],  # noqa
                            block_n=sched["block_n"], num_warps=4, num_stages=sched["stages"],
                            window_left=args.window, persistent=True)
    fn()
    torch.cuda.synchronize()
    bench = lambda: triton.testing.do_bench(fn, warmup=10, rep=100, return_mode="median")   # noqa: E731
    rec = record_header("window_trace", sys.argv[1:] if argv is None else argv, n=args.n, d=args.d,
                        window=args.window, schedule=sched, unit="cycles (SM clock)")
    rec.update(batch=args.batch, heads=args.heads)
    rec.pop("rows", None)
    rec["ms"] = bench()
    with tempfile.TemporaryDirectory(prefix="flashviz-wtrace-") as tmp:
        events = _trace(fn, tmp)
        from flashviz.bench.timeline import proton_mode, proton_session, kernel_ms
        rec["ms_kernel_instrumented"] = None
        try:                                          # the instrumented kernel alone, as the timeline times it
            proton_session(os.path.join(tmp, "tree"), "tree", proton_mode("global", 12 << 16),
                     lambda: rec.__setitem__("ms_kernel_instrumented", kernel_ms(fn, "ws_fwd")))
        except Exception as e:                        # noqa: BLE001 - recorded, not fatal
            rec["ms_kernel_instrumented_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    rec["events"] = len(events)
    rec["edges"] = edges(events)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(rec, f, indent=1)
    print(json.dumps({k: rec[k] for k in ("ms", "ms_kernel_instrumented", "edges")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
