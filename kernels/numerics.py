"""The exp2 softmax's two constants, defined once for the whole project.

LOG2E = log2(e): scores times LOG2E turn every exp into a bare exp2 (the kernels fold it into the softmax scale);
LN2 = ln(2) = 1 / LOG2E: a log-sum-exp kept in log2 units times LN2 is back in natural units. Host code reads the
floats; code inside @triton.jit / @gluon.jit functions may read only constexpr globals, so LOG2E_C and LN2_C are the
same values as Triton constexprs (None where triton is not installed).
"""
import math

from . import _env

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
assert LOG2E == math.log2(math.e) and LN2 == math.log(2.0)

LOG2E_C = LN2_C = None
if _env.HAS_TRITON:
    import triton.language as tl

    LOG2E_C, LN2_C = tl.constexpr(LOG2E), tl.constexpr(LN2)
