"""One entry point for every attention implementation: validation, dispatch, typed errors.

    attention(q, k, v, *, causal=False, sm_scale=None, impl="fast", block_m=None, block_n=None)
    attention_trace(q, k, v, *, causal=False, sm_scale=None, block_m, block_n) -> (out, KernelTrace)

q is (B, H, Nq, d); k and v are (B, H, Nk, d). impl is one of IMPLS: "naive" (torch, materialises
N x N), "sdpa" (torch.nn.functional.scaled_dot_product_attention; "sdpa-flash", "sdpa-cudnn",
"sdpa-efficient", "sdpa-math" pin its backend), "teaching" and "fast" (the Triton kernels; on a
machine without CUDA they run in Triton's interpreter on CPU tensors).
"""
from __future__ import annotations

import contextlib
import functools
import math
from typing import NamedTuple

import numpy as np
import torch

from . import _env
from .errors import (KernelInputError, KernelOutOfMemory, KernelResourceError, KernelTypeError,
                     KernelUnavailable)
from .naive import causal_mask, naive_attention

SDPA_BACKENDS = ("flash", "cudnn", "efficient", "math")
IMPLS = ("naive", "sdpa", *(f"sdpa-{b}" for b in SDPA_BACKENDS), "teaching", "fast")
TRITON_IMPLS = ("teaching", "fast")
KERNEL_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
MAX_HEAD_DIM = 256
MAX_BLOCK = 256


class KernelTrace(NamedTuple):
    """Per query row, after each key tile: running max m, running sum l, rescale alpha.

    Each is (B, H, Nq, Tc) float32; entries of tiles the kernel skipped (causal) stay NaN.
    m is in natural units of the scaled scores s = q.k * sm_scale, as in flashviz.online_softmax.
    """
    m: torch.Tensor
    l: torch.Tensor
    alpha: torch.Tensor


def _next_pow2(x: int) -> int:
    return 1 << max(0, (int(x) - 1).bit_length())


def validate(q, k, v, impl: str) -> None:
    """Raise KernelTypeError / KernelInputError / KernelUnavailable with a readable message."""
    if impl not in IMPLS:
        raise KernelInputError(f"impl must be one of {', '.join(IMPLS)}; got {impl!r}")
    for name, x in (("q", q), ("k", k), ("v", v)):
        if not isinstance(x, torch.Tensor):
            raise KernelTypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
        if x.dim() != 4:
            raise KernelInputError(f"{name} must be shaped (B, H, N, d); got {tuple(x.shape)}")
        if min(x.shape) < 1:
            raise KernelInputError(f"{name} has an empty dimension: {tuple(x.shape)}")
    if k.shape != v.shape:
        raise KernelInputError(f"k and v must have the same shape; got {tuple(k.shape)} and {tuple(v.shape)}")
    if (q.shape[0], q.shape[1], q.shape[3]) != (k.shape[0], k.shape[1], k.shape[3]):
        raise KernelInputError(f"q {tuple(q.shape)} and k {tuple(k.shape)} must agree in B, H and d")
    if not (q.dtype == k.dtype == v.dtype):
        raise KernelTypeError(f"q, k, v must share one dtype; got {q.dtype}, {k.dtype}, {v.dtype}")
    if not (q.device == k.device == v.device):
        raise KernelTypeError(f"q, k, v must be on one device; got {q.device}, {k.device}, {v.device}")
    if not q.dtype.is_floating_point:
        raise KernelTypeError(f"attention needs floating-point inputs, got {q.dtype}")
    d = q.shape[3]
    if impl in TRITON_IMPLS:
        if not _env.HAS_TRITON:
            raise KernelUnavailable("triton is not installed here; use impl='naive' or 'sdpa'")
        if q.dtype not in KERNEL_DTYPES:
            raise KernelTypeError(f"the Triton kernels take float16, bfloat16 or float32, not {q.dtype}")
        if d > MAX_HEAD_DIM:
            raise KernelInputError(f"head dim d = {d} is not supported (the kernels take d <= {MAX_HEAD_DIM})",
                                   key="kernel_head_dim", d=d, cap=MAX_HEAD_DIM)
        if _env.INTERPRET:
            if q.device.type != "cpu":
                raise KernelTypeError("Triton runs in interpreter mode here: pass CPU tensors")
        elif q.device.type != "cuda":
            raise KernelTypeError(f"the Triton kernels run on CUDA here; q is on {q.device}: move it with .cuda()")
        if impl == "fast" and (d * q.element_size()) % 16 != 0:
            raise KernelInputError(
                f"head dim d = {d} is not supported by the fast kernel: rows must be a multiple of 16 bytes "
                f"(d multiple of {16 // q.element_size()} for {q.dtype}); use impl='teaching'")
    elif impl.startswith("sdpa-") and impl != "sdpa-math" and q.device.type != "cuda":
        raise KernelUnavailable(f"{impl} needs CUDA tensors; on CPU use impl='sdpa' or 'sdpa-math'")


