"""The page "Variants" under AppTest, read from what it renders: the block map and the savings equal the engine's, the
row's claims equal a float64 computation here, switching variants changes the map, bad input is a message (en, zh),
and the recorded measurement is drawn from its file, or the page says there is none."""
import json
import math

import numpy as np
import pytest

pytest.importorskip("streamlit")
from helpers.app import array, clean, open_page  # noqa: E402
from flashviz.engine import variants as V  # noqa: E402
from flashviz.bench import variants_bench as vb, variants_dataset  # noqa: E402
from flashviz.bench.jsonio import write_json  # noqa: E402
from flashviz.charts.common import fmt_num  # noqa: E402
from flashviz.i18n import t  # noqa: E402
from flashviz.engine.online_softmax import make_qkv  # noqa: E402

PAGE = "variants"
DEFAULT = dict(causal=True, window=(64, 0), heads=8)


@pytest.fixture
def no_recordings(tmp_path, monkeypatch):
    monkeypatch.setattr(variants_dataset, "DEFAULT_DIR", tmp_path / "variants")


def _charts(at) -> dict:
    out = {}
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        out[spec["layout"]["title"]["text"]] = spec
    return out


def _map(at) -> np.ndarray:
    [spec] = [s for s in _charts(at).values() if s["data"][0]["type"] == "heatmap"]
    return array(spec["data"][0]["z"]).reshape(len(array(spec["data"][0]["y"])), -1)


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def test_default_page_numbers_are_the_engines(no_recordings):
    at = open_page(PAGE, d=16, seed=3)
    clean(at)
    v = V.make_variant(**DEFAULT)
    c = V.variant_costs(v, 256, 16, 32, 32, batch=4, elem_bytes=4)
    bm = c["blocks"]
    assert np.array_equal(_map(at), bm.kind)
    shown = _metrics(at)
    assert shown[t("variants.met_flops", "en")] == f"{100 * c['executed_flops'] / c['dense_flops']:.1f} %"
    assert shown[t("variants.met_bytes", "en")] == f"{100 * c['variant_bytes'] / c['dense_bytes']:.1f} %"
    # counted here from the definitions: a block runs iff some (i, j) in it has i - 64 <= j <= i
    i, j = np.arange(256)[:, None], np.arange(256)[None]
    vis = (j <= i) & (j >= i - 64)
    run = vis.reshape(8, 32, 8, 32).any(axis=(1, 3))
    full = vis.reshape(8, 32, 8, 32).all(axis=(1, 3))
    text = t("variants.map_text", "en", run=int(run.sum()), total=64, skipped=int((~run).sum()),
             partial=int((run & ~full).sum()), full=int(full.sum()), lo=int(run.sum(1).min()), hi=int(run.sum(1).max()),
             tc=8)
    assert text in [m.value for m in at.markdown]
    assert c["executed_flops"] == 4 * 4 * 8 * 16 * run.sum() * 32 * 32
    # the row: 200 with window 64 sees keys 136..200, so the first 136 // 32 = 4 tiles... plus a partial one
    q, k, _ = make_qkv(256, 16, 3)
    first = 200 - 64
    empty = sum(1 for s in range(0, 256, 32) if s + 31 < first or s > 200)
    assert any(f"Row 200 streams 8 tiles; {empty} of them hold no visible key (the first visible key is {first}; 65 keys"
               in m.value for m in at.markdown)
    assert any(t("variants.no_recording", "en")[:30] in i.value for i in at.info)
    assert any("--preset h200-variants" in c.value for c in at.code)


def test_switching_variants_changes_the_block_map(no_recordings):
    maps = {}
    for name, values, var in (
            ("window", {}, V.make_variant(**DEFAULT)),
            ("causal", {"variants.use_window": False}, V.make_variant(causal=True)),
            ("docs", {"variants.use_window": False, "variants.use_docs": True, "variants.docs": "96 64 96"},
             V.make_variant(causal=True, doc_lens=(96, 64, 96))),
            ("softcap", {"variants.use_softcap": True, "variants.softcap": 0.5, "variants.alibi": True,
                         "variants.group": 4}, V.make_variant(**DEFAULT, softcap=0.5, alibi=True, group=4))):
        at = open_page(PAGE, **values)
        clean(at)
        maps[name] = _map(at)
        assert np.array_equal(maps[name], V.block_map(var, 256, 32, 32).kind), name
    assert not np.array_equal(maps["window"], maps["causal"]) and not np.array_equal(maps["causal"], maps["docs"])
    assert np.array_equal(maps["softcap"], maps["window"])      # softcap, ALiBi, GQA skip no block


def test_softcap_and_alibi_claims_are_computed(no_recordings):
    at = open_page(PAGE, d=16, seed=3, **{"variants.use_softcap": True, "variants.softcap": 0.5, "variants.alibi": True,
                                          "variants.head": 2})
    clean(at)
    q, k, _ = make_qkv(256, 16, 3)
    s = k @ q[200] / 4.0
    slope = V.alibi_slopes(8)[2]
    capped = 0.5 * np.tanh(s / 0.5)
    keys = np.arange(136, 201)
    full = capped[keys] - slope * (200 - keys)
    softcap_only = 0.5 * np.tanh(s[keys] / 0.5)
    assert full.max() < 0.5
    lines = " ".join(m.value for m in at.markdown)
    assert t("variants.row_alibi", "en", h=2, s=f"{slope:.6g}", dist=64, drop=fmt_num(slope * 64)) in lines
    assert t("variants.row_softcap", "en", c="0.5", m=fmt_num(full.max()), m0=fmt_num(float(s.max()))) in lines
    assert softcap_only.max() <= 0.5


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("values,key,params", [
    ({"variants.left": -2}, "errors.window_side", dict(side="window left", got=-2)),
    ({"variants.group": 3}, "errors.gqa_group", dict(g=3, h=8)),
    ({"variants.use_softcap": True, "variants.softcap": 0.0}, "errors.softcap_pos", dict(got="0.0")),
    ({"variants.use_docs": True, "variants.docs": "10 20"}, "errors.doc_lens_sum", dict(total=30, n=256)),
    ({"variants.use_docs": True, "variants.docs": "96 x"}, "errors.doc_lens_text", dict(tok="x"))])
def test_bad_input_is_a_message(no_recordings, lang, values, key, params):
    from flashviz.i18n.errors import localize
    at = open_page(PAGE, lang=lang, **values)
    assert not at.exception
    want = localize(key, params, lang)
    assert any(want in e.value for e in at.error), ([e.value for e in at.error], want)
    assert any(t("variants.fix_input", lang) in i.value for i in at.info)


def test_chinese(no_recordings):
    at = open_page(PAGE, lang="zh")
    clean(at)
    assert at.title[0].value == t("variants.title", "zh")
    assert any(t("variants.no_recording", "zh")[:12] in i.value for i in at.info)


def test_a_recording_is_shown_from_its_file(tmp_path, monkeypatch):
    data = vb.run("cpu-variants", variants=("dense-causal", "window", "softcap"))
    write_json(data, tmp_path / "variants" / "cpu-test.json")
    monkeypatch.setattr(variants_dataset, "DEFAULT_DIR", tmp_path / "variants")
    at = open_page(PAGE)
    clean(at)
    n = max(c["n"] for c in data["cells"])
    [df] = [d.value for d in at.dataframe if t("variants.col_vs_flex", "en") in d.value.columns]
    cells = [c for c in data["cells"] if c["n"] == n]
    assert list(df["impl"]) == [c["impl"] for c in cells]
    assert list(df["ms"]) == ["—" if c["ms"] is None else f"{c['ms']:.3f}" for c in cells]
    assert list(df[t("variants.col_vs_flex", "en")]) == [
        "—" if c["speedup_vs_flex"] is None else f"{c['speedup_vs_flex']:.2f}" for c in cells]
    assert list(df[t("variants.col_vs_fa4", "en")]) == [
        "—" if c.get("speedup_vs_fa4") is None else f"{c['speedup_vs_fa4']:.2f}" for c in cells]
    assert list(df[t("variants.col_tiles", "en")]) == [
        "—" if c["tiles"] is None else f"{c['tiles'][0]} × {c['tiles'][1]}" for c in cells]
    assert f"{min(128, n)} × {min(128, n)}" in list(df[t("variants.col_tiles", "en")])     # flex's block mask
    spec = _charts(at)[t("variants.m_title", "en", n=f"{n:,}")]
    for trace in spec["data"]:
        want = [next((c["ms"] for c in cells if c["impl"] == trace["name"] and c["variant"] == v
                      and c["status"] == "ok"), None) for v in ("dense-causal", "window", "softcap")]
        got = list(array(trace["y"])) if not isinstance(trace["y"], list) else trace["y"]
        assert [None if (g is None or (isinstance(g, float) and math.isnan(g))) else g for g in got] == want
    assert any(data["provenance"]["command"] in c.value for c in at.code)


