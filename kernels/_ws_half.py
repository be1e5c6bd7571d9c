"""HALF in the ws forward: a band edge's key tile of which one consumer's 64 rows see only one half runs, for that
consumer, as a half tile (BN/2 keys: a Q·Kᵀ of N = BN/2, a masked softmax step, a P·V of K = BN/2). On a causal
window of 1024 keys at 128 x 128 tiles each consumer skips half of one of its 9 tiles: the first consumer (rows
r0 .. r0 + 63) the second half of the diagonal tile, the second the first half of the window's first tile. The
ring and the turns still see whole tiles (the producer loads them; both barriers are released once per ring position).
History: a first version (49a2e0b) timed faster on that window (H200, triton 3.6) and was reverted (3f907d6) as
a ptxas miscompile in persistent launches. This one never runs a half step alone (edge_halves keeps at least one
whole tile) and runs only where CARRY does not (PINGPONG launches; kernels/_ws_tile.py). On the H200 triton 3.6.0
built it wrong in persistent launches with a window (one tile per program and plain causal were right;
tools.half_check's recording), and triton 3.8.0 built the same source right. kernels/gates.py's "ws-half" rows
open it where its forced-HALF suites passed; elsewhere ws.forward runs whole tiles.
Why (read in the SASS, no GPU needed: tools.ptx_same's PTX through each ptxas, then nvdisasm): both builds get the
same PTX, in which the window's first half step (lo) and key tile 0 compute Q's wgmma descriptors by the same
expressions. ptxas 12.8 (triton 3.6, 3.7.1) keeps those of k-steps 1..7 from the half step's block and reads them in
key tile 0 also on the path that skipped it: a persistent tile with no lo step used the previous tile's Q slot,
or whatever the registers held where none ran before (the first consumer, which never runs one in a window
aligned to its tiles; d = 64's illegal address). ptxas 12.9 (triton 3.8) recomputes them.
HALF = 2 (ws.half_code, under triton 3.6 and 3.7) hands the lo step Q through an index ptxas cannot prove equal
(kernels/_ws_gluon.py _q_lo); ptxas 12.8 then builds key tile 0's descriptors on every path, and the forced-HALF
suites and half_check passed on 3.6.0 and 3.7.1 with it (2efc21f).
half_tail (ws_switches.half_tail_default: 3.8's default) issues the last half step's Q·Kᵀ right behind the last
whole tile's P·V instead of after its wait.
The forward table turns it on for the d = 128 window (kernels/forward_table.py HALF_W: faster in interleaved rounds
under triton 3.8; under 3.6 the window fit saw no gain, assets/benchmarks/tune/nvidia-h200-window-fit-2026-12-03f.json).
Imported by _ws_tile.py only."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, warpgroup_mma, warpgroup_mma_wait

from ._ws_ring import arrive, kbar, turn_pass, turn_wait, vbar
from ._ws_softmax import alibi_cols, from_quads, softmax_step, to_quads


@gluon.jit
def edge_halves(t_lo, n_tiles, r0, offset, left, M_WG: gl.constexpr, BN: gl.constexpr, CAUSAL: gl.constexpr,
                WINDOW: gl.constexpr):
    """(lo, hi) for one consumer's rows [r0, r0 + M_WG) over key tiles [t_lo, t_lo + n_tiles): lo = 1 when no row
    sees the first BN/2 keys of the first tile (every row's band starts, at r + offset - left, at or past its middle),
    hi = 1 when no row sees the last tile's second half (every row ends, at r + offset, before its middle); both 0
    unless a whole tile stays between (a half step never runs alone)."""
    HB: gl.constexpr = BN // 2
    lo = 0
    hi = 0
    if WINDOW:
        if t_lo * BN + HB <= r0 + offset - left:
            lo = 1
    if CAUSAL:
        if (t_lo + n_tiles - 1) * BN + HB > r0 + M_WG - 1 + offset:
            hi = 1
    if n_tiles - lo - hi < 1:
        lo = 0
        hi = 0
    return lo, hi


@gluon.jit
def half_step(a, q_buf, acc, m, l, c, k0, H: gl.constexpr, r0, offset, slope2, row_lo, row_hi, CID: gl.constexpr,
              NC: gl.constexpr, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr,
              WINDOW: gl.constexpr, PINGPONG: gl.constexpr, ALIBI: gl.constexpr):
    """Half H (0: keys [k0, k0 + BN/2), 1: the rest) of the key tile at ring position c: Q·K_hᵀ, a masked softmax
    step and P·V_h, one after the other, on BN/2-key slices of the ring's buffers; (acc, m, l) in attend's layouts.
    A first half step (H = 1) runs before attend's key tile 0, which still stores the previous tile's O (PREV):
    carrying that store here kept the previous O live through key tile 0 as well and spilled more (ptxas, 3.6)."""
    (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_ready, q_empty, ready, empty, turn,
     qk_scale, n_q, n_k, n_bh, head_group, left, n_heads, groups, slopes, slopes_b, rowb, tiles, rowb_b, tiles_b) = a
    HB: gl.constexpr = BN // 2
    h_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, HB, 16])
    st = c % STAGES
    mbarrier.wait(kbar(ready, st), (c // STAGES) & 1)
    if PINGPONG:
        turn_wait(turn, CID, c, PINGPONG)
    s_tok = warpgroup_mma(q_buf, k_smem.index(st).slice(H * HB, HB).permute((1, 0)),
                          gl.zeros([M_WG, HB], gl.float32, h_layout), use_acc=False, is_async=True)
    if PINGPONG:
        turn_pass(turn, (CID + 1) % NC, PINGPONG)
    s = warpgroup_mma_wait(0, deps=(s_tok,))
    return half_finish(a, s, acc, m, l, c, k0, H, r0, offset, slope2, row_lo, row_hi, M_WG, BN, D, STAGES, WINDOW,
                       ALIBI)


@gluon.jit
def half_finish(a, s, acc, m, l, c, k0, H: gl.constexpr, r0, offset, slope2, row_lo, row_hi, M_WG: gl.constexpr,
                BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, WINDOW: gl.constexpr, ALIBI: gl.constexpr):
    """A half step once its scores s (half H of the key tile at ring position c) are in: K's slot freed, the masked
    softmax step, O rescaled, P·V_h, V's slot freed; (acc, m, l) in attend's layouts (half_step's and half_tail's)."""
    (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_ready, q_empty, ready, empty, turn,
     qk_scale, n_q, n_k, n_bh, head_group, left, n_heads, groups, slopes, slopes_b, rowb, tiles, rowb_b, tiles_b) = a
    HB: gl.constexpr = BN // 2
    h_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, HB, 16])
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BN, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, D, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    hrow_l: gl.constexpr = gl.SliceLayout(1, h_layout)
    row_l: gl.constexpr = gl.SliceLayout(1, s_layout)
    st = c % STAGES
    arrive(kbar(empty, st))
    cols = k0 + H * HB + gl.arange(0, HB, layout=gl.SliceLayout(0, h_layout))
    bias = alibi_cols(cols, r0, offset, slope2, ALIBI)
    p, alpha, m_h, l_h = softmax_step(s, gl.convert_layout(m, hrow_l), gl.convert_layout(l, hrow_l), cols,
                                      gl.convert_layout(row_lo, hrow_l), gl.convert_layout(row_hi, hrow_l), qk_scale,
                                      bias, True, WINDOW, ALIBI, False, False, False)
    acc = acc * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o_layout)), 1)
    p16 = gl.convert_layout(p.to(desc_q.dtype), p_layout)
    mbarrier.wait(vbar(ready, st, STAGES), (c // STAGES) & 1)
    acc = warpgroup_mma(p16, v_smem.index(st).slice(H * HB, HB), acc, is_async=True)
    acc = warpgroup_mma_wait(0, deps=(acc,))
    arrive(vbar(empty, st, STAGES))
    return acc, gl.convert_layout(m_h, row_l), gl.convert_layout(l_h, row_l)


@gluon.jit
def half_tail(a, q_buf, acc_tok, m, l, c, k0, r0, offset, slope2, row_lo, row_hi, CID: gl.constexpr, NC: gl.constexpr,
              M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, WINDOW: gl.constexpr,
              PINGPONG: gl.constexpr, ALIBI: gl.constexpr, LOCAL: gl.constexpr):
    """The last half step (H = 0: keys [k0, k0 + BN/2) of the key tile at ring position c) with the last whole
    tile's P·V still running (acc_tok: issued by attend against V at ring position c - 1, not yet waited for;
    ws_switches.half_tail_default): Q·K_hᵀ is issued behind it on the tensor cores instead of after its wait, then
    both are waited for and the half runs its softmax step and P·V as half_step does. The turn at c is taken once,
    as half_step takes it; (acc, m, l) in attend's layouts (LOCAL: l as the lanes' shares, _ws_softmax.to_quads)."""
    (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_ready, q_empty, ready, empty, turn,
     qk_scale, n_q, n_k, n_bh, head_group, left, n_heads, groups, slopes, slopes_b, rowb, tiles, rowb_b, tiles_b) = a
    HB: gl.constexpr = BN // 2
    h_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, HB, 16])
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BN, 16])
    row_l: gl.constexpr = gl.SliceLayout(1, s_layout)
    if LOCAL:                                         # the lanes' shares of l summed (before the waits, as
        l = from_quads(l, row_l)                      # the P·V runs)
    st = c % STAGES
    mbarrier.wait(kbar(ready, st), (c // STAGES) & 1)
    if PINGPONG:
        turn_wait(turn, CID, c, PINGPONG)
    s_tok = warpgroup_mma(q_buf, k_smem.index(st).slice(0, HB).permute((1, 0)),
                          gl.zeros([M_WG, HB], gl.float32, h_layout), use_acc=False, is_async=True)
    if PINGPONG:
        turn_pass(turn, (CID + 1) % NC, PINGPONG)
    acc = warpgroup_mma_wait(1, deps=(acc_tok,))      # the last whole tile's P·V (issued first) done
    arrive(vbar(empty, (c - 1) % STAGES, STAGES))
    s = warpgroup_mma_wait(0, deps=(s_tok,))
    acc, m, l = half_finish(a, s, acc, m, l, c, k0, 0, r0, offset, slope2, row_lo, row_hi, M_WG, BN, D, STAGES,
                            WINDOW, ALIBI)
    if LOCAL:
        l = to_quads(l, gl.zeros([M_WG, BN], gl.float32, s_layout))
    return acc, m, l
