"""The fast flash-attention forward kernel (Triton), tuned for Hopper (H100/H200).

Same contract as the teaching kernel (out + log-sum-exp, causal bottom-right aligned, ragged N,
fully masked rows -> zeros), minus the trace. What makes it fast:
  - log2(e) folded into the softmax scale so every exponential is a bare exp2;
  - K/V tiles arrive through tensor descriptors (TMA on Hopper), software-pipelined num_stages deep;
  - the key loop is split in two stages: tiles every row of the Q block fully sees run with no mask
    at all; only the diagonal band (causal) and the ragged last tile pay for masking and the guard;
  - causal programs are launched heaviest-first (last Q block first) to balance the tail;
  - tile shapes, warps and stages picked per head dim / causal / dtype by kernels/tune_fast.py.
Measured on the H200 (assets/benchmarks/nvidia-h200-fwd-2026-11-29.json, fp16, B=4, H=32, same run):
  d=128, N 4096-16384: 491-507 TFLOP/s = 0.86-0.96x SDPA cuDNN, 1.44-1.51x SDPA flash (causal and not);
  d=64: 364-428 TFLOP/s = 0.91-1.03x cuDNN. Peak extra memory = output + LSE exactly. At N=1024 a
  call's host-side launch is as long as the kernel (python -m flashviz_kernels.launch_overhead), so
  the recorded small-N cells are launch-sensitive. Since that recording (6a3dc36d) the changes are
  zeroing V rows past n_k in masked tiles (af791c1): N=4096 spot check within 0-5% of before; and
  caching the three TMA descriptors per input tensor (_descriptor below): its saving per call is not
  measured yet (launch_overhead's "enqueue" column is the number to compare).
Through flashviz_kernels.api, impl="fast" with no pinned launch runs the Gluon ws kernel (kernels/ws.py) instead
of this one where ws.FAST_USES_WS says it measured faster (d=64, N >= 8192 on the H200) and it can run here
(triton 3.6.x, sm_90); everywhere else, and after any Gluon failure, this kernel runs (warned once, ws.status()).
The calling contract is the teaching kernel's: pick_config(...) then forward(q, k, v, *, causal, sm_scale,
block_m, block_n, num_warps, num_stages) -> (out, lse), inputs checked by flashviz_kernels.api.
"""
from . import _env  # noqa: F401  (decides TRITON_INTERPRET before triton is imported)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from .causal import key_range  # noqa: E402
from .scopes import enter_scope, exit_scope  # noqa: E402

import threading  # noqa: E402

# Host TMA descriptors cached per input tensor: building three TensorDescriptors is a visible part of a short
# call's launch cost (python -m flashviz_kernels.launch_overhead). The cache is keyed weakly by the tensor
# object (torch.utils.weak.WeakIdKeyDictionary): an entry dies with its tensor, so it never outlives the memory
# it describes and never keeps that memory alive longer than the caller does (the descriptor holds a view of a
# detached alias, not the tensor itself). Each entry also stores data_ptr, shape, strides, dtype and block, and
# is rebuilt when any of them changed (x.set_(), in-place resize). At most _DESC_MAX tensors are kept.
_DESC_CACHE = None
_DESC_LOCK = threading.Lock()
_DESC_MAX = 64


def _descriptor(x, rows: int, d: int, block: list):
    """TensorDescriptor over x viewed as (rows, d) with the given block shape, reused while x is alive."""
    global _DESC_CACHE
    from triton.tools.tensor_descriptor import TensorDescriptor
    key = (x.data_ptr(), tuple(x.shape), tuple(x.stride()), x.dtype, x.device, rows, d, tuple(block))
    with _DESC_LOCK:
        if _DESC_CACHE is None:
            from torch.utils.weak import WeakIdKeyDictionary
            _DESC_CACHE = WeakIdKeyDictionary()
        hit = _DESC_CACHE.get(x, {}).get(key)
    if hit is not None:
        return hit
    desc = TensorDescriptor.from_tensor(x.detach().view(rows, d), block)
    with _DESC_LOCK:
        if len(_DESC_CACHE) >= _DESC_MAX:
            _DESC_CACHE.clear()
        per = _DESC_CACHE.setdefault(x, {})
        if len(per) >= 8:                                           # a tensor seen with many block shapes
            per.clear()
        per[key] = desc
    return desc

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453

