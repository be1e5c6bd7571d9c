"""The block / traffic / decoding / paging charts carry the engine's numbers, and their strings exist in
English and Chinese. Expected numbers are written out from the formulas where they are simple."""
import string
import subprocess
import sys

import numpy as np
import pytest

from flashviz.charts import blocks as B
from flashviz.charts import blocks_ratio as R
from flashviz.engine.decoding import build_paged_cache, flash_decode, paged_attention
from flashviz.infra.errors import InputError
from flashviz.i18n import STRINGS, t
from flashviz.engine.tiling import (GRID_CURRENT, GRID_DONE, GRID_PENDING, GRID_SKIPPED, Schedule, make_config,
                                    preset_sram_bytes)
from flashviz.engine.traffic import ratio_limits, standard_counts, sweep_n, sweep_sram


def by_name(fig, key, lang="en", **fmt):
    name = t(key, lang, **fmt)
    found = [tr for tr in fig.data if tr.name == name]
    assert len(found) == 1, f"no single trace named {name!r}"
    return found[0]


# ----------------------------------------------------------------------------- grid

@pytest.mark.parametrize("order", ["fa1", "fa2"])
def test_grid_states_outlines_and_masked_blocks(order):
    # N = 10, Br = 4, Bc = 3, causal: Tr = 3, Tc = 4; rows 0-3 / 4-7 / 8-9, keys 0-2 / 3-5 / 6-8 / 9
    sch = Schedule(make_config(10, 2, br=4, bc=3, causal=True), order)
    skipped = {(0, 2), (0, 3), (1, 3)}                      # every key after every query of the block
    masked = {(0, 0), (0, 1), (1, 1), (1, 2), (2, 3)}       # some key after some query; (2, 2) is full
    assert sch.steps == 12 - len(skipped)
    fa1_order = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (1, 2), (2, 2), (2, 3)]
    fa2_order = [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2), (2, 3)]
    visit = fa1_order if order == "fa1" else fa2_order
    step = 4
    fig = B.grid_figure(sch, step)
    z = np.asarray(fig.data[0].z)
    want = np.full((3, 4), GRID_PENDING)
    for i, j in skipped:
        want[i, j] = GRID_SKIPPED
    for i, j in visit[:step]:
        want[i, j] = GRID_DONE
    want[visit[step]] = GRID_CURRENT
    np.testing.assert_array_equal(z, want)
    assert set(zip(fig.data[1].y, fig.data[1].x)) == masked
    i, j = visit[step]
    row, col = fig.layout.shapes[0], fig.layout.shapes[1]
    assert (row.y0, row.y1, row.x0, row.x1) == (i - 0.5, i + 0.5, -0.5, 3.5)
    assert (col.x0, col.x1, col.y0, col.y1) == (j - 0.5, j + 0.5, -0.5, 2.5)
    assert "step 5 of 9" in fig.layout.title.text
    names = {tr.name for tr in fig.data}
    assert t("blocks.onchip_q", "en", i=i) in names and t("blocks.onchip_kv", "en", j=j) in names
    assert fig.data[0].customdata[i][j] == t("blocks.state_current", "en")
    assert list(fig.layout.yaxis.range) == [2.5, -0.5]         # Q block 0 at the top


def test_grid_chinese_and_large():
    sch = Schedule(make_config(4096, 64, br=64, bc=64), "fa2")
    fig = B.grid_figure(sch, 100, "zh")
    assert "第 101 / 4096 步" in fig.layout.title.text and t("blocks.order_fa2", "zh") in fig.layout.title.text
    z = np.asarray(fig.data[0].z)
    assert z.shape == (64, 64) and (z == GRID_DONE).sum() == 100 and z[1, 36] == GRID_CURRENT
    assert fig.data[0].customdata is None or len(fig.data[0].customdata) == 64
    assert len(fig.data[1].x) == 0                            # not causal: nothing masked


# ----------------------------------------------------------------------------- traffic bars

