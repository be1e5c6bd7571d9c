"""Flash-decoding (split the keys over workers, merge their states) and paged attention, for one query.

numpy, no UI. The per-worker recurrence is flashviz.engine.online_softmax's; this file only splits, merges and
adds the block-table indirection. Symbols as there: a partial state is the triple
  m  the max score of the worker's keys,  l  sum exp(s - m) over them (the paper's ℓ),
  o  sum exp(s - m) v over them (unnormalised, (d,)); its answer is o / l.
Merging two states is the same rescale as the recurrence's alpha:
  m = max(m_a, m_b),  l = e^(m_a - m) l_a + e^(m_b - m) l_b,  o = e^(m_a - m) o_a + e^(m_b - m) o_b.
A worker whose keys are all masked has m = -inf, l = 0, o = 0 (with the guard; the empty state). Merging
two of them computes exp(-inf - -inf) = NaN unless guarded: guard=True uses 0 in place of an infinite m,
so the empty state is the identity of the merge. The merge is commutative (bit for bit) and
associative up to rounding, so the W partial states can be combined in any order or as a tree.

Why split at all (decode_grid): FlashAttention-2 launches one program per (query block, batch, head). At decode
time each sequence has one new query, so that is B·H programs, far fewer than a GPU's SMs (B = 1, H = 32: 32
programs for the 132 SMs of an H100/H200); splitting the keys over W workers launches B·H·W programs (and a small
merge).

Paged: the keys and values live in fixed-size physical blocks in any order; a block table maps logical
block b (keys b*Bs .. b*Bs + Bs - 1) to its physical block. The loop walks the logical blocks, fetches
each through the table (one indirection) and feeds the recurrence one block per tile, so it gives the
contiguous answer. Unused physical slots and the tail of the last block hold NaN: touching them would show.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..infra.errors import InputError, check_int
from .online_softmax import MAX_D, MAX_N, Trace, apply_mask, online_softmax_trace

MAX_PHYSICAL = 1 << 16          # physical blocks in a paged cache


# ----------------------------------------------------------------------------- states and the merge

@dataclass(frozen=True, eq=False)
class State:
    """A partial softmax state (m, l, o) over some keys; o is (d,)."""

    m: float
    l: float
    o: np.ndarray

    @property
    def output(self) -> np.ndarray:
        """o / l: the softmax over this state's keys, times V; zeros if no key was visible (l = 0)."""
        if self.l == 0:
            return np.zeros_like(self.o)
        return self.o / self.l


def empty_state(d: int) -> State:
    """The state of no visible keys: the identity of the (guarded) merge."""
    return State(-math.inf, 0.0, np.zeros(d))


def state_from_trace(trace: Trace) -> State:
    """The (m, l, o) a worker holds after its last tile."""
    return State(float(trace.m[-1]), float(trace.l[-1]), trace.o[-1].copy())


def merge(a: State, b: State, *, guard: bool = True) -> State:
    """Combine the states of two disjoint key sets with the recurrence's rescale."""
    m = max(a.m, b.m)                                   # the max over both key sets
    m_ref = 0.0 if guard and m == -math.inf else m      # guard: both empty -> exp(-inf - 0) = 0
    with np.errstate(invalid="ignore"):
        alpha_a, alpha_b = np.exp(a.m - m_ref), np.exp(b.m - m_ref)   # rescale each to the new max
        return State(m, float(alpha_a * a.l + alpha_b * b.l), alpha_a * a.o + alpha_b * b.o)


def merge_all(states, *, guard: bool = True, tree: bool = False) -> State:
    """Merge states left to right, or pairwise as a tree (how a GPU reduction would)."""
    states = list(states)
    if not states:
        raise InputError(key="errors.nothing_to_merge")
    while tree and len(states) > 1:
        pairs = [merge(states[k], states[k + 1], guard=guard) for k in range(0, len(states) - 1, 2)]
        states = pairs + states[len(pairs) * 2:]
    out = states[0]
    for s in states[1:]:
        out = merge(out, s, guard=guard)
    return out


# ----------------------------------------------------------------------------- flash-decoding

