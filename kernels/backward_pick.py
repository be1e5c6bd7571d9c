"""Which backward runs, and why: the Gluon warp-specialised one (kernels/ws_bwd.py, kind "ws"), the fused Triton
one (kernels/backward_fused.py) or the 7-matmul reference (kernels/backward.py), chosen per call by choose() from
BACKWARD_KIND, the inputs, the device and kernels/backward_table.py's ROUTES; the bench records backward_label() in
every dataset's provenance. Used by flashviz_kernels.api (which re-exports these names, BACKWARD_KIND aside: set it
here). Where the table names a GPU kernel that cannot run here, choose() says why once (logger "flashviz_kernels").
"""
import os

import torch

from . import _env, backward_table, fallback, gates
from .errors import KernelInputError, KernelOutOfMemory
from .tables import Memo
from .variants import Variant

# "auto": the table's choice; "fused", "reference", "ws": that backward for every call (attention_backward(kind=...)
# overrides it per call); flashviz.bench records it (backward_label) in the provenance of every dataset.
BACKWARD_KINDS = ("auto", "fused", "reference", "ws")
BACKWARD_KIND = "auto"
FUSED_MAX_D = 128                   # head dims the fused backward was tested at (48, 64, 128); larger: the reference


def backward_kind(q, kind=None, config=None, var: Variant | None = None) -> str:
    """"fused", "reference" or "ws" for these inputs (choose()'s kind)."""
    return choose(q, kind, config, var)[0]


def choose(q, kind=None, config=None, var: Variant | None = None) -> tuple[str, str]:
    """(kind, why) for these inputs; kind None reads BACKWARD_KIND. A 6-number config is the reference kernel's, a
    5-number one the fused kernel's. The fused kernel takes plain or causal attention only: any other variant
    (window, softcap, ALiBi, GQA, documents) runs the reference."""
    from . import backward_fused
    kind = BACKWARD_KIND if kind is None else kind
    simple = var is None or fused_takes(var)
    if kind not in BACKWARD_KINDS:
        raise KernelInputError(f"backward kind must be one of {', '.join(BACKWARD_KINDS)}; got {kind!r}")
    if kind == "ws":
        return ws_kind(q, config, var), "kind='ws' asked for"
    if config is not None:
        by_len = "reference" if len(config) == 6 else "fused"
        if kind not in ("auto", by_len):
            raise KernelInputError(f"a {len(config)}-number config is the {by_len} backward's, not the {kind} one's")
        return by_len, f"a {len(config)}-number config is the {by_len} backward's"
    if kind == "fused":
        why = backward_fused.supported(q) or (None if simple else "it takes plain or causal attention only, "
                                               "not this variant")
        if why:
            raise KernelInputError(f"the fused backward cannot take these inputs: {why}; use kind='reference'")
        return kind, "kind='fused' asked for"
    if kind == "reference":
        return kind, "kind='reference' asked for"
    ws_why = ws_route(q, var)
    if ws_why[0]:
        return "ws", ws_why[1]
    picked, why = triton_choice(q, simple)
    return picked, (f"{why}; ws: {ws_why[1]}" if ws_why[1] else why)


def _variants(var: Variant | None) -> list[str]:
    """The backward table's variants of a call besides "dense"."""
    if var is None:
        return []
    from . import ws_bwd
    out = []
    if ws_bwd.uses_table(var):
        out += ["docs"] if var.seq_ids is not None else []
        out += ["window"] if var.left >= 0 or var.right >= 0 and not var.causal else []
    return out + (["gqa"] if var.groups > 1 else [])


def table_says(kernel: str, d: int, variants=()) -> tuple[bool, str]:
    """(whether the backward table has a `kernel` row for "dense" and for each of `variants` at d, and why: the
    dense row's reason, or the reason of a row that names another kernel there)."""
    return _table_says(kernel, int(d), tuple(variants))


def _table_says_of(kernel: str, d: int, variants: tuple) -> tuple[bool, str]:
    why = ""
    for v in ("dense", *variants):
        rows = [r for r in backward_table.ROUTES if r.covers(v, d, True, 1)]
        mine = next((r for r in rows if r.kernel == kernel), None)
        if mine is None:
            other = next((r for r in rows if r.kernel != "ws"), None)
            return False, (f"the backward table: {other.kernel} at d={d}: {other.why}" if other else
                           f"no row of the backward table sends {v} at d={d} to {kernel}")
        why = why or f"the backward table: {kernel} at d={d}: {mine.why}"
    return True, why


_table_says = Memo(_table_says_of, ((backward_table, "ROUTES"),))


