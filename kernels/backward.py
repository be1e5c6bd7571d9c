"""Flash-attention backward (Triton): recompute P tile by tile from the saved log-sum-exp.

The forward kept only O and lse = m + log(l) per row (O(N) extra memory); the N x N matrices S and
P are never stored. Here each tile of P is recomputed on chip as exp(S_ij - lse_i), and
    dV_j += P_ij^T dO_i                  dP_ij = dO_i V_j^T
    dS_ij = P_ij * (dP_ij - delta_i)     delta_i = rowsum(dO_i * O_i) - dlse_i
    dQ_i += dS_ij K_j * scale            dK_j += dS_ij^T Q_i * scale
Two kernels: one program per K/V block accumulating dK, dV over the Q blocks that see it (for GQA,
over every query head of its group, so K/V are never repeated), one program per Q block accumulating
dQ over its K/V blocks (no atomics). Both run only the tiles flashviz_kernels.variants says hold a
visible pair, unmasked where every pair is visible, as in the forward (same tables, same mask). The
softcap's c tanh(s / c) adds its derivative 1 - tanh^2 to dS; ALiBi adds a constant (no gradient).
Recomputing S costs one extra Q K^T per tile (the usual backward = 2.5x forward FLOPs); it is what buys
the O(N) memory.
dlse is the gradient reaching the log-sum-exp output (zero when only O is used): since d lse_i / d S_ij =
P_ij, it adds dlse_i * P_ij to dS_ij, which is the same as subtracting it from delta_i.
Why it exists: the teaching reference, and the one backward that takes every variant (softcap, ALiBi, windows,
documents, GQA) and every GPU. When it runs: where kernels/backward_table.py names no faster backward (its tiles:
that table's REFERENCE_LAUNCHES; its speed against SDPA's: docs/BENCHMARKS.md).

Contract (as the forward kernels'): pick_config(q) then backward(q, k, v, o, lse, do, *, variant, sm_scale,
dlse=None, config) -> (dq, dk, dv), inputs checked by flashviz_kernels.api.
"""
import torch

from . import _env  # noqa: F401  (decides TRITON_INTERPRET before triton is imported)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from . import backward_table, variants  # noqa: E402
from .numerics import LOG2E, LOG2E_C  # noqa: E402
from .variants import load_range, modify, visible  # noqa: E402

# head dim upper bound -> (dkdv BLOCK_M, BLOCK_N, dq BLOCK_M, BLOCK_N, num_warps, num_stages) of fp16/bf16 inputs:
# kernels/backward_table.py's REFERENCE_LAUNCHES, read live
BWD_CONFIGS = backward_table.by_bound(backward_table.REFERENCE_LAUNCHES, "reference", backward_table.REFERENCE_NAMES)


@triton.jit
def _tile(start, n, bh, D: tl.constexpr, BLOCK: tl.constexpr, BLOCK_D: tl.constexpr):
    """Rows start .. start + BLOCK - 1 of head bh in a contiguous (B*H, n, D) tensor: (row indices, element
    offsets, in-bounds mask), for every load and store below."""
    idx = start + tl.arange(0, BLOCK)
    dims = tl.arange(0, BLOCK_D)
    return idx, bh * n * D + idx[:, None] * D + dims[None, :], (idx[:, None] < n) & (dims[None, :] < D)


@triton.jit
def _row_stats(LSE, DELTA, bh, rows, n_q):
    """lse in log2 units (+inf past n_q, so P = 0 there) and delta of the query rows."""
    lse = tl.load(LSE + bh * n_q + rows, mask=rows < n_q, other=float("inf")) * LOG2E_C
    delta = tl.load(DELTA + bh * n_q + rows, mask=rows < n_q, other=0.0)
    return lse, delta


