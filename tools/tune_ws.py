"""Time the ws (Gluon) kernel's schedules on the GPU at hand: `python -m tools.tune_ws` (from the repository root).

For each (head dim, causal) and N it times every candidate (block_n, num_stages, OVERLAP, PINGPONG) with
triton.testing.do_bench (median), checks each against SDPA (max abs error printed), and prints them next to
the tl fast kernel (its tiles from the forward table, pinned so it cannot dispatch to ws) and SDPA cuDNN timed in
the same run.
--persistent both times each candidate one tile per program and persistent (--groups: the causal head groups
to try, "auto" = ws.head_group), --rounds repeats the candidates interleaved (to see the run-to-run spread),
and a summary per cell ends the output (--json writes it too). --consumers runs each candidate with 2 and/or 3
consumer warpgroups (block_m 128 / 192); --variants consumers times NC=2 at the forward table's switches against
NC=3 at NC3_CANDIDATES (the summary gives each NC=3 row's ms over the fastest NC=2 of its cell and schedule);
--variants wide the table's row against 128 x 256 tiles (WIDE_CANDIDATES, d = 64).
A winner becomes a row of kernels/forward_table.py (WS_LAUNCHES, or ROUTES for where fast runs ws) whose claim
names the --json file kept under assets/benchmarks/tune/; tests/kernels/test_dispatch_evidence.py checks it there.
"""
import argparse
import itertools
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import triton

from flashviz_kernels import api, fast, ws
from tools.tune_record import driver

# d -> NC=3 (block_n, stages, OVERLAP, PINGPONG) for --variants consumers. OVERLAP only at bn=64: at 160 registers
# per consumer bn=128 spills with it (ptxas, triton 3.6: 0.8-1.2 KB at d=64). d=128 only at bn=64: bn=128 spills.
NC3_CANDIDATES = {64: [(128, 2, False, False), (128, 2, False, True), (128, 3, False, False), (128, 3, False, True),
                       (64, 3, False, False), (64, 3, True, True)],
                  128: [(64, 2, False, False), (64, 2, False, True), (64, 3, False, False)]}
# d -> (NC, (block_n, stages, OVERLAP, PINGPONG)) for --variants overlap: the table's schedule against FA3's
# intra-warpgroup overlap (split K/V barriers, P converted right after its softmax), with 2 and 3 stages; at d=64
# also FA4's sm90 mix (192 x 128, 2 stages, overlap, pingpong over the three warpgroups: flash_attn/cute/interface.py)
OVERLAP_CANDIDATES = {64: [(3, (128, 3, False, False)), (3, (128, 3, True, False)), (3, (128, 3, True, True)),
                           (3, (128, 2, True, True)), (2, (128, 3, True, True)), (2, (128, 3, True, False))],
                      128: [(2, (128, 2, False, True)), (2, (128, 2, False, False)), (2, (128, 2, True, True)),
                            (2, (128, 2, True, False)), (2, (128, 3, True, True)), (2, (128, 3, True, False)),
                            (2, (128, 3, False, True))]}

