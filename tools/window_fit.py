"""Where a sliding window's forward time goes: `python -m tools.window_fit --out FILE` (CUDA only).

At N = 16384, B = 4, H = 32, fp16, causal, per head dim: impl="fast" as dispatched (kernels/api.launch_plan names
the kernel and tiles) on dense causal and on windows of --windows keys, timed by triton.testing.do_bench (median;
with --rounds R, R interleaved rounds and their median: single runs on the H200 spread more than the gaps timed).
Per run the key tiles the kernel walks (key_tiles: the engine's run blocks, as kernels/_ws_range.key_range walks
them) and the query tiles. Over the windows, a least-squares fit ms = a * key tiles + b * query tiles splits each
run into work per key tile and a fixed cost per query tile (Q's load, the pipeline's fill and drain, O's store); dense
causal's ms per key tile is the rate the window is measured against (issue 32's tile bound: dense causal /
window in key tiles). FlashAttention-4 (where it runs: flashviz.bench.peers) is timed on the same inputs in the same
rounds, dense causal and each window (fa4_ms, fa4_ms_rounds, fa4_maxerr against ours; fa4_error where it failed),
so each row says how far ours and FA4 each get from dense causal. Writes every number to --out (JSON) with the
record header. --switch ENV (a 0 / 1 switch read at each launch: FLASHVIZ_WS_FRESH, FLASHVIZ_WS_HALF) times ours
with ENV=0 and ENV=1 in the same interleaved rounds, FA4 left out, and writes two files, --out OFF.json ON.json, each
with its side in `switches` and `same_process` naming the other: a drifting board (dense causal moved between
processes on an H100 by more than the effects timed) then falls on both sides alike."""
from __future__ import annotations

import argparse
import json
import os

import numpy as np

from flashviz.bench.rounds_tables import window_shares
from flashviz.engine.variants import block_map, make_variant
from tools.fa4_rounds import with_env   # each --switch side's calls run with its value set


def key_tiles(n: int, bm: int, bn: int, window: int | None) -> tuple[int, int]:
    """(key tiles, query tiles) of one head, square causal attention, the left side `window` (None: dense): the
    engine's run blocks (flashviz.engine.variants.block_map), the range each query tile's program walks."""
    blocks = block_map(make_variant(causal=True, window=None if window is None else (window, 0)), n, bm, bn)
    return int(blocks.run.sum()), blocks.tr


def fit(rows: list[dict]) -> tuple[float, float]:
    """(a, b): the least-squares ms = a * tiles + b * qtiles over rows (at least two, not proportional)."""
    A = np.array([[r["tiles"], r["qtiles"]] for r in rows], float)
    (a, b), *_ = np.linalg.lstsq(A, np.array([r["ms"] for r in rows], float), rcond=None)
    return float(a), float(b)


def fixed_budget(dense: dict, win: dict, ms_per_tile: float, share: float = 0.9) -> float:
    """The fixed cost per query tile (ms) at which the window row `win` would run `share` of its key-tile bound
    (dense["tiles"] / win["tiles"]) over dense causal (`dense`: that run's row), its key tiles costing ms_per_tile
    each (the fit's): (dense ms / (share * bound) - ms_per_tile * key tiles) / query tiles; below 0, no fixed cost
    reaches it."""
    bound = dense["tiles"] / win["tiles"]
    return (dense["ms"] / (share * bound) - ms_per_tile * win["tiles"]) / win["qtiles"]


def fa4_runs(q, k, v, windows: list) -> tuple[dict, str | None]:
    """({window: FA4's call on q, k, v (B, H, N, d), causal with that window (None: dense causal)}, None), or ({},
    why FA4 cannot run here). The scale is 1 / sqrt(d), as impl="fast" takes it by default."""
    from flashviz.bench import peers
    why = peers.fa4_unavailable(q)
    if why:
        return {}, why
    x = dict(q=q, k=k, v=v, scale=q.shape[-1] ** -0.5)
    return {w: peers.fa4_variant_runner(dict(x, var=make_variant(causal=True, window=None if w is None else (w, 0))))
            for w in windows}, None


