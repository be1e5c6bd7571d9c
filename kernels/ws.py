"""impl="ws": a warp-specialised, FlashAttention-3-style attention forward in Gluon, for Hopper (sm_90) only.

What it is: per 128-row (NC = 2) or 192-row (NC = 3) query block, a 1-warp producer streams K_j/V_j by TMA into a
STAGES-deep shared-memory ring guarded by mbarriers; each consumer warpgroup owns 64 rows and runs Q·Kᵀ and P·V as
asynchronous warpgroup MMAs (P stays in registers as the A operand), overlapping the softmax of tile j with the P·V
of tile j-1 (OVERLAP) and taking turns on the tensor cores (PINGPONG); the producer gives its registers to the
consumers (setmaxnreg). A persistent launch stores each tile's O while the next tile's first Q·Kᵀ runs and,
without PINGPONG, issues a tile's last P·V with that Q·Kᵀ (attend's CARRY; slower with PINGPONG, kept off). Same
contract as kernels/fast.py: (out, lse natural log, float32), ragged Nq/Nk (TMA clips per head), bottom-right
causal, fully masked rows -> zeros and LSE -inf; fp16/bf16, d 64/128.
Variants: GQA/MQA (k, v with H_kv heads), a causal sliding window (window_left; tiles left of the band are not
loaded), causal ALiBi and packed documents (docs: the host's tables decide each tile's keys and mask).
Why it exists: the tl kernel (kernels/fast.py) cannot overlap one warpgroup's softmax with another's MMAs; this
one can, and is the project's fastest forward (assets/benchmarks/ws/nvidia-h200-ws-2026-12-01b.json).
When it runs: impl="ws", or impl="fast" where kernels/forward_table.py's ROUTES say it measured faster; its
schedule switches come from that table's WS_LAUNCHES (schedule()); OVERLAP_ENV, PINGPONG_ENV, PERSISTENT_ENV and
CONSUMERS_ENV switch every launch (tests run both sides). Only on a (triton, GPU) pair kernels/gates.py verifies for
"ws-forward" (Gluon's API moved between 3.6 and 3.8; kernels/gluon_shims.py holds the differences); elsewhere, and
after any compile or launch failure, impl="fast" runs the tl kernel and says why once (logger "flashviz_kernels",
status()); impl="ws" asked for explicitly raises KernelUnavailable with that reason.
Importing this module never imports Gluon (kernels/_ws_gluon.py is loaded on first use).
"""
from __future__ import annotations

import functools
import importlib
import importlib.metadata
import os
import threading
import warnings

from . import fallback, forward_table, gates, tables
from .errors import KernelInputError, KernelUnavailable
from .numerics import LOG2E
from .ws_inputs import GRID_AXIS, HEAD_DIMS, check_docs, input_problem, takes  # noqa: F401

GATE = forward_table.GATES["ws"]
HALF_GATE = "ws-half"                              # HALF's own rows (kernels/gates.py); 3.6/3.7.1 need half_code
VERIFIED_TRITON = gates.versions(GATE)            # version prefixes the Gluon kernel was verified on (kernels/gates.py)
VERIFIED_CAPABILITY = gates.capabilities(GATE)[0]  # Hopper (H100/H200); wgmma + setmaxnreg do not exist before sm_90
from .ws_schedule import (CONFIGS, CONSUMERS_ENV, HALF_ENV, OVERLAP_ENV, PERSISTENT_ENV,  # noqa: E402,F401
                          L2_KV_BYTES, PINGPONG_ENV, WIDE_BN, consumers_default, divisor_at_most, half_default,
                          half_runs, head_group, lpt_default, overlap_default, persistent_default, pingpong_default,
                          schedule, tile_problem)
from .ws_switches import fresh_default, named_turn_default  # noqa: E402

SMEM_BYTES = 227 * 1024  # shared memory one program may take on sm_90
# NC -> (consumer, producer, launch) registers per thread. Warp counts round up to whole warpgroups: NC = 2 runs
# 12 warps (4 + 4 + 1 padded): 384 x 168 = 2 x 128 x 240 + 128 x 24 = 64512 <= 64K; NC = 3 runs 16 warps:
# 512 x 128 = 65536 >= 3 x 128 x 160 + 128 x 24 (FA3's budget for three MMA warpgroups). setmaxnreg takes
# multiples of 8 in [24, 256].
REGS = {2: (240, 24, 168), 3: (160, 24, 128)}
CONSUMER_REGS, PRODUCER_REGS, MAXNREG = REGS[2]

