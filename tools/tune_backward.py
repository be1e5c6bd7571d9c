"""Time candidate tile configs of the backward kernels: `python -m tools.tune_backward` (from the repository root).

`--kind fused` times the 5-matmul backward (kernels/backward_fused.py) instead: every FUSED_CANDIDATES entry
next to the 7-matmul reference (its own pick), SDPA cuDNN's and SDPA flash's backward on the same inputs, in
one run; it ends with each candidate's geometric-mean ratio to cuDNN per head dim and can write every
number to --out (JSON). `--warm-only` just compiles (run several in parallel to fill triton's cache).
`--kind ws` does the same for the Gluon ws backward (kernels/ws_bwd.py, where kernels/gates.py verifies it): every
WS_CANDIDATES entry next to the fused backward's pick, the reference, SDPA cuDNN and SDPA flash. `--rounds R`
times all of them R times in rotated order and records each round (the median is the row's ms), for choices within
a single median's spread.

Forward once with the fast kernel, then triton.testing.do_bench (median) of the backward alone per
candidate (dkdv BLOCK_M, BLOCK_N, dq BLOCK_M, BLOCK_N, num_warps, num_stages), next to SDPA flash's
backward on the same inputs; each candidate's gradients are checked against SDPA's. Over several
N and both causal settings it ends with each candidate's geometric-mean ratio to flash, which is
how the reference's tiles (kernels/backward_table.py, REFERENCE_LAUNCHES) are picked (the winner must also be best
or near it in every row). `--variant window|docs|gqa` times the ws backward on a mask (tools/tune_backward_masks.py).
"""
import argparse
import functools
import json
import math
import statistics

import torch
import torch.nn.functional as F
import triton

from flashviz_kernels import api
from tools.tune_record import error_text, record_header, time_rounds

CANDIDATES = [(64, 128, 128, 64, 8, 2), (64, 128, 128, 64, 8, 3), (64, 128, 128, 64, 4, 2), (32, 64, 64, 32, 4, 3),
              (32, 128, 128, 32, 4, 2), (32, 128, 128, 32, 8, 2), (64, 64, 64, 64, 8, 2), (64, 64, 64, 64, 4, 3),
              (64, 128, 64, 64, 8, 2), (32, 128, 128, 64, 8, 2), (64, 64, 128, 64, 8, 2), (64, 128, 128, 32, 8, 2)]


