"""The ws forward's softmax step on one score tile, with its masks and ALiBi term (kernels/_ws_tile.py's attend
calls it once per key tile). Scores are in log2 units: qk_scale = sm_scale * log2 e, so every exponential is a
bare exp2. Imported by _ws_tile.py only."""
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from .ws_switches import local_sum_default, pair_max_default, poly_default

# d = 64: each lane's own share of a row's sum kept until the query tile's end (ws_switches.local_sum_default):
# fixed when this module is imported
LOCAL_SUM = gl.constexpr(local_sum_default(triton.__version__))
# a thread's two rows' maxima joined before their exponentials (ws_switches.pair_max_default): fixed at import
PAIR_MAX = gl.constexpr(pair_max_default(triton.__version__))
# d = 64: one exponential in eight of an unmasked tile on the FMA pipe (ws_switches.poly_default): fixed at import
POLY = gl.constexpr(poly_default(triton.__version__))
# PTX for 8 of a thread's exponentials (EMU): 7 by ex2.approx (as gl.exp2 emits it), the last as
# _ws_bwd_exp.exp2_fma's cubic (its constants), clamped at -126 by max.NaN (a NaN stays NaN; below -126: at most
# 2^-126, not 0, so never for masked scores). Written inline in softmax_step: behind a jit helper ptxas ordered the
# d = 64 loops differently even with it off (tests/tools/test_sass_loops.py's lane-sum counts moved)
POLY_ASM = gl.constexpr("{ " + " ".join([f"ex2.approx.ftz.f32 ${i}, ${8 + i};" for i in range(7)] + [
    "{ .reg .f32 xx, t, r, f, p; .reg .b32 e, tb, pb;", "max.NaN.f32 xx, $15, 0fC2FC0000;",   # -126
    "add.rn.f32 t, xx, 0f4B400000;", "sub.rn.f32 r, t, 0f4B400000;", "sub.rn.f32 f, xx, r;",  # 1.5 * 2^23: round
    "fma.rn.f32 p, f, 0f3D61FBB0, 0f3E786F0E;", "fma.rn.f32 p, p, f, 0f3F31798D;",               # C3, C2; C1
    "fma.rn.f32 p, p, f, 0f3F7FFB49;", "mov.b32 tb, t;", "mov.b32 pb, p;", "shl.b32 e, tb, 23;",  # C0
    "add.s32 pb, pb, e;", "mov.b32 $7, pb; }"]) + " }")
POLY_CONS = gl.constexpr(",".join(["=f"] * 8 + ["f"] * 8))


@gluon.jit
def pair_rows(m, PAIR: gl.constexpr):
    """PAIR: the row maxima m (M,) unchanged, each of a thread's two values (rows r and r + 8) now computed from
    both: max(a, min(a, b)) = a and max(b, min(a, b)) = b for any a, b that are not NaN (-inf included), an identity
    ptxas does not fold, so neither row's exponentials can issue before both rows' quad shuffles finished. (A NaN
    maximum takes the other row's value; that row's output stays NaN through its own NaN scores, the other's is
    unchanged.)"""
    if not PAIR:
        return m
    return gl.inline_asm_elementwise("{ .reg .f32 t; min.f32 t, $2, $3; max.f32 $0, $2, t; max.f32 $1, $3, t; }",
                                     "=r,=r,r,r", [m], dtype=gl.float32, is_pure=True, pack=2)


