"""What one recorded CTA timeline says (flashviz.bench.timeline_dataset cells in, numbers out; no UI, no files).

    lead_warps(cell)            {role: the first warp of that role}: one warp speaks for its warpgroup
    intervals(cell, warp, scopes)   (k, 2) int array of [start, end) cycles of those scopes on that warp, by start
    window(cell, iterations)    Window: a few loop iterations from the middle of the kept CTA's loop
    takeaway(cell)              Takeaway: for a warp-specialised cell, how far the producer runs ahead and how the
                                two first consumer warpgroups overlap; for any cell, the share of a loop in softmax
    exp_vs_mma_clocks(d)        SM clock cycles of one score's exponential over those of its two matmuls

A loop iteration is one key tile: its Q·Kᵀ scope ("qk") marks it on a consumer warp. The producer's K copies
("tma_issue", or "tma_kv" where one scope issues K and V together) match the consumers' tiles from the end of the
CTA's loop, since a buffer that filled dropped the earliest events, not the latest.

The SM's rates (sm_90, H100/H200): the tensor cores do 4096 dense fp16 FLOP per clock per SM (989.4 TFLOP/s over
132 SMs at 1830 MHz: NVIDIA H100 whitepaper and datasheet), the special-function unit (SFU, "MUFU") 16 exponentials
(ex2) per clock per SM (CUDA C++ Programming Guide, arithmetic instruction throughput, compute capability 9.0). One
(query, key) pair costs 4·d matmul FLOP (Q·Kᵀ and P·V) and one exponential, so the exponentials take
(1 / 16) / (4 d / 4096) = 64 / d of the matmuls' clock cycles: half at d = 128, as many at d = 64.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TENSOR_FLOP_PER_CLK = 4096          # dense fp16 FLOP per clock per SM on sm_90 (989.4e12 / (132 * 1.83e9))
SFU_EXP_PER_CLK = 16                # exp2 results per clock per SM (special-function unit, sm_90)
TILE_MARK = "qk"                    # one occurrence per key tile on a consumer warp
TENSOR_SCOPES = ("qk", "pv", "load_v_pv")          # scopes whose work is a matrix multiply on the tensor cores
ITERATION_STARTS = ("load_k", "wait_kv")           # the first scope of a consumer's iteration, where recorded
K_ISSUE = ("tma_issue", "tma_kv")                  # the producer's copy of K_j (tma_kv: K and V in one scope)


def exp_vs_mma_clocks(d: int) -> float:
    """Clock cycles the SFU needs for one score's exponential over those the tensor cores need for its 4·d FLOP."""
    return (1 / SFU_EXP_PER_CLK) / (4 * d / TENSOR_FLOP_PER_CLK)


def lead_warps(cell: dict) -> dict[str, int]:
    """{role: its first warp}, producer included, in the cell's warp order."""
    out: dict[str, int] = {}
    for w, r in zip(cell["warps"], cell["roles"]):
        out.setdefault(r, w)
    return out


def consumer_roles(cell: dict) -> list[str]:
    return [r for r in lead_warps(cell) if r != "producer"]


def intervals(cell: dict, warp: int, scopes) -> np.ndarray:
    """[start, end) in cycles of every occurrence of `scopes` on `warp`, sorted by start; shape (k, 2)."""
    idx = {i for i, s in enumerate(cell["scopes"]) if s in scopes}
    rows = sorted((r[2], r[2] + r[3]) for r in cell["timeline"] if r[0] == warp and r[1] in idx)
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def _covered(a: np.ndarray, b: np.ndarray) -> int:
    """Cycles of the intervals `a` that lie inside some interval of `b` (b's intervals do not overlap each other)."""
    tot = 0
    for s, e in a:
        lo, hi = np.maximum(b[:, 0], s), np.minimum(b[:, 1], e)
        tot += int(np.clip(hi - lo, 0, None).sum())
    return tot


@dataclass(frozen=True)
class Window:
    start: int                  # cycles from the CTA's first event
    end: int
    iterations: int             # whole loop iterations inside it
    first: int                  # index of its first iteration among the warp's kept iterations
    kept: int                   # iterations kept for that warp


def window(cell: dict, iterations: int = 3) -> Window:
    """`iterations` loop iterations from the middle of the kept CTA's loop, timed on the first consumer warp: from
    the start of the iteration (its load_k / wait_kv, else its qk) to the same point `iterations` tiles later.
    Fewer iterations when fewer were kept; the whole span when no tile is marked."""
    span = int(cell["cta"]["span_cycles"])
    roles = consumer_roles(cell)
    if not roles:
        return Window(0, span, 0, 0, 0)
    warp = lead_warps(cell)[roles[0]]
    marks = intervals(cell, warp, (TILE_MARK,))[:, 0]
    starts = intervals(cell, warp, ITERATION_STARTS)[:, 0]
    if len(marks) < 2:
        return Window(0, span, len(marks), 0, len(marks))
    k = min(max(1, iterations), len(marks) - 1)
    first = (len(marks) - k) // 2

    def begin(i: int) -> int:
        before = starts[(starts <= marks[i]) & (starts > (marks[i - 1] if i else -1))]
        return int(before.max()) if before.size else int(marks[i])
    end = begin(first + k) if first + k < len(marks) else int(marks[-1])
    return Window(begin(first), end, k, first, len(marks))


@dataclass(frozen=True)
class Takeaway:
    tiles: int                          # iterations (key tiles) kept on the first consumer warp
    period_cycles: float                # median cycles from one tile's Q·Kᵀ to the next
    softmax_share: float | None         # the first consumer warp's softmax time / (tiles x median period)
    lead_cycles: float | None           # producer: median cycles from issuing K_j to the first consumer's Q·K_jᵀ
    mma_under_softmax: float | None     # share of warpgroup 0's softmax time with warpgroup 1 in a matrix multiply
    softmax_together: float | None      # share of warpgroup 0's softmax time with warpgroup 1 in its softmax too

    @property
    def lead_iterations(self) -> float | None:
        return None if self.lead_cycles is None or not self.period_cycles else self.lead_cycles / self.period_cycles


def takeaway(cell: dict) -> Takeaway:
    """The numbers the page states about one kept CTA (see the module docstring). None where the cell has no
    producer or no second consumer warpgroup."""
    lead = lead_warps(cell)
    roles = consumer_roles(cell)
    if not roles:
        return Takeaway(0, 0.0, None, None, None, None)
    w0 = lead[roles[0]]
    marks = intervals(cell, w0, (TILE_MARK,))
    period = float(np.median(np.diff(marks[:, 0]))) if len(marks) > 1 else 0.0
    sm0 = intervals(cell, w0, ("softmax",))
    total = int((sm0[:, 1] - sm0[:, 0]).sum())
    share = total / (len(marks) * period) if period > 0 else None
    lead_c = None
    if "producer" in lead:
        issues = intervals(cell, lead["producer"], K_ISSUE)
        n = min(len(issues), len(marks))
        if n:
            lead_c = float(np.median(marks[-n:, 0] - issues[-n:, 1]))
    under = together = None
    if len(roles) > 1 and total > 0:
        w1 = lead[roles[1]]
        under = _covered(sm0, intervals(cell, w1, TENSOR_SCOPES)) / total
        together = _covered(sm0, intervals(cell, w1, ("softmax",))) / total
    return Takeaway(len(marks), period, share, lead_c, under, together)