def _options(q, causal, sm_scale) -> tuple[bool, float]:
    """causal must be a bool (a string like "no" would otherwise count as True); sm_scale None (1/sqrt(d))
    or a finite real number."""
    if not isinstance(causal, bool):
        if isinstance(causal, np.bool_) or (isinstance(causal, int) and causal in (0, 1)):
            causal = bool(causal)                      # numpy bool, 0/1
        else:
            raise KernelTypeError(f"causal must be True or False, got {causal!r}")
    if sm_scale is None:
        return causal, 1.0 / math.sqrt(q.shape[-1])
    if isinstance(sm_scale, (bool, np.bool_)) or not isinstance(sm_scale, (int, float, np.integer, np.floating)):
        raise KernelTypeError(f"sm_scale must be a number or None, got {sm_scale!r}")
    scale = float(sm_scale)
    if not math.isfinite(scale):
        raise KernelInputError(f"sm_scale must be finite, got {scale}")
    return causal, scale


def _check_block(name: str, value, n: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise KernelInputError(f"{name} must be an integer, got {value!r}", key="kernel_block_int", name=name,
                               got=repr(value))
    if value < 1:
        raise KernelInputError(f"{name} must be positive, got {value}", key="kernel_block_positive", name=name, got=value)
    if value > MAX_BLOCK:
        raise KernelInputError(f"{name} = {value} is above the largest tile, {MAX_BLOCK}", key="kernel_block_max",
                               name=name, got=value, cap=MAX_BLOCK)
    if not _env.INTERPRET and (value < 16 or value & (value - 1)):
        raise KernelInputError(f"on a GPU {name} must be a power of two >= 16 (tl.dot needs 16); got {value}",
                               key="kernel_block_pow2", name=name, got=value)
    return value


def _teaching_blocks(q, k, block_m, block_n) -> tuple[int, int]:
    n_q, n_k = q.shape[2], k.shape[2]
    if block_m is None:                                # GPU default: 128 rows, 64 when d > 128
        block_m = min(64, _next_pow2(n_q)) if _env.INTERPRET else (128 if q.shape[3] <= 128 else 64)
    if block_n is None:
        block_n = min(64, _next_pow2(n_k)) if _env.INTERPRET else 64
    return _check_block("block_m", block_m, n_q), _check_block("block_n", block_n, n_k)


def _guarded(fn, config: dict, lock: bool = True):
    """Run a launch under the process-wide lock; turn resource and memory failures into typed errors.

    lock=False is for the backward pass on a GPU: autograd runs CUDA backward functions on its own
    worker thread while the caller may hold LAUNCH_LOCK for the whole step (flashviz.bench does),
    so taking the lock there would deadlock. The caller's hold serialises the work anyway."""
    with _env.LAUNCH_LOCK if lock else contextlib.nullcontext():
        try:
            return fn()
        except torch.cuda.OutOfMemoryError as e:
            raise KernelOutOfMemory(f"GPU out of memory for {config}: {str(e).splitlines()[0]}") from e
        except Exception as e:  # triton's OutOfResources / compile errors have no stable import path
            name = type(e).__name__
            if name in ("OutOfResources", "OutOfResourcesError") or "out of resource" in str(e).lower():
                raise KernelResourceError(f"Triton ran out of on-chip resources for {config}: {e}", config) from e
            if name in ("CompilationError", "CompileTimeAssertionFailure", "PTXASError"):
                raise KernelResourceError(f"Triton failed to compile {config}: {e}", config) from e
            raise


def _interpreter_bf16(fn):
    """Triton 3.6's interpreter computes bf16 tl.dot wrongly (garbage ~1e9): there, run bf16 inputs
    through the fp32 path and round the output back to bf16. Compiled GPU code is unaffected."""
    def wrapped(q, k, v, *args, **kwargs):
        if not (_env.INTERPRET and q.dtype == torch.bfloat16):
            return fn(q, k, v, *args, **kwargs)
        out, *rest = fn(q.float(), k.float(), v.float(), *args, **kwargs)
        return (out.to(torch.bfloat16), *rest)
    return wrapped


@_interpreter_bf16
def _teaching(q, k, v, causal, sm_scale, block_m, block_n, trace: bool):
    from . import teaching
    b, h, n_q, d = q.shape
    n_k = k.shape[2]
    bm, bn = _teaching_blocks(q, k, block_m, block_n)
    q, k, v = (x.contiguous() for x in (q, k, v))
    o = torch.empty_like(q)
    lse = torch.empty((b, h, n_q), dtype=torch.float32, device=q.device)
    tr = None
    if trace:
        tr = torch.full((3, b * h, n_q, math.ceil(n_k / bn)), float("nan"), dtype=torch.float32, device=q.device)
    lanes_m, lanes_n = _next_pow2(bm), _next_pow2(bn)
    block_d = _next_pow2(d)
    if not _env.INTERPRET:
        block_d = max(16, block_d)
    warps = 4 if lanes_m * block_d <= 128 * 128 else 8           # as the fast kernel's tuned d=128 tile
    config = dict(impl="teaching", block_m=bm, block_n=bn, d=d, dtype=str(q.dtype), causal=causal,
                  num_warps=warps, num_stages=2)
    _guarded(lambda: teaching.launch(q, k, v, o, lse, tr, causal=causal, sm_scale=sm_scale,
                                     block_m=bm, block_n=bn, block_m_lanes=lanes_m, block_n_lanes=lanes_n,
                                     block_d=block_d, num_warps=warps, num_stages=2), config)
    return o, lse, tr


@_interpreter_bf16
def _fast(q, k, v, **kwargs):
    from . import fast
    return fast.forward(q, k, v, guarded=_guarded, **kwargs)


class _FlashFunction(torch.autograd.Function):
    """Forward by the teaching or fast kernel (saving O and the log-sum-exp, O(N) memory), backward
    by kernels/backward.py, which recomputes P tile by tile instead of storing it."""

    @staticmethod
    def forward(ctx, q, k, v, causal, sm_scale, impl, block_m, block_n):
        if impl == "teaching":
            o, lse, _ = _teaching(q, k, v, causal, sm_scale, block_m, block_n, trace=False)
        else:
            o, lse = _fast(q, k, v, causal=causal, sm_scale=sm_scale, block_m=block_m, block_n=block_n)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.mark_non_differentiable(lse)
        ctx.causal, ctx.sm_scale = causal, sm_scale
        return o, lse

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, do, _dlse):
        q, k, v, o, lse = ctx.saved_tensors
        return (*_backward(q, k, v, o, lse, do, causal=ctx.causal, sm_scale=ctx.sm_scale),
                None, None, None, None, None)


