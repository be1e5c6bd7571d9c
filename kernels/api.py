"""One entry point for every attention implementation: validation, dispatch, typed errors.

    attention(q, k, v, *, causal=False, sm_scale=None, impl="fast", block_m=None, block_n=None,
              num_warps=None, num_stages=None, sdpa_backend=None, window=None, alibi_slopes=None,
              softcap=None, seq_ids=None) -> out
    attention_with_lse(q, k, v, *, same keywords but sdpa_backend) -> (out, lse)    both differentiable
    attention_trace(q, k, v, *, causal=False, sm_scale=None, block_m, block_n, window=None, alibi_slopes=None,
                    softcap=None, seq_ids=None) -> (out, KernelTrace)
    attention_backward(q, k, v, o, lse, do, *, causal=False, sm_scale=None, dlse=None, config=None, kind=None,
                       window=None, alibi_slopes=None, softcap=None, seq_ids=None) -> (dq, dk, dv)   Triton backward
    launch_plan(q, k, v, *, impl="fast", causal, window, alibi_slopes, softcap, seq_ids) -> LaunchPlan
                    (kernel, block_m, block_n) with .reason: which forward kernel such a call runs, and why
    backward_plan(q, k, v, *, causal, window, alibi_slopes, softcap, seq_ids, kind=None) -> BackwardPlan(kernel, reason)
    backward_pick.BACKWARD_KIND ("auto" | "fused" | "reference" | "ws"): which backward autograd, attention_backward run

Inputs, options and tiles are checked here, once, for every kernel (the checks: kernels/checks.py, re-exported
here; tiles by flashviz_kernels.rules, variants by flashviz_kernels.variants); the kernel modules (teaching, fast,
backward) only pick their default launch and run it.

q is (B, H, Nq, d); k and v are (B, H_kv, Nk, d). impl is one of IMPLS: "naive" (torch, materialises
N x N), "sdpa" (torch.nn.functional.scaled_dot_product_attention; "sdpa-flash", "sdpa-cudnn",
"sdpa-efficient", "sdpa-math" pin its backend), "teaching" and "fast" (the Triton kernels; on a
machine without CUDA they run in Triton's interpreter on CPU tensors), "ws" (the warp-specialised Gluon
forward, Hopper + verified triton only; plain, causal, a causal sliding window, causal ALiBi, packed documents and
GQA/MQA: kernels/ws.py). "fast" with no pinned launch and a variant ws takes runs "ws" where the forward table
(kernels/forward_table.py) says it measured faster and it can run here; otherwise, or after a Gluon failure, the tl
kernel (logged once per reason on the logger "flashviz_kernels"; launch_plan(...).reason and ws.status() say why).

Variants (flash-attn's semantics, defined once in flashviz_kernels.variants; None = off; every impl):
  window=(left, right)  query i sees key j iff i + Nk - Nq - left <= j <= i + Nk - Nq + right; -1 = unbounded
                        on that side; causal=True is (-1, 0) and intersects with a window.
  alibi_slopes          (H,) or (B, H) floating tensor on q's device: adds -slope * |i + Nk - Nq - j| to the score.
  softcap=c > 0         the scaled score s becomes c * tanh(s / c) (before ALiBi and the mask). No SDPA impl
                        can express it: they raise KernelUnavailable.
  seq_ids               (B, N) integer tensor, packed documents (needs Nq == Nk): attention only between equal
                        ids; must be non-decreasing along N (each document contiguous), else KernelInputError.
  GQA / MQA             k, v with H_kv heads, H % H_kv == 0: query head h reads kv head h // (H // H_kv); the
                        kernels index it (no copies), the backward sums dK, dV over each group.
Order: s = q.k * sm_scale, softcap, + ALiBi, mask. Slopes and softcap are constants (no gradient). A row that sees
no key gives zeros and lse -inf. Bad values raise KernelInputError / KernelTypeError with an i18n `key`.
"""
from __future__ import annotations

import contextlib
import importlib
import math
from typing import NamedTuple

import torch

