"""The checks every entry point of kernels/api.py runs before any kernel: the impl names (IMPLS, TRITON_IMPLS),
the dtypes and head dims the Triton kernels take (KERNEL_DTYPES, MAX_HEAD_DIM), validate (q, k, v shapes, dtypes
and devices against the impl; KernelTypeError / KernelInputError / KernelUnavailable with a readable message),
options (causal a real bool, sm_scale None or a finite number) and the single tile and launch values
(check_block by flashviz_kernels.rules, check_launch). kernels/api.py calls them and re-exports every name.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from . import _env, rules
from .errors import KernelInputError, KernelTypeError, KernelUnavailable
from .sdpa import SDPA_BACKENDS

IMPLS = ("naive", "sdpa", *(f"sdpa-{b}" for b in SDPA_BACKENDS), "teaching", "fast", "ws")
TRITON_IMPLS = ("teaching", "fast", "ws")
KERNEL_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
MAX_HEAD_DIM = 256


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
    if (q.shape[0], q.shape[3]) != (k.shape[0], k.shape[3]) or q.shape[1] < k.shape[1]:
        raise KernelInputError(f"q {tuple(q.shape)} and k {tuple(k.shape)} must agree in B, H and d "
                               "(or k, v have fewer heads H_kv, H % H_kv == 0: GQA/MQA)")
    if not (q.dtype == k.dtype == v.dtype):
        raise KernelTypeError(f"q, k, v must share one dtype; got {q.dtype}, {k.dtype}, {v.dtype}")
    if not (q.device == k.device == v.device):
        raise KernelTypeError(f"q, k, v must be on one device; got {q.device}, {k.device}, {v.device}")
    if not q.dtype.is_floating_point:
        raise KernelTypeError(f"attention needs floating-point inputs, got {q.dtype}")
    d = q.shape[3]
    if impl == "ws":
        from . import ws
        why = ws.unsupported(q)
        if why:
            raise KernelUnavailable(f"impl='ws' cannot run here: {why}; use impl='fast'")
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


def options(q, causal, sm_scale) -> tuple[bool, float]:
    """causal must be a bool (a string like "no" would otherwise count as True); sm_scale None (1/sqrt(d))
    or a finite real number."""
    if not isinstance(causal, bool):
        if isinstance(causal, np.bool_) or rules.as_int(causal) in (0, 1):
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


def check_block(name: str, value, impl: str) -> int:
    """One tile rule for every Triton kernel (flashviz_kernels.rules): an integer in 1..MAX_TILE, a power of two
    >= 16 when compiled; the fast kernel's TMA blocks are powers of two in the interpreter too."""
    v = rules.check_int(name, value, 1, rules.MAX_TILE, error=KernelInputError)
    why = rules.tile_problem(v, compiled=not _env.INTERPRET, any_size=impl == "teaching")
    if why:
        raise KernelInputError(f"{name} = {v}: {why}")
    return v


def check_launch(name: str, value, hi: int, pow2: bool = False) -> int:
    v = rules.check_int(name, value, 1, hi, error=KernelInputError)
    if pow2 and v & (v - 1):
        raise KernelInputError(f"{name} must be a power of two, got {v}")
    return v


