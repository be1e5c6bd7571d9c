"""Which keys a block of query rows sees: one @triton.jit helper for the forward kernels and the backward's dQ
kernel, which must agree on it key for key (a gradient over other keys than the forward's would be wrong).

Causal masking is bottom-right aligned: query row r sees key j when j <= r + offset, offset = n_k - n_q.
"""
import triton
import triton.language as tl


@triton.jit
def key_range(start_q, n_q, n_k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """(full, hi) for query rows start_q .. start_q + BLOCK_M - 1: every row sees keys [0, full), rounded down
    to whole BLOCK_N tiles so those tiles need no mask; some rows see keys [full, hi); no row sees keys >= hi."""
    offset = n_k - n_q
    if CAUSAL:
        hi = tl.minimum(tl.maximum(start_q + BLOCK_M + offset, 0), n_k)       # keys any row sees
        full = tl.minimum(tl.maximum(start_q + offset + 1, 0), n_k)           # keys every row sees
    else:
        hi = n_k
        full = n_k
    full = (full // BLOCK_N) * BLOCK_N
    return full, hi
