"""The ring backward's memory: the plain ring's buffers, the chunked backward (kernels/ring_chunked_bwd.py) and the
engine's account of both (flashviz.engine.ring_memory.backward_memory), on CPU gloo groups of 2-4 forked ranks.

Values: the cases tests/kernels/test_ring.py and tests/kernels/test_ring_chunks.py do not cover (the Triton backward in the
interpreter on the plain ring's 16-bit sums at W = 2 and its float32 sums at W = 3, chunked with dQ narrowed, slabs
of one row, the measurement modes) against float64 single-process attention (ring_cases.compare). Memory: the bytes torch allocates during the
backward, tracked live (tests/helpers/ring_live.py), equal the account's to the byte.
"""
import gc

import pytest
import torch

import flashviz_kernels as fk
from flashviz.engine.ring_memory import backward_memory
from flashviz_kernels import ring, ring_block, ring_chunked_bwd
from helpers.ring_cases import by_world, case, compare, run_all, shards_of
from helpers.ring_live import LiveBytes
from helpers.ring import run_ranks

TRITON = dict(b=1, h=2, d=16, grad="out")       # nothing flowing into lse (the last W2 case has it)
W2 = [case("zigzag", True, "float32", "naive", n=40, chunks=10, seed=400)]                # slabs of one row
if fk.INTERPRET:
    W2 += [case("zigzag", True, "float16", "teaching", n=64, seed=410, **TRITON),        # 16-bit sums
           case("contiguous", True, "float16", "teaching", n=64, seed=411, **TRITON),
           case("zigzag", True, "float16", "teaching", n=64, chunks=3, seed=412, **TRITON),   # dq narrowed
           case("zigzag", True, "float16", "teaching", n=64, seed=413, b=1, h=2, d=16)]       # dlse: flash blocks
W3 = [case("contiguous", True, "float32", "sdpa", n=48, chunks=8, seed=420)]            # slabs of one row
if fk.INTERPRET:
    W3 += [case("zigzag", True, "float32", "teaching", n=96, seed=421, **TRITON),         # float32 sums
           case("zigzag", False, "float16", "teaching", n=96, chunks=2, seed=422, **TRITON)]
W4 = [case("zigzag", True, "bfloat16", "sdpa", n=64, b=1, chunks=2, seed=430),
      case("contiguous", False, "float32", "naive", n=64, b=1, chunks=16, seed=431)]
CASES = {2: W2, 3: W3, 4: W4}


@pytest.fixture(scope="module")
def results():
    return run_all(CASES)


@pytest.mark.parametrize(**by_world(CASES))
def test_backward_matches_single_process(results, world, i):
    c = CASES[world][i]
    errs = compare(c, shards_of(results, world, i))
    assert set(errs) == {"out", "lse", "dq", "dk", "dv"}


def _modes_worker(rank, world):
    """The measurement modes of the chunked backward run without a hang and give finite gradients of the shape."""
    g = torch.Generator().manual_seed(rank)
    q, k, v, do = (torch.randn(1, 2, 12, 8, generator=g) for _ in range(4))
    out, lse = ring.forward_loop(q, k, v, causal=True, sm_scale=0.3, impl="sdpa", layout="zigzag",
                                 ring=ring.Ring(), chunks=3)
    shapes = []
    for mode in ("both", "compute", "comm"):
        got = ring.backward_loop(q, k, v, out, lse, do, None, causal=True, sm_scale=0.3, impl="sdpa",
                                 layout="zigzag", ring=ring.Ring(), mode=mode, chunks=3)
        shapes.append([(tuple(x.shape), bool(torch.isfinite(x).all())) for x in got])
    return shapes


def test_measurement_modes_of_the_chunked_backward():
    for per_rank in run_ranks(2, _modes_worker):
        assert per_rank == [[((1, 2, 12, 8), True)] * 3] * 3


# ----------------------------------------------------------------------------- the rules