# (head dim upper bound, causal, element bytes) -> (BLOCK_M, BLOCK_N, num_warps, num_stages)
# fp16 d = 64 and 128 picked on the H200 (2026-11-29) by `python -m flashviz_kernels.tune_fast --quick`
# (B=4, H=32, N=8192; figures below from that run); the rest are sized to fit shared memory, not tuned.
CONFIGS = {
    (32, False, 2): (128, 128, 4, 3), (32, True, 2): (128, 128, 4, 3),      # d <= 32: as d = 64 (untuned)
    (64, False, 2): (128, 128, 4, 3), (64, True, 2): (128, 128, 4, 3),      # tuned: 428 / 405 TFLOP/s
    (128, False, 2): (128, 64, 4, 2), (128, True, 2): (128, 64, 4, 2),      # tuned: 521 / 481 TFLOP/s
    (256, False, 2): (64, 64, 4, 2), (256, True, 2): (64, 64, 4, 2),        # sized to fit (untuned)
    (32, False, 4): (64, 64, 4, 2), (32, True, 4): (64, 64, 4, 2),          # fp32: sized to fit
    (64, False, 4): (64, 64, 4, 2), (64, True, 4): (64, 64, 4, 2),
    (128, False, 4): (64, 32, 4, 2), (128, True, 4): (64, 32, 4, 2),
    (256, False, 4): (32, 32, 4, 2), (256, True, 4): (32, 32, 4, 2),
}


@triton.jit
def _stage(acc, l, m, q, desc_k, desc_v, kv_row0, lo, hi, rows, qk_scale, n_k, offset,
           BLOCK_N: tl.constexpr, MASKED: tl.constexpr, CAUSAL: tl.constexpr, IEEE: tl.constexpr):
    """Online softmax over key tiles [lo, hi): m and qk in log2 units (scores * scale * log2 e)."""
    # proton scopes (kernels/scopes.py) time each step per warp for the "Inside the kernel" page; without
    # proton's instrumentation on they compile to nothing
    for start in tl.range(lo, hi, BLOCK_N):
        start = tl.multiple_of(start, BLOCK_N)
        enter_scope("load_k")
        k = desc_k.load([kv_row0 + start, 0])                       # K_j: (BLOCK_N, BLOCK_D)
        exit_scope("load_k")
        enter_scope("qk")
        if IEEE:
            qk = tl.dot(q, k.T, input_precision="ieee")
        else:
            qk = tl.dot(q, k.T)                                     # S_ij / (scale log2 e)
        exit_scope("qk")
        enter_scope("softmax")
        if MASKED:                                                  # diagonal band or ragged tail
            cols = start + tl.arange(0, BLOCK_N)
            visible = cols[None, :] < n_k
            if CAUSAL:
                visible = visible & (cols[None, :] <= rows[:, None] + offset)
            qk = tl.where(visible, qk * qk_scale, float("-inf"))
            m_new = tl.maximum(m, tl.max(qk, 1))
            m_ref = tl.where(m_new == float("-inf"), 0.0, m_new)    # guard: nothing visible yet
            qk = qk - m_ref[:, None]
        else:                                                       # every key visible: no mask, no guard
            m_new = tl.maximum(m, tl.max(qk, 1) * qk_scale)
            m_ref = m_new
            qk = qk * qk_scale - m_ref[:, None]
        p = tl.math.exp2(qk)                                        # P~_ij
        alpha = tl.math.exp2(m - m_ref)                             # rescale of what came before
        l = l * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        exit_scope("softmax")
        enter_scope("load_v_pv")
        v = desc_v.load([kv_row0 + start, 0])                       # V_j: (BLOCK_N, BLOCK_D)
        if MASKED:        # ragged tile: rows past n_k are the next head's; p = 0 there, but 0 * inf = NaN
            v = tl.where((start + tl.arange(0, BLOCK_N))[:, None] < n_k, v, 0.0)
        if IEEE:
            acc = tl.dot(p, v, acc, input_precision="ieee")
        else:
            acc = tl.dot(p.to(v.dtype), v, acc)
        exit_scope("load_v_pv")
        m = m_new
    return acc, l, m