PIN_TL_ENV = "FLASHVIZ_FAST_TL"          # measurement: set to 1 and impl="fast" never picks this kernel


def _pinned_tl() -> bool:
    return os.environ.get(PIN_TL_ENV, "") not in ("", "0")


_lock = threading.Lock()
_state = {"failed": None, "warned": False}


# The probes below are cached per process: reading package metadata costs ~1 ms, which at N=4096 was longer
# than the kernel itself (measured). Tests replace triton_version / _capability, so those stay thin wrappers.
@functools.lru_cache(maxsize=None)
def _installed_triton() -> str:
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def triton_version() -> str:
    return _installed_triton()


@functools.lru_cache(maxsize=None)
def _device_capability():
    import torch
    if not torch.cuda.is_available():
        return None
    return tuple(torch.cuda.get_device_capability())


def _capability():
    return _device_capability()


def capability():
    """This process's GPU compute capability, (9, 0) on an H200; None without CUDA."""
    return _capability()


@functools.lru_cache(maxsize=None)
def _gluon_import_error() -> str | None:
    try:
        importlib.import_module(f"{__package__}._ws_gluon")
    except Exception as e:                            # noqa: BLE001 - any import failure means: not here
        return f"Gluon could not be imported: {type(e).__name__}: {e}"
    return None


def half_code(version: str | None = None):
    """HALF's constexpr for this triton (kernels/_ws_gluon.py _q_lo): 2 where triton ships ptxas 12.8 (3.6, 3.7: a
    window's first half step reads Q through a view ptxas cannot equate with key tile 0's), else True."""
    v = triton_version() if version is None else version
    return 2 if v.startswith(("3.6.", "3.7.")) else True


def turns(pingpong: bool):
    """PINGPONG's constexpr for a launch: 2 (turns through named barriers, kernels/_ws_ring.py turn_wait) where
    ws_switches.named_turn_default says so, read at each call; else the bool as given (so a default launch's
    arguments stay those tests/data/dispatch_pins.json pins)."""
    return 2 if pingpong and named_turn_default(triton_version()) else pingpong


def gate_reason(path: str = GATE) -> str | None:
    """Why `path` (a kernels/gates.py path) cannot run in this process: its gate for this triton and GPU, or the
    interpreter (None when it can)."""
    from . import _env
    return gates.why_not(path, triton_version(), _capability(), interpret=_env.INTERPRET)


def _reason_unavailable() -> str | None:
    """Why the Gluon kernel cannot run in this process, or None when it can."""
    if _state["failed"]:
        return _state["failed"]
    return gate_reason() or _gluon_import_error()


def unavailable() -> str | None:
    """Why the Gluon forward cannot run in this process at all (None: it can)."""
    return _reason_unavailable()


def runtime_failure() -> str | None:
    """A failure that switched the Gluon kernels off in this process, or Gluon failing to import (None: neither)."""
    return _state["failed"] or _gluon_import_error()


def status() -> dict:
    """What impl="ws" (and fast's use of it) can do in this process: active, reason, triton, verified_triton,
    verified (each (triton, GPU) row of kernels/gates.py with its evidence file), fast_uses_ws, persistent (the
    launches that run PERSISTENT unless told), consumers (NC per launch), overlap, pingpong and half (the launches
    that run OVERLAP, PINGPONG, HALF's half steps unless told; half also says why none does on this triton)."""
    from .ws_schedule import schedule_lines
    why = _reason_unavailable()
    return dict(active=why is None, reason=why or "ok", triton=triton_version(),
                verified_triton=list(VERIFIED_TRITON), verified=gates.describe(GATE),
                fast_uses_ws=[] if _pinned_tl() else forward_table.ws_thresholds(),
                **schedule_lines(gate_reason(HALF_GATE), triton_version()))


