"""The ws backward's consumer walk with the next query block's S^T issued early (NEXT, ws_bwd.NEXT_MODES), for
kernels/_ws_bwd_gluon.py: _blocks' five MMAs per query block, but S^T_{i+1} = K_c Q_{i+1}^T joins the tensor-core
queue during block i's tail instead of at block i+1's top:
  NEXT 1  right behind dK_i, waited for with dQ_i's MMAs (it runs before them, in issue order);
  NEXT 2  right behind dQ_i's MMAs, in flight through the dQ piece's store, fence and reduce-add and the loop's back
          edge, waited for at block i+1's top before its dP^T is issued.

Why: under Nsight Compute (assets/benchmarks/ncu/nvidia-h100-ncu-source-bwd-*-triton38-2026-12-05.json) a consumer's
samples pile up in block i's tail (the waits for dV's and dK's MMAs, for the other consumer's half of dS^T and for
dQ's MMAs, then the dQ piece's store, fence and reduce-add) and at block i+1's top, waiting for S^T_{i+1}. Issued
early, S^T_{i+1} runs under that tail and block i+1 starts at its exponentials.
What ptxas takes (it serialises every wgmma of the kernel where it cannot prove an accumulator settled):
  - NEXT 1 waits for dV_i before issuing S^T_{i+1}, so P^T's fp16 registers (dV's A operand) are free for its
    accumulator: with both live ptxas reported "insufficient register resources".
  - An S^T carried in flight across the back edge must be waited for with wait_group 0 (NEXT 2: before dP^T is
    issued): waited for with wait_group 1 behind dP^T, as block i's own S^T is, ptxas reported "non wgmma
    instructions reading accumulator registers" (it does not count commit groups across the back edge).
  - The walk is peeled: each call's first S^T is issued before the loop, and its last block issues none, so the ring
    is never waited on past the blocks the producer loads. The loop body is compiled twice.
tools/compile_check.py --ws-bwd --next 1 2 prints ptxas's spills and any wait it injected. It takes the dQ modes with
two dS^T slots ("tma2" on), lse and delta from the ring stage (PREFETCH 2) and the accumulator start (STATS_ACC), not
EARLY_DQ or DQ_FIRST, and 2+ ring stages (ws_bwd.next_code): the wait for Q_{i+1} sits before block i's empty
arrive, so the producer needs a second stage to load it into.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, warpgroup_mma,
                                                               warpgroup_mma_wait)

from ._ws_bwd_dq import dq_piece, dq_tma_add
from ._ws_bwd_exp import exp2_tile, mask_p
from ._ws_bwd_walk import block_row, key_block, release, ring, rotation


@gluon.jit
def _issue_s(a, c, k_buf, zs, s_layout: gl.constexpr, STAGES: gl.constexpr):
    """Wait for ring position c's Q_i and lse row (PREFETCH 2: in the stage) and issue S^T - lse2_i / qk_scale =
    K_c Q_i^T from that start, async; returns its accumulator (in flight)."""
    (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
     kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, keyb, tiles,
     keyb_b, tiles_b, n_heads, groups, stats_smem) = a
    st, ph = ring(c, STAGES)
    mbarrier.wait(ready.index(st), ph)
    lse_row = stats_smem.index(2 * st).load(s_layout)             # (1, BM), broadcast over the keys
    return warpgroup_mma(k_buf, q_smem.index(st).permute((1, 0)), zs - lse_row * qk_inv, is_async=True)


@gluon.jit
def _block(a, dk, dv, s_acc, zs, c, start, keys, first, k_first, k_last, CID: gl.constexpr, BM: gl.constexpr,
           D: gl.constexpr, STAGES: gl.constexpr, MASKED: gl.constexpr, CAUSAL: gl.constexpr, DQ_MODE: gl.constexpr,
           TABLE: gl.constexpr, EXP: gl.constexpr, MASK: gl.constexpr, HAS_NEXT: gl.constexpr,
           NEXT: gl.constexpr, STATS_ACC: gl.constexpr):
    """Query block i at ring position c (rows from start), whose S^T is s_acc (NEXT 1: done; 2: in flight): (dk,
    dv, block i+1's S^T where HAS_NEXT (done; in flight), else s_acc)."""
    (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
     kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, keyb, tiles,
     keyb_b, tiles_b, n_heads, groups, stats_smem) = a
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BM, 16])
    d_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, D, 16])
    op_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=d_layout, k_width=2)
    ROWS: gl.constexpr = DQ_MODE == 6 or DQ_MODE == 8     # as _blocks: the dQ piece's shape
    DP: gl.constexpr = D if ROWS else D // 2
    MQ: gl.constexpr = BM // 2 if ROWS else BM
    dq_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, DP, 16])
    zq = gl.zeros([MQ, DP], gl.float32, dq_layout)
    k_buf = k_smem.index(CID)
    st, ph = ring(c, STAGES)                          # (its ready wait: _issue_s's)
    q_buf = q_smem.index(st)
    do_buf = do_smem.index(st)
    rows = start + gl.arange(0, BM, layout=gl.SliceLayout(0, s_layout))
    delta_row = stats_smem.index(2 * st + 1).load(s_layout)
    if NEXT == 2:                                     # in flight since block i-1's tail: wait_group 0 (see above)
        s = warpgroup_mma_wait(0, deps=(s_acc,))
    if STATS_ACC == 2:                                # dP^T from zero, delta subtracted in dS (_ws_bwd_gluon.py)
        dp_tok = warpgroup_mma(v_smem.index(CID), do_buf.permute((1, 0)), zs, use_acc=False, is_async=True)
    else:
        dp_tok = warpgroup_mma(v_smem.index(CID), do_buf.permute((1, 0)), zs - delta_row, is_async=True)  # - delta
    if NEXT == 2 and EXP % 2 == 1:                    # "late": dP^T too before the exponentials
        dp = warpgroup_mma_wait(0, deps=(dp_tok,))
    elif NEXT == 1 and EXP % 2 == 1:
        s, dp = warpgroup_mma_wait(0, deps=(s_acc, dp_tok))
    elif NEXT == 1:                                   # (done already: waited for with block i-1's dQ)
        s = warpgroup_mma_wait(1, deps=(s_acc,))
    p = exp2_tile(s * qk_scale, s_layout, EXP)
    if MASKED:
        p = mask_p(p, rows, keys, first, k_first, k_last, n_k - n_q, n_k, CAUSAL, TABLE, MASK)
    p16 = gl.convert_layout(p.to(desc_q.dtype), op_layout)
    dv_tok = warpgroup_mma(p16, do_buf, dv, is_async=True)
    if EXP % 2 == 0:
        dp = warpgroup_mma_wait(1, deps=(dp_tok,))
    if STATS_ACC == 2:                                # delta read from the stage now, not held until here
        ds16 = (p * (dp - stats_smem.index(2 * st + 1).load(s_layout))).to(desc_q.dtype)
    else:
        ds16 = (p * dp).to(desc_q.dtype)
    slot, use = ring(c, 2)                            # two dS^T slots (the TMA modes from "tma2" on)
    mbarrier.wait(ds_free.index(slot), use ^ 1)
    ds_smem.index(slot * 2 + CID).store(ds16)
    dk_tok = warpgroup_mma(gl.convert_layout(ds16, op_layout), q_buf, dk, is_async=True)
    fence_async_shared()
    mbarrier.arrive(ds_ready.index(slot))
    if HAS_NEXT and NEXT == 1:                        # S^T_{i+1} behind dK_i: it runs under the waits below
        dv = warpgroup_mma_wait(1, deps=(dv_tok,))     # (dV_i done first: P^T's registers are free for it)
        s_next = _issue_s(a, c + 1, k_buf, zs, s_layout, STAGES)
        dk = warpgroup_mma_wait(1, deps=(dk_tok,))
    else:
        dv, dk = warpgroup_mma_wait(0, deps=(dv_tok, dk_tok))
    release(empty.index(st))                          # Q_i, dO_i read
    mbarrier.wait(ds_ready.index(slot), use)          # both halves of dS^T of block i
    dq_tok = dq_piece(ds_smem, k_smem, slot, zq, CID, BM, D, DQ_MODE)
    if HAS_NEXT and NEXT == 2:                        # S^T_{i+1} behind dQ_i's MMAs: it runs under the piece's
        s_next = _issue_s(a, c + 1, k_buf, zs, s_layout, STAGES)    # store, fence and reduce-add
        dq = warpgroup_mma_wait(1, deps=(dq_tok,))
    elif HAS_NEXT:                                    # NEXT 1: done before dQ_i's (in order), waited for here
        dq, s_next = warpgroup_mma_wait(0, deps=(dq_tok, s_next))
    else:
        dq = warpgroup_mma_wait(0, deps=(dq_tok,))
        s_next = s_acc
    release(ds_free.index(slot))                      # this consumer no longer reads dS^T (nor K) of block i
    dq_tma_add(a, dq, start, c, CID, BM, D, DQ_MODE)
    return dk, dv, s_next


