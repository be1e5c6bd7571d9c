"""The ws forward's mbarriers between its partitions: the K/V ring's ready (the TMA's bytes of a stage's K or V
landed) and empty (every consumer is done with it), one pair per stage for K and one for V, held as (K array,
V array) pairs and named through kbar / vbar; and PINGPONG's turn barriers, one per consumer, named through tbar.

SPLIT_BARS (ws_switches.split_bars_default) gives V's ring barriers allocations of their own, and each consumer's
turn barrier one of its own; without it the ring lives in one array of 2 * STAGES (K at s, V at STAGES + s) and the
turns in one of NC, as before. Why it may matter: Triton's shared-memory barrier pass (membar) puts a warpgroup
BAR.SYNC between two mbarrier waits on one allocation, even on different slots of it, and none between waits on
two: split, a consumer's wait on V's barrier after its wait on K's needs none, one BAR.SYNC fewer a loop trip
(tests/tools/test_sass_loops.py); the turn barriers are split the same way. THREAD_ARRIVE
(ws_switches.thread_arrive_default): every consumer thread arrives on the empty and turn barriers itself (arrive),
with no BAR.SYNC before it, and those barriers count ARRIVALS a consumer. pass_tiles: a consumer's share of the
ring's protocol on positions it has no work in (SKIP, kernels/_ws_tile.py). NAMED (PINGPONG = 2: ws.forward under
ws_switches.named_turn_default): the turns go through hardware named barriers instead, as FlashAttention-3 and -4
schedule their warpgroups: consumer I waits with bar.sync on named barrier 8 + I and the consumer before it hands
the turn on with bar.arrive (256 threads: the two warpgroups), so neither side polls an mbarrier nor syncs its own
warpgroup before arriving. load_kv: the producer's side, its K/V loads into the ring. Imported by _ws_gluon.py,
_ws_tile.py and _ws_half.py."""
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.ampere import async_copy
from triton.experimental.gluon.language.nvidia.hopper import mbarrier

from .gluon_shims import enter_scope, exit_scope, tma_load
from .ws_switches import split_bars_default, thread_arrive_default

# K and V's ring barriers in separate allocations (SPLIT_BARS) or one: fixed when this module is imported
SPLIT_BARS = gl.constexpr(split_bars_default(triton.__version__))
# a consumer's arrives by each of its 128 threads (4 warps) or by thread 0 after a BAR.SYNC: fixed at import too
THREAD_ARRIVE = gl.constexpr(thread_arrive_default(triton.__version__))
ARRIVALS = gl.constexpr(128 if THREAD_ARRIVE else 1)  # arrivals one consumer makes on an empty or turn barrier
# NAMED's barrier ids are 8, 9, 10 (consumer 0, 1, 2; written into _bar's asm): triton's own partitions use ids 0-3
# (bar.sync 0..3 in the PTX of every launch tools.ptx_same dumps under 3.8); Hopper has 16


@gluon.jit
def arrive(bar, pred=True):
    """A consumer's arrive on an empty or turn barrier: THREAD_ARRIVE, each thread's cp.async.mbarrier.arrive.noinc
    (one arrival a thread; no cp.async is pending, so it lands at once), else mbarrier.arrive (thread 0)."""
    if THREAD_ARRIVE:
        if pred:
            async_copy.mbarrier_arrive(bar, increment_count=False)
    else:
        mbarrier.arrive(bar, pred=pred)


