"""The Gluon kernel behind the "ws" backward: a warp-specialised FlashAttention-3-style backward for Hopper.

Imported only by ws_bwd.py after it checked the Triton version (Gluon is experimental: its API moved between 3.6
and 3.8), or directly by the CPU compile check. One program per BN = 128-key block of one head (grid (G, key
blocks, B*H / G): _ws_bwd_walk.head, ws_schedule.key_group), in three partitions:

  partition 0 (default, 4 warps)  consumer of keys [0, 64) of the block          five async warpgroup MMAs per
  partition 1 (worker, 4 warps)   consumer of keys [64, 128)                      query block (below)
  partition 2 (worker, 1 warp)    producer: TMA loads of K/V (once), then Q_i/dO_i into a STAGES-deep ring

Each consumer keeps its 64 keys' K, V in shared memory and dK, dV (fp32) in registers and, per BM-row query block i
(64 or 128: ws_bwd.CONFIGS) that sees its keys (in log2 units: lse2 = lse * log2 e, qk_scale = sm_scale * log2 e):
    S^T  = K_c Q_i^T                      (64 x BM, both operands in shared memory)
    dP^T = V_c dO_i^T                     (issued with S^T: it runs while P^T is computed)
    P^T  = exp2(S^T qk_scale - lse2_i)    (masked on the causal band and in a ragged last key block)
    dV_c += P^T dO_i                      (P^T from registers as the A operand)
    dS^T = P^T (dP^T - delta_i)
    dK_c += dS^T Q_i                      (dS^T from registers)
    dQ_i += dS K                          (dS^T written to shared memory and read transposed, over both
                                           consumers' keys; added into an fp32 dQ buffer)
How dQ_i leaves is the DQ_MODE. DQ_MODE 1/2 ("split", FlashAttention-3's way): both consumers store their dS^T (64 x
BM) in shared memory, then consumer c computes dQ_i[:, c d/2 : (c+1) d/2] = dS (BM x 128) K[:, that half] as two
chained MMAs (one per consumer's 64 keys) and adds only that: each dQ element added once per 128 keys (2: as
red.global.add.v2.f32 column pairs, 1: scalar atomics; DQ_MODE 0 is retired: ws_bwd.RETIRED). (One MMA over a [128, d]
view of the [2, 64, d] buffers is wrong where rows are wider than the 128-byte swizzle: the layout stores 64-column
chunks of all rows one after another. The H200 caught it at d = 128.) DQ_MODE 3 ("tma"): split's MMAs, the BM x d/2
fp32 piece stored to shared memory and added by one TMA reduce-add (the consumer waits only for its previous reduce to
have read the buffer). DQ_MODE 4 ("tma2"): "tma" with NSLOT = 2 dS^T slots, so a consumer stores block c's dS^T once
block c - 2's dQ MMAs are done instead of c - 1's. Per slot s two more mbarriers, count 2, one arrive per consumer
each (block c uses slot c % NSLOT, k = c // NSLOT is its use of the slot):
    ds_ready[s]  arrived after the fence that follows a consumer's dS^T store of block c; both wait for parity
                 k & 1 before their dQ MMAs of c
    ds_free[s]   arrived after a consumer's dQ MMAs of c completed; both wait for parity (k & 1) ^ 1 (the slot's
                 previous use; a fresh barrier passes parity 1 at once) before storing dS^T of c, and for the last
                 block's completion before the epilogue overwrites K with dK (the other consumer's dQ MMAs read it)
Both consumers walk the same blocks. No slot's barrier runs two phases ahead of a waiter (its next phase needs this
consumer's own arrive), and each wait needs only arrives the other consumer makes at earlier blocks, which it reaches
without waiting on this one again: no cycle, no deadlock. EARLY_DQ (the TMA modes): dQ's two MMAs are issued right
behind dK's, before waiting for dV's and dK's (measured no faster: off by default). DQ_MODE 5 ("tma3"): "tma2" with
two staging buffers per consumer for the dQ piece, so storing block c's waits for the reduce-add of block c - 2,
not c - 1. DQ_MODE 6 ("rows", FlashAttention-3's split at d = 64, BM = 128): "tma2" with consumer c's piece the BM/2
rows [c BM/2, (c + 1) BM/2) of all d columns (dS's rows are a 64-column chunk of each dS^T buffer), one N = d MMA
chain instead of N = d / 2. DQ_MODE 7 ("frag", the default at d = 128): "tma2" with the piece staged in the
accumulator's own order (_ws_bwd_dq.frag_order: 16-byte stores, no bank conflicts) and added into a dQ buffer kept
in that order, which the cast pass (_ws_bwd_cast.py) puts back in row order. DQ_MODE 8 ("rows-frag", the default at
d = 64): "rows" staged as "frag" stages (the piece is 64 x 64 in both: d = 64, BM = 128).
STATS_ACC (the default): the MMAs start from -lse2_i / qk_scale and -delta_i instead of zero, so S^T's accumulator
comes out as S^T - lse2_i / qk_scale and P^T = exp2(that * qk_scale), dP^T's as dP^T - delta_i. Row i's statistics
then live in registers only until the MMAs are issued, not through the softmax, which removed most of ptxas's spills
at d = 128 (`python -m tools.compile_check --ws-bwd --stats-acc 0 1` prints both). ws_bwd.backward turns it
off at sm_scale 0, where there is no 1 / qk_scale, and at scales so small that -lse2 / qk_scale would overflow
(ws_bwd.stats_acc_on). STATS_ACC 2 (ws_bwd.stats_code, off by default) starts S^T only; dP^T starts from zero.
PREFETCH (where lse2 and delta of a query block come from): 0 loaded by each consumer as the block starts (an L2
round trip between the block's start and its first MMAs, which STATS_ACC makes them wait on); 1 loaded a block ahead
into registers (ptxas spills: slower); 2 (the default) loaded by the producer's lanes into the block's ring stage
(a (1, BM) row each), stored before the stage's arrive (a thread barrier first: the arrive is one lane's release),
and read by the consumers from shared memory after the stage's wait, straight into S^T's layout.
GQA/MQA: program (j, bh) loads the K/V of query head bh's K/V head (bh // H * H_kv + bh % H // (H / H_kv)) and
writes dK/dV of query head bh; ws_bwd.backward sums them over each group.
Ring protocol as in the forward (_ws_gluon.py): ready[s] completes when the TMA bytes of Q_i and dO_i landed;
empty[s] takes one arrive from each consumer once its MMAs reading that stage finished. Inputs are 3-D views
(B*H, N, d): rows past a head's end arrive as zeros (never the next head's values), dK/dV stores clip at n_k.
Rows past n_q and rows that saw no key carry lse2 = +inf (P = 0: no gradient); their dQ adds are masked off.
Causal (bottom-right, offset n_k - n_q): only query blocks from the first one that sees the key block on, the
diagonal band masked, the blocks below it not. TABLE (sliding windows, packed documents, any mask of
flashviz_kernels.variants but plain causal): each key block's query blocks come from the host's by-key table, the
masked ones before and after the full ones walked first in one loop, and a masked block tests each key's
interval of query rows (KEYB, variants.key_bounds: per key, not per row, so a thread holds 2 values, not 2 BM / 4).
MASK (ws_bwd.MASK_MODES): 0 zeroes a masked block's hidden P^T by gl.where; 1 by one compare-and-select asm
statement a score (keep_from: causal, from each key's first query row; keep_between: TABLE's per-key interval), so
the compares are not made ahead of the exponentials and held as a bit mask.
EXP (kernels/_ws_bwd_exp.py): 1 and 3 wait for dP^T together with S^T, so dS's multiplies can sit between P^T's
exponentials; 2 and 3 compute half of the exponentials as a cubic on the FMA pipe. ROTATE: program j walks its
unmasked query blocks starting at block j (mod their count), so the programs of one head spread their dQ adds over
different rows. The dQ helpers (the modes' MMAs and adds) are in _ws_bwd_dq.py, the walk over query blocks
(ranges, rotation, ring slots) and the producer warp in _ws_bwd_walk.py. NEXT 1 (ws_bwd.next_default) walks the
same blocks in _ws_bwd_next.py instead, each block's next S^T issued right behind its dK (the TMA modes from "tma2"
on, PREFETCH 2).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                               warpgroup_mma_wait)

from ._ws_bwd_dq import dq_piece, dq_split, dq_tma_add
from ._ws_bwd_exp import exp2_tile, mask_p
from ._ws_bwd_next import blocks_next
from ._ws_bwd_walk import ARRIVALS, block_row, head, key_block, producer, query_ranges, release, ring, rotation
from .gluon_shims import tma_store


@gluon.jit
def _row_stats(LSE, DELTA, base, rows, ok):
    """(lse2, delta) of query rows `rows` where ok; +inf and 0 elsewhere (P = 0: no gradient)."""
    return (gl.load(LSE + base + rows, mask=ok, other=float("inf")),
            gl.load(DELTA + base + rows, mask=ok, other=0.0))


@gluon.jit
def _blocks(a, dk, dv, c0, lo, hi, gap_at, gap, k_first, k_last, CID: gl.constexpr, BM: gl.constexpr,
            D: gl.constexpr, STAGES: gl.constexpr, MASKED: gl.constexpr, CAUSAL: gl.constexpr, DQ_SPLIT: gl.constexpr,
            ROTATE: gl.constexpr, DQ_MODE: gl.constexpr, STATS_ACC: gl.constexpr, EARLY_DQ: gl.constexpr,
            TABLE: gl.constexpr, DQ_FIRST: gl.constexpr, PREFETCH: gl.constexpr, EXP: gl.constexpr, MASK: gl.constexpr):
    """(hi - lo) / BM query blocks from lo (block_start's order; a block at or past gap_at moved on by gap: the
    masked blocks of both edges in one loop) at ring positions c0, c0 + 1, ... against this consumer's 64 keys:
    (dk, dv). MASKED with TABLE: key j is seen by the rows [k_first_j, k_last_j] (key_bounds, loaded once)."""
    (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
     kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, keyb, tiles,
     keyb_b, tiles_b, n_heads, groups, stats_smem) = a
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BM, 16])
    d_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, D, 16])
    op_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=d_layout, k_width=2)
    qrow_l: gl.constexpr = gl.SliceLayout(0, s_layout)    # query rows run along S^T's columns
    key_l: gl.constexpr = gl.SliceLayout(1, s_layout)
    dtype: gl.constexpr = desc_q.dtype

    bh = head()
    k_buf = k_smem.index(CID)
    v_buf = v_smem.index(CID)
    NSLOT: gl.constexpr = 2 if DQ_MODE >= 4 else 1   # dS^T slots ("tma2": two, so a store waits for c - 2)
    keys = key_block() * (2 * 64) + CID * 64 + gl.arange(0, 64, layout=key_l)
    offset = n_k - n_q
    first = gl.where(keys < n_k, keys - offset, 2147483647)   # causal, MASK 1: each key's first query row
    stat_base = bh.to(gl.int64) * n_q
    dq_base = DQ + stat_base * D
    zs = gl.zeros([64, BM], gl.float32, s_layout)
    ROWS: gl.constexpr = DQ_MODE == 6 or DQ_MODE == 8   # "rows", "rows-frag": BM / 2 of all d; else d / 2 of BM
    DP: gl.constexpr = D if ROWS else D // DQ_SPLIT // 2      # dQ columns per MMA
    MQ: gl.constexpr = BM // 2 if ROWS else BM                # and rows
    dq_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                        instr_shape=[16, DP, 16])
    zq = gl.zeros([MQ, DP], gl.float32, dq_layout)
    dq_rows_l: gl.constexpr = gl.SliceLayout(1, dq_layout)
    dcols = gl.arange(0, DP, layout=gl.SliceLayout(0, dq_layout))
    count = (hi - lo) // BM
    r0 = rotation(count)
    if PREFETCH == 1:                                 # the first block's row statistics, ahead of the loop
        rows_n = block_row(lo, count, 0, r0, gap_at, gap, BM, ROTATE, TABLE) + gl.arange(0, BM, layout=qrow_l)
        lse_n, delta_n = _row_stats(LSE, DELTA, stat_base, rows_n, (rows_n < n_q) & (count > 0))
    for it in range(count):
        c = c0 + it
        st, ph = ring(c, STAGES)
        start = block_row(lo, count, it, r0, gap_at, gap, BM, ROTATE, TABLE)
        q_buf = q_smem.index(st)
        do_buf = do_smem.index(st)
        rows = start + gl.arange(0, BM, layout=qrow_l)
        if PREFETCH == 1:                             # loaded one block ago: no L2 round trip before the MMAs
            lse_row = gl.expand_dims(lse_n, 0)
            delta_row = gl.expand_dims(delta_n, 0)
        elif PREFETCH == 2:                           # the producer put them in this stage with Q_i and dO_i
            mbarrier.wait(ready.index(st), ph)        # (Q_i and dO_i landed too: no second wait below)
            lse_row = stats_smem.index(2 * st).load(s_layout)           # (1, BM), broadcast over the keys
            delta_row = stats_smem.index(2 * st + 1).load(s_layout)
        else:
            lse, delta = _row_stats(LSE, DELTA, stat_base, rows, rows < n_q)
            lse_row = gl.expand_dims(lse, 0)
            delta_row = gl.expand_dims(delta, 0)
        if STATS_ACC:                                 # the row statistics start the accumulators: no registers
            s_init = zs - lse_row * qk_inv            # held for them past the MMAs' issue (qk_inv = 1 / qk_scale,
            dp_init = zs - delta_row                  # the host's: no reciprocal in the chain before the MMAs)
            if PREFETCH != 2:
                mbarrier.wait(ready.index(st), ph)
            s_tok = warpgroup_mma(k_buf, q_buf.permute((1, 0)), s_init, is_async=True)       # S^T - lse2 / qk_scale
            if STATS_ACC == 2:                        # dP^T from zero, delta subtracted in dS (dp_init unused)
                dp_tok = warpgroup_mma(v_buf, do_buf.permute((1, 0)), zs, use_acc=False, is_async=True)
            else:
                dp_tok = warpgroup_mma(v_buf, do_buf.permute((1, 0)), dp_init, is_async=True)    # dP^T - delta
            if EXP % 2 == 1:                          # "late": dP^T too, so dS's multiplies can interleave
                s, dp = warpgroup_mma_wait(0, deps=(s_tok, dp_tok))
            else:
                s = warpgroup_mma_wait(1, deps=(s_tok,))
            p = exp2_tile(s * qk_scale, s_layout, EXP)
        else:
            if PREFETCH != 2:
                mbarrier.wait(ready.index(st), ph)
            s_tok = warpgroup_mma(k_buf, q_buf.permute((1, 0)), zs, use_acc=False, is_async=True)
            dp_tok = warpgroup_mma(v_buf, do_buf.permute((1, 0)), zs, use_acc=False, is_async=True)
            if EXP % 2 == 1:
                s, dp = warpgroup_mma_wait(0, deps=(s_tok, dp_tok))
            else:
                s = warpgroup_mma_wait(1, deps=(s_tok,))
            p = exp2_tile(s * qk_scale - lse_row, s_layout, EXP)
        if PREFETCH == 1:                             # the next block's statistics, while this block's MMAs run
            rows_n = block_row(lo, count, it + 1, r0, gap_at, gap, BM, ROTATE, TABLE) + gl.arange(0, BM, layout=qrow_l)
            lse_n, delta_n = _row_stats(LSE, DELTA, stat_base, rows_n, (rows_n < n_q) & (it + 1 < count))
        if MASKED:                                    # MASK 1 ("asm"): one asm statement a score (ws_bwd.MASK_MODES)
            p = mask_p(p, rows, keys, first, k_first, k_last, offset, n_k, CAUSAL, TABLE, MASK)
        p16 = gl.convert_layout(p.to(dtype), op_layout)
        dv_tok = warpgroup_mma(p16, do_buf, dv, is_async=True)
        if EXP % 2 == 0:
            dp = warpgroup_mma_wait(1, deps=(dp_tok,))
        if STATS_ACC == 2 and PREFETCH == 2:          # read from the stage now, not held through the exponentials
            ds = p * (dp - stats_smem.index(2 * st + 1).load(s_layout))
        elif STATS_ACC == 1:
            ds = p * dp
        else:
            ds = p * (dp - delta_row)
        ds16 = ds.to(dtype)
        slot, use = ring(c, NSLOT)                    # use: the parity of this block's use of the slot
        mbarrier.wait(ds_free.index(slot), use ^ 1)   # both consumers' dQ MMAs of the slot's last block read it
        ds_buf = ds_smem.index(slot * 2 + CID)
        ds_buf.store(ds16)
        if not DQ_FIRST:
            dk_tok = warpgroup_mma(gl.convert_layout(ds16, op_layout), q_buf, dk, is_async=True)
        fence_async_shared()
        mbarrier.arrive(ds_ready.index(slot))         # this half of dS^T is in shared memory (after the fence)
        if DQ_FIRST:                                  # TMA modes: dQ's MMAs before dK's, its piece out while dK runs
            mbarrier.wait(ds_ready.index(slot), use)       # both halves of dS^T of block c
            dq_tok = dq_piece(ds_smem, k_smem, slot, zq, CID, BM, D, DQ_MODE)
            dk_tok = warpgroup_mma(gl.convert_layout(ds16, op_layout), q_buf, dk, is_async=True)
            dq = warpgroup_mma_wait(1, deps=(dq_tok,))   # dV's and dQ's done (in order), dK's in flight
            release(ds_free.index(slot))              # this consumer no longer reads dS^T (nor K) of block c
            dq_tma_add(a, dq, start, c, CID, BM, D, DQ_MODE)
            dv, dk = warpgroup_mma_wait(0, deps=(dv_tok, dk_tok))
            release(empty.index(st))                  # Q_i, dO_i read
        elif EARLY_DQ:                                # TMA modes: dQ's two MMAs queue behind dV's and dK's
            mbarrier.wait(ds_ready.index(slot), use)       # both halves of dS^T of block c
            dq_tok = dq_piece(ds_smem, k_smem, slot, zq, CID, BM, D, DQ_MODE)
            dv, dk = warpgroup_mma_wait(2, deps=(dv_tok, dk_tok))   # dV's and dK's done, dQ's two in flight
            release(empty.index(st))                  # Q_i, dO_i read
            dq = warpgroup_mma_wait(0, deps=(dq_tok,))
            release(ds_free.index(slot))              # this consumer no longer reads dS^T (nor K) of block c
            dq_tma_add(a, dq, start, c, CID, BM, D, DQ_MODE)
        else:
            dv, dk = warpgroup_mma_wait(0, deps=(dv_tok, dk_tok))
            release(empty.index(st))                  # Q_i, dO_i read; K_c and dS^T stay in shared memory
            qrows = start + gl.arange(0, BM, layout=dq_rows_l)
            row_ptr = dq_base + gl.expand_dims(qrows * D, 1)
            row_ok = gl.expand_dims(qrows < n_dq, 1)     # n_dq = n_q (0: timing without the adds)
            dq_split(a, c, start, zq, row_ptr, row_ok, dcols, CID, BM, D, DQ_SPLIT, DQ_MODE)
    return dk, dv


@gluon.jit
def _consumer(a, CID: gl.constexpr, BM: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr,
              CAUSAL: gl.constexpr, DQ_SPLIT: gl.constexpr, ROTATE: gl.constexpr, DQ_MODE: gl.constexpr,
              STATS_ACC: gl.constexpr, EARLY_DQ: gl.constexpr, TABLE: gl.constexpr, DQ_FIRST: gl.constexpr,
              PREFETCH: gl.constexpr, EXP: gl.constexpr, MASK: gl.constexpr, NEXT: gl.constexpr):
    (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
     kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, keyb, tiles,
     keyb_b, tiles_b, n_heads, groups, stats_smem) = a
    d_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, D, 16])
    start_k = key_block() * (2 * 64)
    lo, full, hi, end = query_ranges(head(), start_k, n_q, n_k, tiles, tiles_b, n_heads, BM, 2 * 64,
                                     CAUSAL, TABLE)
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BM, 16])
    keys = start_k + CID * 64 + gl.arange(0, 64, layout=gl.SliceLayout(1, s_layout))
    k_first = keys                                    # TABLE: the query rows [k_first, k_last] that see each key
    k_last = keys                                     # (keys past n_k: none)
    if TABLE:
        kb = keyb + (head() // n_heads) * keyb_b + keys * 2
        k_first = gl.load(kb, mask=keys < n_k, other=1)
        k_last = gl.load(kb + 1, mask=keys < n_k, other=0)
    dk = gl.zeros([64, D], gl.float32, d_layout)
    dv = gl.zeros([64, D], gl.float32, d_layout)
    mbarrier.wait(kv_bar, 0)
    n_masked = (full - lo + end - hi) // BM           # both edges' masked blocks in one loop, then the full ones
    if NEXT >= 1:                                     # the next block's S^T issued early (_ws_bwd_next.py)
        dk, dv = blocks_next(a, dk, dv, 0, lo, lo + n_masked * BM, full, hi - full, k_first, k_last, CID, BM, D,
                             STAGES, True, CAUSAL, False, DQ_MODE, TABLE, EXP, MASK, NEXT, STATS_ACC)
        dk, dv = blocks_next(a, dk, dv, n_masked, full, hi, hi, 0, k_first, k_last, CID, BM, D, STAGES, False,
                             CAUSAL, ROTATE, DQ_MODE, TABLE, EXP, MASK, NEXT, STATS_ACC)
    else:
        dk, dv = _blocks(a, dk, dv, 0, lo, lo + n_masked * BM, full, hi - full, k_first, k_last, CID, BM, D, STAGES,
                         True, CAUSAL, DQ_SPLIT, False, DQ_MODE, STATS_ACC, EARLY_DQ, TABLE, DQ_FIRST, PREFETCH, EXP,
                         MASK)
        dk, dv = _blocks(a, dk, dv, n_masked, full, hi, hi, 0, k_first, k_last, CID, BM, D, STAGES, False, CAUSAL,
                         DQ_SPLIT, ROTATE, DQ_MODE, STATS_ACC, EARLY_DQ, TABLE, DQ_FIRST, PREFETCH, EXP, MASK)
    last = (end - lo) // BM - 1                       # the other consumer's last dQ MMAs read all of K
    if last >= 0:
        NSLOT: gl.constexpr = 2 if DQ_MODE >= 4 else 1
        mbarrier.wait(ds_free.index(last % NSLOT), (last // NSLOT) & 1)
    # epilogue: through this consumer's own K/V buffers (nothing reads them any more); TMA clips rows past n_k
    k_buf = k_smem.index(CID)
    v_buf = v_smem.index(CID)
    k_buf.store((dk * sm_scale).to(desc_dk.dtype))
    v_buf.store(dv.to(desc_dv.dtype))
    fence_async_shared()
    bh = head()
    tma_store(desc_dk, [bh, start_k + CID * 64, 0], k_buf.reshape([1, 64, D]))
    tma_store(desc_dv, [bh, start_k + CID * 64, 0], v_buf.reshape([1, 64, D]))
    tma.store_wait(0)


@gluon.jit
def _consumer0(a, BM: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
               DQ_SPLIT: gl.constexpr, ROTATE: gl.constexpr, DQ_MODE: gl.constexpr, STATS_ACC: gl.constexpr,
               EARLY_DQ: gl.constexpr, TABLE: gl.constexpr, DQ_FIRST: gl.constexpr, PREFETCH: gl.constexpr,
               EXP: gl.constexpr, MASK: gl.constexpr, NEXT: gl.constexpr):
    _consumer(a, 0, BM, D, STAGES, CAUSAL, DQ_SPLIT, ROTATE, DQ_MODE, STATS_ACC, EARLY_DQ, TABLE, DQ_FIRST,
              PREFETCH, EXP, MASK, NEXT)


@gluon.jit
def _consumer1(a, BM: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
               DQ_SPLIT: gl.constexpr, ROTATE: gl.constexpr, DQ_MODE: gl.constexpr, STATS_ACC: gl.constexpr,
               EARLY_DQ: gl.constexpr, TABLE: gl.constexpr, DQ_FIRST: gl.constexpr, PREFETCH: gl.constexpr,
               EXP: gl.constexpr, MASK: gl.constexpr, NEXT: gl.constexpr):
    _consumer(a, 1, BM, D, STAGES, CAUSAL, DQ_SPLIT, ROTATE, DQ_MODE, STATS_ACC, EARLY_DQ, TABLE, DQ_FIRST,
              PREFETCH, EXP, MASK, NEXT)


@gluon.jit
def ws_bwd(desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, qk_scale, qk_inv, sm_scale, n_q, n_k,
           n_dq, desc_dq, KEYB, TILES, keyb_b, tiles_b, n_heads, groups, BM: gl.constexpr, D: gl.constexpr,
           STAGES: gl.constexpr, CAUSAL: gl.constexpr, DQ_SPLIT: gl.constexpr, ROTATE: gl.constexpr,
           CONSUMER_REGS: gl.constexpr, PRODUCER_REGS: gl.constexpr, DQ_MODE: gl.constexpr = 4,
           STATS_ACC: gl.constexpr = True, EARLY_DQ: gl.constexpr = False, TABLE: gl.constexpr = False,
           GQA: gl.constexpr = False, DQ_FIRST: gl.constexpr = False, PREFETCH: gl.constexpr = 0,
           EXP: gl.constexpr = 0, MASK: gl.constexpr = 0, NEXT: gl.constexpr = 0):
    dtype: gl.constexpr = desc_q.dtype
    q_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, D], dtype)
    kv_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([64, D], dtype)
    ds_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([64, BM], dtype)
    q_smem = gl.allocate_shared_memory(dtype, [STAGES, BM, D], q_layout)
    do_smem = gl.allocate_shared_memory(dtype, [STAGES, BM, D], q_layout)
    k_smem = gl.allocate_shared_memory(dtype, [2, 64, D], kv_layout)
    v_smem = gl.allocate_shared_memory(dtype, [2, 64, D], kv_layout)
    NSLOT: gl.constexpr = 2 if DQ_MODE >= 4 else 1
    ds_smem = gl.allocate_shared_memory(dtype, [2 * NSLOT, 64, BM], ds_layout)   # [slot * 2 + consumer]
    kv_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(kv_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=2 * ARRIVALS)     # ARRIVALS per consumer partition (release)
    ds_ready = gl.allocate_shared_memory(gl.int64, [NSLOT, 1], mbarrier.MBarrierLayout())   # both consumers
    ds_free = gl.allocate_shared_memory(gl.int64, [NSLOT, 1], mbarrier.MBarrierLayout())    # arrive on each, once
    for i in gl.static_range(NSLOT):                                                        # per query block
        mbarrier.init(ds_ready.index(i), count=2)
        mbarrier.init(ds_free.index(i), count=2 * ARRIVALS)

    dq_smem = ds_smem                                 # "tma": each consumer's BM x d/2 fp32 dQ piece, TMA's source
    if DQ_MODE == 7 or DQ_MODE == 8:                  # "frag", "rows-frag": each piece as 128 rows of 32, unswizzled
        dq_smem = gl.allocate_shared_memory(gl.float32, [2, BM * D // 64, 32],
                                            gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=2))
    elif DQ_MODE == 6:                                # "rows": each consumer's BM/2 x d piece
        dq_smem = gl.allocate_shared_memory(gl.float32, [2, BM // 2, D],
                                            gl.NVMMASharedLayout.get_default_for([BM // 2, D], gl.float32))
    elif DQ_MODE >= 3:                                # [buffer * 2 + consumer] (DQ_MODE 5: two buffers each)
        dq_smem = gl.allocate_shared_memory(gl.float32, [4 if DQ_MODE == 5 else 2, BM, D // 2],
                                            gl.NVMMASharedLayout.get_default_for([BM, D // 2], gl.float32))
    stats_smem = ds_smem                              # PREFETCH 2: [stage * 2 + (0: lse, 1: delta)], (1, BM) each
    if PREFETCH == 2:
        stats_smem = gl.allocate_shared_memory(gl.float32, [2 * STAGES, 1, BM],
                                               gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    a = (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
         kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, KEYB,
         TILES, keyb_b, tiles_b, n_heads, groups, stats_smem)
    gl.warp_specialize([
        (_consumer0, (a, BM, D, STAGES, CAUSAL, DQ_SPLIT, ROTATE, DQ_MODE, STATS_ACC, EARLY_DQ, TABLE, DQ_FIRST,
                      PREFETCH, EXP, MASK, NEXT)),
        (_consumer1, (a, BM, D, STAGES, CAUSAL, DQ_SPLIT, ROTATE, DQ_MODE, STATS_ACC, EARLY_DQ, TABLE, DQ_FIRST,
                      PREFETCH, EXP, MASK, NEXT)),
        (producer, (a, BM, D, STAGES, CAUSAL, DQ_SPLIT, ROTATE, DQ_MODE, TABLE, GQA, PREFETCH))],
        [4, 1], [CONSUMER_REGS, PRODUCER_REGS])
