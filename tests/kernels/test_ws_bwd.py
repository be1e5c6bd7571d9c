"""The Gluon ws backward (kernels/ws_bwd.py) without a GPU: its dispatch ("auto" only where it can run, a reason
when it cannot, the fallback when it fails), its per-key-block query range as plain Python, and its sm_90 compile
under the verified triton (skipped elsewhere, as test_ws.py's compile test). The GPU tests are in test_ws_bwd_gpu.py."""
import json
import re

import numpy as np
import pytest
import torch

import flashviz_kernels as fk
from helpers.dispatch import backward_routes, pretend_hopper
from flashviz_kernels import api, backward_pick, backward_table, ws, ws_bwd
from helpers.ws import PTXAS, Ptr, compile_report, gluon_on_host, needs_verified_triton, per_triton


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
    monkeypatch.delenv(ws_bwd.NEXT_ENV)
    pretend_hopper(monkeypatch, version="3.8.0")     # and where its default is on (triton 3.8, d = 64)
    assert "GQA d in (64, 128) (next_s 1 at d 64), else " in backward_pick.backward_label()
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


def test_tune_candidates_take_both_modes():
    """tune_backward's ws candidates: CONFIGS first (its no-dQ-adds row times the default), "split" among them, all
    valid; names say the mode ("partial", retired, was named without it in the recorded files)."""
    from tools import tune_backward as tb
    for d, cands in tb.WS_CANDIDATES.items():
        assert cands[0][:5] == ws_bwd.CONFIGS[d] and {c[4] for c in cands} >= {"split", "tma"}
        assert tb.switches(cands[0]) in ({}, dict(stats_acc=True, early_dq=ws_bwd.EARLY_DQ[d],
                                                   dq_first=ws_bwd.DQ_FIRST[d], prefetch=ws_bwd.PREFETCH[d],
                                                   next_s=0))
        assert tb.candidate_name("ws", cands[0]) == backward_table.tune_name(backward_table.WS_BWD[d])
        assert any(tb.switches(c) == dict(stats_acc=False, early_dq=False, dq_first=False, prefetch=0, next_s=0)
                   for c in cands)                     # the old schedule, with nothing newer switched on
        for c in cands:
            ws_bwd.check_tiles(d, c[0], c[1], c[2], c[4])
        assert len({tb.candidate_name("ws", c) for c in cands}) == len(cands)
    assert tb.candidate_name("ws", (64, 2, 1, True, "tma2", True, False)) == "ws(64, 2, 1, True) tma2 acc=1 early=0"
    assert tb.candidate_name("ws", (64, 2, 1, True, "split")) == "ws(64, 2, 1, True) split"
    assert tb.switches((64, 2, 1, True, "tma2", True, False)) == dict(stats_acc=True, early_dq=False, dq_first=False,
                                                                      prefetch=0, next_s=0)   # not the table's
    poly = (64, 3, 1, True, "frag", True, False, False, 2, "poly")
    assert tb.candidate_name("ws", poly) == "ws(64, 3, 1, True) frag acc=1 early=0 pre=2 exp=poly"
    assert tb.switches(poly)["exp_mode"] == "poly" and "exp_mode" not in tb.switches(poly[:9])
    for d, cands in tb.WS_CANDIDATES.items():          # each exp and mask mode beside the table's launch, at its
        assert {c[9] for c in cands if len(c) > 9} == set(ws_bwd.EXP_MODES)     # switches ("asm" with "mufu")
        assert all(c[:9] == cands[0] for c in cands if len(c) > 9)
        assert {c[10] for c in cands if len(c) == 11} == set(ws_bwd.MASK_MODES) - {ws_bwd.MASK_DEFAULT}
        # next_s 1 and 2 at the launch's switches (1 at d = 64 also with two other exp modes), the launch without ROTATE
        nxt = [c for c in cands if len(c) > 11]
        assert {c[11] for c in nxt} == {1, 2} and all(c[:9] == cands[0] and c[10] == ws_bwd.MASK_DEFAULT for c in nxt)
        assert all(c[9] == "mufu" for c in nxt if c[11] == 2)
        assert any(c[:5] == (*cands[0][:3], False, cands[0][4]) and c[5:] == cands[0][5:] for c in cands)
    asm = (64, 3, 1, True, "frag", True, False, False, 2, "mufu", "asm")
    assert tb.candidate_name("ws", asm) == "ws(64, 3, 1, True) frag acc=1 early=0 pre=2 mask=asm"
    assert tb.switches(asm)["mask_mode"] == "asm" and "mask_mode" not in tb.switches(asm[:10])
    nxt = (*asm[:10], "where", 1)
    assert tb.candidate_name("ws", nxt) == "ws(64, 3, 1, True) frag acc=1 early=0 pre=2 mask=where next=1"
    assert tb.switches(nxt)["next_s"] == 1 and tb.switches(asm)["next_s"] == 0


