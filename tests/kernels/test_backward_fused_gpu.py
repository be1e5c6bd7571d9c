"""The 5-matmul backward compiled on a CUDA GPU (marker `gpu`; skipped cleanly without CUDA).

Gradients against float64 torch autograd at full size, idiom max|g - g64| <= 2 * max|g_naive_lowprec - g64| + eps
(tests/kernels/test_backward.py); then the peak extra memory the module docstring states, measured.
"""
import pytest
import torch

from flashviz_kernels import api, backward_pick
from helpers.backward import check, check_peak_extra_memory

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("n", [1, 17, 1000, 4093])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_fused_full_size(n, d, causal):
    check(1, 4, n, n, d, torch.float16, causal, seed=n + d)


@pytest.mark.parametrize("nq,nk,causal", [(1000, 1500, True), (1500, 1000, True), (1000, 1500, False),
                                          (300, 100, True), (4093, 17, True)])
def test_fused_nq_ne_nk_and_masked_rows(nq, nk, causal):
    """Causal with Nq > Nk leaves rows that see no key: zero gradient (check asserts it)."""
    check(2, 4, nq, nk, 64, torch.float16, causal, seed=nq + 3 * nk)


@pytest.mark.parametrize("dtype,d", [(torch.bfloat16, 128), (torch.float32, 64), (torch.float16, 48)])
def test_fused_dtypes(dtype, d):
    check(1, 4, 777, 777, d, dtype, True, seed=d)


def test_fused_with_dlse():
    check(1, 4, 1000, 600, 64, torch.float32, True, seed=9, with_dlse=True)


def test_auto_picks_fused_where_verified_and_faster():
    """auto: ws where it can run (Hopper, verified triton; test_ws_bwd_gpu.py tests it), else fused where
    kernels/gates.py verifies it (this triton, this GPU) up to the head dim where it measured faster (the backward
    table's fused row, d <= 64), the reference above."""
    from flashviz_kernels import backward_table, gates, ws, ws_bwd
    verified = gates.why_not("fused-backward", ws.triton_version(), torch.cuda.get_device_capability()) is None
    fused_max = max(r.d[1] for r in backward_table.ROUTES if r.kernel == "fused")
    for d in (64, 128):
        q = torch.zeros(1, 1, 64, d, device="cuda", dtype=torch.float16)
        want = "fused" if verified and d <= fused_max else "reference"
        assert api.backward_kind(q) == ("ws" if ws_bwd.supported(q) is None else want)
        assert backward_pick.triton_auto(q) == want


def test_fused_peak_extra_memory():
    """dQ, dK, dV + lse (patched copy) and delta, 4 bytes per row each, + the fp32 dQ buffer; nothing else."""
    check_peak_extra_memory("fused")
