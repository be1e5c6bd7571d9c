"""Pick the fast kernel's tile shapes on the GPU at hand: `python -m tools.tune_fast` (from the repository root).

For each (head dim, causal) it times every candidate (BLOCK_M, BLOCK_N, num_warps, num_stages)
with triton.testing.do_bench (median) at B=4, H=32, N=8192, fp16, checks each against SDPA, and
prints the best next to SDPA's flash and cuDNN backends measured in the same run. A winner becomes a row of
kernels/forward_table.py (TL_LAUNCHES) whose claim names the output kept under assets/benchmarks/tune/.
"""
import argparse
import contextlib
import itertools
import os
import statistics
import sys

import torch
import torch.nn.functional as F
import triton

from flashviz_kernels import api, ws
from tools.tune_record import error_text, text_header, time_rounds


def _sdpa_ms(q, k, v, causal, backend):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    b = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    with sdpa_kernel(b):
        return triton.testing.do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                       warmup=50, rep=200, return_mode="median")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--quick", action="store_true", help="fewer candidates")
    ap.add_argument("--window", type=int, default=None,
                    help="time a causal sliding window (left = WINDOW, right = 0) instead, against dense causal")
    ap.add_argument("--alibi", action="store_true",
                    help="time causal ALiBi (geometric slopes; with --window too) instead, against dense causal")
    ap.add_argument("--docs", action="store_true",
                    help="time causal packed documents (lengths N/4, N/8, N/2 and the rest, as the variants bench; "
                         "with --window / --alibi too) instead, against dense causal")
    ap.add_argument("--ws-only", action="store_true", help="with --window/--alibi/--docs: the ws schedules only")
    ap.add_argument("--rounds", type=int, default=1,
                    help="with --window/--alibi/--docs: time every run this many times, interleaved, and print the "
                         "median (and the rounds' range)")
    args = ap.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    if args.window is not None or args.alibi or args.docs:
        return tune_window(args, dtype)
    for d, causal in itertools.product(args.d, (False, True)):
        shape = (args.batch, args.heads, args.n, d)
        q, k, v = (torch.randn(shape, device="cuda", dtype=dtype) for _ in range(3))
        flops = 4 * args.batch * args.heads * args.n ** 2 * d * (0.5 if causal else 1.0)
        tflops = lambda ms: flops / ms * 1e-9  # noqa: E731
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        t_flash, t_cudnn = _sdpa_ms(q, k, v, causal, "flash"), _sdpa_ms(q, k, v, causal, "cudnn")
        results = []
        bms, bns = ((128,), (64, 128)) if args.quick else ((64, 128), (32, 64, 128))
        for bm, bn, w, s in itertools.product(bms, bns, (4, 8), (2, 3, 4)):
            if (bm == 64 and w == 8) or (d >= 256 and bn == 128):
                continue
            cfg = (bm, bn, w, s)
            try:
                fwd = lambda: api.attention(q, k, v, causal=causal, impl="fast", block_m=bm,  # noqa: E731
                                            block_n=bn, num_warps=w, num_stages=s)
                err = (fwd().float() - ref.float()).abs().max().item()
                ms = triton.testing.do_bench(fwd, warmup=25, rep=100, return_mode="median")
                results.append((ms, cfg, err))
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"  d={d} causal={causal} {cfg}: {type(e).__name__}: {str(e).splitlines()[0][:90]}")
        t_teach = triton.testing.do_bench(lambda: api.attention(q, k, v, causal=causal, impl="teaching"),
                                          warmup=25, rep=100, return_mode="median")
        results.sort()
        print(f"\nd={d} causal={causal} N={args.n} B={args.batch} H={args.heads} {args.dtype}: "
              f"sdpa-flash {tflops(t_flash):.0f} TFLOP/s, sdpa-cudnn {tflops(t_cudnn):.0f} TFLOP/s, "
              f"teaching {tflops(t_teach):.0f} TFLOP/s (x{t_cudnn / t_teach:.2f} cudnn)")
        for ms, cfg, err in results[:6]:
            print(f"  {cfg}: {ms:.3f} ms {tflops(ms):.0f} TFLOP/s  x{t_cudnn / ms:.2f} cudnn  "
                  f"x{t_flash / ms:.2f} flash  maxerr {err:.1e}")
        del q, k, v, ref
        torch.cuda.empty_cache()


WINDOW_CANDIDATES = ((128, 64, 4, 2), (128, 64, 4, 3), (128, 64, 8, 2), (128, 128, 4, 2), (128, 128, 8, 2),
                     (128, 128, 8, 3), (64, 64, 4, 3), (64, 128, 4, 2), (128, 32, 4, 3))


@contextlib.contextmanager
def _switches(env: dict):
    """The ws environment switches `env` set for one run, then restored."""
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for key, val in saved.items():
            if val is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = val


def _timed(bench, f, env: dict) -> float:
    """bench(f) with the ws environment switches `env` set (a ws schedule's run)."""
    with _switches(env):
        return bench(f)