from . import _env, variants, ws
from .backward_pick import (BACKWARD_KINDS, FUSED_MAX_D, backward_kind, backward_label,  # noqa: F401 (API)
                            backward_launch, choose, triton_auto, ws_fallback)
from .checks import (IMPLS, KERNEL_DTYPES, MAX_HEAD_DIM, TRITON_IMPLS, check_block,  # noqa: F401 (API)
                     check_launch, options, validate)
from .errors import KernelInputError, KernelOutOfMemory, KernelResourceError, KernelUnavailable
from .naive import naive_attention
from .sdpa import SDPA_BACKENDS, sdpa_attention
from .variants import Variant

class KernelTrace(NamedTuple):
    """Per query row, after each key tile: running max m, running sum l, rescale alpha; and per query block the
    number of key tiles the teaching kernel ran.

    m, l, alpha are (B, H, Nq, Tc) float32; entries of tiles the kernel skipped (no pair of the Br x Bc block
    visible: causal, window, documents) stay NaN. m is in natural units of the scaled (softcapped, ALiBi'd)
    scores, as in flashviz.engine.online_softmax. tiles_run is (B, H, Tr) int32, Tr = ceil(Nq / Br): the loop
    iterations each program ran (the rule: flashviz_kernels.variants).
    """
    m: torch.Tensor
    l: torch.Tensor
    alpha: torch.Tensor
    tiles_run: torch.Tensor


def _check_tiles(impl: str, q, k, var: Variant, block_m, block_n, num_warps, num_stages) -> tuple[int, ...]:
    """The kernel's (block_m, block_n, num_warps, num_stages): the given values checked, the rest its own pick."""
    bm, bn = (None if x is None else check_block(name, x, impl) for name, x in (("block_m", block_m),
                                                                              ("block_n", block_n)))
    ws_kw = _ws_band(var) if impl == "ws" else {}                        # ws: a window's (documents') schedule
    picked = _kernel(impl).pick_config(q, k, causal=var.right == 0, block_m=bm, block_n=bn, **ws_kw)
    warps = picked[2] if num_warps is None else check_launch("num_warps", num_warps, 32, pow2=True)
    stages = picked[3] if num_stages is None else check_launch("num_stages", num_stages, 8)
    return picked[0], picked[1], warps, stages


def _kernel(impl: str):
    """The module of a Triton impl; each has pick_config(q, k, *, causal, block_m, block_n) and
    forward(q, k, v, *, variant, sm_scale, block_m, block_n, num_warps, num_stages) -> (out, lse)."""
    return importlib.import_module(f".{impl}", __package__)


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
        out, lse = fn(q.float(), k.float(), v.float(), *args, **kwargs)
        return out.to(torch.bfloat16), lse
    return wrapped


def _ws_launch(q, k, var: Variant) -> tuple[int, int, int, int] | None:
    """impl="fast" with nothing pinned: the ws kernel's launch when the forward table sends this call there and it
    can run here (ws.takes, ws.fast_should_use), else None (the tl kernel)."""
    if not ws.takes(var):
        return None
    if not ws.fast_should_use(q, k, var.right == 0, window=var.left >= 0, alibi=var.slopes is not None,
                              docs=var.seq_ids is not None):
        return None
    return ws.pick_config(q, k, causal=var.right == 0, **_ws_band(var))


def _ws_band(var: Variant) -> dict:
    """The ws launch's schedule keywords: a causal window's left side, packed documents (their schedule, not the (d,
    causal) one: query tiles that each run about as many key tiles), ALiBi (its row's stages)."""
    return dict(window=var.left >= 0, docs=var.seq_ids is not None, alibi=var.slopes is not None)


