"""Which backward runs: the Gluon warp-specialised one (kernels/ws_bwd.py, kind "ws"), the fused Triton one
(kernels/backward_fused.py) or the 7-matmul reference (kernels/backward.py), chosen per call by backward_kind from
BACKWARD_KIND, the inputs and the device; the bench records backward_label() in every dataset's provenance. Used
by flashviz_kernels.api (which re-exports these names, BACKWARD_KIND aside: set it here)."""
import torch

from . import _env
from .errors import KernelInputError, KernelOutOfMemory
from .variants import Variant

# Which backward runs: "fused" (kernels/backward_fused.py, 5 matmuls per tile, dQ by atomic adds),
# "reference" (kernels/backward.py, 7 matmuls, no atomics: the teaching version), "ws" (kernels/ws_bwd.py, Gluon,
# 5 matmuls, dQ by TMA reduce-adds; sm_90 + the ws forward's verified triton only; masks and GQA too) or "auto":
# ws where it can run (WS_AUTO_DIMS, plain or causal; WS_MASK_AUTO_DIMS, windows and documents; WS_GQA_AUTO_DIMS,
# GQA/MQA), else fused where it was verified compiled (FUSED_VERIFIED, d <= FUSED_AUTO_MAX_D), else reference.
# attention_backward(kind=...) overrides it per call; flashviz.bench records it (backward_label) in the provenance
# of every dataset.
BACKWARD_KINDS = ("auto", "fused", "reference", "ws")
# "auto" takes ws at these head dims: there it measured faster than both Triton backwards in every cell, backward
# alone, fp16, B=4, H=32, N 4096-16384, causal both (`python -m flashviz_kernels.tune_backward --kind ws --d 128 64
# --n 4096 8192 16384 --dq-mode tma2 --rep 60`, assets/benchmarks/tune/nvidia-h200-backward-ws-2026-12-01d.json and
# -01e.json, and every earlier ws file; kernels/ws_bwd.py has the figures). If it fails to compile or launch,
# autograd falls back to the Triton backwards (ws_bwd.disable).
WS_AUTO_DIMS = (64, 128)
# "auto" takes ws for masks beyond causal (sliding windows, packed documents: the kernel reads the host's by-key
# tables) at these head dims, where it measured faster than the 7-matmul reference (the only Triton backward that
# takes them) in every cell: backward alone, fp16, B=4, H=32, causal window 1024 and causal packed documents
# (N/4, N/8, N/2, the rest), N 4096 / 16384 (`python -m flashviz_kernels.tune_backward --kind ws --variant window
# --d 128 --n 4096 16384 --flex`, then docs, and --d 64 without --flex; commit 5cb8218; assets/benchmarks/tune/
# nvidia-h200-backward-ws-{window,docs}-d{128,64}-2026-12-01.json), time / reference's time:
#   window  d=128 0.73 / 0.74 (FlexAttention's backward: 0.80 / 0.64)   d=64 0.69 / 0.71
#   docs    d=128 0.74 / 0.74 (FlexAttention's backward: 0.83 / 0.60)   d=64 0.69 / 0.72
WS_MASK_AUTO_DIMS: tuple[int, ...] = (64, 128)
# "auto" takes ws for GQA/MQA (k, v with fewer heads; dK/dV per query head, summed per group) at these head dims,
# where it measured faster than the 7-matmul reference in every cell: causal, H_kv = 8, same shapes and commands
# as above with --variant gqa (commit e532438; assets/benchmarks/tune/nvidia-h200-backward-ws-gqa-d{128,64}-
# 2026-12-01.json), time / reference's time:
#   gqa     d=128 0.80 / 0.78 (FlexAttention's backward: 0.81 / 0.63)   d=64 0.82 / 0.81
# against the ws backward on MHA with the same K/V per query head it took 1.09x / 1.01x (d=128) and 1.05x / 1.00x
# (d=64) the time: the group sum and the per-query-head dK/dV buffers cost up to 9 % at N = 4096.
WS_GQA_AUTO_DIMS: tuple[int, ...] = (64, 128)
BACKWARD_KIND = "auto"
# Compute capabilities where the fused backward passed tests/test_backward_fused_gpu.py compiled: the H200 (sm_90,
# triton 3.6.0, torch 2.11; tests/device_verify_fused.sh, 2026-11-30).
FUSED_VERIFIED: set[tuple[int, int]] = {(9, 0)}
FUSED_MAX_D = 128                   # head dims it was tested at (48, 64, 128); larger ones take the reference
# "auto" takes it only where it measured faster than the 7-matmul reference, backward alone, fp16, B=4, H=32,
# N 4096-16384, causal both (assets/benchmarks/tune/nvidia-h200-backward-2026-11-30.json, `python -m
# flashviz_kernels.tune_backward --kind fused --d 64 128 --n 4096 8192 16384 --rep 60`): d=64 fused 0.77-0.81x
# SDPA cuDNN vs reference 0.68-0.75x; d=128 fused at best 0.58-0.67x vs reference 0.71-0.73x.
FUSED_AUTO_MAX_D = 64


