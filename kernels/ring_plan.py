"""Where ring attention's rows live and what each rank computes per step: layouts, shards, and the plan.

    chunks_of(rank, world, layout) -> the global chunk indices a rank holds, in local order
    positions(rank, world, n, layout) -> the global positions of a rank's rows
    shard(x, rank, world, layout) -> this rank's slice of x along dim 2;  unshard(shards, layout) -> x
    key_rows(n_local, layout, world, part) -> the local key rows of key sub-chunk `part` = (i, S)
    plan(rank, src, world, layout, causal, n_local, part=(0, 1)) -> the Pieces rank computes against (sub-chunk i of)
        src's K/V block;  within(pieces, lo, hi) -> those pieces cut to query rows [lo, hi)

No torch.distributed here; kernels/ring.py runs the ring (see there for the layouts' causal work per step).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from .errors import KernelInputError

LAYOUTS = ("contiguous", "zigzag")


# ----------------------------------------------------------------------------- layouts

def check_layout(layout) -> str:
    if layout not in LAYOUTS:
        raise KernelInputError(f"layout must be one of {', '.join(LAYOUTS)}; got {layout!r}")
    return layout


def chunks_of(rank: int, world: int, layout: str) -> tuple[int, ...]:
    """The global chunk indices rank holds, in local order (W chunks when contiguous, 2W when zigzag)."""
    return (rank,) if check_layout(layout) == "contiguous" else (rank, 2 * world - 1 - rank)


def _check_split(n: int, world: int, layout: str) -> int:
    """Chunk length; KernelInputError when N does not split evenly."""
    parts = world if check_layout(layout) == "contiguous" else 2 * world
    if n % parts:
        raise KernelInputError(f"N = {n} does not split into {parts} equal chunks "
                               f"({layout} layout over W = {world} ranks needs N divisible by {parts})")
    return n // parts


def positions(rank: int, world: int, n: int, layout: str) -> np.ndarray:
    """Global positions (0..N-1) of rank's local rows, in local order."""
    c = _check_split(n, world, layout)
    return np.concatenate([np.arange(i * c, (i + 1) * c) for i in chunks_of(rank, world, layout)])


def shard(x: torch.Tensor, rank: int, world: int, layout: str = "contiguous") -> torch.Tensor:
    """Rank's slice of x along the sequence dim 2 (contiguous copy)."""
    if not isinstance(x, torch.Tensor) or x.dim() < 3:
        raise KernelInputError("shard needs a tensor with the sequence in dim 2, e.g. (B, H, N, d)")
    if not (isinstance(world, int) and world >= 1 and isinstance(rank, int) and 0 <= rank < world):
        raise KernelInputError(f"rank must be in 0..W-1 for a world size W >= 1; got rank {rank!r}, W {world!r}")
    c = _check_split(x.shape[2], world, layout)
    return torch.cat([x[:, :, i * c:(i + 1) * c] for i in chunks_of(rank, world, layout)], dim=2).contiguous()


def unshard(shards, layout: str = "contiguous") -> torch.Tensor:
    """The inverse of shard: shards[r] is rank r's slice; returns the whole sequence along dim 2."""
    shards = list(shards)
    world = len(shards)
    if world < 1 or len({s.shape[2] for s in shards}) != 1:
        raise KernelInputError("unshard needs one or more shards of equal length")
    per = len(chunks_of(0, world, layout))
    if shards[0].shape[2] % per:
        raise KernelInputError(f"a zigzag shard holds two equal chunks; length {shards[0].shape[2]} is odd")
    c = shards[0].shape[2] // per
    pieces = {}
    for r, s in enumerate(shards):
        for j, i in enumerate(chunks_of(r, world, layout)):
            pieces[i] = s[:, :, j * c:(j + 1) * c]
    return torch.cat([pieces[i] for i in sorted(pieces)], dim=2)


# ----------------------------------------------------------------------------- the per-step plan

class Piece(NamedTuple):
    """Local query rows [q_lo, q_hi) against local key rows [k_lo, k_hi) of the block held; causal = diagonal."""
    q_lo: int
    q_hi: int
    k_lo: int
    k_hi: int
    causal: bool


