"""The Exercises page and its engine (flashviz/engine/exercises.py): each problem's answer against an independent float64
reference written here, each check's tolerance, and the page taking a right and a wrong answer (en and zh)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.app import clean, open_page
from flashviz.engine import exercises as ex
from flashviz.i18n import t
from flashviz.engine.online_softmax import make_qkv

PAGE = "exercises"


def softmax_row(s, v):
    w = np.exp(s - s[np.isfinite(s)].max())
    w[~np.isfinite(s)] = 0
    return w @ v / w.sum()


# ----------------------------------------------------------------------------- engine against references

def test_decoding_merge_is_the_one_pass_answer():
    p = ex.decoding_problem(seed=12)
    q, k, v = make_qkv(16, 4, 12)
    s = k @ q[15] / math.sqrt(4)
    # independent merge of four contiguous chunks of four keys
    parts = []
    for a in range(0, 16, 4):
        m = s[a:a + 4].max()
        parts.append((m, np.exp(s[a:a + 4] - m).sum(), np.exp(s[a:a + 4] - m) @ v[a:a + 4]))
    m = max(x[0] for x in parts)
    l = sum(math.exp(x[0] - m) * x[1] for x in parts)
    o = sum(math.exp(x[0] - m) * x[2] for x in parts)
    assert p["start"] == [0, 4, 8, 12] and p["m"] == pytest.approx(m, abs=1e-12)
    assert p["l"] == pytest.approx(l, rel=1e-12) and np.allclose(p["o"], o, rtol=1e-12)
    assert np.allclose(p["output"], softmax_row(s, v), atol=1e-12) and p["error"] < 1e-12
    assert [q_["m"] for q_ in p["partials"]] == pytest.approx([x[0] for x in parts])


def test_decoding_check_uses_the_stated_tolerance():
    p = ex.decoding_problem(seed=12)
    good = ex.check_decoding(p, p["m"], p["l"] * (1 + 0.5 * ex.DECODING_REL), p["output"][0])
    assert all(ok for ok, _ in good.values())
    bad = ex.check_decoding(p, p["m"] + 1, p["l"] * (1 + 3 * ex.DECODING_REL), None)
    assert not any(ok for ok, _ in bad.values())
    assert ex.check_decoding(p, float("nan"), p["l"], p["output"][0])["m"][0] is False


def test_tiled_causal_matches_naive_causal_attention():
    assert ex.tiled_causal_error(16, 4, 4, 12) < ex.EXACT_ABS
    assert ex.tiled_causal_error(37, 8, 5, 3) < ex.EXACT_ABS                      # ragged tiles


def test_a_fully_masked_first_tile_gives_nan_only_without_the_guard():
    r = ex.causal_nan_run(16, 4, 4, 9, "0-3", 12)
    assert r["full_tiles"] == [0, 3] and r["first_full"] and r["nan_without_guard"]   # padding; above the diagonal
    q, k, v = make_qkv(16, 4, 12)
    s = k @ q[9] / 2.0
    s[:4] = -np.inf
    s[10:] = -np.inf
    assert r["guarded_error"] < ex.EXACT_ABS and np.isfinite(softmax_row(s, v)).all()
    plain = ex.causal_nan_run(16, 4, 4, 15, "", 12)                               # causal alone: no empty tile
    assert plain["full_tiles"] == [] and not plain["nan_without_guard"]
    with pytest.raises(Exception):
        ex.causal_nan_run(16, 4, 4, 2, "0-3", 12)                                # every key masked: a message


def test_memory_growth_from_measured_rows():
    rows = [dict(n=512, naive_peak_bytes=2_100_000, tiled_scratch_bytes=200_000),
            dict(n=8192, naive_peak_bytes=537_000_000, tiled_scratch_bytes=210_000)]
    g = ex.memory_growth(rows)
    assert g["square"] == 256 and g["naive"] == pytest.approx(537_000_000 / 2_100_000)
    c = ex.check_memory(g, 256, 1)
    assert c["naive"][0] and c["tiled"][0]
    assert not ex.check_memory(g, 16, 16)["naive"][0]


def test_roofline_point_from_the_recordings():
    from flashviz.bench import hbm_dataset
    from flashviz.ui.hardware_more import hbm_recordings, timing_datasets
    hbm = hbm_recordings()[0]
    p = next(q for ds in timing_datasets() if (q := ex.roofline_problem(ds, hbm)))
    cell = next(c for c in hbm_dataset.matching_cells(hbm, n=4096, d=128, causal=False) if c["impl"] == "fast")
    per_head = (cell["read_bytes"] + cell["write_bytes"] + cell["flush_write_bytes"]) / (cell["batch"] * cell["heads"])
    assert p["bytes"] == per_head and p["flops"] == 4 * 4096**2 * 128
    assert p["intensity"] == pytest.approx(p["flops"] / per_head) and p["bound"] == "compute"
    assert ex.check_roofline(p, p["intensity"] * 1.01, "compute") == {"intensity": (True, p["intensity"]),
                                                                      "bound": (True, "compute")}
    assert not ex.check_roofline(p, p["intensity"] * 1.05, "memory")["bound"][0]


def test_ring_speedups_by_counting_pairs():
    p = ex.ring_problem(4, 4096)
    # independent: contiguous causal, device r holds chunk r; at step s it computes against chunk (r - s) mod 4
    c = 4096 // 4
    work = np.zeros((4, 4))
    for s in range(4):
        for r in range(4):
            kc = (r - s) % 4
            work[s, r] = c * c if kc < r else (c * (c + 1) // 2 if kc == r else 0)
    assert p["layouts"]["contiguous"]["speedup"] == pytest.approx(work.sum() / work.max(1).sum())
    assert p["layouts"]["contiguous"]["speedup"] == pytest.approx(2.2860, abs=1e-4)
    assert p["layouts"]["zigzag"]["speedup"] == pytest.approx(4.0, abs=1e-3)       # balanced: every device busy
    assert ex.check_ring(p, 2.29, 4.0)["contiguous"][0] and not ex.check_ring(p, 4.0, 4.0)["contiguous"][0]


# ----------------------------------------------------------------------------- the page

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_checks_a_right_and_a_wrong_answer(lang):
    at = open_page(PAGE, lang=lang)
    clean(at)
    assert len(at.expander) >= 5 and all(e.label == t("exercises.solution", lang) for e in at.expander)
    p = at.session_state["exercises.dec_view"]
    at.number_input(key="exercises.dec_m").set_value(round(p["m"], 6))
    at.number_input(key="exercises.dec_l").set_value(round(p["l"], 6))
    at.number_input(key="exercises.dec_o").set_value(round(p["output"][0], 2) + 0.5)      # wrong
    at.button(key="FormSubmitter:exercises.dec_form-" + t("exercises.check", lang)).click().run()
    clean_but_errors = [e.value for e in at.error]
    assert len([s for s in at.success if t("exercises.right", lang, what="m") == s.value]) == 1
    assert len(clean_but_errors) == 1 and f"{p['output'][0]:.6g}" in clean_but_errors[0]
    ring = at.session_state["exercises.ring_view"]["layouts"]
    at.number_input(key="exercises.ring_c").set_value(round(ring["contiguous"]["speedup"], 2))
    at.number_input(key="exercises.ring_z").set_value(4.0)
    at.button(key="FormSubmitter:exercises.ring_form-" + t("exercises.check", lang)).click().run()
    assert sum(t("exercises.field_contiguous", lang) in s.value for s in at.success) == 1


def test_the_nan_step_reproduces_then_the_guard_fixes():
    at = open_page(PAGE)
    at.number_input(key="exercises.nan_row").set_value(9)
    at.text_input(key="exercises.nan_masked").set_value("0-3")
    at.button(key="FormSubmitter:exercises.nan_form-Run").click().run()
    clean(at)
    assert at.session_state["exercises.nan_view"]["nan_without_guard"]
    assert any("Reproduced" in s.value for s in at.success)
    at.button(key="exercises.causal_verify").click().run()
    assert at.session_state["exercises.causal_err"] < ex.EXACT_ABS
