"""AppTest of the blocks page's lessons (ui/blocks_lessons.py) and the hardware page's measured-bytes section
(ui/hardware_more.py), en and zh: what they show equals the engines (flashviz.engine.lessons / tiling) and the recordings."""
from __future__ import annotations

import json

import numpy as np
import pytest

from helpers import app as app_util
from helpers.app import chart_specs_by_key as specs, array, clean

from flashviz.bench import hbm_dataset
from flashviz.i18n import t
from flashviz.engine.lessons import (ALIGNS, alignment_blocks, alignment_summary, dropout_state_bytes, score_matrix_bytes,
                                     unfused_stages)
from flashviz.engine.tiling import Schedule, make_config

BLOCKS = "blocks"
HW = "hardware"
SMALL = dict(n=16, d=4, block_m=4, block_n=4, dtype="float32")


def open_page(page, **values):
    return app_util.open_page(page, **({**SMALL, **values} if page == BLOCKS else values))


def tcfg(at, page=BLOCKS):
    c, ss = app_util.page_config(at, page), at.session_state
    return make_config(c.n, c.d, br=c.block_m, bc=c.block_n, elem_bytes={"float32": 4, "float16": 2}[c.dtype],
                       causal=c.causal, batch=ss.get("blocks.batch", 4), heads=ss.get("blocks.heads", 32))


@pytest.fixture
def no_hbm(monkeypatch, tmp_path):
    monkeypatch.setattr(hbm_dataset, "DEFAULT_DIR", tmp_path / "none")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_section_renders_with_the_engines_numbers(lang, no_hbm):
    at = open_page(BLOCKS, lang=lang)
    clean(at)
    figs = specs(at)
    assert {"blocks.fusion", "blocks.alignment", "blocks.sizes"} <= set(figs)
    c = tcfg(at)
    # fusion with dropout (default on): the engine's stages; dropout state at N, B, H
    view = at.session_state["blocks.fusion_view"]
    assert view["stages"] == unfused_stages(c.n, c.d, c.elem_bytes, mask=c.causal, dropout=True)
    assert view["fused"] == Schedule(c, "fa2").totals().total_bytes
    assert view["dropout"] == dropout_state_bytes(c.n, c.batch, c.heads)
    # alignment: default Nq = N / 2, Nk = N, the engine's blocks on both panels
    av = at.session_state["blocks.align_view"]
    assert (av["nq"], av["nk"]) == (c.n // 2, c.n)
    for k, align in enumerate(ALIGNS):
        np.testing.assert_array_equal(array(figs["blocks.alignment"]["data"][k]["z"]),
                                      alignment_blocks(av["nq"], av["nk"], av["br"], av["bc"], align))
    # sizes: the examples and this page's row
    sv = at.session_state["blocks.size_view"]
    assert [r["scores"] for r in sv["rows"]] == [8 * 2**20, 4 * 2**30, 256 * 2**30]
    assert sv["current"]["scores"] == score_matrix_bytes(c.n, c.heads, c.elem_bytes, c.batch)
    table = at.dataframe[-2].value.to_string()                              # the sizes table (the seed's is last)
    assert "8 MiB" in table and "256 GiB" in table


def test_alignment_inputs_and_dead_rows(no_hbm):
    at = open_page(BLOCKS, n=16, **{"blocks.nq": 12, "blocks.nk": 5})
    clean(at)
    av = at.session_state["blocks.align_view"]
    assert (av["nq"], av["nk"], av["br"], av["bc"]) == (12, 5, 4, 4)
    assert av["summary"]["bottom_right"] == alignment_summary(12, 5, 4, 4, "bottom_right")
    assert any("the first 7 queries see no key" in c_.value for c_ in at.caption)


def test_dropout_toggle(no_hbm):
    at = open_page(BLOCKS, **{"blocks.dropout": False})
    clean(at)
    assert [s["stage"] for s in at.session_state["blocks.fusion_view"]["stages"]] == ["scale", "qk", "softmax", "pv"]


@pytest.fixture
def recording(monkeypatch, tmp_path):
    from helpers.hbm import sample_dataset
    data = sample_dataset()
    (tmp_path / "nvidia-h200-hbm-test.json").write_text(json.dumps(data))
    monkeypatch.setattr(hbm_dataset, "DEFAULT_DIR", tmp_path)
    return data


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_recording_is_shown_next_to_the_formula(recording, lang):
    at = open_page(HW, lang=lang, n=1024, d=64, block_m=64, block_n=64, dtype="float16", row=1023)
    clean(at)
    rows = at.session_state["hardware.hbm_view"]["rows"]
    naive, fast = recording["cells"]
    assert [r["impl"] for r in rows] == ["naive", "fast"]
    want_naive = sum(s["reads"] + s["writes"] for s in unfused_stages(1024, 64, 2)) * 16
    want_fast = Schedule(make_config(1024, 64, br=128, bc=128, elem_bytes=2), "fa2").totals().total_bytes * 16
    assert (rows[0]["formula"], rows[1]["formula"]) == (want_naive, want_fast)
    assert rows[0]["measured"] == naive["read_bytes"] + naive["write_bytes"] + naive["flush_write_bytes"]
    assert rows[1]["measured_writes"] == fast["write_bytes"] + fast["flush_write_bytes"]
    fig = specs(at)["hardware.hbm_bytes"]
    assert list(array(fig["data"][0]["y"])) == pytest.approx([want_naive / 1e6, want_fast / 1e6])
    table = next(d.value for d in at.dataframe if t("hardware.col_formula", lang) in d.value.columns).to_string()
    assert f"{rows[1]['measured'] / want_fast:.2f}×" in table
    once = at.session_state["hardware.hbm_view"]["reads_over_qkv"]
    assert once == {"fast": fast["read_bytes"] / (3 * 1024 * 64 * 2 * 16)}
    assert any(f"fast {once['fast']:.2f}×" in m.value for m in at.markdown)


def test_a_recording_at_another_size_lists_what_was_recorded(recording):
    at = open_page(HW)
    clean(at)
    assert at.session_state["hardware.hbm_view"] == {"rows": []}
    assert any("N=1024 d=64" in i.value for i in at.info)


def test_too_many_alignment_blocks_is_a_message(no_hbm):
    at = open_page(BLOCKS, n=4096, d=4, block_m=1, block_n=1)
    clean(at)
    assert at.session_state["blocks.align_view"] is None
    assert any("2048 × 4096 blocks" in i.value for i in at.info)


def test_speed_page_links_to_the_roofline():
    at = open_page("speed")
    clean(at)
    assert [el.proto.label for el in at.get("page_link") if el.proto.page == "hardware"] == [
        t("speed.to_hardware", "en", page=t("common.nav_hardware", "en"))]
