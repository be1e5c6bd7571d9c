"""The Gluon kernel behind impl="ws": a warp-specialised FlashAttention-3-style forward for Hopper.

kernels/ws.py says what it is, why it exists and when it runs; kernels/forward_table.py holds its schedule switches
with their evidence (assets/benchmarks/ws/nvidia-h200-ws-2026-12-01b.json for its speed).

Imported only by ws.py after it checked the gate (Gluon is experimental: its API moved between 3.6 and 3.8;
kernels/gluon_shims.py absorbs the differences), or directly by tools/compile_check.py. A program works on
NC*M_WG-row query tiles of one head each (NC = 2 or 3 consumer warpgroups; kernels/_ws_tile.py holds the
per-tile code). Variants: GQA/MQA (query head h of H reads key/value head h // (H / H_kv): the producer's TMA
coordinates, no copies) and, with CAUSAL, a
sliding window's left side (WINDOW: tiles left of the band are never loaded, key_range; the band's left edge
is masked like the diagonal); with CAUSAL also ALiBi (ALIBI: a per-key term on every score, _ws_softmax.alibi_cols);
packed documents (SEQ: each query tile's key tiles, which of them need no mask, and each row's visible keys come
from the host's tables, variants.tables for Br = NC*M_WG, Bc = BN; ROWB (1 or B, Nq, 2), TILES (1 or B, Tr, 4)):

  partition 0 (default, 4 warps)  consumer of rows [0, M_WG)              Q·Kᵀ and P·V by async warpgroup_mma
  partition c (worker, 4 warps)   consumer of rows [c*M_WG, (c+1)*M_WG)   same code, its own slice (c < NC)
  partition NC (worker, 1 warp)   producer: TMA loads of each tile's Q, then K_j/V_j into a STAGES-deep ring

PERSISTENT off: grid (query tiles, B*H), one tile per program (causal: last tiles first in launch order).
PERSISTENT on: grid = min(SMs, tiles); program p walks tiles p, p+G, ... of persistent_tile's order (heads in
L2-sized groups, inside a group the longest causal tiles first; kernels/_ws_order.py, with WALK's stepped form and
FRESH's sizes and step read afresh each tile, both off: ws_switches). All three partitions walk the same tiles; the
ring's counter and phases run on across tiles; Q has two buffers (q_ready / q_empty barriers, q_empty takes
one arrive per consumer once its O store left its slice), so the producer loads tile t+1's Q and first K/V
while tile t is computed (after all of tile t's K/V; Q_AHEAD, off, loads that Q earlier: ws_switches says why
not). A consumer stores tile t's O (normalise, shared memory, TMA) while tile t+1's first
Q·Kᵀ runs, and frees tile t's slot after tile t+1's first softmax (attend's PREV), so the epilogue no longer
sits between two tiles' GEMMs (tools/window_fit.py measures a query tile's cost beyond its key tiles). Without
PINGPONG, tile t's last P·V is also carried into tile t+1 and issued just before its first Q·Kᵀ (CARRY), so no
GEMM is issued alone at a tile boundary; with PINGPONG that timed slower (the window at d=128) and is off.
The forward table turns it on where it measured faster (d=128 without a mask).

Ring protocol: K and V have their own barriers per stage s (_ws_ring.py's kbar / vbar): ready's complete when the
TMA bytes of K_j / V_j landed (expect-tx); empty's K barrier takes one arrive from each of the NC consumers once its
Q·K_jᵀ finished, its V barrier once its P·V did, so K_{j+STAGES} loads while P_j·V_j still runs. Inputs are 3-D
views (B*H, N, d) so TMA clips at each head's end: keys past n_k arrive as zeros (a ragged last tile never reads
the next head, so its non-finite values cannot leak through 0 * inf) and the output store clips rows past n_q.
OVERLAP (FA3's intra-warpgroup pipelining): Q·K_jᵀ is issued, O is rescaled by tile j-1's alpha while it runs,
then P_{j-1}·V_{j-1} is issued; the softmax of tile j runs while P_{j-1}·V_{j-1} is still on the tensor cores.
With EARLY (_ws_tile.py; ws_switches.early_rescale_default) O takes tile j's alpha at the end of trip j instead,
right after P_{j-1}·V_{j-1}'s wait, so no rescale sits between Q·K_jᵀ's HGMMAs.
P is converted to the fp16 A operand right after its softmax, so the fp32 tile never stays live into the next.
PINGPONG: the consumers take turns issuing their GEMMs (consumer c waits on turn[c], then arrives on
turn[(c+1) % NC]; turn[0] pre-arrived), so one warpgroup's softmax overlaps the others' GEMMs.
Scores are kept in log2 units (qk_scale = sm_scale * log2 e) so every exponential is a bare exp2. A thread holds
two rows of its warpgroup's tile; where ws_switches.pair_max_default says (d = 64 dense), their maxima are joined
before either row's exponentials (_ws_softmax.pair_rows), so ptxas reduces both rows first.
"""
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

