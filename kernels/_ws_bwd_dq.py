"""The dQ side of the ws backward (kernels/_ws_bwd_gluon.py, whose docstring describes the DQ_MODEs): the two
chained dQ MMAs over both consumers' keys, the split modes' adds (scalar or column-pair atomics) and the TMA modes'
reduce-add through shared memory. Imported by _ws_bwd_gluon.py only."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                               warpgroup_mma_wait)

from ._ws_bwd_walk import head, release
from .gluon_shims import tma_add

@gluon.jit
def dq_mmas(ds_smem, k_smem, slot, zq, col0, DP: gl.constexpr):
    """Issue dQ_i[:, col0 : col0 + DP] = dS (BM x 128) K[:, those columns] of the dS^T slot as two chained async MMAs,
    one per consumer's 64 keys (not one over a [128, x] view: see the module docstring); returns their token."""
    k0 = k_smem.index(0).slice(col0, DP, dim=1)       # these columns of both consumers' 64 keys
    k1 = k_smem.index(1).slice(col0, DP, dim=1)
    tok = warpgroup_mma(ds_smem.index(slot * 2).permute((1, 0)), k0, zq, use_acc=False, is_async=True)
    return warpgroup_mma(ds_smem.index(slot * 2 + 1).permute((1, 0)), k1, tok, is_async=True)


@gluon.jit
def dq_rows_mmas(ds_smem, k_smem, slot, zq, row0, MQ: gl.constexpr):
    """Issue dQ_i[row0 : row0 + MQ, :] = dS[those rows] (MQ x 128) K (128 x d) of the dS^T slot as two chained async
    MMAs, one per consumer's 64 keys ("rows": the rows are dS^T's columns, a 64-column chunk of its buffer)."""
    tok = warpgroup_mma(ds_smem.index(slot * 2).slice(row0, MQ, dim=1).permute((1, 0)), k_smem.index(0), zq,
                        use_acc=False, is_async=True)
    return warpgroup_mma(ds_smem.index(slot * 2 + 1).slice(row0, MQ, dim=1).permute((1, 0)), k_smem.index(1), tok,
                         is_async=True)