def _backward(q, k, v, o, lse, do, *, causal, sm_scale):
    from . import backward
    dtype = q.dtype
    if _env.INTERPRET and dtype == torch.bfloat16:                 # see _interpreter_bf16
        q, k, v, o, do = (x.float() for x in (q, k, v, o, do))
    q, k, v, o = (x.contiguous() for x in (q, k, v, o))
    guarded = functools.partial(_guarded, lock=_env.INTERPRET)      # CPU autograd runs on the caller's thread
    grads = backward.backward(q, k, v, o, lse, do.to(q.dtype), causal=causal, sm_scale=sm_scale,
                              interpret=_env.INTERPRET, guarded=guarded)
    return tuple(g.to(dtype) for g in grads)


def _needs_grad(*xs) -> bool:
    return torch.is_grad_enabled() and any(x.requires_grad for x in xs)


def _sdpa(q, k, v, causal, sm_scale, backend):
    import torch.nn.functional as F
    n_q, n_k = q.shape[2], k.shape[2]
    kwargs = dict(scale=sm_scale)
    if causal and n_q != n_k:                          # SDPA's is_causal is top-left aligned
        kwargs["attn_mask"] = causal_mask(n_q, n_k, q.device)
    else:
        kwargs["is_causal"] = causal
    if backend is None:
        out = F.scaled_dot_product_attention(q, k, v, **kwargs)
    else:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        which = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                 "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}[backend]
        try:
            with sdpa_kernel(which):
                out = F.scaled_dot_product_attention(q, k, v, **kwargs)
        except RuntimeError as e:
            if isinstance(e, torch.cuda.OutOfMemoryError):
                raise
            raise KernelUnavailable(f"SDPA {backend} backend cannot run this case: {str(e).splitlines()[0]}") from e
    if causal and n_q > n_k:                           # rows that see no key: zeros, as the kernels give
        out[:, :, : n_q - n_k] = 0
    return out


