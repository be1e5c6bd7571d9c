"""The memory-bounded ring forward (kernels/ring_chunked.py) on CPU: gloo groups of 2-4 forked ranks.

Forced small chunking (S = 2, 3, 5, most not dividing a layout chunk: ragged sub-chunks) must give the out, lse
and gradients of float64 single-process attention within the bounds of tests/kernels/test_ring.py (ring_cases.compare);
plan's key sub-chunks must cover every visible (query, key) pair exactly once across pieces and passes; and the
largest tensor the chunked forward allocates is the accumulator, nothing of a whole K/V block.
"""
import itertools

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import flashviz_kernels as fk
from flashviz_kernels import ring, ring_chunked
from helpers.ring_cases import by_world, case, compare, run_all, shards_of
from helpers.ring import run_ranks

LAYOUTS = ("contiguous", "zigzag")

# n: every layout chunk 20 / 10 rows (W 2), 14 / 7 (W 3), 10 / 5 (W 4): S = 3 and S = 2 split them unevenly
W2 = [case(layout, causal, "float32", "sdpa", n=40, chunks=chunks, seed=300 + i)
      for i, (layout, causal, chunks) in enumerate(itertools.product(LAYOUTS, (False, True), (2, 3)))]
W2 += [case("zigzag", True, "float16", "sdpa", n=40, chunks=5, seed=320),   # the accumulator in the inputs' dtype
       case("contiguous", False, "bfloat16", "naive", n=40, chunks=3, grad="lse", seed=321),
       case("zigzag", True, "float32", "naive", n=40, chunks=3, grad=None, seed=322)]
if fk.INTERPRET:     # the fused Triton merge on the accumulator's row slices; the Triton teaching kernel per piece
    W2 += [case("zigzag", True, "float16", "sdpa", n=40, chunks=3, merge="triton", grad=None, seed=330),
           case("zigzag", True, "float32", "teaching", n=64, b=1, h=2, d=16, chunks=2, grad="out", seed=331)]
W3 = [case(layout, causal, "float32", "sdpa", n=42, chunks=2, seed=340 + i)
      for i, (layout, causal) in enumerate(itertools.product(LAYOUTS, (False, True)))]
W4 = [case(layout, True, dtype, "sdpa", n=40, b=1, chunks=3, seed=360 + i)
      for i, (layout, dtype) in enumerate(itertools.product(LAYOUTS, ("float32", "bfloat16")))]
CASES = {2: W2, 3: W3, 4: W4}


@pytest.fixture(scope="module")
def results():
    return run_all(CASES)


@pytest.mark.parametrize(**by_world(CASES))
def test_chunked_ring_matches_single_process(results, world, i):
    c = CASES[world][i]
    errs = compare(c, shards_of(results, world, i))
    assert set(errs) == ({"out", "lse"} | ({"dq", "dk", "dv"} if c["grad"] else set()))


@pytest.mark.parametrize("causal", [False, True])
def test_one_rank_ignores_chunks(causal):
    g = torch.Generator().manual_seed(5)
    q, k, v = (torch.randn(1, 2, 24, 8, generator=g, dtype=torch.float64) for _ in range(3))
    out, lse = ring.ring_attention(q, k, v, causal=causal, impl="naive", chunks=3)
    want, want_lse = fk.naive_attention(q, k, v, causal=causal, sm_scale=8 ** -0.5, return_lse=True)
    assert torch.allclose(out, want, atol=1e-12) and torch.allclose(lse.double(), want_lse.double(), atol=1e-6)


# ----------------------------------------------------------------------------- the plan of a key sub-chunk