def fa4_fields(first, times) -> dict:
    """A row's FA4 fields from its first call (|FA4's output - ours|, max, or that call's error text) and its
    rounds (times: ms per round, or the timing's error text): fa4_ms (their median), fa4_ms_rounds, fa4_maxerr; or
    fa4_error."""
    if isinstance(first, str) or isinstance(times, str):
        return dict(fa4_error=first if isinstance(first, str) else times)
    return dict(fa4_ms=float(np.median(times)), fa4_ms_rounds=list(times), fa4_maxerr=float(first))


def side_record(header: dict, name: str | None, side: str | None, outs: list) -> dict:
    """The record of one side of --switch (a copy of header; name None: the one record without a switch): its side
    in `switches`, and the other side's file in `same_process`."""
    rec = json.loads(json.dumps(header))
    if name is not None:
        rec["switches"] = dict(rec.get("switches", {}), **{name: side})
        rec["same_process"] = os.path.basename(outs[1 - int(side)])
    return rec


def shares_text(records: list[dict]) -> list[str]:
    """One line per recording and head dim (`--shares FILES`: runs with switches set side by side): its switches,
    dense causal ms, and per window ours ms and share of the key-tile bound (rounds_tables.window_shares)."""
    out = []
    for rec in records:
        sw = ",".join(f"{k.removeprefix('FLASHVIZ_WS_')}={v}" for k, v in sorted(rec.get("switches", {}).items()))
        for d in sorted({r["d"] for r in rec["rows"]}):
            dense = next(r for r in rec["rows"] if r["d"] == d and r["window"] is None)
            cells = " ".join(f"w{s['window']} {s['ms']:.3f} ({s['share']:.3f})" for s in window_shares(rec, d))
            out.append(f"{sw or 'defaults'} d={d} dense {dense['ms']:.3f} | {cells}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shares", nargs="+", metavar="FILE",
                    help="print the windows' ms and shares of these recordings (no GPU) and stop")
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--n", type=int, default=16384)
    ap.add_argument("--windows", type=int, nargs="+", default=[128, 256, 512, 1024, 2048, 4096])
    ap.add_argument("--rounds", type=int, default=1,
                    help="time every run this many times, interleaved, and keep the median (ms_rounds: each)")
    ap.add_argument("--no-fa4", dest="fa4", action="store_false",
                    help="leave FlashAttention-4 out (the rounds then time ours alone, as the runs before it did)")
    ap.add_argument("--switch", metavar="ENV",
                    help="time ours with ENV=0 and ENV=1 in the same rounds (a switch read at each launch); FA4 off")
    ap.add_argument("--out", nargs="+", help="the record (JSON); with --switch two: OFF.json ON.json")
    args = ap.parse_args(argv)
    if args.shares:
        recs = []
        for f in args.shares:
            with open(f, encoding="utf-8") as fh:
                recs.append(json.load(fh))
        print("\n".join(shares_text(recs)))
        return
    if not args.out or len(args.out) != (2 if args.switch else 1):
        ap.error("--out takes one file (two with --switch: OFF.json ON.json), unless --shares")
    import torch
    import triton

    from flashviz_kernels import api
    from tools.tune_record import record_header, time_rounds
    header = record_header("window_fit", list(argv) if argv is not None else __import__("sys").argv[1:])
    sides = ["0", "1"] if args.switch else [None]
    records = {side: side_record(header, args.switch, side, args.out) for side in sides}
    for d in args.d:
        measure(d, args, sides, records, api, torch, triton, time_rounds)
    for side, out in zip(sides, args.out):
        with open(out, "w", encoding="utf-8") as f:
            json.dump(records[side], f, indent=1)


