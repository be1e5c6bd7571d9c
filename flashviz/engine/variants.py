"""Attention variants on the 2-D schedule: which Br x Bc blocks a kernel may skip, and what that saves (numpy, no UI).

The variants follow flash-attn's definitions (the kernels' `window`, `alibi_slopes`, `softcap`, `seq_ids`):
  window (left, right)  query i sees key j iff i + Nk − Nq − left <= j <= i + Nk − Nq + right; −1 = unbounded.
                        causal is (−1, 0); causal and a window combine by intersection.
  softcap c > 0         s -> c·tanh(s / c), applied to the scaled score s = q·k·scale (bounds |s| by c).
  ALiBi slopes (H,)     adds −slope_h·|i + Nk − Nq − j| after the softcap: a bias that tilts every row.
  GQA / MQA             H_kv key/value heads, H % H_kv == 0; query head h reads kv head h // (H / H_kv).
  packed documents      seq_ids (N,) non-decreasing (Nq == Nk): attention only inside one document.
Order of one score: q·k·scale, then softcap, then + ALiBi, then the mask (flashviz.engine.online_softmax.variant_row
does it for one row, before the unchanged recurrence).

Every mask here leaves each query row one contiguous interval of visible keys [lo_i, hi_i] (a window, the
causal bound and a document are each an interval; so is their intersection), which makes the block map exact
and cheap: a block (I, J) is run iff some row of Q block I sees some key of K block J, "full" iff every row of
the block (clipped to N) sees every key of it (block kinds as flashviz.engine.tiling: FULL, MASKED = partial, SKIPPED).
Softcap, ALiBi and GQA change no block: they change the values inside a run block, not which blocks run.

Costs (variant_costs), per forward call of B x H heads, against dense (non-causal) attention:
  FLOPs     dense 4·B·H·N²·d (flashviz.engine.recompute.tile_matmul_flops, two matmuls); executed = the same per
            element over the run blocks' area (a kernel computes whole tiles); useful = visible (i, j) pairs.
  HBM       the FA2 order of flashviz.engine.tiling (read Q_i once, stream K_j, V_j of the run blocks, write O_i, L_i),
            counted as tiling's IOCounts; dense is tiling.Schedule(...).totals() of the same blocks.
  GQA       K/V cache bytes 2·B·H_kv·N·d·elem vs MHA's 2·B·H·N·d·elem, and the streamed K/V reads of the FA2
            order when each program of a group reloads its K/V (as MHA) or when one program serves the group.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..infra.errors import InputError, check_int
from .recompute import tile_matmul_flops
from .tiling import FULL, MASKED, MAX_GRID_CELLS, SKIPPED, Schedule, make_config, make_counts

MAX_N = 1 << 20
MAX_HEADS = 1024
MAX_DOCS = 4096
KINDS = ("full", "partial", "skipped")          # names of tiling's FULL, MASKED, SKIPPED here


def alibi_slopes(heads: int) -> np.ndarray:
    """The standard geometric ALiBi slopes (Press et al., 2022) for H heads: 2^(−8(h+1)/H) when H is a power of
    two; otherwise those of the nearest lower power of two, then every other slope of the next one."""
    h = check_int("heads H", heads, 1, MAX_HEADS)

    def pow2(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]

    p = 1 << (h.bit_length() - 1)
    out = pow2(p) if p == h else pow2(p) + pow2(2 * p)[0::2][:h - p]
    return np.array(out, dtype=np.float64)


def _window_side(name: str, v) -> int:
    x = check_int(name, v)
    if x < -1:
        raise InputError(key="errors.window_side", side=name, got=x)
    return x


def doc_ids(doc_lens, n: int) -> np.ndarray:
    """seq_ids (N,) int64 of packed documents of the given lengths (which must sum to N)."""
    lens = [check_int("document length", x, 1) for x in doc_lens]
    if not lens or len(lens) > MAX_DOCS:
        raise InputError(key="errors.doc_count", hi=MAX_DOCS, got=len(lens))
    if sum(lens) != n:
        raise InputError(key="errors.doc_lens_sum", total=sum(lens), n=n)
    return np.repeat(np.arange(len(lens), dtype=np.int64), lens)


def check_seq_ids(seq_ids, n: int) -> np.ndarray:
    """seq_ids as int64 (N,) or (B, N), non-decreasing along N, else InputError."""
    s = np.asarray(seq_ids)
    if s.ndim not in (1, 2) or s.shape[-1] != n:
        raise InputError(key="errors.seq_ids_shape", n=n, shape=str(s.shape))
    if s.dtype.kind not in "iu":
        raise InputError(key="errors.seq_ids_int", got=str(s.dtype))
    s = s.astype(np.int64)
    if (np.diff(s, axis=-1) < 0).any():
        raise InputError(key="errors.seq_ids_order")
    return s


@dataclass(frozen=True)
class Variant:
    """A validated variant. window is (left, right) with −1 unbounded (None: no window); softcap None = off;
    group = H / H_kv query heads per kv head (1 = MHA, H = MQA); doc_lens None = one sequence."""

    causal: bool = False
    window: tuple[int, int] | None = None
    softcap: float | None = None
    alibi: bool = False
    heads: int = 1
    group: int = 1
    doc_lens: tuple[int, ...] | None = None

    @property
    def kv_heads(self) -> int:
        return self.heads // self.group

    @property
    def bounds(self) -> tuple[int, int]:
        """(left, right) of the combined window and causal bound, −1 unbounded."""
        left, right = self.window if self.window is not None else (-1, -1)
        if self.causal:
            right = 0 if right < 0 else min(right, 0)
        return left, right

    @property
    def slopes(self) -> np.ndarray | None:
        return alibi_slopes(self.heads) if self.alibi else None

    def seq_ids(self, n: int) -> np.ndarray | None:
        return None if self.doc_lens is None else doc_ids(self.doc_lens, n)

    def kernel_kwargs(self, n: int) -> dict:
        """The keywords of flashviz_kernels.attention for this variant (numpy arrays; None where off)."""
        return dict(causal=self.causal, window=self.window, softcap=self.softcap, alibi_slopes=self.slopes,
                    seq_ids=self.seq_ids(n))


def make_variant(*, causal: bool = False, window=None, softcap=None, alibi: bool = False, heads: int = 1,
                 group: int = 1, doc_lens=None, n: int | None = None) -> Variant:
    """Validate a variant; with `n`, document lengths must sum to it."""
    if window is not None:
        if len(tuple(window)) != 2:
            raise InputError(key="errors.window_pair", got=repr(window))
        window = (_window_side("window left", window[0]), _window_side("window right", window[1]))
        if window == (-1, -1):
            window = None
    if softcap is not None:
        try:
            c = float(softcap)
        except (TypeError, ValueError):
            raise InputError(key="errors.softcap_pos", got=repr(softcap)) from None
        if not (math.isfinite(c) and c > 0):
            raise InputError(key="errors.softcap_pos", got=repr(softcap))
        softcap = c
    h = check_int("heads H", heads, 1, MAX_HEADS)
    g = check_int("GQA group size", group, 1, MAX_HEADS)
    if h % g:
        raise InputError(key="errors.gqa_group", g=g, h=h)
    if doc_lens is not None:
        doc_lens = tuple(check_int("document length", x, 1) for x in doc_lens)
        if n is not None:
            doc_ids(doc_lens, check_int("N", n, 1, MAX_N))
    return Variant(bool(causal), window, softcap, bool(alibi), h, g, doc_lens)


def row_intervals(v: Variant, nq: int, nk: int, seq_ids=None) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi), each (Nq,) int64: query i sees exactly keys lo[i]..hi[i] (empty where lo > hi). seq_ids (N,)
    overrides the variant's documents (Nq == Nk)."""
    nq, nk = check_int("Nq", nq, 1, MAX_N), check_int("Nk", nk, 1, MAX_N)
    i = np.arange(nq, dtype=np.int64)
    off = nk - nq
    left, right = v.bounds
    lo = np.maximum(i + off - left, 0) if left >= 0 else np.zeros(nq, np.int64)
    hi = np.minimum(i + off + right, nk - 1) if right >= 0 else np.full(nq, nk - 1, np.int64)
    ids = v.seq_ids(nk) if seq_ids is None else check_seq_ids(seq_ids, nk)
    if ids is not None:
        if nq != nk:
            raise InputError(key="errors.seq_ids_square", nq=nq, nk=nk)
        if ids.ndim != 1:
            raise InputError(key="errors.seq_ids_shape", n=nk, shape=str(ids.shape))
        lo = np.maximum(lo, np.searchsorted(ids, ids, side="left"))          # first key of row i's document
        hi = np.minimum(hi, np.searchsorted(ids, ids, side="right") - 1)     # last key of it
    return lo, hi


