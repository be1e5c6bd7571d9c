"""The memory-bounded ring backward: K/V and their dK/dV go around the ring in S key sub-chunks, one pass each.

    backward_count(q, layout, chunks=None) -> S of the backward (1: the plain ring's, kernels/ring.py)
    backward_chunked(q, k, v, o, lse, do, delta, dlse, *, causal, sm_scale, impl, layout, ring, mode, probe,
                     chunks) -> (dq, dk, dv) in q's dtype

kernels/ring.py's backward_loop calls it when S > 1, so a forward called with chunks (ring_attention(..., chunks=))
gets this backward too. Pass i moves only key sub-chunk i of every block (key_rows: the same slice of each layout
chunk, as the chunked forward cuts them) and, one step behind it, that sub-chunk's dK/dV partial sums; a rank
computes all its query rows against the sub-chunk it holds, one query slab (key_rows' parts again, so the causal
diagonal pieces never straddle a slab) per block_backward call, which bounds the call's temporaries (its gq, the
contiguous copies of the slab's q, o, dO rows) to 1/S of a shard. Unlike the chunked forward no block goes around
more than once: the transfers are the plain backward's bytes, cut into S W pieces, each overlapping the compute of
one step (the last hop of pass i overlaps step 0 of pass i + 1).

Memory per rank beyond q, k, v, o, dO and the returned dk, dv: dQ as a float32 accumulator (2 shards at 16 bits; the
returned dq is rounded into the first half of its storage, rows in order, so no third shard is taken at the end);
two buffers of one sub-chunk's K and V (4/S) and three float32 buffers of one sub-chunk's dK and dV (12/S at 16 bits:
the step's own part, the sums leaving, the sums arriving), all allocated once and used in turn; one call's
temporaries (about 6/S). About 9 + 22/S shards in all, against the plain ring's 15 (W = 2, a flash backward):
S = 64 -> 9.34 shards, 0.58 of one GPU's 16 at large N. flashviz.engine.ring_memory.backward_memory is the account of it.
"""
from __future__ import annotations

import torch

from .ring_block import acc_dtype, block_backward
from .ring_chunked import TAG_KV, mark, chunk_count
from .ring_plan import chunks_of, key_rows, plan, within

BWD_CHUNK_BYTES = 64 << 20  # K and V bytes of one backward sub-chunk at most, when S is chosen automatically
TAG_DKV = 2
NARROW_ELEMS = 1 << 24      # elements rounded per copy when dQ is narrowed into its own storage


