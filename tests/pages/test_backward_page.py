"""AppTest of app.py on the page "Backward and recomputation": the stored-bytes table against the closed forms,
the recorded numbers against the dataset's cells, provenance, the interpreter demo, errors, language, shared config."""
from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from helpers import app as app_util
from helpers.app import chart_specs_by_key as charts, array, clean
from flashviz.i18n import t
from flashviz.infra.literal import unmd

from flashviz.bench import list_datasets, load_dataset
from flashviz.ui.pages import switch
from flashviz.infra.units import ELEM_BYTES

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE, STEPPER, BLOCKS = "backward", "stepper", "blocks"
TRAIN = ROOT / "assets" / "benchmarks" / "nvidia-h200-train-2026-12-03b.json"
W = "_w.cfg."
MIB = 2 ** 20


# The small configuration these tests were written for (the page opens on a recorded size: test_opens_...).
SMALL = dict(n=16, d=4, dtype="float32")
TEACHING, FAST = "ours: teaching forward + {k}", "ours: fast forward + {k}"


def open_page(page: str = PAGE, lang: str | None = None, **values) -> AppTest:
    return app_util.open_page(page, lang=lang, **({**SMALL, **values} if page == PAGE else values))


def config(at):
    return app_util.page_config(at, PAGE)


TABLES = {"stored": "elements per head", "peak": "N", "flops": "matmuls per tile", "times": "implementation",
          "grads": "gradient", "saved": "path"}            # AppTest gives no dataframe keys: find one by a column


def table(at: AppTest, name: str, column: str | None = None):
    col = column or TABLES[name]
    return next(d.value for d in at.dataframe if col in d.value.columns)


def demo_shown(at: AppTest) -> dict:
    """What the demo shows: N (its heading), our max errors (gradient table), new bytes saved (metrics)."""
    [head] = [s.value for s in at.subheader if s.value.startswith("Gradients against float64")]
    shown = {m.label: m.value for m in at.metric}
    nbytes = lambda label: int(shown[label].removesuffix(" B").replace(",", ""))  # noqa: E731
    return dict(n=int(re.search(r"N = (\d+)", head).group(1)),
                ours_err=[float(x) for x in table(at, "grads")["ours: max |Δ| vs float64"]],
                naive_new=nbytes("naive: new bytes saved"), ours_new=nbytes("ours: new bytes saved"))


@pytest.fixture(scope="module")
def train():
    return load_dataset(TRAIN)


def cell(ds, impl, mode, n=4096, d=64, causal=False):
    return next(c for c in ds["cells"] if (c["impl"], c["mode"], c["n"], c["d"], c["causal"]) ==
                (impl, mode, n, d, causal))


# ----------------------------------------------------------------------------- renders

def test_renders_with_defaults():
    at = open_page()
    clean(at)
    assert at.title[0].value == "Backward and recomputation"
    assert set(charts(at)) == {"backward.stored", "backward.peak", "backward.flops", "backward.times",
                               "backward.registers"}
    cfg = json.loads(next(c for c in at.get("plotly_chart") if c.key == "backward.stored").proto.config)
    assert cfg["toImageButtonOptions"]["filename"] == "flashviz_backward_stored_N16_d4_fp32_B4_H32"
    assert any("Press the button" in i.value for i in at.info)          # the demo waits for its button


@pytest.mark.parametrize("values", [{}, dict(n=4096, d=64, dtype="float16"),
                                    {"n": 1000, "d": 80, "dtype": "bfloat16", "causal": True,
                                     "backward.batch": 2, "backward.heads": 3}])
