"""Time the ws backward on variants: `python -m tools.tune_backward --kind ws --variant window` (or `docs`, `gqa`),
called from tune_backward's main (which passes the record header; this module imports no other tool).

Per (d, N): a causal sliding window (left = --window), causal packed documents (lengths N/4, N/8, N/2 and the
rest, as the variants bench) or causal GQA (H_kv = 8), B=4, H=32, fp16. Forward once with the fast kernel, then
triton.testing.do_bench (median) of the backward alone for: the ws backward (kind="ws"), the 7-matmul reference
(what "auto" ran for these variants before; the fused backward takes none of them), the ws backward on dense
causal MHA (for a mask: the ratio its work should show; for GQA: MHA with the same K/V per query head, which GQA
should not be slower than), and with --flex FlexAttention's compiled backward (create_block_mask; compile time
excluded and printed apart). Every gradient is checked against the reference's (maxerr). Writes every number to
--out (JSON)."""
import time

import torch
import triton

from flashviz_kernels import api


def _mask_kw(variant: str, n: int, window: int, batch: int) -> dict:
    if variant == "window":
        return dict(causal=True, window=(window, 0))
    if variant == "gqa":
        return dict(causal=True)
    lens = [x for x in (n // 4, n // 8, n // 2, n - n // 4 - n // 8 - n // 2) if x > 0]
    ids = torch.repeat_interleave(torch.arange(len(lens)), torch.tensor(lens)).to("cuda")
    return dict(causal=True, seq_ids=ids[None].expand(batch, -1).contiguous())


def _flex_bwd(q, k, v, do, kw):
    """(run, grads, compile seconds) of FlexAttention's backward alone on the same mask."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    n = q.shape[2]
    if "window" in kw:
        left = kw["window"][0]

        def mask_mod(b, h, i, j):
            return (j <= i) & (j >= i - left)
    elif "seq_ids" not in kw:
        def mask_mod(b, h, i, j):
            return j <= i
    else:
        ids = kw["seq_ids"]

        def mask_mod(b, h, i, j):
            return (j <= i) & (ids[b, i] == ids[b, j])
    import torch._functorch.config as functorch_config
    functorch_config.donated_buffer = False          # the timing loop keeps the graph (retain_graph=True)
    t0 = time.perf_counter()
    bm = create_block_mask(mask_mod, B=q.shape[0] if "seq_ids" in kw else None, H=None, Q_LEN=n, KV_LEN=n,
                           device="cuda")
    flex = torch.compile(flex_attention)
    xs = [x.clone().requires_grad_() for x in (q, k, v)]
    out = flex(*xs, block_mask=bm, enable_gqa=k.shape[1] != q.shape[1])
    run = lambda: torch.autograd.grad(out, xs, do, retain_graph=True)  # noqa: E731
    grads = run()
    torch.cuda.synchronize()
    return run, grads, time.perf_counter() - t0


def bench(d, n, variant, window, rep, flex):
    """Rows {name: {ms, tflops_dense_causal_equiv, maxerr}} for one shape."""
    b, h = 4, 32
    h_kv = 8 if variant == "gqa" else h
    g = torch.Generator(device="cuda").manual_seed(d + n)
    q, do = (torch.randn((b, h, n, d), device="cuda", dtype=torch.float16, generator=g) for _ in range(2))
    k, v = (torch.randn((b, h_kv, n, d), device="cuda", dtype=torch.float16, generator=g) for _ in range(2))
    kw = _mask_kw(variant, n, window, b)
    o, lse = api.attention_with_lse(q, k, v, impl="fast", **kw)
    km, vm = (x.repeat_interleave(h // h_kv, 1) for x in (k, v))      # MHA with the same K/V per query head
    oc, lsec = api.attention_with_lse(q, km, vm, impl="fast", causal=True)
    runs = {"ws": lambda: api.attention_backward(q, k, v, o, lse, do, kind="ws", **kw),
            "reference": lambda: api.attention_backward(q, k, v, o, lse, do, kind="reference", **kw),
            "ws dense causal": lambda: api.attention_backward(q, km, vm, oc, lsec, do, kind="ws", causal=True)}
    compile_s = None
    if flex:
        try:
            runs["flex"], _, compile_s = _flex_bwd(q, k, v, do, kw)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"  flex: {type(e).__name__}: {str(e).splitlines()[0][:150]}", flush=True)
    ref = runs["reference"]()
    rows = {}
    for name, run in runs.items():
        try:
            got = run()
            err = None if name == "ws dense causal" else \
                max((a.float() - r.float()).abs().max().item() for a, r in zip(got, ref))
            ms = triton.testing.do_bench(run, warmup=25, rep=rep, return_mode="median")
            rows[name] = dict(ms=ms, maxerr=err)
            print(f"  {name:<18} {ms:8.3f} ms  maxerr vs reference {err if err is None else f'{err:.1e}'}",
                  flush=True)
        except Exception as e:  # noqa: BLE001
            rows[name] = dict(error=f"{type(e).__name__}: {str(e).splitlines()[0][:200]}")
            print(f"  {name}: {rows[name]['error']}", flush=True)
    if compile_s is not None:
        rows["flex"]["compile_s"] = compile_s
        print(f"  (flex: create_block_mask + compile + first run {compile_s:.1f} s, not timed above)", flush=True)
    return rows


def main_masks(args, record: dict):
    """Time every (d, N) of args and write record (a tune file header with empty rows) to --out."""
    for d in args.d:
        for n in args.n:
            print(f"d={d} N={n} {args.variant}", flush=True)
            rows = bench(d, n, args.variant, args.window, args.rep, args.flex)
            record["rows"].append(dict(d=d, n=n, impls=rows))
            torch.cuda.empty_cache()
    print("\nws / reference, ws / flex (time ratios: below 1 = ws faster), dense causal / ws")
    for r in record["rows"]:
        t = {k: x.get("ms") for k, x in r["impls"].items()}
        ratio = lambda a, b: "  -  " if not (t.get(a) and t.get(b)) else f"{t[a] / t[b]:.2f}"  # noqa: E731
        print(f"  d={r['d']} N={r['n']}: {ratio('ws', 'reference')}  {ratio('ws', 'flex')}  "
              f"{ratio('ws dense causal', 'ws')}")
    if args.out:
        import json
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