def backward_count(q, layout: str, chunks=None) -> int:
    """S of the backward. None (the default) or any chunks for which the forward runs the plain ring: 1, the plain
    backward. An int S: the same S. "auto" (once the forward chunks, i.e. a K/V block exceeds 2 CHUNK_BYTES): its own
    rule, S = ceil(block bytes / BWD_CHUNK_BYTES), never below the forward's (4x the forward's auto S where neither
    is capped by the rows of one layout chunk): the backward holds 9 + 22/S shards, so it needs a larger S than the
    forward's 4 + 8/S to stay near half of one GPU. B=1, H=32, d=128, fp16 over 2 ranks: 128k -> 16, 256k -> 32,
    512k -> 64."""
    s_f = chunk_count(q, layout, chunks)                        # validates chunks
    if s_f <= 1 or not isinstance(chunks, str):
        return s_f
    c = q.shape[2] // len(chunks_of(0, 1, layout))
    return min(c, max(s_f, -(-2 * q.numel() * q.element_size() // BWD_CHUNK_BYTES)))


def _rows(segs) -> int:
    return sum(b - a for a, b in segs)


def narrow_into_own_storage(acc: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """acc (contiguous, float32) rounded to a 16-bit dtype in the first half of acc's own storage, a slab of
    elements at a time in order: slab [a, b) is read whole before it is written, and it writes the bytes of float32
    elements [a/2, b/2), which (b <= 2a once a >= one slab) were read by earlier slabs. Returns a view of acc's
    storage: no second tensor of the result's size is ever allocated (the storage is freed with the view)."""
    flat = acc.reshape(-1)
    n = flat.numel()
    low = flat.view(dtype)[:n]
    for a in range(0, n, NARROW_ELEMS):
        b = min(n, a + NARROW_ELEMS)
        low[a:b] = flat[a:b].to(dtype)
    return low.view(acc.shape)


class _Sums:
    """Three float32 buffers of one sub-chunk's dK and dV, used in turn: a step's own part (`acc`), the sums on
    their way out and the sums arriving. One step behind the K/V: at step s the sums of the block held at s - 1
    leave while the block held at s is computed."""

    def __init__(self, k, m_max: int, count: int):
        self.k, self.m = k, None
        self.flat = [torch.empty(2 * k.shape[0] * k.shape[1] * m_max * k.shape[3], dtype=acc_dtype(k.dtype),
                                 device=k.device) for _ in range(count)]
        self.works, self.send, self.recv = None, None, None     # the hop in flight: indices into flat

    def view(self, i: int, m: int) -> torch.Tensor:
        b, h, _, d = self.k.shape
        return self.flat[i][: 2 * b * h * m * d].view(2, b, h, m, d)

    def free(self, *busy) -> int:
        return next(i for i in range(len(self.flat)) if i not in busy)


def backward_chunked(q, k, v, o, lse, do, delta, dlse, *, causal, sm_scale, impl, layout, ring, mode, probe,
                     chunks: int):
    """The memory-bounded backward, S = chunks (see the module docstring). delta: rowsum(dO O) for the torch
    recomputation (None for the flash backwards, which make their own per call); dlse: None or the gradient into
    lse. mode "compute" / "comm" and probe as in kernels/ring.py's backward_loop."""
    n, w = q.shape[2], ring.world
    b, h, d = q.shape[0], q.shape[1], q.shape[3]
    parts = [key_rows(n, layout, (i, chunks)) for i in range(chunks)]
    slabs = [seg for segs in parts for seg in segs]             # query rows, one range per call at most
    m_max = max(_rows(segs) for segs in parts)
    dq = torch.zeros(q.shape, dtype=acc_dtype(q.dtype), device=q.device)
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    kv = [torch.empty(2 * b * h * m_max * d, dtype=k.dtype, device=k.device)
          for _ in range(1 if mode == "compute" else 2)]
    sums = _Sums(k, m_max, 1 if mode == "compute" else 3)
    home = None                                                 # (index, segs): a sub-chunk's finished sums

    def unpack(i, segs):                                        # finished sums -> rows of dk, dv
        g, off = sums.view(i, _rows(segs)), 0
        for a, e in segs:
            dk[:, :, a:e] = g[0, :, :, off:off + e - a]
            dv[:, :, a:e] = g[1, :, :, off:off + e - a]
            off += e - a

    for i, segs in enumerate(parts):                            # pass i: key sub-chunk i of every block
        m = _rows(segs)
        held, spare = (x[: 2 * b * h * m * d].view(2, b, h, m, d) for x in (kv[0], kv[-1]))
        off = 0
        for a, e in segs:                                       # the own sub-chunk, packed
            held[0, :, :, off:off + e - a] = k[:, :, a:e]
            held[1, :, :, off:off + e - a] = v[:, :, a:e]
            off += e - a
        pieces = {src: plan(ring.rank, src, w, layout, causal, n, part=(i, chunks)) for src in range(w)}
        for s in range(w):
            src = (ring.rank - s) % w
            works = None
            if s + 1 < w and mode != "compute":
                works = ring.exchange((held,), (spare,), TAG_KV)   # K/V: in flight while this step computes
            a_i = 0 if mode == "compute" else sums.free(sums.send, sums.recv)
            acc = sums.view(a_i, m)
            if mode != "compute" or s == 0:
                acc.zero_()
            if mode != "comm":
                for lo, hi in slabs:
                    for p in within(pieces[src], lo, hi):
                        r = slice(p.q_lo, p.q_hi)
                        gq, gk, gv = block_backward(q[:, :, r], held[0, :, :, p.k_lo:p.k_hi],
                                                    held[1, :, :, p.k_lo:p.k_hi], o[:, :, r], lse[:, :, r],
                                                    do[:, :, r], None if delta is None else delta[:, :, r],
                                                    None if dlse is None else dlse[:, :, r], p.causal, sm_scale,
                                                    impl)
                        dq[:, :, r] += gq
                        acc[0, :, :, p.k_lo:p.k_hi] += gk
                        acc[1, :, :, p.k_lo:p.k_hi] += gv
                        del gq, gk, gv
            mark(probe, "computed")
            if mode != "compute":
                for x in sums.works or ():
                    x.wait()                                    # the previous hop: sent, and its sums are in
                if home is not None:                            # the last hop of the previous pass: finished
                    unpack(*home)
                    home = None
                comb = a_i
                if s > 0:
                    comb = sums.recv
                    sums.view(comb, m).add_(acc)                # the arrived sums plus this rank's part
                sums.send, sums.recv = comb, sums.free(comb, a_i if s == 0 else comb)
                sums.works = ring.exchange((sums.view(comb, m),), (sums.view(sums.recv, m),), TAG_DKV)
                if s == w - 1:                                  # sent to their owner: complete sums; ours arrive
                    home = (sums.recv, segs)
            for x in works or ():
                x.wait()
            mark(probe, "received")
            if works is not None:
                held, spare = spare, held
        if mode == "compute":
            unpack(0, segs)                                     # this rank's part only (timing, not values)
    if mode != "compute":
        mark(probe, "computed")                                # the last hop of the last pass overlaps nothing
        for x in sums.works:
            x.wait()
        mark(probe, "received")
        unpack(*home)
    del sums, kv
    if dq.dtype != q.dtype:
        dq = narrow_into_own_storage(dq, q.dtype) if q.element_size() == 2 else dq.to(q.dtype)
    return dq, dk, dv