@gluon.jit
def _asm(x, ASM: gl.constexpr):
    """The PTX statement ASM (side effects, no result), x (any int32) its asm's nominal input."""
    return gl.inline_asm_elementwise("mov.b32 $0, $1;\n\t" + ASM, "=r,r", [x], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def _bar(x, I: gl.constexpr, SYNC: gl.constexpr):
    """bar.sync (SYNC) or bar.arrive on named barrier 8 + I for 256 threads (x: any int32, the asm's input)."""
    if SYNC:
        if I == 0:
            y = _asm(x, "bar.sync 8, 256;")
        elif I == 1:
            y = _asm(x, "bar.sync 9, 256;")
        else:
            y = _asm(x, "bar.sync 10, 256;")
    else:
        if I == 0:
            y = _asm(x, "bar.arrive 8, 256;")
        elif I == 1:
            y = _asm(x, "bar.arrive 9, 256;")
        else:
            y = _asm(x, "bar.arrive 10, 256;")
    return y


@gluon.jit
def turn_wait(turn, I: gl.constexpr, c, PINGPONG: gl.constexpr):
    """Consumer I waits for its turn at ring position c: NAMED, bar.sync on its named barrier; else its turn
    mbarrier's phase c & 1."""
    if PINGPONG == 2:
        _bar(c, I, True)
    else:
        mbarrier.wait(tbar(turn, I), c & 1)


@gluon.jit
def turn_pass(turn, I: gl.constexpr, PINGPONG: gl.constexpr):
    """Hand the turn to consumer I: NAMED, bar.arrive on its named barrier; else an arrive on its turn mbarrier."""
    if PINGPONG == 2:
        _bar(gl.to_tensor(0), I, False)
    else:
        arrive(tbar(turn, I))


@gluon.jit
def ring_barriers(STAGES: gl.constexpr):
    """(ready, empty), each a (K array, V array) pair of STAGES barriers apiece (init_ring initialises them)."""
    if SPLIT_BARS:
        ready_k = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        empty_k = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        ready_v = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        empty_v = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    else:
        ready_k = gl.allocate_shared_memory(gl.int64, [2 * STAGES, 1], mbarrier.MBarrierLayout())  # K: s, V: S + s
        empty_k = gl.allocate_shared_memory(gl.int64, [2 * STAGES, 1], mbarrier.MBarrierLayout())
        ready_v = ready_k
        empty_v = empty_k
    return (ready_k, ready_v), (empty_k, empty_v)


@gluon.jit
def init_ring(ready, empty, STAGES: gl.constexpr, NC: gl.constexpr):
    """ready's barriers take the TMA's one arrive (with its bytes), empty's ARRIVALS from each of the NC
    consumers."""
    for i in gl.static_range(STAGES):
        mbarrier.init(kbar(ready, i), count=1)
        mbarrier.init(kbar(empty, i), count=NC * ARRIVALS)
    for i in gl.static_range(STAGES):
        mbarrier.init(vbar(ready, i, STAGES), count=1)
        mbarrier.init(vbar(empty, i, STAGES), count=NC * ARRIVALS)


@gluon.jit
def kbar(bars, st):
    """K's barrier of ring stage st in a (K, V) pair."""
    return bars[0].index(st)


@gluon.jit
def vbar(bars, st, STAGES: gl.constexpr):
    """V's barrier of ring stage st in a (K, V) pair."""
    if SPLIT_BARS:
        b = bars[1].index(st)
    else:
        b = bars[1].index(STAGES + st)
    return b


@gluon.jit
def turn_barriers(NC: gl.constexpr):
    """PINGPONG's NC turn barriers: a tuple of NC one-barrier allocations (SPLIT_BARS) or one array of NC."""
    if SPLIT_BARS:
        if NC == 3:
            turn = (gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout()),
                    gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout()),
                    gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout()))
        else:
            turn = (gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout()),
                    gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout()))
    else:
        turn = gl.allocate_shared_memory(gl.int64, [NC, 1], mbarrier.MBarrierLayout())
    return turn


@gluon.jit
def tbar(turn, I: gl.constexpr):
    """Consumer I's turn barrier."""
    if SPLIT_BARS:
        b = turn[I].index(0)
    else:
        b = turn.index(I)
    return b


@gluon.jit
def pass_tiles(ready, empty, turn, c0, n, CID: gl.constexpr, NC: gl.constexpr, STAGES: gl.constexpr,
               PINGPONG: gl.constexpr):
    """SKIP: ring positions c0 .. c0 + n - 1, whose key tiles no row of this consumer sees, passed on as if run: it
    waits until each K and V landed (so its arrive on a stage's empty barrier counts for that load, never for the
    next one into the same stage, which cannot start before the other consumers freed this one), takes and hands
    on its PINGPONG turn, and frees both slots."""
    for i in range(n):
        c = c0 + i
        st = c % STAGES
        ph = (c // STAGES) & 1
        mbarrier.wait(kbar(ready, st), ph)
        if PINGPONG:
            turn_wait(turn, CID, c, PINGPONG)
            turn_pass(turn, (CID + 1) % NC, PINGPONG)
        arrive(kbar(empty, st))
        mbarrier.wait(vbar(ready, st, STAGES), ph)
        arrive(vbar(empty, st, STAGES))


@gluon.jit
def load_kv(desc_k, desc_v, k_smem, v_smem, ready, empty, kv_bh, t_lo, n_tiles, kv, BN: gl.constexpr,
            D: gl.constexpr, STAGES: gl.constexpr):
    """The producer's TMA loads of K_j/V_j of key/value head kv_bh, j = t_lo .. t_lo + n_tiles - 1, into ring
    positions kv, kv + 1, ... K and V have their own barriers (ready/empty: (K, V) pairs, kbar / vbar): a K slot
    is free once every consumer's Q·Kᵀ on it finished, before its P·V, so the next K load starts earlier."""
    for j in range(n_tiles):
        c = kv + j
        st = c % STAGES
        ph = ((c // STAGES) & 1) ^ 1                  # fresh barriers pass phase 1 at once
        k0 = (t_lo + j) * BN
        enter_scope("tma_wait_slot")                  # until every consumer's Q·Kᵀ has left this stage's K
        mbarrier.wait(kbar(empty, st), ph)
        exit_scope("tma_wait_slot")
        enter_scope("tma_issue")                      # the copy of K_j (it completes asynchronously)
        mbarrier.expect(kbar(ready, st), desc_k.block_type.nbytes)
        tma_load(desc_k, [kv_bh, k0, 0], kbar(ready, st), k_smem.index(st).reshape([1, BN, D]))
        exit_scope("tma_issue")
        enter_scope("tma_wait_slot_v")                # until every consumer's P·V has left this stage's V
        mbarrier.wait(vbar(empty, st, STAGES), ph)
        exit_scope("tma_wait_slot_v")
        enter_scope("tma_issue_v")                    # the copy of V_j
        mbarrier.expect(vbar(ready, st, STAGES), desc_v.block_type.nbytes)
        tma_load(desc_v, [kv_bh, k0, 0], vbar(ready, st, STAGES), v_smem.index(st).reshape([1, BN, D]))
        exit_scope("tma_issue_v")