def test_stepping_the_row_follows_the_engine(no_recordings):
    from flashviz.engine.online_softmax import variant_trace
    at = open_page(PAGE, d=16, seed=3)
    clean(at)
    q, k, v = make_qkv(256, 16, 3)
    tr = variant_trace(q, k, v, 200, 32, causal=True, window=(64, 0))

    def shown_step(s):
        return t("variants.step_text", "en", s=s + 1, tc=8, a=int(tr.start[s]), b=int(tr.stop[s]) - 1,
                 tmax=fmt_num(float(tr.tile_max[s])), m=fmt_num(float(tr.m[s])), alpha=fmt_num(float(tr.alpha[s])),
                 l=fmt_num(float(tr.l[s])))
    assert shown_step(0) in [m.value for m in at.markdown]
    for button, s in (("next", 1), ("last", 7)):
        at.button(key=f"variants.steps.{button}").click().run()
        clean(at)
        assert shown_step(s) in [m.value for m in at.markdown]
        spec = _charts(at)[t("variants.row_title", "en", bc=32)]
        m = np.array([np.nan if x is None else x for x in array(spec["data"][3]["y"]).tolist()], dtype=float)[1::2]
        assert len(m) == s + 1
        assert np.allclose(m[np.isfinite(m)], tr.m[:s + 1][np.isfinite(tr.m[:s + 1])])
    assert tr.tile_max[0] == -np.inf and tr.m[-1] == tr.scores[136:201].max()   # early tiles empty, m = the max


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_window_account_under_the_table_is_the_recordings(lang):
    """The page opens on the newest complete committed recording covering the most variants (one cut short, or a
    newer one that timed fewer variants, waits in the list) at its largest N and says, from its cells, how much
    faster the window ran than dense causal, against the pairs and the tiles it saved; a recording without our
    Triton cells (the CPU preset) has no such account."""
    ds = next(iter(variants_dataset.fullest_first({p: variants_dataset.load_variants_dataset(p)
                                                   for p in variants_dataset.list_variants_datasets()}).values()))
    n = max(c["n"] for c in ds["cells"])
    acc = variants_dataset.window_account(ds, n)
    at = open_page(PAGE, lang=lang)
    clean(at)
    want = t("variants.window_account", lang, w=ds["config"]["window"], n=f"{n:,}", speed=f"{acc['speedup']:.2f}",
             useful=f"{acc['useful']:.2f}", exec=f"{acc['executed']:.2f}", br=acc["tiles"][0], bc=acc["tiles"][1],
             eff=f"{acc['efficiency']:.0%}")
    assert any(m.value == want for m in at.markdown), [m.value[:60] for m in at.markdown]
    assert variants_dataset.window_account(vb.run("cpu-variants", variants=("dense-causal", "window")), 48) is None


def test_the_page_opens_on_the_map_and_keeps_the_rest_behind_expanders(no_recordings):
    at = open_page(PAGE)
    clean(at)
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert titles[0].startswith("causal + window (64, 0): 21 of 64 blocks run")         # the picture comes first
    assert [e.label for e in at.main.expander] == [t(f"variants.{k}_header", "en")
                                              for k in ("cfg", "row", "save", "gqa", "rec")]
    assert t("variants.shown", "en", label="causal + window (64, 0)", n=256, br=32, bc=32) in \
        [c.value for c in at.caption]


@pytest.mark.parametrize("values,window", [({}, (64, 0)), ({"variants.use_window": False}, None)])
def test_the_running_max_moves_where_a_tile_raises_it_and_l_and_o_are_rescaled(no_recordings, values, window):
    """"m moves up at k of its tiles": counted here in float64 from the row's scores (a tile whose max exceeds
    every earlier visible score, after the first visible tile); at each of those tiles ℓ is multiplied by
    α = exp(m_old − m_new) < 1 before the tile's own sum is added."""
    from flashviz.engine.online_softmax import variant_trace
    at = open_page(PAGE, d=16, seed=3, **values)
    clean(at)
    q, k, v = make_qkv(256, 16, 3)
    s = k @ q[200] / 4.0
    keys = np.arange(256)
    vis = keys <= 200
    if window:
        vis &= keys >= 200 - window[0]
    def moves(scores):
        count, m = 0, -np.inf
        for a in range(0, 256, 32):
            tile = scores[a:a + 32].max()
            count += int(m > -np.inf and tile > m)
            m = max(m, tile)
        return count
    plain, moved = moves(s), moves(np.where(vis, s, -np.inf))        # plain: every key, no mask
    text = " ".join(m_.value for m_ in at.markdown)
    assert f"moves up at {moved} of its tiles ({plain} in plain attention)" in text
    tr = variant_trace(q, k, v, 200, 32, causal=True, window=window)
    for i in np.flatnonzero(tr.rescaled):
        assert tr.alpha[i] < 1 and tr.l[i] == pytest.approx(tr.alpha[i] * tr.l[i - 1] + tr.tile_sum[i])


def test_chinese_ratios_say_which_is_larger():
    """No "相差 x 倍" / "快 x×" on the page: a ratio says which side is the larger."""
    from flashviz.i18n.variants import STRINGS
    zh = STRINGS["variants.window_account"]["zh"]
    assert "相差" not in zh and "是窗口的 {useful} 倍" in zh and "稠密因果的 **{speed} 倍**" in zh
    assert "Gemma 2" in STRINGS["variants.intro"]["en"] and "Mistral, Gemma)" not in STRINGS["variants.intro"]["en"]


def test_the_chinese_page_has_no_english_prose():
    from helpers.zh import english_on_a_chinese_page
    at = open_page(PAGE, lang="zh", **{"variants.alibi": True, "variants.group": 4, "variants.use_softcap": True})
    clean(at)
    assert not english_on_a_chinese_page(at)
