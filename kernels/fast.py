"""The fast flash-attention forward kernel (Triton "tl"), tuned for Hopper (H100/H200).

Same contract as the teaching kernel (out + log-sum-exp, the variants of flashviz_kernels.variants:
window / causal bottom-right aligned, packed documents, ALiBi, softcap, GQA; ragged N, fully masked
rows -> zeros), minus the trace. What makes it fast:
  - log2(e) folded into the softmax scale so every exponential is a bare exp2 (kernels/numerics.py);
  - K/V tiles arrive through tensor descriptors (TMA on Hopper), software-pipelined num_stages deep;
  - the key loop runs only the tiles some row of the Q block sees (variants.tile_ranges), in three
    stages: tiles every row fully sees run with no mask at all; only the band before them (a window's
    or document's left edge) and after them (causal diagonal, right edge, ragged last tile) pay for
    masking and the guard;
  - causal programs are launched heaviest-first (last Q block first) to balance the tail;
  - tile shapes, warps and stages per head dim / causal / dtype from kernels/forward_table.py's TL_LAUNCHES.
Why it exists: it runs every variant on every GPU Triton compiles for (and on CPU in the interpreter); peak extra
memory is exactly the output + LSE. When it runs: impl="fast" wherever kernels/forward_table.py's ROUTES do not
send the call to the warp-specialised ws kernel (kernels/ws.py) or ws cannot run here (its speed pinned against
ws and cuDNN: assets/benchmarks/ws/nvidia-h200-ws-2026-12-01b.json, run with FLASHVIZ_FAST_TL=1).
At N=1024 a call's host-side launch is about as long as the kernel (`python -m tools.launch_overhead`): the
recorded datasets carry a CUDA-graph column (graph_ms) next to the per-call one.
The calling contract is the teaching kernel's: pick_config(...) then forward(q, k, v, *, variant, sm_scale,
block_m, block_n, num_warps, num_stages) -> (out, lse), inputs checked by flashviz_kernels.api.
"""
from . import _env  # noqa: F401  (decides TRITON_INTERPRET before triton is imported)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from . import forward_table, variants  # noqa: E402
from .numerics import LN2_C, LOG2E, LOG2E_C  # noqa: E402
from .variants import load_range, modify, visible  # noqa: E402
from .scopes import enter_scope, exit_scope  # noqa: E402

import threading  # noqa: E402

# Host TMA descriptors cached per input tensor: building three TensorDescriptors is a visible part of a short
# call's launch cost (python -m tools.launch_overhead). The cache is keyed weakly by the tensor
# object (torch.utils.weak.WeakIdKeyDictionary): an entry dies with its tensor, so it never outlives the memory
# it describes and never keeps that memory alive longer than the caller does (the descriptor holds a view of a
# detached alias, not the tensor itself). Each entry also stores data_ptr, shape, strides, dtype and block, and
# is rebuilt when any of them changed (x.set_(), in-place resize). At most _DESC_MAX tensors are kept.
_DESC_CACHE = None
_DESC_LOCK = threading.Lock()
_DESC_MAX = 64


def tma_ready(x):
    """x as a TMA descriptor needs it: contiguous, with a 16-byte aligned base (a copy only when it is not)."""
    x = x.contiguous()
    return x if x.data_ptr() % 16 == 0 else x.clone()


def _descriptor(x, rows: int, d: int, block: list):
    """TensorDescriptor over x viewed as (rows, d) with the given block shape, reused while x is alive."""
    global _DESC_CACHE
    from triton.tools.tensor_descriptor import TensorDescriptor
    key = (x.data_ptr(), tuple(x.shape), tuple(x.stride()), x.dtype, x.device, rows, d, tuple(block))
    with _DESC_LOCK:
        if _DESC_CACHE is None:
            from torch.utils.weak import WeakIdKeyDictionary
            _DESC_CACHE = WeakIdKeyDictionary()
        hit = _DESC_CACHE.get(x, {}).get(key)
    if hit is not None:
        return hit
    desc = TensorDescriptor.from_tensor(x.detach().view(rows, d), block)
    with _DESC_LOCK:
        if len(_DESC_CACHE) >= _DESC_MAX:
            _DESC_CACHE.clear()
        per = _DESC_CACHE.setdefault(x, {})
        if len(per) >= 8:                                           # a tensor seen with many block shapes
            per.clear()
        per[key] = desc
    return desc


# (head dim upper bound, causal, element bytes) -> (BLOCK_M, BLOCK_N, num_warps, num_stages): kernels/forward_table.py's
# TL_LAUNCHES, read live
CONFIGS = forward_table.tl_configs()


