"""Kernels at full size on a CUDA GPU (marker `gpu`; skipped cleanly without CUDA).

References are float64 over a sample of query rows (the whole N x N in float64 would not fit),
compared with the idiom max|out - ref64| <= 2 * max|naive_same_dtype - ref64| + eps, where
'naive in the same dtype' is the textbook computation of the same rows at the inputs' precision.
"""
import math

import numpy as np
import pytest
import torch

import flashviz_kernels as fk
from helpers.attn_ref import attention_rows, check_close, lse_rows
from helpers.gpu import EPS, make, sample_rows
from flashviz.engine.online_softmax import online_softmax_trace

pytestmark = pytest.mark.gpu


CASES = [  # (B, H, N, d, dtype) with B*H >= 32
    (4, 8, 4096, 64, torch.float16),
    (2, 16, 16384, 128, torch.float16),
    (2, 16, 8191, 128, torch.bfloat16),
    (4, 8, 2048, 256, torch.bfloat16),
    (1, 32, 1000, 32, torch.float16),
    (1, 32, 777, 16, torch.bfloat16),
    (1, 32, 1024, 64, torch.float32),
]


@pytest.mark.parametrize("b,h,n,d,dtype", CASES)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("impl", ["fast", "teaching"])
def test_full_size_against_float64(b, h, n, d, dtype, causal, impl):
    q, k, v = make(b, h, n, n, d, dtype, seed=n + d)
    rows = sample_rows(n)
    ref = attention_rows(q, k, v, rows, causal=causal)
    naive = attention_rows(q, k, v, rows, causal=causal, dtype=dtype)
    out, lse = fk.attention_with_lse(q, k, v, causal=causal, impl=impl)
    assert torch.isfinite(out).all()
    check_close(out[:, :, rows], ref, naive, EPS[dtype], f"{impl} {b}x{h}x{n}x{d} {dtype} causal={causal}")
    lref = lse_rows(q, k, rows, causal=causal)
    assert torch.allclose(lse[:, :, rows].double(), lref, atol=2e-2 if dtype != torch.float32 else 1e-4, rtol=1e-3)


@pytest.mark.parametrize("impl", ["fast", "teaching"])
def test_fully_masked_rows_are_zero(impl):
    q, k, v = make(2, 16, 300, 100, 64, torch.float16, seed=1)
    out, lse = fk.attention_with_lse(q, k, v, causal=True, impl=impl)
    assert torch.all(out[:, :, :200] == 0) and torch.all(torch.isneginf(lse[:, :, :200]))
    rows = torch.arange(200, 300)
    check_close(out[:, :, rows], attention_rows(q, k, v, rows, causal=True),
                attention_rows(q, k, v, rows, causal=True, dtype=torch.float16), EPS[torch.float16], impl)


@pytest.mark.parametrize("causal", [False, True])
def test_trace_compiled_equals_numpy_engine(causal):
    n, d, bm, bn = 1024, 64, 64, 64
    q, k, v = make(2, 16, n, n, d, torch.float32, seed=7)
    out, tr = fk.attention_trace(q, k, v, causal=causal, block_m=bm, block_n=bn)
    tc = n // bn
    assert tr.m.shape == (2, 16, n, tc)
    for bh, row in ((0, 0), (5, 63), (17, 500), (31, n - 1)):
        b, h = divmod(bh, 16)
        s = (q[b, h, row].double() @ k[b, h].double().T).cpu().numpy() / math.sqrt(d)
        if causal:
            s[row + 1:] = -np.inf
        ref = online_softmax_trace(s, v[b, h].double().cpu().numpy(), bn)
        m, l, a = (x[b, h, row].double().cpu().numpy() for x in (tr.m, tr.l, tr.alpha))
        ran = np.arange(tc) * bn <= ((row // bm + 1) * bm - 1 if causal else n - 1)
        assert np.all(np.isnan(m[~ran])) and not np.any(np.isnan(m[ran]))
        for got, want in ((m, ref.m), (l, ref.l), (a, ref.alpha)):
            np.testing.assert_allclose(got[ran], want[ran], rtol=1e-5, atol=1e-5)


def test_gpu_bad_input():
    q, k, v = make(1, 2, 64, 64, 64, torch.float16, seed=0)
    with pytest.raises(ValueError, match="power of two >= 16"):
        fk.attention(q, k, v, impl="teaching", block_m=24)
    with pytest.raises(ValueError, match="power of two >= 16"):
        fk.attention(q, k, v, impl="teaching", block_n=8)
    with pytest.raises(TypeError, match="move it with .cuda"):
        fk.attention(q.cpu(), k.cpu(), v.cpu(), impl="fast")
    with pytest.raises(TypeError, match="one device"):
        fk.attention(q, k.cpu(), v, impl="fast")


def test_out_of_resources_is_typed_and_names_the_config():
    """128 x 128 tiles at d = 128 with 4 pipeline stages need ~256 KB of shared memory (> 228 KB)."""
    q, k, v = make(1, 1, 512, 512, 128, torch.float16, seed=0)
    with pytest.raises(fk.KernelResourceError) as info:
        fk.attention(q, k, v, causal=False, sm_scale=0.1, impl="fast", block_m=128, block_n=128, num_warps=4,
                     num_stages=4)
    assert info.value.config["block_m"] == 128 and info.value.config["num_stages"] == 4
    assert "num_stages" in str(info.value)