def backward_kind(q, kind=None, config=None, var: Variant | None = None) -> str:
    """"fused", "reference" or "ws" for these inputs; kind None reads BACKWARD_KIND. A 6-number config is the
    reference kernel's, a 5-number one the fused kernel's. The fused kernel takes plain or causal attention
    only: any other variant (window, softcap, ALiBi, GQA, documents) runs the reference."""
    from . import backward_fused
    kind = BACKWARD_KIND if kind is None else kind
    simple = var is None or fused_takes(var)
    if kind not in BACKWARD_KINDS:
        raise KernelInputError(f"backward kind must be one of {', '.join(BACKWARD_KINDS)}; got {kind!r}")
    if kind == "ws":
        return ws_kind(q, config, var)
    if config is not None:
        by_len = "reference" if len(config) == 6 else "fused"
        if kind not in ("auto", by_len):
            raise KernelInputError(f"a {len(config)}-number config is the {by_len} backward's, not the {kind} one's")
        kind = by_len
    if kind == "fused":
        why = backward_fused.supported(q) or (None if simple else "it takes plain or causal attention only, "
                                               "not this variant")
        if why:
            raise KernelInputError(f"the fused backward cannot take these inputs: {why}; use kind='reference'")
        return kind
    if kind == "auto" and ws_auto(q, var):
        return "ws"
    return triton_auto(q, simple)


def ws_auto(q, var: Variant | None = None) -> bool:
    """Whether "auto" runs the ws backward on q: a compiled GPU run, a variant it takes at a head dim in
    WS_AUTO_DIMS (masks beyond causal: also in WS_MASK_AUTO_DIMS; GQA/MQA: also in WS_GQA_AUTO_DIMS), and
    ws_bwd.supported (sm_90, verified triton, fp16/bf16, no earlier failure)."""
    from . import ws_bwd
    dims = set(WS_AUTO_DIMS)
    if var is not None:
        if not ws_bwd.takes_variant(var):
            return False
        if ws_bwd.uses_table(var):
            dims &= set(WS_MASK_AUTO_DIMS)
        if var.groups > 1:
            dims &= set(WS_GQA_AUTO_DIMS)
    return not _env.INTERPRET and q.device.type == "cuda" and q.shape[3] in dims and ws_bwd.supported(q) is None


def triton_auto(q, simple: bool = True) -> str:
    """"fused" or "reference": what "auto" picks among the Triton backwards (and what the ring's per-block backward
    runs: flashviz/ring_memory.py accounts for these two)."""
    from . import backward_fused
    if simple and not _env.INTERPRET and q.device.type == "cuda" and backward_fused.supported(q) is None \
            and q.shape[3] <= FUSED_AUTO_MAX_D and torch.cuda.get_device_capability(q.device) in FUSED_VERIFIED:
        return "fused"
    return "reference"


