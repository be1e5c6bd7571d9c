"""Online softmax for one query row, tile by tile (numpy, float64, no UI).

Symbols of the FlashAttention papers, glossed once:
  m      running maximum of the scores seen so far (for numerical stability)
  l      running sum  sum_j exp(s_j - m)  over the keys seen so far   (the paper's ℓ)
  alpha  rescale factor exp(m_old - m_new): fixes everything accumulated under an old maximum
  o      the output accumulator (two forms, below); the answer is out = o / l or o itself
  Bc     key tile size (`tile_size` here); Tc = ceil(N / Bc) tiles, so Tc steps

The recurrence after tile t with scores s_t and values V_t, in the form FlashAttention-2 (Dao, 2023)
and this app's kernels use (`form="fa2"`, the default): o stays unnormalised and is divided by l once,
after the last tile.
  m_new = max(m_old, max(s_t))
  alpha = exp(m_old - m_new)
  l_new = alpha * l_old + sum(exp(s_t - m_new))
  o_new = alpha * o_old + exp(s_t - m_new) @ V_t           out = o / l
The first paper (Dao et al., 2022, Algorithm 1) keeps o normalised after every tile instead
(`form="fa1"`), multiplying by diag(l_new)^-1 each step:
  o_new = (alpha * l_old * o_old + exp(s_t - m_new) @ V_t) / l_new     out = o
Same m, alpha and l; after each tile fa1's o equals fa2's o / l up to rounding. FA2 drops the per-step
division (a non-matmul FLOP per element of o on every tile).

Masked keys carry score -inf. If every key seen so far is masked, m_new is -inf and
exp(s - m_new) = exp(-inf - -inf) = NaN: the pitfall the lesson warns about. `guard=True`
substitutes 0 for an infinite m_new inside the exponentials (as real kernels do), so such
tiles contribute nothing and a fully masked row returns zeros, like PyTorch SDPA (fa1: o stays 0
while l is 0 instead of dividing by it).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from flashviz_kernels import rules

from ..infra.errors import InputError, check_int
from .variants import make_variant, row_intervals

MAX_N = 65536          # longest row the engine accepts (the pages cap lower)
MAX_D = 256            # widest head dim
FORMS = ("fa2", "fa1")  # accumulator forms: unnormalised o divided once (FA2), normalised every step (FA1)


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
    o: np.ndarray             # (Tc, d) accumulator after the tile, in `form`: fa2 unnormalised, fa1 normalised
    o_normalised: np.ndarray  # (Tc, d) o / l (fa2) or o (fa1): softmax over the keys seen so far, times V
    rescaled: np.ndarray      # (Tc,) bool: the max moved while something was accumulated
    exact: np.ndarray         # (d,) softmax(scores) @ values, computed the textbook way
    tile_sum: np.ndarray      # (Tc,) rowsum(exp(s_t - m_new)): this tile's share of l
    tile_pv: np.ndarray       # (Tc, d) exp(s_t - m_new) @ V_t: this tile's share of (unnormalised) o
    form: str = "fa2"         # which accumulator form `o` holds (FORMS)

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
        raise InputError(key="errors.scores_1d", shape=str(s.shape))
    n = s.shape[0]
    if n < 1:
        raise InputError(key="errors.no_keys")
    if n > MAX_N:
        raise InputError(key="errors.n_cap", n=n, cap=MAX_N)
    if np.isnan(s).any():
        raise InputError(key="errors.scores_nan", k=int(np.flatnonzero(np.isnan(s))[0]))
    if np.isposinf(s).any():
        raise InputError(key="errors.scores_posinf")
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2 or v.shape[0] != n:
        raise InputError(key="errors.values_shape", n=n, shape=str(v.shape))
    if not 1 <= v.shape[1] <= MAX_D:
        raise InputError(key="errors.head_dim", hi=MAX_D, got=v.shape[1])
    if not np.isfinite(v).all():
        raise InputError(key="errors.values_finite")
    t = rules.as_int(tile_size)
    if t is None:
        raise InputError(key="errors.not_int", name="tile size", got=repr(tile_size))
    if not 1 <= t <= n:
        raise InputError(key="errors.tile_range", n=n, got=t)
    return s, v, t


def online_softmax_trace(scores, values, tile_size: int, *, guard: bool = True, form: str = "fa2") -> Trace:
    """Stream one row of `scores` (N,) against `values` (N, d) in tiles of `tile_size` keys.

    form "fa2" (default): o unnormalised, out = o / l; "fa1": o normalised every step (Algorithm 1)."""
    if form not in FORMS:
        raise InputError(key="errors.one_of", name="accumulator form", choices=", ".join(FORMS), got=repr(form))
    s, v, bc = _validate(scores, values, tile_size)
    n, d = v.shape
    tc = math.ceil(n / bc)                               # Tc steps
    start = np.arange(tc) * bc
    stop = np.minimum(start + bc, n)
    tile_max = np.empty(tc)
    m_t, alpha_t, l_t = np.empty(tc), np.empty(tc), np.empty(tc)
    o_t, sum_t, pv_t = np.empty((tc, d)), np.empty(tc), np.empty((tc, d))

    m, l, o = -np.inf, 0.0, np.zeros(d)                  # nothing seen yet
    with np.errstate(invalid="ignore", divide="ignore"):  # guard=False makes NaN on purpose
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
            p_sum, pv = p.sum(), p @ v_tile              # rowsum(e^{S_j - m_new}), e^{S_j - m_new} V_j
            l_new = alpha * l + p_sum                    # running sum
            if form == "fa2":
                o = alpha * o + pv                       # unnormalised accumulator, (d,)
            elif guard and l_new == 0:
                o = np.zeros(d)                          # nothing visible yet: no diag(l)^-1 of 0
            else:
                o = (alpha * l * o + pv) / l_new         # Algorithm 1: diag(l_new)^-1 (...)
            l = l_new
            if guard and m_new == -np.inf:
                alpha = 0.0                              # nothing accumulated, nothing to rescale
            m = m_new
            m_t[t], alpha_t[t], l_t[t], o_t[t], sum_t[t], pv_t[t] = m, alpha, l, o, p_sum, pv

    if form == "fa1":
        o_norm = o_t.copy()                              # already normalised
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            o_norm = o_t / l_t[:, None]
        if guard:
            o_norm[l_t == 0] = 0.0                       # nothing visible yet: zeros, not 0/0
    prev_m = np.concatenate([[-np.inf], m_t[:-1]])
    rescaled = (prev_m > -np.inf) & (m_t > prev_m)
    return Trace(scores=s, values=v, tile_size=bc, guard=guard, start=start, stop=stop,
                 tile_max=tile_max, m=m_t, alpha=alpha_t, l=l_t, o=o_t, o_normalised=o_norm,
                 rescaled=rescaled, exact=exact_attention_row(s, v), tile_sum=sum_t, tile_pv=pv_t, form=form)


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
            raise InputError(key="errors.row_range", hi=n - 1, got=causal_row)
        s[causal_row + 1:] = -np.inf
    idx = np.asarray(list(masked), dtype=np.int64)
    if idx.size:
        bad = idx[(idx < 0) | (idx >= n)]
        if bad.size:
            raise InputError(key="errors.masked_outside", pos=int(bad[0]), hi=n - 1)
        s[idx] = -np.inf
    return s


_TOKEN = re.compile(r"[,\s;]+")


def parse_scores(text: str) -> np.ndarray:
    """Typed scores such as '0.86, 0.45 1.45; -inf' -> float64 array. '-inf' (or 'mask') masks a key."""
    tokens = [t for t in _TOKEN.split(str(text).strip()) if t]
    if not tokens:
        raise InputError(key="errors.no_scores")
    if len(tokens) > MAX_N:
        raise InputError(key="errors.too_many_scores", count=len(tokens), cap=MAX_N)
    out = np.empty(len(tokens))
    for i, tok in enumerate(tokens):
        low = tok.lower()
        if low in ("-inf", "mask", "masked", "-∞"):
            out[i] = -np.inf
            continue
        try:
            x = float(tok)
        except ValueError:
            raise InputError(key="errors.score_not_number", i=i + 1, tok=tok) from None
        if math.isnan(x):
            raise InputError(key="errors.score_nan", i=i + 1)
        if math.isinf(x):
            raise InputError(key="errors.score_inf", i=i + 1)
        out[i] = x
    return out


def parse_positions(text: str, n: int) -> list[int]:
    """Masked key positions typed as '0 1 2' or '0-3, 7' -> sorted list of indices in 0..n-1."""
    out: set[int] = set()
    for tok in (t for t in _TOKEN.split(str(text).strip()) if t):
        span = re.fullmatch(r"(-?\d+)(?:-(\d+))?", tok)
        if span is None:
            raise InputError(key="errors.bad_position", tok=tok)
        a = int(span.group(1))
        b = int(span.group(2)) if span.group(2) is not None else a
        rng = range(min(a, b), max(a, b) + 1)
        for i in rng:
            if not 0 <= i < n:
                raise InputError(key="errors.masked_outside", pos=i, hi=n - 1)
            out.add(i)
    return sorted(out)


# ----------------------------------------------------------------------------- attention variants, one row

def variant_row(scores, row: int, *, nq: int | None = None, causal: bool = False, window=None, softcap=None,
                alibi_slope: float | None = None, seq_ids=None) -> np.ndarray:
    """One row's scaled scores q_i·k_j·scale (N,) as a variant kernel sees them, before the unchanged recurrence:
    softcap c·tanh(s/c), then ALiBi −slope·|i + Nk − Nq − j|, then −inf at keys outside the window / causal bound /
    the row's document (definitions in flashviz.engine.variants). `nq` defaults to Nk (one square problem)."""
    s = np.array(scores, dtype=np.float64)
    if s.ndim != 1:
        raise InputError(key="errors.scores_1d", shape=str(s.shape))
    nk = s.shape[0]
    nq = nk if nq is None else check_int("Nq", nq, 1, MAX_N)
    row = check_int("query row", row, 0, nq - 1)
    v = make_variant(causal=causal, window=window, softcap=softcap)
    if v.softcap is not None:
        s = v.softcap * np.tanh(s / v.softcap)
    if alibi_slope is not None:
        s = s - float(alibi_slope) * np.abs(row + nk - nq - np.arange(nk))
    lo, hi = row_intervals(v, nq, nk, seq_ids)
    keys = np.arange(nk)
    s[(keys < lo[row]) | (keys > hi[row])] = -np.inf
    return s


def variant_trace(q, k, v, row: int, tile_size: int, *, head: int = 0, causal: bool = False, window=None,
                  softcap=None, alibi_slopes=None, seq_ids=None, guard: bool = True, form: str = "fa2") -> Trace:
    """online_softmax_trace of query row `row` of q (Nq, d) against k, v (Nk, d) under a variant (variant_row);
    `head` picks this row's ALiBi slope from `alibi_slopes` (H,)."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    slope = None
    if alibi_slopes is not None:
        slopes = np.asarray(alibi_slopes, dtype=np.float64).reshape(-1)
        slope = float(slopes[check_int("head", head, 0, slopes.shape[0] - 1)])
    nq = q.shape[0]
    raw = row_scores(q[check_int("query row", row, 0, nq - 1)], k)
    s = variant_row(raw, row, nq=nq, causal=causal, window=window, softcap=softcap, alibi_slope=slope,
                    seq_ids=seq_ids)
    return online_softmax_trace(s, v, tile_size, guard=guard, form=form)