def bench_one(d, n, causal, candidates):
    """{candidate: ratio vs flash (None if it failed)} for one shape; prints a line per candidate."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    shape = (4, 32, n, d)
    q, k, v, do = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(4))
    scale = 1 / math.sqrt(d)
    flops = 2.5 * 4 * 4 * 32 * n ** 2 * d * (0.5 if causal else 1)
    qs, ks, vs = (x.clone().requires_grad_() for x in (q, k, v))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal)
    ref = torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True)
    t_flash = triton.testing.do_bench(lambda: torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True),
                                      warmup=25, rep=200, return_mode="median")
    o, lse = api.attention_with_lse(q, k, v, causal=causal, impl="fast")
    print(f"d={d} N={n} causal={causal}: sdpa-flash bwd {t_flash:.3f} ms {flops / t_flash * 1e-9:.0f} TFLOP/s",
          flush=True)
    ratios = {}
    for cfg in candidates:
        run = functools.partial(api.attention_backward, q, k, v, o, lse, do, causal=causal, sm_scale=scale,
                                config=cfg)
        try:
            err = max((a.float() - b.float()).abs().max().item() for a, b in zip(run(), ref))
            ms = triton.testing.do_bench(run, warmup=25, rep=200, return_mode="median")
            ratios[cfg] = t_flash / ms if err < 0.05 else None
            print(f"  {cfg}: {ms:.3f} ms {flops / ms * 1e-9:.0f} TFLOP/s x{t_flash / ms:.2f} flash maxerr {err:.1e}",
                  flush=True)
        except Exception as e:  # noqa: BLE001
            ratios[cfg] = None
            print(f"  {cfg}: {type(e).__name__}: {str(e).splitlines()[0][:100]}", flush=True)
    return ratios


# (BLOCK_N, BLOCK_M, num_warps, num_stages, rotate) per head dim, for --kind fused
# (compiled for sm_90 with triton 3.6 on the CPU machine first, to drop tiles that spill most: at d=128 every
# tile spills some registers, as the reference's dK/dV kernel does; (64, 64, 8, 2) spills least)
FUSED_CANDIDATES = {64: [(128, 64, 8, 3, True), (128, 64, 8, 3, False), (64, 64, 4, 3, True), (64, 64, 8, 3, True)],
                    128: [(128, 64, 8, 2, True), (128, 64, 8, 2, False), (64, 64, 8, 2, True), (128, 32, 8, 2, True)]}


# (block_m, stages, dq_split, rotate, dq_mode) per head dim, for --kind ws: the backward table's launch first, then
# tiles that compiled for sm_90 under triton 3.6 (`python -m tools.compile_check --ws-bwd`); "split" adds each dQ
# element once per 128 keys by column-pair atomics, "split-scalar" times what its v2 pairs are worth, "tma" sends
# split's dQ piece by TMA reduce-add (32 KB more shared memory), "tma2" with two dS slots, "tma3" and two dQ staging
# buffers, "rows" as "tma2" with each consumer's piece half the rows (block_m 128), "frag" and "rows-frag" as "tma2"
# and "rows" with the piece staged in the accumulator's order (d 128 / d 64). A 7-tuple adds (stats_acc, early_dq),
# ws_bwd.backward's switches (a 5-tuple runs its defaults: lse and delta start the accumulators, EARLY_DQ);
# (..., False, False) is the schedule that held lse and delta in registers. An 8-tuple adds dq_first (dQ's MMAs before
# dK's, its piece sent while dK's runs: FlashAttention-3's order), a 9-tuple prefetch (lse and delta loaded a query
# block ahead: 1 into registers, 2 by the producer into the ring); a shorter tuple runs them off. A 10-tuple adds
# exp_mode (ws_bwd.EXP_MODES: how P^T's exponentials issue; "mufu" where the tuple stops), an 11-tuple mask_mode
# (ws_bwd.MASK_MODES: how masked blocks zero P^T; MASK_DEFAULT where the tuple stops), a 12-tuple next_s
# (ws_bwd.NEXT_MODES: 1 / 2 issue the next query block's S^T behind this block's dK / dQ; 0 where the tuple stops).
WS_CANDIDATES = {64: [(128, 2, 1, True, "rows-frag", True, False, False, 2),
                      *((128, 2, 1, True, "rows-frag", True, False, False, 2, e)
                        for e in ("late", "poly", "late-poly")),
                      (128, 2, 1, True, "rows-frag", True, False, False, 2, "mufu", "asm"),
                      *((128, 2, 1, True, "rows-frag", True, False, False, 2, e, "where", 1)
                        for e in ("mufu", "poly", "late")),
                      (128, 2, 1, True, "rows-frag", True, False, False, 2, "mufu", "where", 2),
                      (128, 2, 1, False, "rows-frag", True, False, False, 2),
                      (128, 2, 1, True, "rows-frag", True, False),
                      (128, 2, 1, True, "rows-frag", True, False, False, 1),
                      (128, 2, 1, True, "rows", True, False, False, 2), (128, 2, 1, True, "rows", True, False),
                      (128, 2, 1, True, "rows", True, False, False, 1),
                      (128, 2, 1, True, "rows-frag", True, True), (128, 2, 1, True, "rows-frag", True, False, True),
                      (128, 2, 1, True, "rows-frag", True, True, False, 2),
                      (128, 2, 1, True, "rows-frag", True, False, True, 2),
                      (128, 2, 1, True, "rows", True, True),
                      (128, 2, 1, True, "rows", True, False, True), (128, 2, 1, True, "rows", False, False),
                      (128, 2, 1, True, "tma2", True, False), (128, 2, 1, True, "tma2", True, False, True),
                      (128, 2, 1, True, "tma3", True, False, True), (128, 2, 1, True, "tma3", True, False),
                      (128, 2, 1, True, "tma2", True, True),
                      (64, 4, 1, True, "tma2", True, False), (64, 4, 1, True, "tma2", True, True),
                      (64, 3, 1, True, "tma2", True, False), (64, 3, 1, True, "tma2", False, False),
                      (64, 2, 1, True, "tma2"), (64, 3, 1, True, "tma"),
                      (64, 2, 1, True, "tma"), (64, 2, 1, True, "split"),
                      (64, 2, 1, True, "split-scalar"), (64, 3, 1, True, "split")],
                 128: [(64, 3, 1, True, "frag", True, False, False, 2),
                       *((64, 3, 1, True, "frag", True, False, False, 2, e) for e in ("late", "poly", "late-poly")),
                       (64, 3, 1, True, "frag", True, False, False, 2, "mufu", "asm"),
                       *((64, 3, 1, True, "frag", True, False, False, 2, "mufu", "where", n) for n in (1, 2)),
                       (64, 3, 1, False, "frag", True, False, False, 2),
                       (64, 3, 1, True, "frag", True, False),
                       (64, 3, 1, True, "frag", True, False, False, 1), (64, 3, 1, True, "frag", True, True),
                       (64, 3, 1, True, "frag", True, False, True), (64, 2, 1, True, "frag", True, False, False, 2),
                       (64, 3, 1, True, "frag", True, False, True, 2), (64, 3, 1, True, "frag", True, True, False, 2),
                       (64, 2, 1, True, "tma2", True, False, False, 2), (64, 2, 1, True, "tma2", True, False),
                       (64, 2, 1, True, "tma2", True, False, False, 1), (64, 3, 1, True, "tma2", True, False, False, 2),
                       (64, 2, 1, True, "tma2", True, False, True),
                       (64, 2, 1, True, "tma3", True, False, True), (64, 3, 1, True, "tma2", True, False, True),
                       (64, 2, 1, True, "tma3", True, False),
                       (64, 2, 1, True, "tma2", False, False),
                       (64, 2, 1, True, "tma2", True, True), (64, 3, 1, True, "tma2", True, False),
                       (64, 3, 1, True, "tma2", True, True), (64, 2, 1, True, "tma"), (64, 2, 1, True, "split"),
                       (64, 2, 2, True, "split"),
                       (64, 2, 1, True, "split-scalar"), (64, 3, 1, True, "split")]}


def candidate_name(kind, c):
    """"ws(64, 2, 1, True) split" for a ws candidate (the recorded files name the retired "partial" without its
    mode: "ws(64, 2, 1, True)"); fused candidates as their tuple."""
    if kind == "ws" and len(c) > 4:
        extra = "".join(f" {k}={int(v)}" for k, v in zip(("acc", "early", "first", "pre"), c[5:])
                        if v or k in ("acc", "early"))     # first, pre: named when on (backward_table.tune_name)
        exp = f" exp={c[9]}" if len(c) > 9 and c[9] != "mufu" else ""      # named when not the default
        mask = f" mask={c[10]}" if len(c) > 10 else ""
        nxt = f" next={c[11]}" if len(c) > 11 and c[11] else ""     # named when on
        return f"ws{tuple(c[:4])} {c[4]}" + extra + exp + mask + nxt
    return f"{kind}{tuple(c)}"


def switches(c) -> dict:
    """ws_bwd.backward's stats_acc, early_dq, dq_first, prefetch, exp_mode, mask_mode, next_s from a 7- to 12-tuple
    candidate (dq_first, prefetch and next_s off, exp_mode "mufu" where the tuple stops, so a name says what ran
    whatever the table's defaults or the environment's switches; {} for a 5-tuple: the table's launch)."""
    if len(c) <= 5:
        return {}
    return dict(dict(dq_first=False, prefetch=0, next_s=0),
                **dict(zip(("stats_acc", "early_dq", "dq_first", "prefetch", "exp_mode", "mask_mode", "next_s"),
                           c[5:])))


def _sdpa_bwd(q, k, v, do, causal, backend):
    """A function timing SDPA's backward alone (forward once, under the given backend), and its gradients."""
    from torch.nn.attention import sdpa_kernel
    qs, ks, vs = (x.clone().requires_grad_() for x in (q, k, v))
    with sdpa_kernel(backend):
        out = F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal)
    run = lambda: torch.autograd.grad(out, (qs, ks, vs), do, retain_graph=True)  # noqa: E731
    return run, run()


