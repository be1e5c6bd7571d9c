"""The page "Flash-decoding and paging" opens on the number its idea rests on: a decode step's programs against the
SMs (flashviz.engine.decoding.decode_grid, counted here from FlashAttention-2's grid), then the split-and-merge picture;
the merge, the grid at other sizes and the paged cache are behind expanders. Both languages."""
import math

import pytest

pytest.importorskip("streamlit")
from helpers.app import clean, open_page  # noqa: E402
from flashviz.engine.decoding import decode_grid  # noqa: E402
from flashviz.infra.errors import InputError  # noqa: E402
from flashviz.i18n import t  # noqa: E402
from flashviz.engine.tiling import GPU_PRESETS  # noqa: E402

PAGE = "decoding"


def _programs(batch, heads, workers, queries=1, block_m=128):
    """FlashAttention-2's grid: (ceil(Nq / Br), B, H) programs; flash-decoding multiplies it by W."""
    return math.ceil(queries / block_m) * batch * heads * workers


@pytest.mark.parametrize("batch,heads,workers", [(1, 32, 1), (1, 32, 4), (1, 32, 5), (4, 32, 1), (64, 32, 8),
                                                 (1, 8, 16)])
def test_decode_grid_counts_programs_and_sms(batch, heads, workers):
    g = decode_grid(batch, heads, "H200", workers=workers)
    p = _programs(batch, heads, workers)
    assert g.programs == p and g.busy == min(p, 132) and g.waves == math.ceil(p / 132)
    assert g.busy_share == min(p, 132) / 132


def test_the_issues_example_and_prefill_for_contrast():
    assert GPU_PRESETS["H200"]["sms"] == GPU_PRESETS["H100"]["sms"] == 132
    one = decode_grid(1, 32, "H200")
    assert (one.programs, one.sms, round(100 * one.busy_share)) == (32, 132, 24)   # B = 1, H = 32: 32 CTAs, 132 SMs
    assert decode_grid(1, 32, "H200", workers=4).programs == 128
    assert decode_grid(1, 32, "H100", queries=4096).programs == 32 * 32          # prefill: 32 query blocks per head
    assert decode_grid(1, 32, "A100").busy == 32 and decode_grid(8, 32, "A100").busy == 108
    for bad in (dict(batch=0, heads=32), dict(batch=1, heads=32, gpu="B200")):
        with pytest.raises(InputError):
            decode_grid(**bad)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_opens_on_the_programs_against_the_sms(lang):
    at = open_page(PAGE, lang=lang)
    clean(at)
    w = at.slider(key="_w.decoding.workers").value
    assert w == 4
    want = t("decoding.grid", lang, b=1, h=32, gpu="H200", sms=132, p1=32, s1="24", w=4, pw=128,
             sw=f"{100 * 128 / 132:.0f}", more="")           # 128 programs fit the 132 SMs: no word about waves
    assert at.markdown[1].value == want                       # right under the idea
    assert [e.label for e in at.main.expander] == [t(f"decoding.{k}_header", lang) for k in ("merge", "grid", "paged")]
    grid = next(d.value for d in at.dataframe if t("decoding.col_programs", lang) in d.value.columns)
    assert list(grid[t("decoding.col_programs", lang)]) == [_programs(b, 32, w_) for b in (1, 4, 16, 64)
                                                             for w_ in (1, 2, 4, 8)]
    at.slider(key="_w.decoding.workers").set_value(7).run()
    clean(at)
    assert at.markdown[1].value == t("decoding.grid", lang, b=1, h=32, gpu="H200", sms=132, p1=32, s1="24", w=7,
                                     pw=224, sw="100", more=t("decoding.grid_more", lang, waves=2))   # 224 > 132


def test_the_chinese_page_has_no_english_prose():
    from helpers.zh import english_on_a_chinese_page
    at = open_page(PAGE, lang="zh")
    clean(at)
    assert not english_on_a_chinese_page(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_workers_past_n_split_one_key_each_while_the_grid_keeps_w(lang):
    """The slider reaches 64 for the H200 count; a row of N = 16 keys (or 5 typed scores) splits over N workers of
    one key each, says so, and still merges to the single pass."""
    at = open_page(PAGE, lang=lang)
    at.slider(key="_w.decoding.workers").set_value(64).run()
    clean(at)
    assert at.markdown[1].value == t("decoding.grid", lang, b=1, h=32, gpu="H200", sms=132, p1=32, s1="24", w=64,
                                     pw=2048, sw="100", more=t("decoding.grid_more", lang, waves=16))  # 2048 / 132
    assert t("decoding.workers_capped", lang, w=64, n=16) in [c.value for c in at.caption]
    assert next(m.value for m in at.metric if m.label == t("decoding.ctr_workers", lang)) == "16"
    at = open_page(PAGE, lang=lang, scores="1, 2, 3, -1, 0.5")
    at.slider(key="_w.decoding.workers").set_value(8).run()
    clean(at)
    assert t("decoding.workers_capped", lang, w=8, n=5) in [c.value for c in at.caption]
    assert next(m.value for m in at.metric if m.label == t("decoding.ctr_workers", lang)) == "5"
