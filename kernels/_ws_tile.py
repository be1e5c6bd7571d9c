"""The ws kernel's work on one NC*M_WG-row query tile, shared by its one-tile and persistent schedules.

Every K/V ring position is named by a counter c that keeps counting across the query tiles a program walks
(kv = the loads before this tile): stage c % STAGES, ready/empty phase (c // STAGES) & 1, turn phase c & 1
(turn[c] completes once per ring position: the consumers pass it round in order 0, 1, .., NC-1, 0, ..).
With kv = 0 (one tile per program) these are the per-tile formulas. Imported by _ws_gluon.py only.
"""
import os

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, warpgroup_mma,
                                                               warpgroup_mma_wait)

from ._ws_half import edge_halves, half_step, half_tail
from ._ws_out import finish_prev, release_prev, store_out  # noqa: F401 (store_out: _ws_gluon's too)
from ._ws_range import own_tiles
from ._ws_ring import arrive, kbar, pass_tiles, turn_pass, turn_wait, vbar
from ._ws_softmax import LOCAL_SUM, PAIR_MAX, POLY, alibi_cols, from_quads, p_operand, softmax_tile, to_quads
from .gluon_shims import enter_scope, exit_scope
from .ws_switches import early_rescale_default, half_tail_default, mma_sum_default, p_pack_default, skip_default

# key tile 0's P converted by inline asm where ws_switches.p_pack_default says (FLASHVIZ_WS_PPACK=1; off by
# default): fixed for the process when this module is imported
P_PACK = gl.constexpr(p_pack_default(triton.__version__))
# O's rescale right after P·V's wait (EARLY) or before the next P·V: ws_switches.early_rescale_default
EARLY = gl.constexpr(early_rescale_default(triton.__version__))
# each consumer walks only its own rows' key tiles and passes the rest (ws_switches.skip_default; FLASHVIZ_WS_SKIP=1)
SKIP = gl.constexpr(skip_default(triton.__version__))
# HALF's last half step beside the last whole tile's P·V (ws_switches.half_tail_default; FLASHVIZ_WS_HALF_TAIL=1)
HALF_TAIL = gl.constexpr(half_tail_default(triton.__version__))
# d = 64: row sums of P by a wgmma against a tile of ones, beside P·V (ws_switches.mma_sum_default): fixed at import
MMA_SUM = gl.constexpr(mma_sum_default(triton.__version__))
# scopes at a query tile's edges for tools/window_trace.py (FLASHVIZ_WS_TRACE_EDGES=1 before this import): its lead
# half step, the previous O's store and slot release, the last P·V (then "pv_last", not "pv"), the Q waits. Off, they
# are not in the kernel, so the Inside page's timeline keeps its scopes (one set per key tile, none nested)
EDGES = gl.constexpr(os.environ.get("FLASHVIZ_WS_TRACE_EDGES", "") == "1")


@gluon.jit
def edge_enter(name: gl.constexpr):
    if EDGES:
        enter_scope(name)


@gluon.jit
def edge_exit(name: gl.constexpr):
    if EDGES:
        exit_scope(name)


