"""AppTest of app.py on the pages "Blocks and memory traffic" and "Flash-decoding and paging": what a student
clicks and what the pages show, checked against the engines (flashviz.tiling / traffic / decoding)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import app_util
from app_util import array, clean

from flashviz.decoding import build_paged_cache
from flashviz.i18n import t
from flashviz.online_softmax import online_softmax_trace
from flashviz.tiling import GRID_CURRENT, Schedule, make_config
from flashviz.traffic import standard_counts
from flashviz.ui.config import Config, inputs, row_problem
from flashviz.ui.pages import switch
from flashviz.units import fmt_bytes

APP = str(Path(__file__).resolve().parents[1] / "app.py")
BLOCKS, DECODING, STEPPER = "blocks", "decoding", "stepper"
W = "_w.cfg."                                             # widget keys of the shared configuration


def open_page(page: str = BLOCKS, **values) -> AppTest:
    return app_util.open_page(page, **values)


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def on_chip(at: AppTest) -> tuple[int, int]:
    """(i, j) of the block the grid chart marks as on chip."""
    z = array(charts(at)[0]["data"][0]["z"])
    [(i, j)] = zip(*np.nonzero(z == GRID_CURRENT))
    return int(i), int(j)


def config(at: AppTest) -> Config:
    return Config(**{f: at.session_state[f"cfg.{f}"] for f in Config.__dataclass_fields__})


def row_trace(at: AppTest):
    """The one-row engine on the configured row with the grid's Bc, as the pitfall section runs it."""
    c = config(at)
    s, v = row_problem(c)
    return online_softmax_trace(s, v, c.block_n, guard=c.guard)


def schedule(at: AppTest, order: str) -> Schedule:
    ss = at.session_state
    return Schedule(make_config(ss["cfg.n"], ss["cfg.d"], br=ss["cfg.block_m"], bc=ss["cfg.block_n"],
                                causal=ss["cfg.causal"]), order)


# ----------------------------------------------------------------------------- the blocks page

def test_renders_with_defaults():
    at = open_page()
    clean(at)
    assert at.title[0].value == "Blocks and memory traffic"
    assert len(at.get("plotly_chart")) == 4                          # grid, traffic per tensor, vs M, vs N
    assert any("Tr = 4 Q blocks × Tc = 4 K/V blocks → 16 steps" in m.value for m in at.markdown)
    assert any("**512 programs**" in m.value for m in at.markdown)   # Tr x B x H = 4 x 4 x 32
    cfg = json.loads(at.get("plotly_chart")[0].proto.config)["toImageButtonOptions"]
    assert cfg["filename"] == "flashviz_grid_N16_d4_Br4_Bc4_fp32_fa1_step1"


@pytest.mark.parametrize("order", ["fa1", "fa2"])
def test_stepping_moves_the_block_and_the_counters(order):
    at = open_page(n=16, block_m=4, block_n=3, causal=True, **{"blocks.order": order})
    sch = schedule(at, order)
    std, std_bytes = standard_counts(16, 4).total, standard_counts(16, 4).total_bytes
    for step, button in [(0, None), (1, "next"), (2, "next"), (1, "prev"), (sch.steps - 1, "last")]:
        if button:
            at.button(key=f"blocks.{button}").click().run()
        clean(at)
        s = sch.step(step)
        assert at.slider(key="_w.blocks.slider").value == step + 1     # the scrub slider counts from 1
        assert on_chip(at) == (s.i, s.j)
        shown = metrics(at)
        assert shown["HBM accesses so far"] == f"{sch.cumulative(step).total:,}"
        assert shown["FlashAttention, whole run"] == f"{sch.totals().total:,}"
        assert shown["Standard attention"] == f"{std:,}"
        assert t("blocks.ctr_bytes", "en", sofar=fmt_bytes(sch.cumulative(step).total_bytes), eb=4,
                 total=fmt_bytes(sch.totals().total_bytes), std=fmt_bytes(std_bytes)) in [c.value for c in at.caption]
        assert any(f"**Step {step + 1} of {sch.steps}**" in m.value for m in at.markdown)


