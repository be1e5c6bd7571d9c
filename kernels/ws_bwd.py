"""kind="ws" backward: a warp-specialised, FlashAttention-3-style attention backward written in Gluon, for Hopper
(sm_90) only.

What it is: one program per 128-key block of one head (causal, with few blocks per SM, a group of heads' first
blocks, the longest, start first: ws_schedule.key_group and lpt_default). A 1-warp producer loads the block's K and V
once by TMA, then streams Q_i and dO_i (block_m-row query blocks) into a STAGES-deep shared-memory ring guarded by
mbarriers; two consumer warpgroups each own 64 of the 128 keys and run the five matmuls of the backward per query
block as asynchronous warpgroup MMAs: S^T = K Q_i^T and dP^T = V dO_i^T together, then dV += P^T dO_i and dK += dS^T
Q_i with P^T and dS^T straight from registers, and dQ_i from dS^T written to shared memory. How dQ_i leaves
(dq_mode, DQ_MODES): "split" (FlashAttention-3's way) both consumers' dS^T meet in shared memory and each adds d / 2
columns over all 128 keys (as column pairs); "tma" does split's MMAs and hands its BM x d/2 piece to one TMA
reduce-add from shared memory, so the consumers issue no atomics at all; "tma2" is "tma" with two dS slots, so the
two consumers wait for each other one block later; "frag", the default at d = 128, is "tma2" with the piece staged in
the MMA accumulator's own order (16-byte stores, no bank conflicts; the fp32 buffer keeps that order and the cast
pass restores rows); "rows" (block_m 128) is "tma2" with each consumer's piece half the rows of all d columns
(FlashAttention-3's split at d = 64: one N = 64 MMA chain instead of two N = 32 ones), and "rows-frag", the default
at d = 64, is "rows" staged in the accumulator's order as "frag" is. A last pass scales and casts the fp32 buffer.
dK and dV stay in registers for the whole key block (fp32) and leave by TMA. lse and delta start S^T's and dP^T's
accumulators (STATS_ACC), so they take no registers through the softmax, and arrive with Q_i and dO_i: the producer
loads them into the ring stage (prefetch 2), so no L2 round trip sits before a block's first MMAs. Under triton 3.8
at d = 64 a consumer issues the next query block's S^T right behind this block's dK (next_default; _ws_bwd_next.py).
kernels/_ws_bwd_gluon.py holds the kernel, kernels/ws_bwd_switches.py the launch switches named here.
Same contract as kernels/backward_fused.py: plain or bottom-right causal attention, ragged Nq/Nk (TMA clips per
head, so non-finite values of another head never enter), rows that see no key -> zero gradients, dlse (the
gradient reaching lse) entering as delta - dlse; fp16/bf16, d 64/128. GQA/MQA (k, v with H_kv heads): each
program reads its query head's K/V head and writes dK/dV per query head into (B, H, Nk, d) buffers, which are then
summed over each group in float32. Masks beyond causal (sliding windows, packed documents: variant=) read the
host's by-key tables (variants.tables); softcap and ALiBi are not taken. dQ is not bitwise reproducible from run to
run (the adds' order), dK and dV are. Peak extra memory: 3*B*H*N*d*elem + B*H*Nq*(d + 2)*4 (+ B*H*Nq*4 with
dlse; "frag", "rows-frag": Nq rounded up to block_m in the dQ buffer); tests/kernels/test_ws_bwd_gpu.py measures it.
Why it exists: the fastest of our backwards in every H200 cell (the tune files kernels/backward_table.py names for
d = 64 and 128); the Triton ones cannot overlap dQ's reduction with the next block's MMAs this way.
When it runs: kind="ws", or "auto" where kernels/backward_table.py's ROUTES say it measured faster (plain or causal,
windows, documents and GQA at d 64 and 128), with that table's WS_BWD_LAUNCHES; only on a (triton, GPU) pair
kernels/gates.py verifies for "ws-backward"; if it fails to compile or launch, autograd says so once and runs the
Triton backwards (disable). Importing this module never imports Gluon.
"""
from __future__ import annotations

import functools
import importlib
import threading

