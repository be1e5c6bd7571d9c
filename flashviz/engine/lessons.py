"""Small engines behind the lessons that tie the pages together (numpy, no UI).

  causal alignment   top-left (query i sees key j <= i) vs bottom-right (j <= i + Nk - Nq, what the kernels
                     and FlashAttention-2 use) when Nq != Nk: the element mask and the Br x Bc block kinds
  sizes              the N x N score matrix vs what the flash kernel keeps (O and the log-sum-exp)
  fusion             the HBM traffic of the unfused kernel chain (scale, QK^T, mask, softmax, dropout, PV),
                     and a stored dropout mask vs the Philox seed and offset that regenerate it
"""
from __future__ import annotations

import numpy as np

from ..infra.errors import InputError, check_int
from .tiling import FULL, MASKED, MAX_GRID_CELLS, SKIPPED

ALIGNS = ("top_left", "bottom_right")
MAX_SEQ = 1 << 20
LSE_BYTES = 4                   # the log-sum-exp is kept in fp32
PHILOX_STATE_BYTES = 16         # a 64-bit seed and a 64-bit offset: all the backward needs to redraw the mask


# ----------------------------------------------------------------------------- causal alignment

def _offset(nq: int, nk: int, align: str) -> int:
    if align not in ALIGNS:
        raise InputError(key="errors.one_of", name="alignment", choices=", ".join(ALIGNS), got=repr(align))
    return nk - nq if align == "bottom_right" else 0


def causal_visible(nq: int, nk: int, align: str) -> np.ndarray:
    """(Nq, Nk) bool: query i sees key j iff j <= i + offset (offset 0 top-left, Nk - Nq bottom-right)."""
    nq, nk = check_int("Nq", nq, 1, 1 << 14), check_int("Nk", nk, 1, 1 << 14)
    off = _offset(nq, nk, align)
    return np.arange(nk)[None, :] <= np.arange(nq)[:, None] + off


