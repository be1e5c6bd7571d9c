"""Online softmax for one query row, tile by tile (numpy, float64, no UI).

Symbols as in the FlashAttention paper, glossed once:
  m      running maximum of the scores seen so far (for numerical stability)
  l      running sum  sum_j exp(s_j - m)  over the keys seen so far   (the paper's ℓ)
  alpha  rescale factor exp(m_old - m_new): fixes everything accumulated under an old maximum
  o      unnormalised accumulator  sum_j exp(s_j - m) v_j;  the answer is o / l
  Bc     key tile size (`tile_size` here); Tc = ceil(N / Bc) tiles, so Tc steps

The recurrence after tile t with scores s_t and values V_t:
  m_new = max(m_old, max(s_t))
  alpha = exp(m_old - m_new)
  l_new = alpha * l_old + sum(exp(s_t - m_new))
  o_new = alpha * o_old + exp(s_t - m_new) @ V_t

Masked keys carry score -inf. If every key seen so far is masked, m_new is -inf and
exp(s - m_new) = exp(-inf - -inf) = NaN: the pitfall the lesson warns about. `guard=True`
substitutes 0 for an infinite m_new inside the exponentials (as real kernels do), so such
tiles contribute nothing and a fully masked row returns zeros, like PyTorch SDPA.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .errors import InputError, check_int

MAX_N = 65536          # longest row the engine accepts (the pages cap lower)
MAX_D = 256            # widest head dim


@dataclass(frozen=True, eq=False)
class Trace:
    """Everything one query row's online softmax did, one entry per tile (Tc entries)."""

    scores: np.ndarray        # (N,)      the row of scores, -inf where masked
    values: np.ndarray        # (N, d)
    tile_size: int            # Bc
    guard: bool
    start: np.ndarray         # (Tc,) first key index of each tile
    stop: np.ndarray          # (Tc,) one past the last key index (ragged last tile)
    tile_max: np.ndarray      # (Tc,) max score inside the tile
    m: np.ndarray             # (Tc,) running max after the tile
    alpha: np.ndarray         # (Tc,) exp(m[t-1] - m[t]); 0 while nothing was accumulated
    l: np.ndarray             # (Tc,) running sum after the tile
    o: np.ndarray             # (Tc, d) unnormalised accumulator after the tile
    o_normalised: np.ndarray  # (Tc, d) o / l: softmax over the keys seen so far, times V
    rescaled: np.ndarray      # (Tc,) bool: the max moved while something was accumulated
    exact: np.ndarray         # (d,) softmax(scores) @ values, computed the textbook way

    @property
    def n(self) -> int:
        return int(self.scores.shape[0])

    @property
    def d(self) -> int:
        return int(self.values.shape[1])

    @property
    def steps(self) -> int:
        return int(self.m.shape[0])

    @property
    def output(self) -> np.ndarray:
        return self.o_normalised[-1]

    def error(self, t: int) -> float:
        """Max |o[t]/l[t] - exact| after tile t (NaN if the pitfall struck)."""
        return float(np.max(np.abs(self.o_normalised[t] - self.exact)))


