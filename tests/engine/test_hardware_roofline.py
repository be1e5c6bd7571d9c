"""The GPU table (flashviz.engine.hardware) and the roofline engine (flashviz.engine.roofline) against hand arithmetic."""
from __future__ import annotations

import math

import pytest

from flashviz.bench.dataset import list_datasets, load_dataset
from flashviz.bench.spec import flops as bench_flops
from flashviz.infra.errors import InputError
from flashviz.engine.hardware import HARDWARE, capacity_ratio, gpu, hierarchy_rows, ridge_point
from flashviz.engine.roofline import (attainable, measured_bytes_points, measured_points, model_points, naive_memory_bound,
                                      roofline_verdict, time_bounds,
                                      useful_flops)
from flashviz.engine.tiling import GPU_PRESETS, make_config


def test_every_preset_has_its_hardware_and_the_vendor_figures():
    assert set(HARDWARE) == set(GPU_PRESETS)
    a, h1, h2 = gpu("A100"), gpu("H100"), gpu("H200")
    assert (a["sms"], a["shared_kib_per_sm"], a["hbm_bw"], a["peak_fp16"], a["hbm_bytes"]) == (108, 164, 1555e9, 312e12, 40e9)
    assert (h1["sms"], h1["shared_kib_per_sm"], h1["hbm_bw"], h1["peak_fp16"], h1["hbm_bytes"]) == (132, 228, 3.35e12, 989.4e12, 80e9)
    assert (h2["hbm_bw"], h2["hbm_bytes"], h2["peak_fp16"]) == (4.8e12, 141e9, h1["peak_fp16"])   # same compute
    assert h2["l2_bytes"] == 60 * 2**20
    for g in (a, h1, h2):
        assert g["sources"] and all(isinstance(s, str) and s for s in g["sources"])
    with pytest.raises(InputError, match="GPU must be one of"):
        gpu("V100")


def test_ridge_points_and_ratios_by_hand():
    assert ridge_point("A100") == pytest.approx(312e12 / 1555e9) == pytest.approx(200.64, abs=0.01)
    assert ridge_point("H100") == pytest.approx(295.3, abs=0.1)
    assert ridge_point("H200") == pytest.approx(206.1, abs=0.1)
    assert capacity_ratio("A100") == pytest.approx(40e9 / (164 * 1024))        # the seed's ~1/200,000
    rows = {r["level"]: r for r in hierarchy_rows("H100")}
    assert rows["sram"]["per_sm"] == 228 * 1024 and rows["sram"]["total"] == 132 * 228 * 1024
    assert rows["hbm"]["bandwidth"] == 3.35e12 and rows["sram"]["bandwidth"] is None
    assert {r["level"]: r for r in hierarchy_rows("A100")}["sram"]["bandwidth"] == 19e12


@pytest.mark.parametrize("name", list(HARDWARE))
def test_the_register_file_is_the_top_level_and_larger_than_shared_memory(name):
    rows = hierarchy_rows(name)
    assert [r["level"] for r in rows] == ["registers", "sram", "l2", "hbm"]     # fastest and smallest first
    g = gpu(name)
    assert rows[0]["per_sm"] == 256 * 1024 == g["registers_kib_per_sm"] * 1024
    assert rows[0]["total"] == 256 * 1024 * g["sms"]
    assert rows[0]["per_sm"] > rows[1]["per_sm"]                              # 256 KiB > 164 or 228 KiB
    assert rows[2]["per_sm"] is None and rows[3]["total"] == g["hbm_bytes"]


def test_model_points_by_hand():
    # N = 1024, d = 64, fp16, Br = Bc = 64: Tr = Tc = 16
    cfg = make_config(1024, 64, br=64, bc=64, elem_bytes=2)
    p = model_points(cfg)
    f = 4 * 1024**2 * 64
    assert p["standard"].flops == p["fa2"].flops == f == useful_flops(1024, 64, False) == bench_flops(1024, 64, False, 1, 1)
    assert p["standard"].bytes == (4 * 1024**2 + 4 * 1024 * 64) * 2 == 8_912_896
    nd = 1024 * 64
    assert p["fa2"].bytes == (nd + 2 * 16 * nd) * 2 + nd * 2 + 1024 * 4 == 4_460_544    # Q once, K V Tr times; O, L
    # FA1: K, V once; Q, O, l, m read on each of Tc passes; O, l, m written Tc + 1 times (l, m fp32)
    assert p["fa1"].bytes == 2 * nd * 2 + 16 * (2 * nd * 2 + 2 * 1024 * 4) + 17 * (nd * 2 + 2 * 1024 * 4)
    assert p["standard"].intensity == pytest.approx(f / 8_912_896)
    assert p["fa2"].intensity > p["standard"].intensity
    causal = model_points(make_config(1024, 64, br=64, bc=64, elem_bytes=2, causal=True))
    assert causal["standard"].flops == f / 2 and causal["standard"].bytes == p["standard"].bytes