@_interpreter_bf16
def _forward(q, k, v, *, impl, var: Variant, sm_scale, tiles, trace=None, tiles_run=None, pinned=True):
    """One launch of the teaching, fast or ws forward with checked tiles (block_m, block_n, num_warps, num_stages).
    impl="fast" with nothing pinned and a variant ws takes (ws.takes) runs the Gluon ws kernel where
    ws.fast_should_use says so; if that kernel fails to compile or launch, ws is switched off for the process (one
    warning) and the tl kernel runs."""
    if impl == "fast" and not pinned and trace is None:
        wt = _ws_launch(q, k, var)
        if wt is not None:
            try:
                return _forward(q, k, v, impl="ws", var=var, sm_scale=sm_scale, tiles=wt)
            except KernelOutOfMemory:
                raise
            except Exception as e:                 # noqa: BLE001 - any Gluon failure: the tl kernel instead
                ws.disable(f"the Gluon kernel failed here ({type(e).__name__}: {str(e).splitlines()[0][:200]})")
    bm, bn, warps, stages = tiles
    config = dict(impl=impl, block_m=bm, block_n=bn, d=q.shape[3], dtype=str(q.dtype), **var.describe(),
                  num_warps=warps, num_stages=stages)
    if impl == "ws":                                # causal (right side 0), the window's left side, GQA by k's heads
        docs = None if var.seq_ids is None else variants.tables(var, q.shape[2], k.shape[2], q.device, bm, bn)
        return _guarded(lambda: _kernel(impl).forward(q, k, v, causal=var.right == 0, window_left=var.left,
                                                      alibi_slopes=var.slopes, docs=docs, sm_scale=sm_scale,
                                                      block_m=bm, block_n=bn, num_warps=warps, num_stages=stages),
                        config)
    extra = {} if trace is None else dict(trace=trace, tiles_run=tiles_run)
    return _guarded(lambda: _kernel(impl).forward(q, k, v, variant=var, sm_scale=sm_scale, block_m=bm, block_n=bn,
                                                  num_warps=warps, num_stages=stages, **extra), config)


class LaunchPlan(tuple):
    """(kernel, block_m, block_n), compared and unpacked as that tuple, plus .reason: why this kernel runs (the
    forward table's row, or why ws cannot run here)."""

    def __new__(cls, kernel: str, block_m: int, block_n: int, reason: str = ""):
        self = super().__new__(cls, (kernel, block_m, block_n))
        self.reason = reason
        return self

    def __getnewargs__(self):
        return (*self, self.reason)

    kernel = property(lambda self: self[0])
    block_m = property(lambda self: self[1])
    block_n = property(lambda self: self[2])


class BackwardPlan(NamedTuple):
    kernel: str          # "ws", "fused" or "reference"
    reason: str


def launch_plan(q, k, v, *, impl: str = "fast", causal: bool = False, window=None, alibi_slopes=None,
                softcap=None, seq_ids=None) -> LaunchPlan:
    """(kernel, block_m, block_n) that attention(q, k, v, impl=impl, ...) with no pinned launch runs: kernel "ws" or
    "tl" for impl="fast" (the forward table, then whether ws can run here), else impl; .reason says why.
    Benchmarks count executed FLOPs with these tiles."""
    if impl not in TRITON_IMPLS:
        raise KernelInputError(f"launch_plan takes a Triton impl ({', '.join(TRITON_IMPLS)}), got {impl!r}")
    var, _ = _prepare(q, k, v, impl, causal, None, window, alibi_slopes, softcap, seq_ids)
    wt = _ws_launch(q, k, var) if impl == "fast" else None
    if wt is not None:
        return LaunchPlan("ws", wt[0], wt[1], _forward_reason(q, k, var))
    bm, bn = _check_tiles(impl, q, k, var, None, None, None, None)[:2]
    if impl != "fast":
        return LaunchPlan(impl, bm, bn, f"impl={impl!r} asked for")
    return LaunchPlan("tl", bm, bn, _forward_reason(q, k, var))


def _forward_reason(q, k, var: Variant) -> str:
    """Why impl="fast" runs the kernel it runs for these inputs."""
    if not ws.takes(var):
        return "the ws kernel does not take this variant (softcap, or ALiBi or a window with a right side)"
    kernel, why = ws.fast_route(q, k, var.right == 0, window=var.left >= 0, alibi=var.slopes is not None,
                                docs=var.seq_ids is not None)
    if kernel != "ws":
        return f"the forward table: {why}"
    cannot = ws.unsupported(q)
    return f"the forward table names ws ({why}), but it cannot run here: {cannot}" if cannot else \
        f"the forward table: {why}"


