"""How far the ws backward's gradients land from float64 autograd, per launch switch, repeated (a Hopper GPU):

    python -m tools.ws_bwd_errors rows,2,1,64,1000,128 tma2,0,0,128,4096,64 ...   # mode,prefetch,causal,d,N,block_m
    python -m tools.ws_bwd_errors split,0,0,64,4096,128,256/128                   # ...,window left/right

One JSON line per argument: the triton version, the switches and, per repeat, max|g - g64| of dq, dk, dv (B = 1,
H = 4, or 16 at N >= 4096; fp16; seeded). A race shows as errors that change from repeat to repeat; a launch that
raises prints the error instead. Run one argument per process (xargs -P) to see many switches at once: a CUDA fault
ends the process it happens in. It found the retired "partial" with prefetch wrong under triton 3.8
(assets/verified/repeats/prefetch-partial-3.8.0.log); a retired mode or a refused launch prints its refusal. A
seventh field, a window "left/right", runs the launch on the host's by-key table (`partial,0,0,64,4096,128,256/128`
was the launch 2820011's loop trims faulted under 3.6: assets/verified/repeats/README.md; it now prints the
refusal, as it did on the H200 at f1b3e89).
"""
from __future__ import annotations

import json
import sys

REPEATS = 4


def reference(q, k, v, do, causal, **kw):
    """dq, dk, dv of <attention(q, k, v), do> through the naive kernel in float64 (the library's own causal and
    window rules; kw: window=)."""
    import flashviz_kernels as fk
    xs = [x.double().requires_grad_() for x in (q, k, v)]
    out, _ = fk.attention_with_lse(*xs, causal=causal, impl="naive", **kw)
    (out * do.double()).sum().backward()
    return [x.grad for x in xs]


def one(arg: str) -> dict:
    import torch
    import triton

    import flashviz_kernels as fk
    from flashviz_kernels import variants, ws_bwd
    mode, pre, causal, d, n, bm, *rest = arg.split(",")
    pre, causal, d, n, bm = int(pre), causal == "1", int(d), int(n), int(bm)
    kw = dict(window=tuple(int(x) for x in rest[0].split("/"))) if rest else {}   # a sliding window: the host's table
    h = 16 if n >= 4096 else 4
    g = torch.Generator(device="cuda").manual_seed(n + d)
    q, k, v, do = (torch.randn((1, h, n, d), device="cuda", generator=g).half() for _ in range(4))   # (B, H, N, d)
    o, lse = fk.attention_with_lse(q, k, v, causal=causal, impl="fast", **kw)
    ref = reference(q, k, v, do, causal, **kw)
    var = variants.parse(q, k, causal=causal, **kw) if kw else None
    errs = []
    try:
        for _ in range(REPEATS):
            got = ws_bwd.backward(q, k, v, o, lse, do, causal=causal, sm_scale=d ** -0.5, dq_mode=mode,
                                  prefetch=pre, block_m=bm, variant=var)
            torch.cuda.synchronize()
            errs.append([round((a.double() - r).abs().max().item(), 4) for a, r in zip(got, ref)])
    except Exception as e:                               # noqa: BLE001 -- reported, the next argument still runs
        errs.append(repr(e)[:200])
    return dict(triton=triton.__version__, mode=mode, pre=pre, causal=causal, d=d, n=n, bm=bm, **kw, errs=errs)


if __name__ == "__main__":
    for a in sys.argv[1:]:
        print(json.dumps(one(a)), flush=True)