def bench_fused(d, n, causal, candidates, warm_only=False, rep=100, kind="fused", rounds=1):
    """Rows {name: {ms, tflops, maxerr}} for SDPA cuDNN, SDPA flash, the reference and every candidate of kind
    (fused; or ws, then with the fused backward's own pick too); rounds > 1 (time_rounds): ms is the median of the
    rounds, each kept under "rounds"."""
    from torch.nn.attention import SDPBackend
    shape = (4, 32, n, d) if not warm_only else (1, 2, 256, d)
    q, k, v, do = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(4))
    scale = 1 / math.sqrt(d)
    flops = 2.5 * 4 * shape[0] * shape[1] * shape[2] ** 2 * d * (0.5 if causal else 1)
    o, lse = api.attention_with_lse(q, k, v, causal=causal, impl="fast")
    if kind == "ws":
        from flashviz_kernels import ws_bwd
        runs = {candidate_name("ws", c): functools.partial(
                    ws_bwd.backward, q, k, v, o, lse, do, causal=causal, sm_scale=scale, block_m=c[0], stages=c[1],
                    dq_split=c[2], rotate=c[3], dq_mode=c[4], **switches(c))
                for c in candidates}
        c = candidates[0]                              # the default's time without its dQ adds: what they cost
        runs[candidate_name("ws", c) + " no dQ adds"] = functools.partial(
            ws_bwd.backward, q, k, v, o, lse, do, causal=causal, sm_scale=scale, block_m=c[0], stages=c[1],
            dq_split=c[2], rotate=c[3], dq_mode=c[4], dq_adds=False, **switches(c))
        runs["fused"] = functools.partial(api.attention_backward, q, k, v, o, lse, do, causal=causal,
                                          sm_scale=scale, kind="fused")
    else:
        runs = {candidate_name("fused", c): functools.partial(api.attention_backward, q, k, v, o, lse, do,
                                                              causal=causal, sm_scale=scale, config=tuple(c),
                                                              kind="fused")
                for c in candidates}
    runs["reference"] = functools.partial(api.attention_backward, q, k, v, o, lse, do, causal=causal,
                                          sm_scale=scale, kind="reference")
    if warm_only:
        for run in runs.values():
            run()
        torch.cuda.synchronize()
        return {}
    ref = None
    for name, backend in (("sdpa-cudnn", SDPBackend.CUDNN_ATTENTION), ("sdpa-flash", SDPBackend.FLASH_ATTENTION)):
        try:
            run, grads = _sdpa_bwd(q, k, v, do, causal, backend)
            ref = grads if ref is None else ref
            runs = {name: run, **runs}
        except RuntimeError as e:
            print(f"  {name}: {str(e).splitlines()[0][:100]}", flush=True)
    rows, errs = {}, {}
    for name, run in runs.items():                   # every gradient checked once, before any timing
        try:
            got = run()
            errs[name] = max((a.float() - b.float()).abs().max().item() for a, b in zip(got, ref)) if ref else None
        except Exception as e:  # noqa: BLE001
            rows[name] = dict(error=error_text(e))
            print(f"  {name}: {rows[name]['error']}", flush=True)
    times = time_rounds({k: runs[k] for k in errs}, rounds,
                        lambda f: triton.testing.do_bench(f, warmup=25, rep=rep, return_mode="median"))
    for name, err in errs.items():
        if isinstance(times[name], str):
            rows[name] = dict(error=times[name])
            print(f"  {name}: {rows[name]['error']}", flush=True)
            continue
        ms = statistics.median(times[name])
        rows[name] = dict(ms=ms, tflops=flops / ms * 1e-9, maxerr=err, **({"rounds": times[name]} if rounds > 1
                                                                             else {}))
        spread = f" (rounds {min(times[name]):.3f}-{max(times[name]):.3f})" if rounds > 1 else ""
        shown = "-" if err is None else f"{err:.1e}"
        print(f"  {name:<34} {ms:8.3f} ms {flops / ms * 1e-9:5.0f} TFLOP/s maxerr vs cuDNN {shown}{spread}", flush=True)
    return {name: rows[name] for name in runs}


