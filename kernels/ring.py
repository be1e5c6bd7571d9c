"""Ring attention over torch.distributed: each rank holds a slice of the sequence; K/V travel around the ring.

    ring_attention(q, k, v, *, causal=False, sm_scale=None, group=None, layout="contiguous", impl="fast",
                   probe=None, chunks=None | "auto" | S)
        -> (out (B, H, N/W, d) like q, lse (B, H, N/W) float32; float64 for float64 inputs with naive/sdpa)
    shard, unshard, positions, plan: see kernels/ring_plan.py (re-exported here)

Each of the W ranks of `group` passes its shard of Q, K, V (the same shard of the sequence for all three).
Step s = 0..W-1: rank r holds the K/V block of rank src = (r - s) mod W; it starts sending that block to rank
r + 1 and receiving the next one from r - 1 (dist.batch_isend_irecv), computes its queries against the block
it holds meanwhile, and folds the block's (out, lse) into its running result with the log-sum-exp merge of
flash-decoding (ring_block.merge: one fused Triton pass on a GPU). Step 0 (the rank's own
block, every local row) needs no merge: its output becomes the running result. Without an initialised process
group (or with a group of one) it is plain single-device attention.

Layouts (the sequence cut into chunks): "contiguous" gives rank r chunk r of W; "zigzag" cuts 2W chunks and
gives rank r chunks r and 2W-1-r, so every rank holds one early and one late chunk. Causal work per step:
  contiguous  src == r: the diagonal block (causal inside); src < r: a full block; src > r: nothing (idle);
              rank W-1 works every step, rank 0 once: the last rank sets the pace.
  zigzag      src == r: the local block causal (it covers chunk pairs full, diagonal and future);
              src < r:  all local queries against src's early chunk (its late chunk is in their future);
              src > r:  the late local chunk against both of src's chunks;
              every step is half a block for every rank: balanced.
Blocks whose query and key chunks differ never use the kernels' causal flag (their bottom-right alignment is
right only for square diagonal blocks); past blocks run with causal=False, future ones are skipped.

Memory-bounded forward (kernels/ring_chunked.py), asked for with chunks="auto" (once a K/V block exceeds 2
CHUNK_BYTES) or chunks=S; the default is the plain ring, which measured faster. The chunked forward computes S
query slabs, each against S key sub-chunks, each sub-chunk one pass of the ring (every block's sub-chunk i
moves, nothing larger), the slab accumulating in float32: a rank's peak is its q, k, v shards and the output
plus about 8/S of a shard, instead of plus three (W = 2: the arriving block, one block's output). A forward
called with chunks also chunks its backward (kernels/ring_chunked_bwd.py; its S: backward_count there).

Backward (autograd): dQ stays home; dK and dV travel around the ring with their K/V block and arrive back at
their owner after W hops; each block is recomputed from the saved global lse (ring_block.block_backward),
and a gradient flowing into the returned lse is honoured (dS += dlse * P).
"""
from __future__ import annotations

import math

import torch
import torch.distributed as dist

from .checks import options, validate                  # the one home of the input and option checks
from .errors import KernelInputError
from .ring_block import (TRITON_IMPLS, acc_dtype, block_backward, block_forward, check_impl, delta_of, flash_block,
                         merge)
from .ring_chunked import CHUNK_BYTES, TAG_KV, mark, chunk_count, forward_chunked  # noqa: F401
from .ring_chunked_bwd import BWD_CHUNK_BYTES, TAG_DKV, backward_count  # noqa: F401
from .ring_plan import (LAYOUTS, Piece, check_layout, chunks_of, key_rows, plan, positions, shard,  # noqa: F401
                        unshard, within)
MODES = ("both", "compute", "comm")     # measurement only: "compute" = the same loop without sends


# ----------------------------------------------------------------------------- the ring

