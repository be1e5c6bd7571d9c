"""Flash-attention backward with 5 matmuls per tile (Triton): one kernel over K/V blocks, dQ by atomic adds.

The 7-matmul backward (kernels/backward.py, the teaching reference) recomputes S = Q K^T and P twice: once
in its dK/dV kernel and again in its dQ kernel (plus dP = dO V^T twice). Here every tile is visited once:
    pre-pass      delta_i = rowsum(dO_i * O_i) - dlse_i, lse patched         (backward.row_stats)
    main kernel   one program per K/V block j, looping over the query blocks i that see it:
                  S_ij = Q_i K_j^T, P_ij = exp(S_ij - lse_i)                 1  (recomputed from the saved lse)
                  dV_j += P_ij^T dO_i                                        2
                  dP_ij = dO_i V_j^T                                         3
                  dS_ij = P_ij * (dP_ij - delta_i)
                  dK_j += dS_ij^T Q_i                                        4
                  dQ_i += dS_ij K_j  -> added into an fp32 buffer            5
    cast pass     dQ = scale * buffer, in the inputs' dtype
Many programs add into the same dQ rows, so the partial dQ goes out as a reduce-add: on Hopper a TMA
reduction (tensor_descriptor.atomic_add, done in L2), elsewhere tl.atomic_add on pointers (the interpreter
has no descriptor reduction). Summation order then depends on scheduling: dQ is not bitwise reproducible
from run to run (dK and dV are). ROTATE starts each program's query loop at a different block so the
programs of one head do not all add into the same dQ rows at the same moment.
Same contract as backward.py for the plain case (bottom-right causal with the masked diagonal band split
from the unmasked tiles, ragged N, Nq != Nk, rows that see no key -> zero gradients, dlse, fp16/bf16/fp32).

Peak extra memory (beyond the inputs): dQ, dK, dV + row statistics (lse with dead rows patched, delta,
and dlse when given: 4 bytes per query row each) + the fp32 dQ buffer (B*H*Nq*d*4 bytes, as big as dQ, dK
and dV together in fp16), i.e. 3*B*H*N*d*elem + B*H*Nq*(d + 2)*4 (+ B*H*Nq*4 with dlse); the test
tests/kernels/test_backward_fused_gpu.py measures it.
Why it exists: two matmuls fewer per tile than the reference. When it runs: "auto" at d <= 64 for plain or causal
attention where the ws backward cannot (kernels/backward_table.py: faster than the reference there, slower at
d = 128, assets/benchmarks/tune/nvidia-h200-backward-2026-11-30.json), on a (triton, GPU) pair kernels/gates.py
verifies for "fused-backward" (the TMA reduction); its tiles: that table's FUSED_LAUNCHES.

Calling contract: pick_config(q) then backward(q, k, v, o, lse, do, *, causal, sm_scale, dlse=None, config)
-> (dq, dk, dv); inputs checked by flashviz_kernels.api.
"""
import torch

from . import _env  # noqa: F401  (decides TRITON_INTERPRET before triton is imported)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from . import backward_table  # noqa: E402
from .backward import dot, row_stats  # noqa: E402
from .numerics import LOG2E, LOG2E_C  # noqa: E402

# head dim upper bound -> (BLOCK_N keys per program, BLOCK_M query rows per step, num_warps, num_stages, ROTATE) of
# fp16/bf16 inputs: kernels/backward_table.py's FUSED_LAUNCHES, read live (fp32 has its own row there)
CONFIGS = backward_table.by_bound(backward_table.FUSED_LAUNCHES, "fused", backward_table.FUSED_NAMES)
INTERPRET_CONFIG = (32, 32, 4, 2, True)