def key_rows(n_local: int, layout: str, part: tuple[int, int] = (0, 1)) -> list[tuple[int, int]]:
    """Local key rows of sub-chunk i of S (part = (i, S)): rows [floor(i c / S), floor((i + 1) c / S)) of every
    layout chunk (c rows each: one chunk per rank when contiguous, two when zigzag), in local order. The split
    need not divide c (sizes differ by at most one row); it is the same on every rank, so a sub-chunk has one
    shape around the ring. Taking the same slice of each chunk keeps zigzag's per-step balance in every pass."""
    i, s = part
    per = 1 if check_layout(layout) == "contiguous" else 2
    c = n_local // per
    if not (isinstance(s, int) and 1 <= s <= max(1, c) and isinstance(i, int) and 0 <= i < s):
        raise KernelInputError(f"key sub-chunk {part!r}: need 0 <= i < S <= {max(1, c)} (the rows of one layout chunk)")
    a, b = i * c // s, (i + 1) * c // s
    return [(j * c + a, j * c + b) for j in range(per)]


def plan(rank: int, src: int, world: int, layout: str, causal: bool, n_local: int,
         part: tuple[int, int] = (0, 1)) -> list[Piece]:
    """What rank computes against key sub-chunk part = (i, S) of rank src's K/V block (key_rows; (0, 1) is the
    whole block); k_lo, k_hi index the sub-chunk's rows as they are packed, in local order.

    Another rank's block, by chunk pairs: a key chunk before a query chunk is seen in full, a later one is skipped.
    The rank's own block: local positions increase along the local rows in both layouts, so local query r sees
    local key j iff j <= r; a run [a, b) of key rows is the square causal diagonal (rows [a, b), the kernels'
    bottom-right causal flag is right only for a square) plus every later row in full (rows [b, n), causal off);
    rows before a see none of it. With S = 1 the whole own block is one causal piece."""
    if not causal:
        return [Piece(0, n_local, 0, sum(b - a for a, b in key_rows(n_local, layout, part)), False)]
    segs = key_rows(n_local, layout, part)
    e = segs[0][1] - segs[0][0]                 # rows per chunk in the sub-chunk (the packed offset of chunk j: j*e)
    qc, kc = chunks_of(rank, world, layout), chunks_of(src, world, layout)
    c = n_local // len(qc)
    if qc == kc:
        runs = []                               # adjacent key rows (S = 1: the whole block) make one run
        for j, (a, b) in enumerate(segs):
            if runs and runs[-1][1] == a:
                runs[-1] = (runs[-1][0], b, runs[-1][2])
            else:
                runs.append((a, b, j * e))
        out = []
        for a, b, off in runs:
            out.append(Piece(a, b, off, off + b - a, True))
            if b < n_local:
                out.append(Piece(b, n_local, off, off + b - a, False))
        return out
    out = []
    for j, key_chunk in enumerate(kc):
        rows = [i for i, query_chunk in enumerate(qc) if key_chunk < query_chunk]
        for a, b in _runs(rows):                # consecutive local query chunks share one launch
            last = out[-1] if out else None
            if last and (last.q_lo, last.q_hi, last.k_hi) == (a * c, b * c, j * e):
                out[-1] = last._replace(k_hi=(j + 1) * e)   # and so do consecutive key chunks: the whole held
            else:                                           # block in place (no K/V copy), one merge, not two
                out.append(Piece(a * c, b * c, j * e, (j + 1) * e, False))
    return out


def within(pieces: list[Piece], lo: int, hi: int) -> list[Piece]:
    """The pieces cut to query rows [lo, hi). A causal piece is square, so it must lie wholly inside or outside:
    true for the query slabs of the chunked forward (key_rows' ranges, which are the diagonal pieces' rows)."""
    out = []
    for p in pieces:
        a, b = max(p.q_lo, lo), min(p.q_hi, hi)
        if a >= b:
            continue
        if p.causal and (a, b) != (p.q_lo, p.q_hi):
            raise AssertionError(f"causal piece {p} straddles query rows [{lo}, {hi})")
        out.append(p._replace(q_lo=a, q_hi=b))
    return out


def _runs(idx: list[int]) -> list[tuple[int, int]]:
    runs = []
    for i in idx:
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs
