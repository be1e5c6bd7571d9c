"""AppTest of app.py on the pages "Blocks and memory traffic" and "Flash-decoding and paging": what a student
clicks and what the pages show, checked against the engines (flashviz.engine.tiling / traffic / decoding)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from helpers import app as app_util
from helpers.app import chart_specs as charts, array, clean

from flashviz.engine.decoding import build_paged_cache
from flashviz.i18n import t
from flashviz.engine.online_softmax import online_softmax_trace
from flashviz.engine.tiling import GPU_PRESETS, GRID_CURRENT, Schedule, make_config, preset_sram_bytes
from flashviz.engine.traffic import PAPER_FIG2, ratio_limits, seed_example, standard_counts, sweep_n
from flashviz.ui.config import Config, inputs, row_problem
from flashviz.ui.pages import switch
from flashviz.infra.units import fmt_bytes

APP = str(Path(__file__).resolve().parents[2] / "app.py")
BLOCKS, DECODING, STEPPER = "blocks", "decoding", "stepper"
W = "_w.cfg."                                             # widget keys of the shared configuration


# The small grid these tests walk by hand (the page itself opens on a realistic recorded size: test_opens_...).
SMALL = dict(n=16, d=4, block_m=4, block_n=4, dtype="float32", **{"blocks.gpu": "A100", "blocks.order": "fa1"})
TOTAL, STD = t("blocks.ctr_total", "en"), t("blocks.ctr_standard", "en")


def open_page(page: str = BLOCKS, **values) -> AppTest:
    if page == BLOCKS:
        values = {**SMALL, **values}
    return app_util.open_page(page, **values)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def on_chip(at: AppTest) -> tuple[int, int]:
    """(i, j) of the block the grid chart marks as on chip."""
    z = array(charts(at)[0]["data"][0]["z"])
    [(i, j)] = zip(*np.nonzero(z == GRID_CURRENT))
    return int(i), int(j)


def config(at: AppTest, page: str = BLOCKS) -> Config:
    return app_util.page_config(at, page)


def row_trace(at: AppTest):
    """The one-row engine on the configured row with the grid's Bc, as the pitfall section runs it."""
    c = config(at)
    s, v = row_problem(c)
    return online_softmax_trace(s, v, c.block_n, guard=c.guard)


def schedule(at: AppTest, order: str) -> Schedule:
    c = config(at)
    return Schedule(make_config(c.n, c.d, br=c.block_m, bc=c.block_n, causal=c.causal), order)


# ----------------------------------------------------------------------------- the blocks page

def test_renders_with_defaults():
    at = open_page()
    clean(at)
    assert at.title[0].value == "Blocks and memory traffic"
    assert len(at.get("plotly_chart")) == 9    # grid, per tensor, vs M, vs N, ratio vs N and M; fusion, alignment, sizes
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
        assert shown[TOTAL] == f"{sch.totals().total:,}"
        assert shown[STD] == f"{std:,}"
        assert t("blocks.ctr_bytes", "en", sofar=fmt_bytes(sch.cumulative(step).total_bytes), eb=4,
                 total=fmt_bytes(sch.totals().total_bytes), std=fmt_bytes(std_bytes)) in [c.value for c in at.caption]
        assert any(f"**Step {step + 1} of {sch.steps}**" in m.value for m in at.markdown)


def test_loop_order_switch_changes_the_steps_and_the_traffic():
    at = open_page(n=16, block_m=4, block_n=4)
    assert at.session_state["blocks.n_steps"] == 16                   # Tr x Tc
    fa1 = metrics(at)[TOTAL]
    at.radio(key="_w.blocks.order").set_value("fa2").run()
    clean(at)
    assert at.session_state["blocks.n_steps"] == 16
    fa2 = metrics(at)[TOTAL]
    assert fa1 == f"{schedule(at, 'fa1').totals().total:,}" and fa2 == f"{schedule(at, 'fa2').totals().total:,}"
    assert fa1 != fa2
    at.toggle(key=W + "causal").set_value(True).run()                  # causal: blocks above the diagonal skipped
    clean(at)
    assert at.session_state["blocks.n_steps"] == 10 == schedule(at, "fa2").steps


def test_blocks_from_m_and_pin_them():
    at = open_page(n=4096, d=64, **{"blocks.mode": "sram", "blocks.gpu": "H100"})
    clean(at)
    # H100: M = 227 KiB per thread block = 58,112 fp32 elements -> Bc = ceil(58112 / 256) = 227, Br = min(227, 64)
    assert any("Br = 64, Bc = 227 (from M = 227 KiB) → Tr = 64 Q blocks × Tc = 19 K/V blocks" in m.value
               for m in at.markdown)
    at.button(key="blocks.pin").click().run()
    clean(at)
    assert (config(at).block_m, config(at).block_n) == (64, 227)
    assert at.session_state["blocks.mode"] == "pinned"


def test_the_fa2_order_from_m_uses_the_kernel_tiles():
    at = open_page(n=4096, d=64, **{"blocks.mode": "sram", "blocks.gpu": "H100", "blocks.order": "fa2"})
    clean(at)
    assert any("Br = 128, Bc = 64 (the FA2 kernel's own tiles, not derived from M) → Tr = 32 Q blocks" in m.value
               for m in at.markdown)
    want = Schedule(make_config(4096, 64, br=128, bc=64), "fa2").totals().total
    at.button(key="blocks.last").click().run()
    assert metrics(at)[TOTAL] == f"{want:,}"
    assert any("L2 cache" in c.value and "upper bound" in c.value for c in at.caption)   # the caveat by the chart


def test_the_seed_example_is_shown_and_loads():
    at = open_page()
    e = seed_example()
    r1, r2 = e["standard"] / e["fa1"], e["standard"] / e["fa2"]
    table = at.dataframe[-1].value.to_string()
    for text in ("1,114,112 (≈ 1.1e6)", "167,772 (≈ 1.7e5)", "6.6×", f"{e['standard']:,}", f"{e['fa1']:,}",
                 f"{e['fa2']:,}", f"{r1:.2f}× (FA1) · {r2:.2f}× (FA2)", f"{e['fa1'] / e['theta_flash']:.1f}",
                 f"{e['fa2'] / e['theta_flash']:.1f}"):
        assert text in table, text
    assert f"{r1:.2f}" == "1.85"                                          # independent: 4,456,448 / 2,406,400
    explain = next(m.value for m in at.markdown if "Put into Theorem 2" in m.value)
    lim = ratio_limits(64, sram_elems=25_600)
    for text in (f"{r1:.2f}× (FA1)", f"levels off at {lim['fa1']:.2f}× (FA1) and {lim['fa2']:.2f}× (FA2)",
                 "M/d² = 6.25×", "Tc = ⌈N/Bc⌉ = 11 (not 4Nd/M = 10.24)", "Tr = 8 times (Br = 128)"):
        assert text in explain, text
    assert "grows with M" in explain and "not without end in N" in explain
    paper = next(c.value for c in at.caption if "Figure 2" in c.value)
    assert f"{PAPER_FIG2['standard_gb']} GB against {PAPER_FIG2['flash_gb']} GB" in paper and "(9.2× fewer)" in paper
    assert "paper's worked example" not in " ".join(s.value for s in at.subheader)   # it is ours, not the paper's
    at.button(key="blocks.seed_load").click().run()
    clean(at)
    assert any("Br = 64, Bc = 100 (from M = 100 KiB) → Tr = 16 Q blocks × Tc = 11 K/V blocks" in m.value
               for m in at.markdown)
    assert metrics(at)[STD] == "4,456,448"
    at.button(key="blocks.last").click().run()
    assert metrics(at)[TOTAL] == "2,406,400"      # Algorithm 1, exact


