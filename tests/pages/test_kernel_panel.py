"""The stepper's panel "The kernel's own numbers": the Triton teaching kernel (interpreter mode on CPU) laid over
the simulator, the launch of one row's program equal to a full launch, and the cases it explains instead of running."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from helpers.app import kernel_panel_view, run_app

import flashviz_kernels as fk
from flashviz_kernels.rules import is_gpu_tile, nearest_gpu_tile
from flashviz.charts.common import fmt_num
from flashviz.engine.online_softmax import online_softmax_trace
from flashviz.ui import kernel_panel as kp
from flashviz.ui.config import Config, inputs, row_problem

APP = str(Path(__file__).resolve().parents[2] / "app.py")
W = "_w.cfg."
INTERP = pytest.mark.skipif(not fk.INTERPRET, reason="interpreter-mode cases (a GPU needs tiles >= 16)")


def engine(cfg: Config):
    s, v = row_problem(cfg)
    return online_softmax_trace(s, v, cfg.tile, guard=cfg.guard)


def run_panel(**cfg) -> tuple[AppTest, dict]:
    at = run_app(**cfg)
    at.button(key="kernel.run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at, kernel_panel_view(at)


def panel_metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@INTERP
def test_small_fp32_case_agrees_and_shows_the_engine_values():
    """The lesson's example: N = 16, tile 4, fp32: max difference < 1e-5, the simulator's numbers unchanged."""
    at, view = run_panel()
    cfg = Config()
    assert (cfg.n, cfg.block_n, cfg.dtype) == (16, 4, "float32")
    assert view["max_diff"] < 1e-5 and view["ran"] == [True] * 4
    shown = panel_metrics(at)
    assert float(shown["Max difference"]) < 1e-5 and shown["Tolerance (fp32)"] == "1e-05"
    assert shown["Tiles compared"] == "4 / 4"
    assert any("agree" in s.value for s in at.success)
    tr = engine(cfg)
    df = at.dataframe[-1].value
    for sym, arr in (("m", tr.m), ("ℓ", tr.l), ("α", tr.alpha)):
        assert list(df[f"{sym} simulator"]) == [fmt_num(float(x), 7) for x in arr]      # the engine's values
        np.testing.assert_allclose(df[f"{sym} kernel"].astype(float), arr, atol=1e-5, rtol=1e-5)
    for f, arr in (("m", tr.m), ("l", tr.l), ("alpha", tr.alpha)):
        np.testing.assert_allclose(view["kernel"][f], arr, atol=1e-5, rtol=1e-5)
    assert len(at.get("plotly_chart")) == 1                                # the overlay (the stepper draws its
    assert len(at.get("bidi_component")) == 3                              # charts in the browser: 3 parts)


@INTERP
def test_larger_interpreter_case_with_causal_skipped_tiles():
    at, view = run_panel(n=256, d=64, block_m=32, block_n=16, causal=True, row=200, seed=3)
    assert view["max_diff"] < 1e-5
    assert sum(view["ran"]) == 14 and not any(view["ran"][14:])           # keys past row 223 never loaded
    assert any("Tiles 15–16 lie entirely after key 223" in c.value for c in at.caption)


@INTERP
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precisions_agree_within_their_tolerance(dtype):
    _, view = run_panel(n=64, d=16, block_m=8, block_n=8, dtype=dtype, row=40)
    assert view["max_diff"] < view["tol"] == 1e-4


@INTERP
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n, br, bc, row", [(16, 4, 4, 15), (50, 8, 5, 17), (48, 16, 7, 0)])
def test_one_program_equals_the_full_launch(n, br, bc, row, causal):
    """Launching only the row's query block gives that row exactly what a launch over all N rows gives it."""
    cfg = Config(n=n, d=8, block_m=br, block_n=bc, causal=causal, row=row, seed=7)
    blk = kp.run_block(cfg)
    q, k, v = (torch.from_numpy(a).float().reshape(1, 1, n, 8) for a in inputs(cfg))
    _, full = fk.attention_trace(q, k, v, causal=causal, block_m=br, block_n=bc)
    for f, x in zip(kp.FIELDS, full):
        np.testing.assert_array_equal(blk[f][row - blk["lo"]], x[0, 0, row].double().numpy())
    assert blk[kp.FIELDS[0]].shape == (min(n, (row // br + 1) * br) - row // br * br, math.ceil(n / bc))


def test_long_sequence_on_cpu_asks_for_a_gpu():
    if kp.kernel_mode() != "interpreter":
        pytest.skip("CPU-only explanation")
    at = run_app(n=512, row=511)
    assert not at.exception
    assert any("too long for Triton's interpreter" in i.value and "CUDA GPU" in i.value for i in at.info)
    assert not [b for b in at.button if b.key == "kernel.run"]


@pytest.mark.parametrize("field, value, words", [("scores", "1, 2, 3, 4", "typed by hand"),
                                                 ("masked", "0-3", "causal one")])
def test_what_the_kernel_cannot_express_is_explained(field, value, words):
    at = run_app(**{field: value})
    assert not at.exception
    assert any(words in i.value for i in at.info)
    assert not [b for b in at.button if b.key == "kernel.run"]


def test_on_a_gpu_tiles_must_be_powers_of_two(monkeypatch):
    monkeypatch.setattr(kp, "kernel_mode", lambda: "gpu")
    at = run_app()                                                      # Br = Bc = 4
    assert not at.exception
    assert any("powers of two from 16 to 256" in i.value for i in at.info)
    at.button(key="kernel.use_tiles").click().run()
    assert (at.session_state["cfg.block_m"], at.session_state["cfg.block_n"]) == (16, 16)
    assert any(c.value.startswith("The compiled Triton kernel") for c in at.caption)


@INTERP
def test_runs_only_when_asked_and_caches_per_configuration():
    at = run_app()
    assert kernel_panel_view(at) is None
    assert any("Press “Run the kernel”" in c.value for c in at.caption)
    at.button(key="kernel.run").click().run()
    assert kernel_panel_view(at) is not None
    at.number_input(key=W + "seed").set_value(5).run()                 # another configuration: not run
    assert kernel_panel_view(at) is None
    at.number_input(key=W + "seed").set_value(12).run()                # back: shown again from the cache
    assert kernel_panel_view(at) is not None
    at.checkbox(key="_w.kernel.auto").check().run()                     # every change
    at.number_input(key=W + "seed").set_value(6).run()
    assert kernel_panel_view(at)["max_diff"] < 1e-5


def test_a_kernel_error_is_a_readable_message(monkeypatch):
    def boom(*args):
        raise fk.KernelResourceError("Triton ran out of on-chip resources for {'block_m': 256}: shared memory",
                                     {"block_m": 256})
    monkeypatch.setattr(kp, "cached_block", boom)
    monkeypatch.setattr(kp, "RUNS", kp.RunQueue(lambda *key: kp.cached_block(*key)))   # nothing kept from before
    monkeypatch.setattr(kp, "kernel_mode", lambda: "interpreter")
    at = run_app()
    at.button(key="kernel.run").click().run()
    assert not at.exception
    assert len(at.error) == 1 and "KernelResourceError" in at.error[0].value
    assert "on-chip resources" in at.error[0].value
    assert len(at.get("bidi_component")) == 3                            # the stepper itself is intact


@INTERP
def test_br_is_set_on_the_panel_and_does_not_change_the_rows_numbers():
    """Br picks the program that computes the row (and how many rows share its loads), not the row's recurrence."""
    at, view4 = run_panel()
    assert any("row 15 is computed by program 3 (rows 12–15)" in c.value for c in at.caption)
    at.number_input(key="_w.kernel.br").set_value(8).run()
    assert at.session_state["cfg.block_m"] == 8
    at.button(key="kernel.run").click().run()
    view8 = kernel_panel_view(at)
    assert any("row 15 is computed by program 1 (rows 8–15)" in c.value for c in at.caption)
    tr = engine(Config())
    for f, arr in (("m", tr.m), ("l", tr.l), ("alpha", tr.alpha)):
        np.testing.assert_allclose(view8["kernel"][f], arr, atol=1e-5, rtol=1e-5)
        np.testing.assert_allclose(view8["kernel"][f], view4["kernel"][f], atol=1e-5, rtol=1e-5)


def test_chinese_panel():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["lang"] = "zh"
    at.run()
    assert not at.exception
    assert any(s.value == "kernel 自己算出的数" for s in at.subheader)
    assert at.button(key="kernel.run").label == "运行 kernel"


def test_nearest_gpu_tile():
    assert [nearest_gpu_tile(x) for x in (1, 4, 16, 24, 48, 100, 1000)] == [16, 16, 16, 32, 64, 128, 256]
    assert all(is_gpu_tile(nearest_gpu_tile(x)) for x in range(1, 1000))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("causal", [False, True])
def test_one_program_equals_the_full_launch_compiled(causal, dtype):
    """On a GPU: the panel's one-program launch (tiles 32 x 16) gives the row what a full launch gives it, and
    agrees with the simulator within the panel's tolerance."""
    n, br, bc, row = 1000, 32, 16, 700
    cfg = Config(n=n, d=64, block_m=br, block_n=bc, causal=causal, row=row, seed=4, dtype=dtype)
    blk = kp.run_block(cfg)
    dt = getattr(torch, dtype)
    q, k, v = (torch.from_numpy(a).to(dt).reshape(1, 1, n, 64).cuda() for a in inputs(cfg))
    _, full = fk.attention_trace(q, k, v, causal=causal, block_m=br, block_n=bc)
    for f, x in zip(kp.FIELDS, full):
        np.testing.assert_allclose(blk[f][row - blk["lo"]], x[0, 0, row].double().cpu().numpy(), rtol=1e-6,
                                   atol=1e-6)
    assert kp.compare(engine(cfg), blk, row).max_diff < kp.TOLERANCE[dtype]