from ._ws_range import block_tiles
from ._ws_ring import ARRIVALS, init_ring, load_kv, ring_barriers, tbar, turn_barriers, turn_pass
from ._ws_order import WALK, persistent_tile, walk_next, walk_start, walk_tile
from ._ws_tile import attend, drain, edge_enter, edge_exit, first_state, store_out
from .gluon_shims import tma_load
from .numerics import LOG2E_C
from .ws_switches import q_ahead_default

# a persistent producer loads the next tile's Q inside this tile's K/V loads (ws_switches.q_ahead_default; off)
Q_AHEAD = gl.constexpr(q_ahead_default(triton.__version__))
# K/V loads before that Q's slot is waited for, past the ring's STAGES: the consumers free the slot after their key
# tile 0's softmax (ring position 1 for a consumer with a lead half step), so the wait never holds back a load
# they need first
Q_AHEAD_AT = gl.constexpr(2)


@gluon.jit
def _fresh(x):
    """x (int32) through an opaque mov that LLVM may not hoist out of a loop (inline asm with side effects)."""
    return gl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def _one_tile(n_q, n_k, left, tiles, tiles_b, n_heads, BM: gl.constexpr, BN: gl.constexpr, CAUSAL: gl.constexpr,
              WINDOW: gl.constexpr, SEQ: gl.constexpr):
    """The one BM-row query tile of this program (grid (G, query blocks, B*H / G)): (bh, start_q, first key tile,
    key tiles). Head program_id 0 of head group program_id 2 (G = num_programs(0), ws.forward's); programs start
    in launch order (the first axis fastest), so causal, where the last query blocks come first, every head of a
    group starts its longest tile before any starts its second (G = 1: head by head; ws_schedule.lpt_default)."""
    pid = gl.program_id(1)
    bh = gl.program_id(2)                             # (G = 1 without a causal mask)
    if CAUSAL:                                        # heaviest (last) Q blocks first
        pid = gl.num_programs(1) - 1 - pid
        bh = bh * gl.num_programs(0) + gl.program_id(0)
    start_q = pid * BM
    t_lo, n_tiles = block_tiles(bh, start_q, n_q, n_k, left, tiles, tiles_b, n_heads, BM, BN, CAUSAL, WINDOW, SEQ)
    return bh, start_q, t_lo, n_tiles


