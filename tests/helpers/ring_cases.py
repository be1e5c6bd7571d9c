"""Cases for the ring-attention tests: seeded inputs, the per-rank worker, and the single-process references.

A case is a dict: layout, causal, dtype ("float32"/"float16"/"bfloat16"), impl, n (whole sequence), b, h, d,
grad ("out+lse": loss = <out, g_out> + <lse, g_lse>; "out": g_lse = 0; "lse": only <lse, g_lse>; None: forward),
seed, device, merge ("auto": ring_block.merge picks, torch on CPU; "triton": the fused kernel, in Triton's interpreter
on CPU), chunks (ring_attention's: None = its rule, which keeps these small cases plain; S > 1 the chunked
forward). Every rank builds the same whole tensors from the seed and keeps its shard.
"""
from __future__ import annotations

import math

import torch

import flashviz_kernels as fk
from flashviz_kernels import ring

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64}
EPS = {"float32": 2e-5, "float16": 2e-3, "bfloat16": 1.6e-2, "float64": 1e-9}


def case(layout="contiguous", causal=False, dtype="float32", impl="sdpa", n=32, b=2, h=2, d=16, grad="out+lse",
         seed=0, device="cpu", merge="auto", chunks=None) -> dict:
    return dict(layout=layout, causal=causal, dtype=dtype, impl=impl, n=n, b=b, h=h, d=d, grad=grad, seed=seed,
                device=device, merge=merge, chunks=chunks)


def case_id(world: int, c: dict) -> str:
    """A test id for a CPU case: world size, S when chunked, layout, mask, dtype, impl, gradient, fused merge."""
    return (f"W{world}" + (f"-S{c['chunks']}" if c["chunks"] else "") + f"-{c['layout']}-"
            f"{'causal' if c['causal'] else 'full'}-{c['dtype']}-{c['impl']}-{c['grad']}"
            + ("-triton_merge" if c["merge"] == "triton" else ""))


def inputs(c: dict) -> dict:
    """Whole-sequence tensors (CPU, float32 master copies rounded to the case's dtype)."""
    g = torch.Generator().manual_seed(c["seed"])
    shape = (c["b"], c["h"], c["n"], c["d"])
    dt = DTYPES[c["dtype"]]
    q, k, v = (torch.randn(shape, generator=g).to(dt) for _ in range(3))
    g_out = torch.randn(shape, generator=g)
    g_lse = torch.randn(shape[:3], generator=g)
    if c["grad"] == "out":
        g_lse = torch.zeros_like(g_lse)
    if c["grad"] == "lse":
        g_out = torch.zeros_like(g_out)
    return dict(q=q, k=k, v=v, g_out=g_out, g_lse=g_lse)


def worker(rank: int, world: int, cases: list[dict]) -> list[dict]:
    """Run every case on this rank; return its shards of out, lse and the gradients (on the CPU)."""
    from flashviz_kernels.ring_block import merge as auto_merge
    from flashviz_kernels import ring_chunked
    from flashviz_kernels.ring_merge import merge_triton
    out = []
    for c in cases:
        # this forked rank's copies only
        ring.merge = ring_chunked.merge = merge_triton if c.get("merge") == "triton" else auto_merge
        x = inputs(c)
        dev = torch.device(c["device"], rank) if c["device"] == "cuda" else torch.device("cpu")
        sh = {k: ring.shard(t, rank, world, c["layout"]).to(dev) for k, t in x.items()}
        q, k, v = (sh[name].requires_grad_(c["grad"] is not None) for name in ("q", "k", "v"))
        o, lse = ring.ring_attention(q, k, v, causal=c["causal"], layout=c["layout"], impl=c["impl"],
                                     chunks=c.get("chunks"))
        res = dict(out=o.detach().cpu(), lse=lse.detach().cpu())
        if c["grad"] is not None:
            if c["grad"] == "lse":
                loss = (lse * sh["g_lse"]).sum()
            else:
                loss = (o.float() * sh["g_out"]).sum() + (lse * sh["g_lse"]).sum()
            dq, dk, dv = torch.autograd.grad(loss, (q, k, v))
            res.update(dq=dq.cpu(), dk=dk.cpu(), dv=dv.cpu())
        out.append(res)
    return out