def attention(q, k, v, *, causal: bool = False, sm_scale: float | None = None, impl: str = "fast",
              block_m: int | None = None, block_n: int | None = None, sdpa_backend: str | None = None):
    """Attention output (B, H, Nq, d) in q's dtype. See the module docstring for `impl`."""
    if impl == "sdpa" and sdpa_backend is not None:
        if sdpa_backend not in SDPA_BACKENDS:
            raise KernelInputError(f"sdpa_backend must be one of {SDPA_BACKENDS}; got {sdpa_backend!r}")
        impl = f"sdpa-{sdpa_backend}"
    validate(q, k, v, impl)
    causal, scale = _options(q, causal, sm_scale)
    if impl == "naive":
        return _guarded(lambda: naive_attention(q, k, v, causal=causal, sm_scale=scale),
                        dict(impl=impl, shape=tuple(q.shape)))
    if impl.startswith("sdpa"):
        backend = impl.split("-", 1)[1] if "-" in impl else None
        return _guarded(lambda: _sdpa(q, k, v, causal, scale, backend), dict(impl=impl, shape=tuple(q.shape)))
    if _needs_grad(q, k, v):
        return _FlashFunction.apply(q, k, v, causal, scale, impl, block_m, block_n)[0]
    if impl == "teaching":
        return _teaching(q, k, v, causal, scale, block_m, block_n, trace=False)[0]
    return _fast(q, k, v, causal=causal, sm_scale=scale, block_m=block_m, block_n=block_n)[0]


def attention_trace(q, k, v, *, causal: bool = False, sm_scale: float | None = None,
                    block_m: int, block_n: int):
    """Run the teaching kernel with TRACE on: (out (B, H, Nq, d), KernelTrace with (B, H, Nq, Tc) fields)."""
    validate(q, k, v, "teaching")
    causal, scale = _options(q, causal, sm_scale)
    out, _, tr = _teaching(q, k, v, causal, scale, block_m, block_n, trace=True)
    b, h, n_q, _ = q.shape
    tr = tr.view(3, b, h, n_q, -1)
    return out, KernelTrace(m=tr[0], l=tr[1], alpha=tr[2])


def attention_with_lse(q, k, v, *, causal: bool = False, sm_scale: float | None = None, impl: str = "fast",
                       block_m: int | None = None, block_n: int | None = None):
    """(out, lse) where lse (B, H, Nq) float32 is the row-wise log-sum-exp of the scaled scores."""
    if impl not in ("naive", "teaching", "fast"):
        raise KernelInputError(f"attention_with_lse supports naive, teaching and fast; got {impl!r}")
    validate(q, k, v, impl)
    causal, scale = _options(q, causal, sm_scale)
    if impl == "naive":
        return naive_attention(q, k, v, causal=causal, sm_scale=scale, return_lse=True)
    if impl == "teaching":
        o, lse, _ = _teaching(q, k, v, causal, scale, block_m, block_n, trace=False)
        return o, lse
    return _fast(q, k, v, causal=causal, sm_scale=scale, block_m=block_m, block_n=block_n)