def test_stored_table_equals_the_closed_forms(values):
    at = open_page(**values)
    clean(at)
    ss, c = at.session_state, config(at)
    n, d, b, h = c.n, c.d, ss["backward.batch"], ss["backward.heads"]
    e = {"float32": 4, "float16": 2, "bfloat16": 2}[c.dtype]
    df = table(at, "stored")
    col = next(c for c in df.columns if c.startswith("bytes"))
    got = dict(zip(df["tensor"], df[col]))
    assert got == {"S": b * h * n * n * e, "P": b * h * n * n * e, "O": b * h * n * d * e, "LSE": b * h * n * 4}
    assert list(df["standard keeps"]) == ["✓", "✓", "", ""] and list(df["FlashAttention keeps"]) == ["", "", "✓", "✓"]
    ratio = 2 * n * n * e / (n * d * e + 4 * n)
    assert {m.label: m.value for m in at.metric}["ratio"] == f"{ratio:,.1f}×"
    fig = charts(at)["backward.stored"]
    assert [list(array(tr["y"])) for tr in fig["data"]] == [[got["S"], got["P"]], [got["O"], got["LSE"]]]
    assert fig["layout"]["yaxis"]["type"] == "log"


# ----------------------------------------------------------------------------- recorded numbers

def test_times_at_the_nearest_recorded_configuration(train):
    at = open_page()                                       # N = 16, d = 4, fp32: not recorded
    clean(at)
    assert any("nearest recorded configuration: N = 1024, d = 64, no mask, fp16, B = 4, H = 32" in m.value
               for m in at.markdown)
    df = table(at, "times").set_index("implementation")
    kernel = t("backward.kernel_ws", "en")                # the recording's rule at d = 64 (its provenance)
    names = {"naive": "naive (autograd)", "sdpa-flash": "SDPA flash", "sdpa-cudnn": "SDPA cuDNN",
             "fa4": "FlashAttention-4", "teaching": TEACHING.format(k=kernel), "fast": FAST.format(k=kernel)}
    near = functools.partial(cell, n=1024)                          # the recorded N nearest to N = 16
    fast_b, fast_s = near(train, "fast", "bwd"), near(train, "fast", "fwd+bwd")
    assert list(df.index) == list(names.values())                  # FlashAttention-4 beside cuDNN
    for impl, name in names.items():
        b, s = near(train, impl, "bwd"), near(train, impl, "fwd+bwd")
        row = df.loc[name]
        assert row["backward ms"] == f"{b['ms']:.2f}" and row["training step ms"] == f"{s['ms']:.2f}"
        assert row["step peak MiB"] == f"{s['peak_extra_bytes'] / MIB:,.0f}"
        assert row["backward ms, CUDA graph"] == f"{b['graph_ms']:.2f}"          # GPU time alone, replayed
        if impl == "teaching":                            # the same backward kernel as fast's row: no ratio
            assert row["ours (fast) faster, backward"] == row["ours (fast) faster, backward, CUDA graph"] == "—"
        else:
            assert row["ours (fast) faster, backward"] == f"{b['ms'] / fast_b['ms']:.2f}×"
            assert row["ours (fast) faster, backward, CUDA graph"] == f"{b['graph_ms'] / fast_b['graph_ms']:.2f}×"
    assert t("backward.graph_note", "en") in [x.value for x in at.caption]
    # the speed-ups are the dataset's own: t_flash / t_fast = fast's speedup_vs_flash
    assert df.loc["SDPA flash", "ours (fast) faster, backward"] == f"{fast_b['speedup_vs_flash']:.2f}×"
    flash_b = near(train, "sdpa-flash", "bwd")
    assert np.isclose(fast_b["speedup_vs_flash"], flash_b["ms"] / fast_b["ms"])       # the ratio is of the times
    assert df.loc["SDPA cuDNN", "ours (fast) faster, step"] == f"{fast_s['speedup_vs_cudnn']:.2f}×"
    assert df.loc["naive (autograd)", "ours (fast) faster, backward"] == f"{fast_b['speedup_vs_naive']:.2f}×"
    bars = charts(at)["backward.times"]["data"]
    assert np.allclose(array(bars[0]["y"]), [near(train, i, "bwd")["ms"] for i in names])


