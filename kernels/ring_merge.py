"""The log-sum-exp merge of two partial attention results in one Triton pass (ring attention's per-step fold).

    merge_triton(acc, lse, out_b, lse_b) -> None     # in place: acc (B, H, N, d) any float dtype, lse (B, H, N) float32

For each query row, with the two partial results (acc, lse) and (out_b, lse_b) over disjoint key sets:
    m = max(lse, lse_b)                      (the reference point; 0 where both are -inf)
    alpha = e^(lse - m),  beta = e^(lse_b - m),  l = alpha + beta
    acc = (alpha acc + beta out_b) / l,   lse = m + log l
A row that saw no key (lse = -inf, out = 0) is the merge's identity; two empty rows stay empty (l = 0: weights 0,
lse = -inf, no NaN), as in ring_block.merge_torch. Reads acc, lse, out_b, lse_b once and writes acc, lse once; the
arithmetic is float32 whatever acc's dtype, so an fp16/bf16 acc is rounded once per merge. Every tensor is
addressed through its own strides, so row-slice views (acc[:, :, lo:hi]) and transposed layouts need no copy.
float64 stays with the torch merge (ring_block.merge decides).
"""
from . import _env  # noqa: F401  (decides TRITON_INTERPRET before triton is imported)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

ROWS_PER_PROGRAM = 32       # rows of one program: 32 x 128 elements of d = 128, a few KiB per tensor


@triton.jit
def _merge_kernel(acc, lse, ob, lb, n_rows, H, N, D,
                  sa_b, sa_h, sa_n, sa_d, sl_b, sl_h, sl_n, so_b, so_h, so_n, so_d, sb_b, sb_h, sb_n,
                  BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    r = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)   # flat row b*H*N + h*N + n
    live = r < n_rows
    n = r % N                                                   # the row's (b, h, n), for the strides
    h = (r // N) % H
    b = r // (N * H)
    la = tl.load(lse + b * sl_b + h * sl_h + n * sl_n, mask=live, other=float("-inf"))
    lb_ = tl.load(lb + b * sb_b + h * sb_h + n * sb_n, mask=live, other=float("-inf")).to(tl.float32)
    m = tl.maximum(la, lb_)                                     # m: the new reference point of the row
    m = tl.where(m == float("-inf"), 0.0, m)                    # both empty: reference 0, so no -inf - -inf
    alpha = tl.exp(la - m)                                      # rescale of the running result
    beta = tl.exp(lb_ - m)                                      # weight of the block's result
    l = alpha + beta                                            # ℓ relative to m; 0 only if both rows are empty
    inv = 1.0 / tl.where(l > 0, l, 1.0)
    col = tl.arange(0, BLOCK_D)
    cells = live[:, None] & (col[None, :] < D)
    pa = acc + (b * sa_b + h * sa_h + n * sa_n)[:, None] + col[None, :] * sa_d
    po = ob + (b * so_b + h * so_h + n * so_n)[:, None] + col[None, :] * so_d
    a = tl.load(pa, mask=cells, other=0.0).to(tl.float32)
    o = tl.load(po, mask=cells, other=0.0).to(tl.float32)
    out = a * (alpha * inv)[:, None] + o * (beta * inv)[:, None]   # the normalised fold, rounded once below
    tl.store(pa, out.to(acc.dtype.element_ty), mask=cells)
    tl.store(lse + b * sl_b + h * sl_h + n * sl_n, m + tl.log(l), mask=live)   # log 0 = -inf: still empty


def merge_triton(acc, lse, out_b, lse_b) -> None:
    """Fold (out_b, lse_b) into (acc, lse) in place; shapes (B, H, N, d) and (B, H, N); lse float32."""
    b, h, n, d = acc.shape
    rows = b * h * n
    if rows == 0 or d == 0:
        return
    grid = (triton.cdiv(rows, ROWS_PER_PROGRAM),)
    with _env.LAUNCH_LOCK:
        _merge_kernel[grid](acc, lse, out_b, lse_b, rows, h, n, d, *acc.stride(), *lse.stride(), *out_b.stride(),
                            *lse_b.stride(), BLOCK_R=ROWS_PER_PROGRAM, BLOCK_D=max(16, triton.next_power_of_2(d)),
                            num_warps=4)
