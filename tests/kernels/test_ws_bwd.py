"""The Gluon ws backward (kernels/ws_bwd.py) without a GPU: its dispatch ("auto" only where it can run, a reason
when it cannot, the fallback when it fails) and its switches' checks. Its device code run on the host is in
test_ws_bwd_host.py, its sm_90 builds in test_ws_bwd_build.py, tune_backward's candidates in
tests/tools/test_tune_backward.py, the GPU tests in test_ws_bwd_gpu.py."""
import json
import re

import pytest
import torch

import flashviz_kernels as fk
from helpers.dispatch import backward_routes, pretend_hopper
from flashviz_kernels import api, backward_pick, backward_table, ws, ws_bwd


def test_auto_picks_ws_only_where_it_can_run(monkeypatch):
    """Off a GPU "auto" is a Triton backward; where the ws gate passes (a verified Hopper pretended here), plain or
    causal attention at d 64/128 runs ws, windows and documents where the table's mask rows say so too, and every
    other variant, head dim or dtype a Triton backward."""
    assert "ws" in api.BACKWARD_KINDS and backward_pick.BACKWARD_KIND == "auto"
    assert {r.d[0] for r in backward_table.ROUTES if r.kernel == "ws"} == set(ws_bwd.HEAD_DIMS)
    q = torch.zeros(1, 1, 8, 64, dtype=torch.float16)
    assert api.backward_kind(q) in ("fused", "reference")
    from flashviz_kernels import variants
    pretend_hopper(monkeypatch)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (9, 0))
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda")))
    meta = lambda d=64, dt=torch.float16: torch.empty((1, 1, 8, d), dtype=dt, device="meta")  # noqa: E731
    win = variants.parse(torch.empty((1, 1, 8, 64)), torch.empty((1, 1, 8, 64)), causal=True, window=(16, 0))
    for d in (64, 128):
        for var in (None, variants.PLAIN, variants.CAUSAL):
            assert api.backward_kind(meta(d), var=var) == "ws"
        assert api.backward_kind(meta(d, torch.bfloat16)) == "ws"
        assert api.backward_kind(meta(d), var=win) == "ws"              # masks: where the table's rows say
        assert api.backward_kind(meta(d), "fused") == "fused"
    backward_routes(monkeypatch, masks=(128,))
    capped = variants.parse(torch.empty((1, 1, 8, 64)), torch.empty((1, 1, 8, 64)), causal=True, softcap=5.0)
    assert api.backward_kind(meta(128), var=win) == "ws" and api.backward_kind(meta(64), var=win) == "reference"
    assert api.backward_kind(meta(128), var=capped) == "reference"
    x, kv = torch.empty((1, 4, 8, 64)), torch.empty((1, 2, 8, 64))
    gqa, gqa_win = variants.parse(x, kv, causal=True), variants.parse(x, kv, causal=True, window=(16, 0))
    backward_routes(monkeypatch, masks=(128,), gqa=())
    assert api.backward_kind(meta(128), var=gqa) == "reference"                 # GQA: only where a gqa row says
    backward_routes(monkeypatch, masks=(128,), gqa=(64, 128))
    assert api.backward_kind(meta(64), var=gqa) == "ws" and api.backward_kind(meta(128), var=gqa_win) == "ws"
    assert api.backward_kind(meta(64), var=gqa_win) == "reference"              # both lists must name d
    assert api.backward_kind(meta(32)) == "fused" and api.backward_kind(meta(96)) == "reference"
    assert api.backward_kind(meta(64, torch.float32)) == "fused"
    assert backward_pick.triton_auto(meta(64)) == "fused" and backward_pick.triton_auto(meta(128)) == "reference"
    monkeypatch.setitem(ws_bwd._failed, "reason", "it failed earlier")
    assert api.backward_kind(meta(64)) == "fused" and ws_bwd.supported(meta(64)) == "it failed earlier"


