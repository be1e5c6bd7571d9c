"""What one device holds at the peak of ring attention's backward (flashviz_kernels.ring), by purpose, in bytes.

    backward_memory(world, n, layout, causal, *, batch, heads, d, elem_bytes, chunks=1, kernel=None) -> dict

Its forward twin is flashviz.engine.ring.forward_memory (this module builds on ring's chunks). The account is of the flash backward each block runs (the
GPU's impl "fast"/"teaching", 16- or 32-bit inputs), by KERNELS: "reference" (kernels/backward.py, 7 matmuls),
"fused" (kernels/backward_fused.py) or "ws" (kernels/ws_bwd.py, the Gluon one); kernel None: the one autograd
picks on an H200 (kernel_on_h200).

One GPU (W = 1), autograd's backward of one attention call: the inputs q, k, v, the saved output o and the incoming
dO (5 tensors of B H N d); the gradients dq, dk, dv (3 more); per row the saved lse (float32) and the backward's
row statistics (every kernel: lse with the rows that saw no key patched, and delta, both made by one pre-pass,
kernels/backward.row_stats: 8 bytes); fused and ws add a float32 dQ buffer (4 bytes per
element of q, as big as dq, dk and dv together at 16 bits).

A ring device, a "shard" being B H N/W d elements of the inputs' dtype, holds q, k, v, o, dO (5 shards) and lse, and:
  plain (chunks = 1; kernels/ring.py backward_loop, the peak being a step on which every buffer is in use)
    dq        the accumulator: the inputs' dtype at W = 2 (one shard), float32 beyond;
    receive   the next K/V block in flight (2 shards), and beyond W = 2 the received block computed on (2 more);
    sums      the dK/dV sums of the previous step leaving and those of this step arriving (2 x 2 shards; float32
              beyond W = 2);
    block     one call's gq, gk, gv (the Triton backward's outputs, the inputs' dtype);
    slices    the call's contiguous copies: q, o, dO rows when it covers part of the rows, K and V when part of the
              block (zigzag causal: half a shard each), with their row statistics;
    scratch   the fused or ws backward's float32 dQ buffer of the call's rows (0 for the reference);
  chunked (chunks = S > 1; kernels/ring_chunked_bwd.py), with p = ceil(c / S) rows of each of a rank's layout
  chunks of c rows (m = p rows per chunk make one key sub-chunk, one query slab range p rows):
    dq        the float32 accumulator (the returned dq is rounded into its own storage);
    grads     the returned dk, dv (2 shards), filled as each sub-chunk's sums come home;
    receive   two buffers of one sub-chunk's K and V;  sums  three float32 buffers of one sub-chunk's dK and dV;
    block, slices, scratch as above for the largest call (p query rows).
Where ranks differ (causal masking) the account is the largest over ranks and steps.
"""
from __future__ import annotations

from ..infra.errors import InputError, check_int
from .ring import MAX_TIMELINE_N, check, chunks_of

KERNELS = ("reference", "fused", "ws")
STATS = {"reference": 8, "fused": 8, "ws": 8}       # row-statistics bytes per query row of one call (see above)


def kernel_on_h200(d: int) -> str:
    """The per-block backward autograd runs on an H200 (sm_90, verified triton) at head dim d: the backward
    dispatch table's row for plain or causal attention (kernels/backward_table.py), the reference where none."""
    from flashviz_kernels.backward_table import ROUTES
    from flashviz_kernels.tables import route
    row = route(ROUTES, "dense", d, True, 1)
    return row.kernel if row is not None else "reference"


def _pieces(rank: int, src: int, world: int, layout: str, causal: bool, c: int) -> list[tuple[int, int]]:
    """(query rows, key rows) of the calls rank makes against src's whole block (kernels/ring_plan.plan, S = 1)."""
    qc, kc = chunks_of(rank, world, layout), chunks_of(src, world, layout)
    if not causal or qc == kc:
        return [(len(qc) * c, len(kc) * c)]
    seen: dict[tuple, int] = {}
    for j in kc:
        rows = tuple(i for i, q in enumerate(qc) if j < q)
        if rows:
            seen[rows] = seen.get(rows, 0) + 1                  # key chunks sharing their rows make one call
    return [(len(rows) * c, keys * c) for rows, keys in seen.items()]


