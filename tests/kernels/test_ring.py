"""Ring attention (flashviz_kernels.ring) on CPU: real gloo process groups of 2-4 forked ranks.

Every case compares the concatenated shards of out, lse and the gradients of q, k, v (also through lse)
with float64 single-process attention: max|ring - ref64| <= 2 max|same dtype single process - ref64| + eps.
The ranks of one world size run all their cases in one process group (module fixture), so the whole file
costs three short-lived groups.
"""
import itertools

import numpy as np
import pytest
import torch

import flashviz_kernels as fk
from flashviz_kernels import ring
from helpers.ring_cases import by_world, case, compare, error_worker, run_all, shards_of
from helpers.ring import run_ranks

LAYOUTS = ("contiguous", "zigzag")

W2 = [case(layout, causal, dtype, impl, n=32, seed=i)
      for i, (layout, causal, dtype, impl) in enumerate(itertools.product(
          LAYOUTS, (False, True), ("float32", "float16", "bfloat16"), ("sdpa", "naive")))]
W2 += [case("zigzag", True, "float32", "sdpa", grad="lse", seed=50),          # only lse used: dout is None
       case("contiguous", True, "float32", "naive", grad="out", seed=51),
       case("zigzag", True, "float32", "sdpa", grad=None, seed=52)]
if fk.INTERPRET:     # the fused Triton merge inside the ring, in the interpreter (these tensors stay on the CPU):
    # the accumulator in the inputs' dtype at W = 2 (float32 beyond, below), half-row slices (zigzag), SDPA's outputs
    W2 += [case("zigzag", True, "float16", "sdpa", merge="triton", seed=70),
           case("contiguous", False, "bfloat16", "sdpa", merge="triton", seed=71),
           case("zigzag", True, "float32", "naive", merge="triton", grad=None, seed=72)]
if fk.INTERPRET:                               # the Triton teaching kernel and backward, in the interpreter
    W2 += [case("zigzag", True, "float32", "teaching", n=64, b=1, h=2, d=16, grad="out", seed=60),
           case("contiguous", True, "float16", "teaching", n=64, b=1, h=2, d=16, grad="out+lse", seed=61)]
W3 = [case(layout, causal, dtype, impl, n=48, seed=100 + i)
      for i, (layout, causal, dtype, impl) in enumerate(itertools.product(
          LAYOUTS, (False, True), ("float32", "bfloat16"), ("sdpa",)))]
W3 += [case(layout, True, "bfloat16", "sdpa", n=48, merge="triton", seed=150 + i) for i, layout in enumerate(LAYOUTS)
       if fk.INTERPRET]
W4 = [case(layout, True, dtype, "naive" if dtype == "float32" else "sdpa", n=64, b=1, seed=200 + i)
      for i, (layout, dtype) in enumerate(itertools.product(LAYOUTS, ("float32", "float16")))]
W4 += [case("zigzag", False, "float16", "sdpa", n=64, b=1, merge="triton", seed=250)] if fk.INTERPRET else []
CASES = {2: W2, 3: W3, 4: W4}


@pytest.fixture(scope="module")
def results():
    return run_all(CASES)


@pytest.mark.parametrize(**by_world(CASES))
def test_ring_matches_single_process(results, world, i):
    c = CASES[world][i]
    errs = compare(c, shards_of(results, world, i))
    assert set(errs) == ({"out", "lse"} | ({"dq", "dk", "dv"} if c["grad"] else set()))


def test_errors_are_typed_and_raised_on_every_rank():
    seen = run_ranks(2, error_worker)
    for per_rank in seen:
        assert per_rank[0].startswith("KernelInputError") and "different shapes" in per_rank[0]
        assert per_rank[1].startswith("KernelInputError") and "different shapes" in per_rank[1]
        assert per_rank[2].startswith("KernelInputError") and "divisible by 2W = 4" in per_rank[2]


