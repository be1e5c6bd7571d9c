"""The fused log-sum-exp merge (kernels/ring_merge.py) against a float64 reference, in Triton's interpreter on CPU
(compiled on a GPU): every accumulator dtype, rows that saw no key on either side or both, strided row slices and
transposed layouts, a head dim that is not a power of two. The torch merge (ring_block.merge_torch) is held to the
same reference."""
import math

import pytest
import torch

from flashviz_kernels.ring_block import merge_torch
from flashviz_kernels.ring_merge import merge_triton

# the interpreter computes log(0) = -inf in numpy, which warns. With CUDA the same tests run compiled and carry the
# gpu marker, so `pytest -m gpu` on a GPU machine includes them; on CPU they are ordinary tests (the interpreter).
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
pytestmark = [pytest.mark.filterwarnings("ignore:divide by zero encountered in log:RuntimeWarning")] + (
    [pytest.mark.gpu] if DEVICE == "cuda" else [])
NEG = -math.inf


def reference(acc, lse, out_b, lse_b):
    """The merge in float64: m = max, alpha = e^(lse - m), beta = e^(lse_b - m), l = alpha + beta."""
    la, lb = lse.double(), lse_b.double()
    m = torch.maximum(la, lb)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    alpha, beta = torch.exp(la - m), torch.exp(lb - m)
    ell = alpha + beta
    inv = 1.0 / torch.where(ell > 0, ell, torch.ones_like(ell))
    out = acc.double() * (alpha * inv)[..., None] + out_b.double() * (beta * inv)[..., None]
    return out, m + torch.log(ell)


def make(b, h, n, d, acc_dtype, b_dtype, seed):
    """Partial results with empty rows: row 0 empty in acc only, row 1 in out_b only, row 2 in both; the rest
    spread over several orders of magnitude of lse so the weights are far from 1/2."""
    g = torch.Generator().manual_seed(seed)
    acc = torch.randn(b, h, n, d, generator=g).to(acc_dtype)
    out_b = torch.randn(b, h, n, d, generator=g).to(b_dtype)
    lse = (torch.randn(b, h, n, generator=g) * 4).float()
    lse_b = (torch.randn(b, h, n, generator=g) * 4).float()
    for x, rows in ((lse, (0, 2)), (lse_b, (1, 2))):
        x[:, :, list(rows)] = NEG
    acc[:, :, [0, 2]] = 0                                   # what the kernels return for a row with no key
    out_b[:, :, [1, 2]] = 0
    return acc, lse, out_b, lse_b


def check(acc, lse, acc0, lse0, out_b, lse_b):
    want, want_lse = reference(acc0, lse0, out_b, lse_b)
    tol = torch.finfo(acc.dtype).eps * want.abs() + 1e-6     # one rounding to acc's dtype (float32 maths)
    assert ((acc.double() - want).abs() <= tol).all(), float((acc.double() - want).abs().max())
    assert not torch.isnan(acc).any() and not torch.isnan(lse).any()
    fin = torch.isfinite(want_lse)
    assert torch.equal(torch.isneginf(lse), ~fin)           # empty stays empty, nothing else becomes empty
    assert ((lse.double() - want_lse)[fin].abs() <= 2e-6 * (1 + want_lse[fin].abs())).all()
    # rows empty in out_b: the merge's identity, exactly; empty in both: zeros and -inf
    assert torch.equal(acc[:, :, 1], acc0[:, :, 1]) and torch.equal(lse[:, :, 1], lse0[:, :, 1])
    assert (acc[:, :, 2] == 0).all() and torch.isneginf(lse[:, :, 2]).all()
    if out_b.dtype == acc.dtype:                            # empty in acc: out_b itself
        assert torch.equal(acc[:, :, 0], out_b[:, :, 0]) and torch.equal(lse[:, :, 0], lse_b[:, :, 0])


