"""Per-block pieces of ring attention: one block's (out, lse), the log-sum-exp merge, one block's gradients.

No torch.distributed here; kernels/ring.py moves the blocks around the ring and calls these.

    block_forward(q, k, v, causal, sm_scale, impl) -> (out like q, lse (B, H, Nq) float32)
    merge(out, lse, out_b, lse_b)                        # in place: out (float32 or the inputs' dtype), lse float32
        (fused Triton kernel on a GPU, kernels/ring_merge.py; merge_torch on CPU and for float64)
    block_backward(q, k, v, o, lse, do, delta, dlse, causal, sm_scale, impl) -> (dq, dk, dv)
        (float32 from the torch recomputation, float64 for float64 inputs; the inputs' dtype from Triton)

Causal blocks are bottom-right aligned (query i sees key j <= i + Nk - Nq), as every kernel here; ring.py only
asks for causal=True on blocks whose query and key chunks coincide (Nq == Nk, the diagonal).

The merge of two partial results over disjoint key sets is flash-decoding's: with lse = log sum exp(s),
    lse = log(e^lse_a + e^lse_b),   out = e^(lse_a - lse) out_a + e^(lse_b - lse) out_b.
A row that saw no key has lse = -inf and out = 0; merging two such rows must not compute exp(-inf - -inf):
the reference point falls back to 0 there, so the empty result is the identity of the merge.

Backward of one block from the *global* O and lse (as the single-GPU flash backward, recomputing P):
    P = exp(S - lse),  dV = P^T dO,  dP = dO V^T,  dS = P * (dP - delta + dlse),  delta = rowsum(dO * O)
    dQ = dS K * scale,  dK = dS^T Q * scale.
The dlse term is the gradient that flows into the returned lse (d lse_i / d S_ij = P_ij). For teaching/fast
(16- or 32-bit inputs) the block runs the backward autograd would run for one attention call
(kernels/backward_pick.py's "auto": the warp-specialised ws backward where it runs — Hopper, d 64/128, the
verified triton — else the fused or the 7-matmul Triton one), dlse included; naive/sdpa and float64 inputs are
recomputed in torch, `ROWS` query rows at a time, in float32 (float64 for float64 inputs).
"""
from __future__ import annotations

import os

import torch

from . import _env
from .api import attention_with_lse, validate
from .errors import KernelInputError, KernelUnavailable

RING_IMPLS = ("naive", "sdpa", "teaching", "fast")
TRITON_IMPLS = ("teaching", "fast")
ROWS = 1024                 # query rows per torch recomputation chunk (bounds the (rows, Nk) temporaries)
MERGE_ELEMS = 1 << 24       # elements per merge slab (64 MiB of float32 temporaries at most)


def acc_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float64 else torch.float32


def check_impl(impl: str) -> None:
    if impl not in RING_IMPLS:
        raise KernelInputError(f"ring attention runs impl {', '.join(RING_IMPLS)} per block; got {impl!r}")


# ----------------------------------------------------------------------------- forward of one block

def _sdpa_lse(q, k, v, causal: bool, sm_scale: float):
    """torch's SDPA kernels that also return the log-sum-exp (the public function does not)."""
    aten = torch.ops.aten
    try:
        if q.device.type == "cpu":
            out, lse = aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, causal, scale=sm_scale)
        elif q.dtype in (torch.float16, torch.bfloat16):
            out, lse = aten._scaled_dot_product_flash_attention(q, k, v, 0.0, causal, False, scale=sm_scale)[:2]
        else:                                    # float32 on CUDA: the memory-efficient kernel
            out, lse = aten._scaled_dot_product_efficient_attention(q, k, v, None, True, 0.0, causal,
                                                                    scale=sm_scale)[:2]
            lse = lse[..., : q.shape[2]]         # padded to a multiple of 32 rows
    except (RuntimeError, NotImplementedError) as e:
        if isinstance(e, torch.cuda.OutOfMemoryError):
            raise
        raise KernelUnavailable(f"SDPA cannot give this block's log-sum-exp: {str(e).splitlines()[0]}") from e
    return out, lse.float()