def test_exact_configuration_and_the_recorded_d128_numbers(train):
    at = open_page(n=8192, d=128, causal=True, dtype="float16")
    clean(at)
    assert any("Recorded at exactly your configuration: N = 8192, d = 128, causal" in m.value for m in at.markdown)
    df = table(at, "times").set_index("implementation")
    fast = cell(train, "fast", "bwd", 8192, 128, True)
    assert df.loc["SDPA flash", "ours (fast) faster, backward"] == f"{fast['speedup_vs_flash']:.2f}×"
    summary = next(m.value for m in at.markdown if "every configuration of this recording" in m.value)
    for d in (64, 128):                       # the range over every backward cell, from the times themselves
        ratios = [cell(train, "sdpa-flash", "bwd", c["n"], d, c["causal"])["ms"] / c["ms"] for c in train["cells"]
                  if c["impl"] == "fast" and c["mode"] == "bwd" and c["d"] == d and c["status"] == "ok"]
        assert len(ratios) >= 4 and f"d = {d}: {min(ratios):.2f}–{max(ratios):.2f}× vs SDPA flash" in summary


def test_peak_memory_chart_and_table_are_the_dataset_cells(train):
    at = open_page()
    clean(at)
    fig = charts(at)["backward.peak"]
    assert fig["layout"]["xaxis"]["type"] == "log" and fig["layout"]["yaxis"]["type"] == "log"
    by_name = {tr["name"]: tr for tr in fig["data"]}
    for impl, name in (("fast", "ours: fast"), ("sdpa-flash", "SDPA flash"), ("naive", "naive (autograd)")):  # chart
        ok = [c for c in train["cells"] if c["impl"] == impl and c["mode"] == "fwd+bwd" and c["d"] == 64
              and not c["causal"] and c["status"] == "ok"]
        assert list(array(by_name[name]["x"])) == [c["n"] for c in ok]
        assert np.allclose(array(by_name[name]["y"]), [c["peak_extra_bytes"] / MIB for c in ok])
    oom = by_name["naive (autograd): out of memory"]
    oom_n = [c["n"] for c in train["cells"] if c["impl"] == "naive" and c["mode"] == "fwd+bwd" and c["d"] == 64
             and not c["causal"] and c["status"] == "oom"]
    assert oom_n and list(array(oom["x"])) == oom_n and oom["text"] == ["OOM"] * len(oom_n)
    assert np.isclose(array(oom["y"])[0], train["provenance"]["total_memory_bytes"] / MIB)   # on the memory line
    df = table(at, "peak").set_index("N")
    assert df.loc[16384, "naive (autograd)"] == "OOM"
    assert df.loc[8192, "ours: fast"] == f"{cell(train, 'fast', 'fwd+bwd', 8192)['peak_extra_bytes'] / MIB:,.0f}"
    assert df.loc[4096, "naive (autograd)"] == "16,576"


def test_provenance_beside_each_recorded_chart(train):
    at = open_page()
    p = train["provenance"]
    shown = [c.value for c in at.caption if c.value.startswith("Measured on") and p["command"] in c.value]
    assert len(shown) == 2                                 # peak memory and times (the registers chart: its own)
    for text in shown:
        for v in ("NVIDIA H200", p["driver_version"], p["cuda_version"], p["torch"], p["triton"], p["created_utc"][:10],
                  p["git_commit"], p["command"]):
            assert v in text, v


# ----------------------------------------------------------------------------- the interpreter demo

@pytest.mark.parametrize("values, bound", [({}, 1e-5),
                                           ({"causal": True, "dtype": "float16", "backward.demo_n": 96,
                                             "backward.demo_d": 16, "backward.demo_impl": "fast"}, 1e-2)])