from . import backward_table, variants, ws
from .errors import KernelInputError
from .numerics import LOG2E
# the launch switches live in ws_bwd_switches.py; ws_bwd.<name> stays their public name (tools, tests, tables)
from .ws_bwd_switches import (DP_ZERO_ENV, DP_ZERO_TRITONS, DQ_FIRST, DQ_MODES, EARLY_DQ, EXP_MODES,  # noqa: F401
                              FRAG_TILES, MASK_DEFAULT, MASK_MODES, NEXT_ENV, NEXT_MODES, NEXT_TRITONS, PREFETCH,
                              RETIRED, STATS_ACC_MIN_SCALE, TMA_MODES, dp_zero_default, dq_layout, early_dq_on,
                              exp_code, mask_code, next_code, next_default, prefetch_for, stats_acc_on, stats_code)
from .ws_schedule import key_group, lpt_default

HEAD_DIMS = ws.HEAD_DIMS          # the forward's input rules: supported() uses them
BLOCK_N = 128                  # keys per program: two consumer warpgroups x 64
# d -> (block_m query rows per step, ring stages, dq_split: dQ_i's d columns (split/tma: of d / 2) in that many
# MMAs, rotate: each key block starts its unmasked query blocks at a different one, dq_mode: DQ_MODES' key):
# kernels/backward_table.py, read live (its early_dq, dq_first and prefetch: ws_bwd_switches)
CONFIGS = backward_table.ws_configs()
# (consumer, producer, launch) registers per thread: 12 warps (4 + 4 + 1 padded to a warpgroup) x 168 = 64512 <= 64K,
# 2 x 128 x 240 + 128 x 24 = 64512 (as ws.REGS[2]).
REGS = (240, 24, 168)
SMEM_BYTES = ws.SMEM_BYTES
GATE = backward_table.GATES["ws"]


_failed: dict = {"reason": None}          # set once by disable(): "auto" stops picking ws in this process
_lock = threading.Lock()


def unavailable() -> str | None:
    """Why the ws backward cannot run here at all (None: it can): the failure that switched it off in this process,
    its gate (kernels/gates.py "ws-backward"), or the Gluon kernels' failure or import error."""
    return _failed["reason"] or ws.gate_reason(GATE) or ws.runtime_failure()


def supported(q) -> str | None:
    """Why the ws backward cannot take these inputs or run here (None: it can): unavailable(), then the ws
    forward's input rules."""
    return unavailable() or ws.input_problem(q, "backward")


def disable(reason: str) -> None:
    """After a compile or launch failure under "auto": the Triton backwards for the rest of the process, said once.
    A failure that depends on the inputs alone would repeat with the same inputs (Gluon compiles per shape class),
    so it is not retried; kind="ws" asked explicitly still raises the error itself."""
    import warnings

    from . import fallback
    with _lock:
        if _failed["reason"] is not None:
            return
        _failed["reason"] = reason
    fallback.note("autograd runs a Triton backward, not the Gluon 'ws' one", reason)
    warnings.warn(f"flashviz_kernels: autograd uses the Triton backward, not the Gluon 'ws' one: {reason}",
                  RuntimeWarning, stacklevel=3)


def takes_variant(var) -> bool:
    """Masks and GQA/MQA: plain, causal, any window, packed documents, any H_kv (no softcap, no ALiBi)."""
    return var.softcap is None and var.slopes is None


def uses_table(var) -> bool:
    """Whether a launch for this variant reads the host's by-key tables (any mask but plain causal, which the
    kernel computes in place)."""
    return var.masked and not (var.causal and var.seq_ids is None)


