"""The memory-bounded ring forward: a rank's K/V block goes around the ring in S key sub-chunks, one pass each.

    chunk_count(q, layout, chunks=None) -> S (the rule is in its docstring)
    forward_chunked(q, k, v, *, causal, sm_scale, impl, layout, ring, mode, probe, chunks) -> (out, lse)

kernels/ring.py's forward_loop calls it when S > 1 (ring: its Ring; mode and probe as there). The backward stays the
plain ring's (it needs only the forward's out and lse).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from .errors import KernelInputError
from .ring_block import acc_dtype, block_forward, merge
from .ring_plan import chunks_of, key_rows, plan, slabs

CHUNK_BYTES = 256 << 20  # K and V bytes of one sub-chunk at most, when S is chosen automatically
TAG_KV = 1


def _mark(probe, what: str) -> None:
    if probe is not None:
        probe(what)


def chunk_count(q, layout: str, chunks=None) -> int:
    """S, the key sub-chunks of the forward. chunks=None: S = ceil(block bytes / CHUNK_BYTES) for a K/V block (K and
    V of one shard), so a sub-chunk's K and V take at most CHUNK_BYTES, at most the rows of one layout chunk; but
    S <= 2 runs the plain ring (1): the chunked forward holds about 6/S of a shard beyond the shards and output,
    the plain ring 3 (W = 2), so two sub-chunks would only add launches. B=1, H=32, d=128, fp16 over 2 ranks:
    N <= 64k plain, 128k -> 4, 256k -> 8, 512k -> 16. An int asks for that S (1 <= S <= rows of one layout chunk;
    it need not divide them). The same on every rank: it depends on the shard's shape only."""
    c = q.shape[2] // len(chunks_of(0, 1, layout))
    if chunks is None:
        s = min(c, -(-2 * q.numel() * q.element_size() // CHUNK_BYTES))
        return s if s > 2 else 1
    if isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer)) or not 1 <= int(chunks) <= max(1, c):
        raise KernelInputError(f"chunks must be None or an int in 1..{max(1, c)} (the rows of one {layout} chunk "
                               f"of this shard); got {chunks!r}")
    return int(chunks)


class _Acc:
    """The chunked forward's running (out, lse). The first result for a run of rows is copied in (it becomes the
    accumulator there, as step 0's block does in the plain ring); later ones merge; rows no piece reached end
    as the merge's identity (out 0, lse -inf)."""

    def __init__(self, q, acc_t):
        self.out = torch.empty(q.shape, dtype=acc_t, device=q.device)
        self.lse = torch.empty(q.shape[:3], dtype=acc_dtype(q.dtype), device=q.device)
        self.todo = [(0, q.shape[2])]                           # row runs nothing has written yet

    def _take(self, lo, hi):
        """The unwritten parts of rows [lo, hi), now marked written."""
        fresh, keep = [], []
        for a, b in self.todo:
            if b <= lo or a >= hi:
                keep.append((a, b))
                continue
            fresh.append((max(a, lo), min(b, hi)))
            keep += [r for r in ((a, lo), (hi, b)) if r[0] < r[1]]
        self.todo = sorted(keep)
        return fresh

    def _identity(self, a, b):
        self.out[:, :, a:b] = 0
        self.lse[:, :, a:b] = -math.inf

    def fold(self, lo, hi, o_b, l_b):
        fresh = self._take(lo, hi)
        if fresh == [(lo, hi)]:
            self.out[:, :, lo:hi] = o_b
            self.lse[:, :, lo:hi] = l_b
            return
        for a, b in fresh:
            self._identity(a, b)
        merge(self.out[:, :, lo:hi], self.lse[:, :, lo:hi], o_b, l_b)

    def finish(self):
        for a, b in self._take(0, self.out.shape[2]):
            self._identity(a, b)
        return self.out, self.lse


def forward_chunked(q, k, v, *, causal, sm_scale, impl, layout, ring, mode, probe, chunks: int):
    """The memory-bounded forward: S = chunks passes; pass i sends only key sub-chunk i (key_rows: the same
    slice of each layout chunk) around the ring for W steps, with the same overlap of transfer and compute as the
    plain ring, and plan(..., part=(i, S)) says what each rank computes against it, in query slabs of ceil(n/S)
    rows. Memory per rank beyond q, k, v and the output: two transfer buffers of one sub-chunk's K and V (4/S of a
    shard: the one computed on and sent on, the one arriving; allocated once and used in turn, so NCCL's hold on a
    freed buffer never makes the allocator take more), one slab's output (1/S), the contiguous copy of the q slab
    the kernel takes (1/S) and, zigzag causal, of one chunk's rows of the sub-chunk's K and V (1/S): about 6/S of
    a shard, 7/S zigzag causal (the plain ring: 3 shards at W = 2). The accumulator stays in the inputs' dtype at
    every W (a float32 one would be another shard and more): each merge computes in float32 and rounds once, so
    a row is rounded once per piece that reaches it (one or two per pass and step) instead of once;
    tests/test_ring_chunks.py and the GPU tests hold the error to the plain ring's bounds."""
    n, w = q.shape[2], ring.world
    rows_max = max(b - a for i in range(chunks) for a, b in key_rows(n, layout, (i, chunks))[:1])
    per = len(key_rows(n, layout, (0, chunks)))
    shape = (2, q.shape[0], q.shape[1], per * rows_max, q.shape[3])
    bufs = [torch.empty(shape, dtype=k.dtype, device=k.device) for _ in range(1 if w == 1 or mode == "compute" else 2)]
    acc = _Acc(q, q.dtype)
    slab = -(-n // chunks)
    for i in range(chunks):
        segs = key_rows(n, layout, (i, chunks))
        m = sum(b - a for a, b in segs)
        views = [x.view(-1)[: 2 * q.shape[0] * q.shape[1] * m * q.shape[3]].view(2, q.shape[0], q.shape[1], m,
                                                                                  q.shape[3]) for x in bufs]
        held, spare = views[0], views[-1]
        o = 0
        for a, b in segs:                                       # the own sub-chunk, packed (NCCL sends contiguous)
            held[0, :, :, o:o + b - a] = k[:, :, a:b]
            held[1, :, :, o:o + b - a] = v[:, :, a:b]
            o += b - a
        for s in range(w):
            src = (ring.rank - s) % w
            works = None
            if s + 1 < w and mode != "compute":
                works = ring.exchange((held,), (spare,), TAG_KV)    # in flight while this sub-chunk computes
            if mode != "comm":
                for p in slabs(plan(ring.rank, src, w, layout, causal, n, part=(i, chunks)), slab):
                    o_b, l_b = block_forward(q[:, :, p.q_lo:p.q_hi], held[0, :, :, p.k_lo:p.k_hi],
                                             held[1, :, :, p.k_lo:p.k_hi], p.causal, sm_scale, impl)
                    acc.fold(p.q_lo, p.q_hi, o_b, l_b)
                    del o_b, l_b
            _mark(probe, "computed")
            for x in works or ():
                x.wait()
            _mark(probe, "received")
            if works is not None:
                held, spare = spare, held
    return acc.finish()