class Ring:
    """rank, world and the two neighbours (global ranks) of this process in `group`."""

    def __init__(self, group=None):
        if group is None and not (dist.is_available() and dist.is_initialized()):
            self.group, self.rank, self.world = None, 0, 1
            self.next = self.prev = 0
            return
        self.group = group if group is not None else dist.group.WORLD
        self.rank, self.world = dist.get_rank(self.group), dist.get_world_size(self.group)
        if self.rank < 0:
            raise KernelInputError("this process is not a member of the group passed to ring_attention")
        self.next = dist.get_global_rank(self.group, (self.rank + 1) % self.world)
        self.prev = dist.get_global_rank(self.group, (self.rank - 1) % self.world)

    def exchange(self, send, recv, tag: int):
        """Start sending the tensors `send` to the next rank and receiving `recv` (same shapes) from the previous;
        returns the works."""
        ops = [dist.P2POp(dist.isend, x, self.next, self.group, tag) for x in send]
        ops += [dist.P2POp(dist.irecv, x, self.prev, self.group, tag) for x in recv]
        return dist.batch_isend_irecv(ops)

    def check_same(self, values: list[int], device) -> None:
        """Every rank must pass shards of one shape, or the transfers would hang: compare, then all raise."""
        if self.world == 1:
            return
        t = torch.tensor(values + [-x for x in values], dtype=torch.int64, device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=self.group)
        hi, lo = t[: len(values)].tolist(), [-x for x in t[len(values):].tolist()]
        if hi != lo:
            raise KernelInputError(f"ranks passed shards of different shapes (B, H, N/W, d between {lo} and {hi})")


class _Rows:
    """Contiguous row slices of a local tensor, each made once per call."""

    def __init__(self, **tensors):
        self.t, self.cache = tensors, {}

    def get(self, name, lo, hi):
        x = self.t[name]
        if x is None or (lo == 0 and hi == x.shape[2]):
            return x
        key = (name, lo, hi)
        if key not in self.cache:
            self.cache[key] = x[:, :, lo:hi].contiguous()
        return self.cache[key]


def _kv(held, piece: Piece):
    """K, V rows [k_lo, k_hi) of the held block (a view; the kernels copy a strided slice if they need to)."""
    k, v = held
    if piece.k_lo == 0 and piece.k_hi == k.shape[2]:
        return k, v
    return k[:, :, piece.k_lo:piece.k_hi], v[:, :, piece.k_lo:piece.k_hi]