def _exp2_fma_on_host():
    """_ws_bwd_exp.exp2_fma's own source run on numpy float32 (Gluon has no interpreter): bitcasts as views."""
    import types
    mod = pytest.importorskip("flashviz_kernels._ws_bwd_exp", reason="Gluon cannot be imported here")

    class F(np.ndarray):
        def to(self, dtype, bitcast=False):
            assert bitcast
            return np.asarray(self).view(dtype).view(F)
    shim = types.SimpleNamespace(int32=np.int32, float32=np.float32, where=np.where)
    consts = {n: np.float32(getattr(mod, n).value) for n in ("ROUND", "C0", "C1", "C2", "C3")}
    fn = types.FunctionType(mod.exp2_fma.fn.__code__, {**mod.exp2_fma.fn.__globals__, **consts, "gl": shim})
    return lambda x: fn(np.asarray(x, np.float32).view(F))


def test_exp2_fma_matches_float64_where_p_lives():
    """The "poly" exponentials (ws_bwd.EXP_MODES): 2^x as round(x) in the exponent bits times a cubic, in float32
    as written, within 8e-5 of float64's 2^x relatively over [-125.5, 1] (P = 2^x <= 1 up to rounding; fp16's
    rounding of P is 4.9e-4) and within 2^-126 absolutely below (where the result is subnormal), exactly 0 below -126
    and at -inf (masked scores, rows that see no key), NaN for NaN."""
    f = _exp2_fma_on_host()
    x = np.concatenate([np.linspace(-126, 1, 2_000_001, dtype=np.float32),
                        np.float32(-126) + np.float32(2 ** -17) * np.arange(1, 2000, dtype=np.float32),
                        np.arange(-126, 2, dtype=np.float32) + np.float32(0.5)])
    y, ref = f(x).astype(np.float64), np.exp2(x.astype(np.float64))
    assert np.isfinite(y).all() and (y > 0).all()
    normal = x >= -125.5
    assert np.abs(y / ref - 1)[normal].max() < 8e-5
    assert np.abs(y - ref)[~normal].max() < 2.0 ** -126
    with np.errstate(invalid="ignore"):
        z = f(np.array([-126.01, -127, -150, -1e30, -np.inf, np.nan], np.float32))
    assert (z[:5] == 0).all() and not np.signbit(z[:5]).any() and np.isnan(z[5])


def test_tune_only_times_the_candidates_named():
    """--only keeps the named candidates in the list's order (the table's launch first when named), and a name no
    candidate has stops the run with the names it knows, instead of timing nothing."""
    from tools import tune_backward as tb
    cands = tb.WS_CANDIDATES[128]
    names = [tb.candidate_name("ws", c) for c in cands]
    assert tb.pick("ws", cands, []) == cands
    assert tb.pick("ws", cands, [names[3], names[0]]) == [cands[0], cands[3]]
    with pytest.raises(SystemExit, match="no ws candidate named"):
        tb.pick("ws", cands, [names[0], "ws(64, 9, 1, True) tma2"])
    assert tb.pick("fused", tb.FUSED_CANDIDATES[64], ["fused(128, 64, 8, 3, True)"]) == [(128, 64, 8, 3, True)]


def test_tune_rounds_rotate_the_order_and_keep_every_time():
    """tune_backward.time_rounds: each round times every run once, starting one run later each round; a run that
    raises keeps its error and is not timed again while the others go on; --rounds below 1 is a usage error."""
    from tools import tune_backward as tb
    calls = []

    def bench(fn):
        calls.append(fn())
        if calls[-1] == "c" and calls.count("c") == 2:
            raise RuntimeError("out of resources\nmore")
        return float(len(calls))
    got = tb.time_rounds({n: (lambda n=n: n) for n in "abc"}, 3, bench)
    # round 2 starts at b, round 3 at c, which raised in round 2 and is skipped
    assert calls == ["a", "b", "c", "b", "c", "a", "a", "b"]
    assert got == {"a": [1.0, 6.0, 7.0], "b": [2.0, 4.0, 8.0], "c": "RuntimeError: out of resources"}
    assert tb.time_rounds({}, 2, bench) == {}
    with pytest.raises(SystemExit):
        tb.main(["--kind", "ws", "--rounds", "0"])