def ws_route(q, var: Variant | None = None) -> tuple[bool, str]:
    """(whether "auto" runs the ws backward on q, why or why not): the table names ws for its variants at its head
    dim, the kernel takes the variant, and ws_bwd.supported (sm_90, verified triton, fp16/bf16, no earlier failure).
    A table choice that cannot run here on CUDA tensors is said once (fallback.note)."""
    from . import ws_bwd
    if var is not None and not ws_bwd.takes_variant(var):
        return False, "the ws backward takes no softcap or ALiBi"
    says, why = table_says("ws", q.shape[3], _variants(var))
    if not says:
        return False, why
    if _env.INTERPRET or q.device.type != "cuda":
        return False, "" if _env.INTERPRET else f"q is on {q.device}"
    setup = ws_bwd.unavailable()                      # this machine or process, not these inputs: said once
    if setup:
        fallback.note("autograd runs a Triton backward, not the Gluon 'ws' one", setup)
        return False, setup
    cannot = ws_bwd.supported(q)
    return (False, cannot) if cannot else (True, why)


def ws_auto(q, var: Variant | None = None) -> bool:
    """Whether "auto" runs the ws backward on q (ws_route)."""
    return ws_route(q, var)[0]


def triton_choice(q, simple: bool = True) -> tuple[str, str]:
    """("fused" or "reference", why): what "auto" picks among the Triton backwards (and what the ring's per-block
    backward runs: flashviz/engine/ring_memory.py accounts for these two)."""
    from . import backward_fused, ws
    if not simple:
        return "reference", "the fused backward takes plain or causal attention only"
    says, why = table_says("fused", q.shape[3])
    if not says:
        return "reference", why
    if _env.INTERPRET or q.device.type != "cuda":
        return "reference", "off CUDA: the 7-matmul reference"
    cannot = backward_fused.supported(q)
    if cannot:
        return "reference", cannot
    setup = gates.why_not(backward_table.GATES["fused"], ws.triton_version(),
                          torch.cuda.get_device_capability(q.device))
    if setup:
        fallback.note("autograd runs the 7-matmul backward, not the fused one", setup)
        return "reference", setup
    return "fused", why


def triton_auto(q, simple: bool = True) -> str:
    """"fused" or "reference" (triton_choice's kind)."""
    return triton_choice(q, simple)[0]


def _dims(kernel: str, variant: str = "dense") -> tuple[int, ...]:
    return tuple(d for d in (32, 48, 64, 80, 96, 128, 256) if table_says(kernel, d, () if variant == "dense"
                                                                          else (variant,))[0])


def backward_label(device="cuda") -> str:
    """What BACKWARD_KIND means on this device, for a dataset's provenance."""
    if BACKWARD_KIND != "auto":
        return BACKWARD_KIND
    if _env.INTERPRET or not torch.cuda.is_available():
        return "auto: reference (7 matmuls) off CUDA"
    cc = torch.cuda.get_device_capability(device)
    from . import ws, ws_bwd
    nxt = os.environ.get(ws_bwd.NEXT_ENV, "")          # its next_s: a switch set for this run, or where it is on
    dpz = os.environ.get(ws_bwd.DP_ZERO_ENV, "")        # dP^T from zero: the same
    nxt = f" ({ws_bwd.NEXT_ENV}={nxt})" if nxt else "".join(
        f" (next_s 1{', dP^T from zero' if ws_bwd.dp_zero_default(d, 1) and not dpz else ''} at d {d})"
        for d in ws_bwd.HEAD_DIMS if ws_bwd.next_default(d))
    if dpz:
        nxt += f" ({ws_bwd.DP_ZERO_ENV}={dpz})"
    ws_text = "" if ws_bwd.unavailable() else (
        f"ws (Gluon, 5 matmuls, TMA dQ) for plain/causal d in {_dims('ws')}, windows/documents d in "
        f"{tuple(sorted(set(_dims('ws', 'window')) & set(_dims('ws', 'docs'))))}, GQA d in {_dims('ws', 'gqa')}"
        f"{nxt}, else ")
    fused_max = max(d for d in range(1, 257) if table_says("fused", d)[0])
    if gates.why_not(backward_table.GATES["fused"], ws.triton_version(), cc) is None:
        return (f"auto: {ws_text}fused (5 matmuls) for d <= {fused_max}, reference (7 matmuls) above, on "
                f"sm_{cc[0]}{cc[1]}")
    return f"auto: {ws_text}reference (7 matmuls) on sm_{cc[0]}{cc[1]}"


def fused_takes(var: Variant) -> bool:
    """Plain or causal attention, nothing else: what the fused backward takes."""
    return (var.softcap is None and var.slopes is None and var.seq_ids is None and var.groups == 1
            and var.left == -1 and var.right in (-1, 0))


def ws_kind(q, config, var: Variant | None) -> str:
    """"ws" when kernels/ws_bwd.py can take these inputs here, else KernelInputError saying why."""
    from . import ws_bwd
    if config is not None:
        raise KernelInputError("the ws backward takes no config (kernels/backward_table.py picks its tiles)")
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
