"""The ws forward's epilogue: a query tile's O normalised and stored by TMA through its Q slot (store_out), and
under PREV (persistent launches) the previous tile's store and the release of its slot, run inside the next tile
(kernels/_ws_tile.py's attend, kernels/_ws_half.py's half_step). Imported by those modules only."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma

from .gluon_shims import tma_store
from .numerics import LN2_C


@gluon.jit
def finish_prev(last_tile, desc_o, LSE, n_q, M_WG: gl.constexpr, D: gl.constexpr):
    """attend's PREV: the previous tile's store_out (none before a program's first tile)."""
    if last_tile[6]:                                  # last_tile: (acc, m, l, rows, bh, r0, has_prev, o_buf, ..)
        store_out(last_tile[0], last_tile[1], last_tile[2], last_tile[3], last_tile[7], desc_o, LSE, last_tile[4],
                  last_tile[5], n_q, M_WG, D)


@gluon.jit
def release_prev(last_tile):
    """attend's PREV: wait until the previous tile's O store has left its Q slot, then free the slot (q_rel)."""
    tma.store_wait(0)
    mbarrier.arrive(last_tile[8], pred=last_tile[6])  # q_rel, when there was a previous tile


@gluon.jit
def store_out(acc, m, l, rows, q_buf, desc_o, LSE, bh, r0, n_q, M_WG: gl.constexpr, D: gl.constexpr,
              EXACT0: gl.constexpr = False):
    """Normalise once (rows that saw no key stay zero, LSE -inf) and start the TMA store of O through Q's buffer;
    the caller waits for it (tma.store_wait) before that buffer is written again."""
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, D, 16])
    orow_l: gl.constexpr = gl.SliceLayout(1, o_layout)
    l_safe = gl.where(l == 0.0, 1.0, l)
    if EXACT0:                                        # CARRY: a no-key tile's acc may hold 0 * V_0 (NaN if V_0
        inv = gl.convert_layout(gl.where(l == 0.0, 0.0, 1.0 / l_safe), orow_l)     # is not finite): exactly 0
        out = gl.where(gl.expand_dims(inv == 0.0, 1), 0.0, acc * gl.expand_dims(inv, 1))
    else:
        out = acc * gl.expand_dims(gl.convert_layout(1.0 / l_safe, orow_l), 1)   # one division per row
    q_buf.store(out.to(desc_o.dtype))
    fence_async_shared()
    tma_store(desc_o, [bh, r0, 0], q_buf.reshape([1, M_WG, D]))
    lse = gl.where(l == 0.0, float("-inf"), (m + gl.log2(l_safe)) * LN2_C)
    gl.store(LSE + bh.to(gl.int64) * n_q + rows, lse, mask=rows < n_q)