def block_forward(q, k, v, causal: bool, sm_scale: float, impl: str):
    """One block's attention and log-sum-exp. SDPA's causal flag is top-left aligned, which equals the
    kernels' bottom-right alignment on the square blocks ring.py marks causal."""
    if impl == "sdpa":
        if causal and q.shape[2] != k.shape[2]:
            raise KernelInputError("a causal ring block must be square (Nq == Nk)")
        validate(q, k, v, "sdpa")
        return _sdpa_lse(q, k, v, causal, sm_scale)
    return attention_with_lse(q, k, v, causal=causal, sm_scale=sm_scale, impl=impl)


# The fused merge runs on GPUs since it passed there (2026-11-30, triton 3.6.0, torch 2.11): tests/kernels/test_ring_merge.py
# on one H200 (15 passed) and the NCCL ring cases of tests/kernels/test_ring_gpu.py on two, plain and chunked, against float64
# (20 passed), both with FLASHVIZ_RING_MERGE=triton. FLASHVIZ_RING_MERGE=torch picks the torch merge on a GPU (to
# time the two), =triton the fused one whatever this flag says.
FUSED_MERGE_VERIFIED_ON_GPU = True
MERGE_ENV = "FLASHVIZ_RING_MERGE"


def _fused_merge_on_gpu() -> bool:
    asked = os.environ.get(MERGE_ENV, "")
    return asked == "triton" or (asked != "torch" and FUSED_MERGE_VERIFIED_ON_GPU)


def merge_label(cuda: bool) -> str:
    """Which merge a GPU (cuda=True) or CPU run uses here, for a recording's provenance."""
    if cuda and _env.HAS_TRITON and _fused_merge_on_gpu():
        asked = os.environ.get(MERGE_ENV, "") == "triton"
        return "fused Triton kernel" + (f", asked for by {MERGE_ENV}=triton" if asked else "")
    return "torch, a slab of rows at a time"


def merge(out, lse, out_b, lse_b) -> None:
    """Fold block (out_b, lse_b) into the accumulators (out, lse), in place; -inf safe. On a GPU with float32 lse
    and no float64 tensor: the fused Triton merge (kernels/ring_merge.py, one read and one write of each tensor;
    see FUSED_MERGE_VERIFIED_ON_GPU and MERGE_ENV); otherwise the torch merge below, which is also the reference the
    Triton one is tested against."""
    if (out.is_cuda and _env.HAS_TRITON and lse.dtype == torch.float32 and _fused_merge_on_gpu()
            and torch.float64 not in (out.dtype, out_b.dtype, lse_b.dtype)):
        from .ring_merge import merge_triton
        return merge_triton(out, lse, out_b, lse_b)
    return merge_torch(out, lse, out_b, lse_b)


