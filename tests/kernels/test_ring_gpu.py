"""Ring attention on two CUDA GPUs with NCCL (marker `gpu`; skipped unless two GPUs are visible).

The same comparison as tests/kernels/test_ring.py (shards of out, lse and the gradients vs float64 single-process
attention, within 2x the same-dtype single-process error + eps), with the per-block impls a GPU runs: the fast
Triton kernel (and its Triton backward when nothing flows into lse) and SDPA (flash for fp16/bf16, the
memory-efficient kernel for fp32, left out here: its TF32 error is not what these bounds measure). Last, the
benchmark launcher itself under torchrun at a tiny size.
"""
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from helpers.ring_cases import case, compare, worker
from helpers.ring import run_ranks

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA GPUs")]
ROOT = Path(__file__).resolve().parents[2]

CASES = [case(layout, causal, dtype, impl, n=1024, b=1, h=4, d=d, grad=grad, seed=i, device="cuda")
         for i, (layout, causal, (impl, dtype, d, grad)) in enumerate(itertools.product(
             ("contiguous", "zigzag"), (False, True),
             (("fast", "float16", 128, "out"), ("fast", "bfloat16", 64, "out+lse"), ("sdpa", "float16", 128, "out"),
              ("sdpa", "bfloat16", 64, "out+lse"))))]
CASES += [case("zigzag", True, "float16", "fast", n=8192, b=1, h=2, d=128, grad="out", seed=99, device="cuda")]
# the memory-bounded forward (kernels/ring_chunked.py), forced: ragged sub-chunks, the fast kernel and SDPA per piece
CASES += [case("zigzag", True, "float16", "fast", n=8192, b=1, h=2, d=128, grad="out", seed=120, device="cuda",
               chunks=3),
          case("contiguous", True, "bfloat16", "fast", n=4096, b=1, h=4, d=64, grad="out+lse", seed=121, device="cuda",
               chunks=5),
          case("contiguous", False, "float16", "sdpa", n=4096, b=1, h=4, d=128, grad="out", seed=122, device="cuda",
               chunks=4)]


@pytest.fixture(scope="module")
def results():
    return run_ranks(2, worker, CASES, backend="nccl", timeout=400)


@pytest.mark.parametrize("i", range(len(CASES)),
                         ids=[f"{c['layout']}-{'causal' if c['causal'] else 'full'}-{c['impl']}-{c['dtype']}-"
                              f"d{c['d']}-N{c['n']}-{c['grad']}" + (f"-S{c['chunks']}" if c["chunks"] else "")
                              for c in CASES])
def test_ring_nccl_matches_single_process(results, i):
    c = CASES[i]
    errs = compare(c, [results[0][i], results[1][i]])
    assert set(errs) == {"out", "lse", "dq", "dk", "dv"}


def test_bench_launcher_under_torchrun(tmp_path):
    """torchrun --nproc-per-node 2 -m flashviz.bench.ring_bench at a tiny size writes a dataset the page accepts."""
    from flashviz.bench.ring_dataset import load_ring_dataset
    out = tmp_path / "ring.json"
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
           "-m", "flashviz.bench.ring_bench", "--seq", "4096", "8192", "--heads", "4", "--reps", "3",
           "--budget-s", "300", "--out", str(out)]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=560, env=dict(os.environ))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    ds = load_ring_dataset(out)
    assert ds["provenance"]["world_size"] == 2 and ds["provenance"]["backend"] == "nccl"
    ok = [c for c in ds["cells"] if c["status"] == "ok"]
    assert {c["world"] for c in ok} == {1, 2}
    assert all(c["ms"] > 0 and c["peak_bytes"] > 0 for c in ok)
    assert all(c["ms_comm"] > 0 and 0 <= c["ms_exposed"] <= c["ms_p80"] for c in ok if c["world"] == 2)
    assert json.loads(out.read_text())["complete"] is True


# ----------------------------------------------------------------------------- backward memory vs the engine's account

# (layout, causal, chunks): the plain backward and the chunked one (S = 8), B = 1, H = 16, N = 32768, d = 128, fp16:
# a shard is 64 MiB, the plain backward holds about 15 of them, the chunked one about 11.75
MEM_CASES = [("zigzag", True, None), ("contiguous", False, None), ("zigzag", True, 8), ("contiguous", True, 8)]
MEM_SHAPE = dict(batch=1, heads=16, d=128, elem_bytes=2)
MEM_N = 32768
MEM_SLACK = 32 << 20        # half a shard: allocator rounding, Triton's cached tile tables, NCCL's stashed tensors


def _memory_worker(rank, world, cases):
    """Bytes allocated during a warm fwd+bwd's backward beyond what existed before it (q, k, v, o, dO, lse), per
    case: torch.cuda.max_memory_allocated after a reset, less memory_allocated before the backward."""
    from flashviz_kernels import ring as kring
    out = []
    for layout, causal, chunks in cases:
        g = torch.Generator(device="cuda").manual_seed(rank)
        shape = (1, MEM_SHAPE["heads"], MEM_N // world, MEM_SHAPE["d"])
        q, k, v = (torch.randn(shape, generator=g, device="cuda", dtype=torch.float16).requires_grad_()
                   for _ in range(3))
        do = torch.randn(shape, generator=g, device="cuda", dtype=torch.float16)
        o, _ = kring.ring_attention(q, k, v, causal=causal, layout=layout, impl="fast", chunks=chunks)
        torch.autograd.grad(o, (q, k, v), do, retain_graph=True)               # warm: compiles, cached tables
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        grads = torch.autograd.grad(o, (q, k, v), do)
        torch.cuda.synchronize()
        out.append(torch.cuda.max_memory_allocated() - base)
        del grads, o, q, k, v, do
        torch.cuda.empty_cache()
    return out


def test_backward_peak_matches_backward_memory():
    """The measured backward peak per GPU (beyond the tensors that exist before it) is flashviz.engine.ring_memory.backward_memory
    less its inputs and lse, within MEM_SLACK, on the busiest rank, plain and chunked; the chunked one holds less."""
    from flashviz.engine.ring_memory import backward_memory
    measured = run_ranks(2, _memory_worker, MEM_CASES, backend="nccl", timeout=400)
    extra = {}
    for i, (layout, causal, chunks) in enumerate(MEM_CASES):
        m = backward_memory(2, MEM_N, layout, causal, chunks=chunks or 1, **MEM_SHAPE)   # ws blocks at d=128
        want = sum(m.values()) - m["inputs"] - m["lse"]
        got = max(r[i] for r in measured)
        assert abs(got - want) <= MEM_SLACK, (layout, causal, chunks, got, want, m)
        extra[(layout, causal, chunks)] = got
    assert extra[("zigzag", True, 8)] < extra[("zigzag", True, None)] - (128 << 20)
