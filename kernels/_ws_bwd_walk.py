"""The walk over query blocks shared by the ws backward's producer and consumers (kernels/_ws_bwd_gluon.py): which
query blocks a key block visits (masked and unmasked ranges), in which order (ROTATE, and the gap over a TABLE launch's
full blocks) and at which ring slot and phase; and the producer warp itself, which loads the key block's K and V once
and then each walked block's Q_i and dO_i (PREFETCH 2: with its lse and delta) into the ring; release, a consumer's
arrive on a ring stage's empty or a dS^T slot's free barrier. Imported by _ws_bwd_gluon.py, _ws_bwd_dq.py and
_ws_bwd_next.py."""
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.ampere import async_copy
from triton.experimental.gluon.language.nvidia.hopper import mbarrier

from .gluon_shims import thread_barrier, tma_load
from .ws_switches import bwd_thread_arrive_default

# release by each of a consumer's 128 threads or by thread 0 after a BAR.SYNC: fixed when this module is imported
THREAD_ARRIVE = gl.constexpr(bwd_thread_arrive_default(triton.__version__))
ARRIVALS = gl.constexpr(128 if THREAD_ARRIVE else 1)  # arrivals one consumer makes on an empty or free barrier


@gluon.jit
def release(bar):
    """A consumer's arrive on a ring stage's empty or a dS^T slot's free barrier, once the MMAs that read the stage
    or slot were waited for: THREAD_ARRIVE, each thread's cp.async.mbarrier.arrive.noinc, else mbarrier.arrive."""
    if THREAD_ARRIVE:
        async_copy.mbarrier_arrive(bar, increment_count=False)
    else:
        mbarrier.arrive(bar)


@gluon.jit
def key_block():
    """This program's key block: the grid's second axis (ws_bwd.backward's grid (G, key blocks, B*H / G))."""
    return gl.program_id(1)


@gluon.jit
def head():
    """This program's head (of B*H): head(program_id 0) of head group (program_id 2), G = num_programs(0) heads a
    group. Programs start in launch order (the first axis fastest), so a group's heads all start key block 0 (a
    causal launch's longest) before any starts key block 1, and so on; G = 1 is head by head."""
    return gl.program_id(2) * gl.num_programs(0) + gl.program_id(0)