def merge_torch(out, lse, out_b, lse_b) -> None:
    """The merge in torch: float32 arithmetic (float64 for float64) whatever out's dtype, a slab of rows at a
    time, and out is written once per slab: so an out in the inputs' dtype is rounded once per merge, and no
    temporary larger than a slab is ever allocated (a whole-tensor `out * a + out_b * b` would need three more
    outputs' worth)."""
    ct = torch.float64 if torch.float64 in (out.dtype, out_b.dtype) else torch.float32
    b, h, n, d = out.shape
    rows = max(1, MERGE_ELEMS // max(1, b * h * d))
    for a0 in range(0, n, rows):
        sl = slice(a0, min(n, a0 + rows))
        la, lb = lse[:, :, sl], lse_b[:, :, sl].to(lse.dtype)
        m = torch.maximum(la, lb)
        ref = torch.where(torch.isneginf(m), torch.zeros_like(m), m)   # both empty: reference 0, weights 0
        w_a, w_b = torch.exp(la - ref), torch.exp(lb - ref)
        total = w_a + w_b
        safe = torch.where(total > 0, total, torch.ones_like(total))
        o = out[:, :, sl].to(ct).mul_((w_a / safe).unsqueeze(-1).to(ct))
        o.addcmul_(out_b[:, :, sl].to(ct), (w_b / safe).unsqueeze(-1).to(ct))
        out[:, :, sl] = o
        la.copy_(ref + torch.log(total))                               # log 0 = -inf: still empty


# ----------------------------------------------------------------------------- backward of one block

def _visible(nq: int, nk: int, rows: slice, device) -> torch.Tensor:
    i = torch.arange(rows.start, rows.stop, device=device)[:, None]
    j = torch.arange(nk, device=device)[None, :]
    return j <= i + (nk - nq)


def _torch_backward(q, k, v, do, lse, delta, dlse, causal: bool, sm_scale: float):
    """dQ, dK, dV of one block recomputed from the global lse (float32, or float64 for float64 inputs)."""
    ct = acc_dtype(q.dtype)
    q, k, v, do = (x.to(ct) for x in (q, k, v, do))
    lse, delta = lse.to(ct), delta.to(ct)
    if dlse is not None:
        delta = delta - dlse.to(ct)                                  # dS = P (dP - delta + dlse)
    nq, nk = q.shape[2], k.shape[2]
    dq = torch.empty_like(q)
    dk, dv = torch.zeros_like(k), torch.zeros_like(v)
    kt, vt = k.transpose(-1, -2), v.transpose(-1, -2)
    for a in range(0, nq, ROWS):
        rows = slice(a, min(a + ROWS, nq))
        ls = lse[:, :, rows, None]
        s = torch.matmul(q[:, :, rows], kt) * sm_scale               # S: (B, H, rows, Nk)
        seen = ~torch.isneginf(ls)                                   # rows with no visible key: P = 0
        if causal:
            seen = seen & _visible(nq, nk, rows, q.device)
        p = torch.where(seen, torch.exp(s - torch.where(torch.isneginf(ls), torch.zeros_like(ls), ls)),
                        torch.zeros((), dtype=ct, device=q.device))
        dv += torch.matmul(p.transpose(-1, -2), do[:, :, rows])      # dV = P^T dO
        ds = p * (torch.matmul(do[:, :, rows], vt) - delta[:, :, rows, None])   # dS = P (dP - delta)
        dq[:, :, rows] = torch.matmul(ds, k) * sm_scale
        dk += torch.matmul(ds.transpose(-1, -2), q[:, :, rows]) * sm_scale
    return dq, dk, dv


def flash_kind(q) -> str:
    """Which flash backward a block of these query rows runs: "ws", "fused" or "reference" (backward_pick's
    "auto", as for one attention call; flashviz/engine/ring_memory.py accounts for each)."""
    from .backward_pick import backward_kind
    return backward_kind(q, "auto")


def _flash_backward(q, k, v, o, lse, do, dlse, causal: bool, sm_scale: float):
    from .api import attention_backward
    q, k, v, o = (x.contiguous() for x in (q, k, v, o))
    # The launch lock only in the interpreter (not thread-safe); compiled launches may run on autograd's device
    # thread while the caller holds the lock, as in attention()'s own backward. kind None: "auto", with its
    # fallback from a failed ws launch to the Triton backwards.
    return attention_backward(q, k, v, o, lse.contiguous(), do.to(q.dtype), causal=causal, sm_scale=sm_scale,
                              dlse=None if dlse is None else dlse.contiguous(), lock=_env.INTERPRET)


def delta_of(o, do) -> torch.Tensor:
    """delta_i = rowsum(dO_i * O_i), float32 (float64 for float64 inputs)."""
    ct = acc_dtype(o.dtype)
    return (o.to(ct) * do.to(ct)).sum(-1)


def flash_block(impl: str, dtype: torch.dtype) -> bool:
    """Whether block_backward runs a flash backward kernel (else the torch recomputation, which needs delta)."""
    return impl in TRITON_IMPLS and dtype != torch.float64


def block_backward(q, k, v, o, lse, do, delta, dlse, causal: bool, sm_scale: float, impl: str):
    """Gradients of one block given the global (o, lse) of these query rows and their dO (and dlse or None);
    delta may be None where flash_block(impl, q.dtype) (the kernels compute their own)."""
    if flash_block(impl, q.dtype):
        return _flash_backward(q, k, v, o, lse, do, dlse, causal, sm_scale)
    return _torch_backward(q, k, v, do, lse, delta, dlse, causal, sm_scale)