@triton.jit
def _stage(dk, dv, k, v, desc_q, desc_do, desc_dq, DQ, LSE, DELTA, bh, row0, cols, lo, hi, rot, qk_scale, n_q, n_k,
           offset, D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, MASKED: tl.constexpr,
           CAUSAL: tl.constexpr, IEEE: tl.constexpr, TMA_DQ: tl.constexpr, ROTATE: tl.constexpr):
    """Query blocks [lo, hi) (multiples of BLOCK_M) against this program's K_j, V_j (kept on chip, (BLOCK_N,
    BLOCK_D)); MASKED tiles apply the causal rule and the ragged key tail, the others need no mask."""
    count = (hi - lo) // BLOCK_M
    n_rows = tl.num_programs(1).to(tl.int64) * n_q                              # rows of the (B*H*Nq, d) buffer
    dims = tl.arange(0, BLOCK_D)
    for it in tl.range(0, count):
        if ROTATE:
            start = lo + ((it + rot) % count) * BLOCK_M
        else:
            start = lo + it * BLOCK_M
        rows = start + tl.arange(0, BLOCK_M)
        q = desc_q.load([row0 + start, 0])                                       # Q_i, dO_i: (BLOCK_M, BLOCK_D)
        do = desc_do.load([row0 + start, 0])
        lse = tl.load(LSE + bh * n_q + rows, mask=rows < n_q, other=float("inf")) * LOG2E_C
        delta = tl.load(DELTA + bh * n_q + rows, mask=rows < n_q, other=0.0)
        p_t = tl.math.exp2(dot(k, tl.trans(q), IEEE) * qk_scale - lse[None, :])  # 1. P^T: (BLOCK_N, BLOCK_M)
        if MASKED:
            seen = cols[:, None] < n_k
            if CAUSAL:
                seen = seen & (cols[:, None] <= rows[None, :] + offset)
            p_t = tl.where(seen, p_t, 0.0)
        dv += dot(p_t.to(do.dtype), do, IEEE)                                   # 2. dV += P^T dO
        dp_t = dot(v, tl.trans(do), IEEE)                                       # 3. dP^T = V dO^T
        ds_t = (p_t * (dp_t - delta[None, :])).to(q.dtype)                       # dS^T
        dk += dot(ds_t, q, IEEE)                                                # 4. dK += dS^T Q
        dq = dot(tl.trans(ds_t), k, IEEE)                                       # 5. dQ_i += dS K (partial)
        # Rows past n_q belong to the next head (their dS is 0: lse = +inf there, so they add 0). The pointer
        # path clips only where the TMA reduction clips, at the end of the buffer, so the interpreter tests
        # check these cross-head zero adds too.
        if TMA_DQ:
            desc_dq.atomic_add([row0 + start, 0], dq)
        else:
            flat = (row0 + rows).to(tl.int64)
            ptr = DQ + flat[:, None] * D + dims[None, :]
            tl.atomic_add(ptr, dq, mask=(flat[:, None] < n_rows) & (dims[None, :] < D))
    return dk, dv