@triton.jit
def bwd_delta(O, DO, LSE, DLSE, LSE_OUT, DELTA, lse_scale, n_q, D: tl.constexpr, BLOCK_D: tl.constexpr,
              BLOCK_M: tl.constexpr, HAS_DLSE: tl.constexpr):
    """The pre-pass (row_stats): delta_i and lse_i * lse_scale of BLOCK_M query rows, a row that saw no key patched."""
    bh = tl.program_id(1).to(tl.int64)
    rows, base, ok = _tile(tl.program_id(0) * BLOCK_M, n_q, bh, D, BLOCK_M, BLOCK_D)
    live = rows < n_q
    o = tl.load(O + base, mask=ok, other=0.0).to(tl.float32)
    do = tl.load(DO + base, mask=ok, other=0.0).to(tl.float32)
    delta = tl.sum(o * do, 1)                                                   # delta_i
    lse = tl.load(LSE + bh * n_q + rows, mask=live, other=0.0)
    dead = lse == float("-inf")                                                 # saw no key
    if HAS_DLSE:                                                                # a dead row's dlse counts for nothing
        delta = delta - tl.where(dead, 0.0, tl.load(DLSE + bh * n_q + rows, mask=live, other=0.0).to(tl.float32))
    tl.store(DELTA + bh * n_q + rows, delta, mask=live)
    tl.store(LSE_OUT + bh * n_q + rows, tl.where(dead, float("inf"), lse * lse_scale), mask=live)   # +inf: P = 0


def row_stats(o, do, lse, dlse, block_d: int, lse_scale: float = 1.0):
    """The per-row inputs of a backward that recomputes P from the LSE (all three backwards): (lse * lse_scale with
    the rows that saw no key (-inf) patched to +inf, so their P is exactly 0; delta = rowsum(dO * O) - dlse, the
    gradient reaching a dead row's lse counting for nothing), each (B, H, Nq) float32, contiguous, new (the caller's
    lse is not touched). One kernel (bwd_delta) does the patch and the sum. block_d: the head dim rounded up to a
    power of two (the pre-pass's tile)."""
    b, h, n_q, d = o.shape
    lse = lse.contiguous()
    lse_out = torch.empty(lse.shape, dtype=torch.float32, device=lse.device)
    delta = torch.empty_like(lse_out)
    bwd_delta[(triton.cdiv(n_q, 64), b * h)](o.contiguous(), do.contiguous(), lse,
                                               delta if dlse is None else dlse.contiguous(),   # DLSE unread
                                               lse_out, delta, float(lse_scale), n_q, D=d, BLOCK_D=block_d,
                                               BLOCK_M=64, HAS_DLSE=dlse is not None)
    return lse_out, delta


@triton.jit
def dot(a, b, IEEE: tl.constexpr):
    if IEEE:
        return tl.dot(a, b, input_precision="ieee")
    return tl.dot(a, b)


@triton.jit
def _probs(a, b_t, rows, cols, lse, qk_scale, sm_scale, n_q, n_k, offset, left, right, slope, softcap, ROWB, rowb0,
           MASKED: tl.constexpr, LEFT: tl.constexpr, RIGHT: tl.constexpr, SEQ: tl.constexpr, MODS: tl.constexpr,
           SOFTCAP: tl.constexpr, ALIBI: tl.constexpr, IEEE: tl.constexpr):
    """P = exp(S - lse) recomputed for a tile (rows, cols and lse broadcast to it: either layout), and
    dS_out/dS_in of the softcap (1.0 without it). lse is in log2 units."""
    qk = dot(a, b_t, IEEE)
    grad = tl.zeros_like(qk) + 1.0
    if MODS:                                                                    # softcap, ALiBi: natural units
        s, grad = modify(qk * sm_scale, rows, cols, offset, slope, softcap, SOFTCAP, ALIBI)
        p = tl.math.exp2(s * LOG2E_C - lse)
    else:
        p = tl.math.exp2(qk * qk_scale - lse)
    if MASKED:
        p = tl.where(visible(rows, cols, n_q, n_k, offset, left, right, ROWB, rowb0, LEFT, RIGHT, SEQ), p, 0.0)
    return p, grad


