"""The Gluon kernel behind impl="ws": a warp-specialised FlashAttention-3-style forward for Hopper.

Measured on the H200 (2026-11-30, triton 3.6.0, fp16, B=4, H=32, N 4096-16384, same run as SDPA cuDNN, with the
schedule switches ws.CONFIGS sets: OVERLAP off): d=128 0.96-1.05x cuDNN (1.07-1.22x our tl fast kernel); d=64
0.90-1.08x cuDNN (1.01-1.07x tl). kernels/ws.py has the per-cell table, the tuning runs behind the switches, the
version gate and when impl="fast" uses it.

Imported only by ws.py after it checked the Triton version (Gluon is experimental: its API moved between 3.6
and 3.8), or directly by the CPU compile test. One program = one 2*M_WG-row block of queries of one head:

  partition 0 (default, 4 warps)  consumer of rows [0, M_WG)         Q·Kᵀ and P·V by async warpgroup_mma
  partition 1 (worker, 4 warps)   consumer of rows [M_WG, 2*M_WG)    same code, its own half
  partition 2 (worker, 1 warp)    producer: TMA loads of Q once, then K_j/V_j into a STAGES-deep ring

Ring protocol: ready[s] completes when the TMA bytes of K_j and V_j landed (expect-tx); empty[s] takes one
arrive from each consumer once its P·V on that stage finished. Inputs are 3-D views (B*H, N, d) so TMA clips
at each head's end: keys past n_k arrive as zeros (a ragged last tile never reads the next head, so its
non-finite values cannot leak through 0 * inf) and the output store clips rows past n_q.
OVERLAP (FA3's intra-warpgroup pipelining): the Q·K_jᵀ of tile j and the P·V of tile j-1 are issued
together; the softmax of tile j runs while P_{j-1}·V_{j-1} is still on the tensor cores.
PINGPONG: the two consumers take turns issuing their GEMMs (turn[c] mbarriers, turn[0] pre-arrived), so one
warpgroup's softmax overlaps the other's GEMMs.
Scores are kept in log2 units (qk_scale = sm_scale * log2 e) so every exponential is a bare exp2.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                               warpgroup_mma_wait)

try:    # proton's scopes (the "Inside the kernel" page); they compile to nothing unless proton instruments the run
    from triton.profiler.language import enter_scope, exit_scope
except ImportError:                                   # a triton without proton: scopes that do nothing
    @gluon.jit
    def enter_scope(name: gl.constexpr):
        pass

    @gluon.jit
    def exit_scope(name: gl.constexpr):
        pass

LN2 = gl.constexpr(0.6931471805599453)


@gluon.jit
def _softmax(s, m, l, cols, rows, n_k, offset, qk_scale, MASKED: gl.constexpr, CAUSAL: gl.constexpr):
    """One online-softmax step on a score tile s (raw Q·Kᵀ): (p, alpha, m_new, l_new), m in log2 units."""
    if MASKED:                                        # diagonal band (causal) or the ragged last tile
        ok = gl.expand_dims(cols, 0) < n_k
        if CAUSAL:
            ok = ok & (gl.expand_dims(cols, 0) <= gl.expand_dims(rows, 1) + offset)
        s = gl.where(ok, s * qk_scale, float("-inf"))
        m_new = gl.maximum(m, gl.max(s, 1))
        m_ref = gl.where(m_new == float("-inf"), 0.0, m_new)       # no key seen yet: avoid -inf - -inf
        p = gl.exp2(s - gl.expand_dims(m_ref, 1))
    else:                                             # every key visible: no mask, no guard
        m_new = gl.maximum(m, gl.max(s, 1) * qk_scale)
        m_ref = m_new
        p = gl.exp2(s * qk_scale - gl.expand_dims(m_ref, 1))
    alpha = gl.exp2(m - m_ref)
    l_new = l * alpha + gl.sum(p, 1)
    return p, alpha, m_new, l_new


@gluon.jit
def _consumer(a, CID: gl.constexpr, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
              OVERLAP: gl.constexpr, PINGPONG: gl.constexpr):
    (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_bar, ready, empty, turn,
     qk_scale, n_q, n_k, bh, start_q, n_tiles) = a
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BN, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, D, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    row_l: gl.constexpr = gl.SliceLayout(1, s_layout)
    col_l: gl.constexpr = gl.SliceLayout(0, s_layout)
    orow_l: gl.constexpr = gl.SliceLayout(1, o_layout)
    dtype: gl.constexpr = desc_q.dtype

    r0 = start_q + CID * M_WG
    rows = r0 + gl.arange(0, M_WG, layout=row_l)
    offset = n_k - n_q                                # bottom-right causal: row r sees keys j <= r + offset
    if CAUSAL:
        full = gl.minimum(gl.maximum(r0 + offset + 1, 0), n_k)    # keys every row of this half sees
    else:
        full = n_k
    full = (full // BN) * BN                          # tiles below `full` need no mask

    q_buf = q_smem.index(CID)
    m = gl.full([M_WG], float("-inf"), gl.float32, row_l)
    l = gl.full([M_WG], 0.0, gl.float32, row_l)
    acc = gl.zeros([M_WG, D], gl.float32, o_layout)
    s0 = gl.zeros([M_WG, BN], gl.float32, s_layout)
    mbarrier.wait(q_bar, 0)                           # always: the output reuses Q's buffer below

    if n_tiles > 0:
        # tile 0: Q·K_0ᵀ alone. Scopes (one of each per key tile and warp): wait_kv (K/V not loaded yet),
        # wait_turn (the other consumer's GEMMs go first), qk (Q·Kᵀ issued until its scores are ready; with
        # OVERLAP the previous tile's P·V is issued first and runs meanwhile), softmax, pv (until P·V is done)
        enter_scope("wait_kv")
        mbarrier.wait(ready.index(0), 0)
        exit_scope("wait_kv")
        enter_scope("wait_turn")
        if PINGPONG:
            mbarrier.wait(turn.index(CID), 0)
        exit_scope("wait_turn")
        enter_scope("qk")
        s_tok = warpgroup_mma(q_buf, k_smem.index(0).permute((1, 0)), s0, use_acc=False, is_async=True)
        if PINGPONG:
            mbarrier.arrive(turn.index(1 - CID))
        s = warpgroup_mma_wait(0, deps=(s_tok,))
        exit_scope("qk")
        cols = gl.arange(0, BN, layout=col_l)
        enter_scope("softmax")
        if full > 0:
            p, alpha, m, l = _softmax(s, m, l, cols, rows, n_k, offset, qk_scale, False, CAUSAL)
        else:
            p, alpha, m, l = _softmax(s, m, l, cols, rows, n_k, offset, qk_scale, True, CAUSAL)
        exit_scope("softmax")
        if not OVERLAP:
            enter_scope("pv")
            p16 = gl.convert_layout(p.to(dtype), p_layout)
            acc = warpgroup_mma(p16, v_smem.index(0), acc, use_acc=False, is_async=True)
            acc = warpgroup_mma_wait(0, deps=(acc,))
            mbarrier.arrive(empty.index(0))
            exit_scope("pv")
        for j in range(1, n_tiles):
            st = j % STAGES
            enter_scope("wait_kv")
            mbarrier.wait(ready.index(st), (j // STAGES) & 1)
            exit_scope("wait_kv")
            enter_scope("wait_turn")
            if PINGPONG:
                mbarrier.wait(turn.index(CID), j & 1)
            exit_scope("wait_turn")
            enter_scope("qk")
            s_tok = warpgroup_mma(q_buf, k_smem.index(st).permute((1, 0)), s0, use_acc=False, is_async=True)
            cols = j * BN + gl.arange(0, BN, layout=col_l)
            if OVERLAP:
                prev = (j - 1) % STAGES
                p16 = gl.convert_layout(p.to(dtype), p_layout)
                acc_tok = warpgroup_mma(p16, v_smem.index(prev), acc, is_async=True)
                if PINGPONG:
                    mbarrier.arrive(turn.index(1 - CID))
                s = warpgroup_mma_wait(1, deps=(s_tok,))
                exit_scope("qk")
                enter_scope("softmax")
                if j * BN < full:
                    p, alpha, m, l = _softmax(s, m, l, cols, rows, n_k, offset, qk_scale, False, CAUSAL)
                else:
                    p, alpha, m, l = _softmax(s, m, l, cols, rows, n_k, offset, qk_scale, True, CAUSAL)
                exit_scope("softmax")
                enter_scope("pv")
                acc = warpgroup_mma_wait(0, deps=(acc_tok,))
                mbarrier.arrive(empty.index(prev))
                acc = acc * gl.expand_dims(gl.convert_layout(alpha, orow_l), 1)
                exit_scope("pv")
            else:
                if PINGPONG:
                    mbarrier.arrive(turn.index(1 - CID))
                s = warpgroup_mma_wait(0, deps=(s_tok,))
                exit_scope("qk")
                enter_scope("softmax")
                if j * BN < full:
                    p, alpha, m, l = _softmax(s, m, l, cols, rows, n_k, offset, qk_scale, False, CAUSAL)
                else:
                    p, alpha, m, l = _softmax(s, m, l, cols, rows, n_k, offset, qk_scale, True, CAUSAL)
                acc = acc * gl.expand_dims(gl.convert_layout(alpha, orow_l), 1)
                exit_scope("softmax")
                enter_scope("pv")
                p16 = gl.convert_layout(p.to(dtype), p_layout)
                acc = warpgroup_mma(p16, v_smem.index(st), acc, is_async=True)
                acc = warpgroup_mma_wait(0, deps=(acc,))
                mbarrier.arrive(empty.index(st))
                exit_scope("pv")
        if OVERLAP:                                   # the last tile's P·V
            enter_scope("pv")
            last = (n_tiles - 1) % STAGES
            p16 = gl.convert_layout(p.to(dtype), p_layout)
            acc = warpgroup_mma(p16, v_smem.index(last), acc, is_async=True)
            acc = warpgroup_mma_wait(0, deps=(acc,))
            mbarrier.arrive(empty.index(last))
            exit_scope("pv")

    # epilogue: normalise once (rows that saw no key stay zero, LSE -inf), store through Q's buffer by TMA
    l_safe = gl.where(l == 0.0, 1.0, l)
    out = acc / gl.expand_dims(gl.convert_layout(l_safe, orow_l), 1)
    q_buf.store(out.to(dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(desc_o, [bh, r0, 0], q_buf.reshape([1, M_WG, D]))
    lse = gl.where(l == 0.0, float("-inf"), (m + gl.log2(l_safe)) * LN2)
    gl.store(LSE + bh.to(gl.int64) * n_q + rows, lse, mask=rows < n_q)
    tma.store_wait(0)


@gluon.jit
def _consumer0(a, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
              OVERLAP: gl.constexpr, PINGPONG: gl.constexpr):
    _consumer(a, 0, M_WG, BN, D, STAGES, CAUSAL, OVERLAP, PINGPONG)


@gluon.jit
def _consumer1(a, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
              OVERLAP: gl.constexpr, PINGPONG: gl.constexpr):
    _consumer(a, 1, M_WG, BN, D, STAGES, CAUSAL, OVERLAP, PINGPONG)


@gluon.jit
def _producer(a, M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
              OVERLAP: gl.constexpr, PINGPONG: gl.constexpr):
    (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_bar, ready, empty, turn,
     qk_scale, n_q, n_k, bh, start_q, n_tiles) = a
    mbarrier.expect(q_bar, 2 * desc_q.block_type.nbytes)
    tma.async_copy_global_to_shared(desc_q, [bh, start_q, 0], q_bar, q_smem.index(0).reshape([1, M_WG, D]))
    tma.async_copy_global_to_shared(desc_q, [bh, start_q + M_WG, 0], q_bar, q_smem.index(1).reshape([1, M_WG, D]))
    for j in range(n_tiles):
        st = j % STAGES
        enter_scope("tma_wait_slot")                  # until the consumers have freed this stage
        mbarrier.wait(empty.index(st), ((j // STAGES) & 1) ^ 1)     # fresh barriers pass phase 1 at once
        exit_scope("tma_wait_slot")
        enter_scope("tma_issue")                      # issuing the two copies (they complete asynchronously)
        bar = ready.index(st)
        mbarrier.expect(bar, desc_k.block_type.nbytes + desc_v.block_type.nbytes)
        tma.async_copy_global_to_shared(desc_k, [bh, j * BN, 0], bar, k_smem.index(st).reshape([1, BN, D]))
        tma.async_copy_global_to_shared(desc_v, [bh, j * BN, 0], bar, v_smem.index(st).reshape([1, BN, D]))
        exit_scope("tma_issue")


@gluon.jit
def ws_fwd(desc_q, desc_k, desc_v, desc_o, LSE, qk_scale, n_q, n_k,
           M_WG: gl.constexpr, BN: gl.constexpr, D: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
           OVERLAP: gl.constexpr, PINGPONG: gl.constexpr, CONSUMER_REGS: gl.constexpr,
           PRODUCER_REGS: gl.constexpr):
    pid = gl.program_id(0)
    if CAUSAL:                                        # heaviest (last) Q blocks first
        pid = gl.num_programs(0) - 1 - pid
    bh = gl.program_id(1)
    start_q = pid * (2 * M_WG)
    if CAUSAL:
        hi = gl.minimum(gl.maximum(start_q + 2 * M_WG + n_k - n_q, 0), n_k)   # keys any row of the block sees
    else:
        hi = n_k
    n_tiles = gl.cdiv(hi, BN)

    dtype: gl.constexpr = desc_q.dtype
    q_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([M_WG, D], dtype)
    kv_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BN, D], dtype)
    q_smem = gl.allocate_shared_memory(dtype, [2, M_WG, D], q_layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, BN, D], kv_layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, BN, D], kv_layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=2)       # one arrive per consumer partition
    for i in gl.static_range(2):
        mbarrier.init(turn.index(i), count=1)
    mbarrier.arrive(turn.index(0))                    # consumer 0 takes the first turn

    a = (desc_q, desc_k, desc_v, desc_o, LSE, q_smem, k_smem, v_smem, q_bar, ready, empty, turn,
         qk_scale, n_q, n_k, bh, start_q, n_tiles)
    # constexprs travel as separate arguments (inside a tuple they would arrive as runtime values)
    gl.warp_specialize([(_consumer0, (a, M_WG, BN, D, STAGES, CAUSAL, OVERLAP, PINGPONG)),
                        (_consumer1, (a, M_WG, BN, D, STAGES, CAUSAL, OVERLAP, PINGPONG)),
                        (_producer, (a, M_WG, BN, D, STAGES, CAUSAL, OVERLAP, PINGPONG))],
                       [4, 1], [CONSUMER_REGS, PRODUCER_REGS])