# d -> (NC, (block_n, stages, OVERLAP, PINGPONG)) for --variants wide: 128 x 256 tiles (ws.WIDE_BN; d = 64 only,
# without OVERLAP: ws_schedule's comment says why) against the table's own row, timed first in each cell
WIDE_CANDIDATES = {64: [(2, (256, 2, False, True)), (2, (256, 3, False, True)), (2, (256, 2, False, False)),
                        (2, (256, 3, False, False))]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--n", type=int, nargs="+", default=[8192])
    ap.add_argument("--causal", choices=("off", "on", "both"), default="both")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--rep", type=int, default=100, help="do_bench rep budget (ms)")
    ap.add_argument("--variants", default="short", choices=("all", "short", "default", "consumers", "overlap", "wide"))
    ap.add_argument("--consumers", default=["config"], nargs="+", choices=("config", "2", "3"),
                    help="consumer warpgroups per candidate: the table's (or the env switch), 2, 3 (not with "
                         "--variants consumers, which picks its own)")
    ap.add_argument("--persistent", default="config", choices=("config", "off", "on", "both"),
                    help="PERSISTENT per candidate: the table's (or the env switch), off, on, or each both ways")
    ap.add_argument("--groups", nargs="+", default=["auto"], help="causal persistent head groups: auto or ints")
    ap.add_argument("--rounds", type=int, default=1, help="time every candidate this many times, interleaved")
    ap.add_argument("--json", default=None, help="also write the summary rows to this file")
    args = ap.parse_args(argv)
    argv = list(sys.argv[1:] if argv is None else argv)
    summary = []
    print("ws status:", ws.status())
    dtype = getattr(torch, args.dtype)
    causals = {"off": (False,), "on": (True,), "both": (False, True)}[args.causal]
    torch.manual_seed(0)
    bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=args.rep, return_mode="median")  # noqa: E731
    for n, d, causal in itertools.product(args.n, args.d, causals):
        shape = (args.batch, args.heads, n, d)
        q, k, v = (torch.randn(shape, device="cuda", dtype=dtype) for _ in range(3))
        scale = d ** -0.5
        flops = 4 * args.batch * args.heads * n ** 2 * d * (0.5 if causal else 1.0)
        tf = lambda ms: flops / ms * 1e-9  # noqa: E731
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            t_cudnn = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
        bm, bn, w, s = fast.pick_config(q, k, causal=causal)
        t_fast = bench(lambda: api.attention(q, k, v, causal=causal, impl="fast", block_m=bm, block_n=bn,
                                             num_warps=w, num_stages=s))
        print(f"\nN={n} d={d} causal={causal} B={args.batch} H={args.heads} {args.dtype}: cudnn "
              f"{tf(t_cudnn):.0f} TFLOP/s, fast(tl) {tf(t_fast):.0f} (x{t_cudnn / t_fast:.3f} cudnn)")
        ncs = [ws.consumers_default(d, causal) if c == "config" else int(c) for c in args.consumers]
        if args.variants == "consumers":               # (nc, candidate): NC=2 as configured against NC=3's tiles
            cands = [(2, ws.CONFIGS[(d, causal)][1:5])] + [(3, c) for c in NC3_CANDIDATES.get(d, [])]
        elif args.variants == "overlap":
            cands = OVERLAP_CANDIDATES[d]
        elif args.variants == "wide":                  # the table's row, then the wide tiles (none at d = 128)
            cands = [(ws.consumers_default(d, causal), ws.CONFIGS[(d, causal)][1:5])] + WIDE_CANDIDATES.get(d, [])
        elif args.variants == "default":
            cands = [ws.CONFIGS[(d, causal)][1:5]]
        elif args.variants == "short":                 # each schedule switch alone, then the other tile
            cands = [(128, 2, False, False), (128, 2, True, False), (128, 2, False, True), (128, 2, True, True),
                     (64, 3, True, True)] + ([(128, 3, True, True), (128, 3, False, False)] if d == 64 else [])
        else:
            cands = list(itertools.product((64, 128), (2, 3), (False, True), (False, True)))
            if d == 128:
                cands = [c for c in cands if not (c[0] == 128 and c[1] == 3)]     # 228 KB of shared memory
        if args.variants not in ("consumers", "overlap", "wide"):
            cands = [(nc, c) for nc in ncs for c in cands]
        pers = {"config": (None,), "off": (False,), "on": (True,), "both": (False, True)}[args.persistent]
        runs = []                                      # (label, launch) per candidate x schedule x head group
        for (nc, (bn_, st, ov, pp)), pe in itertools.product(cands, pers):
            groups = [None] if not (pe and causal) else [None if g == "auto" else int(g) for g in args.groups]
            for grp in groups:
                label = (f"NC={nc} bn={bn_} stages={st} overlap={int(ov)} pingpong={int(pp)} "
                         f"persistent={'cfg' if pe is None else int(pe)}" + (f" groups={grp}" if grp else ""))
                fn = (lambda nc=nc, bn_=bn_, st=st, ov=ov, pp=pp, pe=pe, grp=grp: ws.forward(  # noqa: E731
                    q, k, v, causal=causal, sm_scale=scale, block_m=64 * nc, block_n=bn_, num_warps=4,
                    num_stages=st, overlap=ov, pingpong=pp, persistent=pe, groups=grp))
                runs.append((label, fn, dict(consumers=nc, block_n=bn_, stages=st, overlap=ov, pingpong=pp,
                                             persistent=pe, groups=grp)))
        times = {label: [] for label, _, _ in runs}
        for rnd in range(args.rounds):
            for label, fn, _ in runs:
                try:
                    err = (fn()[0].float() - ref.float()).abs().max().item()
                    ms = bench(fn)
                    times[label].append(ms)
                    print(f"  ws {label}: {ms:.3f} ms {tf(ms):.0f} TFLOP/s x{t_cudnn / ms:.3f} cudnn "
                          f"x{t_fast / ms:.3f} fast  maxerr {err:.1e}" + (f"  (round {rnd + 1})" if rnd else ""))
                except Exception as e:  # noqa: BLE001 - report and go on
                    print(f"  ws {label}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
        for label, _, cfg in runs:
            if times[label]:
                ms = statistics.median(times[label])
                summary.append(dict(n=n, d=d, causal=causal, ms=ms, ms_all=times[label], cudnn_ms=t_cudnn,
                                    fast_ms=t_fast, **cfg))
        del q, k, v, ref
        torch.cuda.empty_cache()
        if args.json:                                  # after every cell: a run cut short keeps what it timed
            with open(args.json, "w") as f:
                json.dump(dict(status=ws.status(), argv=argv, command="python -m tools.tune_ws " +
                               " ".join(argv), device=torch.cuda.get_device_name(0), torch=torch.__version__,
                               driver=driver(), git_commit=os.environ.get("FLASHVIZ_GIT_COMMIT"),
                               date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), rows=summary), f, indent=1)
    report(summary)