def error_worker(rank: int, world: int) -> list[str]:
    """Typed errors raised together by every rank (no rank left waiting in a transfer)."""
    seen = []
    n_local = 8 if rank == 0 else 10                    # shards of different lengths
    q = torch.randn(1, 1, n_local, 8)
    for kwargs in (dict(), dict(layout="zigzag", causal=True)):
        try:
            ring.ring_attention(q, q, q, impl="sdpa", **kwargs)
            seen.append("no error")
        except fk.KernelError as e:
            seen.append(f"{type(e).__name__}: {e}")
    q = torch.randn(1, 1, 7, 8)                         # same length on every rank, but odd: no zigzag
    try:
        ring.ring_attention(q, q, q, impl="sdpa", layout="zigzag")
        seen.append("no error")
    except fk.KernelError as e:
        seen.append(f"{type(e).__name__}: {e}")
    return seen


def reference(c: dict, dtype) -> dict:
    """Single-process attention of the whole sequence in `dtype` (float64: the reference; the case's dtype:
    the same computation at low precision), with autograd for the same loss."""
    x = inputs(c)
    q, k, v = (x[name].to(dtype).requires_grad_(c["grad"] is not None) for name in ("q", "k", "v"))
    n, scale = c["n"], 1.0 / math.sqrt(c["d"])
    s = torch.matmul(q * scale, k.transpose(-1, -2))
    if c["causal"]:
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    lse = torch.logsumexp(s.double() if dtype == torch.float64 else s.float(), dim=-1)
    o = torch.matmul(torch.softmax(s, dim=-1), v)
    res = dict(out=o.detach(), lse=lse.detach())
    if c["grad"] is not None:
        if c["grad"] == "lse":
            loss = (lse * x["g_lse"].to(lse.dtype)).sum()
        else:
            loss = (o.to(lse.dtype) * x["g_out"].to(lse.dtype)).sum() + (lse * x["g_lse"].to(lse.dtype)).sum()
        res.update(zip(("dq", "dk", "dv"), torch.autograd.grad(loss, (q, k, v), materialize_grads=True)))
    return res


def compare(c: dict, shards: list[dict], what=("out", "lse", "dq", "dk", "dv")) -> dict:
    """max|ring - ref64| <= 2 max|same-dtype single process - ref64| + eps for each field; returns the errors."""
    ref64, low = reference(c, torch.float64), reference(c, DTYPES[c["dtype"]])
    errs = {}
    for name in what:
        if name not in ref64:
            continue
        got = ring.unshard([s[name] for s in shards], c["layout"])
        assert got.shape == ref64[name].shape, (name, got.shape)
        assert torch.isfinite(got).all(), f"{name}: non-finite values"
        err = (got.double() - ref64[name]).abs().max().item()
        base = (low[name].double() - ref64[name]).abs().max().item()
        scale = max(1.0, ref64[name].abs().max().item())
        assert err <= 2 * base + EPS[c["dtype"]] * scale, \
            f"{name}: ring err {err:.3g} > 2 * single-process {c['dtype']} err {base:.3g} + eps ({c})"
        errs[name] = (err, base)
    return errs


def by_world(cases: dict[int, list[dict]]) -> dict:
    """pytest.mark.parametrize's arguments over {world: [case, ...]}: "world,i" for every case, case_id as its id."""
    return dict(argnames="world,i", argvalues=[(w, i) for w, cs in cases.items() for i in range(len(cs))],
                ids=[case_id(w, c) for w, cs in cases.items() for c in cs])


def run_all(cases: dict[int, list[dict]]) -> dict[int, list]:
    """Each world's cases on one gloo group of that size (worker): {world: every rank's results}."""
    from helpers.ring import run_ranks
    return {w: run_ranks(w, worker, cs) for w, cs in cases.items()}


def shards_of(results: dict[int, list], world: int, i: int) -> list[dict]:
    """Case i's result on every rank of its world, in rank order (what compare takes)."""
    return [results[world][r][i] for r in range(world)]
