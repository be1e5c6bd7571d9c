"""The teaching flash-attention forward kernel (Triton): the stepper's recurrence, on a GPU.

One program per block of Br query rows (BLOCK_M) of one (batch, head); an inner loop over the
Tc key/value tiles of Bc keys (BLOCK_N) with the online-softmax update, in natural units (exp, not
exp2) so that its m, l and alpha can be laid next to flashviz.engine.online_softmax step by step. Tile
sizes are the caller's (no autotuning). Variants (window, causal, packed documents, ALiBi, softcap,
GQA) follow flashviz_kernels.variants: a block runs only the key tiles some of its rows see (the
others are skipped, their trace entries stay NaN) and masks only the tiles that are not full. A guard
keeps rows that have seen no visible key at exp(-inf - 0) = 0 instead of exp(-inf - -inf) = NaN, so
fully masked rows give zeros.
With TRACE=True the kernel also writes m, l and alpha after every key tile it runs for every query row,
and the number of key tiles each program ran.

Tiles need not be powers of two: the tile of Br x Bc is computed inside power-of-two blocks with
the spare lanes masked (the interpreter accepts any tile; on a GPU the API asks for powers of two
>= 16, so no lane is wasted there). Why it exists: the page's own numbers from a real kernel. When it runs:
impl="teaching" and attention_trace. Its speed (about half of SDPA cuDNN's on the H200: docs/BENCHMARKS.md, from
assets/benchmarks/nvidia-h200-fwd-2026-12-01b.json) is the price of readability: natural exp, one loop over the
tiles it runs, plain pointer loads.

The calling contract is the fast kernel's: pick_config(...) then forward(q, k, v, *, variant, sm_scale,
block_m, block_n, num_warps, num_stages) -> (out, lse), with inputs already checked by flashviz_kernels.api.
"""
import torch

from . import _env  # noqa: F401  (decides TRITON_INTERPRET before triton is imported)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from . import variants  # noqa: E402
from .variants import load_range, modify, visible  # noqa: E402
from .rules import next_pow2  # noqa: E402


@triton.jit
def _teaching_fwd(Q, K, V, O, LSE, TR, RUN,                # TR: trace (3, B*H, Nq, Tc) float32, NaN-filled
                  ROWB, TILES, SLOPES,                     # RUN: (B*H, Tr) int32 tiles run; variants' tables
                  sm_scale, softcap, n_q, n_k, left, right, n_tiles, rowb_b, tiles_b, slopes_b,
                  sq_bh, sq_n, sk_bh, sk_n, sv_bh, sv_n, so_bh, so_n,
                  H: tl.constexpr, GROUPS: tl.constexpr,    # GQA: query head h reads kv head h // GROUPS
                  D: tl.constexpr, BLOCK_D: tl.constexpr,
                  BR: tl.constexpr, BLOCK_M: tl.constexpr,  # Br query rows, in a BLOCK_M-lane block
                  BC: tl.constexpr, BLOCK_N: tl.constexpr,  # Bc keys per tile, in a BLOCK_N-lane block
                  LEFT: tl.constexpr, RIGHT: tl.constexpr, SEQ: tl.constexpr,   # the variant (variants.py)
                  MODS: tl.constexpr, SOFTCAP: tl.constexpr, ALIBI: tl.constexpr,
                  TRACE: tl.constexpr, IEEE: tl.constexpr):
    i = tl.program_id(0)                                   # query tile index (0 .. Tr-1)
    bh = tl.program_id(1).to(tl.int64)                     # which (batch, head)
    b = bh // H
    kv = b * (H // GROUPS) + (bh % H) // GROUPS            # its kv head, as a (batch, kv head) index
    rows = i * BR + tl.arange(0, BLOCK_M)                  # (BLOCK_M,) query positions
    row_ok = (tl.arange(0, BLOCK_M) < BR) & (rows < n_q)
    dims = tl.arange(0, BLOCK_D)
    dim_ok = dims < D
    offset = n_k - n_q                                     # bottom-right alignment of rows and keys

    # Q_i stays on chip for the whole loop: (BLOCK_M, BLOCK_D)
    q = tl.load(Q + bh * sq_bh + rows[:, None] * sq_n + dims[None, :],
                mask=row_ok[:, None] & dim_ok[None, :], other=0.0)
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)      # running max
    l = tl.zeros([BLOCK_M], tl.float32)                    # running sum of exp(s - m)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)         # running sum of exp(s - m) * v
    t_lo, f_lo, f_hi, t_hi = load_range(TILES, b * tiles_b, i)   # tiles run: [t_lo, t_hi), unmasked [f_lo, f_hi)
    slope = 0.0
    if ALIBI:
        slope = tl.load(SLOPES + b * slopes_b + bh % H)

    ran = t_lo * 0                                         # tiles this program ran
    for j in range(t_lo, t_hi):                            # key/value tile j; the rest hold no visible key
        cols = j * BC + tl.arange(0, BLOCK_N)
        col_ok = (tl.arange(0, BLOCK_N) < BC) & (cols < n_k)
        k = tl.load(K + kv * sk_bh + cols[:, None] * sk_n + dims[None, :],
                    mask=col_ok[:, None] & dim_ok[None, :], other=0.0)
        v = tl.load(V + kv * sv_bh + cols[:, None] * sv_n + dims[None, :],
                    mask=col_ok[:, None] & dim_ok[None, :], other=0.0)
        # S_ij = Q_i K_j^T * scale, in SRAM/registers only: (BLOCK_M, BLOCK_N)
        if IEEE:
            s = tl.dot(q, tl.trans(k), input_precision="ieee") * sm_scale
        else:
            s = tl.dot(q, tl.trans(k)) * sm_scale
        s, _ = modify(s, rows[:, None], cols[None, :], offset, slope, softcap, SOFTCAP, ALIBI)  # softcap, ALiBi
        if (j < f_lo) | (j >= f_hi):                       # not a full tile: mask what its rows do not see
            seen = visible(rows[:, None], cols[None, :], n_q, n_k, offset, left, right, ROWB, b * rowb_b,
                           LEFT, RIGHT, SEQ)
            s = tl.where(seen, s, float("-inf"))
        if BLOCK_N != BC:                                  # spare lanes of a non-power-of-two tile
            s = tl.where(col_ok[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))                # m_new = max(m_old, rowmax(S_ij))
        m_ref = tl.where(m_new == float("-inf"), 0.0, m_new)   # guard: nothing visible yet
        alpha = tl.exp(m - m_ref)                          # alpha = exp(m_old - m_new)
        p = tl.exp(s - m_ref[:, None])                     # P~_ij = exp(S_ij - m_new)
        l = alpha * l + tl.sum(p, 1)                       # l_new = alpha * l_old + rowsum(P~_ij)
        if IEEE:                                           # o_new = alpha * o_old + P~_ij V_j
            acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        else:
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m = m_new
        ran += 1
        if TRACE:                                          # m, l, alpha of every row after tile j
            t_ptr = TR + bh * n_q * n_tiles + rows * n_tiles + j
            plane = n_q * n_tiles * tl.num_programs(1)
            tl.store(t_ptr, m, mask=row_ok)
            tl.store(t_ptr + plane, l, mask=row_ok)
            tl.store(t_ptr + 2 * plane, alpha, mask=row_ok)
    if TRACE:
        tl.store(RUN + bh * tl.num_programs(0) + i, ran)

    # epilogue: O_i = acc / l, written once; rows that saw no key keep zeros (l = 0)
    l_safe = tl.where(l == 0.0, 1.0, l)
    out = acc / l_safe[:, None]
    tl.store(O + bh * so_bh + rows[:, None] * so_n + dims[None, :], out.to(O.dtype.element_ty),
             mask=row_ok[:, None] & dim_ok[None, :])
    lse = tl.where(l == 0.0, float("-inf"), m + tl.log(l_safe))        # log-sum-exp, -inf if no key
    tl.store(LSE + bh * n_q + rows, lse, mask=row_ok)


