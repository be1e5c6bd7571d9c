"""Where the host's time goes in one short `fast` call: `python -m tools.host_breakdown [--d 64] [--causal 0]`
(GPU only, from the repository root).

tools/launch_overhead.py showed short calls are launch-bound (the host takes longer to enqueue a call than the GPU
takes to run it) and cProfile spread the cost thin. This times, without a profiler, the enqueue of each layer of
the call on its own: --calls back-to-back calls, then one sync, wall time per call (best of 5), at B=4, H=32, fp16.
Keep calls x launches per call well under the driver's launch queue (on the order of a thousand launches, not
measured here): past it a launch waits for the GPU and the figure turns into GPU time.
Forward: the api call (no autograd), ws.forward, and inside it the four TMA descriptors, the two output
allocations and the kernel launch alone. Backward: autograd.grad of a pass-through Python Function (what the
engine costs any Function), of a Function whose backward calls api.attention_backward, of ours on the calling thread
(set_multithreading_enabled(False): no device worker thread) and as it runs; then api.attention_backward,
ws_bwd.backward, and inside it row_stats (lse's patch and the delta pre-pass), the fp32 dQ buffer's zeros, the seven
descriptors and the kernel launch alone. Each layer's figure includes the ones below it. Printed, not recorded.
--torch-profile K then runs autograd.grad and api.attention_backward K times each under torch.profiler (CPU
activity) and prints the ops and functions that hold the host's time (self CPU): where autograd's extra time goes.
"""
import argparse
import importlib

import torch
import triton

import flashviz_kernels as fk
from flashviz_kernels import api, backward, ws, ws_bwd
from flashviz_kernels.numerics import LOG2E
from tools.launch_overhead import enqueue_us

CALLS = 40