@triton.jit
def bwd_fused(desc_q, desc_do, desc_dq, K, V, DQ, LSE, DELTA, DK, DV, qk_scale, sm_scale, n_q, n_k,
               D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               CAUSAL: tl.constexpr, IEEE: tl.constexpr, TMA_DQ: tl.constexpr, ROTATE: tl.constexpr):
    pid = tl.program_id(0)                                   # causal: block 0 is seen by the most rows, so the
    start_k = pid * BLOCK_N                                  # heaviest programs start first
    bh = tl.program_id(1).to(tl.int64)
    row0 = tl.program_id(1) * n_q                            # int32 row of this head in the (B*H*Nq, d) views
    cols = start_k + tl.arange(0, BLOCK_N)
    dims = tl.arange(0, BLOCK_D)
    kv = bh * n_k * D + cols[:, None] * D + dims[None, :]
    ok = (cols[:, None] < n_k) & (dims[None, :] < D)
    k = tl.load(K + kv, mask=ok, other=0.0)                  # K_j, V_j stay on chip; rows past n_k are 0
    v = tl.load(V + kv, mask=ok, other=0.0)
    dk = tl.zeros([BLOCK_N, BLOCK_D], tl.float32)
    dv = tl.zeros([BLOCK_N, BLOCK_D], tl.float32)
    offset = n_k - n_q                                       # row r sees keys <= r + offset
    n_q_pad = tl.cdiv(n_q, BLOCK_M) * BLOCK_M
    lo = 0
    full = 0
    if CAUSAL:                                               # rows before lo see none of these keys, rows from
        lo = (tl.maximum(start_k - offset, 0) // BLOCK_M) * BLOCK_M           # full on see all of them
        full = tl.minimum(tl.cdiv(tl.maximum(start_k + BLOCK_N - 1 - offset, 0), BLOCK_M) * BLOCK_M, n_q_pad)
        full = tl.maximum(full, lo)
    if start_k + BLOCK_N > n_k:                              # ragged last key block: every tile masked (P of
        full = n_q_pad                                       # keys past n_k must be 0, not exp(0 - lse))
    dk, dv = _stage(dk, dv, k, v, desc_q, desc_do, desc_dq, DQ, LSE, DELTA, bh, row0, cols, lo, full, pid,
                    qk_scale, n_q, n_k, offset, D, BLOCK_D, BLOCK_M, True, CAUSAL, IEEE, TMA_DQ, False)
    dk, dv = _stage(dk, dv, k, v, desc_q, desc_do, desc_dq, DQ, LSE, DELTA, bh, row0, cols, full, n_q_pad, pid,
                    qk_scale, n_q, n_k, offset, D, BLOCK_D, BLOCK_M, False, CAUSAL, IEEE, TMA_DQ, ROTATE)
    tl.store(DK + kv, (dk * sm_scale).to(DK.dtype.element_ty), mask=ok)
    tl.store(DV + kv, dv.to(DV.dtype.element_ty), mask=ok)


@triton.jit
def dq_cast(ACC, DQ, total, sm_scale, BLOCK: tl.constexpr):
    """dQ = sm_scale * buffer, in DQ's dtype (the buffer summed dS K in fp32)."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(ACC + offs, mask=offs < total, other=0.0)
    tl.store(DQ + offs, (x * sm_scale).to(DQ.dtype.element_ty), mask=offs < total)


def supported(q) -> str | None:
    """Why the fused kernel cannot take these inputs (None: it can): its TMA descriptors need 16-byte rows."""
    d = q.shape[3]
    if (d * q.element_size()) % 16 or (d * 4) % 16:
        return f"head dim {d} rows are not a multiple of 16 bytes ({q.dtype} and the fp32 dQ buffer)"
    return None


def tma_reduce_available(device) -> bool:
    """Descriptor reduce-add needs compiled code on Hopper or newer; elsewhere the kernel uses tl.atomic_add."""
    return not _env.INTERPRET and torch.cuda.get_device_capability(device)[0] >= 9


def pick_config(q) -> tuple[int, int, int, int, bool]:
    """(BLOCK_N, BLOCK_M, num_warps, num_stages, rotate) for these inputs."""
    if _env.INTERPRET:
        return INTERPRET_CONFIG
    return backward_table.fused_tiles(q.shape[3], q.element_size())


def compile_spec(d: int, causal: bool, config, dtype: str = "fp16"):
    """(jit function, signature, constexprs, options) of the fused kernel for one config (BLOCK_N, BLOCK_M, warps,
    stages, rotate), for triton.compile with an ASTSource and a GPU target (tools/compile_check.py); the dQ add as a
    TMA reduction, as on Hopper. Call it with TRITON_INTERPRET=0."""
    bn, bm, warps, stages, rot = config
    bd = max(16, 1 << (d - 1).bit_length())
    sig = dict(desc_q=f"tensordesc<{dtype}[{bm}, {bd}]>", desc_do=f"tensordesc<{dtype}[{bm}, {bd}]>",
               desc_dq=f"tensordesc<fp32[{bm}, {bd}]>", K=f"*{dtype}", V=f"*{dtype}", DQ="*fp32", LSE="*fp32",
               DELTA="*fp32", DK=f"*{dtype}", DV=f"*{dtype}", qk_scale="fp32", sm_scale="fp32", n_q="i32", n_k="i32")
    consts = dict(D=d, BLOCK_D=bd, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal, IEEE=dtype == "fp32", TMA_DQ=True,
                  ROTATE=bool(rot))
    sig.update({k: "constexpr" for k in consts})
    return bwd_fused, sig, consts, dict(num_warps=warps, num_stages=stages)


def backward(q, k, v, o, lse, do, *, causal: bool, sm_scale: float, dlse=None, config):
    """All (B, H, N, d) contiguous, 16-byte aligned rows (see supported); lse (B, H, Nq) float32 natural log;
    dlse None or like lse -> (dq, dk, dv). config as pick_config returns it."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    b, h, n_q, d = q.shape
    n_k = k.shape[2]
    block_n, block_m, warps, stages, rotate = config
    block_d = max(16, 1 << (d - 1).bit_length())
    ieee = q.element_size() == 4

    def aligned(x):                                          # TMA: contiguous, 16-byte aligned base
        x = x.contiguous()
        return x if x.data_ptr() % 16 == 0 else x.clone()

    q, do = aligned(q), aligned(do)
    lse, delta = row_stats(o, do, lse, dlse, block_d)
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    dq_acc = torch.zeros((b * h * n_q, d), dtype=torch.float32, device=q.device)
    desc_q = TensorDescriptor.from_tensor(q.view(b * h * n_q, d), [block_m, block_d])
    desc_do = TensorDescriptor.from_tensor(do.view(b * h * n_q, d), [block_m, block_d])
    desc_dq = TensorDescriptor.from_tensor(dq_acc, [block_m, block_d])
    bwd_fused[(triton.cdiv(n_k, block_n), b * h)](
        desc_q, desc_do, desc_dq, k, v, dq_acc, lse, delta, dk, dv, sm_scale * LOG2E, sm_scale, n_q, n_k,
        D=d, BLOCK_D=block_d, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal, IEEE=ieee,
        TMA_DQ=tma_reduce_available(q.device), ROTATE=rotate, num_warps=warps, num_stages=stages)
    dq = torch.empty_like(q)
    total = dq_acc.numel()
    dq_cast[(triton.cdiv(total, 1024),)](dq_acc, dq, total, sm_scale, BLOCK=1024)
    return dq, dk, dv