def test_causal_nan_preset_guard_off_then_on():
    at = open_page(n=64, block_m=16, block_n=16)
    at.button(key="blocks.pitfall").click().run()
    assert not at.exception
    c = config(at)
    assert (c.causal, c.guard, c.masked, c.row) == (True, False, "0-3", 9)
    assert on_chip(at) == (2, 0)                                         # the row's fully masked block
    assert len(at.error) == 1 and "exp(−∞ − (−∞)) = NaN" in at.error[0].value
    table = next(df.value for df in at.dataframe if "ℓ" in df.value.columns)     # the recurrence table
    assert table.iloc[0]["m"] == "−∞" and table.iloc[0]["ℓ"] == "NaN" and (table["ℓ"] == "NaN").all()
    assert np.isnan(row_trace(at).error(-1))
    at.button(key="blocks.guard").click().run()                         # the guard repairs it
    clean(at)
    table = next(df.value for df in at.dataframe if "ℓ" in df.value.columns)     # the recurrence table
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
    ({"blocks.batch": 0}, "batch B must be in 1..65536"),
    ({"blocks.heads": 2**53 - 1}, "heads H must be in 1..65536"),
    ({"n": 20000}, "N must be between 1 and 16384"),
]


@pytest.mark.parametrize("values, message", BAD, ids=[m.split(" must")[0][:30] for _, m in BAD])
def test_bad_input_shows_the_engine_message_and_the_page_keeps_working(values, message):
    at = open_page(**values)
    assert not at.exception
    assert len(at.error) == 1 and message in at.error[0].value
    assert "1,114,112" in at.dataframe[-1].value.to_string()         # the worked example still shows
    for k in values:                                                  # put the defaults back
        at.session_state[k if "." in k else app_util.cfg_key(BLOCKS, k)] = {
            "blocks.mode": "pinned", "blocks.gpu": "A100", "blocks.sram_kib": 100, "d": 4, "block_m": 4,
            "block_n": 4, "blocks.batch": 4, "blocks.heads": 32, "n": 16}[k]
    at.session_state[app_util.cfg_key(BLOCKS, "row")] = 15
    at.run()
    clean(at)
    assert len(at.get("plotly_chart")) == 9


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


# ----------------------------------------------------------------------------- how much it saves, what fits on chip

def test_the_ratio_levels_off_with_n_and_the_page_says_so():
    at = open_page(n=1024, d=64, dtype="float32", **{"blocks.mode": "sram", "blocks.gpu": "custom",
                                                     "blocks.sram_kib": 100})
    clean(at)
    view, lim = at.session_state["blocks.ratio_view"], ratio_limits(64, sram_elems=25_600)
    assert view["r1"] == pytest.approx(4_456_448 / 2_406_400) and view["l1"] == lim["fa1"] and view["l2"] == 4.0
    fig = next(c for c in charts(at) if "vs sequence length N" in c["layout"]["title"]["text"]
               and "÷" in c["layout"]["title"]["text"])
    fa1 = next(tr for tr in fig["data"] if tr["name"].startswith("standard ÷ FlashAttention, Algorithm 1"))
    x, y = array(fa1["x"]), array(fa1["y"])
    sw = sweep_n(list(x), 64, sram_bytes=102_400)
    np.testing.assert_allclose(y, sw.ratio("fa1"))                          # the chart is the engine's
    assert x[-1] == 1 << 20 and abs(y[-1] - lim["fa1"]) < 0.01 * lim["fa1"] and y.max() <= lim["fa1"] * 1.0001
    dashed = sorted(round(s["y0"], 6) for s in fig["layout"]["shapes"] if s.get("line", {}).get("dash") == "dash")
    assert dashed == sorted(round(v, 6) for v in (lim["fa1"], lim["fa2"], lim["theta"]))
    text = " ".join(c.value for c in at.caption)
    assert "does **not** keep growing with N" in text and f"4·Bc/(3d + 4) = {lim['fa1']:.2f}×" in text
    assert "d ≤ M ≤ N·d" in text
    m_fig = next(c for c in charts(at) if "vs SRAM size M" in c["layout"]["title"]["text"])
    rect = m_fig["layout"]["shapes"][0]
    assert rect["type"] == "rect" and (rect["x0"], rect["x1"]) == (64 * 4 / 1024, 1024 * 64 * 4 / 1024)