def pick(kind: str, cands: list, names) -> list:
    """The candidates named (candidate_name, as the recorded files spell them), in the list's order; all of them
    where names is empty. A name no candidate has is a usage error (SystemExit), not an empty run."""
    if not names:
        return list(cands)
    known = {candidate_name(kind, c): c for c in cands}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"--only: no {kind} candidate named {unknown}; the names: {sorted(known)}")
    return [c for c in cands if candidate_name(kind, c) in names]


def main_fused(args):
    """Time fused (or ws) candidates vs reference, cuDNN, flash; print ratios; write --out."""
    record = record_header("tune_backward", args.argv)
    for d in args.d:
        cands = (WS_CANDIDATES if args.kind == "ws" else FUSED_CANDIDATES)[d]
        if args.kind == "ws" and args.dq_mode:
            cands = [c for c in cands if c[4] in args.dq_mode]
        cands = pick(args.kind, cands, args.only)       # the first one picked also runs without its dQ adds (ws)
        for n in args.n:
            for c in args.causal:
                print(f"d={d} N={n} causal={bool(c)}", flush=True)
                rows = bench_fused(d, n, bool(c), cands, args.warm_only, args.rep, args.kind, args.rounds)
                record["rows"].append(dict(d=d, n=n, causal=bool(c), impls=rows))
                torch.cuda.empty_cache()
        if args.warm_only:
            continue
        mine = [r for r in record["rows"] if r["d"] == d]
        print(f"\nd={d}: ratio to SDPA cuDNN's backward (geomean over N, causal), then per row")
        extra = ["fused"] if args.kind == "ws" else []
        for name in [candidate_name(args.kind, c) for c in cands] + extra + ["reference", "sdpa-flash"]:
            rs = [r["impls"]["sdpa-cudnn"]["ms"] / r["impls"][name]["ms"] if "ms" in r["impls"].get(name, {})
                  and "ms" in r["impls"].get("sdpa-cudnn", {}) else None for r in mine]
            gm = math.exp(sum(map(math.log, rs)) / len(rs)) if rs and all(rs) else 0.0
            print(f"  {name:<34} x{gm:.3f} cuDNN  " + " ".join("  -  " if x is None else f"{x:.2f}" for x in rs))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[128])
    ap.add_argument("--n", type=int, nargs="+", default=[8192])
    ap.add_argument("--causal", type=int, nargs="+", default=[0, 1], choices=[0, 1])
    ap.add_argument("--kind", choices=["reference", "fused", "ws"], default="reference")
    ap.add_argument("--warm-only", action="store_true", help="fused/ws: compile every candidate, time nothing")
    ap.add_argument("--rep", type=int, default=100, help="fused: do_bench rep budget (ms)")
    ap.add_argument("--out", help="fused: write every number to this JSON file")
    ap.add_argument("--rounds", type=int, default=1, help="fused/ws: time every run this many times, in rotated "
                    "order; ms is the median (each round is recorded)")
    ap.add_argument("--dq-mode", nargs="+",
                    choices=["split-scalar", "split", "tma", "tma2", "tma3", "rows", "frag", "rows-frag"],
                    help="ws: only the candidates of these dQ modes (ws_bwd.DQ_MODES)")
    ap.add_argument("--only", nargs="+", default=[], metavar="NAME",
                    help="fused/ws: only these candidates, by the name the recorded files give them, e.g. "
                         "\"ws(64, 3, 1, True) tma2 acc=1 early=0 pre=2\" (each candidate compiles for a while)")
    ap.add_argument("--variant", choices=["window", "docs", "gqa"],
                    help="ws: time a causal mask (kernels/tune_backward_masks.py) against the reference and flex")
    ap.add_argument("--window", type=int, default=1024, help="--variant window: its left side")
    ap.add_argument("--flex", action="store_true", help="--variant: FlexAttention's backward too (compiles)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds is at least 1, not {args.rounds}")
    args.argv = list(argv) if argv is not None else __import__("sys").argv[1:]
    if args.variant:
        from tools.tune_backward_masks import main_masks
        return main_masks(args, record_header("tune_backward", args.argv, variant=args.variant,
                                              window=args.window if args.variant == "window" else None))
    if args.kind in ("fused", "ws"):
        return main_fused(args)
    for d in args.d:
        rows = {(n, c): bench_one(d, n, bool(c), CANDIDATES) for n in args.n for c in args.causal}
        print(f"\nd={d}: ratio to SDPA flash's backward; columns " + " ".join(f"N{n}/c{c}" for n, c in rows))
        scored = []
        for cfg in CANDIDATES:
            rs = [r[cfg] for r in rows.values()]
            gm = math.exp(sum(map(math.log, rs)) / len(rs)) if all(rs) else 0.0
            scored.append((gm, cfg, rs))
        for gm, cfg, rs in sorted(scored, reverse=True):
            print(f"  {str(cfg):<28} geomean x{gm:.3f}  " + " ".join("  -  " if r is None else f"{r:.2f}" for r in rs))


if __name__ == "__main__":
    main()