def unsupported(q, what: str = "kernel") -> str | None:
    """Why the Gluon kernel cannot take these inputs or run here at all, None when it can."""
    return _reason_unavailable() or input_problem(q, what)


def disable(reason: str) -> None:
    """After a compile or launch failure: use the tl kernel for the rest of the process and say so once."""
    with _lock:
        if _state["failed"] is None:
            _state["failed"] = reason
        first, _state["warned"] = not _state["warned"], True
    fallback.note("impl='fast' runs the tl kernel, not the Gluon 'ws' kernel", reason)
    if first:
        warnings.warn(f"flashviz_kernels: impl='fast' uses the tl kernel, not the Gluon 'ws' kernel: {reason}",
                      RuntimeWarning, stacklevel=3)


def fast_route(q, k, causal: bool, window: bool = False, alibi: bool = False, docs: bool = False) -> tuple:
    """(kernel, why): the kernel kernels/forward_table.py's ROUTES name for impl="fast" on these shapes and variants
    ("ws" or "tl"), before asking whether ws can run here, and the row's reason."""
    if _pinned_tl():
        return "tl", f"{PIN_TL_ENV}=1 pins impl='fast' to the tl kernel"
    if q.dtype.itemsize != 2:
        return "tl", "the ws kernel takes float16 or bfloat16 only"
    return _table_route(int(q.shape[3]), int(min(q.shape[2], k.shape[2])), bool(causal), bool(window), bool(alibi),
                        bool(docs))


def _route_of(d: int, n: int, causal: bool, window: bool, alibi: bool, docs: bool) -> tuple:
    """fast_route's answer from the forward table's ROUTES alone."""
    row = tables.route(forward_table.ROUTES, "dense", d, causal, n)
    if row is None or row.kernel != "ws":
        return "tl", row.why if row else f"no row of the forward table sends d={d}, N={n} to ws"
    for on, variant in ((window, "window"), (alibi, "alibi"), (docs, "docs")):
        if on:
            other = tables.route(forward_table.ROUTES, variant, d, causal, n)
            if other is None or other.kernel != "ws":
                return "tl", (other.why if other else f"no row of the forward table sends {variant} at d={d} to ws")
    return "ws", row.why


_table_route = tables.Memo(_route_of, ((forward_table, "ROUTES"),))


def fast_should_use(q, k, causal: bool, window: bool = False, alibi: bool = False, docs: bool = False) -> bool:
    """True when impl="fast" (tiles not pinned) should run this kernel: the forward table names ws for these shapes
    and variants (fast_route) and it can run here. When the table says so but this setup cannot run it (the gate, an
    earlier failure): say why once per reason (CUDA tensors only: on CPU the tl kernel in the interpreter is the
    design, not a fallback), False."""
    if fast_route(q, k, causal, window, alibi, docs)[0] != "ws":
        return False
    setup = _reason_unavailable()                     # this machine or process, not these inputs: said once
    if setup and q.device.type == "cuda":
        fallback.note("impl='fast' runs the tl kernel, not the Gluon 'ws' kernel", setup)
    return unsupported(q) is None


def pick_config(q, k, *, causal: bool, block_m=None, block_n=None, window: bool = False,
                docs: bool = False, alibi: bool = False) -> tuple[int, int, int, int]:
    """(block_m, block_n, num_warps, num_stages); num_warps is per consumer warpgroup and always 4; block_m
    64 x consumers_default unless given (128 with block_n WIDE_BN: two consumers only) (window / docs / alibi: a
    causal window's, packed documents' or ALiBi's launch, whose table rows may set their own stages)."""
    d = q.shape[3]
    if d not in HEAD_DIMS:
        raise KernelUnavailable(f"the Gluon kernel takes head dim d in {HEAD_DIMS}, not {d}")
    s = schedule(d, causal, window=window, docs=docs, alibi=alibi)
    bn = s["block_n"] if block_n is None else block_n
    bm = (128 if bn == WIDE_BN else 64 * consumers_default(d, causal, window, docs=docs)) if block_m is None \
        else block_m
    check_tile(bm, bn, d)
    return bm, bn, 4, s["stages"]


def check_tile(bm, bn, d) -> None:
    """KernelInputError where the ws kernel cannot run this tile (ws_schedule.tile_problem says why)."""
    why = tile_problem(bm, bn, d)
    if why:
        raise KernelInputError(why)


