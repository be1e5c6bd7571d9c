"""Kernels against float64 references on small shapes.

Without CUDA the Triton kernels run in Triton's interpreter (CI); with CUDA the same tests run
compiled, with GPU-legal tiles. Larger shapes live in test_kernels_gpu.py (marker `gpu`).
"""
import math

import numpy as np
import pytest
import torch

import flashviz_kernels as fk
from helpers.attn_ref import attention_rows, check_close, lse_rows
from flashviz.engine.online_softmax import online_softmax_trace

DEV = "cuda" if torch.cuda.is_available() else "cpu"
GPU = DEV == "cuda"
EPS = {torch.float32: 1e-5 if not GPU else 2e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def rand(shape, dtype, gen):
    return torch.randn(shape, generator=gen, dtype=torch.float32).to(DEV, dtype)


def qkv(b, h, nq, nk, d, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return rand((b, h, nq, d), dtype, g), rand((b, h, nk, d), dtype, g), rand((b, h, nk, d), dtype, g)


def check_impl(impl, b, h, nq, nk, d, causal, dtype, seed, **blocks):
    q, k, v = qkv(b, h, nq, nk, d, dtype, seed)
    rows = torch.arange(nq)
    ref = attention_rows(q, k, v, rows, causal=causal)
    naive = fk.attention(q, k, v, causal=causal, impl="naive")
    out = fk.attention(q, k, v, causal=causal, impl=impl, **blocks)
    assert out.shape == q.shape and out.dtype == dtype
    return check_close(out, ref, naive, EPS[dtype], f"{impl} N={nq}/{nk} d={d} causal={causal} {dtype} {blocks}")


@pytest.mark.parametrize("impl", ["teaching", "fast"])
@pytest.mark.parametrize("n", [1, 17, 100, 255])
@pytest.mark.parametrize("d", [16, 32, 64])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_kernel_matches_float64(impl, n, d, causal, dtype):
    check_impl(impl, 1, 2, n, n, d, causal, dtype, seed=n * 7 + d)


BLOCKS_CPU = [(4, 4), (16, 16), (32, 64), (64, 16), (5, 3), (1, 1), (7, 32)]
BLOCKS_GPU = [(16, 16), (32, 64), (64, 16), (128, 64), (64, 128)]


@pytest.mark.parametrize("bm,bn", BLOCKS_GPU if GPU else BLOCKS_CPU)
@pytest.mark.parametrize("causal", [False, True])
def test_teaching_any_tile(bm, bn, causal):
    check_impl("teaching", 2, 1, 37, 37, 16, causal, torch.float32, seed=bm * 31 + bn, block_m=bm, block_n=bn)


@pytest.mark.parametrize("bm,bn", [(16, 16), (32, 64), (64, 32)] + ([] if GPU else [(4, 8)]))
def test_fast_pinned_blocks(bm, bn):
    check_impl("fast", 1, 2, 70, 70, 32, True, torch.float32, seed=3, block_m=bm, block_n=bn)


@pytest.mark.parametrize("impl", ["teaching", "fast"])
@pytest.mark.parametrize("nq,nk", [(40, 24), (9, 33), (64, 1)])
def test_unequal_lengths_and_fully_masked_rows(impl, nq, nk):
    """Causal with Nq > Nk leaves the first Nq - Nk rows with no visible key: zeros and LSE -inf."""
    q, k, v = qkv(1, 2, nq, nk, 16, torch.float32, seed=nq + nk)
    out, lse = fk.attention_with_lse(q, k, v, causal=True, impl=impl)
    ref = attention_rows(q, k, v, torch.arange(nq), causal=True)
    naive = fk.attention(q, k, v, causal=True, impl="naive")
    check_close(out, ref, naive, EPS[torch.float32], impl)
    dead = max(0, nq - nk)
    assert torch.all(out[:, :, :dead] == 0)
    assert torch.all(torch.isneginf(lse[:, :, :dead]))
    lref = lse_rows(q, k, torch.arange(dead, nq), causal=True)
    assert torch.allclose(lse[:, :, dead:].double(), lref, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("impl", ["teaching", "fast"])
def test_lse_matches_float64(impl):
    q, k, v = qkv(2, 1, 50, 50, 32, torch.float32, seed=11)
    _, lse = fk.attention_with_lse(q, k, v, causal=False, impl=impl)
    assert torch.allclose(lse.double(), lse_rows(q, k, torch.arange(50), causal=False), atol=1e-5, rtol=1e-5)


def test_fast_bf16_and_odd_head_dim():
    check_impl("fast", 1, 2, 65, 65, 48, True, torch.bfloat16, seed=5)
    check_impl("teaching", 1, 2, 65, 65, 20, False, torch.float32, seed=6)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("bn", [16, 32] if GPU else [4, 5, 16])
def test_trace_equals_numpy_engine(causal, bn):
    """The kernel's per-tile m, l, alpha for a row equal online_softmax_trace on that row's scores."""
    n, d, bm = 48, 16, 16
    q, k, v = qkv(1, 2, n, n, d, torch.float32, seed=bn)
    out, tr = fk.attention_trace(q, k, v, causal=causal, block_m=bm, block_n=bn)
    tc = math.ceil(n / bn)
    assert tr.m.shape == tr.l.shape == tr.alpha.shape == (1, 2, n, tc)
    for row in (0, 5, 17, n - 1):
        s = (q[0, 1, row].double() @ k[0, 1].double().T).cpu().numpy() / math.sqrt(d)
        if causal:
            s[row + 1:] = -np.inf
        ref = online_softmax_trace(s, v[0, 1].double().cpu().numpy(), bn)
        m, l, a = (x[0, 1, row].double().cpu().numpy() for x in (tr.m, tr.l, tr.alpha))
        # tiles the kernel skipped: entirely past the last row of this row's Q block
        last_row = min(n, (row // bm + 1) * bm) - 1
        ran = np.arange(tc) * bn <= (last_row if causal else n - 1)
        assert np.all(np.isnan(m[~ran])) and not np.any(np.isnan(m[ran]))
        np.testing.assert_allclose(m[ran], ref.m[ran], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(l[ran], ref.l[ran], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(a[ran], ref.alpha[ran], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.cpu().numpy(), fk.attention(q, k, v, causal=causal, impl="teaching",
                                                               block_m=bm, block_n=bn).cpu().numpy())


@pytest.mark.parametrize("impl", ["naive", "sdpa", "sdpa-math"])
@pytest.mark.parametrize("causal", [False, True])
def test_torch_impls_match_float64(impl, causal):
    q, k, v = qkv(2, 2, 33, 45, 16, torch.float32, seed=2)
    out = fk.attention(q, k, v, causal=causal, impl=impl)
    ref = attention_rows(q, k, v, torch.arange(33), causal=causal)
    assert (out.double() - ref).abs().max().item() < 1e-5


@pytest.mark.parametrize("impl", ["teaching", "fast"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n", [17, 100, 200])
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")      # the poisoned heads' own NaN
def test_non_finite_values_in_another_head_do_not_leak(impl, causal, n):
    """Heads are independent: inf/NaN in one head's K and V leave every other head exact. (The fast kernel's
    TMA loads of a ragged last tile read the next head's rows; they must count for nothing, not 0 * NaN.)"""
    q, k, v = qkv(2, 2, n, n, 16, torch.float32, seed=n)
    k[0, 1], v[0, 1] = float("inf"), float("nan")                     # poison (b=0, h=1) ...
    v[1, 0, -1] = float("inf")                                          # ... and one V row of (b=1, h=0)
    out = fk.attention(q, k, v, causal=causal, impl=impl)
    for b, h in ((0, 0), (1, 1)):                                       # the heads that hold no poison
        ref = attention_rows(q[b:b + 1, h:h + 1], k[b:b + 1, h:h + 1], v[b:b + 1, h:h + 1], torch.arange(n),
                             causal=causal)
        got = out[b:b + 1, h:h + 1].double()
        assert torch.isfinite(got).all(), (b, h)
        assert (got - ref).abs().max().item() < 1e-5, (b, h)


# ---------------------------------------------------------------------------------------- bad input

def test_bad_inputs_raise_typed_errors():
    q, k, v = qkv(1, 1, 8, 8, 16, torch.float32, seed=0)
    with pytest.raises(ValueError, match="same shape"):
        fk.attention(q, k, v[:, :, :4], impl="teaching")
    with pytest.raises(ValueError, match="agree in B, H and d"):
        fk.attention(q, k[..., :8], v[..., :8], impl="fast")
    with pytest.raises(TypeError, match="one dtype"):
        fk.attention(q, k.half(), v, impl="fast")
    with pytest.raises(TypeError, match="float16, bfloat16 or float32"):
        fk.attention(q.double(), k.double(), v.double(), impl="teaching")
    with pytest.raises(TypeError, match="torch.Tensor"):
        fk.attention(q.cpu().numpy(), k, v)
    with pytest.raises(ValueError, match=r"\(B, H, N, d\)"):
        fk.attention(q[0], k[0], v[0])
    with pytest.raises(ValueError, match="empty"):
        fk.attention(q[:, :, :0], k, v)
    with pytest.raises(ValueError, match="impl must be one of"):
        fk.attention(q, k, v, impl="magic")
    big = torch.zeros(1, 1, 4, 300, device=DEV)
    with pytest.raises(ValueError, match="head dim"):
        fk.attention(big, big, big, impl="teaching")
    odd = torch.zeros(1, 1, 4, 12, device=DEV, dtype=torch.float16)
    with pytest.raises(ValueError, match="fast kernel"):
        fk.attention(odd, odd, odd, impl="fast")
    for bad in (0, -4, 512, 2.5, True):
        with pytest.raises(ValueError, match="block_m"):
            fk.attention(q, k, v, impl="teaching", block_m=bad)
    with pytest.raises(ValueError, match="power of two"):
        fk.attention(q, k, v, impl="fast", block_n=24)
    with pytest.raises(ValueError, match="sm_scale"):
        fk.attention(q, k, v, impl="fast", sm_scale=-1.0)
    with pytest.raises(fk.KernelError):
        fk.attention(q, k, v, impl="sdpa", sdpa_backend="nonsense")
    for bad in (0, -4, 512, 2.5, True):                                      # fast: 0 is not "the default"
        with pytest.raises(ValueError, match="block_m"):
            fk.attention(q, k, v, impl="fast", block_m=bad)


@pytest.mark.parametrize("impl", ["teaching", "fast"])
def test_block_sizes_take_any_integral_number(impl):
    """A numpy integer (what np.arange, a dataframe or a slider hands over) is a block size like an int; a bool
    or a float is not, even a whole one."""
    q, k, v = qkv(1, 2, 64, 64, 16, torch.float32, seed=12)
    ref = attention_rows(q, k, v, torch.arange(64), causal=True)
    naive = fk.attention(q, k, v, causal=True, impl="naive")
    bm, bn = (16, 32) if GPU else (32, 16)
    for blocks in (dict(block_m=np.int64(bm), block_n=np.int32(bn)), dict(block_m=np.uint8(bm), block_n=bn)):
        check_close(fk.attention(q, k, v, causal=True, impl=impl, **blocks), ref, naive, EPS[torch.float32], impl)
        out, lse = fk.attention_with_lse(q, k, v, causal=True, impl=impl, **blocks)
        check_close(out, ref, naive, EPS[torch.float32], impl)
    if impl == "teaching":
        out, tr = fk.attention_trace(q, k, v, causal=True, block_m=np.int64(bm), block_n=np.int64(bn))
        check_close(out, ref, naive, EPS[torch.float32], "trace")
        assert tr.m.shape[-1] == 64 // bn
    for bad in (True, np.True_, float(bm), np.float64(bm), "16"):
        with pytest.raises(fk.KernelInputError, match="block_m must be an integer"):
            fk.attention(q, k, v, impl=impl, block_m=bad)


@pytest.mark.parametrize("impl", ["naive", "sdpa", "teaching", "fast"])
def test_causal_and_sm_scale_are_checked_for_every_impl(impl):
    """causal='no' must not silently mean True; a NaN or non-numeric scale is an error, not a NaN output."""
    q, k, v = qkv(1, 2, 8, 8, 16, torch.float32, seed=1)
    calls = [lambda **kw: fk.attention(q, k, v, impl=impl, **kw)]
    if impl in ("naive", "teaching", "fast"):
        calls.append(lambda **kw: fk.attention_with_lse(q, k, v, impl=impl, **kw))
    if impl == "teaching":
        calls.append(lambda **kw: fk.attention_trace(q, k, v, block_m=16, block_n=16, **kw))
    for call in calls:
        for bad in ("no", "yes", None, 2, 0.5):
            with pytest.raises(fk.KernelTypeError, match="causal must be True or False"):
                call(causal=bad)
        for bad in (float("nan"), float("inf"), -float("inf")):
            with pytest.raises(fk.KernelInputError, match="sm_scale must be finite"):
                call(sm_scale=bad)
        for bad in ("0.1", [0.1], True):
            with pytest.raises(fk.KernelTypeError, match="sm_scale must be a number"):
                call(sm_scale=bad)
    first = lambda x: x[0] if isinstance(x, tuple) else x  # noqa: E731
    ref = attention_rows(q, k, v, torch.arange(8), causal=True, scale=float(np.float32(0.3)))
    for flag in (np.bool_(True), 1):                                          # numpy bools and 0/1 are fine
        got = first(calls[0](causal=flag, sm_scale=np.float32(0.3)))
        np.testing.assert_allclose(got.double().cpu().numpy(), ref.cpu().numpy(), atol=1e-5, rtol=1e-5)


@pytest.mark.skipif(GPU, reason="checks the interpreter-mode device rule")
def test_interpreter_rejects_non_cpu_tensors_and_sdpa_backends():
    q, k, v = qkv(1, 1, 8, 8, 16, torch.float32, seed=0)
    with pytest.raises(fk.KernelUnavailable, match="CUDA"):
        fk.attention(q, k, v, impl="sdpa-cudnn")
    meta = torch.zeros(1, 1, 8, 16, device="meta")
    with pytest.raises(TypeError, match="CPU tensors"):
        fk.attention(meta, meta, meta, impl="teaching")