def profile_table(fn, calls: int, top: int = 25) -> str:
    """torch.profiler's table (CPU activity, sorted by self CPU time) of `calls` runs of fn, after one warm-up run."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(calls):
            fn()
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=top)


def forward_parts(q, k, v, causal: bool) -> dict:
    scale = q.shape[3] ** -0.5
    bm, bn, w, st = ws.pick_config(q, k, causal=causal)
    mod = importlib.import_module("flashviz_kernels._ws_gluon")
    o, lse = ws.forward(q, k, v, causal=causal, sm_scale=scale, block_m=bm, block_n=bn, num_warps=w, num_stages=st)
    descs = ws.descriptors(q, k, v, o, 64, bn)
    b, h, n, d = q.shape
    pers = ws.persistent_default(d, causal)
    grid = (min(torch.cuda.get_device_properties(0).multi_processor_count, triton.cdiv(n, bm) * b * h),) if pers \
        else (1, triton.cdiv(n, bm), b * h)                       # (G, blocks, B*H / G): head by head
    creg, preg, maxnreg = ws.REGS[bm // 64]
    kw = dict(NC=bm // 64, M_WG=64, BN=bn, D=d, STAGES=st, CAUSAL=causal, WINDOW=False,
              OVERLAP=ws.overlap_default(d, causal, consumers=bm // 64, persistent=pers),
              PINGPONG=ws.pingpong_default(d, causal), PERSISTENT=pers, ALIBI=False, SEQ=False, CONSUMER_REGS=creg,
              PRODUCER_REGS=preg, HALF=False, num_warps=4, maxnreg=maxnreg)
    grp = ws.head_group(b * h, n, d, q.element_size(), causal) if pers else 1

    def launch():
        mod.ws_fwd[grid](*descs, lse, lse, lse, lse, scale * LOG2E, n, n, b * h, grp, -1, h, 1, 0, 0, 0, **kw)

    with torch.no_grad():
        return {
            "api attention (no autograd)": lambda: fk.attention(q, k, v, causal=causal),
            "ws.forward": lambda: ws.forward(q, k, v, causal=causal, sm_scale=scale, block_m=bm, block_n=bn,
                                             num_warps=w, num_stages=st),
            "  4 TMA descriptors": lambda: ws.descriptors(q, k, v, o, 64, bn),
            "  o, lse allocations": lambda: (torch.empty_like(q), torch.empty((b, h, n), dtype=torch.float32,
                                                                             device=q.device)),
            "  ws_fwd launch alone": launch,
        }


class _Pass(torch.autograd.Function):
    """o = q (a view-free copy), backward hands dO back: what the autograd engine costs a Python Function alone."""

    @staticmethod
    def forward(ctx, q):
        return q.clone()

    @staticmethod
    def backward(ctx, do):
        return do


class _ApiBackward(torch.autograd.Function):
    """o from a forward run beforehand; backward calls api.attention_backward: ours without _FlashFunction."""

    @staticmethod
    def forward(ctx, q, k, v, o, lse, causal):
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.causal = causal
        return o.clone()

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse = ctx.saved_tensors
        return (*api.attention_backward(q, k, v, o, lse, do, causal=ctx.causal, lock=False), None, None, None)


def _single_thread(fn):
    """fn with the autograd engine running the backward on the calling thread (no device worker thread)."""
    def run():
        with torch.autograd.set_multithreading_enabled(False):
            return fn()
    return run


def backward_parts(q, k, v, causal: bool) -> dict:
    scale = q.shape[3] ** -0.5
    qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))
    out = fk.attention(qg, kg, vg, causal=causal)
    do = torch.randn_like(out)
    with torch.no_grad():
        o, lse = fk.attention_with_lse(q, k, v, causal=causal)
    b, h, n, d = q.shape
    bm, st, split, rot, mode = ws_bwd.CONFIGS[d]
    tq = triton.cdiv(n, bm)
    shape = (b * h * tq * bm, d) if mode in ws_bwd.FRAG_TILES else (b * h * n, d)
    acc = torch.zeros(shape, dtype=torch.float32, device=q.device)
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    mod = importlib.import_module("flashviz_kernels._ws_bwd_gluon")
    lse2, delta = backward.row_stats(o, do, lse, None, d, lse_scale=LOG2E)
    descs = ws_bwd.descriptors(q, do, k, v, dk, dv, acc, bm, ws_bwd.dq_layout(mode))
    creg, preg, maxnreg = ws_bwd.REGS
    kw = dict(BM=bm, D=d, STAGES=st, CAUSAL=causal, DQ_SPLIT=split, ROTATE=rot, CONSUMER_REGS=creg,
              PRODUCER_REGS=preg, DQ_MODE=ws_bwd.DQ_MODES[mode], STATS_ACC=True,
              EARLY_DQ=ws_bwd.early_dq_on(d, mode, None) and not ws_bwd.DQ_FIRST[d], TABLE=False, GQA=False,
              DQ_FIRST=bool(ws_bwd.DQ_FIRST[d]), PREFETCH=ws_bwd.prefetch_for(d, mode, None), num_warps=4,
              maxnreg=maxnreg)

    def launch():
        mod.ws_bwd[(1, triton.cdiv(n, ws_bwd.BLOCK_N), b * h)](   # (G, key blocks, B*H / G): head by head
            *descs[:-1], acc, lse2, delta, scale * LOG2E, 1.0 / (scale * LOG2E), scale, n, n, n, descs[-1],
            lse2, lse2, 0, 0, h, 1, **kw)

    qp = q.detach().requires_grad_()
    passed = _Pass.apply(qp)
    via_api = _ApiBackward.apply(qg, kg, vg, o, lse, causal)
    return {
        "autograd.grad, a Function calling the api": lambda: torch.autograd.grad(via_api, (qg, kg, vg), do,
                                                                                 retain_graph=True),
        "autograd.grad, on the calling thread": _single_thread(
            lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)),
        "autograd.grad, a pass-through Function": lambda: torch.autograd.grad(passed, (qp,), do, retain_graph=True),
        "autograd.grad": lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True),
        "api attention_backward": lambda: api.attention_backward(q, k, v, o, lse, do, causal=causal),
        "ws_bwd.backward": lambda: ws_bwd.backward(q, k, v, o, lse, do, causal=causal, sm_scale=scale),
        "  row_stats (lse patch + delta)": lambda: backward.row_stats(o, do, lse, None, d, lse_scale=LOG2E),
        "  fp32 dQ buffer zeros": lambda: torch.zeros(shape, dtype=torch.float32, device=q.device),
        "  7 TMA descriptors": lambda: ws_bwd.descriptors(q, do, k, v, dk, dv, acc, bm, ws_bwd.dq_layout(mode)),
        "  ws_bwd launch alone": launch,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--causal", type=int, nargs="+", default=[0, 1], choices=[0, 1])
    ap.add_argument("--calls", type=int, default=CALLS)
    ap.add_argument("--torch-profile", type=int, default=0, metavar="K",
                    help="then K calls of autograd.grad and of api.attention_backward under torch.profiler")
    args = ap.parse_args(argv)
    print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}, triton {triton.__version__}; "
          f"host enqueue per call, best of 5 x {args.calls} calls (us)")
    for d in args.d:
        for causal in map(bool, args.causal):
            q, k, v = (torch.randn(4, 32, args.n, d, device="cuda", dtype=torch.float16) for _ in range(3))
            print(f"N={args.n} d={d} causal={causal}  plan: {api.launch_plan(q, k, v, causal=causal)}, "
                  f"backward: {api.backward_plan(q, k, v, causal=causal)}")
            for parts in (forward_parts(q, k, v, causal), backward_parts(q, k, v, causal)):
                for name, fn in parts.items():
                    try:
                        print(f"  {name:42s} {enqueue_us(fn, args.calls, repeat=5):8.1f}")
                    except Exception as e:                   # report and go on
                        print(f"  {name:42s} {type(e).__name__}: {str(e).splitlines()[0][:100]}")
            if args.torch_profile:
                for name in ("autograd.grad", "api attention_backward"):
                    print(f"\n{name}, {args.torch_profile} calls under torch.profiler:")
                    print(profile_table(parts[name], args.torch_profile))


if __name__ == "__main__":
    main()