def forward_loop(q, k, v, *, causal, sm_scale, impl, layout, ring: Ring, mode: str = "both", probe=None,
                 chunks=None):
    """The forward ring. mode "compute" runs the same blocks without any transfer (each rank keeps its own
    K/V), "comm" only the transfers; both exist for measurement, as does `probe`: a callable told
    "computed" when a step's blocks are queued and "received" once the next block has arrived, so a
    benchmark can time how long each step waits for its transfer.

    Plain ring (S = 1): memory per rank beyond its q, k, v shards: one receive buffer for the next K/V block
    (2 shards; own K and V are sent as they are, never packed), the output accumulator, and one block's output at
    a time. Step 0 is the rank's own block, one piece over every local row: its output becomes the accumulator
    (no zeros, no merge into zeros); later blocks fold in with ring_block.merge (in place; see there for the
    fused pass). With W = 2 every row merges at most two blocks, so the accumulator is kept in the inputs' dtype:
    the one merge rounds once, as the float32 accumulator's final cast would; with W > 2 it is float32.

    With S = chunk_count(q, layout, chunks) > 1 (chunks="auto" once a K/V block exceeds 2 CHUNK_BYTES, or an S) the
    forward is ring_chunked.forward_chunked: S query slabs, each over S passes of one key sub-chunk, a float32
    accumulator per slab; beyond q, k, v and the output it holds about 8/S of a shard (see there)."""
    if ring.world == 1:
        return block_forward(q, k, v, causal, sm_scale, impl)
    s_chunks = chunk_count(q, layout, chunks)
    if s_chunks > 1:
        return forward_chunked(q, k, v, causal=causal, sm_scale=sm_scale, impl=impl, layout=layout, ring=ring,
                               mode=mode, probe=probe, chunks=s_chunks)
    k, v = k.contiguous(), v.contiguous()                       # sent as they are
    rows = _Rows(q=q)
    acc_t = q.dtype if ring.world == 2 else acc_dtype(q.dtype)
    out = lse = None                                            # made by the first piece
    held = (k, v)                                               # the K/V block this step computes against
    for s in range(ring.world):
        src = (ring.rank - s) % ring.world
        works, nxt = None, None
        if s + 1 < ring.world and mode != "compute":
            nxt = torch.empty((2, *k.shape), dtype=k.dtype, device=k.device)
            works = ring.exchange(held, (nxt[0], nxt[1]), TAG_KV)   # in flight while this block computes
        if mode != "comm":
            for p in plan(ring.rank, src, ring.world, layout, causal, q.shape[2]):
                kb, vb = _kv((k, v) if mode == "compute" else held, p)
                o_b, l_b = block_forward(rows.get("q", p.q_lo, p.q_hi), kb, vb, p.causal, sm_scale, impl)
                if out is None and (p.q_lo, p.q_hi) == (0, q.shape[2]):
                    out, lse = o_b.to(acc_t), l_b.to(acc_dtype(q.dtype)).contiguous()   # no copy when it fits
                else:
                    if out is None:                             # (plan starts with a whole-shard piece)
                        out, lse = _empty_result(q, acc_t)
                    merge(out[:, :, p.q_lo:p.q_hi], lse[:, :, p.q_lo:p.q_hi], o_b, l_b)
                del o_b, l_b
        mark(probe, "computed")
        for w in works or ():
            w.wait()
        mark(probe, "received")
        if nxt is not None:
            held = (nxt[0], nxt[1])
    if out is None:                                             # mode "comm": nothing computed
        out, lse = _empty_result(q, acc_t)
    return out.to(q.dtype), lse


def _empty_result(q, acc_t):
    """The merge's identity for every local row: out 0, lse -inf."""
    return (torch.zeros(q.shape, dtype=acc_t, device=q.device),
            torch.full(q.shape[:3], -math.inf, dtype=acc_dtype(q.dtype), device=q.device))