@gluon.jit
def quad_sums(x):
    """(M, BN) wgmma-accumulator tile -> (M, 4): each lane's own share of its rows' sums, dim 1 the 4 lanes of the
    quad that shares a row (a thread holds row i's columns 8k + 2t + e, t its lane in the quad): no shuffle."""
    M: gl.constexpr = x.shape[0]
    BN: gl.constexpr = x.shape[1]
    return gl.sum(gl.sum(gl.reshape(x, [M, BN // 8, 4, 2]), 3), 1)


@gluon.jit
def to_quads(l, s):
    """LOCAL_SUM: a row sum l (M,) as quad_sums(s)'s (M, 4), all of it in the quad's first lane."""
    z = quad_sums(gl.zeros_like(s))
    lay: gl.constexpr = z.type.layout
    first = gl.expand_dims(gl.arange(0, 4, layout=gl.SliceLayout(0, lay)) == 0, 0)
    return gl.where(first, gl.expand_dims(gl.convert_layout(l, gl.SliceLayout(1, lay)), 1), z)


@gluon.jit
def from_quads(l4, row_l: gl.constexpr):
    """LOCAL_SUM: the row sums (M,) in row_l of to_quads' (M, 4)."""
    return gl.convert_layout(gl.sum(l4, 1), row_l)


@gluon.jit
def softmax_step(s, m, l, cols, row_lo, row_hi, qk_scale, bias, MASKED: gl.constexpr, LOWER: gl.constexpr,
                 ALIBI: gl.constexpr, LOCAL: gl.constexpr, PAIR: gl.constexpr, EMU: gl.constexpr,
                 NOSUM: gl.constexpr = False):
    """One online-softmax step on a score tile s (raw Q·Kᵀ): (p, alpha, m_new, l_new), m in log2 units. MASKED:
    row i sees the keys j <= row_hi[i] and, with LOWER, j >= row_lo[i] (attend's per-row bounds: causal side,
    ragged end, window or document), two integer compares per score at most. ALIBI: bias is the tile's per-key
    ALiBi term (log2 units, alibi_cols), added to every row. Without ALiBi a hidden score is -inf before the
    scale (qk_scale > 0: api checks it), so the masked step is the unmasked one's FFMA + exp2 plus the select.
    EMU: of each 8 exponentials a thread holds in the unmasked step, one by POLY_ASM's cubic (poly_default).
    NOSUM: l left as it is, 0 (the caller sums P on the tensor cores: ws_switches.mma_sum_default)."""
    if MASKED:                                        # diagonal band (causal), window/document edge, ragged tile
        ok = gl.expand_dims(cols, 0) <= gl.expand_dims(row_hi, 1)
        if LOWER:
            ok = ok & (gl.expand_dims(cols, 0) >= gl.expand_dims(row_lo, 1))
        if ALIBI:
            s = gl.where(ok, s * qk_scale + gl.expand_dims(bias, 0), float("-inf"))
            m_new = pair_rows(gl.maximum(m, gl.max(s, 1)), PAIR)
        else:
            s = gl.where(ok, s, float("-inf"))
            m_new = pair_rows(gl.maximum(m, gl.max(s, 1) * qk_scale), PAIR)
        m_ref = gl.where(m_new == float("-inf"), 0.0, m_new)       # no key seen yet: avoid -inf - -inf
        if ALIBI:
            p = gl.exp2(s - gl.expand_dims(m_ref, 1))
        else:
            p = gl.exp2(s * qk_scale - gl.expand_dims(m_ref, 1))
    elif ALIBI:                                       # every key visible, each with its ALiBi term
        t = s * qk_scale + gl.expand_dims(bias, 0)
        m_new = pair_rows(gl.maximum(m, gl.max(t, 1)), PAIR)
        m_ref = m_new
        p = gl.exp2(t - gl.expand_dims(m_ref, 1))
    else:                                             # every key visible: no mask, no guard
        m_new = pair_rows(gl.maximum(m, gl.max(s, 1) * qk_scale), PAIR)
        m_ref = m_new
        if EMU:                                       # 1 in 8 on the FMA pipe (not for masked scores: POLY_ASM)
            p = gl.inline_asm_elementwise(POLY_ASM, POLY_CONS, [s * qk_scale - gl.expand_dims(m_ref, 1)],
                                          dtype=gl.float32, is_pure=True, pack=8)
        else:
            p = gl.exp2(s * qk_scale - gl.expand_dims(m_ref, 1))
    alpha = gl.exp2(m - m_ref)
    if NOSUM:                                         # l stays 0 (no HALF step where NOSUM runs)
        l_new = l
    elif LOCAL:                                       # l: to_quads' (M, 4), each lane's share
        l_new = l * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, l.type.layout)), 1) + quad_sums(p)
    else:
        l_new = l * alpha + gl.sum(p, 1)
    return p, alpha, m_new, l_new


@gluon.jit
def softmax_tile(s, m, l, k0, full, lo_full, cols, row_lo, row_hi, qk_scale, bias, WINDOW: gl.constexpr,
                 ALIBI: gl.constexpr, SEQ: gl.constexpr, LOCAL: gl.constexpr, PAIR: gl.constexpr, EMU: gl.constexpr,
                 NOSUM: gl.constexpr = False):
    """softmax_step on the key tile from k0: unmasked inside [lo_full, full), where every row sees every key, masked
    elsewhere (two compiled copies, picked per tile at run time; a third that skips a window's left-bound compare
    on the diagonal tile timed no faster on the H200)."""
    if (k0 < full) & (k0 >= lo_full):
        p, alpha, m_new, l_new = softmax_step(s, m, l, cols, row_lo, row_hi, qk_scale, bias, False, False, ALIBI,
                                                LOCAL, PAIR, EMU, NOSUM)
    else:
        p, alpha, m_new, l_new = softmax_step(s, m, l, cols, row_lo, row_hi, qk_scale, bias, True, WINDOW or SEQ,
                                                ALIBI, LOCAL, PAIR, False, NOSUM)
    return p, alpha, m_new, l_new


@gluon.jit
def alibi_cols(cols, r0, offset, slope2, ALIBI: gl.constexpr):
    """Causal ALiBi adds slope * (j - i - offset) (<= 0 where visible) to score (i, j). Split as slope * (j - r0 -
    offset) - slope * (i - r0): the key term goes on every score (kept small near the diagonal, where the row
    maxima are, by measuring from r0); the row term is a per-row constant that cancels in the softmax, so only
    the row's max carries it (attend subtracts it at the end, for the LSE). slope2 in log2 units; 0 off ALiBi."""
    bias = slope2
    if ALIBI:                                         # constexpr: only one of the two types is ever built
        bias = slope2 * (cols - (r0 + offset)).to(gl.float32)
    return bias


@gluon.jit
def p_operand(p, dtype: gl.constexpr, layout: gl.constexpr, PACK: gl.constexpr):
    """P (fp32) as the P·V A operand: dtype, in `layout`. PACK: each pair converted by one inline-asm
    cvt.rn.{f16,bf16}x2.f32, which LLVM cannot fold into a later conversion (ws_switches.p_pack_default says
    where and why); the same rounding as p.to(dtype). cvt's first source fills the high half, so a pair's second
    element ($2) goes first."""
    if PACK:
        if dtype == gl.float16:
            q = gl.inline_asm_elementwise("cvt.rn.f16x2.f32 $0, $2, $1;", "=r,r,r", [p], dtype=gl.float16,
                                          is_pure=True, pack=2)
        else:
            q = gl.inline_asm_elementwise("cvt.rn.bf16x2.f32 $0, $2, $1;", "=r,r,r", [p], dtype=gl.bfloat16,
                                          is_pure=True, pack=2)
    else:
        q = p.to(dtype)
    return gl.convert_layout(q, layout)
