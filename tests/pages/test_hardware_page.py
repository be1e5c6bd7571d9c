"""AppTest of the Hardware page, en and zh: its roofline, takeaway and sections show what the engines
(flashviz.engine.hardware, flashviz.engine.roofline) compute from the committed recordings (timings in assets/benchmarks, Nsight
bytes in assets/hbm); the H200 preset shows the H200's hierarchy and points."""
from __future__ import annotations

import pytest

from helpers.app import chart_specs_by_key as specs, array, cfg_key, clean, open_page
from flashviz.bench import hbm_dataset
from flashviz.engine.hardware import gpu, hierarchy_rows
from flashviz.i18n import t
from flashviz.engine.roofline import measured_bytes_points, model_points, roofline_verdict
from flashviz.engine.tiling import make_config
from flashviz.ui.hardware_more import hbm_recordings, timing_datasets

HW = "hardware"


def recorded_points(n=4096, d=128, causal=False):
    hbm = hbm_recordings()[0]
    for ds in timing_datasets():
        pts = measured_bytes_points(ds, hbm, n, d, causal)
        if pts and "H200" in ds["provenance"]["device_name"]:
            return pts
    return []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_on_a_recorded_size_with_fa2_compute_bound(lang):
    at = open_page(HW, lang=lang)
    clean(at)
    cfg = make_config(4096, 128, br=128, bc=64, elem_bytes=2)
    view = at.session_state["hardware.roof_view"]
    assert view["gpu"] == "H200"
    want = recorded_points()
    assert [m["impl"] for m in view["measured"]] == [m["impl"] for m in want] and want
    v = roofline_verdict("H200", cfg, want)
    assert view["verdict"] == v and v["bound"] == "compute"
    text = " ".join(m.value for m in at.markdown)
    assert f"{v['intensity']:,.0f}" in text and f"{v['n_over_e']:,.0f}" in text and f"{v['ridge']:,.0f}" in text
    assert f"{v['achieved'] / 1e12:,.0f} TFLOP/s" in text
    # the chart: model points on the roof (the SRAM-only model), recorded speeds at measured intensities
    fig = specs(at)["hardware.roofline"]
    fast = next(d for d in fig["data"] if d["name"] == t("hardware.measured", lang, impl=t("speed.impl_fast", lang)))
    m = next(p for p in want if p["impl"] == "fast")
    assert array(fast["x"])[0] == pytest.approx(m["intensity"]) and array(fast["y"])[0] == pytest.approx(m["achieved"] / 1e12)
    fa2 = next(d for d in fig["data"] if d["name"] == t("hardware.algo_fa2", lang))
    assert array(fa2["x"])[0] == pytest.approx(model_points(cfg)["fa2"].intensity)
    # no sentence calls the model's memory-bound ceiling the best the kernel could reach
    assert "best speed" not in text and "最多能达到" not in text


@pytest.mark.parametrize("name", ["A100", "H100", "H200"])
def test_the_hierarchy_table_starts_with_the_register_file(name):
    at = open_page(HW, **{"hardware.gpu": name})
    clean(at)
    view = at.session_state["hardware.hw_view"]
    assert view["gpu"] == name and view["rows"] == hierarchy_rows(name)
    df = next(d.value for d in at.dataframe if t("hardware.col_per_sm", "en") in d.value.columns)
    assert list(df.iloc[:, 0]) == [t(f"hardware.level_{r['level']}", "en") for r in hierarchy_rows(name)]
    assert df.iloc[0, 1] == "256 KiB"
    assert df.iloc[1, 1] == f"{gpu(name)['shared_kib_per_sm']} KiB"
    if name != "H200":
        assert at.session_state["hardware.roof_view"]["measured"] == []        # H200 recordings stay on the H200


def test_the_h200_preset_shows_the_h200(monkeypatch):
    at = open_page(HW, **{"hardware.gpu": "A100"})
    at.selectbox(key="_w.preset").set_value("h200").run()
    clean(at)
    assert at.session_state["hardware.hw_view"]["gpu"] == "H200"
    assert at.session_state["hardware.gpu"] == at.session_state["blocks.gpu"] == "H200"
    view = at.session_state["hardware.roof_view"]
    assert view["gpu"] == "H200"
    # the preset's N = 8192 has timings but no Nsight cell: the page says so and offers the recorded size
    assert view["measured"] == [] and at.info
    at.button(key="hardware.use_recorded").click().run()
    clean(at)
    assert at.session_state["hardware.roof_view"]["verdict"]["bound"] == "compute"


def test_a_causal_mask_says_naive_executes_every_flop():
    at = open_page(HW, causal=True)
    clean(at)
    r = at.session_state["hardware.mb_view"]
    assert r["flops"] == 4 * 4096**2 * 128 * (4 * 32) and r["useful"] == r["flops"] / 2     # B = 4, H = 32
    assert any("4·N²·d" in c.value for c in at.caption)


def test_measured_bytes_next_to_the_sram_only_formula():
    at = open_page(HW)
    clean(at)
    rows = at.session_state["hardware.hbm_view"]["rows"]
    ds = hbm_dataset.load_hbm_dataset(hbm_dataset.list_hbm_datasets()[0])
    cells = hbm_dataset.matching_cells(ds, n=4096, d=128, causal=False)
    assert [r["impl"] for r in rows] == [c["impl"] for c in cells]
    for r, c in zip(rows, cells):
        assert r["measured"] == c["read_bytes"] + c["write_bytes"] + c["flush_write_bytes"]
    fast = next(r for r in rows if r["impl"] == "fast")
    assert fast["measured"] < fast["formula"] / 10              # the L2 served the re-reads the model counts


def test_a_bad_configuration_is_a_message():
    at = open_page(HW, n=0)
    assert not at.exception and at.error
    at = open_page(HW, **{cfg_key(HW, "dtype"): "float64"})
    assert not at.exception and at.error