def backward_loop(q, k, v, o, lse, do, dlse, *, causal, sm_scale, impl, layout, ring: Ring, mode: str = "both",
                  probe=None, chunks=None):
    """The backward ring: dQ accumulates at home; each block's dK, dV travel with it and reach their owner after W
    hops. Returns (dq, dk, dv) in q's dtype. probe: as in forward_loop ("received" once both the next K/V block
    and the gradients travelling with it are in). chunks: as ring_attention's; with backward_count(q, layout,
    chunks) = S > 1 the memory-bounded backward runs (kernels/ring_chunked_bwd.py).

    Plain ring (S = 1), what a rank holds beyond q, k, v, o, dO: the next K/V block (2 shards; with W > 2 also the
    received one it computes on), one step's block gradients (gq, gk, gv: the flash backward's outputs in the
    inputs' dtype, float32 from the torch recomputation), dQ, and the dK/dV sums travelling: the previous step's on
    their way out and this step's coming in, both kept while this step computes (the overlap). No zeroed per-step
    buffer: a step's gk, gv are added into the arriving sums once they are in. With W = 2 and a flash backward
    every sum has two terms, each already rounded to the inputs' dtype, so dQ and the travelling dK/dV stay in the
    inputs' dtype: the one add rounds once, as the float32 sum's final cast did (same values, half the bytes); the
    first hop sends the step's gk, gv themselves. Otherwise dQ and the sums are float32, and the last hop carries
    the finished sums already cast to q's dtype (the owner's cast, half the bytes)."""
    n, w = q.shape[2], ring.world
    if impl in TRITON_IMPLS and dlse is not None and not bool(dlse.ne(0).any()):
        dlse = None                                             # nothing flows into lse
    triton_bwd = flash_block(impl, q.dtype)
    delta = None if triton_bwd else delta_of(o, do)            # the flash backwards compute their own
    if w == 1:
        g = block_backward(q, k, v, o, lse, do, delta, dlse, causal, sm_scale, impl)
        return tuple(x.to(q.dtype) for x in g)
    s_chunks = backward_count(q, layout, chunks)
    if s_chunks > 1:
        from .ring_chunked_bwd import backward_chunked
        return backward_chunked(q, k, v, o, lse, do, delta, dlse, causal=causal, sm_scale=sm_scale, impl=impl,
                                layout=layout, ring=ring, mode=mode, probe=probe, chunks=s_chunks)
    k, v = k.contiguous(), v.contiguous()
    lse3 = lse[..., None]
    low = w == 2 and triton_bwd                                 # two rounded terms per sum: the inputs' dtype
    acc_t = q.dtype if low else acc_dtype(q.dtype)
    dq = None
    held = (k, v)
    sending, dworks = None, None                                # the sums on their way (held until sent)
    for s in range(w):
        src = (ring.rank - s) % w
        works, nxt = None, None
        if s + 1 < w and mode != "compute":
            nxt = torch.empty((2, *k.shape), dtype=k.dtype, device=k.device)
            works = ring.exchange(held, (nxt[0], nxt[1]), TAG_KV)
        grads = []                                              # (k_lo, k_hi, gk, gv) of this step's pieces
        if mode != "comm":
            for p in plan(ring.rank, src, w, layout, causal, n):
                kb, vb = _kv((k, v) if mode == "compute" else held, p)
                r = slice(p.q_lo, p.q_hi)
                gq, gk, gv = block_backward(q[:, :, r], kb, vb, o[:, :, r], lse3[:, :, r, 0], do[:, :, r],
                                            None if delta is None else delta[:, :, r],
                                            None if dlse is None else dlse[:, :, r], p.causal, sm_scale, impl)
                if dq is None and (p.q_lo, p.q_hi) == (0, n):
                    dq = gq if gq.dtype == acc_t else gq.to(acc_t)     # step 0's piece becomes the accumulator
                else:
                    if dq is None:
                        dq = torch.zeros(q.shape, dtype=acc_t, device=q.device)
                    dq[:, :, r] += gq
                del gq
                grads.append((p.k_lo, p.k_hi, gk, gv))
                del gk, gv
        if s + 1 == w and mode != "compute":
            held = nxt = None                                   # the last K/V block is dead: free it before waiting
        mark(probe, "computed")
        for x in dworks or ():
            x.wait()
        arrived = sending if mode == "compute" else (None if sending is None else sending[1])
        sending = None
        sums = _fold(arrived, grads, k, acc_t, first=(s == 0 and mode != "compute"), low=low)
        del grads, arrived
        if mode != "compute":
            if s == w - 1 and sums.dtype != q.dtype:            # complete: the owner's cast happens before the
                sums = sums.to(q.dtype)                         # last hop (same values, half the float32 bytes)
            recv = torch.empty((2, *k.shape), dtype=acc_t if s < w - 1 else q.dtype, device=q.device)
            send = (sums[0], sums[1])                           # dK and dV, as two tensors from every rank
            dworks = ring.exchange(send, (recv[0], recv[1]), TAG_DKV)   # on its way while the next block computes
            sending = (send, recv)
            del sums
        else:
            sending = sums
        for x in works or ():
            x.wait()
        mark(probe, "received")
        if nxt is not None:
            held = (nxt[0], nxt[1])
    if dq is None:                                              # mode "comm": nothing computed
        dq = torch.zeros(q.shape, dtype=acc_t, device=q.device)
    if mode != "compute":
        mark(probe, "computed")                                # the last hop of dK, dV overlaps nothing
        for x in dworks:
            x.wait()
        mark(probe, "received")
        done = sending[1]
    else:
        done = sending
    return dq.to(q.dtype), done[0].to(q.dtype), done[1].to(q.dtype)


