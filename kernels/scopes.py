"""Named time ranges inside a kernel, for the "Inside the kernel" page (flashviz/bench/timeline.py).

enter_scope("qk") / exit_scope("qk") are Triton proton's intra-kernel scopes (triton.profiler.language). They emit
nothing unless proton's instrumentation backend is on (its record() returns before building any op), so a normal
compile is the same kernel. Where proton cannot be imported, or Triton interprets on CPU (where a proton builtin
has no builder to call), they are jit functions that do nothing, so a kernel can call them everywhere.
"""
from . import _env
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

PROTON = False
if not _env.INTERPRET:
    try:
        from triton.profiler.language import enter_scope, exit_scope  # noqa: F401
        PROTON = True
    except Exception:                                  # noqa: BLE001 - an older or partial triton: no scopes
        pass

if not PROTON:
    @triton.jit
    def enter_scope(name: tl.constexpr):
        pass

    @triton.jit
    def exit_scope(name: tl.constexpr):
        pass
