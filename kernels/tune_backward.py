"""Time candidate tile configs of the backward kernels: `python -m flashviz_kernels.tune_backward`.

Forward once with the fast kernel, then triton.testing.do_bench (median) of the backward alone per
candidate (dkdv BLOCK_M, BLOCK_N, dq BLOCK_M, BLOCK_N, num_warps, num_stages), next to SDPA flash's
backward on the same inputs; each candidate's gradients are checked against SDPA's. Over several
N and both causal settings it ends with each candidate's geometric-mean ratio to flash, which is
how backward.BWD_CONFIGS is picked (the winner must also be best or near it in every row).
"""
import argparse
import functools
import math

import torch
import torch.nn.functional as F
import triton

from . import api

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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[128])
    ap.add_argument("--n", type=int, nargs="+", default=[8192])
    ap.add_argument("--causal", type=int, nargs="+", default=[0, 1], choices=[0, 1])
    args = ap.parse_args(argv)
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