@dataclass(frozen=True, eq=False)
class BlockMap:
    """The Tr x Tc blocks of one variant: kind (FULL / MASKED (partial) / SKIPPED, as flashviz.engine.tiling), the run
    blocks per Q block, and the (i, j) pairs the run blocks compute and the pairs visible."""

    n: int
    br: int
    bc: int
    kind: np.ndarray          # (Tr, Tc) int8
    visible_pairs: int        # (i, j) pairs the mask lets through
    lo: np.ndarray            # (N,) per-row visible interval
    hi: np.ndarray

    @property
    def tr(self) -> int:
        return int(self.kind.shape[0])

    @property
    def tc(self) -> int:
        return int(self.kind.shape[1])

    @property
    def run(self) -> np.ndarray:
        return self.kind != SKIPPED

    @property
    def run_per_row(self) -> np.ndarray:
        """(Tr,) run blocks (partial + full) per Q block: the inner-loop length of each program."""
        return self.run.sum(axis=1)

    def count(self, name: str) -> int:
        return int((self.kind == {"full": FULL, "partial": MASKED, "skipped": SKIPPED}[name]).sum())

    @property
    def rows(self) -> np.ndarray:
        """(Tr,) query rows of each Q block (the last may be short)."""
        return np.minimum(np.arange(1, self.tr + 1) * self.br, self.n) - np.arange(self.tr) * self.br

    @property
    def cols(self) -> np.ndarray:
        return np.minimum(np.arange(1, self.tc + 1) * self.bc, self.n) - np.arange(self.tc) * self.bc

    @property
    def executed_pairs(self) -> int:
        """(i, j) pairs inside run blocks: what a kernel that computes whole tiles computes."""
        return int((self.rows[:, None] * self.cols[None, :] * self.run).sum())

    @property
    def kv_rows_streamed(self) -> int:
        """K (or V) rows loaded over all programs of the FA2 order: the keys of every run block."""
        return int((self.cols[None, :] * self.run).sum())