@gluon.jit
def dq_piece(ds_smem, k_smem, slot, zq, CID: gl.constexpr, BM: gl.constexpr, D: gl.constexpr,
             DQ_MODE: gl.constexpr):
    """Issue this consumer's dQ_i piece over all 128 keys: columns [CID d/2, (CID + 1) d/2), or with DQ_MODE 6 / 8
    ("rows", "rows-frag") rows [CID BM/2, (CID + 1) BM/2) of all d columns (one N = d MMA chain, not two of
    N = d / 2)."""
    if DQ_MODE == 6 or DQ_MODE == 8:
        tok = dq_rows_mmas(ds_smem, k_smem, slot, zq, CID * (BM // 2), BM // 2)
    else:
        tok = dq_mmas(ds_smem, k_smem, slot, zq, CID * (D // 2), D // 2)
    return tok


@gluon.jit
def dq_split(a, c, start, zq, row_ptr, row_ok, dcols, CID: gl.constexpr, BM: gl.constexpr, D: gl.constexpr,
              DQ_SPLIT: gl.constexpr, DQ_MODE: gl.constexpr):
    """DQ_MODE 1-8: once both halves of dS^T of block c are in shared memory, dQ_i's columns
    [CID d/2, (CID + 1) d/2) over all 128 keys (6 and 8: rows [CID BM/2, (CID + 1) BM/2) of all d), dS @ K, added
    once (2: as column pairs, 3-8: by one TMA reduce-add of the piece from shared memory, rows from `start`)."""
    (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
     kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, keyb, tiles,
     keyb_b, tiles_b, n_heads, groups, stats_smem) = a
    DP: gl.constexpr = D // 2 // DQ_SPLIT
    NSLOT: gl.constexpr = 2 if DQ_MODE >= 4 else 1
    slot = c & (NSLOT - 1)                            # c % NSLOT and (c // NSLOT) & 1 for NSLOT 1 or 2, c >= 0
    mbarrier.wait(ds_ready.index(slot), (c >> (NSLOT - 1)) & 1)   # both consumers stored their half of block c
    for h in gl.static_range(DQ_SPLIT):
        if DQ_MODE >= 3:                              # DQ_SPLIT 1: the whole piece
            dq_tok = dq_piece(ds_smem, k_smem, slot, zq, CID, BM, D, DQ_MODE)
        else:
            dq_tok = dq_mmas(ds_smem, k_smem, slot, zq, CID * (D // 2) + h * DP, DP)
        dq = warpgroup_mma_wait(0, deps=(dq_tok,))
        if h == DQ_SPLIT - 1:
            release(ds_free.index(slot))              # this consumer no longer reads dS^T (nor K) of block c
        if DQ_MODE >= 3:                              # DQ_SPLIT 1: the whole d / 2 piece at once
            dq_tma_add(a, dq, start, c, CID, BM, D, DQ_MODE)
        else:
            ptrs = row_ptr + gl.expand_dims(CID * (D // 2) + h * DP + dcols, 0)
            if DQ_MODE == 1:
                gl.atomic_add(ptrs, dq, mask=row_ok, sem="relaxed")
            else:
                _red_add_v2(ptrs, dq, row_ok, BM, DP)


@gluon.jit
def dq_tma_add(a, dq, start, c, CID: gl.constexpr, BM: gl.constexpr, D: gl.constexpr, DQ_MODE: gl.constexpr):
    """The BM x d/2 fp32 piece dq of block c (dQ rows from start, columns [CID d/2, (CID + 1) d/2); DQ_MODE 6: the
    BM/2 x d piece of rows from start + CID BM/2) through this consumer's shared buffer (DQ_MODE 5: two, used in
    turn) into the fp32 dQ buffer by one TMA reduce-add."""
    (desc_q, desc_do, desc_k, desc_v, desc_dk, desc_dv, DQ, LSE, DELTA, q_smem, do_smem, k_smem, v_smem, ds_smem,
     kv_bar, ready, empty, ds_ready, ds_free, qk_scale, qk_inv, sm_scale, n_q, n_k, n_dq, desc_dq, dq_smem, keyb, tiles,
     keyb_b, tiles_b, n_heads, groups, stats_smem) = a
    NBUF: gl.constexpr = 2 if DQ_MODE == 5 else 1
    buf = dq_smem.index((c & (NBUF - 1)) * 2 + CID)          # c % NBUF, NBUF 1 or 2
    tma.store_wait(NBUF - 1)                          # the reduce that last read buf (block c - NBUF) is done
    if DQ_MODE == 7 or DQ_MODE == 8:                  # "frag", "rows-frag": the accumulator's order
        buf.store(frag_order(dq))
    else:
        buf.store(dq)
    fence_async_shared()
    if n_dq > 0:                                      # (0: timing without the adds)
        if DQ_MODE == 7 or DQ_MODE == 8:              # piece (block, CID): FR rows of 32 from (2 block + CID) FR
            FR: gl.constexpr = BM * D // 64
            tma_add(desc_dq, [head(), (start // BM * 2 + CID) * FR, 0], buf.reshape([1, FR, 32]))
        elif DQ_MODE == 6:
            tma_add(desc_dq, [head(), start + CID * (BM // 2), 0], buf.reshape([1, BM // 2, D]))
        else:
            tma_add(desc_dq, [head(), start, CID * (D // 2)], buf.reshape([1, BM, D // 2]))


@gluon.jit
def frag_order(dq):
    """A 64 x 64 piece ("frag": BM x d/2, "rows-frag": BM/2 x d; rows 16 w + 8 i + r, columns 8 j + 2 q + p) as
    128 rows of 32 in the order (j, w, r, q, i, p): the order the wgmma accumulator holds it in (warp w, lane 4 r + q,
    registers (j, i, p)), so each thread's four (i, p) values are one 16-byte store and each warp's store is 512
    contiguous bytes (no bank conflicts). ws_bwd.frag_index and the cast kernel undo it. A relabelling: no data
    moves between threads."""
    x = gl.reshape(dq, [4, 2, 8, 8, 4, 2])           # (w, i, r, j, q, p)
    x = gl.permute(x, [3, 0, 2, 4, 1, 5])            # (j, w, r, q, i, p)
    return gl.reshape(x, [128, 32])


@gluon.jit
def _red_add_v2(ptrs, vals, row_ok, BM: gl.constexpr, DP: gl.constexpr):
    """vals[r, c] += into *ptrs[r, c] where row_ok[r], two adjacent columns per red.global.add.v2.f32 (sm_90, PTX
    ISA 8.1): the wgmma accumulator layout holds column pairs in one thread, so the split into even / odd columns
    stays in registers; ptrs of even columns are 8-byte aligned (d even, fp32 buffer)."""
    p_even, p_odd = gl.split(gl.reshape(ptrs, [BM, DP // 2, 2]))
    v_even, v_odd = gl.split(gl.reshape(vals, [BM, DP // 2, 2]))
    ok = gl.where(row_ok, gl.full_like(vals, 1, dtype=gl.int32), 0)    # [BM, DP], the row mask as 0 / 1
    ok_even, ok_odd = gl.split(gl.reshape(ok, [BM, DP // 2, 2]))
    gl.inline_asm_elementwise(
        "{ .reg .pred p; setp.ne.b32 p, $4, 0; @p red.relaxed.gpu.global.add.v2.f32 [$1], {$2, $3}; mov.b32 $0, 0; }",
        "=r,l,f,f,r", [p_even.to(gl.int64), v_even, v_odd, ok_even], dtype=gl.int32, is_pure=False, pack=1)