@gluon.jit
def blocks_next(a, dk, dv, c0, lo, hi, gap_at, gap, k_first, k_last, CID: gl.constexpr, BM: gl.constexpr,
                D: gl.constexpr, STAGES: gl.constexpr, MASKED: gl.constexpr, CAUSAL: gl.constexpr,
                ROTATE: gl.constexpr, DQ_MODE: gl.constexpr, TABLE: gl.constexpr, EXP: gl.constexpr,
                MASK: gl.constexpr, NEXT: gl.constexpr, STATS_ACC: gl.constexpr):
    """_ws_bwd_gluon._blocks' walk (the same blocks, order and ring positions) with S^T_{i+1} issued early (NEXT 1
    or 2): the first block's S^T issued before the loop, each block but the last issuing the next one's, the last
    peeled."""
    (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
     kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, keyb, tiles,
     keyb_b, tiles_b, n_heads, groups, stats_smem) = a
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BM, 16])
    keys = key_block() * (2 * 64) + CID * 64 + gl.arange(0, 64, layout=gl.SliceLayout(1, s_layout))
    first = gl.where(keys < n_k, keys - (n_k - n_q), 2147483647)   # causal, MASK 1: each key's first query row
    count = (hi - lo) // BM
    if count > 0:
        r0 = rotation(count)
        zs = gl.zeros([64, BM], gl.float32, s_layout)
        s_acc = _issue_s(a, c0, k_smem.index(CID), zs, s_layout, STAGES)
        if NEXT == 1:                                 # (NEXT 2: in flight into the loop, as each block leaves it)
            s_acc = warpgroup_mma_wait(0, deps=(s_acc,))
        for it in range(count - 1):
            start = block_row(lo, count, it, r0, gap_at, gap, BM, ROTATE, TABLE)
            dk, dv, s_acc = _block(a, dk, dv, s_acc, zs, c0 + it, start, keys, first, k_first, k_last, CID, BM, D,
                                   STAGES, MASKED, CAUSAL, DQ_MODE, TABLE, EXP, MASK, True, NEXT, STATS_ACC)
        start = block_row(lo, count, count - 1, r0, gap_at, gap, BM, ROTATE, TABLE)
        dk, dv, s_acc = _block(a, dk, dv, s_acc, zs, c0 + count - 1, start, keys, first, k_first, k_last, CID, BM, D,
                               STAGES, MASKED, CAUSAL, DQ_MODE, TABLE, EXP, MASK, False, NEXT, STATS_ACC)
    return dk, dv
