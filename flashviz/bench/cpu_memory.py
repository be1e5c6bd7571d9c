"""Lesson exercise 3, honest on any CPU: peak intermediate memory of naive vs tiled attention.

Naive materialises the N x N score matrix: O(N^2) bytes. Tiled (flash-style) walks Br x Bc tiles with the
online-softmax recurrence of flashviz.engine.online_softmax, vectorised over a block of Br query rows:
    m_new = max(m, rowmax(S_tile));  alpha = exp(m - m_new)
    l = alpha * l + rowsum(exp(S_tile - m_new));  acc = alpha * acc + exp(S_tile - m_new) @ V_tile
and writes acc / l once per row block: O(Br*Bc + Br*d) scratch plus the O(N*d) output itself.

Peaks are measured with tracemalloc (numpy reports its buffers to it), counted from after the inputs
exist, so they include the output but not q, k, v. tracemalloc sees every Python thread: a concurrent
session allocating at the same moment would inflate a peak (our own runs are serialised by a lock).

    run_exercise(ns=(512, 2048, 8192), d=64, block_rows=128, block_cols=128, dtype="float64") -> [row]
"""
from __future__ import annotations

import gc
import threading
import time
import tracemalloc

import numpy as np

_LOCK = threading.Lock()


def naive_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(q k^T / sqrt(d)) v with the whole N x N matrix in memory (updated in place: one copy)."""
    s = q @ k.T                                      # N x N scores
    s *= 1.0 / np.sqrt(q.shape[1])
    s -= s.max(axis=1, keepdims=True)
    np.exp(s, out=s)                                 # P, unnormalised
    out = s @ v
    out /= s.sum(axis=1, keepdims=True)
    return out


def tiled_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, block_rows: int = 128,
                    block_cols: int = 128) -> np.ndarray:
    """Same answer, Br x Bc score tiles only (online softmax over key tiles, Br rows at a time)."""
    n, d = q.shape
    scale = 1.0 / np.sqrt(d)
    out = np.empty_like(q)                           # the answer: O(N d), unavoidable
    for i0 in range(0, n, block_rows):
        qi = q[i0:i0 + block_rows] * scale           # Br x d
        m = np.full(len(qi), -np.inf, dtype=q.dtype)  # running max per row
        l = np.zeros(len(qi), dtype=q.dtype)         # running sum per row
        acc = np.zeros_like(qi)                      # unnormalised output rows
        for j0 in range(0, n, block_cols):
            s = qi @ k[j0:j0 + block_cols].T          # Br x Bc tile of scores
            m_new = np.maximum(m, s.max(axis=1))
            alpha = np.exp(m - m_new)                 # rescales what was accumulated (0 on the first tile)
            s -= m_new[:, None]
            np.exp(s, out=s)                          # P tile, in place
            l = alpha * l + s.sum(axis=1)
            acc *= alpha[:, None]
            acc += s @ v[j0:j0 + block_cols]
            m = m_new
        out[i0:i0 + block_rows] = acc / l[:, None]
    return out


def measure_peak(fn, *args, **kwargs):
    """(result, peak bytes allocated during fn beyond what existed before, seconds)."""
    with _LOCK:
        started = not tracemalloc.is_tracing()
        if started:
            tracemalloc.start()
        try:
            gc.collect()
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            t0 = time.perf_counter()
            result = fn(*args, **kwargs)
            seconds = time.perf_counter() - t0
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            if started:
                tracemalloc.stop()
    return result, int(peak), seconds


def run_exercise(ns=(512, 2048, 8192), d: int = 64, block_rows: int = 128, block_cols: int = 128,
                 dtype: str = "float64", seed: int = 0) -> list[dict]:
    """One row per N: measured peaks, the theory beside them, and how well the two answers agree."""
    rows = []
    elem = np.dtype(dtype).itemsize
    for n in ns:
        rng = np.random.default_rng(seed + n)
        q, k, v = (rng.standard_normal((n, d)).astype(dtype) for _ in range(3))
        o_naive, naive_peak, naive_s = measure_peak(naive_attention, q, k, v)
        o_tiled, tiled_peak, tiled_s = measure_peak(tiled_attention, q, k, v, block_rows, block_cols)
        rows.append(dict(
            n=n, d=d, dtype=dtype, block_rows=block_rows, block_cols=block_cols,
            naive_peak_bytes=naive_peak, tiled_peak_bytes=tiled_peak,
            naive_theory_bytes=n * n * elem,               # the N x N matrix
            tile_theory_bytes=block_rows * block_cols * elem,  # one score tile
            output_bytes=n * d * elem,
            tiled_scratch_bytes=tiled_peak - n * d * elem,  # what tiling needs beyond the answer itself
            max_abs_diff=float(np.max(np.abs(o_naive - o_tiled))),
            naive_seconds=naive_s, tiled_seconds=tiled_s,
            naive_over_tiled=naive_peak / max(tiled_peak, 1)))
        del o_naive, o_tiled, q, k, v
    return rows


def format_rows(rows: list[dict]) -> str:
    """Aligned text table (MiB) for the command line."""
    mib = 2 ** 20
    lines = [f"{'N':>6} {'tile':>9} {'naive MiB':>10} {'N^2 MiB':>9} {'tiled MiB':>10} {'out MiB':>8} "
             f"{'ratio':>7} {'max diff':>9} {'naive s':>8} {'tiled s':>8}"]
    for r in rows:
        lines.append(f"{r['n']:>6} {r['block_rows']:>4}x{r['block_cols']:<4} {r['naive_peak_bytes'] / mib:>10.2f} "
                     f"{r['naive_theory_bytes'] / mib:>9.2f} {r['tiled_peak_bytes'] / mib:>10.3f} "
                     f"{r['output_bytes'] / mib:>8.3f} {r['naive_over_tiled']:>7.1f} {r['max_abs_diff']:>9.1e} "
                     f"{r['naive_seconds']:>8.3f} {r['tiled_seconds']:>8.3f}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(format_rows(run_exercise()))
