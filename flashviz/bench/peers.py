"""Peers the benchmarks time beside our kernels that are not part of torch: FlashAttention-4 (no streamlit here).

    why = fa4_unavailable(q)                    # None, or why FA4 cannot run on q here (the provenance records
                                                # its version: flashviz.bench.provenance)
    fn = fa4_runner(x, cfg)                     # measure.py: fwd / bwd / fwd+bwd on (B, H, N, d) inputs
    fn = fa4_variant_runner(x)                  # variants_bench.py: window, softcap, GQA, packed documents

FlashAttention-4 (`pip install -e ".[fa4]"`, PyPI `flash-attn-4`: CuTe-DSL kernels, `flash_attn/cute/`) runs on
Hopper (sm_90) and newer. Its layout is (B, N, H, d), so each runner makes its native copies of q, k, v (and dO)
once, before anything is timed, and hands back (B, H, N, d) views of the output and gradients for the checks: the
timed call is FA4's own, on its own layout, as a user of FA4 would call it. Causal is bottom-right aligned and a
window (left, right) counts keys as flash-attn does, the same semantics as flashviz_kernels.
"""
from __future__ import annotations

import functools

FA4_EXTRA = 'pip install -e ".[fa4]"'
FA4_MIN_CAPABILITY = (9, 0)


@functools.lru_cache(maxsize=None)
def _fa4_import_error() -> str | None:
    try:
        import flash_attn.cute.interface  # noqa: F401
    except Exception as e:                                   # noqa: BLE001 - any import failure means: not here
        return f"FlashAttention-4 is not installed here ({type(e).__name__}: {str(e)[:200]}); {FA4_EXTRA}"
    return None


def fa4_unavailable(q) -> str | None:
    """Why FA4 cannot run on q here (None: it can)."""
    import torch
    if q.device.type != "cuda":
        return "FlashAttention-4 runs on NVIDIA GPUs only"
    cap = tuple(torch.cuda.get_device_capability(q.device))
    if cap < FA4_MIN_CAPABILITY:
        return f"FlashAttention-4 runs on Hopper (sm_90) and newer; this GPU is sm_{cap[0]}{cap[1]}"
    if q.dtype not in (torch.float16, torch.bfloat16):
        return f"FlashAttention-4 takes float16 and bfloat16, not {str(q.dtype).replace('torch.', '')}"
    return _fa4_import_error()


class Unavailable(RuntimeError):
    """FA4 cannot run this cell (recorded as "unavailable" with the reason)."""


def _native(t, grad: bool):
    """(B, H, N, d) -> FA4's (B, N, H, d), contiguous, a leaf that requires grad when asked."""
    return t.detach().transpose(1, 2).contiguous().requires_grad_(grad)


def _check(q) -> None:
    why = fa4_unavailable(q)
    if why:
        raise Unavailable(why)


def fa4_runner(x: dict, cfg: dict):
    """fwd: output (B, H, N, d); fwd+bwd / bwd: (out, dq, dk, dv), as measure.py's runners return them. The mode
    "bwd" runs the forward once and times the backward alone (autograd retains FA4's saved tensors)."""
    import torch
    _check(x["q"])
    from flash_attn.cute.interface import flash_attn_func
    grad = cfg["mode"] != "fwd"
    q, k, v = (_native(x[n], grad) for n in ("q", "k", "v"))
    causal = bool(cfg["causal"])
    if not grad:
        def fwd():
            with torch.no_grad():
                return flash_attn_func(q, k, v, causal=causal)[0].transpose(1, 2)
        return fwd
    dout = x["dout"].transpose(1, 2).contiguous()

    def grads(out, qkv, retain):
        g = torch.autograd.grad(out, qkv, dout, retain_graph=retain)
        return (out.transpose(1, 2), *(t.transpose(1, 2) for t in g))
    if cfg["mode"] == "fwd+bwd":
        return lambda: grads(flash_attn_func(q, k, v, causal=causal)[0], (q, k, v), False)
    saved = {}

    def bwd():                       # new leaves per forward, as measure.runner's (why: graph_timing's capture)
        if "out" not in saved:
            saved["qkv"] = tuple(t.detach().requires_grad_(True) for t in (q, k, v))
            saved["out"] = flash_attn_func(*saved["qkv"], causal=causal)[0]
        return grads(saved["out"], saved["qkv"], True)
    bwd.saved = saved
    return bwd


def fa4_variant_runner(x: dict):
    """variants_bench's call for one cell (every variant causal): dense, a sliding window, softcap and GQA through
    flash_attn_func; packed documents through flash_attn_varlen_func, each document of each batch row its own
    sequence (cu_seqlens), the packing made once. ALiBi: Unavailable (FA4's functions take no ALiBi slopes)."""
    import torch
    _check(x["q"])
    from flash_attn.cute.interface import flash_attn_func, flash_attn_varlen_func
    var = x["var"]
    if var.alibi:
        raise Unavailable("FlashAttention-4's flash_attn_func takes no ALiBi slopes")
    q, k, v = (_native(x[n], False) for n in ("q", "k", "v"))         # (B, N, H, d), (B, N, H_kv, d)
    kw = dict(softmax_scale=x["scale"], causal=True)
    if var.window is not None:
        kw["window_size"] = tuple(var.window)
    if var.softcap is not None:
        kw["softcap"] = float(var.softcap)
    if var.doc_lens is None:
        def run():
            with torch.no_grad():
                return flash_attn_func(q, k, v, **kw)[0].transpose(1, 2)
        return run
    b, n = q.shape[0], q.shape[1]
    lens = [int(n_doc) for n_doc in var.doc_lens] * b
    cu = torch.tensor([0, *torch.tensor(lens).cumsum(0).tolist()], dtype=torch.int32, device=q.device)
    qp, kp, vp = (t.reshape(b * n, *t.shape[2:]) for t in (q, k, v))    # (B N, H, d): batch rows one after another

    def run_docs():
        with torch.no_grad():
            out = flash_attn_varlen_func(qp, kp, vp, cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=max(lens),
                                         max_seqlen_k=max(lens), **kw)[0]
            return out.reshape(b, n, *out.shape[1:]).transpose(1, 2)
    return run_docs