def test_traffic_bars_numbers():
    cfg = make_config(256, 16, br=32, bc=64)
    sch = Schedule(cfg, "fa1")
    fig = B.traffic_bars_figure(sch.cumulative(9), sch.totals(), standard_counts(256, 16))
    sofar, total, std = fig.data[:3]
    labels = list(sofar.y)
    assert labels == ["Q", "K", "V", "O", "ℓ", "m", "S", "P"]     # FA1 never touches L
    # after step 9 (column j = 1, row block i = 1): Q rows read = 256 (column 0) + 64 = 320
    q = dict(zip(labels, sofar.x))
    assert q["Q"] == 320 * 16 and q["O"] == 320 * 16 + (256 + 320) * 16 and q["ℓ"] == 320 + 256 + 320
    assert q["K"] == 128 * 16 and q["S"] == 0
    tot = dict(zip(labels, total.x))
    assert tot["Q"] == 4 * 256 * 16                              # Tc = 4 passes over Q
    st = dict(zip(labels, std.x))
    assert st["S"] == st["P"] == 2 * 256 * 256 and st["O"] == 256 * 16
    assert f"standard {4 * 256 * 256 + 4 * 256 * 16:.3g}" in fig.layout.title.text   # 2.78e+05
    fb = B.traffic_bars_figure(sch.cumulative(9), sch.totals(), standard_counts(256, 16, elem_bytes=4), unit="bytes")
    assert dict(zip(fb.data[0].y, fb.data[0].x))["Q"] == 4 * 320 * 16
    with pytest.raises(InputError, match="unit"):
        B.traffic_bars_figure(sch.cumulative(0), sch.totals(), standard_counts(256, 16), unit="words")


# ----------------------------------------------------------------------------- vs M, vs N

def test_traffic_vs_m_has_the_seed_numbers():
    ms = [4096, 102_400, 1 << 20]
    sw = sweep_sram(1024, 64, ms)
    fig = B.traffic_vs_m_figure(sw, theta_scale=12, std_scale=4, mark_bytes=102_400,
                                presets={"A100": preset_sram_bytes("A100"), "H100": preset_sram_bytes("H100")})
    std = by_name(fig, "blocks.series_standard")
    fa1 = by_name(fig, "blocks.series_fa1")
    fa2 = by_name(fig, "blocks.series_fa2")
    th = by_name(fig, "blocks.series_theta_flash", c="12")
    ths = by_name(fig, "blocks.series_theta_std", c="4")
    np.testing.assert_allclose(fa1.x, [4, 100, 1024])                 # KiB
    np.testing.assert_array_equal(std.y, [4_456_448] * 3)
    np.testing.assert_array_equal(ths.y, [4_456_448] * 3)           # 4 x (N d + N²)
    # the worked example's M = 100 KiB; the FA2 order with the kernel's Br = 128: Nd + 2·(N/128)·N·d + Nd + N
    assert fa1.y[1] == 2_406_400 and fa2.y[1] == 1024 * 64 + 2 * 8 * 1024 * 64 + 1024 * 64 + 1024
    assert len(set(fa2.y)) == 1                                       # the FA2 order's tiles do not follow M
    np.testing.assert_allclose(th.y, [12 * 1024**2 * 64**2 / (m / 4) for m in ms])
    assert th.y[1] == pytest.approx(12 * 167_772.16)
    xs = sorted(s.x0 for s in fig.layout.shapes)
    assert xs == [100, 163, 227]                                      # M per thread block: A100, H100
    assert fig.layout.xaxis.type == "log" and "N = 1024, d = 64" in fig.layout.title.text
    fb = B.traffic_vs_m_figure(sw, unit="bytes")
    assert by_name(fb, "blocks.series_fa1").y[1] == 4 * 2_406_400
    with pytest.raises(InputError, match="sweep over M"):
        B.traffic_vs_m_figure(sweep_n([64], 64, br=16, bc=16))