@pytest.mark.parametrize("values", [
    dict(n=1024, d=64, dtype="float32", **{"blocks.gpu": "custom", "blocks.sram_kib": 100}),   # the worked example
    *[dict(n=8192, d=128, dtype="float16", **{"blocks.gpu": g}) for g in GPU_PRESETS],        # d = 128 presets
    dict(n=4096, d=128, dtype="float32", **{"blocks.gpu": "A100"}),
])
def test_the_papers_rule_is_never_called_a_failure(values):
    at = open_page(**{"blocks.mode": "sram", **values})
    clean(at)
    everything = " ".join(str(e.value) for kind in ("markdown", "caption", "warning", "info") for e in getattr(at, kind))
    for bad in ("NOT fit", "does not fit", "spill", "would fail"):
        assert bad not in everything
    view = at.session_state["blocks.budget_view"]
    eb = 2 if values["dtype"] == "float16" else 4
    m = (values.get("blocks.sram_kib", 0) * 1024 if values["blocks.gpu"] == "custom"
         else preset_sram_bytes(values["blocks.gpu"])) // eb
    cfg = make_config(values["n"], values["d"], sram_elems=m)
    assert view["m"] == m and view["budget"] == cfg.sram_budget and view["rule"] == "paper"
    quarter = -(-m // (4 * values["d"])) * values["d"]
    assert all(view["budget"][b] <= quarter for b in ("Q", "K", "V", "O", "S"))   # the rule's M/4 per buffer
    budget_text = next(x.value for x in at.markdown if "The paper's rule" in x.value)
    assert f"at most ⌈M/4d⌉·d = {quarter:,} elements" in budget_text and "O(M)" in budget_text


def test_the_waves_readout_does_not_claim_one_program_per_sm():
    at = open_page(n=4096, d=64, block_m=64, block_n=64, **{"blocks.gpu": "H100"})
    clean(at)
    waves = next(m.value for m in at.markdown if "per SM" in m.value and "programs" in m.value)
    assert "one program per SM" not in waves
    assert f"{64 * 4 * 32 / GPU_PRESETS['H100']['sms']:.1f} per SM" in waves


# ----------------------------------------------------------------------------- shared configuration across pages

def test_shared_config_carries_across_pages_of_the_same_scale():
    """The stepper keeps its small row; N, d, Bc changed on the blocks page carry to speed, backward and hardware;
    the causal mask carries everywhere; the page's own choices survive a page switch."""
    at = AppTest.from_file(APP, default_timeout=60).run()               # the stepper, small example
    at.number_input(key=W + "n").set_value(32).run()
    switch(at, BLOCKS).run()
    clean(at)
    assert at.number_input(key=W + "n").value == 4096                   # the realistic size, not the stepper's row
    at.number_input(key=W + "n").set_value(2048).run()                  # change it here ...
    at.number_input(key=W + "block_n").set_value(128).run()
    at.toggle(key=W + "causal").set_value(True).run()
    at.radio(key="_w.blocks.order").set_value("fa1").run()
    for page in ("speed", "backward", "hardware"):
        switch(at, page).run()
        clean(at)
        assert at.number_input(key=W + "n").value == 2048, page            # ... the same scale follows
        assert any("N = 2048" in c.value for c in at.caption), page         # and says what it shows
    switch(at, STEPPER).run()
    clean(at)
    assert at.number_input(key=W + "n").value == 32 and at.number_input(key=W + "block_n").value == 4
    assert at.toggle(key=W + "causal").value is True                    # the mask is one setting for all pages
    switch(at, BLOCKS).run()
    clean(at)
    assert at.radio(key="_w.blocks.order").value == "fa1"              # this page's own choice survived


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
    at.slider(key="_w.decoding.workers").set_value(20).run()           # W > N = 16: N workers of one key
    clean(at)
    assert metrics(at)["Workers"] == "16" and float(metrics(at)["Merged vs single pass"]) < 1e-12
    assert any("uses W = 16 workers of one key each" in c.value for c in at.caption)
    assert any("Paged == contiguous" in s.value for s in at.success)   # the paged section still works


def test_paged_equals_contiguous_and_the_table_is_a_shuffle():
    at = open_page(DECODING, **{"decoding.bs": 3, "decoding.free": 2})
    clean(at)
    assert float(metrics(at)["Paged vs contiguous"]) < 1e-12
    _, k, v = inputs(config(at, DECODING))
    table = build_paged_cache(k, v, 3, seed=at.number_input(key="_w.decoding.pseed").value, num_physical=8).block_table
    assert len(table) == 6 and len(set(table)) == 6 and max(table) < 8                  # ceil(16/3) of 8 slots
    assert at.dataframe[-1].value.iloc[:, 1].tolist() == table.tolist()                 # the table shown
    at.button(key="decoding.paged.next").click().run()
    assert any(f"block_table[1] = {table[1]}" in m.value for m in at.markdown)
    at.number_input(key="_w.decoding.bs").set_value(0).run()
    assert not at.exception and "block size must be at least 1" in at.error[0].value


# ----------------------------------------------------------------------------- as it opens; what the counts model

def test_opens_on_a_recorded_size_with_the_grid_above_the_rest():
    at = app_util.open_page(BLOCKS)
    clean(at)
    c = config(at)
    assert (c.n, c.d, c.block_m, c.block_n, c.dtype) == (4096, 128, 128, 64, "float16")
    assert any("N = 4096, d = 128, fp16" in x.value and "H200 recordings" in x.value for x in at.caption)
    assert at.session_state["blocks.n_steps"] == 32 * 64                             # Tr x Tc at 128 x 64
    # everything but the step view, the counters and the summary sits in closed expanders
    from helpers.page_budget import walk
    shown = [n.key for n, hidden in walk(at.main) if not hidden and getattr(n, "type", "") == "plotly_chart"]
    assert shown == ["blocks.grid", "blocks.bars"]


def test_the_counts_are_labelled_as_the_sram_only_model_with_the_measured_bytes_beside():
    """Truth 4 at the recorded size: FA1 at Bc = 64 < 3d/4 moves more bytes than standard (computed and said),
    and the Nsight recording's bytes stand beside the model's."""
    from flashviz.bench import hbm_dataset
    at = app_util.open_page(BLOCKS)
    clean(at)
    view = at.session_state["blocks.traffic_view"]
    cfg = make_config(4096, 128, br=128, bc=64, elem_bytes=2)
    fa1, std = Schedule(cfg, "fa1").totals().total_bytes, standard_counts(4096, 128, elem_bytes=2).total_bytes
    # independent: FA1 moves Q, O and the stats per K/V block: 3·Tc·N·d elements dominate; standard is 4N² + 4Nd
    assert fa1 > std and 3 * 64 * 4096 * 128 > 4 * 4096**2
    assert view["fa1_loses"]["ratio"] == pytest.approx(fa1 / std) and view["fa1_loses"]["three_quarters"] == 96
    captions = " ".join(x.value for x in at.caption)
    assert f"{fa1 / std:.2f}× the bytes of standard attention" in captions and "3d/4 = 96" in captions
    assert "model on-chip SRAM only" in captions and "L2" in captions
    ds = hbm_dataset.load_hbm_dataset(hbm_dataset.list_hbm_datasets()[0])
    cells = {c["impl"]: c for c in hbm_dataset.matching_cells(ds, n=4096, d=128, causal=False)}
    per_head = lambda c: (c["read_bytes"] + c["write_bytes"] + c["flush_write_bytes"]) / (c["batch"] * c["heads"])  # noqa: E731
    m = view["measured"]
    assert m["naive"] == per_head(cells["naive"]) and m["fast"] == per_head(cells["fast"])
    assert m["naive"] / m["fast"] > 25                                                 # about 33x fewer bytes
    text = " ".join(x.value for x in at.markdown)
    assert f"**{m['naive'] / m['fast']:,.0f}× fewer bytes**" in text


def test_fa1_with_bc_above_three_quarters_d_is_not_said_to_lose():
    at = open_page(n=1024, d=64, block_m=64, block_n=64)
    clean(at)
    assert at.session_state["blocks.traffic_view"]["fa1_loses"] is None
    assert not any("bytes of standard attention" in x.value for x in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_absurd_batch_and_heads_are_refused_in_the_page_language(lang):
    at = app_util.open_page(BLOCKS, lang=lang, **{"blocks.batch": 2**53 - 1})
    assert not at.exception and len(at.error) == 1
    assert "65536" in at.error[0].value and ("批" in at.error[0].value or lang == "en")
    assert not any("programs" in x.value for x in at.markdown)                          # no 3.2e32 programs