def test_demo_gradients_and_saved_bytes(values, bound):
    at = open_page(**values)
    at.button(key="backward.demo_run").click().run()
    clean(at)
    v = demo_shown(at)
    n, e = v["n"], ELEM_BYTES[values.get("dtype", "float32")]
    assert v["n"] == values.get("backward.demo_n", v["n"]) and all(x < bound for x in v["ours_err"])
    assert v["naive_new"] >= n * n * e                     # P at least
    assert v["ours_new"] == 4 * n                          # the fp32 log-sum-exp only
    assert list(table(at, "grads")["within"]) == ["✓"] * 3
    saved = table(at, "saved")
    assert saved[saved["path"] == "ours"]["what"].tolist()[-2:] == ["O", "L = m + log ℓ (log-sum-exp), N"]
    assert "P = softmax(S), N × N" in saved[saved["path"] == "naive"]["what"].tolist()
    at.run()                                               # a rerun keeps the cached result
    assert demo_shown(at) == v


# ----------------------------------------------------------------------------- errors, language, shared config

BAD = [({"backward.demo_n": 500}, "the demo's N on CPU (Triton's interpreter) must be in 1..128, got 500"),
       ({"backward.demo_d": 100}, "the demo's head dim d on CPU (Triton's interpreter) must be in 1..64, got 100"),
       ({"backward.batch": 0}, "batch B must be in 1..65536, got 0"),
       ({"n": 0}, "N must be between 1 and 16384")]


@pytest.mark.parametrize("values, message", BAD, ids=["demo_n", "demo_d", "batch", "n"])
def test_bad_input_shows_a_message(values, message):
    at = open_page(**values)
    assert not at.exception
    assert len(at.error) == 1 and message in at.error[0].value, [e.value for e in at.error]


def test_a_recording_without_training_cells_is_not_offered():
    """A forward-only source left in the session (an older link, a file picked on another page) falls back to a
    training recording; the engine itself still refuses it with a typed error."""
    at = open_page(**{"backward.source": "nvidia-h200-fwd-2026-11-29.json"})
    clean(at)
    assert not at.exception and not at.error
    picked = at.selectbox(key="_w.backward.source").value
    assert picked != "nvidia-h200-fwd-2026-11-29.json" and table(at, "times") is not None
    from flashviz.bench import training
    from flashviz.infra.errors import InputError
    with pytest.raises(InputError, match="training"):
        training.training_view(load_dataset(Path(list_datasets()[0]).parent / "nvidia-h200-fwd-2026-11-29.json"),
                         n=4096, d=64, causal=False, dtype="float16", batch=4, heads=32)


def test_chinese():
    at = open_page(lang="zh")
    clean(at)
    assert at.title[0].value == "反向传播与重计算"
    assert at.button(key="backward.demo_run").label == "运行前向 + 反向传播（Triton 解释器，CPU）"
    text = " ".join(m.value for m in at.markdown)
    for term in ("重计算", "反向传播", "显存", "HBM", "片上 SRAM", "log-sum-exp", "统计量 m 和 ℓ"):
        assert term in text, term
    assert table(at, "times", "实现").shape[0] == 6                    # FlashAttention-4 among them


def test_shared_config_carries_across_pages():
    at = AppTest.from_file(APP, default_timeout=60).run()              # the stepper: its small row stays its own
    at.number_input(key=W + "n").set_value(64).run()
    switch(at, PAGE).run()
    clean(at)
    assert at.number_input(key=W + "n").value == 4096                  # the realistic, recorded size
    at.number_input(key=W + "n").set_value(2048).run()
    clean(at)
    assert table(at, "stored").iloc[0, 2] == 2048 * 2048              # S: N² elements per head
    at.number_input(key=W + "d").set_value(64).run()                    # change it here ...
    at.number_input(key="_w.backward.batch").set_value(2).run()
    switch(at, BLOCKS).run()
    clean(at)
    assert at.number_input(key=W + "d").value == 64                     # ... the blocks page follows
    switch(at, PAGE).run()
    assert at.number_input(key="_w.backward.batch").value == 2          # this page's own value survived