@triton.jit
def _fast_fwd(desc_q, desc_k, desc_v, O, LSE, qk_scale, n_q, n_k, so_bh, so_n,
              D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              CAUSAL: tl.constexpr, IEEE: tl.constexpr):
    pid = tl.program_id(0)
    if CAUSAL:                                                      # heaviest (last) Q blocks first
        pid = tl.num_programs(0) - 1 - pid
    bh = tl.program_id(1)
    start_q = pid * BLOCK_M
    rows = start_q + tl.arange(0, BLOCK_M)
    offset = n_k - n_q                                              # row r sees keys j <= r + offset
    full, hi = key_range(start_q, n_q, n_k, BLOCK_M, BLOCK_N, CAUSAL)

    q = desc_q.load([bh * n_q + start_q, 0])                        # Q_i: (BLOCK_M, BLOCK_D), stays on chip
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)

    kv_row0 = bh * n_k
    # stage 1: tiles fully visible to every row of the block
    acc, l, m = _stage(acc, l, m, q, desc_k, desc_v, kv_row0, 0, full, rows, qk_scale, n_k, offset,
                       BLOCK_N, False, CAUSAL, IEEE)
    # stage 2: the diagonal band (causal) and the ragged last tile, masked and guarded
    acc, l, m = _stage(acc, l, m, q, desc_k, desc_v, kv_row0, full, hi, rows, qk_scale, n_k, offset,
                       BLOCK_N, True, CAUSAL, IEEE)

    # epilogue: normalise once, rows that saw no key stay zero; masked store (ragged N)
    l_safe = tl.where(l == 0.0, 1.0, l)
    out = acc / l_safe[:, None]
    dims = tl.arange(0, BLOCK_D)
    row_ok = rows < n_q
    o_ptr = O + bh.to(tl.int64) * so_bh + rows[:, None] * so_n + dims[None, :]
    tl.store(o_ptr, out.to(O.dtype.element_ty), mask=row_ok[:, None] & (dims[None, :] < D))
    lse = tl.where(l == 0.0, float("-inf"), (m + tl.math.log2(l_safe)) * 0.6931471805599453)  # natural log
    tl.store(LSE + bh.to(tl.int64) * n_q + rows, lse, mask=row_ok)


def pick_config(q, k, *, causal: bool, block_m=None, block_n=None) -> tuple[int, int, int, int]:
    """(block_m, block_n, num_warps, num_stages) from CONFIGS, keeping the given blocks; in the interpreter 64 x 64
    (few, large blocks: it pays per tile, not per lane)."""
    d = q.shape[3]
    bound = next(x for x in (32, 64, 128, 256) if d <= x)              # api.validate caps d at 256
    bm, bn, warps, stages = CONFIGS[(bound, causal, 4 if q.element_size() == 4 else 2)]
    if _env.INTERPRET:
        bm = bn = 64
    return (bm if block_m is None else block_m), (bn if block_n is None else block_n), warps, stages


def forward(q, k, v, *, causal: bool, sm_scale: float, block_m: int, block_n: int, num_warps: int,
            num_stages: int):
    """q (B, H, Nq, d), k/v (B, H, Nk, d) -> (out like q, lse (B, H, Nq) float32). sm_scale > 0."""
    import torch

    b, h, n_q, d = q.shape
    n_k = k.shape[2]
    bm, bn = block_m, block_n
    block_d = max(16, 1 << (d - 1).bit_length())

    def prep(x):                                                    # TMA: contiguous, 16-byte aligned base
        x = x.contiguous()
        return x if x.data_ptr() % 16 == 0 else x.clone()

    q, k, v = prep(q), prep(k), prep(v)
    o = torch.empty_like(q)
    lse = torch.empty((b, h, n_q), dtype=torch.float32, device=q.device)
    desc_q = _descriptor(q, b * h * n_q, d, [bm, block_d])
    desc_k = _descriptor(k, b * h * n_k, d, [bn, block_d])
    desc_v = _descriptor(v, b * h * n_k, d, [bn, block_d])
    grid = (triton.cdiv(n_q, bm), b * h)
    _fast_fwd[grid](desc_q, desc_k, desc_v, o, lse, sm_scale * LOG2E, n_q, n_k, o.stride(1), o.stride(2),
                    D=d, BLOCK_D=block_d, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal, IEEE=q.element_size() == 4,
                    num_warps=num_warps, num_stages=num_stages)
    return o, lse