@pytest.fixture(scope="module")
def query_range():
    return gluon_on_host("_ws_bwd_walk", "query_range")


@pytest.mark.parametrize("n_q,n_k", [(1, 1), (17, 17), (1000, 1000), (1000, 1500), (1500, 1000), (300, 100),
                                     (4093, 17), (64, 256), (130, 129)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("bm", [64, 128])
def test_query_range_covers_every_visible_pair_and_masks_the_rest(query_range, n_q, n_k, causal, bm):
    """Per 128-key block: the blocks below lo see none of its keys, the unmasked ones [full, hi) see all of them
    (so no mask is needed there), and hi covers every row."""
    bn, off = 128, n_k - n_q
    for start_k in range(0, n_k, bn):
        lo, full, hi = query_range(start_k, n_q, n_k, bm, bn, causal)
        assert lo % bm == 0 and full % bm == 0 and lo <= full <= hi == -(-n_q // bm) * bm
        keys = range(start_k, start_k + bn)
        for r in range(n_q):
            sees = [j for j in keys if j < n_k and (not causal or j <= r + off)]
            if r < lo:
                assert not sees, (start_k, r)
            if r >= full:
                assert len(sees) == bn, (start_k, r)


@pytest.mark.parametrize("bm", [64, 128])
def test_table_walk_visits_each_query_block_once(bm):
    """The TABLE launch's walk as plain Python (query_ranges reading the by-key table, the masked loop over both
    edges with _skip, then the full loop with ROTATE): per key block and batch entry, every query block holding a
    visible pair exactly once, the full ones unmasked and every pair in them visible, nothing else."""
    from flashviz_kernels import variants
    ranges, block_start, skip = (gluon_on_host("_ws_bwd_walk", f) for f in ("query_ranges", "block_start", "skip_gap"))

    class _Bool(int):                                   # (start >= gap_at).to(gl.int32) on the host
        def to(self, _):
            return int(self)

    class _Row(int):
        def __ge__(self, other):
            return _Bool(int(self) >= int(other))
    n, h = 1000, 2
    ids = torch.tensor([0] * 130 + [1] + [2] * 400 + [3] * 469)[None].repeat(2, 1)
    ids[1, 700:] = 4
    for kw in (dict(causal=True, window=(200, 0)), dict(window=(150, 60)), dict(seq_ids=ids, causal=True),
               dict(seq_ids=ids), dict(seq_ids=ids, window=(300, 0), causal=True)):
        x = torch.empty((2, h, n, 64))
        var = variants.parse(x, x, **{"causal": False, **kw})
        tiles = variants.tables(var, n, n, "cpu", bm, 128, by_key=True)[1]
        ok = variants.visible_mask(var, n, n, "cpu")[:, 0].expand(2, -1, -1)
        for bh in range(2 * h):
            for pid, start_k in enumerate(range(0, n, 128)):
                lo, full, hi, end = ranges(bh, start_k, n, n, Ptr(tiles), tiles.stride(0) if tiles.shape[0] > 1
                                           else 0, h, bm, 128, False, True)
                n_masked = (full - lo + end - hi) // bm

                def walk(a, b, gap_at, gap, rotate):
                    count = (b - a) // bm
                    out = []
                    r0 = pid % max(count, 1)                # rotation(count) of program pid
                    return [int(skip(_Row(block_start(a, count, it, r0, bm, rotate)), gap_at, gap, True))
                            for it in range(count)]
                masked = walk(lo, lo + n_masked * bm, full, hi - full, False)
                unmasked = walk(full, hi, hi, 0, True)
                assert skip(5 * bm, full, hi - full, False) == 5 * bm          # not TABLE: never moved
                want = [r for r in range(0, n, bm) if ok[bh // h, r:r + bm, start_k:start_k + 128].any()]
                assert sorted(masked + unmasked) == want, (kw, bh, start_k)
                for r in unmasked:
                    assert ok[bh // h, r:r + bm, start_k:start_k + 128].all() and r + bm <= n


COMPILE = """
import json, os, re, subprocess, tempfile, triton
from flashviz_kernels import _env
_env.INTERPRET = False
from flashviz_kernels import ws_bwd
from tools.compile_check import compile_sm90_bwd
bm, _, split, rot, _ = ws_bwd.CONFIGS[{d}]
stages = {stages}
k = compile_sm90_bwd({d}, {causal}, "{dtype}", bm, stages, split, rot, "{mode}",
                     early_dq=ws_bwd.early_dq_on({d}, "{mode}"), stats_acc={acc}, table={table}, gqa={gqa},
                     prefetch={prefetch})
""" + PTXAS + """\
print(json.dumps(dict(wgmma=ptx.count("wgmma.mma_async"), setmaxnreg=re.findall(r"setmaxnreg[.a-z0-9]*\\s+\\d+", ptx),
                      tma=ptx.count("cp.async.bulk.tensor"), shared=k.metadata.shared,
                      atom=ptx.count("atom.global"), red_v2=ptx.count("red.relaxed.gpu.global.add.v2.f32"),
                      tma_add=ptx.count("cp.reduce.async.bulk.tensor"),
                      st_v4=len(re.findall(r"st\\.shared(?:::cta)?\\.v4\\.b32", ptx)),
                      mbar_init=ptx.count("mbarrier.init"),
                      ptxas_spills=[int(x) for x in spill.groups()] if spill else None,
                      warps=k.metadata.num_warps, maxnreg=re.findall(r"\\.maxnreg\\s+(\\d+)", ptx))))
"""
# bytes of spill stores ptxas may report (triton 3.6, lse and delta starting the accumulators): at d=128 "split"
# and "tma" ~0.55 KB, CONFIGS' "tma2" 108-124 B (0.6-0.7 KB while lse and delta were held in
# registers), "tma3" 112-136 B; at d=64 CONFIGS' 128-row blocks 96-176 B, 64-row ones none. A regression past these
# is caught
SPILL_BOUND = 1280
SPILL_BOUND_DEFAULT = 192                 # the mode CONFIGS runs


def _stages(d, mode) -> int:
    """CONFIGS' ring stages at d, or 2 where `mode` does not fit them ("tma3"'s four staging buffers at d = 128)."""
    bm, stages = ws_bwd.CONFIGS[d][:2]
    fits = ws_bwd.smem_bytes(d, bm, stages, dq_mode=mode, prefetch=ws_bwd.prefetch_for(d, mode)) <= ws_bwd.SMEM_BYTES
    return stages if fits else 2


def _compiled(d, causal, dtype, mode, acc=True, table=False, gqa=False, prefetch=None, stages=None) -> dict:
    """The COMPILE script's report for one build, in a child process with TRITON_INTERPRET=0 (prefetch None: what a
    launch in `mode` runs, ws_bwd.prefetch_for: the table's in the TMA modes, 0 in the others; stages None:
    _stages)."""
    if not any(ws.triton_version().startswith(p) for p in ws.VERIFIED_TRITON):
        pytest.skip(f"installed triton {ws.triton_version()} is not the verified {ws.VERIFIED_TRITON}: the Gluon "
                    "kernel is only compiled there (PYTHONPATH with triton 3.6 first runs this test)")
    prefetch = ws_bwd.prefetch_for(d, mode, prefetch)
    return compile_report(COMPILE.format(d=d, causal=causal, dtype=dtype, mode=mode, acc=acc, table=table, gqa=gqa,
                                         prefetch=prefetch, stages=stages or _stages(d, mode)))


# a window's or packed documents' launch (the host's by-key tables, both masked edges in one loop; triton 3.6):
# 148 B at d=128, 248 B at d=64 (the plain launches: 108-124 B / 96-172 B)
SPILL_BOUND_TABLE = 320


@pytest.mark.parametrize("d,dtype", [(64, "fp16"), (128, "bf16")])
def test_ws_backward_with_mask_tables_compiles_for_sm90(d, dtype):
    """The TABLE launch (with GQA's K/V head index too) at CONFIGS' mode: the same MMAs and TMA reduce sites as a
    plain one (one masked loop, one full loop: the two masked edges share a loop), spills within SPILL_BOUND_TABLE."""
    plain, table = _compiled(d, True, dtype, ws_bwd.CONFIGS[d][4]), _compiled(d, True, dtype, ws_bwd.CONFIGS[d][4],
                                                                              table=True, gqa=True)
    assert table["wgmma"] == plain["wgmma"] and table["tma_add"] == plain["tma_add"]
    assert table["ptxas_spills"][0] <= SPILL_BOUND_TABLE and plain["ptxas_spills"][0] <= SPILL_BOUND_DEFAULT


# the least the held build spills per triton (B per thread): 3.9's code generation spills far less there than 3.6-3.8
# did, yet still at least four times the started build (the page's history, told with 3.6's file, stays true)
HELD_SPILL_MIN = {"3.9.": 64}


@pytest.mark.parametrize("causal", [False, True])
def test_row_statistics_in_registers_spill_at_d128(causal):
    """What the Backward page says: holding lse and delta in registers through the softmax makes ptxas spill at
    d = 128 (572-688 B per thread with triton 3.6); starting the accumulators from them leaves a fraction."""
    held = _compiled(128, causal, "fp16", "tma2", acc=False, prefetch=0, stages=2)["ptxas_spills"][0]   # as the
    started = _compiled(128, causal, "fp16", "tma2", acc=True, prefetch=0, stages=2)["ptxas_spills"][0]  # page's file
    least = per_triton(HELD_SPILL_MIN, 512)
    assert held >= least and started * 4 <= held, (held, started)


@pytest.mark.parametrize("mode,d,causal,dtype", [
    *((m, d, c, t) for m in ("split", "tma", "tma2", "tma3")
      for d, c, t in ((64, False, "fp16"), (64, True, "bf16"), (128, False, "bf16"), (128, True, "fp16"))),
    ("rows", 64, False, "fp16"), ("rows", 64, True, "bf16"),            # "rows": block_m 128, so d = 64 only
    ("frag", 128, False, "bf16"), ("frag", 128, True, "fp16"),          # "frag": block_m 64 at d = 128 only
    ("rows-frag", 64, False, "fp16"), ("rows-frag", 64, True, "bf16")])   # "rows-frag": block_m 128 at d = 64
def test_ws_backward_compiles_for_sm90(d, causal, dtype, mode):
    """In a child process with TRITON_INTERPRET=0 (under the interpreter, jit functions cannot be compiled). "split"
    adds each consumer's BM x d/2 piece of dQ by column pairs (v2) and initialises its two dS barriers; "tma" adds
    that piece by TMA reduce-adds only (no per-thread atomics); "frag" stages it with 16-byte stores (the others with
    8-byte ones)."""
    got = _compiled(d, causal, dtype, mode)
    assert got["wgmma"] > 0 and got["tma"] > 0
    assert got["ptxas_spills"] is not None and got["ptxas_spills"][0] <= SPILL_BOUND
    if mode == ws_bwd.CONFIGS[d][4]:
        assert got["ptxas_spills"][0] <= SPILL_BOUND_DEFAULT
    regs = [int(x.split()[-1]) for x in got["setmaxnreg"]]
    creg, preg, maxnreg = ws_bwd.REGS
    assert preg in regs and creg in regs
    assert got["warps"] == 12 and got["maxnreg"] == [str(maxnreg)]
    bm, stages = ws_bwd.CONFIGS[d][0], _stages(d, mode)
    pf = ws_bwd.prefetch_for(d, mode)                  # prefetch 2 adds each stage's lse and delta
    assert ws_bwd.smem_bytes(d, bm, stages, dq_mode=mode, prefetch=pf) <= got["shared"] <= ws_bwd.SMEM_BYTES
    # "split": in each of 2 consumers' 2 query-block loops (masked band, the rest), BM x d / 2 fp32 adds over 128
    # threads, as column pairs
    pairs = 2 * 2 * bm * (d // 2) // 128 // 2
    # "frag": each consumer's 64 x 64 piece as 8 16-byte stores per thread, in both loops of both consumers; "tma2"
    # stores the same piece 8 bytes at a time
    if mode in ws_bwd.FRAG_TILES:
        assert got["st_v4"] >= 2 * 2 * 8
    elif mode == "tma2" and d == 128:
        assert got["st_v4"] == 0
    if mode in ws_bwd.TMA_MODES:                     # one reduce site per consumer partition per loop
        assert got["atom"] == 0 and got["red_v2"] == 0 and got["tma_add"] == 2 * 2
        assert got["mbar_init"] >= 2 * stages + 1 + 2 * (1 if mode == "tma" else 2)   # + ds_ready/ds_free slots
    else:
        assert got["atom"] == 0 and got["red_v2"] == pairs
        assert got["mbar_init"] >= 2 * stages + 3      # ring (ready, empty), K/V, ds_ready, ds_free


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


def _spelled(src: str, call: str) -> list:
    """The int list of the first `call(x, [...])` in src."""
    return [int(v) for v in re.search(re.escape(call) + r"\(\w+, \[([\d, ]+)\]\)", src).group(1).split(",")]


@pytest.mark.parametrize("mode", ["frag", "rows-frag"])
def test_frag_order_is_a_relabelling_the_cast_undoes(mode):
    """"frag" (the d = 128 default): the kernel writes each 64 x 64 dQ piece in _ws_bwd_dq.frag_order's order and the
    cast pass reads it back. ws_bwd.frag_index (the map, numpy) is a permutation of the block's stretch; the kernel's
    reshape / permute, as spelled in its source and run in numpy, puts every element where frag_index says; the
    cast kernel (Triton's interpreter here) recovers a float64 dQ from a buffer filled by frag_index, ragged Nq
    included."""
    import numpy as np
    import triton
    from pathlib import Path

    from flashviz_kernels._ws_bwd_cast import dq_cast_frag
    bm, d = ws_bwd.FRAG_TILES[mode]
    rows = mode == "rows-frag"                           # consumer c's piece: half the rows, all columns
    idx = ws_bwd.frag_index(bm, d, rows=rows)
    assert idx.shape == (bm, d) and sorted(idx.ravel().tolist()) == list(range(bm * d))
    src = (Path(ws_bwd.__file__).parent / "_ws_bwd_dq.py").read_text()
    body = src[src.index("def frag_order"):]
    split, perm = _spelled(body, "gl.reshape"), _spelled(body, "gl.permute")
    block = np.random.default_rng(0).standard_normal((bm, d))
    for cid in (0, 1):                                   # each consumer's 64 x 64 piece, laid out as the kernel does
        part = np.s_[cid * 64:(cid + 1) * 64, :] if rows else np.s_[:, cid * 64:(cid + 1) * 64]
        flat = block[part].reshape(split).transpose(perm).reshape(-1)
        assert np.array_equal(flat[idx[part] - cid * bm * d // 2], block[part])
    b, h, n_q = 2, 3, 150                                # ragged: the last block ends inside it
    tq = triton.cdiv(n_q, bm)
    want = torch.randn(b * h, tq * bm, d, dtype=torch.float64)
    acc = torch.empty(b * h, tq * bm * d, dtype=torch.float32)
    flat_idx = torch.from_numpy(idx).reshape(-1)
    for blk in range(tq):
        acc[:, blk * bm * d + flat_idx] = want[:, blk * bm:(blk + 1) * bm].reshape(b * h, -1).float()
    out = torch.full((b, h, n_q, d), float("nan"), dtype=torch.float16)
    dq_cast_frag[(b * h * tq * 2,)](acc, out, n_q, tq, 0.5, BM=bm, D=d, ROWS=rows)
    ref = 0.5 * want[:, :n_q].reshape(b, h, n_q, d)
    assert torch.isfinite(out).all()
    assert (out.double() - ref).abs().max().item() <= 2 ** -10 * ref.abs().max().item()


MASK_LOOPS = """import json
from tools import sass_loops as s
out = {{}}
for mask in ("where", "asm"):
    out[mask] = s.shortest(s.ours("bwd", {d}, {causal}, mask))
print(json.dumps(out))
"""


@pytest.mark.parametrize("d", [64, 128])
def test_asm_mask_shortens_the_causal_masked_loop(d):
    """Why mask_mode "asm" exists (ws_bwd.MASK_MODES), checked on the installed triton's sm_90 build of the table's
    causal launch: each consumer's masked loop issues fewer instructions a block with "asm" than with gl.where,
    and its unmasked loop the same number (give or take ptxas's scheduling)."""
    needs_verified_triton()
    got = compile_report(MASK_LOOPS.format(d=d, causal=True))
    where, asm = got["where"], got["asm"]
    assert len(where) == len(asm) == 4, got           # per consumer: the masked loop, then the unmasked one
    for c in (0, 2):
        assert asm[c] < where[c], got
        assert abs(asm[c + 1] - where[c + 1]) <= 8, got