def _call(rq: int, rk: int, n_loc: int, bh: int, d: int, e: int, kernel: str, k_part: bool | None = None) -> dict:
    """Bytes of one flash block_backward call over rq query rows and rk key rows of a block of n_loc rows."""
    row = bh * d * e
    q_part = rq < n_loc and bh > 1                              # a row slice of (B, H, n, d) is strided
    k_part = (rk < n_loc and bh > 1) if k_part is None else (k_part and bh > 1)
    stats = bh * rq * (STATS[kernel] + (4 if q_part else 0))    # the row statistics (+ the lse slice copy)
    return dict(block=(rq + 2 * rk) * row, slices=(3 * rq if q_part else 0) * row + (2 * rk if k_part else 0) * row
                + stats, scratch=bh * rq * d * 4 if kernel != "reference" else 0)


def backward_memory(world: int, n: int, layout: str, causal: bool, *, batch: int, heads: int, d: int,
                    elem_bytes: int, chunks: int = 1, kernel: str | None = None) -> dict[str, int]:
    """Bytes one device holds at the peak of the ring backward, by purpose (see the module docstring). kernel: the
    per-block backward, one of KERNELS (None: kernel_on_h200(d), what the kernels pick on an H200)."""
    w, n, c = check(world, n, layout, max_n=MAX_TIMELINE_N)
    for name, x in (("batch B", batch), ("heads H", heads), ("head dim d", d)):
        check_int(name, x, 1, 1 << 16)
    if elem_bytes not in (2, 4):
        raise InputError(key="errors.one_of", name="element size", choices="2, 4", got=repr(elem_bytes))
    kernel = kernel_on_h200(d) if kernel is None else kernel
    if kernel not in KERNELS:
        raise InputError(key="errors.one_of", name="backward kernel", choices=", ".join(KERNELS), got=repr(kernel))
    bh, n_loc = batch * heads, n // w
    shard = bh * n_loc * d * elem_bytes
    if w == 1:
        return dict(inputs=5 * shard, grads=3 * shard, lse=bh * n * (4 + STATS[kernel]),
                    scratch=bh * n * d * 4 if kernel != "reference" else 0)
    base = dict(inputs=5 * shard, lse=bh * n_loc * 4)
    chunks = check_int("chunks S", chunks, 1, c)
    if chunks > 1:
        per = len(chunks_of(0, w, layout))
        p = -(-c // chunks)
        m = per * p
        zig_causal = layout == "zigzag" and causal
        call = _call(p, m if not zig_causal else p, n_loc, bh, d, elem_bytes, kernel, k_part=zig_causal)
        if zig_causal:                                          # or a late slab against both chunks' rows
            other = _call(p, m, n_loc, bh, d, elem_bytes, kernel, k_part=False)
            call = max(call, other, key=lambda x: sum(x.values()))
        return dict(base, dq=bh * n_loc * d * max(4, elem_bytes), grads=2 * shard,
                    receive=2 * 2 * m * bh * d * elem_bytes, sums=3 * 2 * m * bh * d * 4, **call)
    low = w == 2                                                # dq and the sums in the inputs' dtype
    acc = elem_bytes if low else max(4, elem_bytes)
    fixed = dict(base, dq=bh * n_loc * d * acc, sums=2 * 2 * bh * n_loc * d * acc)
    best = None
    for r in range(w):
        for s in range(1, w):                                   # step 0 holds less: no sums in flight yet
            kv = 2 * shard * (1 if s == w - 1 or w == 2 else 2)
            for rq, rk in _pieces(r, (r - s) % w, w, layout, causal, c):
                cand = dict(fixed, receive=kv, **_call(rq, rk, n_loc, bh, d, elem_bytes, kernel))
                if best is None or sum(cand.values()) > sum(best.values()):
                    best = cand
    if best is None:                                            # no call after step 0 (never with W >= 2)
        best = dict(fixed, receive=2 * shard, block=0, slices=0, scratch=0)
    return best
