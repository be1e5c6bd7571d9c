"""MMA_SUM (ws_switches.mma_sum_default): the d = 64 forward's row sums from a wgmma of P against a tile of ones,
beside P·V. The switch's default, and the forward against float64 with it forced (tools/device/d64_check.sh
FLASHVIZ_WS_MMA_SUM suite runs this file and the ws forward's GPU files with it on)."""
import pytest

from flashviz_kernels import ws_switches


def test_mma_sum_is_off_by_default_and_its_switch_reads_1_or_0(monkeypatch):
    monkeypatch.delenv(ws_switches.MMA_SUM_ENV, raising=False)
    assert ws_switches.MMA_SUM_TRITONS == () and not ws_switches.mma_sum_default("3.8.0")
    monkeypatch.setenv(ws_switches.MMA_SUM_ENV, "1")
    assert ws_switches.mma_sum_default("3.8.0")
    monkeypatch.setenv(ws_switches.MMA_SUM_ENV, "yes")
    with pytest.raises(ws_switches.KernelInputError, match="FLASHVIZ_WS_MMA_SUM"):
        ws_switches.mma_sum_default("3.8.0")


@pytest.mark.gpu
@pytest.mark.usefixtures("needs_ws")
@pytest.mark.parametrize("n_q,n_k", [(1, 1), (200, 1000), (1000, 200), (4093, 4093)])
@pytest.mark.parametrize("causal", [False, True])
def test_mma_sum_forward_and_lse_match_float64(n_q, n_k, causal):
    """Output and LSE against float64 with MMA_SUM on (skipped where the process runs it off): l now sums the
    fp16-rounded P that P·V multiplies, so the LSE must still hold to test_ws_gpu.py's tolerance. (Under 3.8 the
    causal launches run HALF, so MMA_SUM changes only the non-causal ones; the causal cases guard that split.)"""
    import torch

    import flashviz_kernels as fk
    from flashviz_kernels import _ws_tile
    from helpers.attn_ref import attention_rows, check_close, lse_rows
    from helpers.gpu import EPS, make
    if not _ws_tile.MMA_SUM.value:
        pytest.skip("MMA_SUM is off in this process (FLASHVIZ_WS_MMA_SUM=1 turns it on at import)")
    q, k, v = make(2, 3, n_q, n_k, 64, torch.float16, seed=n_q + 3 * n_k)
    rows = torch.arange(n_q)
    out, lse = fk.attention_with_lse(q, k, v, causal=causal, impl="ws")
    check_close(out, attention_rows(q, k, v, rows, causal=causal),
                attention_rows(q, k, v, rows, causal=causal, dtype=q.dtype), EPS[q.dtype], f"mma_sum {n_q}x{n_k}")
    lref = lse_rows(q, k, rows, causal=causal)
    seen = torch.isfinite(lref)
    assert torch.equal(torch.isneginf(lse), ~seen)
    assert torch.allclose(lse.double()[seen], lref[seen], atol=2e-2, rtol=1e-3)