def test_backward_count_rule():
    meta = lambda n: torch.empty(1, 32, n, 128, dtype=torch.float16, device="meta")   # noqa: E731 - sizes only
    assert ring.backward_count(meta(262144), "zigzag") == 1                    # the default: the plain ring
    assert ring.backward_count(meta(32768), "zigzag", "auto") == 1             # the forward stays plain: so does it
    assert [ring.backward_count(meta(n), "zigzag", "auto") for n in (65536, 131072, 262144)] == [16, 32, 64]
    assert [ring.chunk_count(meta(n), "zigzag", "auto") for n in (65536, 131072, 262144)] == [4, 8, 16]
    assert ring.backward_count(meta(262144), "zigzag", 5) == 5                 # an int: the forward's S
    assert ring.backward_count(meta(262144), "contiguous", 1) == 1
    assert ring.backward_count(torch.empty(1, 32, 96, 128, device="meta"), "zigzag", "auto") == 1
    small = torch.empty(1, 1024, 8192, 128, dtype=torch.float16, device="meta")    # 4 GiB blocks, 4096-row chunks
    assert ring.backward_count(small, "zigzag", "auto") == 64
    tiny = torch.empty(1, 1 << 17, 64, 128, dtype=torch.float16, device="meta")    # 32 rows per chunk: capped
    assert ring.backward_count(tiny, "zigzag", "auto") == 32
    with pytest.raises(fk.KernelInputError, match="chunks must be"):
        ring.backward_count(meta(64), "zigzag", 0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_narrowing_in_place_rounds_like_a_copy(monkeypatch, dtype):
    """dQ's float32 accumulator rounded into its own storage, slab by slab (ragged slabs here): the values of
    .to(dtype), in the first half of the same storage."""
    monkeypatch.setattr(ring_chunked_bwd, "NARROW_ELEMS", 37)
    acc = torch.randn(2, 3, 17, 8, dtype=torch.float32) * 100
    want = acc.to(dtype)
    ptr = acc.untyped_storage().data_ptr()
    got = ring_chunked_bwd.narrow_into_own_storage(acc, dtype)
    assert got.dtype == dtype and got.shape == want.shape and got.is_contiguous()
    assert got.untyped_storage().data_ptr() == ptr and torch.equal(got, want)


# ----------------------------------------------------------------------------- memory: measured vs the account

def _memory_worker(rank, world, cfgs):
    """Live bytes torch allocates during a warm backward (the second: Triton's tables are cached by then), per
    config. The Triton interpreter leaves a reference cycle per launch (its argument copy-back closure), which
    compiled launches do not: collecting after each block's backward frees what a GPU frees at once."""
    plain = ring_block._flash_backward

    def collected(*a, **kw):
        out = plain(*a, **kw)
        gc.collect()
        return out
    ring_block._flash_backward = collected                   # this forked rank's copy only
    peaks = []
    for layout, causal, chunks, dtype, n in cfgs:
        g = torch.Generator().manual_seed(rank)
        dt = getattr(torch, dtype)
        q, k, v = (torch.randn(1, 4, n // world, 16, generator=g).to(dt).requires_grad_() for _ in range(3))
        do = torch.randn(1, 4, n // world, 16, generator=g).to(dt)
        o, _ = ring.ring_attention(q, k, v, causal=causal, layout=layout, impl="teaching", chunks=chunks)
        torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
        with LiveBytes() as live:
            grads = torch.autograd.grad(o, (q, k, v), do)
            del grads
        peaks.append(live.peak)
    return peaks


MEM = {2: [("contiguous", True, None, "float16", 128), ("zigzag", True, None, "float16", 128),
           ("zigzag", True, 4, "float16", 128), ("contiguous", False, 3, "float16", 128)],
       3: [("zigzag", True, None, "float32", 96), ("contiguous", True, 2, "float32", 96)]}


@pytest.mark.skipif(not fk.INTERPRET, reason="the Triton backward on CPU runs in the interpreter")
@pytest.mark.parametrize("world", sorted(MEM))
def test_measured_backward_allocations_equal_the_account(world):
    """Peak bytes allocated during the backward, beyond the inputs (q, k, v, o, dO, lse exist before it), on the
    busiest rank: equal to backward_memory's total less its inputs and lse, to the byte, plain and chunked."""
    measured = run_ranks(world, _memory_worker, MEM[world], timeout=600)
    for i, (layout, causal, chunks, dtype, n) in enumerate(MEM[world]):
        m = backward_memory(world, n, layout, causal, batch=1, heads=4, d=16,
                            elem_bytes=torch.finfo(getattr(torch, dtype)).bits // 8, chunks=chunks or 1,
                            kernel="reference")
        assert max(r[i] for r in measured) == sum(m.values()) - m["inputs"] - m["lse"], (layout, causal, chunks, m)


# ----------------------------------------------------------------------------- the account at the H200's shapes

SHAPE = dict(batch=1, heads=32, d=128, elem_bytes=2)


def test_one_gpu_backward_holds_eight_tensors_and_row_statistics():
    n = 131072
    one = backward_memory(1, n, "contiguous", True, kernel="reference", **SHAPE)
    full = 32 * n * 128 * 2
    assert one == dict(inputs=5 * full, grads=3 * full, lse=32 * n * (4 + 8), scratch=0)
    fused = backward_memory(1, n, "contiguous", True, kernel="fused", **dict(SHAPE, d=64))
    assert fused["scratch"] == 32 * n * 64 * 4 == 2 * fused["grads"] // 3      # the fp32 dQ buffer of d <= 64
    ws = backward_memory(1, n, "contiguous", True, kernel="ws", **SHAPE)
    assert ws == dict(inputs=5 * full, grads=3 * full, lse=32 * n * (4 + 8), scratch=32 * n * 128 * 4)


def test_the_default_kernel_is_what_an_h200_runs():
    """kernel None: what the backward table sends plain or causal attention to on an H200 (ws at d 64 and 128,
    fused below 64, the reference elsewhere); the ring page and the two-GPU test use it."""
    for d, kernel in ((32, "fused"), (64, "ws"), (96, "reference"), (128, "ws"), (256, "reference")):
        shape = dict(SHAPE, d=d)
        assert backward_memory(2, 8192, "zigzag", True, **shape) == \
            backward_memory(2, 8192, "zigzag", True, kernel=kernel, **shape)
    with pytest.raises(Exception, match="backward kernel"):
        backward_memory(2, 8192, "zigzag", True, kernel="flex", **SHAPE)


def test_ws_blocks_hold_a_float32_dq_buffer_and_eight_bytes_a_row():
    """The plain ring (W = 2, contiguous, no mask: every call covers all local rows and keys) with ws blocks: the
    reference's account plus the call's float32 dQ buffer; the same 8 bytes a row of row statistics (one pre-pass,
    backward.row_stats, makes them for every kernel)."""
    n = 65536
    ref = backward_memory(2, n, "contiguous", False, kernel="reference", **SHAPE)
    ws = backward_memory(2, n, "contiguous", False, kernel="ws", **SHAPE)
    rows = n // 2
    assert ws["scratch"] == 32 * rows * 128 * 4 and ref["scratch"] == 0
    assert {k: ws[k] - ref[k] for k in ws if k != "scratch"} == dict.fromkeys(set(ws) - {"scratch"}, 0)


@pytest.mark.parametrize("layout", ["contiguous", "zigzag"])
@pytest.mark.parametrize("causal", [False, True])
def test_plain_and_chunked_against_one_gpu(layout, causal):
    """The ring's backward per GPU over one GPU's (W = 2): the plain ring 0.94 (zigzag causal 1.00: a step copies
    half a shard of q, o and dO for the kernel), the chunked one at backward_count's S 0.64 at 128k, 0.60 at 256k,
    0.58 at 512k; its floor is 9 shards of 16 (inputs, float32 dQ, dk, dv)."""
    for n, s, want in ((131072, 16, 0.64), (262144, 32, 0.60), (524288, 64, 0.58)):
        one = sum(backward_memory(1, n, "contiguous", causal, kernel="reference", **SHAPE).values())
        plain = backward_memory(2, n, layout, causal, kernel="reference", **SHAPE)
        shard = 32 * n // 2 * 128 * 2
        assert plain["sums"] == 4 * shard and plain["receive"] == 2 * shard and plain["dq"] == shard
        assert abs(sum(plain.values()) / one - (0.996 if layout == "zigzag" and causal else 0.935)) < 0.001
        chunked = backward_memory(2, n, layout, causal, chunks=s, kernel="reference", **SHAPE)
        assert chunked["dq"] == 2 * shard and chunked["grads"] == 2 * shard
        rows = max(sum(b - a for a, b in ring.key_rows(n // 2, layout, (i, s))) for i in range(s))
        assert chunked["receive"] == 2 * 2 * rows * 32 * 128 * 2 and chunked["sums"] == 3 * 2 * rows * 32 * 128 * 4
        assert abs(sum(chunked.values()) / one - want) < 0.01
        assert sum(chunked.values()) > 9 / 16 * one


def test_plain_beyond_two_ranks_keeps_float32_sums():
    n = 3 * 8192
    m = backward_memory(3, n, "contiguous", False, kernel="reference", **SHAPE)
    shard = 32 * (n // 3) * 128 * 2
    assert m["dq"] == 2 * shard and m["sums"] == 8 * shard and m["receive"] == 4 * shard
    with pytest.raises(Exception, match="element size"):
        backward_memory(2, n, "contiguous", False, **dict(SHAPE, elem_bytes=8))