def test_training_size_button():
    """The button's label names the size it sets, and that size is one the recording shows exactly."""
    at = open_page()
    button = at.button(key="backward.load_training")
    button.click().run()
    clean(at)
    c = config(at)
    assert (c.n, c.d, c.dtype, c.causal) == (4096, 64, "float16", False)
    assert f"N = {c.n}, d = {c.d}, fp16" in button.label
    assert any(f"Recorded at exactly your configuration: N = {c.n}, d = {c.d}" in m.value for m in at.markdown)


def test_opens_on_a_recorded_size_with_rows_labelled_by_the_backward_kernel(train):
    """Truths 8 and 9: teaching and fast ran one backward kernel (named from the recording's provenance), so no
    ratio between them; their difference is called noise, computed; the tune file is named a separate run."""
    at = app_util.open_page(PAGE)
    clean(at)
    c = config(at)
    assert (c.n, c.d, c.dtype) == (4096, 128, "float16")
    assert any("Recorded at exactly your configuration: N = 4096, d = 128" in m.value for m in at.markdown)
    view = at.session_state["backward.times_view"]
    assert view["kernel"] == t("backward.kernel_ws", "en")
    tb, fb = cell(train, "teaching", "bwd", d=128), cell(train, "fast", "bwd", d=128)
    assert view["noise"] == pytest.approx(abs(tb["ms"] - fb["ms"]) / fb["ms"])
    assert any(f"differ by {100 * view['noise']:.1f}%" in x.value and "noise" in x.value for x in at.caption)
    df = table(at, "times").set_index("implementation")
    k = t("backward.kernel_ws", "en")
    assert df.loc[TEACHING.format(k=k), "ours (fast) faster, backward"] == "—"
    assert any("separate run" in x.value for x in at.caption)
    # truth 10: FA1 kept m and l separately; one log-sum-exp per row is FA2's change
    assert "FlashAttention-1 kept m and ℓ" in at.markdown[0].value and "FlashAttention-2 keeps one" in at.markdown[0].value
    # the degenerate default is gone: the trade is computed at the realistic size
    trade = next(m.value for m in at.markdown if "What it buys" in m.value)
    assert "e-0" not in trade


def test_live_source_on_a_gpu_is_wired_to_flashviz_live(monkeypatch, train):
    """No GPU here: fake flashviz.bench.live so the page's live path runs with recorded cells as the 'measurements'."""
    from flashviz.bench import live
    from flashviz.bench import provenance as prov
    calls = []

    def fake_sweep(ns, d, causal, dtype, batch, heads, *, mode, **kw):
        calls.append(("sweep", tuple(ns), d, causal, dtype, batch, heads, mode))
        return [dict(c) for c in train["cells"] if c["mode"] == mode and c["d"] == 64 and not c["causal"]]

    def fake_measure(n, d, causal, dtype, batch, heads, *, mode, **kw):
        calls.append(("measure", n, mode))
        return [dict(c) for c in train["cells"] if c["mode"] == mode and c["d"] == 64 and not c["causal"]
                and c["n"] == 4096]
    monkeypatch.setattr(live, "gpu_available", lambda: True)
    monkeypatch.setattr(live, "sweep_live", fake_sweep)
    monkeypatch.setattr(live, "measure_live", fake_measure)
    monkeypatch.setattr(prov, "collect", lambda device, command, timer: dict(train["provenance"], command=command))
    at = open_page(n=4096, d=64, dtype="float16", **{"backward.source": "live"})
    assert not at.exception
    at.button(key="backward.live_run").click().run()
    clean(at)
    assert calls[0] == ("sweep", (1024, 2048, 4096, 8192, 16384), 64, False, "float16", 4, 32, "fwd+bwd")
    assert calls[1] == ("measure", 4096, "bwd")
    assert any("flashviz.bench.live.sweep_live" in c.value for c in at.caption)
    df = table(at, "times").set_index("implementation")
    name = FAST.format(k=t("backward.kernel_ws", "en"))               # the faked provenance's rule at d = 64
    assert df.loc[name, "backward ms"] == f"{cell(train, 'fast', 'bwd')['ms']:.2f}"