def measure(d: int, args, sides: list, records: dict, api, torch, triton, time_rounds) -> None:
    """One head dim: dense causal and each window, ours on each side of --switch (FA4 where it runs, without
    --switch), in the same interleaved rounds; each side's rows and fit go into its record."""
    from tools.tune_record import error_text
    b_, h_, n = records[sides[0]]["batch"], records[sides[0]]["heads"], args.n
    q, k, v = (torch.randn(b_, h_, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
    base, runs, first = [], {}, {}
    use_fa4 = args.fa4 and not args.switch
    fa4, why = fa4_runs(q, k, v, [None, *args.windows]) if use_fa4 else ({}, "--switch" if args.switch else "--no-fa4")
    if why:
        print(f"FA4 not timed: {why}")
        for rec in records.values():
            rec["fa4"] = why
    for w in [None, *args.windows]:
        kw = dict(causal=True) if w is None else dict(causal=True, window=(w, 0))
        plan = api.launch_plan(q, k, v, impl="fast", **kw)
        tiles, nq = key_tiles(n, plan.block_m, plan.block_n, w)
        call = lambda kw=kw: api.attention(q, k, v, impl="fast", **kw)  # noqa: E731
        for side in sides:
            runs[(side, w)] = with_env(call, args.switch, side)
        out = call()
        if w in fa4:
            try:
                first[w] = float((fa4[w]().float() - out.float()).abs().max())
                runs[("fa4", w)] = fa4[w]
            except Exception as e:        # noqa: BLE001 -- recorded in the row; ours is timed regardless
                first[w] = error_text(e)
        del out
        base.append(dict(d=d, n=n, window=w, kernel=plan.kernel, block_m=plan.block_m, block_n=plan.block_n,
                         tiles=tiles * b_ * h_, qtiles=nq * b_ * h_))
    torch.cuda.synchronize()
    times = time_rounds(runs, args.rounds, lambda f: triton.testing.do_bench(f, warmup=50, rep=300))
    for side in sides:                                # interleaved: a slow spell falls on every window alike
        rows = [dict(r) for r in base]
        for r in rows:
            t = times[(side, r["window"])]
            if isinstance(t, str):
                raise RuntimeError(f"window {r['window']}: {t}")
            r["ms_rounds"] = t
            r["ms"] = float(np.median(t))
            if r["window"] in first:
                r.update(fa4_fields(first[r["window"]], times.get(("fa4", r["window"]), "not timed")))
            print(r, flush=True)
        print_fit(d, rows, "" if side is None else f"{args.switch}={side}: ", records[side])


def print_fit(d: int, rows: list, label: str, record: dict) -> None:
    """The fit of one side's rows (dense causal first), printed with each window's share, and added to record."""
    dense, wins = rows[0], [r for r in rows[1:] if (r["block_m"], r["block_n"]) == (rows[1]["block_m"],
                                                                                  rows[1]["block_n"])]
    a, b = fit(wins)
    print(f"{label}d={d}: window {a * 1e6:.2f} ns per key tile + {b * 1e6:.2f} ns per query tile; dense causal "
          f"{dense['ms'] / dense['tiles'] * 1e6:.2f} ns per key tile ({dense['block_m']} x {dense['block_n']})")
    shares = {s["window"]: s for s in window_shares(dict(rows=rows), d)}
    for r in rows[1:]:
        s = shares[r["window"]]
        print(f"  window {r['window']}: dense causal / window {s['speedup']:.2f}, key-tile bound {s['bound']:.2f} "
              f"({s['share']:.3f} of it), query tiles' fixed cost {b * r['qtiles'] / r['ms']:.0%} of its time; "
              f"0.9 of the bound needs it at {fixed_budget(dense, r, a) * 1e6:.2f} ns per query tile or less")
        if "fa4_share" in s:
            print(f"    FA4: dense causal / window {s['fa4_speedup']:.2f} ({s['fa4_share']:.3f} of our tiles' "
                  f"bound); FA4 ms / ours {s['fa4_over_ours']:.3f}")
    record["rows"] += rows
    record.setdefault("fits", []).append(dict(d=d, ms_per_tile=a, ms_per_qtile=b,
                                              dense_ms_per_tile=dense["ms"] / dense["tiles"]))


if __name__ == "__main__":
    main()