@triton.jit
def _stage(acc, l, m, q, desc_k, desc_v, kv_row0, lo, hi, rows, qk_scale, sm_scale, n_q, n_k, offset, left, right,
           ROWB, rowb0, slope, softcap, BLOCK_N: tl.constexpr, MASKED: tl.constexpr, LEFT: tl.constexpr,
           RIGHT: tl.constexpr, SEQ: tl.constexpr, MODS: tl.constexpr, SOFTCAP: tl.constexpr, ALIBI: tl.constexpr,
           IEEE: tl.constexpr):
    """Online softmax over keys [lo, hi) (whole tiles): m and scores in log2 units (scores * log2 e)."""
    # proton scopes (kernels/scopes.py) time each step per warp for the "Inside the kernel" page; without
    # proton's instrumentation on they compile to nothing
    for start in tl.range(lo, hi, BLOCK_N):
        start = tl.multiple_of(start, BLOCK_N)
        enter_scope("load_k")
        k = desc_k.load([kv_row0 + start, 0])                       # K_j: (BLOCK_N, BLOCK_D)
        exit_scope("load_k")
        enter_scope("qk")
        if IEEE:
            qk = tl.dot(q, k.T, input_precision="ieee")
        else:
            qk = tl.dot(q, k.T)                                     # S_ij / scale
        exit_scope("qk")
        enter_scope("softmax")
        cols = start + tl.arange(0, BLOCK_N)
        if MODS:                                                    # s in natural units, then to log2 units
            s, _ = modify(qk * sm_scale, rows[:, None], cols[None, :], offset, slope, softcap, SOFTCAP, ALIBI)
            qk = s * LOG2E_C
            scale = 1.0
        else:
            scale = qk_scale
        if MASKED:                                                  # window / causal / document edge, ragged tail
            seen = visible(rows[:, None], cols[None, :], n_q, n_k, offset, left, right, ROWB, rowb0, LEFT, RIGHT, SEQ)
            qk = tl.where(seen, qk * scale, float("-inf"))
            m_new = tl.maximum(m, tl.max(qk, 1))
            m_ref = tl.where(m_new == float("-inf"), 0.0, m_new)    # guard: nothing visible yet
            qk = qk - m_ref[:, None]
        else:                                                       # every key visible: no mask, no guard
            m_new = tl.maximum(m, tl.max(qk, 1) * scale)
            m_ref = m_new
            qk = qk * scale - m_ref[:, None]
        p = tl.math.exp2(qk)                                        # P~_ij
        alpha = tl.math.exp2(m - m_ref)                             # rescale of what came before
        l = l * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        exit_scope("softmax")
        enter_scope("load_v_pv")
        v = desc_v.load([kv_row0 + start, 0])                       # V_j: (BLOCK_N, BLOCK_D)
        if MASKED:        # ragged tile: rows past n_k are the next head's; p = 0 there, but 0 * inf = NaN
            v = tl.where(cols[:, None] < n_k, v, 0.0)
        if IEEE:
            acc = tl.dot(p, v, acc, input_precision="ieee")
        else:
            acc = tl.dot(p.to(v.dtype), v, acc)
        exit_scope("load_v_pv")
        m = m_new
    return acc, l, m


