"""The cast pass of the ws backward's "frag" and "rows-frag" dQ modes (kernels/ws_bwd.py): its fp32 buffer holds
each block's dQ pieces in the MMA accumulator's order (_ws_bwd_dq.frag_order); this puts them back in row order,
scales by sm_scale and casts. One program per (head, query block, consumer) piece of 64 x 64: a contiguous 16 KB
load, the inverse relabelling, a row-major store (rows past n_q masked)."""
import triton
import triton.language as tl


@triton.jit
def dq_cast_frag(ACC, DQ, n_q, tq, sm_scale, BM: tl.constexpr, D: tl.constexpr, ROWS: tl.constexpr = False):
    pid = tl.program_id(0)                            # ((bh * tq) + block) * 2 + consumer
    cid = pid % 2
    blk = (pid // 2) % tq
    bh = pid // 2 // tq
    x = tl.load(ACC + pid.to(tl.int64) * 4096 + tl.arange(0, 4096))       # (j, w, r8, q, i, p); ws_bwd.FRAG_TILES
    x = tl.permute(tl.reshape(x, [8, 4, 8, 4, 2, 2]), [1, 4, 2, 0, 3, 5])  # (w, i, r8, j, q, p)
    x = tl.reshape(x, [64, 64])                       # rows 16 w + 8 i + r8, columns 8 j + 2 q + p
    if ROWS:                                          # "rows-frag": consumer cid's half of the rows, all d columns
        rows = blk * BM + cid * (BM // 2) + tl.arange(0, 64)
        cols = tl.arange(0, 64)
    else:                                             # "frag": all BM rows, consumer cid's half of the columns
        rows = blk * BM + tl.arange(0, 64)
        cols = cid * (D // 2) + tl.arange(0, 64)
    ptr = DQ + (bh.to(tl.int64) * n_q + rows[:, None]) * D + cols[None, :]
    tl.store(ptr, (x * sm_scale).to(DQ.dtype.element_ty), mask=rows[:, None] < n_q)
