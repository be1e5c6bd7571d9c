"""One call of each implementation inside a cudaProfilerStart/Stop range, for Nsight Compute (GPU only, from the
repository root):

    ncu --target-processes all --clock-control none --profile-from-start off --set full -o /tmp/bwd \
        python3 -m tools.profile_calls fast,sdpa-cudnn,fa4 bwd 4096 128 0
    ncu -i /tmp/bwd.ncu-rep --page details --csv           # per kernel: cycles, stalls, spills, shared-memory use
    ncu -i /tmp/bwd.ncu-rep --page source --csv --print-source sass    # per SASS instruction: stall samples

Arguments: impls (comma-separated; "fa4" needs flash-attn-4), mode (fwd or bwd: the backward alone, its forward run
once before), N, d, causal (0/1); fp16, B = 4, H = 32, inputs as flashviz.bench makes them. Before the profiled range
each impl runs three times (compiles, autotunes) and is timed with triton.testing.do_bench, printed as ms and
TFLOP/s (the paper's count: 4 N^2 d per head, x2.5 for the backward, /2 causal). Its output is printed; the profile
behind the ws backward's loop trims is kept under assets/profiles/ (README.md there).
"""
import argparse

import torch
import triton

from flashviz.bench import measure


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("impls")
    ap.add_argument("mode", choices=["fwd", "bwd"])
    ap.add_argument("n", type=int)
    ap.add_argument("d", type=int)
    ap.add_argument("causal", type=int, choices=[0, 1])
    a = ap.parse_args(argv)
    cfg = dict(n=a.n, d=a.d, causal=bool(a.causal), dtype="float16", batch=4, heads=32, mode=a.mode)
    x = measure.make_inputs(cfg, 0, "cuda")
    flops = 4 * 4 * 32 * a.n * a.n * a.d * (0.5 if a.causal else 1.0) * (2.5 if a.mode == "bwd" else 1.0)
    fns = {}
    for impl in a.impls.split(","):
        fns[impl] = measure.any_runner(impl, x, cfg)
        for _ in range(3):
            fns[impl]()
        torch.cuda.synchronize()
        ms = triton.testing.do_bench(fns[impl], warmup=100, rep=500)
        print(f"{impl} {a.mode} N={a.n} d={a.d} causal={bool(a.causal)}: {ms:.3f} ms {flops / ms / 1e9:.0f} TFLOP/s",
              flush=True)
    torch.cuda.profiler.start()
    for fn in fns.values():
        fn()
        torch.cuda.synchronize()
    torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