def test_loop_order_switch_changes_the_steps_and_the_traffic():
    at = open_page(n=16, block_m=4, block_n=4)
    assert at.session_state["blocks.n_steps"] == 16                   # Tr x Tc
    fa1 = metrics(at)["FlashAttention, whole run"]
    at.radio(key="_w.blocks.order").set_value("fa2").run()
    clean(at)
    assert at.session_state["blocks.n_steps"] == 16
    fa2 = metrics(at)["FlashAttention, whole run"]
    assert fa1 == f"{schedule(at, 'fa1').totals().total:,}" and fa2 == f"{schedule(at, 'fa2').totals().total:,}"
    assert fa1 != fa2
    at.toggle(key=W + "causal").set_value(True).run()                  # causal: blocks above the diagonal skipped
    clean(at)
    assert at.session_state["blocks.n_steps"] == 10 == schedule(at, "fa2").steps


def test_blocks_from_m_and_pin_them():
    at = open_page(n=4096, d=64, **{"blocks.mode": "sram", "blocks.gpu": "H100"})
    clean(at)
    # H100: 228 KiB = 58,368 fp32 elements -> Bc = ceil(58368 / 256) = 228, Br = min(228, 64) = 64
    assert any("Br = 64, Bc = 228 (from M = 228 KiB) → Tr = 64 Q blocks × Tc = 18 K/V blocks" in m.value
               for m in at.markdown)
    at.button(key="blocks.pin").click().run()
    clean(at)
    assert (at.session_state["cfg.block_m"], at.session_state["cfg.block_n"]) == (64, 228)
    assert at.session_state["blocks.mode"] == "pinned"


def test_the_seed_example_is_shown_and_loads():
    at = open_page()
    table = at.dataframe[-1].value.to_string()
    for text in ("1,114,112 (≈ 1.1e6)", "167,772 (≈ 1.7e5)", "6.6×", "4,456,448", "2,406,400", "2,229,248",
                 "1.9× (FA1) · 2.0× (FA2)", "14.3", "13.3"):
        assert text in table, text
    at.button(key="blocks.seed_load").click().run()
    clean(at)
    assert any("Br = 64, Bc = 100 (from M = 100 KiB) → Tr = 16 Q blocks × Tc = 11 K/V blocks" in m.value
               for m in at.markdown)
    assert metrics(at)["Standard attention"] == "4,456,448"
    at.button(key="blocks.last").click().run()
    assert metrics(at)["FlashAttention, whole run"] == "2,406,400"      # Algorithm 1, exact


def test_causal_nan_preset_guard_off_then_on():
    at = open_page(n=64, block_m=16, block_n=16)
    at.button(key="blocks.pitfall").click().run()
    assert not at.exception
    ss = at.session_state
    assert (ss["cfg.causal"], ss["cfg.guard"], ss["cfg.masked"], ss["cfg.row"]) == (True, False, "0-3", 9)
    assert on_chip(at) == (2, 0)                                         # the row's fully masked block
    assert len(at.error) == 1 and "exp(−∞ − (−∞)) = NaN" in at.error[0].value
    table = at.dataframe[0].value
    assert table.iloc[0]["m"] == "−∞" and table.iloc[0]["ℓ"] == "NaN" and (table["ℓ"] == "NaN").all()
    assert np.isnan(row_trace(at).error(-1))
    at.button(key="blocks.guard").click().run()                         # the guard repairs it
    clean(at)
    table = at.dataframe[0].value
    assert table.iloc[0]["ℓ"] == "0.0000" and not (table == "NaN").any().any()
    err = row_trace(at).error(-1)
    assert err < 1e-12 and [s.value for s in at.success if "Guard on" in s.value] == [
        t("blocks.pit_saved", "en", err=f"{err:.1e}")]


BAD = [
    ({"blocks.mode": "sram", "blocks.gpu": "custom", "blocks.sram_kib": 2, "d": 256},
     "SRAM of M = 512 elements is too small for d = 256"),
    ({"blocks.gpu": "custom", "blocks.sram_kib": 0}, "SRAM size M (KiB) must be at least 1"),
    ({"block_m": 17}, "block size Br must be in 1..16"),
    ({"block_n": 0}, "block size Bc must be in 1..16"),
    ({"blocks.batch": 0}, "batch B must be at least 1"),
    ({"n": 20000}, "N must be between 1 and 16384"),
]