def backward_plan(q, k, v, *, causal: bool = False, window=None, alibi_slopes=None, softcap=None, seq_ids=None,
                  kind: str | None = None) -> BackwardPlan:
    """Which backward autograd runs after attention(q, k, v, ...) with these keywords, and why (kind: as
    attention_backward's; None: backward_pick.BACKWARD_KIND)."""
    var, _ = _prepare(q, k, v, "teaching", causal, None, window, alibi_slopes, softcap, seq_ids)
    qq = q.float() if _env.INTERPRET and q.dtype == torch.bfloat16 else q
    return BackwardPlan(*choose(qq, kind, None, var))


class _FlashFunction(torch.autograd.Function):
    """Forward by the teaching or fast kernel (saving O and the log-sum-exp, O(N) memory), backward
    by kernels/backward.py, which recomputes P tile by tile instead of storing it. Both outputs carry
    gradients: the one reaching lse enters the backward as delta - dlse."""

    @staticmethod
    def forward(ctx, q, k, v, var, sm_scale, impl, tiles, pinned):
        o, lse = _forward(q, k, v, impl=impl, var=var, sm_scale=sm_scale, tiles=tiles, pinned=pinned)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.var, ctx.sm_scale = var, sm_scale
        ctx.set_materialize_grads(False)                   # an unused output's gradient arrives as None
        return o, lse

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, do, dlse):
        q, k, v, o, lse = ctx.saved_tensors
        if do is None:
            do = torch.zeros_like(o)
        grads = _backward(q, k, v, o, lse, do, dlse, var=ctx.var, sm_scale=ctx.sm_scale, config=None,
                          lock=_env.INTERPRET)
        return (*grads, None, None, None, None, None)


def _backward(q, k, v, o, lse, do, dlse, *, sm_scale, config, lock, causal=False, var: Variant | None = None,
              kind=None):
    """lock=False on a GPU: see _guarded. On CPU autograd runs on the caller's thread, so it takes the lock.
    var (a checked Variant) replaces causal when given (the ring module passes causal alone). Where "auto" ran the
    ws backward and it failed, backward_pick.ws_fallback decides whether the Triton backward takes the call over."""
    from . import backward
    var = var if var is not None else (variants.CAUSAL if causal else variants.PLAIN)
    dtype = q.dtype
    if _env.INTERPRET and dtype == torch.bfloat16:                 # see _interpreter_bf16
        q, k, v, o, do = (x.float() for x in (q, k, v, o, do))
    q, k, v, o = (x.contiguous() for x in (q, k, v, o))
    log = dict(d=q.shape[3], dtype=str(q.dtype), **var.describe())
    picked = backward_kind(q, kind, config, var)
    if picked != "reference":                                       # fused (5-number config) or ws (Gluon, sm_90)
        run, info = backward_launch(picked, q, k, v, o, lse, do.to(q.dtype), dlse, var.causal, sm_scale, config,
                                    var if picked == "ws" else None)
        try:
            return tuple(g.to(dtype) for g in _guarded(run, dict(info, **log), lock=lock))
        except Exception as e:                 # noqa: BLE001 - "auto" chose ws and Gluon failed: a Triton one
            if not ws_fallback(picked, kind, e):
                raise
        return _backward(q, k, v, o, lse, do, dlse, sm_scale=sm_scale, config=None, lock=lock, var=var,
                         kind=triton_auto(q))
    config = backward.pick_config(q) if config is None else config
    log = dict(impl="backward", dkdv_blocks=config[:2], dq_blocks=config[2:4], num_warps=config[4],
               num_stages=config[5], **log)
    grads = _guarded(lambda: backward.backward(q, k, v, o, lse, do.to(q.dtype), variant=var, sm_scale=sm_scale,
                                               dlse=dlse, config=config), log, lock=lock)
    return tuple(g.to(dtype) for g in grads)


def _needs_grad(*xs) -> bool:
    return torch.is_grad_enabled() and any(x.requires_grad for x in xs)