def test_every_committed_training_recording_opens():
    """Each committed file with training cells, picked as the source, gives the times table and charts with no
    error; a recording cut short by its time budget is listed after the complete ones."""
    rec = {p.name: load_dataset(p) for p in list_datasets()}
    names = [n for n, ds in rec.items() if any(c["mode"] == "fwd+bwd" for c in ds["cells"])]
    assert names and len(names) < len(rec)                  # some recordings have no training cells: not offered
    at = open_page()
    clean(at)
    options = [o.split(" · ")[0] for o in at.selectbox(key="_w.backward.source").options]   # "name · label"
    options = [o for o in options if o != t("backward.src_live", "en")]
    assert sorted(options) == sorted(names) and options == sorted(options, key=lambda n: not rec[n]["complete"])
    assert rec[options[0]]["complete"]
    for name in names:
        at.selectbox(key="_w.backward.source").set_value(name).run()
        assert not at.exception and not at.error, name
        assert table(at, "times") is not None and "backward.times" in charts(at)


def test_a_broken_committed_file_is_a_warning_and_the_good_one_still_shows(tmp_path, monkeypatch):
    """The page reads committed files through ui.common.committed_recordings: a file that fails its schema is
    named in a warning, the valid training recording is still the source."""
    import shutil

    from flashviz.bench import dataset as ds_mod
    shutil.copy(TRAIN, tmp_path / TRAIN.name)
    (tmp_path / "nvidia-h200-zz-broken.json").write_text('{"schema_version": 1, "kind": "flashviz-bench"}')
    monkeypatch.setattr(ds_mod, "DEFAULT_DIR", tmp_path)
    at = open_page()
    clean(at)
    assert not at.exception
    assert any("nvidia-h200-zz-broken.json" in unmd(w.value) and "left out" in w.value for w in at.warning)
    assert at.selectbox(key="_w.backward.source").value == TRAIN.name


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_registers_section_is_the_tune_file(lang):
    """The ws backward's registers lesson: registers per thread computed from the kernel's constants, each head
    dim's geometric mean from the committed tune file, its chart's bars and the file's provenance beside it."""
    from flashviz.bench import tune_record as tr
    from flashviz.i18n import t
    from flashviz_kernels import ws_bwd
    at = open_page(lang=lang)
    clean(at)
    assert any(e.label == t("backward.regs_header", lang) for e in at.expander)
    text = " ".join(m.value for m in at.markdown)
    assert t("backward.regs_explain", lang, acc128=128, acc64=64, budget=ws_bwd.REGS[0]) in text
    rec = tr.load_tune()
    raw = json.loads(tr.DEFAULT.read_text())
    for d, (held, started) in {128: ("acc=0", "acc=1"), 64: ("acc=0", "acc=1")}.items():
        rows = [r["impls"] for r in raw["rows"] if r["d"] == d]
        tiles = "ws(64, 2, 1, True) tma2" if d == 128 else "ws(64, 3, 1, True) tma2"
        gm = lambda acc: math.prod(r["sdpa-cudnn"]["ms"] / r[f"{tiles} {acc} early=0"]["ms"]  # noqa: E731
                                   for r in rows) ** (1 / len(rows))
        assert t("backward.regs_summary", lang, d=d, held=f"{gm(held):.2f}", started=f"{gm(started):.2f}",
                 cells=len(rows)) in text
    fig = charts(at)["backward.registers"]
    assert [b["name"] for b in fig["data"]] == [t("backward.regs_held", lang), t("backward.regs_started", lang)]
    assert len(fig["data"][0]["y"]) == 12
    [cap] = [c.value for c in at.caption if rec["command"] in c.value]
    for v in (rec["device"], rec["driver"], rec["cuda"], rec["torch"], rec["triton"], rec["date"], rec["git_commit"]):
        assert v in cap, v