def report(rows):
    """Per cell: each schedule's median ms against cuDNN, persistent / one-tile for the same switches, and NC=3
    against the fastest NC=2 of the same cell and schedule."""
    print("\nsummary (median ms over rounds; x = cuDNN ms / ws ms; pers/one = persistent ms / one-tile ms; "
          "nc3/nc2 = this NC=3 ms / the fastest NC=2 ms, same schedule)")
    key = ("n", "d", "causal", "block_n", "stages", "overlap", "pingpong")
    for row in rows:
        nc = row.get("consumers", 2)
        same = [r for r in rows if all(r[x] == row[x] for x in key) and r.get("consumers", 2) == nc]
        one = [r["ms"] for r in same if r["persistent"] is False]
        ratio = f"  pers/one {row['ms'] / one[0]:.3f}" if row["persistent"] and one else ""
        two = [r["ms"] for r in rows if r.get("consumers", 2) == 2 and all(r[x] == row[x] for x in ("n", "d", "causal"))
               and r["persistent"] == row["persistent"] and r["groups"] == row["groups"]]
        ratio += f"  nc3/nc2 {row['ms'] / min(two):.3f}" if nc == 3 and two else ""
        grp = f" grp={row['groups'] or 'auto'}" if row["persistent"] and row["causal"] else ""
        spread = f" [{min(row['ms_all']):.3f}-{max(row['ms_all']):.3f}]" if len(row["ms_all"]) > 1 else ""
        print(f"  N={row['n']:>6} d={row['d']:>3} causal={int(row['causal'])} NC={nc} bn={row['block_n']} "
              f"st={row['stages']} ov={int(row['overlap'])} pp={int(row['pingpong'])} "
              f"pers={row['persistent']}{grp}: {row['ms']:.3f} ms{spread} "
              f"x{row['cudnn_ms'] / row['ms']:.3f} cudnn x{row['fast_ms'] / row['ms']:.3f} fast{ratio}")


if __name__ == "__main__":
    main()