@gluon.jit
def _kv_head(bh, n_heads, groups):
    """GQA/MQA: the key/value head (of B * H_kv) that query head bh (of B * H) reads; groups = H // H_kv."""
    return (bh // n_heads) * (n_heads // groups) + (bh % n_heads) // groups


@gluon.jit
def _slope2(slopes, slopes_b, bh, n_heads, ALIBI: gl.constexpr):
    """ALiBi: query head bh's slope (SLOPES (1 or B, H), batch stride slopes_b) in log2 units; 0.0 without."""
    slope2 = 0.0
    if ALIBI:
        slope2 = gl.load(slopes + (bh // n_heads) * slopes_b + bh % n_heads) * LOG2E_C
    return slope2


@gluon.jit
def _consumer(a, CID: gl.constexpr, NC: gl.constexpr, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr,
              STAGES: gl.constexpr, CAUSAL: gl.constexpr, WINDOW: gl.constexpr, OVERLAP: gl.constexpr,
              PINGPONG: gl.constexpr, PERSISTENT: gl.constexpr, ALIBI: gl.constexpr, SEQ: gl.constexpr,
              HALF: gl.constexpr, FRESH: gl.constexpr):
    (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_ready, q_empty, ready, empty, turn,
     qk_scale, n_q, n_k, n_bh, head_group, left, n_heads, groups, slopes, slopes_b, rowb, tiles, rowb_b, tiles_b) = a
    BM: gl.constexpr = NC * M_WG
    if PINGPONG == 2:                                 # NAMED turns: consumer 0 takes the first (with mbarrier
        if CID == NC - 1:                             # turns, ws_fwd's pre-arrive on turn 0 does this)
            turn_pass(turn, 0, PINGPONG)
    if PERSISTENT:
        n_qblk = gl.cdiv(n_q, BM)
        i = 0                                         # query tiles done by this program
        kv = 0                                        # K/V ring positions consumed so far
        CARRY: gl.constexpr = OVERLAP and not PINGPONG    # last P·V beside the next Q·K_0ᵀ (pingpong: slower)
        HALF_P: gl.constexpr = HALF if not CARRY and not SEQ else False    # kernels/_ws_half.py (1/True or 2)
        acc, m, l, rows, p16, alpha = first_state(M_WG, BN, D, desc_q.dtype)   # "no previous tile" (see attend)
        n_prev = 0                                    # the previous tile's key tiles (CARRY: its last P·V waits)
        bh_p = 0
        r0_p = 0
        g, r, h, q, hs, sh, sq = 0, 0, 0, 0, 0, 0, 0     # WALK's order state, stepped tile to tile (_ws_order.py)
        if WALK:
            g, r, h, q, hs, sh, sq = walk_start(gl.program_id(0), n_qblk, n_bh, head_group, gl.num_programs(0))
        st = (i, kv, acc, m, l, rows, p16, alpha, n_prev, bh_p, r0_p, g, r, h, q, hs, sh, sq)
        if FRESH:                                     # the step read afresh too: a while loop (_nprog)
            t = gl.program_id(0)
            while t < n_qblk * n_bh:
                st = _tile_step(a, t, n_qblk, st, CID, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG,
                                ALIBI, SEQ, HALF_P, CARRY, FRESH)
                t += _nprog(t)
        else:
            for t in range(gl.program_id(0), n_qblk * n_bh, gl.num_programs(0)):
                st = _tile_step(a, t, n_qblk, st, CID, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG,
                                ALIBI, SEQ, HALF_P, CARRY, FRESH)
        i, kv, acc, m, l, rows, p16, alpha, n_prev, bh_p, r0_p, g, r, h, q, hs, sh, sq = st
        if i > 0:                                     # the last tile's O (CARRY: after its last P·V)
            if CARRY:
                acc = drain(acc, p16, alpha, kv, n_prev, v_smem, ready, empty, STAGES, D)
            store_out(acc, m, l, rows, q_smem.index(NC * ((i - 1) % 2) + CID), desc_o, LSE, bh_p, r0_p, n_q, M_WG, D,
                      CARRY)
        tma.store_wait(0)
    else:
        bh, start_q, t_lo, n_tiles = _one_tile(n_q, n_k, left, tiles, tiles_b, n_heads, BM, BN, CAUSAL, WINDOW, SEQ)
        q_buf = q_smem.index(CID)
        r0 = start_q + CID * M_WG
        mbarrier.wait(q_ready.index(0), 0)            # always: the output reuses Q's buffer
        slope2 = _slope2(slopes, slopes_b, bh, n_heads, ALIBI)
        HALF_1: gl.constexpr = HALF if not SEQ else False
        acc, m, l, rows, p16, alpha = attend(a, q_buf, _q_lo(q_smem, q_buf, CID, n_q, HALF_1), bh, r0, t_lo,
                                             n_tiles, 0, slope2, 0, CID, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW,
                                             OVERLAP, PINGPONG, ALIBI, SEQ, False, False, HALF_1)
        store_out(acc, m, l, rows, q_buf, desc_o, LSE, bh, r0, n_q, M_WG, D)
        tma.store_wait(0)


@gluon.jit
def _tile_step(a, t, n_qblk, st, CID: gl.constexpr, NC: gl.constexpr, M_WG: gl.constexpr, BN: gl.constexpr,
               D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr, WINDOW: gl.constexpr,
               OVERLAP: gl.constexpr, PINGPONG: gl.constexpr, ALIBI: gl.constexpr, SEQ: gl.constexpr,
               HALF_P: gl.constexpr, CARRY: gl.constexpr, FRESH: gl.constexpr):
    """A persistent consumer's query tile t: st, the state its walk carries (tiles done i, ring position kv, the
    previous tile's acc, m, l, rows, p16, alpha, key tiles, bh and r0, WALK's order state), in and out."""
    (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_ready, q_empty, ready, empty, turn,
     qk_scale, n_q, n_k, n_bh, head_group, left, n_heads, groups, slopes, slopes_b, rowb, tiles, rowb_b, tiles_b) = a
    i, kv, acc, m, l, rows, p16, alpha, n_prev, bh_p, r0_p, g, r, h, q, hs, sh, sq = st
    BM: gl.constexpr = NC * M_WG
    edge_enter("top")                                 # the tile's decode and key range (window_trace's "top")
    if WALK:
        bh, start_q = walk_tile(g, h, q, n_qblk, head_group, BM)
        g, r, h, q, hs, sh, sq = walk_next(g, r, h, q, hs, sh, sq, n_qblk, n_bh, head_group, gl.num_programs(0))
    else:
        bh, start_q = persistent_tile(t, n_qblk, n_bh, head_group, BM)
    n_q_t, n_k_t, left_t = n_q, n_k, left
    if FRESH:                                         # the sizes read afresh (ws_switches.fresh_default says why)
        n_q_t, n_k_t, left_t = _fresh(n_q), _fresh(n_k), _fresh(left)
    a_t = (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_ready, q_empty, ready, empty, turn,
           qk_scale, n_q_t, n_k_t, n_bh, head_group, left_t, n_heads, groups, slopes, slopes_b, rowb, tiles,
           rowb_b, tiles_b)
    t_lo, n_tiles = block_tiles(bh, start_q, n_q_t, n_k_t, left_t, tiles, tiles_b, n_heads, BM, BN, CAUSAL,
                                WINDOW, SEQ)
    qs = i % 2                                        # Q (and O) double buffer: slot of this tile
    r0 = start_q + CID * M_WG
    edge_exit("top")
    edge_enter("q_ready")
    mbarrier.wait(q_ready.index(qs), (i // 2) & 1)
    edge_exit("q_ready")
    slope2 = _slope2(slopes, slopes_b, bh, n_heads, ALIBI)
    last_tile = (acc, m, l, rows, bh_p, r0_p, i > 0, q_smem.index(NC * (1 - qs) + CID), q_empty.index(1 - qs),
                 p16, alpha, n_prev)
    q_buf = q_smem.index(NC * qs + CID)
    acc, m, l, rows, p16_t, alpha_t = attend(
        a_t, q_buf, _q_lo(q_smem, q_buf, NC * qs + CID, n_q, HALF_P), bh, r0, t_lo, n_tiles, kv, slope2,
        last_tile, CID, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, ALIBI, SEQ, True, CARRY,
        HALF_P)
    if CARRY:                                         # (only then loop-carried: registers the others keep)
        p16 = p16_t
        alpha = alpha_t
    kv += n_tiles
    i += 1
    return (i, kv, acc, m, l, rows, p16, alpha, n_tiles, bh, r0, g, r, h, q, hs, sh, sq)


@gluon.jit
def _nprog(x):
    """The program count (%nctaid.x) read where it is used: an opaque mov LLVM may not hoist (x: any int32), so
    ptxas does not keep it in local memory across a tile (FRESH's while loop)."""
    return gl.inline_asm_elementwise("mov.u32 $0, %nctaid.x;", "=r,r", [x], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def _q_lo(q_smem, q_buf, at, n_q, HALF: gl.constexpr):
    """The Q view a window's first half step reads (attend's q_lo): q_buf, or with HALF = 2 the same slot through
    an index ptxas cannot prove equal to q_buf's (at + (n_q < 0), 0 at run time). ptxas 12.8 (triton 3.6, 3.7.1)
    otherwise computes key tile 0's Q descriptors (k-steps 1..7) only inside that half step and reads them after
    it whether or not the step ran: persistent windows got the previous tile's Q (kernels/_ws_half.py)."""
    if HALF == 2:
        return q_smem.index(at + (n_q < 0).to(gl.int32))
    return q_buf


@gluon.jit
def _consumer0(a, NC: gl.constexpr, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr,
               CAUSAL: gl.constexpr, WINDOW: gl.constexpr, OVERLAP: gl.constexpr, PINGPONG: gl.constexpr,
               PERSISTENT: gl.constexpr, ALIBI: gl.constexpr, SEQ: gl.constexpr, HALF: gl.constexpr,
               FRESH: gl.constexpr):
    _consumer(a, 0, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ, HALF, FRESH)


@gluon.jit
def _consumer1(a, NC: gl.constexpr, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr,
               CAUSAL: gl.constexpr, WINDOW: gl.constexpr, OVERLAP: gl.constexpr, PINGPONG: gl.constexpr,
               PERSISTENT: gl.constexpr, ALIBI: gl.constexpr, SEQ: gl.constexpr, HALF: gl.constexpr,
               FRESH: gl.constexpr):
    _consumer(a, 1, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ, HALF, FRESH)


@gluon.jit
def _consumer2(a, NC: gl.constexpr, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr,
               CAUSAL: gl.constexpr, WINDOW: gl.constexpr, OVERLAP: gl.constexpr, PINGPONG: gl.constexpr,
               PERSISTENT: gl.constexpr, ALIBI: gl.constexpr, SEQ: gl.constexpr, HALF: gl.constexpr,
               FRESH: gl.constexpr):
    _consumer(a, 2, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ, HALF, FRESH)


@gluon.jit
def _load_q(desc_q, q_smem, bar, slot, bh, start_q, NC: gl.constexpr, M_WG: gl.constexpr, D: gl.constexpr):
    """One M_WG-row box per consumer; a box wholly past n_q lands as zeros and still counts its bytes."""
    mbarrier.expect(bar, NC * desc_q.block_type.nbytes)
    for c in gl.static_range(NC):
        tma_load(desc_q, [bh, start_q + c * M_WG, 0], bar,
                                        q_smem.index(NC * slot + c).reshape([1, M_WG, D]))


@gluon.jit
def _producer(a, NC: gl.constexpr, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr,
              CAUSAL: gl.constexpr, WINDOW: gl.constexpr, OVERLAP: gl.constexpr, PINGPONG: gl.constexpr,
              PERSISTENT: gl.constexpr, ALIBI: gl.constexpr, SEQ: gl.constexpr):
    (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_ready, q_empty, ready, empty, turn,
     qk_scale, n_q, n_k, n_bh, head_group, left, n_heads, groups, slopes, slopes_b, rowb, tiles, rowb_b, tiles_b) = a
    BM: gl.constexpr = NC * M_WG
    if PERSISTENT:
        n_qblk = gl.cdiv(n_q, BM)
        i = 0
        kv = 0
        if Q_AHEAD:                                   # the first tile's Q (its slot is fresh)
            if gl.program_id(0) < n_qblk * n_bh:
                bh0, start0 = persistent_tile(gl.program_id(0), n_qblk, n_bh, head_group, BM)
                _load_q(desc_q, q_smem, q_ready.index(0), 0, bh0, start0, NC, M_WG, D)
        if WALK:
            g, r, h, q, hs, sh, sq = walk_start(gl.program_id(0), n_qblk, n_bh, head_group, gl.num_programs(0))
        for t in range(gl.program_id(0), n_qblk * n_bh, gl.num_programs(0)):
            if WALK:
                bh, start_q = walk_tile(g, h, q, n_qblk, head_group, BM)
                g, r, h, q, hs, sh, sq = walk_next(g, r, h, q, hs, sh, sq, n_qblk, n_bh, head_group, gl.num_programs(0))
            else:
                bh, start_q = persistent_tile(t, n_qblk, n_bh, head_group, BM)
            t_lo, n_tiles = block_tiles(bh, start_q, n_q, n_k, left, tiles, tiles_b, n_heads, BM, BN, CAUSAL,
                                        WINDOW, SEQ)
            qs = i % 2
            if Q_AHEAD:                               # this tile's first key tiles, the next tile's Q, the rest
                ahead = gl.minimum(n_tiles, Q_AHEAD_AT + STAGES)
                kv_bh = _kv_head(bh, n_heads, groups)
                load_kv(desc_k, desc_v, k_smem, v_smem, ready, empty, kv_bh, t_lo, ahead, kv, BN, D, STAGES)
                t_next = t + gl.num_programs(0)
                if t_next < n_qblk * n_bh:
                    bh_n, start_n = persistent_tile(t_next, n_qblk, n_bh, head_group, BM)
                    edge_enter("tma_q_wait")
                    mbarrier.wait(q_empty.index(1 - qs), (((i + 1) // 2) & 1) ^ 1)
                    edge_exit("tma_q_wait")
                    _load_q(desc_q, q_smem, q_ready.index(1 - qs), 1 - qs, bh_n, start_n, NC, M_WG, D)
                load_kv(desc_k, desc_v, k_smem, v_smem, ready, empty, kv_bh, t_lo + ahead, n_tiles - ahead,
                        kv + ahead, BN, D, STAGES)
            else:
                edge_enter("tma_q_wait")
                mbarrier.wait(q_empty.index(qs), ((i // 2) & 1) ^ 1)    # every consumer's O left it (fresh: passes)
                edge_exit("tma_q_wait")
                edge_enter("tma_q_issue")
                _load_q(desc_q, q_smem, q_ready.index(qs), qs, bh, start_q, NC, M_WG, D)
                edge_exit("tma_q_issue")
                load_kv(desc_k, desc_v, k_smem, v_smem, ready, empty, _kv_head(bh, n_heads, groups), t_lo, n_tiles,
                        kv, BN, D, STAGES)
            kv += n_tiles
            i += 1
    else:
        bh, start_q, t_lo, n_tiles = _one_tile(n_q, n_k, left, tiles, tiles_b, n_heads, BM, BN, CAUSAL, WINDOW, SEQ)
        _load_q(desc_q, q_smem, q_ready.index(0), 0, bh, start_q, NC, M_WG, D)
        load_kv(desc_k, desc_v, k_smem, v_smem, ready, empty, _kv_head(bh, n_heads, groups), t_lo, n_tiles, 0, BN,
                D, STAGES)


# n_k is never specialised: at n_k = 1 triton 3.6 folds every tile's key range to one tile, and its LLVM lowering
# then failed on attend's no-key branch (an assertion in ConvertTritonGPUToLLVM; tests/kernels/test_ws_gpu.py, n = 1)
@gluon.jit(do_not_specialize=["n_k"])
def ws_fwd(desc_q, desc_k, desc_v, desc_o, LSE, SLOPES, ROWB, TILES, qk_scale, n_q, n_k, n_bh, head_group, left,
           n_heads, groups, slopes_b, rowb_b, tiles_b, NC: gl.constexpr, M_WG: gl.constexpr, BN: gl.constexpr,
           D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr, WINDOW: gl.constexpr, OVERLAP: gl.constexpr,
           PINGPONG: gl.constexpr, PERSISTENT: gl.constexpr, ALIBI: gl.constexpr, SEQ: gl.constexpr,
           CONSUMER_REGS: gl.constexpr, PRODUCER_REGS: gl.constexpr, HALF: gl.constexpr = False,
           FRESH: gl.constexpr = False):
    QS: gl.constexpr = 2 if PERSISTENT else 1         # Q/O buffers (each NC M_WG-row slices)
    dtype: gl.constexpr = desc_q.dtype
    q_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([M_WG, D], dtype)
    kv_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BN, D], dtype)
    q_smem = gl.allocate_shared_memory(dtype, [NC * QS, M_WG, D], q_layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, BN, D], kv_layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, BN, D], kv_layout)
    q_ready = gl.allocate_shared_memory(gl.int64, [QS, 1], mbarrier.MBarrierLayout())
    q_empty = gl.allocate_shared_memory(gl.int64, [QS, 1], mbarrier.MBarrierLayout())
    ready, empty = ring_barriers(STAGES)              # (K, V) pairs (_ws_ring.py)
    turn = turn_barriers(NC)
    for i in gl.static_range(QS):
        mbarrier.init(q_ready.index(i), count=1)
        mbarrier.init(q_empty.index(i), count=NC)    # one arrive per consumer partition
    init_ring(ready, empty, STAGES, NC)
    for i in gl.static_range(NC):
        mbarrier.init(tbar(turn, i), count=ARRIVALS)  # a consumer's arrivals (_ws_ring.py arrive)
    mbarrier.arrive(tbar(turn, 0), count=ARRIVALS)    # consumer 0 takes the first turn

    a = (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_ready, q_empty, ready, empty, turn,
         qk_scale, n_q, n_k, n_bh, head_group, left, n_heads, groups, SLOPES, slopes_b, ROWB, TILES, rowb_b, tiles_b)
    # constexprs travel as separate arguments, each tuple written out in place (inside a nested tuple, or a tuple
    # bound to a name first, they would arrive as runtime values)
    if NC == 3:
        gl.warp_specialize([
            (_consumer0, (a, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ,
                          HALF, FRESH)),
            (_consumer1, (a, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ,
                          HALF, FRESH)),
            (_consumer2, (a, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ,
                          HALF, FRESH)),
            (_producer, (a, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ))],
            [4, 4, 1], [CONSUMER_REGS, CONSUMER_REGS, PRODUCER_REGS])
    else:
        gl.warp_specialize([
            (_consumer0, (a, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ,
                          HALF, FRESH)),
            (_consumer1, (a, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ,
                          HALF, FRESH)),
            (_producer, (a, NC, M_WG, BN, D, STAGES, CAUSAL, WINDOW, OVERLAP, PINGPONG, PERSISTENT, ALIBI, SEQ))],
            [4, 1], [CONSUMER_REGS, PRODUCER_REGS])