def _prepare(q, k, v, impl, causal, sm_scale, window=None, alibi_slopes=None, softcap=None,
             seq_ids=None) -> tuple[Variant, float]:
    """Validation every entry point shares: inputs, causal, sm_scale (the fast kernel's exp2 trick needs it > 0),
    the variant keywords (flashviz_kernels.variants.parse)."""
    validate(q, k, v, impl)
    causal, scale = options(q, causal, sm_scale)
    if impl in ("fast", "ws") and not scale > 0:
        raise KernelInputError(f"the {impl} kernel needs a positive sm_scale, got {scale}")
    var = variants.parse(q, k, causal=causal, window=window, alibi_slopes=alibi_slopes, softcap=softcap,
                         seq_ids=seq_ids)
    if impl == "ws" and not ws.takes(var):
        raise KernelUnavailable("impl='ws' takes plain or causal attention, a causal sliding window, causal ALiBi, "
                                "packed documents and GQA/MQA only; use impl='fast' for other windows, softcap or "
                                "other ALiBi")
    return var, scale


def attention(q, k, v, *, causal: bool = False, sm_scale: float | None = None, impl: str = "fast",
              block_m: int | None = None, block_n: int | None = None, num_warps: int | None = None,
              num_stages: int | None = None, sdpa_backend: str | None = None, window: tuple[int, int] | None = None,
              alibi_slopes: torch.Tensor | None = None, softcap: float | None = None,
              seq_ids: torch.Tensor | None = None):
    """Attention output (B, H, Nq, d) in q's dtype. See the module docstring for `impl` and the variants; block_m,
    block_n, num_warps, num_stages pin the Triton kernels' launch (None: the kernel's own pick)."""
    if impl == "sdpa" and sdpa_backend is not None:
        if sdpa_backend not in SDPA_BACKENDS:
            raise KernelInputError(f"sdpa_backend must be one of {SDPA_BACKENDS}; got {sdpa_backend!r}")
        impl = f"sdpa-{sdpa_backend}"
    var, scale = _prepare(q, k, v, impl, causal, sm_scale, window, alibi_slopes, softcap, seq_ids)
    if impl == "naive":
        return _guarded(lambda: naive_attention(q, k, v, sm_scale=scale, variant=var),
                        dict(impl=impl, shape=tuple(q.shape)))
    if impl.startswith("sdpa"):
        backend = impl.split("-", 1)[1] if "-" in impl else None
        return _guarded(lambda: sdpa_attention(q, k, v, var, scale, backend), dict(impl=impl, shape=tuple(q.shape)))
    return _triton(q, k, v, impl, var, scale, block_m, block_n, num_warps, num_stages)[0]


def _triton(q, k, v, impl, var, scale, block_m, block_n, num_warps, num_stages):
    """(out, lse) of a Triton impl, through autograd when an input needs a gradient."""
    tiles = _check_tiles(impl, q, k, var, block_m, block_n, num_warps, num_stages)
    pinned = any(x is not None for x in (block_m, block_n, num_warps, num_stages))
    if _needs_grad(q, k, v):
        return _FlashFunction.apply(q, k, v, var, scale, impl, tiles, pinned)
    return _forward(q, k, v, impl=impl, var=var, sm_scale=scale, tiles=tiles, pinned=pinned)


def attention_trace(q, k, v, *, causal: bool = False, sm_scale: float | None = None, block_m: int, block_n: int,
                    window: tuple[int, int] | None = None, alibi_slopes: torch.Tensor | None = None,
                    softcap: float | None = None, seq_ids: torch.Tensor | None = None):
    """Run the teaching kernel with TRACE on: (out (B, H, Nq, d), KernelTrace with (B, H, Nq, Tc) m, l, alpha
    and (B, H, Tr) tiles_run)."""
    var, scale = _prepare(q, k, v, "teaching", causal, sm_scale, window, alibi_slopes, softcap, seq_ids)
    tiles = _check_tiles("teaching", q, k, var, block_m, block_n, None, None)
    b, h, n_q, _ = q.shape
    tr = torch.full((3, b * h, n_q, math.ceil(k.shape[2] / tiles[1])), float("nan"), dtype=torch.float32,
                    device=q.device)
    run = torch.full((b * h, math.ceil(n_q / tiles[0])), -1, dtype=torch.int32, device=q.device)
    out, _ = _forward(q, k, v, impl="teaching", var=var, sm_scale=scale, tiles=tiles, trace=tr, tiles_run=run)
    tr = tr.view(3, b, h, n_q, -1)
    return out, KernelTrace(m=tr[0], l=tr[1], alpha=tr[2], tiles_run=run.view(b, h, -1))