# ----------------------------------------------------------------------------- no process group needed

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("world", [1, 2, 3, 5])
def test_shard_unshard_positions(layout, world):
    n = 4 * world * 2
    x = torch.arange(n, dtype=torch.float32).view(1, 1, n, 1).expand(2, 3, n, 4).contiguous()
    shards = [ring.shard(x, r, world, layout) for r in range(world)]
    for r, s in enumerate(shards):
        pos = ring.positions(r, world, n, layout)
        assert s.shape == (2, 3, n // world, 4)
        assert torch.equal(s[0, 0, :, 0], torch.as_tensor(pos, dtype=torch.float32))
    assert torch.equal(ring.unshard(shards, layout), x)
    every = np.sort(np.concatenate([ring.positions(r, world, n, layout) for r in range(world)]))
    assert np.array_equal(every, np.arange(n))


def test_zigzag_chunks():
    assert [ring.chunks_of(r, 4, "zigzag") for r in range(4)] == [(0, 7), (1, 6), (2, 5), (3, 4)]
    assert [ring.chunks_of(r, 3, "contiguous") for r in range(3)] == [(0,), (1,), (2,)]


@pytest.mark.parametrize("n,world,layout,parts", [(10, 3, "contiguous", 3), (6, 2, "zigzag", 4), (9, 1, "zigzag", 2)])
def test_uneven_split_is_a_typed_error(n, world, layout, parts):
    x = torch.zeros(1, 1, n, 2)
    with pytest.raises(fk.KernelInputError, match=f"N = {n} does not split into {parts} equal chunks"):
        ring.shard(x, 0, world, layout)
    with pytest.raises(fk.KernelInputError, match="divisible"):
        ring.positions(0, world, n, layout)


def test_bad_arguments_are_typed():
    q = torch.randn(1, 1, 8, 4)
    with pytest.raises(fk.KernelInputError, match="layout"):
        ring.ring_attention(q, q, q, layout="spiral", impl="sdpa")
    with pytest.raises(fk.KernelInputError, match="impl"):
        ring.ring_attention(q, q, q, impl="sdpa-flash")
    with pytest.raises(fk.KernelTypeError, match="causal"):
        ring.ring_attention(q, q, q, causal="yes", impl="sdpa")
    with pytest.raises(fk.KernelInputError, match="alike"):
        ring.ring_attention(q, q[:, :, :4], q[:, :, :4], impl="sdpa")


@pytest.mark.parametrize("world", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("causal", [False, True])
def test_plan_covers_exactly_the_visible_keys(world, layout, causal):
    """Brute force: the pieces of every (rank, held block) mark exactly the (query, key) pairs the global mask
    allows, each once; causal pieces are square diagonal blocks."""
    n = 2 * world * 4
    seen = np.zeros((n, n), dtype=int)
    for r in range(world):
        qpos = ring.positions(r, world, n, layout)
        for src in range(world):
            kpos = ring.positions(src, world, n, layout)
            for p in ring.plan(r, src, world, layout, causal, n // world):
                qs, ks = qpos[p.q_lo:p.q_hi], kpos[p.k_lo:p.k_hi]
                if p.causal:
                    assert p.q_hi - p.q_lo == p.k_hi - p.k_lo and np.array_equal(qs, ks)
                    ok = ks[None, :] <= qs[:, None]          # the kernels' rule inside a square local block
                    assert np.array_equal(np.arange(len(qs)), np.argsort(qs))   # increasing: same order
                else:
                    ok = np.ones((len(qs), len(ks)), dtype=bool)
                seen[np.ix_(qs, ks)] += ok
    want = np.tril(np.ones((n, n), dtype=int)) if causal else np.ones((n, n), dtype=int)
    assert np.array_equal(seen, want)


def test_zigzag_balances_causal_work():
    """Per-step work (visible pairs) of every rank: zigzag equal on every step, contiguous not."""
    world, n = 4, 64
    def work(layout):
        w = np.zeros((world, world))
        for r in range(world):
            for s in range(world):
                for p in ring.plan(r, (r - s) % world, world, layout, True, n // world):
                    rows, cols = p.q_hi - p.q_lo, p.k_hi - p.k_lo
                    w[r, s] += rows * (rows + 1) / 2 if p.causal else rows * cols
        return w
    z, c = work("zigzag"), work("contiguous")
    assert z.sum() == c.sum() == n * (n + 1) / 2
    assert z.sum(1).max() - z.sum(1).min() <= n // (2 * world)    # only the diagonal's half rows differ
    assert (c == 0).sum() == world * (world - 1) / 2                 # idle steps of the contiguous layout
    assert c.sum(1).max() > 1.5 * z.sum(1).max()


@pytest.mark.parametrize("impl", ["naive", "sdpa"])
@pytest.mark.parametrize("causal", [False, True])
def test_without_process_group_it_is_plain_attention(impl, causal):
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 2, 24, 8, generator=g, dtype=torch.float64) for _ in range(3))
    out, lse = ring.ring_attention(q, k, v, causal=causal, impl=impl)
    want, want_lse = fk.naive_attention(q, k, v, causal=causal, sm_scale=8 ** -0.5, return_lse=True)
    assert torch.allclose(out, want, atol=1e-12)
    assert torch.allclose(lse.double(), want_lse.double(), atol=1e-6)


def test_merge_of_empty_rows_is_safe():
    from flashviz_kernels.ring_block import merge
    out = torch.zeros(1, 1, 3, 2)
    lse = torch.full((1, 1, 3), float("-inf"))
    merge(out, lse, torch.zeros(1, 1, 3, 2), torch.full((1, 1, 3), float("-inf")))
    assert torch.isneginf(lse).all() and (out == 0).all()
    o_b = torch.tensor([[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]])
    merge(out, lse, o_b, torch.tensor([[[0.5, float("-inf"), 2.0]]]))
    assert torch.equal(out[0, 0, 0], o_b[0, 0, 0]) and lse[0, 0, 0] == 0.5
    assert torch.isneginf(lse[0, 0, 1]) and (out[0, 0, 1] == 0).all()
    merge(out, lse, torch.full((1, 1, 3, 2), 3.0), torch.full((1, 1, 3), 0.5))
    assert torch.allclose(out[0, 0, 0], (o_b[0, 0, 0] + 3.0) / 2)          # equal weights
    assert abs(lse[0, 0, 0].item() - (0.5 + np.log(2))) < 1e-6