def tune_window(args, dtype):
    """Tiles for a causal variant (a sliding window, ALiBi and/or packed documents): each tl candidate's time, the
    ws kernel's (as impl="ws" picks it: the forward table's schedule for the variant; then one tile per
    program vs persistent, two vs three consumers, OVERLAP, PINGPONG and HALF off / on by ws's env switches, and
    HALF with PINGPONG where the launch would carry instead: HALF runs only without CARRY) and dense causal over
    each. Recordings before 2026-12-01 evening call the first ws line "ws CONFIGS"."""
    bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=100, return_mode="median")  # noqa: E731
    print(text_header("tune_fast", args.argv))
    for d in args.d:
        shape = (args.batch, args.heads, args.n, d)
        q, k, v = (torch.randn(shape, device="cuda", dtype=dtype) for _ in range(3))
        var = dict(causal=True)
        if args.window is not None:
            var["window"] = (args.window, 0)
        if args.alibi:                                # ALiBi's geometric slopes 2^(-8 h / H)
            var["alibi_slopes"] = 2.0 ** (-8.0 * torch.arange(1, args.heads + 1, device="cuda") / args.heads)
        if args.docs:                                 # one (B, N) tensor for every call: its tables built once
            n = args.n
            lens = [x for x in (n // 4, n // 8, n // 2, n - n // 4 - n // 8 - n // 2) if x > 0]
            ids = torch.repeat_interleave(torch.arange(len(lens)), torch.tensor(lens)).to("cuda")
            var["seq_ids"] = ids[None].expand(args.batch, -1).contiguous()
        what = " ".join(f"window {var['window']}" if key == "window" else "docs" if key == "seq_ids" else "alibi"
                        for key in var if key != "causal")
        t_tl = bench(lambda: api.attention(q, k, v, causal=True, impl="fast", num_warps=4))   # pinned: tl kernel
        t_dense = bench(lambda: api.attention(q, k, v, causal=True, impl="fast"))             # dispatch
        ref = api.attention(q, k, v, **var, impl="fast", block_m=64, block_n=64)
        print(f"\nd={d} N={args.n} {what} B={args.batch} H={args.heads} {args.dtype}: dense causal "
              f"{t_dense:.3f} ms (impl fast as dispatched), {t_tl:.3f} ms (tl kernel, its tiles)")
        runs = [(f"tl {c}", dict(impl="fast", block_m=c[0], block_n=c[1], num_warps=c[2], num_stages=c[3]))
                for c in WINDOW_CANDIDATES if not (d >= 256 and c[1] == 128) and not args.ws_only]
        runs += [("ws as picked", dict(impl="ws")), ("fast dispatched", dict(impl="fast"))]
        runs += [(f"ws persistent={p} NC={nc}", dict(impl="ws", env={ws.PERSISTENT_ENV: p, ws.CONSUMERS_ENV: nc}))
                 for p in ("0", "1") for nc in (("2", "3") if d == 64 else ("2",))]
        runs += [(f"ws overlap={o}", dict(impl="ws", env={ws.OVERLAP_ENV: o})) for o in ("0", "1")]
        runs += [(f"ws pingpong={p}", dict(impl="ws", env={ws.PINGPONG_ENV: p})) for p in ("0", "1")]
        runs += [(f"ws half={h}", dict(impl="ws", env={ws.HALF_ENV: h})) for h in ("0", "1")]
        if not ws.pingpong_default(d, True, window=args.window is not None, docs=args.docs):    # HALF needs no
            runs += [("ws pingpong=1 half=1", dict(impl="ws", env={ws.PINGPONG_ENV: "1", ws.HALF_ENV: "1"}))]  # CARRY
        calls, errs = {}, {}
        for name, kw in runs:                         # each run once, against the 64 x 64 tl reference
            call = {key: val for key, val in kw.items() if key != "env"}
            f = lambda call=call: api.attention(q, k, v, **var, **call)  # noqa: E731,B023 (timed in this loop)
            try:
                with _switches(kw.get("env", {})):
                    errs[name] = (f().float() - ref.float()).abs().max().item()
                calls[name] = (f, kw.get("env", {}))
            except Exception as e:  # noqa: BLE001 - report and go on
                errs[name] = error_text(e)
        times = time_rounds(calls, args.rounds, lambda run: _timed(bench, *run))    # interleaved (--rounds)
        for name, _ in runs:
            got = errs[name] if isinstance(errs[name], str) else times[name]
            if isinstance(got, str):
                print(f"  {name}: {got}")
                continue
            ms = statistics.median(got)
            spread = f"  rounds {min(got):.3f}-{max(got):.3f}" if args.rounds > 1 else ""
            print(f"  {name}: {ms:.3f} ms  dense causal / variant x{t_dense / ms:.2f} (dispatched) "
                  f"x{t_tl / ms:.2f} (tl)  maxerr vs 64x64 {errs[name]:.1e}{spread}")
        del q, k, v, ref
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