def block_map(v: Variant, n: int, br: int, bc: int, seq_ids=None) -> BlockMap:
    """Classify every (Q block, K block) of Br x Bc for N queries against N keys (Nq == Nk)."""
    n = check_int("N", n, 1, MAX_N)
    br, bc = check_int("block size Br", br, 1, n), check_int("block size Bc", bc, 1, n)
    tr, tc = -(-n // br), -(-n // bc)
    if tr * tc > MAX_GRID_CELLS:
        raise InputError(key="errors.grid_cap", tr=tr, tc=tc, cap=MAX_GRID_CELLS)
    lo, hi = row_intervals(v, n, n, seq_ids)
    rows = np.arange(n) // br                                    # Q block of each row
    some = lo <= hi
    # a row touches K blocks lo//Bc .. hi//Bc (partly or fully): union per Q block by a difference array
    touch = np.zeros((tr, tc + 1), np.int64)
    np.add.at(touch, (rows[some], lo[some] // bc), 1)
    np.add.at(touch, (rows[some], hi[some] // bc + 1), -1)
    run = np.cumsum(touch, axis=1)[:, :tc] > 0
    # a row covers K block J whole iff lo <= J·Bc and hi >= min((J+1)·Bc, N) − 1; J runs over an interval
    first = -(-lo // bc)
    last = np.where(hi >= n - 1, tc - 1, (hi + 1) // bc - 1)
    ok = some & (first <= last)
    cover = np.zeros((tr, tc + 1), np.int64)
    np.add.at(cover, (rows[ok], first[ok]), 1)
    np.add.at(cover, (rows[ok], last[ok] + 1), -1)
    per_block_rows = np.minimum(np.arange(1, tr + 1) * br, n) - np.arange(tr) * br
    full = np.cumsum(cover, axis=1)[:, :tc] == per_block_rows[:, None]
    kind = np.full((tr, tc), SKIPPED, np.int8)
    kind[run] = MASKED
    kind[full] = FULL
    return BlockMap(n, br, bc, kind, int(np.maximum(hi - lo + 1, 0).sum()), lo, hi)


def batch_block_kinds(v: Variant, n: int, br: int, bc: int, seq_ids) -> np.ndarray:
    """(B, Tr, Tc) block kinds for seq_ids (B, N): each batch row packs its own documents."""
    ids = check_seq_ids(seq_ids, check_int("N", n, 1, MAX_N))
    ids = ids[None] if ids.ndim == 1 else ids
    return np.stack([block_map(v, n, br, bc, seq_ids=row).kind for row in ids])


def visible_pairs(v: Variant, n: int) -> int:
    """(i, j) pairs of an N x N problem the mask lets through (any N: from the row intervals)."""
    lo, hi = row_intervals(v, n, n)
    return int(np.maximum(hi - lo + 1, 0).sum())


def visible_matrix(v: Variant, nq: int, nk: int | None = None, seq_ids=None) -> np.ndarray:
    """(Nq, Nk) bool, element by element (small N: charts and checks)."""
    nk = nq if nk is None else nk
    if nq * nk > MAX_GRID_CELLS:
        raise InputError(key="errors.grid_cap", tr=nq, tc=nk, cap=MAX_GRID_CELLS)
    lo, hi = row_intervals(v, nq, nk, seq_ids)
    j = np.arange(nk)[None, :]
    return (j >= lo[:, None]) & (j <= hi[:, None])


def variant_costs(v: Variant, n: int, d: int, br: int, bc: int, *, batch: int = 1, elem_bytes: int = 2) -> dict:
    """FLOPs and HBM bytes of one forward over B x H heads vs dense, and GQA's K/V bytes vs MHA (module doc)."""
    d = check_int("head dim d", d, 1, 256)
    b = check_int("batch B", batch, 1, 1 << 16)
    bm = block_map(v, n, br, bc)
    h, hkv = v.heads, v.kv_heads
    dense_flops = 2 * tile_matmul_flops(n, d, False, b, h)         # S = QKᵀ and O = PV over every pair
    per_pair = dense_flops / (n * n)
    cfg = make_config(n, d, br=br, bc=bc, elem_bytes=elem_bytes, batch=b, heads=h)
    dense_io = Schedule(cfg, "fa2").totals()                       # per head, elements and bytes
    kv = bm.kv_rows_streamed * d
    io = make_counts({"Q": n * d, "K": kv, "V": kv}, {"O": n * d, "L": n}, elem_bytes, cfg.stats_bytes)
    heads = b * h
    cache_mha = 2 * b * h * n * d * elem_bytes
    cache_gqa = 2 * b * hkv * n * d * elem_bytes
    streamed = (io.reads_bytes["K"] + io.reads_bytes["V"]) * heads     # every program loads its K/V
    return dict(
        blocks=bm, dense_flops=dense_flops, executed_flops=per_pair * bm.executed_pairs * 1.0,
        useful_flops=per_pair * bm.visible_pairs,
        dense_bytes=dense_io.total_bytes * heads, variant_bytes=io.total_bytes * heads,
        dense_io=dense_io, variant_io=io,
        kv_cache_mha=cache_mha, kv_cache_gqa=cache_gqa,
        kv_reads_per_head=streamed, kv_reads_shared=streamed // v.group,
    )
