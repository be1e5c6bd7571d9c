"""The timeline measurement on a CUDA GPU (marker `gpu`): the fast kernel under proton, one small configuration.
With the global buffer sized for every event, the count equals what the loop's trip count predicts (4 warps x 4
scopes x key tiles per CTA), every CTA is in the trace, the scopes are the kernel's, and the kept CTA's rows lie
inside its span; with the shared fallback, the count can only be lower. Also: the instrumented kernel still
computes attention (float64 reference)."""
import math

import pytest
import torch

from flashviz.bench import timeline, timeline_dataset

pytestmark = pytest.mark.gpu


def test_fast_kernel_timeline_small():
    import triton.profiler.language as pl
    pl.enable_semantic("triton")
    [fast], _ = timeline.available_impls(("fast",))
    cfg = timeline.PRESETS["timeline-small"][0]
    cell = timeline.measure(fast, cfg, timeline.ClockSampler(), None)
    timeline_dataset.check_cell(0, cell)
    assert cell["status"] == "ok", cell.get("message")
    assert cell["scopes"] == ["load_k", "qk", "softmax", "load_v_pv"] and cell["roles"] == ["warpgroup 0"] * 4
    grid = cell["grid"][0] * cell["grid"][1]
    assert cell["ctas"] == cell["ctas_expected"] == grid
    tiles = math.ceil(cfg["n"] / cell["block_n"])
    assert cell["events_expected"] == grid * 4 * 4 * tiles
    if cell["buffer"] == "global":
        assert cell["events"] == cell["events_expected"], cell.get("message")
    else:
        assert cell["events"] <= cell["events_expected"]
    assert cell["ms_plain"] > 0 and cell["ms_kernel_plain"] and cell["ms_kernel_plain"] > 0


def test_instrumented_fast_kernel_still_computes_attention(tmp_path):
    import triton.profiler as proton
    import triton.profiler.language as pl
    from flashviz_kernels import fast, variants
    pl.enable_semantic("triton")
    g = torch.Generator(device="cuda").manual_seed(1)
    q, k, v = (torch.randn(1, 2, 512, 64, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
    bm, bn, w, s = fast.pick_config(q, k, causal=True)
    proton.start(str(tmp_path / "t"), data="trace", backend="instrumentation",
                 mode=timeline.proton_mode("global", 1 << 16))
    try:
        out, _ = fast.forward(q, k, v, variant=variants.CAUSAL, sm_scale=0.125, block_m=bm, block_n=bn, num_warps=w,
                              num_stages=s)
        torch.cuda.synchronize()
    finally:
        proton.finalize()
    q64, k64, v64 = (x.double() for x in (q, k, v))
    sc = q64 @ k64.transpose(-1, -2) * 0.125
    sc = sc.masked_fill(torch.ones(512, 512, dtype=torch.bool, device="cuda").triu(1), float("-inf"))
    ref = torch.softmax(sc, -1) @ v64
    assert (out.double() - ref).abs().max().item() < 2e-2