def test_traffic_vs_n_numbers():
    ns = [128, 1024, 4096]
    sw = sweep_n(ns, 64, br=64, bc=64, causal=True)
    fig = B.traffic_vs_n_figure(sw, "zh")
    np.testing.assert_array_equal(by_name(fig, "blocks.series_standard", "zh").x, ns)
    np.testing.assert_array_equal(by_name(fig, "blocks.series_standard", "zh").y,
                                  [4 * n * n + 4 * n * 64 for n in ns])
    # FA2, causal, Br = Bc = 64 | N: reads Nd + 2 d N (T + 1) / 2, writes Nd + N
    want = [n * 64 + 2 * 64 * n * (n // 64 + 1) // 2 + n * 64 + n for n in ns]
    np.testing.assert_array_equal(by_name(fig, "blocks.series_fa2", "zh").y, want)
    assert not any(tr.name == t("blocks.series_theta_flash", "zh", c="1") for tr in fig.data)   # no M here
    assert "Br = 64，Bc = 64" in fig.layout.title.text
    fm = B.traffic_vs_n_figure(sweep_n(ns, 64, sram_bytes=102_400))
    assert "M = 100 KiB" in fm.layout.title.text
    np.testing.assert_allclose(by_name(fm, "blocks.series_theta_flash", c="1").y,
                               [n * n * 64 * 64 / 25_600 for n in ns])


# ----------------------------------------------------------------------------- decoding and paging

def test_decoding_figure_numbers():
    rng = np.random.default_rng(5)
    s, v = rng.standard_normal(30), rng.standard_normal((30, 3))
    s[10:20] = -np.inf                                              # worker 1 of 3 sees nothing
    res = flash_decode(s, v, 3)
    fig = B.decoding_figure(res)
    share = fig.data[0]
    assert list(share.x) == ["W0", "W1", "W2"] and share.y[1] == 0.0
    p = np.exp(s - s.max())
    want_share = [p[0:10].sum() / p.sum(), 0.0, p[20:30].sum() / p.sum()]
    np.testing.assert_allclose(share.y, want_share, rtol=1e-12)
    assert share.text[1] == "m=-inf"
    merged = by_name(fig, "blocks.dec_merged")
    exact = (p / p.sum()) @ v
    np.testing.assert_allclose(merged.y, exact, rtol=1e-12)
    np.testing.assert_allclose(by_name(fig, "blocks.dec_single").y, exact, rtol=1e-12)
    np.testing.assert_allclose(by_name(fig, "blocks.dec_exact").y, exact, rtol=1e-12)
    partial = by_name(fig, "blocks.dec_partial")
    assert len(partial.y) == 9
    np.testing.assert_allclose(partial.y[:3], (p[:10] / p[:10].sum()) @ v[:10], rtol=1e-12)
    np.testing.assert_array_equal(partial.y[3:6], [0, 0, 0])
    assert "3 workers" in fig.layout.title.text
    big = B.decoding_figure(flash_decode(rng.standard_normal(3000), rng.standard_normal((3000, 2)), 3000))
    assert not any(tr.name == t("blocks.dec_partial", "en") for tr in big.data)   # too many points


def test_paged_figure_numbers():
    rng = np.random.default_rng(2)
    k, v = rng.standard_normal((22, 4)), rng.standard_normal((22, 4))
    cache = build_paged_cache(k, v, 5, seed=9, num_physical=7)      # 5 logical blocks, 2 free slots
    res = paged_attention(rng.standard_normal(4), cache)
    fig = B.paged_figure(res, "zh", step=3)
    seg = fig.data[0]
    x = np.asarray(seg.x, dtype=float).reshape(-1, 3)
    np.testing.assert_array_equal(x[:, 0], np.arange(5))
    np.testing.assert_array_equal(x[:, 1], cache.block_table)
    phys = fig.data[2]
    owner = cache.owner
    assert list(phys.text) == [str(o) if o >= 0 else "·" for o in owner] and list(phys.text).count("·") == 2
    assert [c for c in phys.customdata if c == "空闲"] == ["空闲", "空闲"]
    now = fig.data[3]
    assert list(now.x) == [3, int(cache.block_table[3])] and now.name == "当前这一步"
    np.testing.assert_array_equal(np.asarray(fig.data[1].customdata)[:, 1], [5, 5, 5, 5, 2])
    with pytest.raises(InputError, match="step must be in 0..4"):
        B.paged_figure(res, step=5)


# ----------------------------------------------------------------------------- strings, purity

def test_block_strings_complete_in_both_languages():
    keys = [k for k in STRINGS if k.startswith("blocks.")]
    assert len(keys) > 30
    fields = lambda s: {f for _, f, _, _ in string.Formatter().parse(s) if f}        # noqa: E731
    for k in keys:
        en, zh = STRINGS[k]["en"], STRINGS[k]["zh"]
        assert en and zh
        if k != "blocks.hover_block":                               # a plotly template, not a format string
            assert fields(en) == fields(zh), k
    assert any("\u4e00" <= ch <= "\u9fff" for ch in STRINGS["blocks.vs_m_title"]["zh"])
    for term in ("片上 SRAM", "HBM", "访问次数", "分块"):
        assert any(term in STRINGS[k]["zh"] for k in keys), term


def test_ratio_vs_n_levels_off_at_the_engines_limits():
    ns = [2 ** k for k in range(6, 21)]
    sw = sweep_n(ns, 64, sram_bytes=102_400)
    lim = ratio_limits(64, sram_elems=25_600)
    fig = R.ratio_vs_n_figure(sw, lim, "zh", mark_n=1024)
    fa1, fa2 = by_name(fig, "traffic.series_fa1", "zh"), by_name(fig, "traffic.series_fa2", "zh")
    std = np.array([4 * n * n + 4 * n * 64 for n in ns])
    np.testing.assert_allclose(fa1.y, std / sw.elements["fa1"])
    np.testing.assert_allclose(fa2.y, std / np.array([n * 64 * 2 + 2 * (-(-n // 128)) * n * 64 + n for n in ns]))
    th = by_name(fig, "traffic.series_theta", "zh")
    np.testing.assert_allclose(th.y, [(n * 64 + n * n) * 25_600 / (n * n * 64 * 64) for n in ns])
    assert fa1.y[-1] == pytest.approx(lim["fa1"], rel=1e-3) and fa2.y[-1] == pytest.approx(2 * 128 / 64, rel=1e-3)
    dashed = sorted(s.y0 for s in fig.layout.shapes if s.line.dash == "dash")
    assert dashed == sorted([400 / 196, 4.0, 6.25])
    assert any(s.x0 == 1024 for s in fig.layout.shapes if s.line.dash == "dot")
    assert fig.layout.yaxis.type == "log" and "标准 ÷ flash" in fig.layout.title.text
    pinned = R.ratio_vs_n_figure(sweep_n(ns, 64, br=64, bc=64), ratio_limits(64, br=64, bc=64))
    assert not any(tr.name == t("traffic.series_theta") for tr in pinned.data)     # no M, no Θ ratio
    with pytest.raises(InputError, match="sweep over N"):
        R.ratio_vs_n_figure(sweep_sram(64, 64, [1 << 16]), lim)


def test_ratio_vs_m_marks_theorem_2s_range():
    xs = [1 << k for k in range(10, 23)]
    sw = sweep_sram(1024, 64, xs)
    fig = R.ratio_vs_m_figure(sw)
    np.testing.assert_allclose(by_name(fig, "traffic.series_fa1").x, np.array(xs) / 1024)
    np.testing.assert_allclose(by_name(fig, "traffic.series_fa1").y, 4_456_448 / sw.elements["fa1"])
    rect, whole = fig.layout.shapes[0], fig.layout.shapes[1]
    assert (rect.type, rect.x0, rect.x1) == ("rect", 64 * 4 / 1024, 1024 * 64 * 4 / 1024)     # d <= M <= N·d
    assert whole.x0 == 4 * 1024 * 64 * 4 / 1024                                               # Bc = N from here
    y = by_name(fig, "traffic.series_fa1").y
    past = np.array(xs) >= 4 * 1024 * 64 * 4
    assert len(set(np.round(y[past], 9))) == 1 and y[~past].max() < y[past][0]              # flat once Bc = N
    assert np.all(np.diff(y[~past]) > 0) and y[1] / y[0] == pytest.approx(2, rel=0.02)   # grows; ~2x per 2x M at small M
    with pytest.raises(InputError, match="sweep over M"):
        R.ratio_vs_m_figure(sweep_n([64], 64, br=16, bc=16))


def test_charts_do_not_import_streamlit():
    code = "import sys, flashviz.charts.blocks, flashviz.charts.blocks_ratio; sys.exit('streamlit' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