@functools.lru_cache(maxsize=None)
def _smem_layout(rows: int, d: int, fp16: bool):
    from triton.experimental.gluon import language as gl
    return gl.NVMMASharedLayout.get_default_for([1, rows, d], gl.float16 if fp16 else gl.bfloat16)


def descriptors(q, k, v, o, m_wg: int, bn: int):
    """Gluon TMA descriptors over 3-D views (B*H, N, d), K/V (B*H_kv, Nk, d): the box stops at each head's end.
    (tools/compile_check.py builds the kernel's signature from them.)"""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    d = q.shape[3]
    fp16 = str(q.dtype) == "torch.float16"

    def desc(x, rows):
        x3 = x.view(x.shape[0] * x.shape[1], x.shape[2], d)
        return TensorDescriptor(x3, list(x3.shape), list(x3.stride()), [1, rows, d], _smem_layout(rows, d, fp16))
    return desc(q, m_wg), desc(k, bn), desc(v, bn), desc(o, m_wg)


def compile_spec(d: int, causal: bool, dtype: str = "fp16", *, overlap: bool = True, pingpong: bool = True,
                 block_n: int = 128, stages: int = 2, persistent: bool = False, consumers: int = 2,
                 window: bool = False, alibi: bool = False, docs: bool = False, half: bool = False):
    """(jit function, signature, constexprs, options) of one launch configuration, for triton.compile with a
    GluonASTSource and a GPU target: how tools/compile_check.py builds the sm_90 kernel on a machine without a GPU.
    Call it in a process with TRITON_INTERPRET=0 (jit functions made under the interpreter cannot be compiled)."""
    import torch
    from triton.runtime.jit import mangle_type
    mod = importlib.import_module(f"{__package__}._ws_gluon")
    x = torch.empty((1, 2, 256, d), dtype=dict(fp16=torch.float16, bf16=torch.bfloat16)[dtype])
    sig = {n: mangle_type(t) for n, t in zip(("desc_q", "desc_k", "desc_v", "desc_o"),
                                             descriptors(x, x, x, x, 64, block_n))}
    sig.update(LSE="*fp32", SLOPES="*fp32", ROWB="*i32", TILES="*i32", qk_scale="fp32", n_q="i32", n_k="i32",
               n_bh="i32", head_group="i32", left="i32", n_heads="i32", groups="i32", slopes_b="i32", rowb_b="i32",
               tiles_b="i32")
    creg, preg, maxnreg = REGS[consumers]
    consts = dict(NC=consumers, M_WG=64, BN=block_n, D=d, STAGES=stages, CAUSAL=causal, WINDOW=window,
                  OVERLAP=overlap, PINGPONG=turns(pingpong), PERSISTENT=persistent, ALIBI=alibi, SEQ=docs,
                  CONSUMER_REGS=creg, PRODUCER_REGS=preg, HALF=half,
                  FRESH=persistent and fresh_default(triton_version()))    # as forward reads it (FRESH_ENV)
    sig.update({k: "constexpr" for k in consts})
    return mod.ws_fwd, sig, consts, dict(num_warps=4, maxnreg=maxnreg)


def smem_bytes(d: int, block_n: int, stages: int, persistent: bool, itemsize: int = 2, consumers: int = 2) -> int:
    """Shared memory of the Q/O buffers (64 rows per consumer; two sets with PERSISTENT: tile t+1's Q loads while
    tile t runs) and the ring."""
    return (2 if persistent else 1) * consumers * 64 * d * itemsize + 2 * stages * block_n * d * itemsize


@functools.lru_cache(maxsize=None)
def _sm_count(index: int) -> int:
    import torch
    return torch.cuda.get_device_properties(index).multi_processor_count


def sm_count(device) -> int:
    """The SM count of a CUDA tensor's device (None index: the current one)."""
    import torch
    return _sm_count(device.index if device.index is not None else torch.cuda.current_device())