def pick_config(q, k, *, causal: bool = False, block_m=None, block_n=None) -> tuple[int, int, int, int]:
    """(block_m, block_n, num_warps, num_stages), keeping the given blocks. GPU: 128 x 64 (64 rows when d > 128);
    interpreter: up to 64 x 64, no bigger than N (few, large blocks: it pays per tile, not per lane)."""
    n_q, n_k, d = q.shape[2], k.shape[2], q.shape[3]
    interpret = _env.INTERPRET
    if block_m is None:
        block_m = min(64, next_pow2(n_q)) if interpret else (128 if d <= 128 else 64)
    if block_n is None:
        block_n = min(64, next_pow2(n_k)) if interpret else 64
    warps = 4 if next_pow2(block_m) * _block_d(d) <= 128 * 128 else 8   # as the fast kernel's d=128 tile
    return block_m, block_n, warps, 2


def _block_d(d: int) -> int:
    return next_pow2(d) if _env.INTERPRET else max(16, next_pow2(d))


def forward(q, k, v, *, variant, sm_scale: float, block_m: int, block_n: int, num_warps: int,
            num_stages: int, trace=None, tiles_run=None):
    """q (B, H, Nq, d), k/v (B, H_kv, Nk, d) -> (out like q, lse (B, H, Nq) float32); with `trace` (a NaN-filled
    (3, B*H, Nq, ceil(Nk / block_n)) float32 tensor) also m, l, alpha after every key tile it ran, and the number
    of tiles each program ran in `tiles_run` ((B*H, Tr) int32)."""
    b, h, n_q, d = q.shape
    n_k = k.shape[2]
    q, k, v = (x.contiguous() for x in (q, k, v))
    o = torch.empty_like(q)
    lse = torch.empty((b, h, n_q), dtype=torch.float32, device=q.device)
    rowb, tiles = variants.tables(variant, n_q, n_k, q.device, block_m, block_n)
    slopes, slopes_b = variants.slopes_arg(variant, lse)
    grid = (triton.cdiv(n_q, block_m), b * h)
    tr = trace if trace is not None else lse              # never touched when TRACE is off
    run = tiles_run if tiles_run is not None else rowb
    _teaching_fwd[grid](
        q, k, v, o, lse, tr, run, rowb, tiles, slopes, sm_scale, variant.softcap or 1.0, n_q, n_k, variant.left,
        variant.right, triton.cdiv(n_k, block_n), variants.batch_stride(rowb), variants.batch_stride(tiles), slopes_b,
        q.stride(1), q.stride(2), k.stride(1), k.stride(2), v.stride(1), v.stride(2),
        o.stride(1), o.stride(2), H=h, GROUPS=variant.groups,
        D=d, BLOCK_D=_block_d(d), BR=block_m, BLOCK_M=next_pow2(block_m), BC=block_n,
        BLOCK_N=next_pow2(block_n), **variant.flags(), TRACE=trace is not None, IEEE=q.dtype.itemsize == 4,
        num_warps=num_warps, num_stages=num_stages)
    return o, lse