@triton.jit
def _dkdv_stage(dk, dv, k, v, Q, DO, LSE, DELTA, ROWB, rowb0, bh, cols, lo, hi, qk_scale, sm_scale, n_q, n_k, offset,
                left, right, slope, softcap, D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr,
                MASKED: tl.constexpr, LEFT: tl.constexpr, RIGHT: tl.constexpr, SEQ: tl.constexpr,
                MODS: tl.constexpr, SOFTCAP: tl.constexpr, ALIBI: tl.constexpr, IEEE: tl.constexpr):
    for start in tl.range(lo, hi, BLOCK_M):
        rows, qo, ok = _tile(start, n_q, bh, D, BLOCK_M, BLOCK_D)
        q = tl.load(Q + qo, mask=ok, other=0.0)
        do = tl.load(DO + qo, mask=ok, other=0.0)
        lse, delta = _row_stats(LSE, DELTA, bh, rows, n_q)
        p_t, grad = _probs(k, tl.trans(q), rows[None, :], cols[:, None], lse[None, :], qk_scale, sm_scale, n_q, n_k,
                           offset, left, right, slope, softcap, ROWB, rowb0, MASKED, LEFT, RIGHT, SEQ, MODS,
                           SOFTCAP, ALIBI, IEEE)                                 # P^T: (BLOCK_N, BLOCK_M)
        dv += dot(p_t.to(do.dtype), do, IEEE)                                   # dV += P^T dO
        dp_t = dot(v, tl.trans(do), IEEE)                                      # dP^T = V dO^T
        ds_t = p_t * (dp_t - delta[None, :])                                     # dS^T
        if SOFTCAP:
            ds_t = ds_t * grad                                                   # through c tanh(s / c)
        dk += dot(ds_t.to(q.dtype), q, IEEE)                                    # dK += dS^T Q
    return dk, dv


