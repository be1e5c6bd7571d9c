"""Time the ws (Gluon) kernel's schedules on the GPU at hand: `python -m flashviz_kernels.tune_ws`.

For each (head dim, causal) and N it times every candidate (block_n, num_stages, OVERLAP, PINGPONG) with
triton.testing.do_bench (median), checks each against SDPA (max abs error printed), and prints them next to
the tl fast kernel (fast.CONFIGS, pinned so it cannot dispatch to ws) and SDPA cuDNN timed in the same run.
Winners go into ws.CONFIGS and the measured-faster cells into ws.FAST_USES_WS by hand, with the output kept.
"""
import argparse
import itertools

import torch
import torch.nn.functional as F
import triton

from . import api, fast, ws


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--n", type=int, nargs="+", default=[8192])
    ap.add_argument("--causal", choices=("off", "on", "both"), default="both")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--rep", type=int, default=100, help="do_bench rep budget (ms)")
    ap.add_argument("--variants", default="short", choices=("all", "short", "default"))
    args = ap.parse_args(argv)
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
        if args.variants == "default":
            cands = [(ws.CONFIGS[(d, causal)][1:])]
        elif args.variants == "short":                 # each schedule switch alone, then the other tile
            cands = [(128, 2, False, False), (128, 2, True, False), (128, 2, False, True), (128, 2, True, True),
                     (64, 3, True, True)] + ([(128, 3, True, True), (128, 3, False, False)] if d == 64 else [])
        else:
            cands = list(itertools.product((64, 128), (2, 3), (False, True), (False, True)))
            if d == 128:
                cands = [c for c in cands if not (c[0] == 128 and c[1] == 3)]     # 228 KB of shared memory
        for bn_, st, ov, pp in cands:
            try:
                fn = lambda: ws.forward(q, k, v, causal=causal, sm_scale=scale, block_m=128,  # noqa: E731
                                        block_n=bn_, num_warps=4, num_stages=st, overlap=ov, pingpong=pp)
                err = (fn()[0].float() - ref.float()).abs().max().item()
                ms = bench(fn)
                print(f"  ws bn={bn_} stages={st} overlap={int(ov)} pingpong={int(pp)}: {ms:.3f} ms "
                      f"{tf(ms):.0f} TFLOP/s x{t_cudnn / ms:.3f} cudnn x{t_fast / ms:.3f} fast  maxerr {err:.1e}")
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"  ws bn={bn_} stages={st} overlap={ov} pingpong={pp}: {type(e).__name__}: "
                      f"{str(e).splitlines()[0][:120]}")
        del q, k, v, ref
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
