"""Attention variants, in one place: which keys a query row sees and how its scores are modified.

Every kernel (naive, sdpa, teaching, fast, backward) takes its rules from here, so that they agree key for key
(a backward over other keys than its forward would be silently wrong).

Definitions (flash-attn's semantics; q has Nq rows, k has Nk keys, offset = Nk - Nq, so the last query row lines
up with the last key: bottom-right alignment):
  window = (left, right)   query i sees key j iff i + offset - left <= j <= i + offset + right; -1 = unbounded on
                           that side. causal=True is window (-1, 0); a causal window is the intersection, i.e.
                           (left, 0).
  seq_ids (B, N)           packed documents (needs Nq == Nk): i sees j only if seq_ids[b, i] == seq_ids[b, j].
                           The ids must be non-decreasing along N (each document one contiguous run).
  softcap = c > 0          the scaled score s = q.k * sm_scale becomes c * tanh(s / c).
  alibi_slopes (H,)/(B, H) then adds -slope[b, h] * |i + offset - j|.
  GQA / MQA                k and v have H_kv heads, H % H_kv == 0; query head h reads kv head h // (H // H_kv).
Order: s = q.k * sm_scale, then softcap, then + ALiBi, then the mask (-inf where not visible). A row that sees no
key gives zeros and log-sum-exp -inf.

Because the ids are contiguous runs, every row sees ONE interval of keys [lo_i, hi_i] (possibly empty, lo_i > hi_i):
  lo_i = max(0, i + offset - left (left >= 0), first index of i's document)
  hi_i = min(Nk - 1, i + offset + right (right >= 0), last index of i's document)
Both ends are non-decreasing in i. The host turns them into per-block tile ranges (`tables`, cached without
seq_ids); inside a masked tile the kernels test the window's definition in place, or, with packed documents,
load (lo_i, hi_i) per row (`row_bounds`): one @triton.jit `visible` for every kernel.

Tile rule (the kernels and the numpy engine count the same): query block t_q = rows [t_q Br, min((t_q+1) Br, Nq)),
key tile t_k = keys [t_k Bc, min((t_k+1) Bc, Nk)).
  * a tile is RUN iff at least one (row, key) pair of the Br x Bc block is visible (FlexAttention's non-empty
    block: kv_num_blocks + full_kv_num_blocks of create_block_mask). Because the rows' intervals are non-decreasing
    and the non-empty ones touch or overlap, the visible keys of a block form one interval [min lo, max hi] (over
    its rows that see anything), so the run tiles are one contiguous range [t_lo, t_hi).
  * a tile is FULL iff the whole Br x Bc block lies inside [0, Nq) x [0, Nk) and every pair in it is visible
    (FlexAttention's full block): keys [max lo, min hi] over the block's rows, whole tiles only. Full tiles run
    with no mask; the other run tiles are masked; tiles that are not run are skipped (teaching: trace stays NaN;
    KernelTrace.tiles_run (B, H, Tr) counts the tiles each query block ran).
  The backward's dK/dV kernel uses the same rule with rows and keys swapped (key block x query blocks).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import torch

from . import _env, doc_tables, rules  # _env first: it decides TRITON_INTERPRET before triton is imported
from .errors import KernelInputError, KernelTypeError


@dataclass(frozen=True, eq=False)
class Variant:
    """A validated, immutable attention variant. left/right: window sides after the causal intersection
    (-1 = unbounded). slopes: (1 or B, H) float32 or None. seq_ids: (B, N) int64 (non-decreasing) or None."""
    left: int = -1
    right: int = -1
    softcap: float | None = None
    slopes: torch.Tensor | None = None
    seq_ids: torch.Tensor | None = None
    groups: int = 1                                   # H // H_kv (1: plain multi-head)
    docs: dict | None = None                          # seq_ids' cached tables (kernels/doc_tables.py), shared

    @property
    def causal(self) -> bool:
        return self.right == 0 and self.left == -1

    @property
    def masked(self) -> bool:
        """True if some pair may be invisible for reasons other than ragged tile edges."""
        return self.left >= 0 or self.right >= 0 or self.seq_ids is not None

    @property
    def masks_before_full(self) -> bool:
        """Can a query block have masked key tiles BEFORE its full ones (tile_ranges' [t_lo, f_lo))? Only when a
        row's interval can start after key 0: a window's left side or a document start. Otherwise the kernels
        compile that stage out (the plain and causal kernels keep their two stages)."""
        return self.left >= 0 or self.seq_ids is not None

    @property
    def masks_before_full_by_key(self) -> bool:
        """The same for the dK/dV view (query blocks per key block): only when a key's rows can start after row 0,
        i.e. a window's right side (causal included) or a document start."""
        return self.right >= 0 or self.seq_ids is not None

    def flags(self) -> dict:
        """The constexpr flags and window scalars every Triton kernel takes for `visible` and `modify`."""
        return dict(LEFT=self.left >= 0, RIGHT=self.right >= 0, SEQ=self.seq_ids is not None,
                    SOFTCAP=self.softcap is not None, ALIBI=self.slopes is not None,
                    MODS=self.softcap is not None or self.slopes is not None)

    def describe(self) -> dict:
        return dict(window=(self.left, self.right), softcap=self.softcap, alibi=self.slopes is not None,
                    seq_ids=self.seq_ids is not None, groups=self.groups)


PLAIN = Variant()
CAUSAL = Variant(right=0)


# ------------------------------------------------------------------------------------------- validation

def parse(q, k, *, causal: bool, window=None, alibi_slopes=None, softcap=None, seq_ids=None) -> Variant:
    """Check the variant keywords against q (B, H, Nq, d) and k (B, H_kv, Nk, d); raise typed errors."""
    b, h, n_q = q.shape[0], q.shape[1], q.shape[2]
    h_kv, n_k = k.shape[1], k.shape[2]
    if h % h_kv:
        raise KernelInputError(f"q has H = {h} heads and k, v have H_kv = {h_kv}: H must be a multiple of H_kv "
                               "(GQA/MQA)", key="kernel_gqa_heads", h=h, h_kv=h_kv)
    left, right = _window(window)
    if causal:
        right = 0
    ids, docs = _seq_ids(seq_ids, b, n_q, n_k, q.device)
    return Variant(left=left, right=right, softcap=_softcap(softcap), slopes=_slopes(alibi_slopes, b, h, q.device),
                   seq_ids=ids, groups=h // h_kv, docs=docs)


def _window(window) -> tuple[int, int]:
    if window is None:
        return -1, -1
    if isinstance(window, (str, bytes)) or not hasattr(window, "__len__") or len(window) != 2:
        raise KernelInputError(f"window must be two integers (left, right), -1 = unbounded; got {window!r}",
                               key="kernel_window", value=repr(window))
    sides = [rules.as_int(x) for x in window]
    if any(x is None or x < -1 for x in sides):
        raise KernelInputError(f"window sides must be integers >= -1 (-1 = unbounded); got {tuple(window)!r}",
                               key="kernel_window", value=repr(tuple(window)))
    return sides[0], sides[1]


def _softcap(softcap) -> float | None:
    if softcap is None:
        return None
    if isinstance(softcap, (bool, np.bool_)) or not isinstance(softcap, (int, float, np.integer, np.floating)):
        raise KernelTypeError(f"softcap must be a number > 0 or None, got {softcap!r}", key="kernel_softcap",
                              value=repr(softcap))
    c = float(softcap)
    if not (math.isfinite(c) and c > 0):
        raise KernelInputError(f"softcap must be finite and > 0, got {c}", key="kernel_softcap", value=repr(c))
    return c


def _slopes(slopes, b: int, h: int, device) -> torch.Tensor | None:
    if slopes is None:
        return None
    if not isinstance(slopes, torch.Tensor) or not slopes.dtype.is_floating_point:
        what = type(slopes).__name__ if not isinstance(slopes, torch.Tensor) else str(slopes.dtype)
        raise KernelTypeError(f"alibi_slopes must be a floating-point torch.Tensor, got {what}",
                              key="kernel_alibi_type", got=what)
    if tuple(slopes.shape) not in ((h,), (b, h)):
        raise KernelInputError(f"alibi_slopes must be shaped (H,) = ({h},) or (B, H) = ({b}, {h}); got "
                               f"{tuple(slopes.shape)}", key="kernel_alibi_shape", shape=str(tuple(slopes.shape)),
                               b=b, h=h)
    if slopes.device != torch.device(device):
        raise KernelTypeError(f"alibi_slopes is on {slopes.device}, q on {device}: put them on one device",
                              key="kernel_variant_device", name="alibi_slopes")
    s = slopes.detach().to(torch.float32).reshape(-1, h)
    s = s.clone(memory_format=torch.contiguous_format)              # ours: the caller may reuse theirs
    if not bool(torch.isfinite(s).all()):
        raise KernelInputError("alibi_slopes must be finite", key="kernel_alibi_finite")
    return s


def _seq_ids(ids, b: int, n_q: int, n_k: int, device):
    """(validated int64 copy, its shared tables dict or None), or (None, None); reused per tensor (doc_tables)."""
    if ids is None:
        return None, None
    if not isinstance(ids, torch.Tensor) or ids.dtype.is_floating_point or ids.dtype.is_complex \
            or ids.dtype == torch.bool:
        what = type(ids).__name__ if not isinstance(ids, torch.Tensor) else str(ids.dtype)
        raise KernelTypeError(f"seq_ids must be an integer torch.Tensor, got {what}", key="kernel_seq_type", got=what)
    if n_q != n_k:
        raise KernelInputError(f"seq_ids needs Nq == Nk (packed self-attention); got Nq = {n_q}, Nk = {n_k}",
                               key="kernel_seq_lengths", n_q=n_q, n_k=n_k)
    if tuple(ids.shape) != (b, n_q):
        raise KernelInputError(f"seq_ids must be shaped (B, N) = ({b}, {n_q}); got {tuple(ids.shape)}",
                               key="kernel_seq_shape", shape=str(tuple(ids.shape)), b=b, n=n_q)
    if ids.device != torch.device(device):
        raise KernelTypeError(f"seq_ids is on {ids.device}, q on {device}: put them on one device",
                              key="kernel_variant_device", name="seq_ids")
    hit = doc_tables.lookup(ids)
    if hit is not None:
        return hit
    s = ids.detach().to(torch.int64).clone(memory_format=torch.contiguous_format)   # ours: the backward reuses it
    if n_q > 1 and not bool((s[:, 1:] >= s[:, :-1]).all()):
        raise KernelInputError("seq_ids must be non-decreasing along N (each packed document one contiguous run)",
                               key="kernel_seq_order")
    return s, doc_tables.store(ids, s)


# ------------------------------------------------------------------------------ torch rules (naive, sdpa)

def visible_mask(var: Variant, n_q: int, n_k: int, device) -> torch.Tensor:
    """(1 or B, 1, Nq, Nk) bool from the definitions: True where query i may see key j."""
    i = torch.arange(n_q, device=device)[:, None] + (n_k - n_q)
    j = torch.arange(n_k, device=device)[None, :]
    ok = torch.ones(n_q, n_k, dtype=torch.bool, device=device)
    if var.left >= 0:
        ok &= j >= i - var.left
    if var.right >= 0:
        ok &= j <= i + var.right
    ok = ok[None, None]
    if var.seq_ids is not None:
        ok = ok & (var.seq_ids[:, None, :, None] == var.seq_ids[:, None, None, :])
    return ok


def modify_scores(s: torch.Tensor, var: Variant) -> torch.Tensor:
    """Scaled scores (B, H, Nq, Nk) -> softcap, then ALiBi (float32 when either is on)."""
    if var.softcap is None and var.slopes is None:
        return s
    s = s.float()
    if var.softcap is not None:
        s = var.softcap * torch.tanh(s / var.softcap)
    if var.slopes is not None:
        n_q, n_k = s.shape[-2:]
        dist = (torch.arange(n_q, device=s.device)[:, None] + (n_k - n_q) - torch.arange(n_k, device=s.device)).abs()
        s = s - var.slopes[:, :, None, None] * dist
    return s


# ---------------------------------------------------------------------- host-side intervals and tile ranges

def row_bounds(var: Variant, n_q: int, n_k: int, device) -> torch.Tensor:
    """(1 or B, Nq, 2) int32: each query row's visible keys [lo, hi] (empty when lo > hi). Cached without seq_ids
    (read only: the kernels never write it)."""
    if var.seq_ids is None:
        return _plain_bounds(var.left, var.right, n_q, n_k, str(device))
    return _docs_cached(var, ("rows", var.left, var.right),
                        lambda: _bounds(var.left, var.right, n_q, n_k, var.seq_ids).to(torch.int32).contiguous())


def _docs_cached(var: Variant, key, build):
    """build() once per seq_ids tensor (var.docs, shared by every caller: the result is only ever read)."""
    if var.docs is None:
        return build()
    got = var.docs.get(key)
    if got is None:
        got = var.docs[key] = build()
    return got


@functools.lru_cache(maxsize=64)
def _plain_bounds(left, right, n_q, n_k, device):
    return _bounds(left, right, n_q, n_k, None, device).to(torch.int32).contiguous()


def _bounds(left, right, n_q, n_k, ids, device=None) -> torch.Tensor:
    device = ids.device if ids is not None else device
    i = torch.arange(n_q, device=device, dtype=torch.int64)[None, :]
    lo = torch.zeros_like(i)
    hi = torch.full_like(i, n_k - 1)
    if left >= 0:
        lo = torch.maximum(lo, i + (n_k - n_q) - left)
    if right >= 0:
        hi = torch.minimum(hi, i + (n_k - n_q) + right)
    if ids is not None:                                               # the row's document: one contiguous run
        lo = torch.maximum(lo, torch.searchsorted(ids, ids, right=False))
        hi = torch.minimum(hi, torch.searchsorted(ids, ids, right=True) - 1)
    lo, hi = torch.broadcast_tensors(lo, hi)
    return torch.stack((lo.clamp(-1, n_k), hi.clamp(-1, n_k)), -1)


def key_bounds(var: Variant, n_q: int, n_k: int, device) -> torch.Tensor:
    """(1 or B, Nk, 2) int32: for each key, the query rows [first, last] that see it (col_bounds of row_bounds; the
    ws backward masks by key). Cached like row_bounds (read only)."""
    if var.seq_ids is None:
        return _plain_key_bounds(var.left, var.right, n_q, n_k, str(device))
    return _docs_cached(var, ("keys", var.left, var.right),
                        lambda: col_bounds(row_bounds(var, n_q, n_k, device), n_k).to(torch.int32).contiguous())


@functools.lru_cache(maxsize=64)
def _plain_key_bounds(left, right, n_q, n_k, device):
    return col_bounds(_plain_bounds(left, right, n_q, n_k, device), n_k).to(torch.int32).contiguous()


def col_bounds(rows: torch.Tensor, n_k: int) -> torch.Tensor:
    """(Bs, Nk, 2) int64: for each key, the query rows [first, last] that see it, from row_bounds (both ends of
    the rows' intervals are non-decreasing, so a key's rows are one interval too)."""
    lo, hi = rows[..., 0].long().contiguous(), rows[..., 1].long().contiguous()
    j = torch.arange(n_k, device=rows.device, dtype=torch.int64).expand(rows.shape[0], n_k).contiguous()
    first = torch.searchsorted(hi, j, right=False)                    # first row with hi >= j
    last = torch.searchsorted(lo, j, right=True) - 1                  # last row with lo <= j
    return torch.stack((first, last), -1)


def tile_ranges(bounds: torch.Tensor, n_minor: int, b_major: int, b_minor: int) -> torch.Tensor:
    """(Bs, T_major, 4) int32 (t_lo, f_lo, f_hi, t_hi) in minor tiles per major block, from per-major intervals
    `bounds` (Bs, N_major, 2): run tiles [t_lo, t_hi), full tiles [f_lo, f_hi) inside it (f_lo = f_hi = t_lo when
    none). See the module docstring for the rule."""
    bs, n_major, _ = bounds.shape
    t = -(-n_major // b_major)
    pad = t * b_major - n_major
    lo, hi = bounds[..., 0].long(), bounds[..., 1].long()
    lo = torch.nn.functional.pad(lo, (0, pad), value=n_minor).view(bs, t, b_major)    # padding: sees nothing
    hi = torch.nn.functional.pad(hi, (0, pad), value=-1).view(bs, t, b_major)
    seen = lo <= hi
    big = n_minor + 1
    span_lo = torch.where(seen, lo, big).amin(-1)
    span_hi = torch.where(seen, hi, -1).amax(-1)
    any_seen = seen.any(-1)
    t_lo = torch.where(any_seen, span_lo // b_minor, 0)
    t_hi = torch.where(any_seen, span_hi // b_minor + 1, 0)
    whole = ((torch.arange(t, device=bounds.device) + 1) * b_major <= n_major)[None, :]
    f_lo = -(-lo.amax(-1) // b_minor)                                  # first whole tile at or after max lo
    f_hi = ((hi.amin(-1) + 1) // b_minor).clamp(max=n_minor // b_minor)
    ok = whole & seen.all(-1) & (f_hi > f_lo)
    f_lo, f_hi = torch.where(ok, f_lo, t_lo), torch.where(ok, f_hi, t_lo)
    return torch.stack((t_lo, f_lo, f_hi, t_hi), -1).to(torch.int32).contiguous()


def tables(var: Variant, n_q: int, n_k: int, device, block_m: int, block_n: int, *, by_key: bool = False):
    """(row_bounds, tile ranges) for a kernel with Br = block_m, Bc = block_n. by_key: the dK/dV view, ranges of
    query blocks (block_m) per key block (block_n). Cached without seq_ids."""
    rows = row_bounds(var, n_q, n_k, device)
    if var.seq_ids is None:
        return rows, _plain_ranges(var.left, var.right, n_q, n_k, str(device), block_m, block_n, by_key)
    if by_key:
        return rows, _docs_cached(var, ("cols", var.left, var.right, block_m, block_n),
                                  lambda: tile_ranges(col_bounds(rows, n_k), n_q, block_n, block_m))
    return rows, _docs_cached(var, ("tiles", var.left, var.right, block_m, block_n),
                              lambda: tile_ranges(rows, n_k, block_m, block_n))


@functools.lru_cache(maxsize=128)
def _plain_ranges(left, right, n_q, n_k, device, block_m, block_n, by_key):
    rows = _plain_bounds(left, right, n_q, n_k, device)
    if by_key:
        return tile_ranges(col_bounds(rows, n_k), n_q, block_n, block_m)
    return tile_ranges(rows, n_k, block_m, block_n)


def slopes_arg(var: Variant, like: torch.Tensor):
    """(pointer tensor, batch stride) of the ALiBi slopes for a kernel launch (a dummy when ALiBi is off)."""
    if var.slopes is None:
        return like, 0
    return var.slopes, (0 if var.slopes.shape[0] == 1 else var.slopes.stride(0))


def batch_stride(x: torch.Tensor) -> int:
    """Stride of a table's leading (1 or B) dimension: 0 when one table serves every batch entry."""
    return 0 if x.shape[0] == 1 else x.stride(0)


# ------------------------------------------------------------------------------ @triton.jit helpers
# (only where triton is installed: naive and sdpa need none of this, and the api says so when triton is missing)

if _env.HAS_TRITON:
    import triton
    import triton.language as tl

    @triton.jit
    def load_bounds(ROWB, base, rows, n_q):
        """(lo, hi) of the given query rows (rows past n_q: the empty interval [1, 0])."""
        ok = rows < n_q
        lo = tl.load(ROWB + base + rows * 2, mask=ok, other=1)
        hi = tl.load(ROWB + base + rows * 2 + 1, mask=ok, other=0)
        return lo, hi

    @triton.jit
    def load_range(TILES, base, t):
        """(t_lo, f_lo, f_hi, t_hi) of major block t: masked tiles [t_lo, f_lo) and [f_hi, t_hi), full [f_lo, f_hi)."""
        p = TILES + base + t * 4
        return tl.load(p), tl.load(p + 1), tl.load(p + 2), tl.load(p + 3)

    @triton.jit
    def visible(rows, cols, n_q, n_k, offset, left, right, ROWB, rowb0, LEFT: tl.constexpr, RIGHT: tl.constexpr,
                SEQ: tl.constexpr):
        """True where query row `rows` sees key `cols` (broadcastable: either layout). With packed documents the
        rows' intervals [lo, hi] come from the table (row_bounds, window included); otherwise the window's
        definition is computed in place (no table load: fewer registers in the masked tiles)."""
        if SEQ:
            row_lo, row_hi = load_bounds(ROWB, rowb0, rows, n_q)
            ok = (cols >= row_lo) & (cols <= row_hi)
        else:
            ok = cols < n_k
            if RIGHT:
                ok = ok & (cols <= rows + offset + right)
            if LEFT:
                ok = ok & (cols >= rows + offset - left)
        return ok

    @triton.jit
    def tanh(x):
        """tanh from exp (no libdevice: the interpreter runs it too); saturates to +-1 without NaN."""
        return 1.0 - 2.0 / (tl.exp(2.0 * x) + 1.0)

    @triton.jit
    def modify(s, rows, cols, offset, slope, softcap, SOFTCAP: tl.constexpr, ALIBI: tl.constexpr):
        """Scaled scores s (natural units) -> (softcap'd + ALiBi scores, ds_out/ds_in for the backward).
        rows and cols broadcast to s's shape (either layout: the dK/dV kernel works on S transposed)."""
        grad = tl.zeros_like(s) + 1.0                          # a tensor either way (unused ones are compiled away)
        if SOFTCAP:
            t = tanh(s / softcap)
            s = softcap * t
            grad = 1.0 - t * t
        if ALIBI:
            s = s - slope * tl.abs(rows + offset - cols).to(tl.float32)
        return s, grad