def attention_with_lse(q, k, v, *, causal: bool = False, sm_scale: float | None = None, impl: str = "fast",
                       block_m: int | None = None, block_n: int | None = None, num_warps: int | None = None,
                       num_stages: int | None = None, window: tuple[int, int] | None = None,
                       alibi_slopes: torch.Tensor | None = None, softcap: float | None = None,
                       seq_ids: torch.Tensor | None = None):
    """(out, lse) where lse (B, H, Nq) float32 is the row-wise log-sum-exp of the scaled (softcapped, ALiBi'd)
    scores (-inf for a row that sees no key). Both are differentiable for every impl."""
    if impl not in ("naive", "teaching", "fast", "ws"):
        raise KernelInputError(f"attention_with_lse supports naive, teaching, fast and ws; got {impl!r}")
    var, scale = _prepare(q, k, v, impl, causal, sm_scale, window, alibi_slopes, softcap, seq_ids)
    if impl == "naive":
        return naive_attention(q, k, v, sm_scale=scale, return_lse=True, variant=var)
    return _triton(q, k, v, impl, var, scale, block_m, block_n, num_warps, num_stages)


def attention_backward(q, k, v, o, lse, do, *, causal: bool = False, sm_scale: float | None = None, dlse=None,
                       config: tuple | None = None, kind: str | None = None, window: tuple[int, int] | None = None,
                       alibi_slopes: torch.Tensor | None = None, softcap: float | None = None,
                       seq_ids: torch.Tensor | None = None, lock: bool = True):
    """(dq, dk, dv) of the Triton backward for a forward's (o, lse) and the output gradient do (dlse: the
    gradient reaching lse, or None). kind: "fused", "reference", "ws" or "auto" (None: backward_pick.BACKWARD_KIND).
    lock: take LAUNCH_LOCK around the launch; False where this runs on autograd's device thread while the caller
    may hold it (the ring's per-block backward: then only the interpreter, which is not thread-safe, needs it).
    config pins the launch (tools/tune_backward.py times candidates so); None: the kernel's pick. The reference's
    config is (dkdv block_m, block_n, dq block_m, block_n, num_warps, num_stages), the fused one's (block_n,
    block_m, num_warps, num_stages, rotate).
    """
    var, scale = _prepare(q, k, v, "teaching", causal, sm_scale, window, alibi_slopes, softcap, seq_ids)
    for name, x in (("o", o), ("do", do)):
        if not isinstance(x, torch.Tensor) or x.shape != q.shape:
            raise KernelInputError(f"{name} must be a tensor shaped like q {tuple(q.shape)}")
    for name, x in (("lse", lse), ("dlse", dlse)):
        if (x is not None or name == "lse") and (not isinstance(x, torch.Tensor) or x.shape != q.shape[:3]):
            raise KernelInputError(f"{name} must be a tensor shaped (B, H, Nq) = {tuple(q.shape[:3])}")
        if x is not None and (not x.is_floating_point() or x.device != q.device):
            raise KernelInputError(f"{name} must be floating point on q's device ({q.device}), got {x.dtype} on "
                                   f"{x.device}")
    if config is not None:
        if len(config) not in (5, 6):
            raise KernelInputError(f"config must be 5 (fused) or 6 (reference) numbers (see the docstring), "
                                   f"got {config!r}")
        blocks = 2 if len(config) == 5 else 4
        config = (*(check_block(f"config[{i}]", x, "fast") for i, x in enumerate(config[:blocks])),
                  check_launch("num_warps", config[blocks], 32, pow2=True),
                  check_launch("num_stages", config[blocks + 1], 8), *(bool(x) for x in config[blocks + 2:]))
    return _backward(q, k, v, o, lse, do, dlse, var=var, sm_scale=scale, config=config, lock=lock, kind=kind)
