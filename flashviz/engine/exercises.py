"""The exercises' problems, answers and checks (numpy; no UI). ui/exercises.py poses them and checks what a student
enters against what is computed here, with the tolerances below; every worked solution's numbers come from here.

  decoding   flash-decoding with four workers: merge their (m, l, o) into the one-pass answer
  causal     the causal mask on the tiled recurrence: it matches naive causal attention; a fully masked first tile
             without the guard gives NaN, with the guard the exact answer
  memory     peak memory of naive vs tiled attention at N = 512 / 2048 / 8192 (flashviz.bench.cpu_memory measures)
  roofline   one point of the roofline from a recorded kernel: FLOPs per measured HBM byte, and which roof binds
  ring       the compute speed-up of ring attention on W GPUs under a causal mask, contiguous vs zigzag
"""
from __future__ import annotations

import math

import numpy as np

from .decoding import flash_decode
from ..infra.errors import InputError, check_int
from .hardware import gpu
from .online_softmax import apply_mask, exact_attention_row, make_qkv, online_softmax_trace, parse_positions, row_scores
from .ring import LAYOUTS, imbalance, work_table
from .roofline import measured_bytes_points, useful_flops

# Tolerances a student's answer is checked with (relative unless named abs)
DECODING_REL = 1e-3            # m, l and the output typed with about four significant digits
DECODING_ABS = 1e-3            # ... or within this much (for values near zero)
EXACT_ABS = 1e-12              # an engine's answer against the float64 reference
MEMORY_REL = 0.15              # a predicted growth ratio against the measured one
ROOFLINE_REL = 0.02            # an intensity worked out from the recording's numbers
RING_ABS = 0.05                # a speed-up, to two decimals


def close(got, want, *, rel: float, abs_: float = 0.0) -> bool:
    """|got - want| <= max(rel * |want|, abs_); a missing or non-finite answer is not close."""
    try:
        g, w = float(got), float(want)
    except (TypeError, ValueError):
        return False
    return math.isfinite(g) and abs(g - w) <= max(rel * abs(w), abs_)


# ----------------------------------------------------------------------------- flash-decoding, four workers

def decoding_problem(seed: int = 12, n: int = 16, d: int = 4, workers: int = 4) -> dict:
    """One query's scores and values (seeded, the stepper's row N - 1), split over `workers`: each worker's
    (m_w, l_w, o_w) is the problem; the merged (m, l, o), its output o / l and the one-pass answer the solution."""
    q, k, v = make_qkv(n, d, seed)
    s = row_scores(q[n - 1], k)
    res = flash_decode(s, v, workers)
    m = max(p.m for p in res.partials)
    scale = [math.exp(p.m - m) for p in res.partials]
    return dict(n=n, d=d, workers=workers, seed=seed, start=res.start.tolist(), stop=res.stop.tolist(),
                partials=[dict(m=p.m, l=p.l, o=p.o.tolist()) for p in res.partials], scale=scale,
                m=res.merged.m, l=res.merged.l, o=res.merged.o.tolist(), output=res.output.tolist(),
                exact=exact_attention_row(s, v).tolist(),
                error=float(np.max(np.abs(res.output - exact_attention_row(s, v)))))


def check_decoding(problem: dict, m, l, out0) -> dict:
    """Each typed value against the merge: {name: (ok, want)} for m, l and the first output component."""
    return dict(m=(close(m, problem["m"], rel=DECODING_REL, abs_=DECODING_ABS), problem["m"]),
                l=(close(l, problem["l"], rel=DECODING_REL, abs_=DECODING_ABS), problem["l"]),
                out0=(close(out0, problem["output"][0], rel=DECODING_REL, abs_=DECODING_ABS), problem["output"][0]))


# ----------------------------------------------------------------------------- causal mask and the NaN

def tiled_causal_error(n: int, d: int, bc: int, seed: int) -> float:
    """Max |tiled - naive| over every row of causal attention: each row's recurrence over tiles of Bc keys with
    the causal mask, against the textbook softmax of the masked row (float64)."""
    n, d, bc = check_int("N", n, 1, 4096), check_int("head dim d", d, 1, 256), check_int("tile size Bc", bc, 1, n)
    q, k, v = make_qkv(n, d, seed)
    worst = 0.0
    for i in range(n):
        s = apply_mask(row_scores(q[i], k), causal_row=i)
        tr = online_softmax_trace(s, v, bc)
        worst = max(worst, float(np.max(np.abs(tr.output - exact_attention_row(s, v)))))
    return worst