def test_bigger_query_blocks_raise_fa2_intensity():
    small = model_points(make_config(4096, 64, br=32, bc=64, elem_bytes=2))["fa2"].intensity
    big = model_points(make_config(4096, 64, br=128, bc=64, elem_bytes=2))["fa2"].intensity
    assert big > 2 * small


def test_roofs_and_time_bounds():
    assert attainable("H100", 10) == pytest.approx(33.5e12)                   # bandwidth roof
    assert attainable("H100", 1000) == 989.4e12                               # compute roof
    tb = time_bounds("A100", 312e12, 1555e9 * 2)                              # 1 s of FLOPs, 2 s of bytes
    assert tb["t_compute"] == pytest.approx(1.0) and tb["t_memory"] == pytest.approx(2.0)
    assert tb["bound"] == "memory" and tb["ratio"] == pytest.approx(2.0)


def test_naive_is_memory_bound_on_every_preset():
    cfg = make_config(4096, 128, br=128, bc=64, elem_bytes=2, batch=4, heads=32)
    for name in HARDWARE:
        r = naive_memory_bound(name, cfg)
        assert r["below"] and r["bound"] == "memory" and r["intensity"] < r["ridge"]
        assert r["bytes"] == (4 * 4096**2 + 4 * 4096 * 128) * 2 * 128
        assert r["flops"] == 4 * 4096**2 * 128 * 128 == r["useful"]
        assert r["nn_bytes"] == 4 * 4096**2 * 2 * 128
        assert r["nn_share"] == pytest.approx(4096 / (4096 + 128))
        assert r["t_memory"] == pytest.approx(r["bytes"] / gpu(name)["hbm_bw"])


def test_measured_points_take_the_recorded_speed_at_the_models_intensity():
    cells = [dict(impl="naive", n=1024, d=64, causal=False, dtype="float16", batch=4, heads=32, mode="fwd",
                  status="ok", tflops=88.0, ms=0.39),
             dict(impl="fast", n=1024, d=64, causal=False, dtype="float16", batch=4, heads=32, mode="fwd",
                  status="ok", tflops=211.0, ms=0.16),
             dict(impl="fast", n=1024, d=64, causal=True, dtype="float16", batch=4, heads=32, mode="fwd",
                  status="ok", tflops=120.0, ms=0.1),
             dict(impl="sdpa-math", n=1024, d=64, causal=False, dtype="float16", batch=4, heads=32, mode="fwd",
                  status="ok", tflops=30.0, ms=1.0),
             dict(impl="teaching", n=1024, d=64, causal=False, dtype="float16", batch=4, heads=32, mode="fwd",
                  status="oom", tflops=None, ms=None)]
    cfg = make_config(1024, 64, br=64, bc=64, elem_bytes=4)                   # page in fp32: cells are fp16
    pts = measured_points({"cells": cells}, cfg)
    assert [(p["impl"], p["algo"]) for p in pts] == [("naive", "standard"), ("fast", "fa2")]
    fp16 = model_points(make_config(1024, 64, br=64, bc=64, elem_bytes=2))
    assert pts[0]["intensity"] == fp16["standard"].intensity and pts[0]["achieved"] == 88e12
    assert pts[1]["intensity"] == fp16["fa2"].intensity and pts[1]["achieved"] == 211e12


def test_committed_h200_dataset_lands_on_the_roofline():
    from flashviz.bench.recording import complete_first
    paths = [p for p in list_datasets() if "fwd" in p.name]
    assert paths, "the recorded forward dataset is committed"
    ds = complete_first([load_dataset(p) for p in paths])[0]                  # the one the page reads first
    assert ds["complete"]
    cfg = make_config(8192, 128, br=64, bc=64, elem_bytes=2)
    pts = measured_points(ds, cfg)
    want = [c for c in ds["cells"] if (c["n"], c["d"], c["causal"], c["mode"], c["status"]) == (8192, 128, False, "fwd", "ok")
            and c["impl"] in ("naive", "teaching", "fast", "sdpa-flash", "sdpa-cudnn")]
    assert len(pts) == len(want) > 0
    for p, c in zip(pts, want):
        assert p["achieved"] == pytest.approx(c["tflops"] * 1e12)
    naive = next(p for p in pts if p["impl"] == "naive")
    assert naive["achieved"] < attainable("H200", naive["intensity"])          # under its (bandwidth) roof
    assert not math.isnan(naive["intensity"])