@gluon.jit
def attend(a, q_buf, q_lo, bh, r0, t_lo, n_tiles, kv, slope2, last_tile, CID: gl.constexpr, NC: gl.constexpr,
           M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
           WINDOW: gl.constexpr, OVERLAP: gl.constexpr, PINGPONG: gl.constexpr, ALIBI: gl.constexpr,
           SEQ: gl.constexpr, PREV: gl.constexpr, CARRY: gl.constexpr, HALF: gl.constexpr):
    """One consumer's rows [r0, r0 + M_WG) of head bh against key tiles t_lo .. t_lo + n_tiles - 1 at ring
    positions kv, kv+1, ...: (acc unnormalised, m, l, rows). ALIBI (causal only): slope2 = this head's slope in
    log2 units. SEQ: which tiles need no mask and each row's keys come from the host's tables (block_tiles).
    PREV (persistent launches): last_tile = (acc, m, l, rows, bh, r0, has_prev, o_buf, q_rel) of this consumer's
    previous tile, whose epilogue (store_out into o_buf, the Q slot it was computed from) runs while this tile's
    Q·K_0ᵀ is on the tensor cores; once this tile's first softmax is done, its O store has left o_buf and
    q_rel (that slot's q_empty barrier) takes this consumer's arrive, so the producer may load Q there.
    CARRY (PREV with OVERLAP, the caller's choice): a tile's last P·V is not run at its end but carried into the
    next tile and issued with its Q·K_0ᵀ (P·V first), so no GEMM is issued alone at a tile boundary; last_tile then
    also holds (p16, alpha, n_prev): that P, its rescale (EARLY: applied already) and the key tiles the tile walked
    (its last one at ring position kv - 1), and the returned acc lacks that P·V. The previous tile's O is finished
    and stored while Q·K_0ᵀ runs, as without CARRY. HALF (not with CARRY or SEQ, the caller's choice): a band
    edge's tile this consumer's rows see half of runs as that half alone (kernels/_ws_half.py), before key tile 0 or
    after the last; the one before reads Q through q_lo (q_buf's slot; kernels/_ws_gluon.py _q_lo says why it may be
    another view). SKIP (ws_switches.skip_default; three consumers, no window, documents or CARRY): this consumer
    runs only the key tiles its own rows see (own_tiles) and passes the ring and turns on for the others
    (pass_tiles)."""
    (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_ready, q_empty, ready, empty, turn,
     qk_scale, n_q, n_k, n_bh, head_group, left, n_heads, groups, slopes, slopes_b, rowb, tiles, rowb_b, tiles_b) = a
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BN, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, D, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    row_l: gl.constexpr = gl.SliceLayout(1, s_layout)
    col_l: gl.constexpr = gl.SliceLayout(0, s_layout)
    orow_l: gl.constexpr = gl.SliceLayout(1, o_layout)
    dtype: gl.constexpr = desc_q.dtype

    edge_enter("pro")                                 # the tile's set-up, up to its first K wait or half step
    rows = r0 + gl.arange(0, M_WG, layout=row_l)
    offset = n_k - n_q                                # bottom-right causal: row r sees keys j <= r + offset
    if CAUSAL:
        full = gl.minimum(gl.maximum(r0 + offset + 1, 0), n_k)    # keys every row of this half sees
    else:
        full = n_k
    full = (full // BN) * BN                          # tiles below `full` need no mask
    lo_full = 0                                       # ... nor, with a window, tiles from lo_full on: keys
    if WINDOW:                                        # every row of this slice sees on the left side
        lo_full = r0 + M_WG - 1 + offset - left
    row_lo = rows                                     # each row's visible keys [row_lo, row_hi] (masked tiles)
    if CAUSAL:
        row_hi = gl.minimum(rows + offset, n_k - 1)
    else:
        row_hi = rows * 0 + (n_k - 1)
    if WINDOW:
        row_lo = rows + (offset - left)
    if SEQ:                                           # whole-block full tiles [f_lo, f_hi) (a superset of rows:
        b = bh // n_heads                             # full for this slice too); rows past n_q see nothing
        rng = tiles + b * tiles_b + ((r0 - CID * M_WG) // (NC * M_WG)) * 4
        lo_full = gl.load(rng + 1) * BN
        full = gl.load(rng + 2) * BN
        row_lo = gl.load(rowb + b * rowb_b + rows * 2, mask=rows < n_q, other=1)
        row_hi = gl.load(rowb + b * rowb_b + rows * 2 + 1, mask=rows < n_q, other=0)

    m = gl.full([M_WG], float("-inf"), gl.float32, row_l)
    l = gl.full([M_WG], 0.0, gl.float32, row_l)
    acc = gl.zeros([M_WG, D], gl.float32, o_layout)
    s0 = gl.zeros([M_WG, BN], gl.float32, s_layout)
    p16 = gl.zeros([M_WG, BN], dtype, p_layout)       # CARRY: nothing pending unless a key tile runs
    alpha = gl.full([M_WG], 1.0, gl.float32, row_l)
    # MSUM (mma_sum_default): the row sums accumulate as P·1 in l_acc (every column the same), rescaled with O; the
    # softmax leaves l at 0 (MSUM runs without HALF, whose steps add to l) and l_acc joins it after the last P·V
    MSUM: gl.constexpr = MMA_SUM and D == 64 and OVERLAP and not CARRY and not EARLY and not HALF and not ALIBI
    if MSUM:
        l_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                           instr_shape=[16, 8, 16])
        l_acc = gl.zeros([M_WG, 8], gl.float32, l_layout)
        ones_l: gl.constexpr = gl.NVMMASharedLayout.get_default_for([8, BN], dtype)
        ones = gl.allocate_shared_memory(dtype, [8, BN], ones_l, gl.full([8, BN], 1.0, dtype, gl.BlockedLayout(
            [1, 8], [2, 16], [4, 1], [1, 0])))
        fence_async_shared()

    kv_end = kv + n_tiles                             # past the ring positions of this query tile's key tiles
    SKIP_T: gl.constexpr = SKIP and NC == 3 and not WINDOW and not SEQ and not CARRY   # 192-row tiles only
    if SKIP_T:                                        # only the key tiles this consumer's rows see: the rest are
        n_tiles = own_tiles(t_lo, n_tiles, r0, n_q, n_k, M_WG, BN, CAUSAL)    # passed on at the end
    kv_own = kv + n_tiles
    hi = 0
    lo = 0
    if HALF:                                          # a band edge's tile this consumer sees half of: that half
        lo, hi = edge_halves(t_lo, n_tiles, r0, offset, left, M_WG, BN, CAUSAL, WINDOW)
    edge_exit("pro")
    if HALF:
        if lo > 0:                                    # the first tile's second half
            edge_enter("half_lo")
            acc, m, l = half_step(a, q_lo, acc, m, l, kv, t_lo * BN, 1, r0, offset, slope2, row_lo, row_hi, CID,
                                  NC, M_WG, BN, D, STAGES, WINDOW, PINGPONG, ALIBI)
            edge_exit("half_lo")
        t_lo = t_lo + lo                              # the whole tiles between
        kv = kv + lo
        n_tiles = n_tiles - lo - hi
    LSUM: gl.constexpr = LOCAL_SUM and D == 64 and not MSUM   # each lane's share of l until the tile's end (d = 64:
    if LSUM:                                          # ws_switches.local_sum_default says why)
        l = to_quads(l, s0)
    # rows' maxima joined (ws_switches.pair_max_default): d = 64 without a window, documents or ALiBi
    PAIR: gl.constexpr = PAIR_MAX and D == 64 and not WINDOW and not SEQ and not ALIBI
    EMU: gl.constexpr = POLY and D == 64 and not ALIBI   # unmasked tiles' exp2 partly on FMA (poly_default)
    if n_tiles > 0:
        # key tile 0: Q·K_0ᵀ (alone unless CARRY). Scopes (one of each per key tile and warp): wait_kv (K_j not
        # loaded yet), wait_turn (the other consumers' GEMMs go first), qk (Q·Kᵀ issued until its scores are
        # ready; with OVERLAP also O's rescale, V_{j-1}'s wait and the issue of P_{j-1}·V_{j-1}, which runs
        # meanwhile; with PREV, on key tile 0, the previous tile's O store, and with CARRY its last P·V issued
        # just before), softmax, pv (without OVERLAP: V_j's wait and P·V; with it: the wait for
        # P_{j-1}·V_{j-1}). K is released (kbar(empty, st)) as soon as Q·Kᵀ finished, V (vbar) after
        # P·V.
        st0 = kv % STAGES
        enter_scope("wait_kv")
        mbarrier.wait(kbar(ready, st0), (kv // STAGES) & 1)
        exit_scope("wait_kv")
        enter_scope("wait_turn")
        if PINGPONG:
            turn_wait(turn, CID, kv, PINGPONG)
        exit_scope("wait_turn")
        enter_scope("qk")
        if CARRY:                                     # the previous tile's last P·V first. None pending (a
            acc_p, m_p, l_p, rows_p, bh_p, r0_p, has_prev, o_buf, q_rel, p16_p, alpha_p, n_prev = last_tile
            pend = n_prev > 0                         # program's first tile, or a no-key tile before): P = 0
            v_st = st0                                # times this tile's V_0 without the accumulator, and
            v_ph = (kv // STAGES) & 1                 # store_out's EXACT0 zeroes that tile's rows (l = 0)
            if pend:                                  # its last key tile sits at ring position kv - 1
                v_st = (kv - 1) % STAGES
                v_ph = ((kv - 1) // STAGES) & 1
            if not EARLY:                             # (EARLY: its last trip applied alpha_p already)
                acc_p = acc_p * gl.expand_dims(gl.convert_layout(alpha_p, orow_l), 1)
            mbarrier.wait(vbar(ready, v_st, STAGES), v_ph)
            pv_tok = warpgroup_mma(p16_p, v_smem.index(v_st), acc_p, use_acc=n_prev > 1, is_async=True)
        s_tok = warpgroup_mma(q_buf, k_smem.index(st0).permute((1, 0)), s0, use_acc=False, is_async=True)
        if PINGPONG:
            turn_pass(turn, (CID + 1) % NC, PINGPONG)
        if CARRY:                                     # the previous tile's O, finished, under Q·K_0ᵀ
            acc_p = warpgroup_mma_wait(1, deps=(pv_tok,))
            arrive(vbar(empty, v_st, STAGES), pend)
            if has_prev:
                store_out(acc_p, m_p, l_p, rows_p, o_buf, desc_o, LSE, bh_p, r0_p, n_q, M_WG, D, True)
            acc = acc_p                               # its registers: this tile's first P·V ignores them
        elif PREV:                                    # the previous tile's O, under Q·K_0ᵀ
            edge_enter("store")
            finish_prev(last_tile, desc_o, LSE, n_q, M_WG, D)
            edge_exit("store")
        s = warpgroup_mma_wait(0, deps=(s_tok,))
        arrive(kbar(empty, st0))
        exit_scope("qk")
        cols = t_lo * BN + gl.arange(0, BN, layout=col_l)
        bias = alibi_cols(cols, r0, offset, slope2, ALIBI)
        enter_scope("softmax")
        p, alpha, m, l = softmax_tile(s, m, l, t_lo * BN, full, lo_full, cols, row_lo, row_hi, qk_scale, bias,
                                      WINDOW, ALIBI, SEQ, LSUM, PAIR, EMU, MSUM)
        PACK: gl.constexpr = P_PACK and D == 64        # at d = 128 it lengthened 3.8's causal loop (sass_loops)
        p16 = p_operand(p, dtype, p_layout, PACK)     # P as the A operand, in registers (fp32 P dies here)
        if OVERLAP and EARLY and not CARRY:           # alpha_0 on what HALF's first step left in O (else 0);
            acc = acc * gl.expand_dims(gl.convert_layout(alpha, orow_l), 1)   # CARRY's first P·V ignores O
        exit_scope("softmax")
        if PREV:
            edge_enter("release")
            release_prev(last_tile)
            edge_exit("release")
        if not OVERLAP:
            enter_scope("pv")
            mbarrier.wait(vbar(ready, st0, STAGES), (kv // STAGES) & 1)
            if HALF:                                  # acc may hold a first half step's P·V already
                acc = acc * gl.expand_dims(gl.convert_layout(alpha, orow_l), 1)
                acc = warpgroup_mma(p16, v_smem.index(st0), acc, is_async=True)
            else:
                acc = warpgroup_mma(p16, v_smem.index(st0), acc, use_acc=False, is_async=True)
            acc = warpgroup_mma_wait(0, deps=(acc,))
            arrive(vbar(empty, st0, STAGES))
            exit_scope("pv")
        for j in range(1, n_tiles):
            c = kv + j
            st = c % STAGES
            enter_scope("wait_kv")
            mbarrier.wait(kbar(ready, st), (c // STAGES) & 1)
            exit_scope("wait_kv")
            enter_scope("wait_turn")
            if PINGPONG:
                turn_wait(turn, CID, c, PINGPONG)
            exit_scope("wait_turn")
            enter_scope("qk")
            s_tok = warpgroup_mma(q_buf, k_smem.index(st).permute((1, 0)), s0, use_acc=False, is_async=True)
            k0 = (t_lo + j) * BN                      # this tile's first key
            cols = k0 + gl.arange(0, BN, layout=col_l)
            bias = alibi_cols(cols, r0, offset, slope2, ALIBI)
            if OVERLAP:                               # FA3's order: O rescaled while Q·K_jᵀ runs (EARLY: at
                                                      # the end of trip j-1), then P_{j-1}·V_{j-1}
                prev = (c - 1) % STAGES
                if not EARLY:
                    acc = acc * gl.expand_dims(gl.convert_layout(alpha, orow_l), 1)
                    if MSUM:
                        l_acc = l_acc * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, l_layout)), 1)
                mbarrier.wait(vbar(ready, prev, STAGES), ((c - 1) // STAGES) & 1)
                use = True                            # CARRY: acc holds the previous tile's O before P_0·V_0
                if CARRY:
                    use = j > 1
                acc_tok = warpgroup_mma(p16, v_smem.index(prev), acc, use_acc=use, is_async=True)
                if MSUM:
                    l_tok = warpgroup_mma(p16, ones.permute((1, 0)), l_acc, is_async=True)
                if PINGPONG:
                    turn_pass(turn, (CID + 1) % NC, PINGPONG)
                s = warpgroup_mma_wait(2 if MSUM else 1, deps=(s_tok,))
                arrive(kbar(empty, st))
                exit_scope("qk")
                enter_scope("softmax")
                p, alpha, m, l = softmax_tile(s, m, l, k0, full, lo_full, cols, row_lo, row_hi, qk_scale, bias,
                                              WINDOW, ALIBI, SEQ, LSUM, PAIR, EMU, MSUM)
                exit_scope("softmax")
                enter_scope("pv")
                if MSUM:
                    acc, l_acc = warpgroup_mma_wait(0, deps=(acc_tok, l_tok))
                else:
                    acc = warpgroup_mma_wait(0, deps=(acc_tok,))
                arrive(vbar(empty, prev, STAGES))
                if EARLY:                             # O ready for P_j·V_j: alpha_j now, not next trip
                    acc = acc * gl.expand_dims(gl.convert_layout(alpha, orow_l), 1)
                p16 = gl.convert_layout(p.to(dtype), p_layout)
                exit_scope("pv")
            else:
                if PINGPONG:
                    turn_pass(turn, (CID + 1) % NC, PINGPONG)
                s = warpgroup_mma_wait(0, deps=(s_tok,))
                arrive(kbar(empty, st))
                exit_scope("qk")
                enter_scope("softmax")
                p, alpha, m, l = softmax_tile(s, m, l, k0, full, lo_full, cols, row_lo, row_hi, qk_scale, bias,
                                              WINDOW, ALIBI, SEQ, LSUM, PAIR, EMU, MSUM)
                acc = acc * gl.expand_dims(gl.convert_layout(alpha, orow_l), 1)
                p16 = gl.convert_layout(p.to(dtype), p_layout)
                exit_scope("softmax")
                enter_scope("pv")
                mbarrier.wait(vbar(ready, st, STAGES), (c // STAGES) & 1)
                acc = warpgroup_mma(p16, v_smem.index(st), acc, is_async=True)
                acc = warpgroup_mma_wait(0, deps=(acc,))
                arrive(vbar(empty, st, STAGES))
                exit_scope("pv")
        if OVERLAP and not CARRY:                     # the last tile's P·V (CARRY: the next tile runs it; with
            edge_enter("pv_last")                     # HALF_TAIL, a last half step's Q·Kᵀ issued behind it)
            if not EDGES:
                enter_scope("pv")
            c = kv + n_tiles - 1
            if not EARLY:
                acc = acc * gl.expand_dims(gl.convert_layout(alpha, orow_l), 1)
                if MSUM:
                    l_acc = l_acc * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, l_layout)), 1)
            mbarrier.wait(vbar(ready, c % STAGES, STAGES), (c // STAGES) & 1)
            acc_tok = warpgroup_mma(p16, v_smem.index(c % STAGES), acc, is_async=True)
            if MSUM:
                l_acc = warpgroup_mma(p16, ones.permute((1, 0)), l_acc, is_async=True)
            TAIL: gl.constexpr = HALF and HALF_TAIL
            if TAIL and hi > 0:
                acc, m, l = half_tail(a, q_buf, acc_tok, m, l, c + 1, (t_lo + n_tiles) * BN, r0, offset, slope2,
                                      row_lo, row_hi, CID, NC, M_WG, BN, D, STAGES, WINDOW, PINGPONG, ALIBI, LSUM)
            elif MSUM:
                acc, l_acc = warpgroup_mma_wait(0, deps=(acc_tok, l_acc))
                arrive(vbar(empty, c % STAGES, STAGES))
                l = l + gl.convert_layout(gl.max(l_acc, 1), row_l)   # every column holds the row's sum
            else:
                acc = warpgroup_mma_wait(0, deps=(acc_tok,))
                arrive(vbar(empty, c % STAGES, STAGES))
            if not EDGES:
                exit_scope("pv")
            edge_exit("pv_last")
    elif PREV:                                        # a tile with no key (rows past a causal edge): O alone
        if CARRY:
            acc_p, m_p, l_p, rows_p, bh_p, r0_p, has_prev, o_buf, q_rel, p16_p, alpha_p, n_prev = last_tile
            acc_p = drain(acc_p, p16_p, alpha_p, kv, n_prev, v_smem, ready, empty, STAGES, D)
            if has_prev:
                store_out(acc_p, m_p, l_p, rows_p, o_buf, desc_o, LSE, bh_p, r0_p, n_q, M_WG, D, True)
        else:
            finish_prev(last_tile, desc_o, LSE, n_q, M_WG, D)
        release_prev(last_tile)
    if LSUM:
        l = from_quads(l, row_l)
    if HALF:
        if not (HALF_TAIL and OVERLAP and not CARRY):   # (HALF_TAIL: the key loop's tail ran it)
            if hi > 0:                                # the last tile's first half
                acc, m, l = half_step(a, q_buf, acc, m, l, kv + n_tiles, (t_lo + n_tiles) * BN, 0, r0, offset,
                                      slope2, row_lo, row_hi, CID, NC, M_WG, BN, D, STAGES, WINDOW, PINGPONG, ALIBI)
    if SKIP_T:
        pass_tiles(ready, empty, turn, kv_own, kv_end - kv_own, CID, NC, STAGES, PINGPONG)
    if ALIBI:                                         # the row term alibi_cols left out: the LSE carries it
        m = m - slope2 * (rows - r0).to(gl.float32)
    return acc, m, l, rows, p16, alpha


@gluon.jit
def first_state(M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, DTYPE: gl.constexpr):
    """(acc, m, l, rows, p16, alpha) in attend's layouts, standing for "no previous tile" in a persistent loop."""
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BN, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, D, 16])
    row_l: gl.constexpr = gl.SliceLayout(1, s_layout)
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    return (gl.zeros([M_WG, D], gl.float32, o_layout), gl.full([M_WG], float("-inf"), gl.float32, row_l),
            gl.full([M_WG], 0.0, gl.float32, row_l), gl.arange(0, M_WG, layout=row_l),
            gl.zeros([M_WG, BN], DTYPE, p_layout), gl.full([M_WG], 1.0, gl.float32, row_l))


@gluon.jit
def drain(acc, p16, alpha, kv, n_prev, v_smem, ready, empty, STAGES: gl.constexpr, D: gl.constexpr):
    """CARRY: the pending last P·V of a tile that walked n_prev key tiles, up to ring position kv - 1 (none if
    n_prev = 0; acc holds earlier P·Vs if n_prev > 1), run alone where no next Q·Kᵀ comes to run it beside."""
    if n_prev > 0:
        c = kv - 1
        o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                           instr_shape=[16, D, 16])
        st = c % STAGES
        if not EARLY:
            acc = acc * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o_layout)), 1)
        mbarrier.wait(vbar(ready, st, STAGES), (c // STAGES) & 1)
        acc = warpgroup_mma(p16, v_smem.index(st), acc, use_acc=n_prev > 1, is_async=True)
        acc = warpgroup_mma_wait(0, deps=(acc,))
        arrive(vbar(empty, st, STAGES))
    return acc
