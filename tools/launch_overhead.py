"""Where the time goes for short kernels: `python -m tools.launch_overhead` (GPU only, from the repository root).

For each implementation it prints three numbers at B=4, H=32, fp16:
  per-call  triton.testing.do_bench median, one call per timing, L2 cleared before each (what
            flashviz.bench records): host launch cost leaks in when it exceeds the GPU work
  graph     triton.testing.do_bench_cudagraph median: the same calls replayed from a CUDA graph,
            i.e. GPU time alone
  enqueue   wall time per call of 300 back-to-back calls without a sync: the Python-side cost
When enqueue >= graph the implementation is launch-bound at that size and per-call timings
understate its kernel (on the H200 that happened at N = 1024, not from N = 4096: why the recorded datasets carry
graph_ms beside ms; the forward table decides below N = 4096 by graph_ms). Its output is printed, not recorded.
"""
import argparse
import time

import torch
import torch.nn.functional as F
import triton

from flashviz_kernels import api


def _sdpa_cudnn(q, k, v, causal):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--causal", type=int, nargs="+", default=[0, 1], choices=[0, 1])
    args = ap.parse_args(argv)
    torch.set_grad_enabled(False)
    for n in args.n:
        for d in args.d:
            for causal in map(bool, args.causal):
                q, k, v = (torch.randn(4, 32, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
                flops = 4 * 4 * 32 * n * n * d * (0.5 if causal else 1)
                fns = {"fast": lambda: api.attention(q, k, v, causal=causal, impl="fast"),
                       "teaching": lambda: api.attention(q, k, v, causal=causal, impl="teaching"),
                       "sdpa-flash": lambda: api.attention(q, k, v, causal=causal, impl="sdpa-flash"),
                       "sdpa-cudnn": lambda: _sdpa_cudnn(q, k, v, causal)}
                print(f"N={n} d={d} causal={causal}", flush=True)
                for name, fn in fns.items():
                    fn()
                    torch.cuda.synchronize()
                    per_call = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
                    t0 = time.perf_counter()
                    for _ in range(300):
                        fn()
                    enqueue_us = (time.perf_counter() - t0) / 300 * 1e6
                    torch.cuda.synchronize()
                    graph = triton.testing.do_bench_cudagraph(fn, rep=50, return_mode="median")
                    tf = lambda ms: flops / ms * 1e-9  # noqa: E731
                    bound = "  launch-bound" if enqueue_us >= graph * 1e3 else ""
                    print(f"  {name:<11} per-call {per_call * 1e3:8.1f} us {tf(per_call):4.0f} TFLOP/s   graph "
                          f"{graph * 1e3:8.1f} us {tf(graph):4.0f} TFLOP/s   enqueue {enqueue_us:6.1f} us{bound}",
                          flush=True)
                del q, k, v
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
