"""Where the time goes for short calls: `python -m tools.launch_overhead [--mode bwd] [--profile 200]` (GPU only,
from the repository root).

For each implementation it prints three numbers at B=4, H=32, fp16, with the calls flashviz.bench times
(measure.runner; FA4 through peers.fa4_runner where flash-attn-4 is installed):
  per-call  triton.testing.do_bench median, one call per timing, L2 cleared before each (what
            flashviz.bench records as ms): host launch cost leaks in when it exceeds the GPU work
  graph     the same calls replayed from a CUDA graph (graph_timing.replay_times, what it records as graph_ms):
            GPU time alone
  enqueue   wall time per call of 200 back-to-back calls without a sync: the host's cost
When enqueue >= graph the implementation is launch-bound at that size and per-call timings understate its kernel
(on the H200: N = 1024, not from N = 4096; why the recorded datasets carry graph_ms beside ms; the forward table
decides below N = 4096 by graph_ms). --profile K then runs `fast` K more times under cProfile and prints the
functions that hold the host's time (tottime and cumulative). Its output is printed, not recorded.
"""
import argparse
import cProfile
import io
import pstats
import time

import torch
import triton

from flashviz.bench import graph_timing, measure, peers

CALLS = 200


def _fns(x: dict, cfg: dict) -> dict:
    fns = {impl: measure.runner(impl, x, cfg, {}) for impl in ("fast", "sdpa-cudnn", "sdpa-flash")}
    try:
        fns["fa4"] = peers.fa4_runner(x, cfg)
    except Exception as e:                                   # not installed, or not this GPU: say so, go on
        print(f"  fa4 not run: {type(e).__name__}: {str(e)[:120]}")
    return fns


def enqueue_us(fn, calls: int = CALLS, repeat: int = 1) -> float:
    """Best over `repeat` of the wall time per call of `calls` back-to-back calls (one sync after them), after one
    warm-up call: the host's cost of enqueueing fn (tools/host_breakdown.py times each layer of a call with it)."""
    fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        best = min(best, (t1 - t0) / calls * 1e6)
    return best


def _profile(fn, calls: int, top: int = 28) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    torch.cuda.synchronize()
    out = io.StringIO()
    for key in ("tottime", "cumulative"):
        pstats.Stats(prof, stream=out).sort_stats(key).print_stats(top)
    return out.getvalue()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--causal", type=int, nargs="+", default=[0, 1], choices=[0, 1])
    ap.add_argument("--mode", choices=["fwd", "bwd", "fwd+bwd"], default="fwd")
    ap.add_argument("--profile", type=int, default=0, metavar="K", help="then K calls of fast under cProfile")
    args = ap.parse_args(argv)
    for n in args.n:
        for d in args.d:
            for causal in map(bool, args.causal):
                cfg = dict(n=n, d=d, causal=causal, dtype="float16", batch=4, heads=32, mode=args.mode)
                x = measure.make_inputs(cfg, 0, "cuda")
                flops = 4 * 4 * 32 * n * n * d * (0.5 if causal else 1) * {"fwd": 1, "bwd": 2.5, "fwd+bwd": 3.5}[
                    args.mode]
                print(f"N={n} d={d} causal={causal} {args.mode}", flush=True)
                fns = _fns(x, cfg)
                for name, fn in fns.items():
                    fn()
                    torch.cuda.synchronize()
                    per_call = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
                    enqueue = enqueue_us(fn, CALLS)
                    times = sorted(graph_timing.replay_times(fn, 50.0))
                    graph = times[len(times) // 2]
                    tf = lambda ms: flops / ms * 1e-9  # noqa: E731
                    bound = "  launch-bound" if enqueue >= graph * 1e3 else ""
                    print(f"  {name:<11} per-call {per_call * 1e3:8.1f} us {tf(per_call):4.0f} TFLOP/s   graph "
                          f"{graph * 1e3:8.1f} us {tf(graph):4.0f} TFLOP/s   enqueue {enqueue:6.1f} us{bound}",
                          flush=True)
                if args.profile:
                    print(_profile(fns["fast"], args.profile), flush=True)
                del x, fns
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