@pytest.mark.parametrize("values, message", BAD, ids=[m.split(" must")[0][:30] for _, m in BAD])
def test_bad_input_shows_the_engine_message_and_the_page_keeps_working(values, message):
    at = open_page(**values)
    assert not at.exception
    assert len(at.error) == 1 and message in at.error[0].value
    assert "1,114,112" in at.dataframe[-1].value.to_string()         # the worked example still shows
    for k in values:                                                  # put the defaults back
        at.session_state[k if "." in k else f"cfg.{k}"] = {"blocks.mode": "pinned", "blocks.gpu": "A100",
                                                          "blocks.sram_kib": 100, "d": 4, "block_m": 4,
                                                          "block_n": 4, "blocks.batch": 4, "n": 16}[k]
    at.run()
    clean(at)
    assert len(at.get("plotly_chart")) == 4


def test_a_grid_too_big_to_draw_keeps_the_counters():
    at = open_page(n=16384, d=64, block_m=16, block_n=16)
    clean(at)
    assert any("1024 × 1024" in i.value for i in at.info)
    assert metrics(at)["HBM accesses so far"] == f"{schedule(at, 'fa1').cumulative(0).total:,}"


def test_chinese():
    at = open_page(lang="zh")
    clean(at)
    assert at.title[0].value == "分块与访存流量"
    assert "HBM" in at.metric[0].label and at.button(key="blocks.next").label == "下一步"


# ----------------------------------------------------------------------------- shared configuration across pages

def test_shared_config_carries_across_pages():
    at = AppTest.from_file(APP, default_timeout=30).run()               # the stepper
    at.number_input(key=W + "n").set_value(32).run()
    at.number_input(key=W + "block_n").set_value(8).run()
    switch(at, BLOCKS).run()
    clean(at)
    assert at.number_input(key=W + "n").value == 32 and at.number_input(key=W + "block_n").value == 8
    assert any("N = 32" in m.value and "Bc = 8" in m.value for m in at.markdown)
    at.number_input(key=W + "block_n").set_value(16).run()             # change it here ...
    at.radio(key="_w.blocks.order").set_value("fa2").run()
    switch(at, STEPPER).run()
    clean(at)
    assert at.number_input(key=W + "block_n").value == 16               # ... the stepper follows
    assert at.session_state["stepper.n_steps"] == 2
    switch(at, BLOCKS).run()
    clean(at)
    assert at.radio(key="_w.blocks.order").value == "fa2"              # this page's own choice survived


# ----------------------------------------------------------------------------- flash-decoding and paging

def test_flash_decoding_merge_equals_single_pass():
    at = open_page(DECODING)
    clean(at)
    assert at.title[0].value == "Flash-decoding and paging"
    shown = metrics(at)
    assert shown["Workers"] == "4" and float(shown["Merged vs single pass"]) < 1e-12
    assert float(shown["Merged vs exact"]) < 1e-12
    assert any("Merged == single pass" in s.value for s in at.success)
    at.slider(key="_w.decoding.workers").set_value(7).run()
    clean(at)
    assert metrics(at)["Workers"] == "7" and float(metrics(at)["Merged vs single pass"]) < 1e-12
    assert len(at.dataframe[0].value) == 7                             # one row per worker
    at.slider(key="_w.decoding.workers").set_value(20).run()           # W > N = 16
    assert not at.exception
    assert len(at.error) == 1 and "number of workers W must be in 1..16" in at.error[0].value
    assert any("Paged == contiguous" in s.value for s in at.success)   # the paged section still works


def test_paged_equals_contiguous_and_the_table_is_a_shuffle():
    at = open_page(DECODING, **{"decoding.bs": 3, "decoding.free": 2})
    clean(at)
    assert float(metrics(at)["Paged vs contiguous"]) < 1e-12
    _, k, v = inputs(config(at))
    table = build_paged_cache(k, v, 3, seed=at.number_input(key="_w.decoding.pseed").value, num_physical=8).block_table
    assert len(table) == 6 and len(set(table)) == 6 and max(table) < 8                  # ceil(16/3) of 8 slots
    assert at.dataframe[-1].value.iloc[:, 1].tolist() == table.tolist()                 # the table shown
    at.button(key="decoding.paged.next").click().run()
    assert any(f"block_table[1] = {table[1]}" in m.value for m in at.markdown)
    at.number_input(key="_w.decoding.bs").set_value(0).run()
    assert not at.exception and "block size must be at least 1" in at.error[0].value