def split_keys(n: int, workers: int) -> tuple[np.ndarray, np.ndarray]:
    """Contiguous chunks [start, stop) of N keys over W workers, sizes differing by at most one."""
    n = check_int("N", n, 1, MAX_N)
    workers = check_int("number of workers W", workers, 1, n)
    sizes = np.full(workers, n // workers)
    sizes[: n % workers] += 1                           # the first N mod W workers take one more key
    stops = np.cumsum(sizes)
    return stops - sizes, stops


@dataclass(frozen=True)
class Grid:
    programs: int               # thread blocks (CTAs) the attention launch starts
    sms: int
    busy: int                   # SMs with a program on the first wave: min(programs, SMs)
    waves: int                  # ceil(programs / SMs), one program per SM at a time

    @property
    def busy_share(self) -> float:
        return self.busy / self.sms


def decode_grid(batch: int, heads: int, gpu: str = "H200", *, workers: int = 1, queries: int = 1,
                block_m: int = 128) -> Grid:
    """The decode step's launch: ceil(queries / block_m) query blocks x B x H programs (FlashAttention-2's grid),
    times W when flash-decoding splits the keys over W workers; on the SMs of a GPU preset (flashviz.engine.tiling),
    counting one program per SM at a time (an SM may hold more if they fit: this counts SMs given work, not
    occupancy)."""
    from .tiling import GPU_PRESETS
    if gpu not in GPU_PRESETS:
        raise InputError(key="errors.unknown_preset", got=repr(gpu), choices=", ".join(GPU_PRESETS))
    b, h = check_int("batch B", batch, 1, 1 << 20), check_int("heads H", heads, 1, 1 << 16)
    w = check_int("number of workers W", workers, 1, 1 << 16)
    q, bm = check_int("Nq", queries, 1, 1 << 24), check_int("block_m", block_m, 1, 1 << 16)
    sms = GPU_PRESETS[gpu]["sms"]
    programs = -(-q // bm) * b * h * w
    return Grid(programs, sms, min(programs, sms), -(-programs // sms))


@dataclass(frozen=True, eq=False)
class DecodeResult:
    """Flash-decoding of one query: W partial states, their merge, and the single pass to compare."""

    start: np.ndarray        # (W,) first key of each worker
    stop: np.ndarray         # (W,) one past its last key
    traces: tuple            # W Traces: each worker's own recurrence over its chunk
    partials: tuple          # W States (m_w, l_w, o_w)
    running: tuple           # W States: merge of workers 0..w (running[-1] is the merged state)
    merged: State
    single: Trace            # the one-pass recurrence over all keys (same tile size)
    guard: bool

    @property
    def workers(self) -> int:
        return len(self.partials)

    @property
    def output(self) -> np.ndarray:
        return self.merged.output

    @property
    def exact(self) -> np.ndarray:
        return self.single.exact

    @property
    def weights(self) -> np.ndarray:
        """(W,) each worker's share of the softmax mass, e^(m_w - m) l_w / l (sums to 1)."""
        m, l = self.merged.m, self.merged.l
        if l == 0 or not np.isfinite(l):
            return np.zeros(self.workers) if l == 0 else np.full(self.workers, np.nan)
        return np.array([0.0 if p.l == 0 else math.exp(p.m - m) * p.l / l for p in self.partials])


def flash_decode(scores, values, workers: int, *, tile_size: int | None = None,
                 guard: bool = True, tree: bool = False) -> DecodeResult:
    """Split one query's keys over W workers; each runs the recurrence (tiles of `tile_size`, default its
    whole chunk), then the W states are merged. Also runs the single pass for comparison."""
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1:
        raise InputError(key="errors.scores_1d", shape=str(s.shape))
    if s.shape[0] < 1:
        raise InputError(key="errors.no_keys")
    start, stop = split_keys(s.shape[0], workers)
    longest = int((stop - start).max())
    tile = longest if tile_size is None else check_int("tile size", tile_size, 1, s.shape[0])
    single = online_softmax_trace(s, values, tile, guard=guard)        # validates scores and values
    v = single.values
    traces = tuple(online_softmax_trace(s[a:b], v[a:b], min(tile, b - a), guard=guard)
                   for a, b in zip(start, stop))                       # each worker, independently
    partials = tuple(state_from_trace(tr) for tr in traces)
    running = [partials[0]]
    for p in partials[1:]:
        running.append(merge(running[-1], p, guard=guard))             # the rescale, worker by worker
    merged = merge_all(partials, guard=guard, tree=True) if tree else running[-1]
    return DecodeResult(start, stop, traces, partials, tuple(running), merged, single, guard)


# ----------------------------------------------------------------------------- paged attention

@dataclass(frozen=True, eq=False)
class PagedCache:
    """K and V stored as physical blocks behind a block table."""

    block_size: int          # Bs keys per block
    seq_len: int             # N
    block_table: np.ndarray  # (num_logical,) physical block of each logical block
    k_cache: np.ndarray      # (num_physical, Bs, d); NaN where no key is stored
    v_cache: np.ndarray      # (num_physical, Bs, d)

    @property
    def num_logical(self) -> int:
        return int(self.block_table.shape[0])

    @property
    def num_physical(self) -> int:
        return int(self.k_cache.shape[0])

    @property
    def valid(self) -> np.ndarray:
        """(num_logical,) keys stored in each logical block (the last may be short)."""
        b = np.arange(self.num_logical)
        return np.minimum(self.block_size, self.seq_len - b * self.block_size)

    @property
    def owner(self) -> np.ndarray:
        """(num_physical,) the logical block held by each physical slot, -1 if free."""
        own = np.full(self.num_physical, -1)
        own[self.block_table] = np.arange(self.num_logical)
        return own


def build_paged_cache(k, v, block_size: int, *, seed: int = 0, num_physical: int | None = None) -> PagedCache:
    """Scatter K, V (N, d) into shuffled physical blocks (seeded); num_physical >= ceil(N / Bs) slots."""
    k, v = np.asarray(k, dtype=np.float64), np.asarray(v, dtype=np.float64)
    if k.ndim != 2 or v.shape != k.shape:
        raise InputError(key="errors.kv_shapes", k=str(k.shape), v=str(v.shape))
    n, d = k.shape
    if not 1 <= n <= MAX_N or not 1 <= d <= MAX_D:
        raise InputError(key="errors.keys_shape", n=MAX_N, d=MAX_D, shape=str(k.shape))
    bs = check_int("block size", block_size, 1, n)
    logical = -(-n // bs)
    phys = logical if num_physical is None else check_int("physical blocks", num_physical, logical, MAX_PHYSICAL)
    rng = np.random.default_rng(check_int("seed", seed, 0, 2**63 - 1))
    table = rng.permutation(phys)[:logical]                 # where each logical block lands
    kc = np.full((phys, bs, d), np.nan)
    vc = np.full((phys, bs, d), np.nan)
    for b, p in enumerate(table):
        a, z = b * bs, min((b + 1) * bs, n)
        kc[p, : z - a], vc[p, : z - a] = k[a:z], v[a:z]
    return PagedCache(bs, n, table, kc, vc)


@dataclass(frozen=True, eq=False)
class PagedResult:
    cache: PagedCache
    order: np.ndarray        # (num_logical, 3): step -> (logical block, physical block, keys used)
    trace: Trace             # the recurrence, one tile per logical block

    @property
    def output(self) -> np.ndarray:
        return self.trace.output


def paged_attention(q, cache: PagedCache, *, masked=(), guard: bool = True) -> PagedResult:
    """One query against a paged cache: for each logical block, look up its physical block, score it,
    and feed it to the recurrence as one tile. `masked` lists logical key positions to mask."""
    q = np.asarray(q, dtype=np.float64)
    d = cache.k_cache.shape[2]
    if q.shape != (d,):
        raise InputError(key="errors.query_shape", d=d, shape=str(q.shape))
    scores, values, order = [], [], []
    for b, p in enumerate(cache.block_table):              # logical order
        nb = int(cache.valid[b])
        k_blk = cache.k_cache[p, :nb]                      # the one indirection: block_table[b]
        scores.append((k_blk @ q) / math.sqrt(d))
        values.append(cache.v_cache[p, :nb])
        order.append((b, int(p), nb))
    s = apply_mask(np.concatenate(scores), masked=masked)
    trace = online_softmax_trace(s, np.concatenate(values), cache.block_size, guard=guard)
    return PagedResult(cache, np.array(order, dtype=np.int64), trace)
