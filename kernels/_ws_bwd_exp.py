"""P^T's exponentials in the ws backward (kernels/_ws_bwd_gluon.py), by EXP mode (ws_bwd.EXP_MODES), and its masks
by MASK mode 1 (ws_bwd.MASK_MODES: keep_from, keep_between).

Why: under Nsight Compute (assets/benchmarks/ncu/, issue 32) the backward's 64 MUFU.EX2 per thread per query block
issue back to back while both consumer warpgroups are in the same phase, so they queue on the SFU pipe; FA4 spaces
its exponentials among other work. EXP 2 moves half of them (the odd column of each pair a thread holds) to the FMA
pipe as a polynomial, the way FA4's Blackwell kernels emulate a share of their exp2; EXP 1 (the order, in
_ws_bwd_gluon.py) waits for dP^T first so that dS's multiplies can sit between the exponentials. Imported by
_ws_bwd_gluon.py only.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

ROUND = gl.constexpr(12582912.0)   # 1.5 * 2^23: x + ROUND holds round(x) in its low mantissa bits
# 2^f on [-0.5, 0.5], degree 3, fitted for relative error (7.5e-5 at most: below fp16's rounding of P, 4.9e-4);
# tests/kernels/test_ws_bwd_host.py checks the fit against float64
C3 = gl.constexpr(0.0551716685295105)
C2 = gl.constexpr(0.2426111400127411)
C1 = gl.constexpr(0.6932609677314758)
C0 = gl.constexpr(0.9999280571937561)


@gluon.jit
def exp2_fma(x):
    """2^x without the SFU: round(x) = n goes into the exponent bits, 2^(x - n) is a cubic. 0 below -126 (and for
    -inf), NaN for NaN; x above 127 (a P above 2^127: no consistent lse gives it) is not handled."""
    t = x + ROUND
    f = x - (t - ROUND)                                       # in [-0.5, 0.5]
    p = (C3 * f + C2) * f + C1
    p = p * f + C0
    n = t.to(gl.int32, bitcast=True) << 23                    # round(x) << 23 (ROUND's own bits shift out)
    y = (p.to(gl.int32, bitcast=True) + n).to(gl.float32, bitcast=True)
    return gl.where(x < -126.0, 0.0, y)


@gluon.jit
def exp2_tile(x, layout: gl.constexpr, EXP: gl.constexpr):
    """2^x of a [64, BM] tile in the wgmma accumulator's layout: EXP 0/1 all on MUFU.EX2, 2/3 the even column of
    each thread's pair on MUFU.EX2 and the odd one by exp2_fma (the split and join stay in registers)."""
    if EXP >= 2:
        xe, xo = gl.split(gl.reshape(x, [x.shape[0], x.shape[1] // 2, 2]))
        y = gl.reshape(gl.join(gl.exp2(xe), exp2_fma(xo)), [x.shape[0], x.shape[1]])
        return gl.convert_layout(y, layout)
    else:
        return gl.exp2(x)


@gluon.jit
def keep_from(p, rows, first):
    """p where rows >= first, else 0: keep_between without its upper bound (one compare a score, not two)."""
    return gl.inline_asm_elementwise("{ .reg .pred k; setp.ge.s32 k, $1, $2; selp.f32 $0, $3, 0f00000000, k; }",
                                     "=f,r,r,f", [rows, first, p], dtype=gl.float32, is_pure=True, pack=1)


@gluon.jit
def keep_between(p, rows, first, last):
    """p where first <= rows <= last (row i sees key j in [first_j, last_j]), else 0, one asm statement a score.
    As gl.where the compares were made ahead of the exponentials and the 64 of a thread held as a bit mask, three
    instructions more a score to pack and unpack (python -m tools.sass_loops --what bwd: the masked loops)."""
    return gl.inline_asm_elementwise(
        "{ .reg .pred a, b; setp.ge.s32 a, $1, $2; setp.le.and.s32 b, $1, $3, a; selp.f32 $0, $4, 0f00000000, b; }",
        "=f,r,r,r,f", [rows, first, last, p], dtype=gl.float32, is_pure=True, pack=1)


@gluon.jit
def mask_p(p, rows, keys, first, k_first, k_last, offset, n_k, CAUSAL: gl.constexpr, TABLE: gl.constexpr,
           MASK: gl.constexpr):
    """A masked block's P^T (64 keys x BM rows) with every hidden score zeroed: TABLE's per-key interval of rows
    [k_first, k_last], the causal band (key j seen by rows >= first_j = j - offset), or only keys past n_k (a ragged
    last key block); MASK 1 by one asm statement a score, 0 by gl.where."""
    if TABLE and MASK == 1:                           # per key, not per row: 2 registers a thread, not 2 x BM / 4
        p = keep_between(p, gl.expand_dims(rows, 0), gl.expand_dims(k_first, 1), gl.expand_dims(k_last, 1))
    elif TABLE:
        p = gl.where((gl.expand_dims(rows, 0) >= gl.expand_dims(k_first, 1)) &
                     (gl.expand_dims(rows, 0) <= gl.expand_dims(k_last, 1)), p, 0.0)
    elif CAUSAL and MASK == 1:
        p = keep_from(p, gl.expand_dims(rows, 0), gl.expand_dims(first, 1))
    elif CAUSAL:
        p = gl.where((gl.expand_dims(keys, 1) < n_k) &
                     (gl.expand_dims(keys, 1) <= gl.expand_dims(rows, 0) + offset), p, 0.0)
    else:
        p = gl.where(gl.expand_dims(keys, 1) < n_k, p, 0.0)
    return p