def test_the_claims_the_roofline_text_makes():
    # naive intensity is about d / element size (N d / ((N + d) e), exactly)
    for n, d, e in [(4096, 64, 2), (8192, 128, 2), (4096, 64, 4)]:
        i = model_points(make_config(n, d, br=64, bc=64, elem_bytes=e))["standard"].intensity
        assert i == pytest.approx(n * d / ((n + d) * e)) and i == pytest.approx(d / e, rel=0.05)
    # FA1 re-reads and rewrites O once per K/V block: it gains with Bc; FA2 does not depend on Bc
    a = model_points(make_config(4096, 64, br=64, bc=32, elem_bytes=2))
    b = model_points(make_config(4096, 64, br=64, bc=128, elem_bytes=2))
    assert b["fa1"].intensity > 2 * a["fa1"].intensity
    assert b["fa2"].intensity == pytest.approx(a["fa2"].intensity)


def test_under_a_causal_mask_naive_executes_all_4n2d():
    """Truth 7: naive computes every score and masks afterwards; only the useful count halves."""
    full = naive_memory_bound("H200", make_config(4096, 128, br=128, bc=64, elem_bytes=2, batch=4, heads=32))
    causal = naive_memory_bound("H200", make_config(4096, 128, br=128, bc=64, elem_bytes=2, causal=True,
                                                     batch=4, heads=32))
    assert causal["flops"] == full["flops"] == 4 * 4096**2 * 128 * 128
    assert causal["useful"] == full["flops"] / 2
    assert causal["t_compute"] == pytest.approx(full["t_compute"])


def _recordings():
    from flashviz.bench import hbm_dataset
    from flashviz.bench.recording import complete_first
    timing = complete_first([load_dataset(p) for p in list_datasets() if "fwd" in p.name])
    hbm = hbm_dataset.load_hbm_dataset(hbm_dataset.list_hbm_datasets()[0])
    return timing, hbm


def test_with_measured_bytes_fa2_is_compute_bound_at_about_n_over_e():
    """Truth 5, from the committed recordings: bytes per head from Nsight, speed from the timing sweep."""
    timing, hbm = _recordings()
    cfg = make_config(4096, 128, br=128, bc=64, elem_bytes=2)
    pts = measured_bytes_points(timing[0], hbm, 4096, 128, False)
    fast = next(p for p in pts if p["impl"] == "fast")
    cell = next(c for c in hbm["cells"] if (c["impl"], c["n"], c["d"], c["causal"]) == ("fast", 4096, 128, False))
    per_head = (cell["read_bytes"] + cell["write_bytes"] + cell["flush_write_bytes"]) / (cell["batch"] * cell["heads"])
    assert fast["bytes_per_head"] == per_head
    assert fast["intensity"] == pytest.approx(4 * 4096**2 * 128 / per_head)
    assert fast["intensity"] == pytest.approx(4096 / 2, rel=0.05)              # about N / e
    v = roofline_verdict("H200", cfg, pts)
    assert v["bound"] == "compute" and v["intensity"] > 9 * v["ridge"]
    # the SRAM-only model puts FA2 under the ridge (K, V re-read Tr = 32 times at Br = 128), a ceiling the
    # recorded kernel exceeds: that ceiling is no bound, so the page must not call it "the best it could reach"
    assert v["model_intensity"] == pytest.approx(model_points(cfg)["fa2"].intensity) and v["model_intensity"] < v["ridge"]
    assert v["beats_model"] == (fast["achieved"] > v["model_ceiling"])
    assert v["share_of_peak"] == pytest.approx(fast["achieved"] / 989.4e12)
    naive = next(p for p in pts if p["impl"] == "naive")
    assert naive["intensity"] < ridge_point("H200")                            # naive stays memory-bound


def test_measured_bytes_points_need_the_same_kernel_size_and_dtype():
    timing, hbm = _recordings()
    assert measured_bytes_points(timing[0], hbm, 8192, 128, False) == []     # no Nsight cell at N = 8192
    impls = {p["impl"] for p in measured_bytes_points(timing[0], hbm, 1024, 64, True)}
    assert impls <= {"naive", "teaching", "fast"} and impls
    assert roofline_verdict("H200", make_config(8192, 128, br=128, bc=64, elem_bytes=2), []) is None