def causal_nan_run(n: int, d: int, bc: int, row: int, masked: str, seed: int) -> dict:
    """Row `row` under the causal mask plus the typed masked keys, tiles of Bc: which tiles are fully masked, the
    output without the guard (NaN when the first tile is fully masked) and with it (against the exact answer)."""
    n, bc = check_int("N", n, 1, 4096), check_int("tile size Bc", bc, 1, n)
    row = check_int("query row", row, 0, n - 1)
    q, k, v = make_qkv(n, d, seed)
    s = apply_mask(row_scores(q[row], k), causal_row=row, masked=parse_positions(masked, n))
    if not np.isfinite(s).any():
        raise InputError(key="errors.exercise_all_masked", row=row)
    off, on = online_softmax_trace(s, v, bc, guard=False), online_softmax_trace(s, v, bc, guard=True)
    exact = exact_attention_row(s, v)
    full = [int(t) for t in np.flatnonzero(on.tile_max == -np.inf)]
    return dict(full_tiles=full, first_full=bool(full and full[0] == 0), nan_without_guard=bool(np.isnan(off.output).any()),
                guarded_error=float(np.max(np.abs(on.output - exact))), tiles=on.steps,
                ranges=[(int(a), int(b) - 1) for a, b in zip(on.start, on.stop)])


# ----------------------------------------------------------------------------- peak memory

def memory_growth(rows: list[dict]) -> dict:
    """From flashviz.bench.cpu_memory.run_exercise rows (ascending N): how much naive's and the tiled version's
    peaks grew from the first N to the last, next to (N_last / N_first)^2."""
    first, last = rows[0], rows[-1]
    return dict(n0=first["n"], n1=last["n"], naive=last["naive_peak_bytes"] / first["naive_peak_bytes"],
                tiled=last["tiled_scratch_bytes"] / max(first["tiled_scratch_bytes"], 1),
                square=(last["n"] / first["n"]) ** 2)


def check_memory(growth: dict, naive_pred, tiled_pred) -> dict:
    return dict(naive=(close(naive_pred, growth["naive"], rel=MEMORY_REL), growth["naive"]),
                tiled=(close(tiled_pred, growth["tiled"], rel=MEMORY_REL), growth["tiled"]))


# ----------------------------------------------------------------------------- a roofline point

def roofline_problem(timing: dict, hbm: dict, gpu_name: str = "H200", n: int = 4096, d: int = 128,
                     impl: str = "fast") -> dict | None:
    """The recorded kernel `impl` at N, d (not causal): its FLOPs and measured HBM bytes per head (the problem), its
    intensity and the roof that binds (the answer). None when the recordings lack it."""
    pts = [p for p in measured_bytes_points(timing, hbm, n, d, False) if p["impl"] == impl]
    if not pts:
        return None
    p, g = pts[0], gpu(gpu_name)
    ridge = g["peak_fp16"] / g["hbm_bw"]
    return dict(impl=impl, n=n, d=d, flops=useful_flops(n, d, False), bytes=p["bytes_per_head"],
                intensity=p["intensity"], ridge=ridge, peak=g["peak_fp16"], bw=g["hbm_bw"],
                bound="compute" if p["intensity"] > ridge else "memory", achieved=p["achieved"])


def check_roofline(problem: dict, intensity, bound: str | None) -> dict:
    return dict(intensity=(close(intensity, problem["intensity"], rel=ROOFLINE_REL), problem["intensity"]),
                bound=(bound == problem["bound"], problem["bound"]))


# ----------------------------------------------------------------------------- ring attention under a causal mask

def ring_problem(world: int = 4, n: int = 4096) -> dict:
    """Per layout, under the causal mask: the work table, its critical path and the compute speed-up over one GPU
    (total work / the sum over steps of the busiest device's work; communication left out)."""
    out = {}
    for layout in LAYOUTS:
        w = work_table(world, n, layout, True)
        im = imbalance(w)
        out[layout] = dict(table=w.tolist(), total=int(w.sum()), critical=im["critical"],
                           speedup=float(w.sum() / im["critical"]), idle=im["idle"])
    return dict(world=world, n=n, layouts=out)


def check_ring(problem: dict, contiguous, zigzag) -> dict:
    lay = problem["layouts"]
    return dict(contiguous=(close(contiguous, lay["contiguous"]["speedup"], rel=0, abs_=RING_ABS),
                            lay["contiguous"]["speedup"]),
                zigzag=(close(zigzag, lay["zigzag"]["speedup"], rel=0, abs_=RING_ABS), lay["zigzag"]["speedup"]))