@gluon.jit
def query_range(start_k, n_q, n_k, BM: gl.constexpr, BN: gl.constexpr, CAUSAL: gl.constexpr):
    """(lo, full, hi) for the BN-key block at start_k: query blocks [lo, full) need a mask (causal band, ragged
    key block), [full, hi) do not; all multiples of BM, hi = n_q rounded up."""
    hi = gl.cdiv(n_q, BM) * BM
    lo = 0
    full = 0
    if CAUSAL:                                        # row r sees keys j <= r + n_k - n_q
        offset = n_k - n_q
        lo = (gl.maximum(start_k - offset, 0) // BM) * BM
        full = gl.minimum(gl.cdiv(gl.maximum(start_k + BN - 1 - offset, 0), BM) * BM, hi)
        full = gl.maximum(full, lo)
    if start_k + BN > n_k:                            # ragged last key block: keys past n_k must get P = 0
        full = hi
    return lo, full, hi


@gluon.jit
def query_ranges(bh, start_k, n_q, n_k, tiles, tiles_b, n_heads, BM: gl.constexpr, BN: gl.constexpr,
                 CAUSAL: gl.constexpr, TABLE: gl.constexpr):
    """(a0, a1, a2, a3), multiples of BM: query blocks [a0, a1) and [a2, a3) need a mask, [a1, a2) do not. TABLE
    (windows, packed documents): the host's by-key table (variants.tables(..., by_key=True) for Br = BM, Bc = BN:
    (t_lo, f_lo, f_hi, t_hi) per key block, batch stride tiles_b); else query_range's arithmetic and a2 = a3."""
    if TABLE:
        rng = tiles + (bh // n_heads) * tiles_b + (start_k // BN) * 4
        a0 = gl.load(rng) * BM
        a1 = gl.load(rng + 1) * BM
        a2 = gl.load(rng + 2) * BM
        a3 = gl.load(rng + 3) * BM
    else:
        a0, a1, a2 = query_range(start_k, n_q, n_k, BM, BN, CAUSAL)
        a3 = a2
    return a0, a1, a2, a3


@gluon.jit
def block_start(lo, count, it, r0, BM: gl.constexpr, ROTATE: gl.constexpr):
    """First row of the it-th (0 <= it <= count) of `count` query blocks from lo; ROTATE starts at block r0 (the
    program's rotation, below count) and wraps, so the key blocks of one head do not all add into the same dQ rows
    at the same moment (producer and consumers agree). A compare and a subtract: no division inside the loops."""
    if ROTATE:
        j = it + r0
        return lo + gl.where(j >= count, j - count, j) * BM
    return lo + it * BM


@gluon.jit
def rotation(count):
    """The block a ROTATE walk of `count` blocks starts at: key_block() % count (0 where count is 0), once per
    loop."""
    return key_block() % gl.maximum(count, 1)


@gluon.jit
def ring(c, N: gl.constexpr):
    """(c % N, (c // N) & 1) for a ring position c >= 0: the slot and the phase parity of an N-deep ring, by mask and
    shift where N is 1, 2 or 4 (no signed-division fix-ups on the loops' critical path)."""
    slot = c % N
    phase = (c // N) & 1
    if N == 1:
        slot = 0
        phase = c & 1
    if N == 2:
        slot = c & 1
        phase = (c >> 1) & 1
    if N == 4:
        slot = c & 3
        phase = (c >> 2) & 1
    return slot, phase


@gluon.jit
def skip_gap(start, gap_at, gap, TABLE: gl.constexpr):
    """A block's first row, moved on by gap where it is at or past gap_at (over the full blocks, between a masked
    run's two edges; only TABLE launches have a second edge)."""
    if TABLE:
        start = start + (start >= gap_at).to(gl.int32) * gap
    return start


@gluon.jit
def block_row(lo, count, it, r0, gap_at, gap, BM: gl.constexpr, ROTATE: gl.constexpr, TABLE: gl.constexpr):
    """First row of the it-th query block the consumers' and the producer's loops walk (_ws_bwd_gluon.py: they
    agree; r0 = rotation(count))."""
    return skip_gap(block_start(lo, count, it, r0, BM, ROTATE), gap_at, gap, TABLE)


@gluon.jit
def producer(a, BM: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
             DQ_SPLIT: gl.constexpr, ROTATE: gl.constexpr, DQ_MODE: gl.constexpr, TABLE: gl.constexpr,
             GQA: gl.constexpr, PREFETCH: gl.constexpr):
    """The 1-warp producer partition: the key block's K and V once (GQA: its query head's K/V head), then Q_i and
    dO_i of the blocks the consumers walk, the masked edges first, in the order they consume them."""
    (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
     kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, keyb, tiles,
     keyb_b, tiles_b, n_heads, groups, stats_smem) = a
    bh = head()
    start_k = key_block() * (2 * 64)
    mbarrier.expect(kv_bar, 2 * desc_k.block_type.nbytes + 2 * desc_v.block_type.nbytes)
    kv_bh = bh
    if GQA:                                           # query head bh's K/V head
        kv_bh = (bh // n_heads) * (n_heads // groups) + (bh % n_heads) // groups
    for c in gl.static_range(2):
        tma_load(desc_k, [kv_bh, start_k + c * 64, 0], kv_bar,
                                        k_smem.index(c).reshape([1, 64, D]))
        tma_load(desc_v, [kv_bh, start_k + c * 64, 0], kv_bar,
                                        v_smem.index(c).reshape([1, 64, D]))
    lo, full, hi, end = query_ranges(bh, start_k, n_q, n_k, tiles, tiles_b, n_heads, BM, 2 * 64, CAUSAL, TABLE)
    n_masked = (full - lo + end - hi) // BM
    load_blocks(a, 0, lo, lo + n_masked * BM, full, hi - full, BM, D, STAGES, False, TABLE,   # masked edges, in order
                 PREFETCH)
    load_blocks(a, n_masked, full, hi, hi, 0, BM, D, STAGES, ROTATE, TABLE, PREFETCH)   # the full ones, as consumed


@gluon.jit
def load_blocks(a, c0, lo, hi, gap_at, gap, BM: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr,
                ROTATE: gl.constexpr, TABLE: gl.constexpr, PREFETCH: gl.constexpr):
    """Q_i, dO_i of the query blocks _ws_bwd_gluon._blocks walks (the same lo, hi, gap_at, gap) into ring positions
    c0, c0 + 1, ... (PREFETCH 2: and their lse, delta, stored by this warp's lanes before the stage's arrive)."""
    (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
     kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, keyb, tiles,
     keyb_b, tiles_b, n_heads, groups, stats_smem) = a
    bh = head()
    stat_l: gl.constexpr = gl.BlockedLayout([1, BM // 32], [1, 32], [1, 1], [1, 0])
    count = (hi - lo) // BM
    r0 = rotation(count)
    for it in range(count):
        c = c0 + it
        st, ph = ring(c, STAGES)
        mbarrier.wait(empty.index(st), ph ^ 1)        # fresh barriers pass phase 1 at once
        bar = ready.index(st)
        start = block_row(lo, count, it, r0, gap_at, gap, BM, ROTATE, TABLE)
        if PREFETCH == 2:                             # lse, delta of the block into the stage, then the arrive
            rows = start + gl.expand_dims(gl.arange(0, BM, layout=gl.SliceLayout(0, stat_l)), 0)    # (1, BM)
            base = bh.to(gl.int64) * n_q              # load, store, load, store: as timed (_row_stats loads both first)
            stats_smem.index(2 * st).store(gl.load(LSE + base + rows, mask=rows < n_q, other=float("inf")))
            stats_smem.index(2 * st + 1).store(gl.load(DELTA + base + rows, mask=rows < n_q, other=0.0))
            thread_barrier()                          # every lane's stores before lane 0's arrive (release)
        mbarrier.expect(bar, desc_q.block_type.nbytes + desc_do.block_type.nbytes)
        tma_load(desc_q, [bh, start, 0], bar, q_smem.index(st).reshape([1, BM, D]))
        tma_load(desc_do, [bh, start, 0], bar, do_smem.index(st).reshape([1, BM, D]))