@pytest.mark.parametrize("merge", [merge_triton, merge_torch], ids=["triton", "torch"])
@pytest.mark.parametrize("acc_dtype,b_dtype", [(torch.float16, torch.float16), (torch.bfloat16, torch.bfloat16),
                                               (torch.float32, torch.float32), (torch.float32, torch.float16),
                                               (torch.float32, torch.bfloat16)])
def test_merge_matches_float64(merge, acc_dtype, b_dtype):
    acc, lse, out_b, lse_b = make(2, 3, 37, 24, acc_dtype, b_dtype, seed=1)   # 222 rows: a ragged last program
    acc, lse, out_b, lse_b = (x.to(DEVICE) for x in (acc, lse, out_b, lse_b))
    acc0, lse0 = acc.clone(), lse.clone()
    merge(acc, lse, out_b, lse_b)
    check(acc, lse, acc0, lse0, out_b, lse_b)


@pytest.mark.parametrize("merge", [merge_triton, merge_torch], ids=["triton", "torch"])
@pytest.mark.parametrize("acc_dtype", [torch.float16, torch.float32])
def test_merge_into_a_row_slice_and_from_a_transposed_block(merge, acc_dtype):
    """acc and lse are rows [lo, hi) of larger tensors (as the ring merges one piece); out_b has the (B, N, H, d)
    memory layout SDPA returns; rows outside the slice are untouched."""
    b, h, n, d, lo, hi = 1, 2, 64, 32, 16, 56
    acc, lse, _, _ = make(b, h, n, d, acc_dtype, acc_dtype, seed=2)
    _, _, out_b, lse_b = make(b, h, hi - lo, d, acc_dtype, acc_dtype, seed=3)
    acc[:, :, [lo, lo + 2]], lse[:, :, [lo, lo + 2]] = 0, NEG          # the slice's rows 0 and 2: no key yet
    acc, lse = acc.to(DEVICE), lse.to(DEVICE)
    out_b = out_b.transpose(1, 2).contiguous().transpose(1, 2).to(DEVICE)
    lse_b = lse_b.to(DEVICE)
    assert not out_b.is_contiguous()
    full_acc, full_lse = acc.clone(), lse.clone()
    view, lview = acc[:, :, lo:hi], lse[:, :, lo:hi]
    merge(view, lview, out_b, lse_b)
    check(acc[:, :, lo:hi], lse[:, :, lo:hi], full_acc[:, :, lo:hi], full_lse[:, :, lo:hi], out_b, lse_b)
    for a, z in ((acc, full_acc), (lse, full_lse)):
        assert torch.equal(a[:, :, :lo], z[:, :, :lo]) and torch.equal(a[:, :, hi:], z[:, :, hi:])


def test_all_rows_empty_stay_empty():
    acc = torch.zeros(1, 1, 5, 16, dtype=torch.float16, device=DEVICE)
    lse = torch.full((1, 1, 5), NEG, device=DEVICE)
    merge_triton(acc, lse, torch.zeros_like(acc), torch.full_like(lse, NEG))
    assert (acc == 0).all() and torch.isneginf(lse).all()


@pytest.mark.parametrize("flag, env, fused", [(True, "", True), (True, "torch", False), (True, "triton", True),
                                              (False, "", False), (False, "triton", True), (False, "torch", False)])
def test_which_merge_a_gpu_runs(monkeypatch, flag, env, fused):
    """The verified flag picks the fused merge on GPUs; FLASHVIZ_RING_MERGE=torch / =triton override it either way,
    and the recording's label says which ran and whether the variable asked for it."""
    from flashviz_kernels import _env, ring_block
    monkeypatch.setattr(ring_block, "FUSED_MERGE_VERIFIED_ON_GPU", flag)
    monkeypatch.setenv(ring_block.MERGE_ENV, env)
    monkeypatch.setattr(_env, "HAS_TRITON", True)
    assert ring_block._fused_merge_on_gpu() is fused
    label = ring_block.merge_label(cuda=True)
    assert label.startswith("fused Triton kernel") is fused and (("asked for" in label) is (env == "triton"))
    assert ring_block.merge_label(cuda=False) == "torch, a slab of rows at a time"
