"""Ring attention's per-block backward on Hopper runs the warp-specialised ws backward (kernels/ws_bwd.py), with
ragged blocks (Nq != Nk pieces of the zigzag layout) and a gradient flowing into the returned lse, checked on ONE
GPU: W virtual ranks are threads of this process (tests/helpers/ring.py's run_threads), their K/V blocks passed through
queues, every rank's forward_loop and backward_loop the real ones. Gradients against float64 single-process
attention of the whole sequence (tests/ring_cases.reference), and the one-GPU backward's measured peak against
flashviz.engine.ring_memory.backward_memory(kernel="ws")."""
import gc
import math

import pytest
import torch

from helpers.ring_cases import DTYPES, EPS, case, inputs, reference
from helpers.ring import run_threads



def _ws_ready(dtype=torch.float16, d=128):
    from flashviz_kernels.ring_block import flash_kind
    q = torch.empty(1, 1, 256, d, device="cuda", dtype=dtype)
    return flash_kind(q) == "ws"


def _rank(ring_, c):
    from flashviz_kernels import ring
    x = {k: ring.shard(t, ring_.rank, ring_.world, c["layout"]).to(c["device"]) for k, t in inputs(c).items()}
    scale = 1.0 / math.sqrt(c["d"])
    out, lse = ring.forward_loop(x["q"], x["k"], x["v"], causal=c["causal"], sm_scale=scale, impl=c["impl"],
                                 layout=c["layout"], ring=ring_)
    dlse = x["g_lse"].float()
    dq, dk, dv = ring.backward_loop(x["q"], x["k"], x["v"], out, lse, x["g_out"].to(out.dtype), dlse,
                                    causal=c["causal"], sm_scale=scale, impl=c["impl"], layout=c["layout"],
                                    ring=ring_)
    if c["device"] == "cuda":
        torch.cuda.synchronize()
    return {k: t.cpu() for k, t in dict(out=out, lse=lse, dq=dq, dk=dk, dv=dv).items()}


def _check(c, shards):
    from flashviz_kernels import ring
    ref64, low = reference(c, torch.float64), reference(c, DTYPES[c["dtype"]])
    for name in ("out", "lse", "dq", "dk", "dv"):
        got = ring.unshard([s[name] for s in shards], c["layout"]).double()
        assert torch.isfinite(got).all(), name
        err = (got - ref64[name]).abs().max().item()
        base = (low[name].double() - ref64[name]).abs().max().item()
        scale = max(1.0, ref64[name].abs().max().item())
        assert err <= 2 * base + EPS[c["dtype"]] * scale, (name, err, base)


@pytest.mark.parametrize("world, layout", [(2, "zigzag"), (3, "contiguous")])
def test_virtual_ranks_on_threads_are_a_ring(world, layout):
    """The harness itself, on CPU (torch's SDPA per block, float32): W threads passing blocks through queues give
    the same ring as W processes do, so the GPU cases below test the kernels, not the harness."""
    c = case(layout, True, "float32", "sdpa", n=2 * world * 12, b=1, h=2, d=16, grad="out+lse", seed=world)
    _check(c, run_threads(world, _rank, c))


CASES = [(w, layout, causal, dtype, d) for w in (2, 3) for layout in ("contiguous", "zigzag")
         for causal in (False, True) for dtype in ("float16", "bfloat16") for d in (64, 128)
         if not (w == 3 and dtype == "bfloat16")]


@pytest.mark.gpu
@pytest.mark.parametrize("world, layout, causal, dtype, d", CASES)
def test_ring_with_ws_blocks_matches_float64(world, layout, causal, dtype, d):
    """out, lse and dq, dk, dv of the ring (every block's backward on ws, dlse flowing in) within twice the error of
    the same computation done in one process at the case's dtype, plus eps, of float64."""
    if not _ws_ready(DTYPES[dtype], d):
        pytest.skip("the ws backward does not run here (see flashviz_kernels.ws.status())")
    n = 2 * world * 320                                           # zigzag: 2W chunks of 320 rows (not a tile multiple)
    c = case(layout, causal, dtype, "fast", n=n, b=1, h=2, d=d, grad="out+lse", seed=7 + world + d, device="cuda")
    _check(c, run_threads(world, _rank, c))


@pytest.mark.gpu
def test_blocks_take_ws_and_the_one_gpu_peak_is_its_account():
    """W = 1: ring_attention's backward is one block's; on an H200 it runs ws, and the bytes it allocates beyond
    q, k, v, o, dO and lse are backward_memory(kernel="ws")'s, within allocator slack."""
    if not _ws_ready():
        pytest.skip("the ws backward does not run here (see flashviz_kernels.ws.status())")
    from flashviz.engine.ring_memory import backward_memory
    from flashviz_kernels import ring
    b, h, n, d = 1, 16, 16384, 128
    for causal in (False, True):
        g = torch.Generator(device="cuda").manual_seed(1)
        q, k, v = (torch.randn(b, h, n, d, generator=g, device="cuda", dtype=torch.float16).requires_grad_()
                   for _ in range(3))
        do = torch.randn(b, h, n, d, generator=g, device="cuda", dtype=torch.float16)
        o, _ = ring.ring_attention(q, k, v, causal=causal)
        torch.autograd.grad(o, (q, k, v), do, retain_graph=True)             # warm: compiles
        gc.collect()                  # an earlier test's cyclic garbage freed inside the measured call lowers its peak
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        grads = torch.autograd.grad(o, (q, k, v), do)
        torch.cuda.synchronize()
        got = torch.cuda.max_memory_allocated() - base
        m = backward_memory(1, n, "contiguous", causal, batch=b, heads=h, d=d, elem_bytes=2, kernel="ws")
        want = sum(m.values()) - m["inputs"] - b * h * n * 4       # less the saved lse (4 bytes a row): an input
        assert abs(got - want) <= 16 << 20, (causal, got, want, m)
        del grads, o, q, k, v, do
        torch.cuda.empty_cache()