@pytest.mark.parametrize("world", [1, 2, 3, 4])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("chunks", [1, 2, 3, 5])
def test_sub_chunk_plans_cover_every_visible_pair_once(world, layout, causal, chunks):
    """Brute force over all ranks, held blocks, query slabs and key sub-chunks, as the chunked forward cuts them:
    the pieces mark exactly the pairs the global mask allows, each once; a causal piece is square over the same
    positions, increasing."""
    n = 2 * world * 5                                   # layout chunks of 10 or 5 rows: S = 3 is ragged
    n_local = n // world
    seen = np.zeros((n, n), dtype=int)
    for r in range(world):
        qpos = ring.positions(r, world, n, layout)
        for src in range(world):
            kpos_all = ring.positions(src, world, n, layout)
            for i in range(chunks):
                segs = ring.key_rows(n_local, layout, (i, chunks))
                kpos = np.concatenate([kpos_all[a:b] for a, b in segs])     # the packed sub-chunk's positions
                pieces = ring.plan(r, src, world, layout, causal, n_local, part=(i, chunks))
                slabs = [r for j in range(chunks) for r in ring.key_rows(n_local, layout, (j, chunks))]
                cut = [p for lo, hi in (slabs if chunks > 1 else [(0, n_local)]) for p in ring.within(pieces, lo, hi)]
                assert all(p.q_hi - p.q_lo <= -(-n_local // chunks) for p in cut)
                for p in cut:
                    assert 0 <= p.q_lo < p.q_hi <= n_local and 0 <= p.k_lo < p.k_hi <= len(kpos)
                    qs, ks = qpos[p.q_lo:p.q_hi], kpos[p.k_lo:p.k_hi]
                    if p.causal:
                        assert np.array_equal(qs, ks) and np.all(np.diff(qs) > 0)
                        ok = ks[None, :] <= qs[:, None]
                    else:
                        ok = np.ones((len(qs), len(ks)), dtype=bool)
                    seen[np.ix_(qs, ks)] += ok
    want = np.tril(np.ones((n, n), dtype=int)) if causal else np.ones((n, n), dtype=int)
    assert np.array_equal(seen, want)


def test_key_rows_split_every_layout_chunk_alike():
    assert ring.key_rows(10, "contiguous", (1, 3)) == [(3, 6)]
    assert ring.key_rows(20, "zigzag", (2, 3)) == [(6, 10), (16, 20)]            # ragged: 3, 3, 4 rows
    assert [ring.key_rows(20, "zigzag", (i, 3)) for i in range(3)] == [[(0, 3), (10, 13)], [(3, 6), (13, 16)],
                                                                       [(6, 10), (16, 20)]]
    assert ring.key_rows(8, "zigzag") == [(0, 4), (4, 8)]
    for bad in ((3, 3), (0, 0), (0, 11)):
        with pytest.raises(fk.KernelInputError, match="sub-chunk"):
            ring.key_rows(20, "zigzag", bad)


def test_whole_block_plans_are_unchanged():
    """S = 1 is the plain ring's plan: one causal piece over the own block, whole blocks in place."""
    assert ring.plan(1, 1, 2, "zigzag", True, 8) == [ring.Piece(0, 8, 0, 8, True)]
    assert ring.plan(1, 0, 2, "zigzag", True, 8) == [ring.Piece(0, 8, 0, 4, False)]
    assert ring.plan(0, 1, 2, "zigzag", True, 8) == [ring.Piece(4, 8, 0, 8, False)]
    assert ring.plan(1, 0, 2, "contiguous", True, 8) == [ring.Piece(0, 8, 0, 8, False)]
    assert ring.plan(0, 1, 2, "contiguous", True, 8) == []


def test_zigzag_passes_stay_balanced():
    """The causal work (visible pairs) of every (query slab, key sub-chunk) pass is the same on every rank at
    every step, because slabs and sub-chunks take the same slice of a rank's early and late chunk: the ranks,
    which meet at every step's transfer, never wait for a busier one."""
    world, n, chunks = 4, 96, 3
    n_local = n // world
    for j, i in itertools.product(range(chunks), range(chunks)):
        w = np.zeros((world, world))
        for r in range(world):
            for s in range(world):
                pieces = ring.plan(r, (r - s) % world, world, "zigzag", True, n_local, part=(i, chunks))
                for lo, hi in ring.key_rows(n_local, "zigzag", (j, chunks)):
                    for p in ring.within(pieces, lo, hi):
                        rows, cols = p.q_hi - p.q_lo, p.k_hi - p.k_lo
                        w[r, s] += rows * (rows + 1) / 2 if p.causal else rows * cols
        assert np.all(w.max(0) == w.min(0)), (j, i, w)


def test_chunk_count_rule_and_errors():
    meta = lambda n: torch.empty(1, 32, n, 128, dtype=torch.float16, device="meta")   # noqa: E731 - sizes only
    assert ring.chunk_count(meta(262144), "zigzag") == 1                   # the default: the plain ring, any size
    assert ring.chunk_count(meta(16384), "zigzag", "auto") == 1            # a 256 MiB K/V block: the plain ring
    assert ring.chunk_count(meta(32768), "contiguous", "auto") == 1        # 512 MiB: two sub-chunks would save nothing
    assert ring.chunk_count(meta(32769), "contiguous", "auto") == 3
    assert ring.chunk_count(meta(65536), "zigzag", "auto") == 4            # 128k over 2 ranks
    assert ring.chunk_count(meta(262144), "zigzag", "auto") == 16          # 512k over 2 ranks: 4 GiB blocks
    assert ring.chunk_count(meta(262144), "zigzag", 3) == 3
    assert ring.chunk_count(torch.empty(1, 1, 6, 4, device="meta"), "zigzag", 3) == 3
    for bad in (0, 4, True, 2.0, "2"):
        with pytest.raises(fk.KernelInputError, match="chunks must be"):
            ring.chunk_count(torch.empty(1, 1, 6, 4, device="meta"), "zigzag", bad)


# ----------------------------------------------------------------------------- what the chunked forward allocates

class _Allocs(TorchDispatchMode):
    """Bytes of every new tensor an op makes (outputs that share no storage with its inputs)."""

    def __init__(self):
        super().__init__()
        self.sizes = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        ins = {a.untyped_storage().data_ptr() for a in torch.utils._pytree.tree_leaves((args, kwargs))
               if isinstance(a, torch.Tensor)}
        for t in torch.utils._pytree.tree_leaves(out):
            if isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() not in ins:
                self.sizes.append(t.untyped_storage().nbytes())
        return out


def _alloc_worker(rank, world, chunks):
    g = torch.Generator().manual_seed(7 + rank)
    q, k, v = (torch.randn(1, 2, 60, 8, generator=g) for _ in range(3))
    with _Allocs() as seen:
        ring.ring_attention(q, k, v, causal=True, layout="zigzag", impl="sdpa", chunks=chunks)
    return sorted(seen.sizes, reverse=True), q.numel() * q.element_size()


def test_chunked_forward_allocates_no_block():
    """Plain ring: a receive buffer of a whole K/V block (two shards) and block outputs of a shard. S = 5: the
    output (one shard) is the only tensor of a shard's size; every other is at most one sub-chunk's K and V
    (2/5 of a shard), so the forward's extra memory is a few of those, not the block."""
    plain, shard = run_ranks(2, _alloc_worker, 1)[0]
    assert plain[0] == 2 * shard
    sizes, shard = run_ranks(2, _alloc_worker, 5)[0]
    assert sizes[0] == shard and sizes[1] <= 2 * shard // 5
    assert sum(1 for b in sizes if b > shard // 4) <= 3     # the output and the two transfer buffers


# ----------------------------------------------------------------------------- the page's account of it

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("causal", [False, True])
def test_engine_account_of_the_chunked_forward(layout, causal):
    """flashviz.engine.ring.forward_memory(chunks=S) names the kernel's own buffers: the two transfer buffers and the slab's
    float32 accumulator hold the largest part key_rows gives; and on two GPUs the shards and the output are exactly
    half of what one GPU holds in q, k, v and the output (the page says so)."""
    from flashviz.engine import ring as engine
    shape = dict(batch=1, heads=32, d=128, elem_bytes=2)
    n, w, s = 524288, 2, 16
    parts = engine.forward_memory(w, n, layout, causal, chunks=s, **shape)
    row = 32 * 128 * 2
    n_loc = n // w
    rows = max(sum(b - a for a, b in ring.key_rows(n_loc, layout, (i, s))) for i in range(s))
    assert parts["receive"] == 2 * 2 * rows * row and parts["accumulator"] == n_loc * row + rows * 32 * 128 * 4
    assert parts["block_output"] == rows // (1 if layout == "contiguous" else 2) * row
    one = engine.forward_memory(1, n, "contiguous", causal, **shape)
    assert 2 * (parts["inputs"] + n_loc * row) == one["inputs"] + one["output"]
    plain = engine.forward_memory(w, n, layout, causal, **shape)
    assert f"{sum(parts.values()) / sum(one.values()):.2f}" == ("0.56" if causal or layout == "contiguous" else "0.55")
    assert sum(parts.values()) < sum(plain.values())        # the README: 0.55-0.56x of one GPU at 512k
    s3 = engine.forward_memory(w, 6000, layout, causal, chunks=7, **shape)      # ragged: 1500 / 7 rows per chunk
    rows = max(sum(b - a for a, b in ring.key_rows(3000, layout, (i, 7))) for i in range(7))
    assert s3["receive"] == 2 * 2 * rows * row