def backward_label(device="cuda") -> str:
    """What BACKWARD_KIND means on this device, for a dataset's provenance."""
    if BACKWARD_KIND != "auto":
        return BACKWARD_KIND
    if _env.INTERPRET or not torch.cuda.is_available():
        return "auto: reference (7 matmuls) off CUDA"
    cc = torch.cuda.get_device_capability(device)
    from . import ws_bwd
    ws = "" if ws_bwd.unavailable() else (f"ws (Gluon, 5 matmuls, TMA dQ) for plain/causal d in {WS_AUTO_DIMS}, "
                                          f"windows/documents d in {WS_MASK_AUTO_DIMS}, GQA d in {WS_GQA_AUTO_DIMS}, "
                                          "else ")
    if cc in FUSED_VERIFIED:
        return (f"auto: {ws}fused (5 matmuls) for d <= {FUSED_AUTO_MAX_D}, reference (7 matmuls) above, on "
                f"sm_{cc[0]}{cc[1]}")
    return f"auto: {ws}reference (7 matmuls) on sm_{cc[0]}{cc[1]}"


def fused_takes(var: Variant) -> bool:
    """Plain or causal attention, nothing else: what the fused backward takes."""
    return (var.softcap is None and var.slopes is None and var.seq_ids is None and var.groups == 1
            and var.left == -1 and var.right in (-1, 0))


def ws_kind(q, config, var: Variant | None) -> str:
    """"ws" when kernels/ws_bwd.py can take these inputs here, else KernelInputError saying why."""
    from . import ws_bwd
    if config is not None:
        raise KernelInputError("the ws backward takes no config (kernels/ws_bwd.py CONFIGS picks its tiles)")
    why = (None if var is None or ws_bwd.takes_variant(var) else "it takes plain or causal attention, sliding "
           "windows, packed documents and GQA/MQA only (no softcap or ALiBi)") or ws_bwd.supported(q)
    if why:
        raise KernelInputError(f"the ws backward cannot take these inputs: {why}; use kind='fused' or 'reference'")
    return "ws"


def backward_launch(kind, q, k, v, o, lse, do, dlse, causal, sm_scale, config, var: Variant | None = None):
    """(a function running the "fused" or "ws" backward on these inputs, the fields api logs for it); var: the ws
    backward's variant (windows, packed documents, GQA), None: plain or causal by `causal`."""
    if kind == "ws":
        from . import ws_bwd
        return (lambda: ws_bwd.backward(q, k, v, o, lse, do, causal=causal, sm_scale=sm_scale, dlse=dlse,
                                        variant=var), dict(impl="ws_bwd", config=ws_bwd.CONFIGS[q.shape[3]]))
    from . import backward_fused
    config = backward_fused.pick_config(q) if config is None else config
    return (lambda: backward_fused.backward(q, k, v, o, lse, do, causal=causal, sm_scale=sm_scale, dlse=dlse,
                                            config=config), dict(impl="backward_fused", config=config))


def ws_fallback(picked: str, asked, error: Exception) -> bool:
    """Whether a failed backward should be retried with triton_auto's: only where "auto" (asked, None: BACKWARD_KIND)
    picked ws and the failure is not out-of-memory (the Triton backwards would hit it too). Unless the kernel refused
    these inputs alone (KernelInputError), ws is switched off for the process first (ws_bwd.disable, one warning)."""
    from . import ws_bwd
    if picked != "ws" or (BACKWARD_KIND if asked is None else asked) != "auto" or \
            isinstance(error, (KernelOutOfMemory, torch.cuda.OutOfMemoryError)):
        return False
    if not isinstance(error, KernelInputError):
        ws_bwd.disable(f"the Gluon backward failed here ({type(error).__name__}: "
                       f"{str(error).splitlines()[0][:200] if str(error) else ''})")
    return True