def forward(q, k, v, *, causal: bool, sm_scale: float, block_m: int, block_n: int, num_warps: int,
            num_stages: int, window_left: int = -1, alibi_slopes=None, docs=None, overlap: bool | None = None,
            pingpong: bool | None = None, persistent: bool | None = None, programs: int | None = None,
            groups: int | None = None, half: bool | None = None):
    """q (B, H, Nq, d), k/v (B, H_kv, Nk, d) fp16/bf16 CUDA (H % H_kv == 0: GQA/MQA, no copies) -> (out like q,
    lse (B, H, Nq) float32). window_left >= 0 (causal only): row i also sees no key j < i + Nk - Nq - window_left
    (flash-attn's window (window_left, 0)). alibi_slopes (causal only): float32 (1 or B, H), contiguous, as
    variants.parse makes them; adds -slope * (i + Nk - Nq - j) to each visible scaled score. docs (packed
    documents): variants.tables(variant, Nq, Nk, device, block_m, block_n), int32 (row bounds (1 or B, Nq, 2), tile
    ranges (1 or B, ceil(Nq / block_m), 4)); they then decide which keys each row sees (the causal side and window
    included). persistent None: persistent_default. programs (persistent only; tests and tuning): the grid size
    (default the SM count); groups (persistent, or causal with one tile per program: then dividing B*H): the head
    group (default head_group(); one tile per program, causal: its largest divisor of B*H where lpt_default() is
    on for the grid's tiles per SM, else 1). half None: half_default() (HALF_ENV, else the table;
    kernels/_ws_half.py), off where gates.py's "ws-half" rows do not verify this triton, where half=True raises
    KernelUnavailable. HALF runs in causal launches only. block_n is 64 or 128, or WIDE_BN (256)
    at d = 64 with block_m 128: there without ALiBi or HALF, and OVERLAP off unless passed (ws_schedule's WIDE_BN
    says why)."""
    import torch
    why = unsupported(q)
    if why:
        raise KernelUnavailable(f"impl='ws' cannot run here: {why}")
    if num_warps != 4:
        raise KernelInputError(f"the ws kernel runs 4 warps per consumer warpgroup; got num_warps = {num_warps}")
    check_tile(block_m, block_n, q.shape[3])
    nc = block_m // 64
    if not 2 <= num_stages <= 4:
        raise KernelInputError(f"the ws kernel's K/V ring takes 2..4 stages; got {num_stages}")
    b, h, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_kv < 1 or h % h_kv or v.shape[1] != h_kv:
        raise KernelInputError(f"q has H = {h} heads, k {h_kv} and v {v.shape[1]}: k and v need the same H_kv "
                               "dividing H")
    if not isinstance(window_left, int) or window_left < -1 or (window_left >= 0 and not causal):
        raise KernelInputError(f"the ws kernel takes a window's left side (an int >= 0, or -1 for none) with "
                               f"causal=True only; got window_left={window_left!r}, causal={causal}")
    if alibi_slopes is not None and (not causal or alibi_slopes.dtype != torch.float32
                                     or tuple(alibi_slopes.shape) not in ((1, h), (b, h))
                                     or not alibi_slopes.is_contiguous()):
        raise KernelInputError(f"the ws kernel takes ALiBi with causal=True only, slopes float32 contiguous (1 or B, "
                               f"H) = (1 or {b}, {h}); got causal={causal}, {tuple(alibi_slopes.shape)} "
                               f"{alibi_slopes.dtype}")
    rowb, tiles = check_docs(docs, b, n_q, n_k, block_m)
    band = window_left >= 0 or rowb is not None                    # a window's or documents' launch
    pers = persistent_default(d, causal, window_left >= 0, docs=rowb is not None) if persistent is None \
        else bool(persistent)
    ov = overlap if overlap is not None else overlap_default(d, causal, alibi_slopes is not None, consumers=nc,
                                                             persistent=pers, window=band, block_n=block_n)
    pp = pingpong_default(d, causal, window_left >= 0, docs=rowb is not None, alibi=alibi_slopes is not None) \
        if pingpong is None else pingpong
    hf = half_default(d, causal, window_left >= 0, docs=rowb is not None, alibi=alibi_slopes is not None,
                      version=triton_version()) if half is None else bool(half)
    if block_n == WIDE_BN and (half or alibi_slopes is not None):   # ALiBi's key terms spill there (compile file)
        raise KernelInputError(f"block_n = {WIDE_BN} runs without ALiBi and HALF (half edge tiles); got "
                               f"alibi_slopes={'set' if alibi_slopes is not None else None}, half={half}")
    hf = hf and bool(causal) and block_n != WIDE_BN   # HALF's half steps are a causal edge's (or a window's)
    why_half = gate_reason(HALF_GATE) if hf else None
    if why_half and half:
        raise KernelUnavailable(f"half=True (HALF, half edge tiles) cannot run here: {why_half}")
    hf = hf and not why_half                          # the table's or HALF_ENV's HALF where not verified: whole
                                                      # tiles (status()["half"] says why)
    if programs is not None and (not pers or not isinstance(programs, int) or programs < 1):
        raise KernelInputError(f"programs is a positive int for a persistent launch only; got {programs!r} "
                               f"(persistent={pers})")
    if groups is not None and (not (pers or causal) or not isinstance(groups, int) or groups < 1
                               or (not pers and (b * h) % groups)):
        raise KernelInputError(f"groups is a positive int for a persistent or causal launch only (one tile per "
                               f"program: dividing B*H = {b * h}); got {groups!r} (persistent={pers}, causal={causal})")
    need = smem_bytes(d, block_n, num_stages, pers, q.element_size(), nc)
    if need > SMEM_BYTES:
        raise KernelInputError(f"d={d}, block_m={block_m}, block_n={block_n}, {num_stages} stages"
                               f"{', persistent' if pers else ''} "
                               f"need {need // 1024} KB of shared memory; sm_90 has {SMEM_BYTES // 1024} KB")
    mod = importlib.import_module(f"{__package__}._ws_gluon")

    from .fast import tma_ready
    q, k, v = tma_ready(q), tma_ready(k), tma_ready(v)
    o = torch.empty_like(q)
    lse = torch.empty((b, h, n_q), dtype=torch.float32, device=q.device)
    dq, dk, dv, do = descriptors(q, k, v, o, 64, block_n)
    n_blocks = (n_q + block_m - 1) // block_m
    if pers:
        sms = programs or sm_count(q.device)
        grid = (min(sms, n_blocks * b * h),)
        grp = groups or head_group(b * h, n_k, d, q.element_size(), causal)
    else:                                             # causal: a head group's longest tiles first (lpt_default)
        grp = groups or (divisor_at_most(b * h, head_group(b * h, n_k, d, q.element_size(), True))
                         if causal and lpt_default(n_blocks * b * h / sm_count(q.device), "forward") else 1)
        grid = (grp, n_blocks, b * h // grp)
    creg, preg, maxnreg = REGS[nc]
    slopes = lse if alibi_slopes is None else alibi_slopes          # a dummy pointer without ALiBi
    slopes_b = 0 if alibi_slopes is None or alibi_slopes.shape[0] == 1 else alibi_slopes.stride(0)
    seq = rowb is not None
    rowb, tiles = (rowb, tiles) if seq else (lse, lse)             # dummy pointers without documents
    rowb_b, tiles_b = (rowb.stride(0) if seq and rowb.shape[0] > 1 else 0), \
        (tiles.stride(0) if seq and tiles.shape[0] > 1 else 0)
    # FRESH is passed only when on: the other launches' arguments stay those tests/data/dispatch_pins.json pins
    fresh = dict(FRESH=True) if pers and fresh_default(triton_version()) else {}
    mod.ws_fwd[grid](dq, dk, dv, do, lse, slopes, rowb, tiles, sm_scale * LOG2E, n_q, n_k, b * h, grp, window_left, h,
                     h // h_kv, slopes_b, rowb_b, tiles_b, NC=nc, M_WG=64, BN=block_n, D=d, STAGES=num_stages,
                     CAUSAL=bool(causal), WINDOW=window_left >= 0, OVERLAP=ov, PINGPONG=turns(pp), PERSISTENT=pers,
                     ALIBI=alibi_slopes is not None, SEQ=seq, CONSUMER_REGS=creg, PRODUCER_REGS=preg,
                     HALF=half_code() if hf else False, num_warps=4, maxnreg=maxnreg, **fresh)
    return o, lse