def smem_bytes(d: int, block_m: int, stages: int, itemsize: int = 2, dq_mode: str = "split",
               prefetch: int = 0) -> int:
    """Q/dO ring, K and V of the 128 keys, the two consumers' dS^T tiles (two sets from "tma2" on; TMA_MODES: and
    their fp32 dQ pieces); prefetch 2: each ring stage's lse and delta (fp32, block_m each)."""
    tma_src = (4 if dq_mode == "tma3" else 2) * block_m * (d // 2) * 4 if dq_mode in TMA_MODES else 0
    ds_slots = 2 if DQ_MODES.get(dq_mode, 0) >= 4 else 1     # the kernel's NSLOT
    stats = 2 * stages * block_m * 4 if prefetch == 2 else 0
    return (2 * stages * block_m * d + 2 * BLOCK_N * d + ds_slots * BLOCK_N * block_m) * itemsize + tma_src + stats


def check_tiles(d: int, block_m: int, stages: int, dq_split: int, dq_mode: str, itemsize: int = 2,
                prefetch: int = 0) -> None:
    """KernelInputError unless the kernel takes these switches: block_m 64/128, 2..4 stages in shared memory,
    dq_split 1/2 with at least 32 of the d / 2 dQ columns per MMA (the TMA modes: dq_split 1), dq_mode a DQ_MODES key
    (RETIRED: why a mode is gone)."""
    if dq_mode in RETIRED:
        raise KernelInputError(f"the ws backward's dq_mode {dq_mode!r} is retired: {RETIRED[dq_mode]}")
    if dq_mode not in DQ_MODES:
        raise KernelInputError(f"the ws backward's dq_mode is one of {tuple(DQ_MODES)}, not {dq_mode!r}")
    cols = d // 2 // dq_split
    smem = smem_bytes(d, block_m, stages, itemsize, dq_mode, prefetch)
    if block_m not in (64, 128) or not 2 <= stages <= 4 or smem > SMEM_BYTES or dq_split not in (1, 2) or \
            cols < 32 or (dq_mode in TMA_MODES and dq_split != 1) or \
            (dq_mode == "rows" and block_m != 128) or \
            FRAG_TILES.get(dq_mode, (block_m, d)) != (block_m, d):
        raise KernelInputError(f"the ws backward runs block_m 64 or 128 with 2..4 stages in {SMEM_BYTES // 1024} KB "
                               f"of shared memory and dq_split 1 or 2 (d / 2 / dq_split >= 32; tma: 1; rows: "
                               f"block_m 128; frag: block_m 64 at d 128; rows-frag: block_m 128 at d 64); got "
                               f"block_m={block_m}, stages={stages}, dq_split={dq_split}, dq_mode={dq_mode!r} at d={d}")


@functools.lru_cache(maxsize=None)
def _smem_layout(rows: int, d: int, fp16: bool):
    from triton.experimental.gluon import language as gl
    return gl.NVMMASharedLayout.get_default_for([1, rows, d], gl.float16 if fp16 else gl.bfloat16)


def frag_index(block_m: int, d: int, rows: bool = False):
    """For "frag" ("rows-frag" with rows): offset[r, c] of element (r, c) of a block's block_m x d dQ inside that
    block's stretch of the buffer (numpy, int64): consumer c // (d / 2)'s piece (rows: r // (block_m / 2)'s), then
    _ws_bwd_dq.frag_order's order (j, w, r8, q, i, p) for row 16 w + 8 i + r8 and column 8 j + 2 q + p of the
    piece. The kernel's reshape and the cast's inverse spell the same map; the CPU tests check this one against
    both."""
    import numpy as np
    r, c = np.meshgrid(np.arange(block_m), np.arange(d), indexing="ij")
    cid, cc = c // (d // 2), c % (d // 2)
    if rows:
        cid, r, cc = r // (block_m // 2), r % (block_m // 2), c
    w, i, r8 = r // 16, (r // 8) % 2, r % 8
    j, q, p = cc // 8, (cc // 2) % 4, cc % 2
    return (cid * (block_m * d // 2) + j * 512 + w * 128 + r8 * 16 + q * 4 + i * 2 + p).astype(np.int64)


def descriptors(q, do, k, v, dk, dv, dq_acc, block_m: int, dq_layout: str = "cols"):
    """TMA descriptors over 3-D views (B*H, N, d): a box stops at its head's end (zeros past it, stores and adds
    clip); dq_acc's (fp32) boxes are one consumer's d / 2 columns of block_m rows (dq_layout "cols", the TMA modes'
    B*H*Nq rows of d), its block_m / 2 rows of all d columns ("rows"), or its piece as block_m * d / 64 rows of 32
    ("frag", "rows-frag": B*H rows of Tq * block_m * d, pieces in frag_index's order)."""
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    d = q.shape[3]
    fp16 = str(q.dtype) == "torch.float16"

    def desc(x, rows):
        x3 = x.view(x.shape[0] * x.shape[1], x.shape[2], d)
        return TensorDescriptor(x3, list(x3.shape), list(x3.stride()), [1, rows, d], _smem_layout(rows, d, fp16))
    if dq_layout in FRAG_TILES:
        acc3 = dq_acc.view(q.shape[0] * q.shape[1], -1, 32)
        box = [1, block_m * d // 64, 32]
        layout = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=3)
    else:
        acc3 = dq_acc.view(q.shape[0] * q.shape[1], q.shape[2], d)
        box = [1, block_m // 2, d] if dq_layout == "rows" else [1, block_m, d // 2]
        layout = gl.NVMMASharedLayout.get_default_for(box, gl.float32)
    dq_desc = TensorDescriptor(acc3, list(acc3.shape), list(acc3.stride()), box, layout)
    return desc(q, block_m), desc(do, block_m), desc(k, 64), desc(v, 64), desc(dk, 64), desc(dv, 64), dq_desc


def compile_spec(d: int, causal: bool, dtype: str = "fp16", block_m: int = 64, stages: int = 2, dq_split: int = 1,
                 rotate: bool = True, dq_mode: str = "tma2", stats_acc: bool = True, early_dq: bool = False,
                 table: bool = False, gqa: bool = False, dq_first: bool = False, prefetch: int = 0,
                 exp_mode: str = "mufu", mask_mode: str | None = None, next_s: int = 0, dp_zero: bool = False):
    """(jit function, signature, constexprs, options) of one launch configuration of the ws backward, for
    triton.compile with a GluonASTSource (tools/compile_check.py --ws-bwd); table: a window's or packed documents'
    launch (the host's by-key tables). Call it with TRITON_INTERPRET=0."""
    import torch
    from triton.runtime.jit import mangle_type
    mod = importlib.import_module(f"{__package__}._ws_bwd_gluon")
    x = torch.empty((1, 2, 256, d), dtype=dict(fp16=torch.float16, bf16=torch.bfloat16)[dtype])
    names = ("desc_q", "desc_do", "desc_k", "desc_v", "desc_dk", "desc_dv", "desc_dq")
    acc = torch.empty((2 * 256, d), dtype=torch.float32)
    sig = {n: mangle_type(t) for n, t in zip(names, descriptors(x, x, x, x, x, x, acc, block_m, dq_layout(dq_mode)))}
    sig.update(DQ="*fp32", LSE="*fp32", DELTA="*fp32", qk_scale="fp32", qk_inv="fp32", sm_scale="fp32", n_q="i32",
               n_k="i32", n_dq="i32", KEYB="*i32", TILES="*i32", keyb_b="i32", tiles_b="i32", n_heads="i32",
               groups="i32")
    creg, preg, maxnreg = REGS
    consts = dict(BM=block_m, D=d, STAGES=stages, CAUSAL=causal, DQ_SPLIT=dq_split, ROTATE=rotate,
                  CONSUMER_REGS=creg, PRODUCER_REGS=preg, DQ_MODE=DQ_MODES[dq_mode],
                  STATS_ACC=stats_code(stats_acc, dp_zero),
                  EARLY_DQ=early_dq, TABLE=table, GQA=gqa, DQ_FIRST=dq_first, PREFETCH=prefetch,
                  EXP=exp_code(exp_mode), MASK=mask_code(mask_mode),
                  NEXT=next_code(next_s, dq_mode, early_dq, dq_first, prefetch, stats_acc, stages))
    sig.update({k: "constexpr" for k in consts})
    return mod.ws_bwd, sig, consts, dict(num_warps=4, maxnreg=maxnreg)


def backward(q, k, v, o, lse, do, *, causal: bool, sm_scale: float, dlse=None, block_m: int | None = None,
             stages: int | None = None, dq_split: int | None = None, rotate: bool | None = None,
             dq_mode: str | None = None, dq_adds: bool = True, stats_acc: bool = True, early_dq: bool | None = None,
             dq_first: bool | None = None, prefetch: int | None = None, variant=None, exp_mode: str = "mufu",
             mask_mode: str | None = None, next_s: int | None = None, groups: int | None = None):
    """q (B, H, Nq, d), k/v (B, H, Nk, d), o/do like q, fp16/bf16 CUDA; lse (B, H, Nq) float32 natural log; dlse
    None or like lse -> (dq, dk, dv) in q's dtype. block_m / stages / dq_split / rotate / dq_mode (a DQ_MODES key):
    instead of CONFIGS (tests, tuning). dq_adds=False (timing only: what the fp32 dQ adds cost) issues every add with
    its row mask off, so dQ comes back zero and everything else runs as usual. stats_acc=False (timing only) holds
    lse and delta in registers (the schedule before STATS_ACC) instead of starting S^T's and dP^T's accumulators
    at -lse2 / qk_scale and -delta (stats_acc_on: off at sm_scale 0 and tiny scales). early_dq: instead of EARLY_DQ
    (TMA_MODES only). dq_first (TMA_MODES, not with early_dq; None: the table's): dQ's MMAs issued before dK's and
    its piece sent while dK's runs (FlashAttention-3's order). prefetch (TMA_MODES; None: the table's, 0 in the
    other modes; prefetch_for): 1 each query block's lse and delta loaded into registers one block ahead, 2 loaded by
    the producer into the block's ring stage with Q_i and dO_i, so no L2 round trip sits between a block's start and
    its first MMAs; 0 loaded as the block starts. exp_mode: an EXP_MODES key (how P^T's exponentials issue);
    mask_mode: a MASK_MODES key (how masked blocks zero P^T), None: MASK_DEFAULT. next_s: a NEXT_MODES value (where
    the next query block's S^T is issued; next_code), None: NEXT_ENV's or next_default's. DP_ZERO_ENV (1 or 0, else
    dp_zero_default's) starts dP^T's accumulator at zero instead of -delta (stats_code). groups (tests, tuning): G,
    a divisor of B*H, instead of ws_schedule.key_group's.
    variant: a checked flashviz_kernels.variants.Variant (takes_variant: windows, packed documents, GQA; no softcap
    or ALiBi), whose by-key tables then decide the blocks and the mask; None: plain or causal by `causal`. k, v may
    have H_kv heads dividing H (GQA/MQA)."""
    import torch
    import triton

    from .backward import row_stats
    from .backward_fused import dq_cast
    from .fast import tma_ready
    why = supported(q)
    if why:
        raise KernelInputError(f"the ws backward cannot run here: {why}")
    b, h, n_q, d = q.shape
    n_k = k.shape[2]
    h_kv = k.shape[1]
    if k.shape[0] != b or h_kv < 1 or h % h_kv or v.shape != k.shape:
        raise KernelInputError(f"the ws backward takes k and v shaped alike with q's B and H_kv dividing H = {h}; got "
                               f"{tuple(k.shape)}, {tuple(v.shape)}")
    if variant is not None and not takes_variant(variant):
        raise KernelInputError("the ws backward takes plain or causal attention, sliding windows, packed documents "
                               f"and GQA/MQA only (no softcap or ALiBi), not {variant.describe()}")
    table = variant is not None and uses_table(variant)
    bm, st, split, rot, mode = CONFIGS[d]
    bm, st, split, mode = block_m or bm, stages or st, dq_split or split, dq_mode or mode
    rot = rot if rotate is None else bool(rotate)
    if dq_first is None:
        dq_first = DQ_FIRST[d] and not early_dq and mode in TMA_MODES
    prefetch = prefetch_for(d, mode, prefetch)
    exp, mask = exp_code(exp_mode), mask_code(mask_mode)
    check_tiles(d, bm, st, split, mode, q.element_size(), prefetch)
    if (early_dq or dq_first) and mode not in TMA_MODES:
        raise KernelInputError(f"early_dq and dq_first take dq_mode {' or '.join(map(repr, TMA_MODES))}, not {mode!r}")
    if early_dq and dq_first:
        raise KernelInputError("early_dq and dq_first are two orders of dQ's MMAs: pick one")
    if groups is not None and (not isinstance(groups, int) or groups < 1 or (b * h) % groups):
        raise KernelInputError(f"groups is a positive int dividing B*H = {b * h}; got {groups!r}")
    if triton.cdiv(n_k, BLOCK_N) > ws.GRID_AXIS:      # the grid's second axis (CUDA's limit there)
        raise KernelInputError(f"the ws backward takes Nk up to {ws.GRID_AXIS * BLOCK_N} keys; got {n_k}")
    q, k, v, do = (tma_ready(x) for x in (q, k, v, do))
    o = o.contiguous()
    lse2, delta = row_stats(o, do, lse, dlse, d, lse_scale=LOG2E)     # the kernel's exponentials are bare exp2
    dk, dv = (torch.empty((b, h, n_k, d), dtype=k.dtype, device=k.device) for _ in range(2))   # per query head
    tq = triton.cdiv(n_q, bm)                         # FRAG_TILES: whole blocks per head, in frag_index's order
    dq_acc = torch.zeros((b * h * tq * bm, d) if mode in FRAG_TILES else (b * h * n_q, d), dtype=torch.float32,
                         device=q.device)
    mod = importlib.import_module(f"{__package__}._ws_bwd_gluon")
    creg, preg, maxnreg = REGS
    *descs, dq_desc = descriptors(q, do, k, v, dk, dv, dq_acc, bm, dq_layout(mode))
    if table:                                         # per key its query rows (1 or B, Nk, 2), per key block its
        keyb = variants.key_bounds(variant, n_q, n_k, q.device)         # query-block ranges (1 or B, Tk, 4)
        tiles = variants.tables(variant, n_q, n_k, q.device, bm, BLOCK_N, by_key=True)[1]
        keyb_b, tiles_b = variants.batch_stride(keyb), variants.batch_stride(tiles)
    else:
        keyb, tiles, keyb_b, tiles_b = lse2, lse2, 0, 0                 # dummy pointers
    acc = stats_acc_on(stats_acc, sm_scale)           # (qk_inv: only read with it, where sm_scale is not 0)
    early = early_dq_on(d, mode, early_dq) and not dq_first
    nxt = next_code(next_s, mode, early, bool(dq_first), prefetch, acc, st, next_default(d))
    causal = bool(causal if variant is None else variant.causal)
    n_kb = triton.cdiv(n_k, BLOCK_N)
    if groups is None:                                # LPT: a head group's key blocks 0 first (lpt_default)
        lpt = causal and not table and lpt_default(n_kb * b * h / ws.sm_count(q.device), "backward")
        groups = key_group(b * h, n_q, d, q.element_size(), lpt)
    mod.ws_bwd[(groups, n_kb, b * h // groups)](
        *descs, dq_acc, lse2, delta, sm_scale * LOG2E, 1.0 / (sm_scale * LOG2E) if acc else 0.0, sm_scale, n_q, n_k,
        n_q if dq_adds else 0, dq_desc,
        keyb, tiles, keyb_b, tiles_b, h, h // h_kv, BM=bm, D=d, STAGES=st,
        CAUSAL=causal, DQ_SPLIT=split, ROTATE=rot, CONSUMER_REGS=creg,
        PRODUCER_REGS=preg, DQ_MODE=DQ_MODES[mode], STATS_ACC=stats_code(acc, default=dp_zero_default(d, nxt)),
        EARLY_DQ=early, TABLE=table, GQA=h_kv != h,
        DQ_FIRST=bool(dq_first), PREFETCH=prefetch, EXP=exp, MASK=mask, NEXT=nxt, num_warps=4,
        maxnreg=maxnreg)
    dq = torch.empty_like(q)
    if mode in FRAG_TILES:                            # one program per block's piece: back to row order
        from ._ws_bwd_cast import dq_cast_frag
        dq_cast_frag[(b * h * tq * 2,)](dq_acc, dq, n_q, tq, sm_scale, BM=bm, D=d, ROWS=mode == "rows-frag")
    else:
        total = dq_acc.numel()
        dq_cast[(triton.cdiv(total, 1024),)](dq_acc, dq, total, sm_scale, BLOCK=1024)
    if h_kv != h:                                     # GQA: each K/V head's gradient is its group's sum
        dk, dv = (x.view(b, h_kv, h // h_kv, n_k, d).sum(2, dtype=torch.float32).to(k.dtype) for x in (dk, dv))
    return dq, dk, dv