@triton.jit
def _fast_fwd(desc_q, desc_k, desc_v, O, LSE, ROWB, TILES, SLOPES, qk_scale, sm_scale, softcap, n_q, n_k,
              left, right, so_bh, so_n, rowb_b, tiles_b, slopes_b,
              H: tl.constexpr, GROUPS: tl.constexpr, D: tl.constexpr, BLOCK_D: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, REVERSE: tl.constexpr, MASK_BEFORE: tl.constexpr,
              LEFT: tl.constexpr, RIGHT: tl.constexpr, SEQ: tl.constexpr, MODS: tl.constexpr,
              SOFTCAP: tl.constexpr, ALIBI: tl.constexpr, IEEE: tl.constexpr):
    pid = tl.program_id(0)
    if REVERSE:                                                     # causal: heaviest (last) Q blocks first
        pid = tl.num_programs(0) - 1 - pid
    bh = tl.program_id(1)
    b = bh // H
    h = bh % H
    start_q = pid * BLOCK_M
    rows = start_q + tl.arange(0, BLOCK_M)
    offset = n_k - n_q                                              # bottom-right alignment
    rowb0 = b * rowb_b
    t_lo, f_lo, f_hi, t_hi = load_range(TILES, b * tiles_b, pid)
    slope = 0.0
    if ALIBI:
        slope = tl.load(SLOPES + b * slopes_b + h)

    q = desc_q.load([bh * n_q + start_q, 0])                        # Q_i: (BLOCK_M, BLOCK_D), stays on chip
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)

    kv_row0 = (b * (H // GROUPS) + h // GROUPS) * n_k               # GQA: this query head's kv head
    # the key tiles this block runs (variants.tile_ranges): masked [t_lo, f_lo) (compiled only when a window's
    # left side or a document start can make it non-empty), full [f_lo, f_hi), masked [f_hi, t_hi); the other
    # tiles are skipped: no row of the block sees any of their keys
    if MASK_BEFORE:
        acc, l, m = _stage(acc, l, m, q, desc_k, desc_v, kv_row0, t_lo * BLOCK_N, f_lo * BLOCK_N, rows, qk_scale,
                           sm_scale, n_q, n_k, offset, left, right, ROWB, rowb0, slope, softcap, BLOCK_N, True,
                           LEFT, RIGHT, SEQ, MODS, SOFTCAP, ALIBI, IEEE)
    acc, l, m = _stage(acc, l, m, q, desc_k, desc_v, kv_row0, f_lo * BLOCK_N, f_hi * BLOCK_N, rows, qk_scale,
                       sm_scale, n_q, n_k, offset, left, right, ROWB, rowb0, slope, softcap, BLOCK_N, False,
                       LEFT, RIGHT, SEQ, MODS, SOFTCAP, ALIBI, IEEE)
    acc, l, m = _stage(acc, l, m, q, desc_k, desc_v, kv_row0, f_hi * BLOCK_N, t_hi * BLOCK_N, rows, qk_scale,
                       sm_scale, n_q, n_k, offset, left, right, ROWB, rowb0, slope, softcap, BLOCK_N, True,
                       LEFT, RIGHT, SEQ, MODS, SOFTCAP, ALIBI, IEEE)

    # epilogue: normalise once, rows that saw no key stay zero; masked store (ragged N)
    l_safe = tl.where(l == 0.0, 1.0, l)
    out = acc / l_safe[:, None]
    dims = tl.arange(0, BLOCK_D)
    row_ok = rows < n_q
    o_ptr = O + bh.to(tl.int64) * so_bh + rows[:, None] * so_n + dims[None, :]
    tl.store(o_ptr, out.to(O.dtype.element_ty), mask=row_ok[:, None] & (dims[None, :] < D))
    lse = tl.where(l == 0.0, float("-inf"), (m + tl.math.log2(l_safe)) * LN2_C)  # natural log
    tl.store(LSE + bh.to(tl.int64) * n_q + rows, lse, mask=row_ok)


def pick_config(q, k, *, causal: bool = False, block_m=None, block_n=None) -> tuple[int, int, int, int]:
    """(block_m, block_n, num_warps, num_stages) from the forward table, keeping the given blocks; in the
    interpreter 64 x 64 (few, large blocks: it pays per tile, not per lane)."""
    bm, bn, warps, stages = forward_table.tl_tiles(q.shape[3], causal, q.element_size())  # api caps d at 256
    if _env.INTERPRET:
        bm = bn = 64
    return (bm if block_m is None else block_m), (bn if block_n is None else block_n), warps, stages


def forward(q, k, v, *, variant, sm_scale: float, block_m: int, block_n: int, num_warps: int,
            num_stages: int):
    """q (B, H, Nq, d), k/v (B, H_kv, Nk, d) -> (out like q, lse (B, H, Nq) float32). sm_scale > 0;
    variant: a checked flashviz_kernels.variants.Variant."""
    import torch

    b, h, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    bm, bn = block_m, block_n
    block_d = max(16, 1 << (d - 1).bit_length())

    q, k, v = tma_ready(q), tma_ready(k), tma_ready(v)
    o = torch.empty_like(q)
    lse = torch.empty((b, h, n_q), dtype=torch.float32, device=q.device)
    rowb, tiles = variants.tables(variant, n_q, n_k, q.device, bm, bn)
    slopes, slopes_b = variants.slopes_arg(variant, lse)
    desc_q = _descriptor(q, b * h * n_q, d, [bm, block_d])
    desc_k = _descriptor(k, b * h_kv * n_k, d, [bn, block_d])
    desc_v = _descriptor(v, b * h_kv * n_k, d, [bn, block_d])
    grid = (triton.cdiv(n_q, bm), b * h)
    _fast_fwd[grid](desc_q, desc_k, desc_v, o, lse, rowb, tiles, slopes, sm_scale * LOG2E, sm_scale,
                    variant.softcap or 1.0, n_q, n_k, variant.left, variant.right, o.stride(1), o.stride(2),
                    variants.batch_stride(rowb), variants.batch_stride(tiles), slopes_b, H=h, GROUPS=variant.groups,
                    D=d, BLOCK_D=block_d, BLOCK_M=bm, BLOCK_N=bn, REVERSE=variant.right == 0,
                    MASK_BEFORE=variant.masks_before_full, **variant.flags(), IEEE=q.element_size() == 4,
                    num_warps=num_warps, num_stages=num_stages)
    return o, lse