@triton.jit
def _bwd_dkdv(Q, K, V, DO, LSE, DELTA, DK, DV, ROWB, TILES, SLOPES, qk_scale, sm_scale, softcap, n_q, n_k,
              left, right, rowb_b, tiles_b, slopes_b, H: tl.constexpr, GROUPS: tl.constexpr,
              D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              MASK_BEFORE: tl.constexpr, LEFT: tl.constexpr, RIGHT: tl.constexpr, SEQ: tl.constexpr,
              MODS: tl.constexpr, SOFTCAP: tl.constexpr, ALIBI: tl.constexpr, IEEE: tl.constexpr):
    pid = tl.program_id(0)
    start_k = pid * BLOCK_N
    kvh = tl.program_id(1).to(tl.int64)                                          # (batch, kv head)
    b = kvh // (H // GROUPS)
    cols, kv, ok = _tile(start_k, n_k, kvh, D, BLOCK_N, BLOCK_D)
    k = tl.load(K + kv, mask=ok, other=0.0)                                      # K_j, V_j stay on chip
    v = tl.load(V + kv, mask=ok, other=0.0)
    dk = tl.zeros([BLOCK_N, BLOCK_D], tl.float32)
    dv = tl.zeros([BLOCK_N, BLOCK_D], tl.float32)
    offset = n_k - n_q
    # the query blocks that see these keys (variants.tile_ranges, keys x queries): masked [t_lo, f_lo) (rows
    # that start to see them: causal band, window right side, document start), full [f_lo, f_hi), masked
    # [f_hi, t_hi) (rows that stop seeing them, and the ragged last query block)
    t_lo, f_lo, f_hi, t_hi = load_range(TILES, b * tiles_b, pid)
    rowb0 = b * rowb_b
    for g in range(GROUPS):                                  # GQA: dK, dV summed over the group's query heads
        h = (kvh % (H // GROUPS)) * GROUPS + g
        bh = b * H + h
        slope = 0.0
        if ALIBI:
            slope = tl.load(SLOPES + b * slopes_b + h)
        if MASK_BEFORE:
            dk, dv = _dkdv_stage(dk, dv, k, v, Q, DO, LSE, DELTA, ROWB, rowb0, bh, cols, t_lo * BLOCK_M,
                                 f_lo * BLOCK_M, qk_scale, sm_scale, n_q, n_k, offset, left, right, slope, softcap,
                                 D, BLOCK_D, BLOCK_M, True, LEFT, RIGHT, SEQ, MODS, SOFTCAP, ALIBI, IEEE)
        dk, dv = _dkdv_stage(dk, dv, k, v, Q, DO, LSE, DELTA, ROWB, rowb0, bh, cols, f_lo * BLOCK_M,
                             f_hi * BLOCK_M, qk_scale, sm_scale, n_q, n_k, offset, left, right, slope, softcap,
                             D, BLOCK_D, BLOCK_M, False, LEFT, RIGHT, SEQ, MODS, SOFTCAP, ALIBI, IEEE)
        dk, dv = _dkdv_stage(dk, dv, k, v, Q, DO, LSE, DELTA, ROWB, rowb0, bh, cols, f_hi * BLOCK_M,
                             t_hi * BLOCK_M, qk_scale, sm_scale, n_q, n_k, offset, left, right, slope, softcap,
                             D, BLOCK_D, BLOCK_M, True, LEFT, RIGHT, SEQ, MODS, SOFTCAP, ALIBI, IEEE)
    tl.store(DK + kv, (dk * sm_scale).to(DK.dtype.element_ty), mask=ok)
    tl.store(DV + kv, dv.to(DV.dtype.element_ty), mask=ok)


@triton.jit
def _dq_stage(dq, q, do, lse, delta, K, V, kvh, rows, ROWB, rowb0, lo, hi, qk_scale, sm_scale, n_q, n_k, offset,
              left, right, slope, softcap, D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_N: tl.constexpr,
              MASKED: tl.constexpr, LEFT: tl.constexpr, RIGHT: tl.constexpr, SEQ: tl.constexpr,
              MODS: tl.constexpr, SOFTCAP: tl.constexpr, ALIBI: tl.constexpr, IEEE: tl.constexpr):
    for start in tl.range(lo, hi, BLOCK_N):
        cols, kv, ok = _tile(start, n_k, kvh, D, BLOCK_N, BLOCK_D)
        k = tl.load(K + kv, mask=ok, other=0.0)
        v = tl.load(V + kv, mask=ok, other=0.0)
        p, grad = _probs(q, tl.trans(k), rows[:, None], cols[None, :], lse[:, None], qk_scale, sm_scale, n_q, n_k,
                         offset, left, right, slope, softcap, ROWB, rowb0, MASKED, LEFT, RIGHT, SEQ, MODS,
                         SOFTCAP, ALIBI, IEEE)                                   # P: (BLOCK_M, BLOCK_N)
        dp = dot(do, tl.trans(v), IEEE)                                        # dP = dO V^T
        ds = p * (dp - delta[:, None])                                           # dS
        if SOFTCAP:
            ds = ds * grad
        dq += dot(ds.to(k.dtype), k, IEEE)                                      # dQ += dS K
    return dq


@triton.jit
def _bwd_dq(Q, K, V, DO, LSE, DELTA, DQ, ROWB, TILES, SLOPES, qk_scale, sm_scale, softcap, n_q, n_k,
            left, right, rowb_b, tiles_b, slopes_b, H: tl.constexpr, GROUPS: tl.constexpr,
            D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
            MASK_BEFORE: tl.constexpr, LEFT: tl.constexpr, RIGHT: tl.constexpr, SEQ: tl.constexpr,
            MODS: tl.constexpr, SOFTCAP: tl.constexpr, ALIBI: tl.constexpr, IEEE: tl.constexpr):
    pid = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    b = bh // H
    kvh = b * (H // GROUPS) + (bh % H) // GROUPS                                 # GQA: its kv head
    rows, qo, ok = _tile(pid * BLOCK_M, n_q, bh, D, BLOCK_M, BLOCK_D)
    q = tl.load(Q + qo, mask=ok, other=0.0)
    do = tl.load(DO + qo, mask=ok, other=0.0)
    lse, delta = _row_stats(LSE, DELTA, bh, rows, n_q)
    rowb0 = b * rowb_b
    t_lo, f_lo, f_hi, t_hi = load_range(TILES, b * tiles_b, pid)                 # as the forward's
    slope = 0.0
    if ALIBI:
        slope = tl.load(SLOPES + b * slopes_b + bh % H)
    dq = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    offset = n_k - n_q
    if MASK_BEFORE:
        dq = _dq_stage(dq, q, do, lse, delta, K, V, kvh, rows, ROWB, rowb0, t_lo * BLOCK_N, f_lo * BLOCK_N,
                       qk_scale, sm_scale, n_q, n_k, offset, left, right, slope, softcap, D, BLOCK_D, BLOCK_N, True,
                       LEFT, RIGHT, SEQ, MODS, SOFTCAP, ALIBI, IEEE)
    dq = _dq_stage(dq, q, do, lse, delta, K, V, kvh, rows, ROWB, rowb0, f_lo * BLOCK_N, f_hi * BLOCK_N,
                   qk_scale, sm_scale, n_q, n_k, offset, left, right, slope, softcap, D, BLOCK_D, BLOCK_N, False,
                   LEFT, RIGHT, SEQ, MODS, SOFTCAP, ALIBI, IEEE)
    dq = _dq_stage(dq, q, do, lse, delta, K, V, kvh, rows, ROWB, rowb0, f_hi * BLOCK_N, t_hi * BLOCK_N,
                   qk_scale, sm_scale, n_q, n_k, offset, left, right, slope, softcap, D, BLOCK_D, BLOCK_N, True,
                   LEFT, RIGHT, SEQ, MODS, SOFTCAP, ALIBI, IEEE)
    tl.store(DQ + qo, (dq * sm_scale).to(DQ.dtype.element_ty), mask=ok)


def pick_config(q) -> tuple[int, int, int, int, int, int]:
    """(dkdv BLOCK_M, BLOCK_N, dq BLOCK_M, BLOCK_N, num_warps, num_stages) for these inputs."""
    if _env.INTERPRET:
        return 32, 32, 32, 32, 4, 2
    return backward_table.reference_tiles(q.shape[3], q.element_size())


def backward(q, k, v, o, lse, do, *, variant, sm_scale: float, dlse=None, config):
    """q, o, do (B, H, Nq, d), k, v (B, H_kv, Nk, d), all contiguous; lse (B, H, Nq) float32 natural log; dlse None
    or like lse; variant: a checked variants.Variant -> (dq, dk, dv). config as pick_config returns it."""
    b, h, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    do = do.contiguous()
    block_d = max(16, 1 << (d - 1).bit_length())
    m1, n1, m2, n2, warps, stages = config
    ieee = q.element_size() == 4
    # -inf LSE (rows that saw no key) would give exp2(-inf - -inf); such rows have no visible key, so every tile
    # masks them: row_stats sends +inf instead, which makes their P exactly 0. Their lse does not depend on q or k
    # at all, so whatever gradient reaches it (even inf or NaN from a later merge) counts for nothing.
    lse, delta = row_stats(o, do, lse, dlse, block_d)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    flags = dict(H=h, GROUPS=variant.groups, D=d, BLOCK_D=block_d, **variant.flags(), IEEE=ieee, num_warps=warps,
                 num_stages=stages)
    slopes, slopes_b = variants.slopes_arg(variant, lse)
    cap = variant.softcap or 1.0
    rowb, by_key = variants.tables(variant, n_q, n_k, q.device, m1, n1, by_key=True)
    _bwd_dkdv[(triton.cdiv(n_k, n1), b * h_kv)](q, k, v, do, lse, delta, dk, dv, rowb, by_key, slopes,
                                                sm_scale * LOG2E, sm_scale, cap, n_q, n_k, variant.left,
                                                variant.right, variants.batch_stride(rowb),
                                                variants.batch_stride(by_key), slopes_b, BLOCK_M=m1, BLOCK_N=n1,
                                                MASK_BEFORE=variant.masks_before_full_by_key, **flags)
    rowb, by_row = variants.tables(variant, n_q, n_k, q.device, m2, n2)
    _bwd_dq[(triton.cdiv(n_q, m2), b * h)](q, k, v, do, lse, delta, dq, rowb, by_row, slopes, sm_scale * LOG2E,
                                           sm_scale, cap, n_q, n_k, variant.left, variant.right,
                                           variants.batch_stride(rowb), variants.batch_stride(by_row), slopes_b,
                                           BLOCK_M=m2, BLOCK_N=n2,
                                           MASK_BEFORE=variant.masks_before_full, **flags)
    return dq, dk, dv