def _fold(arrived, grads, k, acc_t, *, first: bool, low: bool):
    """This step's (k_lo, k_hi, gk, gv) added into the arrived sums (2, B, H, n, d), in place. The first step's sums
    are its own gk, gv: with `low` (the inputs' dtype) a single whole-block piece is sent as it is (a tuple of two
    tensors, no copy); otherwise a (2, ...) buffer in acc_t starts from them."""
    if arrived is None:
        if low and first and len(grads) == 1 and (grads[0][0], grads[0][1]) == (0, k.shape[2]) \
                and grads[0][2].dtype == acc_t:
            return grads[0][2].contiguous(), grads[0][3].contiguous()
        arrived = torch.zeros((2, *k.shape), dtype=acc_t, device=k.device)
    for lo, hi, gk, gv in grads:
        arrived[0, :, :, lo:hi] += gk
        arrived[1, :, :, lo:hi] += gv
    return arrived


# ----------------------------------------------------------------------------- the API

class _RingFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal, sm_scale, impl, layout, ring, probe, chunks):
        ctx.set_materialize_grads(False)
        out, lse = forward_loop(q, k, v, causal=causal, sm_scale=sm_scale, impl=impl, layout=layout, ring=ring,
                                probe=probe, chunks=chunks)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.args = dict(causal=causal, sm_scale=sm_scale, impl=impl, layout=layout, ring=ring, probe=probe,
                        chunks=chunks)
        return out, lse

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, dout, dlse):
        q, k, v, out, lse = ctx.saved_tensors
        if dout is None:
            dout = torch.zeros_like(out)
        grads = backward_loop(q, k, v, out, lse, dout, dlse, **ctx.args)
        return (*grads, None, None, None, None, None, None, None)


def prepare(q, k, v, *, causal, sm_scale, group, layout, impl):
    """Validate once (the same checks on every rank, so all raise together) -> (causal, scale, Ring)."""
    check_impl(impl)
    check_layout(layout)
    validate(q, k, v, impl)
    if q.shape != k.shape:
        raise KernelInputError(f"ring attention shards Q, K and V alike: q {tuple(q.shape)} vs k {tuple(k.shape)}")
    causal, scale = options(q, causal, sm_scale)
    ring = Ring(group)
    ring.check_same(list(q.shape), q.device)
    if layout == "zigzag" and q.shape[2] % 2:
        raise KernelInputError(f"a zigzag shard holds two equal chunks, so N/W must be even (N divisible by "
                               f"2W = {2 * ring.world}); this rank holds {q.shape[2]} rows")
    return causal, scale, ring


def ring_attention(q, k, v, *, causal: bool = False, sm_scale: float | None = None, group=None,
                   layout: str = "contiguous", impl: str = "fast", probe=None, chunks=None):
    """This rank's (out, lse) of attention over the whole sequence; q, k, v are its shard (B, H, N/W, d).
    Differentiable in q, k, v through out and lse. probe: None, or a measurement hook called with "computed"
    and "received" at every ring step, forward and backward (see forward_loop). chunks: the forward's key
    sub-chunks S (None or 1: the plain ring; "auto": ring_chunked.chunk_count's rule from the block's bytes, about
    half of one GPU's memory at large N for W = 2, and 8-24 % slower than the plain ring at 512k; an int: that S).
    The backward follows: chunked (kernels/ring_chunked_bwd.py) whenever the forward is, with the same int S or,
    under "auto", backward_count's own rule (4x the forward's S at these sizes)."""
    causal, scale, ring = prepare(q, k, v, causal=causal, sm_scale=sm_scale, group=group, layout=layout, impl=impl)
    chunk_count(q, layout, chunks)                              # a bad value raises on every rank alike
    if torch.is_grad_enabled() and any(x.requires_grad for x in (q, k, v)):
        return _RingFunction.apply(q, k, v, causal, scale, impl, layout, ring, probe, chunks)
    return forward_loop(q, k, v, causal=causal, sm_scale=scale, impl=impl, layout=layout, ring=ring, probe=probe,
                        chunks=chunks)
