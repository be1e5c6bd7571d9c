"""Gluon's API differences between the triton versions the ws kernels compile with (3.6, 3.7, 3.8), in one place.

Gluon (triton.experimental.gluon) is experimental and moved between releases; kernels/_ws_gluon.py, _ws_tile.py,
_ws_bwd_gluon.py and _ws_bwd_dq.py import these names instead of the moving ones (`python -m tools.compile_check
--ws` / `--ws-bwd` compiles every launch for sm_90 under each version without a GPU):
  tma_load, tma_store  3.8 renamed tma.async_copy_global_to_shared / async_copy_shared_to_global to async_load /
                       async_store (the old names stay as aliases there); 3.6 and 3.7 have only the old ones
  tma_add              TMA reduce-add from shared memory: tma.async_atomic_add from 3.8; 3.6 and 3.7 have the op
                       (create_async_tma_reduce) but no Gluon wrapper, so a two-line builtin emits it
  thread_barrier       gl.thread_barrier in 3.6, gl.barrier from 3.7 (the ws backward's producer: its lanes' shared
                       stores before one lane's mbarrier arrive)
  enter_scope,         proton's intra-kernel scopes (the "Inside the kernel" page); they compile to nothing unless
  exit_scope           proton instruments the run. A triton without proton gets scopes that do nothing
Left as they are because every version takes them the same way: mbarrier.expect(bar, nbytes) positionally (its
keyword became bytes_per_cta in 3.7), gl.warp_specialize(functions_and_args, worker_num_warps, worker_num_regs)
(worker_num_regs optional from 3.7). A name a future triton drops fails here, at import, where ws.status() reports
it (Gluon could not be imported).
"""
from triton.experimental import gluon as _gluon
from triton.experimental.gluon import language as _gl
from triton.experimental.gluon.language.nvidia.hopper import tma

try:
    from triton.profiler.language import enter_scope, exit_scope  # noqa: F401
except ImportError:                                   # a triton without proton: scopes that do nothing
    @_gluon.jit
    def enter_scope(name: _gl.constexpr):
        pass

    @_gluon.jit
    def exit_scope(name: _gl.constexpr):
        pass

thread_barrier = getattr(_gl, "barrier", None) or _gl.thread_barrier

tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global

if hasattr(tma, "async_atomic_add"):                  # Gluon's own name for it (3.8)
    tma_add = tma.async_atomic_add
else:                                                 # 3.6, 3.7: the op is there, the Gluon wrapper is not
    from triton._C.libtriton import ir
    from triton.experimental.gluon.language._core import builtin

    @builtin
    def tma_add(tensor_desc, coord, src, _semantic=None):
        """TMA reduce-add (cp.reduce.async.bulk.tensor .add) of shared-memory src into tensor_desc's box at coord."""
        coord = _semantic._convert_to_ir_values(coord, require_i64=False)
        _semantic.builder.create_async_tma_reduce(ir.DESCRIPTOR_REDUCE_KIND.ADD, tensor_desc.handle, coord, src.handle)