def exact_attention_row(scores: np.ndarray, values: np.ndarray) -> np.ndarray:
    """softmax(scores) @ values the textbook way: whole row at once; zeros if every key is masked."""
    scores = np.asarray(scores, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    mx = scores.max()
    if mx == -np.inf:
        return np.zeros(values.shape[1])
    p = np.exp(scores - mx)
    return (p / p.sum()) @ values


def _validate(scores, values, tile_size) -> tuple[np.ndarray, np.ndarray, int]:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1:
        raise InputError(f"scores must be one row (1-D), got shape {s.shape}")
    n = s.shape[0]
    if n < 1:
        raise InputError("the row has no keys: N must be at least 1")
    if n > MAX_N:
        raise InputError(f"N = {n} is above the cap of {MAX_N} keys")
    if np.isnan(s).any():
        raise InputError(f"scores contain NaN at key {int(np.flatnonzero(np.isnan(s))[0])}")
    if np.isposinf(s).any():
        raise InputError("scores contain +inf; use -inf to mask a key")
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2 or v.shape[0] != n:
        raise InputError(f"values must be shaped (N, d) = ({n}, d), got {v.shape}")
    if not 1 <= v.shape[1] <= MAX_D:
        raise InputError(f"head dim d must be 1..{MAX_D}, got {v.shape[1]}")
    if not np.isfinite(v).all():
        raise InputError("values must be finite")
    return s, v, check_int("tile size", tile_size, 1, n)


def online_softmax_trace(scores, values, tile_size: int, *, guard: bool = True) -> Trace:
    """Stream one row of `scores` (N,) against `values` (N, d) in tiles of `tile_size` keys."""
    s, v, bc = _validate(scores, values, tile_size)
    n, d = v.shape
    tc = math.ceil(n / bc)                               # Tc steps
    start = np.arange(tc) * bc
    stop = np.minimum(start + bc, n)
    tile_max = np.empty(tc)
    m_t, alpha_t, l_t = np.empty(tc), np.empty(tc), np.empty(tc)
    o_t = np.empty((tc, d))

    m, l, o = -np.inf, 0.0, np.zeros(d)                  # nothing seen yet
    with np.errstate(invalid="ignore"):                  # guard=False makes NaN on purpose
        for t in range(tc):
            s_tile, v_tile = s[start[t]:stop[t]], v[start[t]:stop[t]]   # (Bc,), (Bc, d)
            tile_max[t] = s_tile.max()
            m_new = max(m, tile_max[t])                  # running max
            if not guard or m_new > -np.inf:
                m_ref = m_new
            else:
                m_ref = 0.0                              # guard: every key so far masked
            alpha = np.exp(m - m_ref)                    # rescale what came before
            p = np.exp(s_tile - m_ref)                   # this tile's weights, (Bc,)
            l = alpha * l + p.sum()                      # running sum
            o = alpha * o + p @ v_tile                   # running accumulator, (d,)
            if guard and m_new == -np.inf:
                alpha = 0.0                              # nothing accumulated, nothing to rescale
            m = m_new
            m_t[t], alpha_t[t], l_t[t], o_t[t] = m, alpha, l, o

    with np.errstate(invalid="ignore", divide="ignore"):
        o_norm = o_t / l_t[:, None]
    if guard:
        o_norm[l_t == 0] = 0.0                           # nothing visible yet: zeros, not 0/0
    prev_m = np.concatenate([[-np.inf], m_t[:-1]])
    rescaled = (prev_m > -np.inf) & (m_t > prev_m)
    return Trace(scores=s, values=v, tile_size=bc, guard=guard, start=start, stop=stop,
                 tile_max=tile_max, m=m_t, alpha=alpha_t, l=l_t, o=o_t, o_normalised=o_norm,
                 rescaled=rescaled, exact=exact_attention_row(s, v))


# ----------------------------------------------------------------------------- inputs

def make_qkv(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeded standard-normal Q, K, V, each (N, d), float64. One source for the stepper and kernels."""
    n, d = check_int("N", n, 1, MAX_N), check_int("head dim d", d, 1, MAX_D)
    rng = np.random.default_rng(int(seed))
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    return q, k, v


def row_scores(q_row: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Scores q·k_j / sqrt(d) for one query row (d,) against keys (N, d)."""
    return (k @ q_row) / math.sqrt(k.shape[1])


def apply_mask(scores: np.ndarray, *, causal_row: int | None = None,
               masked: list[int] | tuple[int, ...] | np.ndarray = ()) -> np.ndarray:
    """Copy of `scores` with -inf at masked keys: keys after `causal_row` (causal) and `masked` indices."""
    s = np.array(scores, dtype=np.float64)
    n = s.shape[0]
    if causal_row is not None:
        if not 0 <= causal_row < n:
            raise InputError(f"query row must be in 0..{n - 1}, got {causal_row}")
        s[causal_row + 1:] = -np.inf
    idx = np.asarray(list(masked), dtype=np.int64)
    if idx.size:
        bad = idx[(idx < 0) | (idx >= n)]
        if bad.size:
            raise InputError(f"masked position {int(bad[0])} is outside 0..{n - 1}")
        s[idx] = -np.inf
    return s


_TOKEN = re.compile(r"[,\s;]+")


def parse_scores(text: str) -> np.ndarray:
    """Typed scores such as '0.86, 0.45 1.45; -inf' -> float64 array. '-inf' (or 'mask') masks a key."""
    tokens = [t for t in _TOKEN.split(str(text).strip()) if t]
    if not tokens:
        raise InputError("no scores typed: enter numbers separated by commas or spaces")
    if len(tokens) > MAX_N:
        raise InputError(f"{len(tokens)} scores typed; the cap is {MAX_N}")
    out = np.empty(len(tokens))
    for i, tok in enumerate(tokens):
        low = tok.lower()
        if low in ("-inf", "mask", "masked", "-∞"):
            out[i] = -np.inf
            continue
        try:
            x = float(tok)
        except ValueError:
            raise InputError(f"score {i + 1} ('{tok}') is not a number") from None
        if math.isnan(x):
            raise InputError(f"score {i + 1} is NaN; type -inf to mask a key")
        if math.isinf(x):
            raise InputError(f"score {i + 1} is infinite; only -inf (a masked key) is allowed")
        out[i] = x
    return out


def parse_positions(text: str, n: int) -> list[int]:
    """Masked key positions typed as '0 1 2' or '0-3, 7' -> sorted list of indices in 0..n-1."""
    out: set[int] = set()
    for tok in (t for t in _TOKEN.split(str(text).strip()) if t):
        span = re.fullmatch(r"(-?\d+)(?:-(\d+))?", tok)
        if span is None:
            raise InputError(f"'{tok}' is not a position or a range like 0-3")
        a = int(span.group(1))
        b = int(span.group(2)) if span.group(2) is not None else a
        rng = range(min(a, b), max(a, b) + 1)
        for i in rng:
            if not 0 <= i < n:
                raise InputError(f"masked position {i} is outside 0..{n - 1}")
            out.add(i)
    return sorted(out)