def alignment_blocks(nq: int, nk: int, br: int, bc: int, align: str) -> np.ndarray:
    """(Tr, Tc) int8 of tiling's FULL / MASKED / SKIPPED for a causal mask of this alignment.

    Block rows q0..q1, keys k0..k1 (the last ones ragged): FULL if the last key is visible to the first
    query (k1 <= q0 + offset), SKIPPED if the first key is hidden from the last query (k0 > q1 + offset),
    MASKED (partly visible, computed with a mask) otherwise."""
    nq, nk = check_int("Nq", nq, 1, MAX_SEQ), check_int("Nk", nk, 1, MAX_SEQ)
    br, bc = check_int("block size Br", br, 1, nq), check_int("block size Bc", bc, 1, nk)
    tr, tc = -(-nq // br), -(-nk // bc)
    if tr * tc > MAX_GRID_CELLS:
        raise InputError(key="errors.grid_cap", tr=tr, tc=tc, cap=MAX_GRID_CELLS)
    off = _offset(nq, nk, align)
    ii, jj = np.arange(tr)[:, None], np.arange(tc)[None, :]
    q0, q1 = ii * br, np.minimum((ii + 1) * br, nq) - 1
    k0, k1 = jj * bc, np.minimum((jj + 1) * bc, nk) - 1
    kind = np.full((tr, tc), MASKED, np.int8)
    kind[np.broadcast_to(k1 <= q0 + off, kind.shape)] = FULL
    kind[np.broadcast_to(k0 > q1 + off, kind.shape)] = SKIPPED
    return kind


def alignment_summary(nq: int, nk: int, br: int, bc: int, align: str) -> dict:
    """Counts a page states: blocks of each kind, visible pairs, queries that see no key at all, keys that
    no query sees."""
    kind = alignment_blocks(nq, nk, br, bc, align)
    off = _offset(nq, nk, align)
    rows = np.arange(nq, dtype=np.int64)
    seen = np.clip(rows + off + 1, 0, nk)                   # keys 0..i+off visible, clipped to 0..Nk
    hidden = min(nk, max(0, nk - (nq + off)))               # keys after the last query's reach
    return dict(full=int((kind == FULL).sum()), masked=int((kind == MASKED).sum()),
                skipped=int((kind == SKIPPED).sum()), visible_pairs=int(seen.sum()),
                dead_rows=int((seen == 0).sum()), hidden_keys=hidden, offset=off, tr=kind.shape[0],
                tc=kind.shape[1])


# ----------------------------------------------------------------------------- sizes

def score_matrix_bytes(n: int, heads: int, elem_bytes: int, batch: int = 1) -> int:
    """One N x N score matrix S per (batch, head): B H N^2 element bytes."""
    n, heads = check_int("N", n, 1, MAX_SEQ), check_int("heads H", heads, 1)
    return check_int("batch B", batch, 1) * heads * n * n * check_int("element size", elem_bytes, 1, 16)


def flash_kept_bytes(n: int, d: int, heads: int, elem_bytes: int, batch: int = 1) -> int:
    """What the flash forward keeps for the backward: O (B H N d elements) and the fp32 log-sum-exp (B H N)."""
    n, d, heads = check_int("N", n, 1, MAX_SEQ), check_int("head dim d", d, 1, 1024), check_int("heads H", heads, 1)
    bh = check_int("batch B", batch, 1) * heads
    return bh * n * d * check_int("element size", elem_bytes, 1, 16) + bh * n * LSE_BYTES


SIZE_EXAMPLES = ((2048, 1), (8192, 32), (65536, 32))     # (N, heads): the examples a student should compute


def size_examples(d: int = 128, elem_bytes: int = 2, extra: tuple[int, int] | None = None) -> list[dict]:
    """[{n, heads, scores, kept, ratio}] for SIZE_EXAMPLES (+ `extra` = (N, heads)), batch 1."""
    rows = []
    for n, h in (*SIZE_EXAMPLES, *([extra] if extra else [])):
        s, k = score_matrix_bytes(n, h, elem_bytes), flash_kept_bytes(n, d, h, elem_bytes)
        rows.append(dict(n=n, heads=h, scores=s, kept=k, ratio=s / k))
    return rows


# ----------------------------------------------------------------------------- fusion

def unfused_stages(n: int, d: int, elem_bytes: int, *, scale: bool = True, mask: bool = False,
                   dropout: bool = False, mask_elem_bytes: int = 1) -> list[dict]:
    """HBM bytes per (batch, head) of attention as separate kernels, each reading its input from HBM and
    writing its output back: [{stage, reads, writes}].

      scale    Q * (1/sqrt d) as its own elementwise kernel (kernels/naive.py does this)
      qk       S = Q K^T                        reads Q, K      writes S (N x N)
      mask     S masked (causal)                reads S, a bool mask (1 byte each), writes S
      softmax  P = softmax(S)                   reads S         writes P
      dropout  P' = P * mask / (1 - p)          reads P         writes P' and the bool keep-mask it saves
      pv       O = P' V                         reads P', V     writes O
    Without scale, mask and dropout the sum is flashviz.engine.traffic.standard_counts's 4N^2 + 4Nd elements."""
    n, d = check_int("N", n, 1, MAX_SEQ), check_int("head dim d", d, 1, 1024)
    e, nn, nd = check_int("element size", elem_bytes, 1, 16), n * n, n * d
    out = []
    if scale:
        out.append(dict(stage="scale", reads=nd * e, writes=nd * e))
    out.append(dict(stage="qk", reads=2 * nd * e, writes=nn * e))
    if mask:
        out.append(dict(stage="mask", reads=nn * e + nn * mask_elem_bytes, writes=nn * e))
    out.append(dict(stage="softmax", reads=nn * e, writes=nn * e))
    if dropout:
        out.append(dict(stage="dropout", reads=nn * e, writes=nn * e + nn * mask_elem_bytes))
    out.append(dict(stage="pv", reads=nn * e + nd * e, writes=nd * e))
    return out


def fused_compulsory_bytes(n: int, d: int, elem_bytes: int) -> int:
    """The least a fused kernel must move per head: read Q, K, V once, write O and the fp32 LSE once."""
    n, d = check_int("N", n, 1, MAX_SEQ), check_int("head dim d", d, 1, 1024)
    return 4 * n * d * check_int("element size", elem_bytes, 1, 16) + n * LSE_BYTES


def dropout_state_bytes(n: int, batch: int, heads: int) -> dict:
    """What the backward needs to apply the same dropout again: a stored keep-mask (as a bool tensor, 1 byte
    per element, which PyTorch's native dropout saves; or packed at 1 bit) vs the Philox seed and offset."""
    n = check_int("N", n, 1, MAX_SEQ)
    cells = check_int("batch B", batch, 1) * check_int("heads H", heads, 1) * n * n
    return dict(elements=cells, bool_bytes=cells, bit_bytes=-(-cells // 8), philox_bytes=PHILOX_STATE_BYTES)