def test_backward_label_says_where_auto_runs_ws(monkeypatch):
    """The provenance field every dataset records (backward_label): ws first where it can run, never after it was
    switched off, nor off CUDA."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert backward_pick.backward_label().startswith("auto: reference (7 matmuls) off CUDA")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (9, 0))
    pretend_hopper(monkeypatch)
    monkeypatch.setitem(ws_bwd._failed, "reason", None)
    assert backward_pick.backward_label() == ("auto: ws (Gluon, 5 matmuls, TMA dQ) for plain/causal d in (64, 128), "
                                              "windows/documents d in (64, 128), GQA d in (64, 128), else fused "
                                              "(5 matmuls) for d <= 64, reference (7 matmuls) above, on sm_90")
    monkeypatch.setenv(ws_bwd.NEXT_ENV, "1")          # a backward schedule switch set for the run: named
    assert "GQA d in (64, 128) (FLASHVIZ_WS_BWD_NEXT=1), else fused" in backward_pick.backward_label()
    monkeypatch.setenv(ws_bwd.DP_ZERO_ENV, "1")      # both, in that order
    assert "(FLASHVIZ_WS_BWD_NEXT=1) (FLASHVIZ_WS_BWD_DP_ZERO=1), else fused" in backward_pick.backward_label()
    monkeypatch.delenv(ws_bwd.NEXT_ENV)
    monkeypatch.delenv(ws_bwd.DP_ZERO_ENV)
    for v in ("3.8.0", "3.9.0"):                      # and where its defaults are on (triton 3.8 and 3.9, d = 64)
        pretend_hopper(monkeypatch, version=v)
        assert "GQA d in (64, 128) (next_s 1, dP^T from zero at d 64), else " in backward_pick.backward_label()
    monkeypatch.setenv(ws_bwd.DP_ZERO_ENV, "0")      # one switched off for the run: named, not the default's
    assert "(next_s 1 at d 64) (FLASHVIZ_WS_BWD_DP_ZERO=0), else " in backward_pick.backward_label()
    monkeypatch.delenv(ws_bwd.DP_ZERO_ENV)
    pretend_hopper(monkeypatch)
    monkeypatch.setitem(ws_bwd._failed, "reason", "it failed earlier")
    assert backward_pick.backward_label().startswith("auto: fused (5 matmuls) for d <= 64")
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (8, 0))
    pretend_hopper(monkeypatch, cap=(8, 0))
    monkeypatch.setitem(ws_bwd._failed, "reason", None)
    assert backward_pick.backward_label() == "auto: reference (7 matmuls) on sm_80"
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (9, 0))    # an unverified triton: the
    pretend_hopper(monkeypatch, version="3.10.0")                                    # Triton gates say no too
    assert backward_pick.backward_label() == "auto: reference (7 matmuls) on sm_90"


@pytest.mark.skipif(torch.cuda.is_available(), reason="runs the kernels on CPU tensors, in the interpreter")
def test_auto_falls_back_to_a_triton_backward_when_ws_fails(monkeypatch):
    """Under "auto" a ws failure switches ws off (one warning) and the same call returns the Triton backward's
    gradients (the 7-matmul one here, in the interpreter: compared with kind="reference"); an input it refuses falls
    back for that call only; asked for by name, or on GPU out-of-memory, the error goes to the caller."""
    monkeypatch.setitem(ws_bwd._failed, "reason", None)
    torch.manual_seed(0)
    q, k, v, do = (torch.randn(1, 2, 40, 64) for _ in range(4))
    o, lse = fk.attention_with_lse(q, k, v, causal=True, impl="fast")
    want = fk.attention_backward(q, k, v, o, lse, do, causal=True, kind="reference")

    real = api.backward_kind        # "ws" wherever it may be picked (the device gate cannot pass here)
    monkeypatch.setattr(api, "backward_kind", lambda q, kind=None, config=None, var=None:
                        "ws" if kind in (None, "auto", "ws") else real(q, kind, config, var))

    def grads(kind=None):
        return api._backward(q, k, v, o, lse, do, None, sm_scale=64 ** -0.5, config=None, lock=True, causal=True,
                             kind=kind)

    def boom(*a, **kw):
        raise RuntimeError("PTXAS error: out of registers")
    monkeypatch.setattr(ws_bwd, "backward", boom)
    _, info = backward_pick.backward_launch("ws", q, k, v, o, lse, do, None, True, 64 ** -0.5, None)
    with pytest.raises(RuntimeError, match="PTXAS"):
        grads("ws")
    assert ws_bwd._failed["reason"] is None and info["impl"] == "ws_bwd"
    with pytest.warns(RuntimeWarning, match="Triton backward, not the Gluon 'ws' one: .*PTXAS"):
        got = grads()
    for g, w in zip(got, want):
        assert torch.allclose(g, w, atol=1e-5), (g - w).abs().max()
    assert "PTXAS" in ws_bwd.supported(q)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # said once: the second failure is silent
        ws_bwd.disable("again")
    assert "PTXAS" in ws_bwd._failed["reason"]

    monkeypatch.setitem(ws_bwd._failed, "reason", None)

    def bad_input(*a, **kw):
        raise fk.KernelInputError("these strides")
    monkeypatch.setattr(ws_bwd, "backward", bad_input)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # an input the kernel refuses: this call only, silently
        got = grads("auto")
    assert all(torch.allclose(g, w, atol=1e-5) for g, w in zip(got, want)) and ws_bwd._failed["reason"] is None

    def oom(*a, **kw):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")
    monkeypatch.setattr(ws_bwd, "backward", oom)
    with pytest.raises(fk.KernelOutOfMemory):            # the API's type for torch.cuda.OutOfMemoryError
        grads("auto")


@pytest.mark.skipif(torch.cuda.is_available(), reason="what happens off a GPU")
def test_ws_kind_off_gpu_raises_with_the_reason():
    q = torch.zeros(1, 1, 8, 64, dtype=torch.float16)
    with pytest.raises(fk.KernelInputError, match="ws backward cannot take these inputs: .+"):
        api.backward_kind(q, "ws")
    x = torch.randn(1, 1, 8, 64).half()
    lse = torch.zeros(1, 1, 8)
    with pytest.raises(fk.KernelInputError, match="ws backward"):
        fk.attention_backward(x, x, x, x, lse, x, kind="ws")


def test_ws_kind_reasons(monkeypatch):
    """Each input the ws backward cannot take names itself once the device gate passes."""
    pretend_hopper(monkeypatch)
    meta = lambda d=64, dt=torch.float16, dev="meta": torch.empty((1, 1, 8, d), dtype=dt, device=dev)  # noqa: E731
    assert ws_bwd.supported(meta()) == "q is on meta; the Gluon backward needs CUDA tensors"
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda")))
    assert ws_bwd.supported(meta()) is None and api.backward_kind(meta(), "ws") == "ws"
    assert "float16 or bfloat16" in ws_bwd.supported(meta(dt=torch.float32))
    assert "head dim" in ws_bwd.supported(meta(d=96))
    with pytest.raises(fk.KernelInputError, match="head dim"):
        api.backward_kind(meta(d=96), "ws")
    with pytest.raises(fk.KernelInputError, match="no config"):
        api.backward_kind(meta(), "ws", config=(32, 32, 4, 2, True))
    from flashviz_kernels import variants
    x = torch.empty((1, 4, 8, 64))
    for kw in (dict(causal=True, window=(16, 0)), dict(window=(3, 5)), dict(seq_ids=torch.zeros((1, 8), dtype=int))):
        var = variants.parse(x, x, **{"causal": False, **kw})
        assert api.backward_kind(meta(), "ws", var=var) == "ws"                                    # masks: taken
    for kw in (dict(softcap=5.0), dict(alibi_slopes=torch.ones(4))):
        with pytest.raises(fk.KernelInputError, match="no softcap or ALiBi"):
            api.backward_kind(meta(), "ws", var=variants.parse(x, x, causal=True, **kw))
    gqa = variants.parse(x, torch.empty((1, 2, 8, 64)), causal=True, window=(4, 0))
    assert api.backward_kind(meta(), "ws", var=gqa) == "ws"                                           # GQA: taken


def test_ws_status_reason_is_its_own_gate(monkeypatch):
    """The ws backward's reason names its own gate (kernels/gates.py "ws-backward"): on a triton no row verifies, the
    backward's sentence; 3.7.1 and 3.8 verify both Gluon kernels since 4000139 (its own suite file on 3.7.1), 3.9
    since its suites at 99a4182."""
    from flashviz_kernels import gates
    monkeypatch.setattr(ws, "triton_version", lambda: "3.10.0")
    q = torch.zeros(1, 1, 8, 64, dtype=torch.float16)
    assert "triton 3.10.0 is not a version the Gluon backward was verified on" in ws_bwd.supported(q)
    assert gates.versions("ws-backward") == ("3.6.", "3.7.1", "3.8.", "3.9.")
    assert gates.why_not("ws-backward", "3.7.1", (9, 0)) is None and gates.why_not("fused-backward", "3.7.1", (9, 0))


def test_configs_fit_shared_memory_and_registers():
    creg, preg, launch = ws_bwd.REGS
    assert 128 * 3 * launch <= 65536 and 2 * creg + preg <= 3 * launch
    for d, (bm, stages, split, _, mode) in ws_bwd.CONFIGS.items():
        assert d in ws_bwd.HEAD_DIMS and bm in (64, 128) and split in (1, 2) and d // split >= 64
        assert ws_bwd.smem_bytes(d, bm, stages) < ws_bwd.smem_bytes(d, bm, stages, dq_mode=mode) <= ws_bwd.SMEM_BYTES
        assert ws_bwd.smem_bytes(d, bm, stages, dq_mode=mode, prefetch=2) == \
            ws_bwd.smem_bytes(d, bm, stages, dq_mode=mode) + 2 * stages * bm * 4     # lse and delta per stage
        assert mode == ("rows-frag" if d == 64 else "frag")   # measured fastest (test_recorded_figures_are_the_files)
        pf = ws_bwd.prefetch_for(d, mode)
        assert ws_bwd.smem_bytes(d, bm, stages, dq_mode=mode, prefetch=pf) <= ws_bwd.SMEM_BYTES
        ws_bwd.check_tiles(d, bm, stages, split, mode, prefetch=pf)


def test_dq_mode_checks():
    """dq_mode must be a DQ_MODES key ("partial" is retired, with its reason); "split" MMAs cover d / 2 / dq_split
    >= 32 columns."""
    assert set(ws_bwd.DQ_MODES) == {"split", "split-scalar", "tma", "tma2", "tma3", "rows", "frag", "rows-frag"}
    assert set(ws_bwd.RETIRED) == {"partial"} and 0 not in ws_bwd.DQ_MODES.values()
    with pytest.raises(fk.KernelInputError, match="'partial' is retired: it raced or faulted"):
        ws_bwd.check_tiles(128, 64, 2, 1, "partial")
    for d, mode, split in [(64, "split", 1), (128, "split", 1), (128, "split", 2), (64, "split-scalar", 1),
                           (64, "tma", 1), (128, "tma", 1), (128, "tma2", 1), (128, "tma3", 1)]:
        ws_bwd.check_tiles(d, 64, 2, split, mode)
    ws_bwd.check_tiles(64, 128, 2, 1, "rows")             # "rows": half of block_m's rows per consumer, >= 64
    with pytest.raises(fk.KernelInputError, match="rows: block_m 128"):
        ws_bwd.check_tiles(64, 64, 2, 1, "rows")
    for stages in (2, 3):                                 # "frag": 64 x 64 pieces, block_m 64 at d = 128 only
        ws_bwd.check_tiles(128, 64, stages, 1, "frag", prefetch=2)
    for d, bm, split in [(64, 128, 1), (64, 64, 1), (128, 128, 1), (128, 64, 2)]:
        with pytest.raises(fk.KernelInputError, match="frag: block_m 64 at d 128|dq_split"):
            ws_bwd.check_tiles(d, bm, 2, split, "frag")
    ws_bwd.check_tiles(64, 128, 2, 1, "rows-frag", prefetch=2)      # "rows-frag": block_m 128 at d = 64 only
    for d, bm in [(64, 64), (128, 128), (128, 64)]:
        with pytest.raises(fk.KernelInputError, match="rows-frag: block_m 128 at d 64"):
            ws_bwd.check_tiles(d, bm, 2, 1, "rows-frag")
    for d, mode, split in [(64, "split", 2), (64, "split-scalar", 2), (64, "splitt", 1), (64, None, 1), (64, "", 1),
                           (128, "tma", 2), (64, "tma2", 2), (64, "tma3", 2)]:
        with pytest.raises(fk.KernelInputError, match="dq_mode" if mode in ("splitt", None, "") else "dq_split"):
            ws_bwd.check_tiles(d, 64, 2, split, mode)
    # "tma3"'s four dQ staging buffers: d=128 with 2 stages fits in the 227 KB, with 3 it does not
    extra = 2 * 64 * 64 * 4                            # two more BM x d/2 fp32 buffers
    assert ws_bwd.smem_bytes(128, 64, 2, dq_mode="tma3") == ws_bwd.smem_bytes(128, 64, 2, dq_mode="tma2") + extra
    with pytest.raises(fk.KernelInputError, match="stages"):
        ws_bwd.check_tiles(128, 64, 3, 1, "tma3")


@pytest.mark.parametrize("kw,match", [(dict(dq_mode="bogus"), "dq_mode is one of"),
                                      (dict(dq_mode="split", dq_split=2), "dq_split"),
                                      (dict(dq_mode="split", block_m=32), "block_m"),
                                      (dict(dq_mode="partial"), "'partial' is retired"),
                                      (dict(dq_mode="split", prefetch=2), "prefetch 2 takes dq_mode 'tma'"),
                                      (dict(dq_mode="split", prefetch=1), "prefetch 1 takes dq_mode"),
                                      (dict(prefetch=3), "prefetch is 0, 1 or 2"),
                                      (dict(exp_mode="fast"), "exp_mode is one of"),
                                      (dict(exp_mode=None), "exp_mode is one of"),
                                      (dict(mask_mode="select"), "mask_mode is one of")])
def test_backward_rejects_bad_dq_mode_before_launching(monkeypatch, kw, match):
    """ws_bwd.backward checks its switches (dq_mode among them) before any buffer or kernel (CPU tensors here: the
    device gate is patched open, so a missing check would fail elsewhere)."""
    monkeypatch.setattr(ws_bwd, "supported", lambda q: None)
    x = torch.zeros(1, 1, 8, 64, dtype=torch.float16)
    with pytest.raises(fk.KernelInputError, match=match):
        ws_bwd.backward(x, x, x, x, torch.zeros(1, 1, 8), x, causal=False, sm_scale=0.125, **kw)


def test_retired_partial_was_slower_than_split_in_every_recorded_cell():
    """RETIRED's comment: "partial" (named "ws(bm, stages, split, rotate)" without a mode in the recorded files) ran
    slower than "split" at the same tiles in every cell of the tune run that timed both, at both head dims."""
    from pathlib import Path
    rec = json.loads((Path(__file__).parents[2] / "assets/benchmarks/tune/nvidia-h200-backward-ws-2026-12-01b.json")
                     .read_text())
    pairs = [(r["d"], im[k]["ms"], im[k + " split"]["ms"]) for r in rec["rows"] for im in (r["impls"],)
             for k in im if re.fullmatch(r"ws\(\d+, \d, \d, (True|False)\)", k) and "ms" in im.get(k + " split", {})]
    assert {d for d, _, _ in pairs} == {64, 128} and len(pairs) >= 20
    assert all(partial > split for _, partial, split in pairs), pairs


def test_prefetch_runs_with_the_tma_modes_only():
    """A launch's prefetch (ws_bwd.prefetch_for): the table's in the TMA modes, 0 in "split" / "split-scalar",
    asked-for values kept in the TMA modes and refused elsewhere."""
    for d in ws_bwd.CONFIGS:
        assert ws_bwd.prefetch_for(d, ws_bwd.CONFIGS[d][4]) == ws_bwd.PREFETCH[d] == 2
        for mode in ("split", "split-scalar"):
            assert ws_bwd.prefetch_for(d, mode) == 0 and ws_bwd.prefetch_for(d, mode, 0) == 0
            for pre in (1, 2, True):
                with pytest.raises(fk.KernelInputError, match=f"prefetch {int(pre)} takes dq_mode"):
                    ws_bwd.prefetch_for(d, mode, pre)
        for mode in ws_bwd.TMA_MODES:
            assert [ws_bwd.prefetch_for(d, mode, p) for p in (0, 1, 2, True, False)] == [0, 1, 2, 1, 0]
    with pytest.raises(fk.KernelInputError, match="0, 1 or 2"):
        ws_bwd.prefetch_for(64, "tma2", -1)


def test_stats_code_starts_dp_at_zero_only_where_asked(monkeypatch):
    """STATS_ACC 2 (dP^T from zero) only with the accumulator start on and dp_zero=True, DP_ZERO_ENV=1 or (neither
    saying) the default: dp_zero_default's, at d = 64 with next_s 1 under 3.8 and 3.9; elsewhere the value stays the
    bool it was (the same kernel build); a bad value names the variable."""
    monkeypatch.delenv(ws_bwd.DP_ZERO_ENV, raising=False)
    assert ws_bwd.stats_code(True) is True and ws_bwd.stats_code(False) is False
    assert ws_bwd.stats_code(True, True) == 2 and ws_bwd.stats_code(False, True) is False
    assert ws_bwd.stats_code(True, default=True) == 2 and ws_bwd.stats_code(True, False, True) is True
    assert [ws_bwd.dp_zero_default(d, n, v) for v in ("3.8.0", "3.9.1") for d, n in ((64, 1), (64, 0), (128, 1))] \
        == [True, False, False] * 2
    assert not any(ws_bwd.dp_zero_default(64, 1, v) for v in ("3.6.0", "3.7.1", "3.10.0"))
    monkeypatch.setenv(ws_bwd.DP_ZERO_ENV, "1")
    assert ws_bwd.stats_code(True) == 2 and ws_bwd.stats_code(False) is False and ws_bwd.stats_code(True, False) is True
    monkeypatch.setenv(ws_bwd.DP_ZERO_ENV, "0")
    assert ws_bwd.stats_code(True) is True and ws_bwd.stats_code(True, default=True) is True
    monkeypatch.setenv(ws_bwd.DP_ZERO_ENV, "yes")
    with pytest.raises(fk.KernelInputError, match="FLASHVIZ_WS_BWD_DP_ZERO"):
        ws_bwd.stats_code(True)


def test_stats_acc_only_where_the_start_cannot_overflow():
    """lse and delta start the accumulators at ordinary scales, positive or negative; not at 0 (no 1 / qk_scale),
    not at scales where -lse2 / qk_scale would leave float32 (about log2(Nk) / qk_scale), and not when asked not to."""
    import numpy as np
    on = ws_bwd.stats_acc_on
    assert on(True, 0.125) and on(True, -0.07) and on(True, ws_bwd.STATS_ACC_MIN_SCALE)
    assert not on(True, 0.0) and not on(True, 1e-30) and not on(True, -1e-30) and not on(False, 0.125)
    # at the bound, the start for 2^20 keys stays finite in float32; far below it, it would not
    lse2 = np.float32(20.0)                                  # log2(Nk) with Nk = 2^20, scores near zero
    qk = ws_bwd.STATS_ACC_MIN_SCALE * ws_bwd.LOG2E
    assert np.isfinite(np.float32(-lse2) * np.float32(1.0 / qk))
    with np.errstate(over="ignore"):
        assert not np.isfinite(np.float32(-lse2) * np.float32(1.0 / (1e-38 * ws_bwd.LOG2E)))
