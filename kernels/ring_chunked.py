"""The memory-bounded ring forward: a rank's K/V block goes around the ring in S key sub-chunks, one pass each.

    chunk_count(q, layout, chunks=None) -> S (None: 1, the plain ring; "auto": the memory-bounded rule, see there)
    forward_chunked(q, k, v, *, causal, sm_scale, impl, layout, ring, mode, probe, chunks) -> (out, lse)

kernels/ring.py's forward_loop calls it when S > 1 (ring: its Ring; mode and probe as there). The backward of a call
with chunks is kernels/ring_chunked_bwd.py's (it needs only the forward's out and lse, so any S works).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from .errors import KernelInputError
from .ring_block import acc_dtype, block_forward, merge
from .ring_plan import chunks_of, key_rows, plan, within

CHUNK_BYTES = 256 << 20  # K and V bytes of one sub-chunk at most, when S is chosen automatically
TAG_KV = 1


def mark(probe, what: str) -> None:
    if probe is not None:
        probe(what)


def chunk_count(q, layout: str, chunks=None) -> int:
    """S, the key sub-chunks of the forward. chunks=None: 1, the plain ring, the faster one (two H200s, 512k, fp16:
    the chunked forward at S = 16 took 8-24 % longer; see the README). chunks="auto", the memory-bounded rule:
    S = ceil(block bytes / CHUNK_BYTES) for a K/V block (K and V of one shard), so a sub-chunk's K and V take at most
    CHUNK_BYTES, at most the rows of one layout chunk; but S <= 2 runs the plain ring (1): the chunked forward holds
    about 8/S of a shard beyond the shards and output, the plain ring 3 (W = 2), so two sub-chunks would hold more,
    and add launches. B=1, H=32, d=128, fp16 over 2 ranks: N <= 64k plain, 128k -> 4, 256k -> 8, 512k -> 16. An
    int asks for that S (1 <= S <= rows of one layout chunk; it need not divide them). The same on every rank: it
    depends on the shard's shape only."""
    c = q.shape[2] // len(chunks_of(0, 1, layout))
    if chunks is None:
        return 1
    if isinstance(chunks, str) and chunks == "auto":
        s = min(c, -(-2 * q.numel() * q.element_size() // CHUNK_BYTES))
        return s if s > 2 else 1
    if isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer)) or not 1 <= int(chunks) <= max(1, c):
        raise KernelInputError(f"chunks must be None, 'auto' or an int in 1..{max(1, c)} (the rows of one {layout} "
                               f"chunk of this shard); got {chunks!r}")
    return int(chunks)


class _Acc:
    """One query slab's running (out, lse) in float32 (float64 for float64 inputs), rows 0..m-1. The first result
    for a run of rows is copied in (it becomes the accumulator there, as step 0's block does in the plain ring);
    later ones merge; rows no piece reached end as the merge's identity (out 0, lse -inf)."""

    def __init__(self, q, m: int):
        ct = acc_dtype(q.dtype)
        self.out = torch.empty((q.shape[0], q.shape[1], m, q.shape[3]), dtype=ct, device=q.device)
        self.lse = torch.empty((q.shape[0], q.shape[1], m), dtype=ct, device=q.device)
        self.todo = [(0, m)]                                    # row runs nothing has written yet

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
    """The memory-bounded forward, S = chunks. The local rows are cut into S parts by key_rows (part j: the same
    slice of each layout chunk), used twice: query slab j and key sub-chunk i. For each query slab j, for each key
    sub-chunk i, one pass of the ring: W steps that move only sub-chunk i of every block (packed: NCCL sends
    contiguous tensors), with the plain ring's overlap of transfer and compute; plan(..., part=(i, S)) cut to the
    slab's rows (within) says what to compute. The slab's result accumulates in float32 and is written into the
    output once, rounded once, like the plain ring's float32 accumulator (a row merges up to about S W pieces).
    Transfers: S times the plain ring's bytes (every block goes around once per slab), hidden under compute that
    is S^2 times finer. Memory per rank beyond q, k, v and the output, in shards: two transfer buffers of one
    sub-chunk's K and V (4/S; allocated once and used in turn, so NCCL's hold on a freed buffer never makes the
    allocator take more), the slab's float32 accumulator (2/S at 16 bits), one piece's output and the contiguous
    copy of its q rows the kernel takes (1/S each, half that zigzag: a piece covers one of a slab's two ranges)
    and, zigzag causal, the copies of one chunk's rows of the sub-chunk's K and V (1/S): about 8/S of a shard,
    against the plain ring's 3 (W = 2)."""
    n, w = q.shape[2], ring.world
    parts = [key_rows(n, layout, (i, chunks)) for i in range(chunks)]
    bh, d = q.shape[0] * q.shape[1], q.shape[3]
    m_max = max(sum(b - a for a, b in segs) for segs in parts)
    bufs = [torch.empty(2 * bh * m_max * d, dtype=k.dtype, device=k.device)
            for _ in range(1 if mode == "compute" else 2)]
    out = torch.empty_like(q)
    lse = torch.empty(q.shape[:3], dtype=acc_dtype(q.dtype), device=q.device)
    for rows in parts:                                          # query slab: one or two row ranges
        acc = _Acc(q, sum(b - a for a, b in rows))
        for i, segs in enumerate(parts):                        # key sub-chunk i
            m = sum(b - a for a, b in segs)
            held, spare = (x[: 2 * bh * m * d].view(2, q.shape[0], q.shape[1], m, d) for x in (bufs[0], bufs[-1]))
            o = 0
            for a, b in segs:                                   # the own sub-chunk, packed
                held[0, :, :, o:o + b - a] = k[:, :, a:b]
                held[1, :, :, o:o + b - a] = v[:, :, a:b]
                o += b - a
            pieces = {src: plan(ring.rank, src, w, layout, causal, n, part=(i, chunks)) for src in range(w)}
            for s in range(w):
                src = (ring.rank - s) % w
                works = None
                if s + 1 < w and mode != "compute":
                    works = ring.exchange((held,), (spare,), TAG_KV)    # in flight while this sub-chunk computes
                if mode != "comm":
                    off = 0
                    for lo, hi in rows:
                        for p in within(pieces[src], lo, hi):
                            o_b, l_b = block_forward(q[:, :, p.q_lo:p.q_hi], held[0, :, :, p.k_lo:p.k_hi],
                                                     held[1, :, :, p.k_lo:p.k_hi], p.causal, sm_scale, impl)
                            acc.fold(off + p.q_lo - lo, off + p.q_hi - lo, o_b, l_b)
                            del o_b, l_b
                        off += hi - lo
                mark(probe, "computed")
                for x in works or ():
                    x.wait()
                mark(probe, "received")
                if works is not None:
                    held, spare = spare, held
        a_out, a_lse = acc.finish()
        off = 0
        for lo, hi in rows:                                     # the slab's result, rounded once
            out[:, :, lo:hi] = a_out[:, :, off:off + hi - lo]
            lse[:, :, lo:hi] = a_lse[:, :, off:off + hi - lo]
            off += hi - lo
        del acc, a_out, a_lse
    return out, lse
