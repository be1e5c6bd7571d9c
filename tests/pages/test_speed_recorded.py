"""AppTest of app.py on the page "Speed and memory" (CPU), its recorded side: the committed datasets with their
provenance, the nearest recorded cell following the shared configuration, FA4 beside cuDNN, CUDA-graph times and
spreads, every committed recording opening on the page, and the chart builders on recorded cells. Uploads, the CPU
exercise, bad input and the shared configuration are in test_speed_page.py."""
from __future__ import annotations

import json
from pathlib import Path

import plotly.graph_objects as go
import pytest

from helpers import app as app_util
from flashviz.infra import literal
from helpers.app import clean
from helpers.speed import FWD, SPEED, dataset_shown, fake_cells, open_page, recorded_note, same_note, texts

from flashviz.bench import list_datasets, load_dataset, nearest_config
from flashviz.charts import speed as charts
from flashviz.i18n import t
from flashviz.ui.speed_live import family_text

ROOT = Path(__file__).resolve().parents[2]
TRAIN = ROOT / "assets" / "benchmarks" / "nvidia-h200-train-2026-12-03b.json"
W = "_w.cfg."


# ----------------------------------------------------------------------------- recorded datasets

def test_renders_with_the_recorded_dataset_and_its_provenance():
    at = open_page()
    clean(at)
    assert at.title[0].value == "Speed and memory"
    assert any("No CUDA GPU on this machine" in i.value for i in at.info)
    assert len(at.get("plotly_chart")) == 2                               # time/TFLOP/s vs N, memory vs N
    body = texts(at)
    prov = load_dataset(FWD)["provenance"]
    for want in ("NVIDIA H200", prov["git_commit"], prov["driver_version"], prov["torch"], prov["triton"],
                 prov["created_utc"][:10], prov["command"]):
        assert want in body, want
    assert at.code[0].value == prov["command"]
    assert body.count("Source: NVIDIA H200") >= 3                        # beside both charts and the table
    assert dataset_shown(at) == f"file:{FWD.name}"
    exported = at.session_state["_export.registry"]["charts"]["speed.rec_perf"].meta   # what the exports carry
    assert exported["provenance"]["device_name"] == "NVIDIA H200" and exported["recorded_configuration"]["n"] == 4096
    # it opens on a recorded cell, says so, and says what configuration it shows
    assert recorded_note(at) == same_note(n=4096, d=128, causal=False, dtype="float16")
    assert any("N = 4096, d = 128, fp16" in c.value and "H200 recordings" in c.value for c in at.caption)
    # truth 17: the source line beside every chart carries the whole date (cut before escaping, not after)
    date = prov["created_utc"][:10]
    sources = [c.value for c in at.caption if c.value.startswith("Source: NVIDIA H200")]
    assert len(sources) >= 3 and all(literal.md(date) in c for c in sources)


def test_nearest_cell_follows_the_shared_configuration():
    at = open_page(n=8192, d=128, causal=True, dtype="float16")
    clean(at)
    assert recorded_note(at) == same_note(n=8192, d=128, causal=True, dtype="float16")
    ds = load_dataset(FWD)
    rec = {c["impl"]: c for c in ds["cells"] if (c["n"], c["d"], c["causal"], c["dtype"]) == (8192, 128, True,
                                                                                                  "float16")}
    df = at.dataframe[0].value
    row = df[df["implementation"] == "naive (PyTorch)"].iloc[0]
    assert row["time (ms)"] == f"{rec['naive']['ms']:.3f}"
    fast = df[df["implementation"] == "fast kernel (Triton)"].iloc[0]
    assert fast["speed-up vs naive"] == f"{rec['naive']['ms'] / rec['fast']['ms']:.2f}×"

    # causal: naive computed all N² scores; its useful TFLOP/s is half what it executed (derived from the time)
    naive = rec["naive"]
    executed = 4 * naive["batch"] * naive["heads"] * 8192 ** 2 * 128 / (naive["ms"] * 1e9)
    assert naive["tflops"] == pytest.approx(executed / 2, rel=1e-6)
    note = next(c.value for c in at.caption if c.value.startswith("Naive attention at N = 8192 with the causal mask"))
    assert f"{naive['ms']:,.2f} ms" in note and f"executed {executed:.0f} TFLOP/s" in note
    assert f"{naive['tflops']:.0f} useful TFLOP/s" in note
    assert "useful TFLOP/s" in df.columns
    explain = next(m.value for m in at.markdown if "what the FLOP counts mean" in m.value)
    assert "Every implementation does the same arithmetic" not in explain and "twice the useful FLOPs" in explain

    at.number_input(key=W + "n").set_value(5000).run()                  # not recorded: the nearest, said so
    clean(at)
    near = nearest_config(load_dataset(FWD), n=5000, d=128, causal=True, dtype="float16", batch=4, heads=32,
                          mode="fwd")
    assert (near["n"], near["d"], near["causal"]) == (4096, 128, True)
    note = recorded_note(at)
    assert "nearest, not the same" in note and "N = 5000" in note and f"**{family_text(near, 'en')}**" in note


def test_use_the_recorded_configuration_writes_the_shared_one():
    at = open_page(n=100, d=100, dtype="float32", row=99, **{"speed.batch": 2})
    at.button(key="speed.use_recorded").click().run()
    clean(at)
    ss, c = at.session_state, app_util.page_config(at, SPEED)
    assert (c.n, c.d, c.dtype, c.causal) == (1024, 128, "float16", False)
    assert 0 <= c.row < c.n                                               # a valid row (a row that exists stays)
    assert recorded_note(at) == same_note(n=1024, d=128, causal=False, dtype="float16")
    assert ss["speed.batch"] == 4 and ss["speed.heads"] == 32


def test_the_pass_picks_the_training_dataset():
    at = open_page(n=8192, d=64, dtype="float16")
    at.segmented_control(key="_w.speed.mode").set_value("bwd").run()
    clean(at)
    assert dataset_shown(at) == f"file:{TRAIN.name}"
    assert recorded_note(at) == same_note(n=8192, d=64, causal=False, dtype="float16", mode="bwd")
    assert json.loads(TRAIN.read_bytes())["provenance"]["git_commit"] in texts(at)   # the training run's commit


def test_fa4_is_drawn_beside_cudnn_in_the_training_recording():
    """FlashAttention-4, a peer timed in the same run, starts visible on the recorded charts (impls the live pass
    does not run otherwise start legend-only) and has its row in the table, with the dataset's times."""
    at = open_page(n=8192, d=64, dtype="float16")
    at.segmented_control(key="_w.speed.mode").set_value("bwd").run()
    clean(at)
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    name = t("speed.impl_fa4", "en")
    for spec in specs:
        [fa4] = [tr for tr in spec["data"] if tr.get("name") == name]
        assert fa4.get("visible", True) is True
    cells = [c for c in load_dataset(TRAIN)["cells"] if (c["mode"], c["n"], c["d"], c["causal"]) == ("bwd", 8192, 64,
                                                                                                     False)]
    fa4, cudnn = (next(c for c in cells if c["impl"] == i) for i in ("fa4", "sdpa-cudnn"))
    df = next(d.value for d in at.dataframe if "implementation" in d.value.columns).set_index("implementation")
    assert list(df.index).index(name) == list(df.index).index("SDPA cuDNN") + 1            # beside cuDNN
    row = df.loc[name]
    assert row["time (ms)"] == f"{fa4['ms']:.3f}" and row["speed-up vs cuDNN"] == f"{cudnn['ms'] / fa4['ms']:.2f}×"


def test_recorded_table_shows_cuda_graph_times_beside_per_call_ones():
    """The training run's backward at N = 1024: the table's CUDA-graph columns are the file's graph_ms and their
    ratio to cuDNN's, and the caption says what they time; our per-call time there is several times the graph's
    (the host's launch path), cuDNN's is not."""
    at = open_page(n=1024, d=64, dtype="float16")
    at.segmented_control(key="_w.speed.mode").set_value("bwd").run()
    clean(at)
    cells = {c["impl"]: c for c in load_dataset(TRAIN)["cells"] if (c["mode"], c["n"], c["d"], c["causal"]) ==
             ("bwd", 1024, 64, False)}
    df = next(d.value for d in at.dataframe if "implementation" in d.value.columns).set_index("implementation")
    fast, cudnn = df.loc[t("speed.impl_fast", "en")], df.loc["SDPA cuDNN"]
    assert fast[t("speed.col_graph_ms", "en")] == f"{cells['fast']['graph_ms']:.3f}"
    assert fast[t("speed.col_graph_cudnn", "en")] == f"{cells['sdpa-cudnn']['graph_ms'] / cells['fast']['graph_ms']:.2f}×"
    assert cudnn[t("speed.col_graph_cudnn", "en")] == "1.00×"
    assert t("speed.graph_note", "en") in texts(at)
    assert cells["fast"]["ms"] > 2 * cells["fast"]["graph_ms"] and cells["sdpa-cudnn"]["ms"] < 1.2 * cells[
        "sdpa-cudnn"]["graph_ms"]


def test_the_table_shows_each_times_spread_and_names_the_noisy_ones():
    """The H100 FA4 recording at N = 16384, d = 128, forward: each row's spread is its cell's p20-p80 over its
    median, and the caption names exactly the impls whose spread exceeds SPREAD_NOISY (cuDNN and fast there,
    whose per-call ratio to FA4 disagrees with the graph one), pointing to the CUDA-graph columns."""
    from flashviz.bench.spec import SPREAD_NOISY
    name = "nvidia-h100-fa4-2026-12-06e-triton38.json"
    at = open_page(n=16384, d=128, dtype="float16")
    at.selectbox(key="_w.speed.dataset").set_value(f"file:{name}").run()
    clean(at)
    cells = {c["impl"]: c for c in load_dataset(Path(FWD).parent / name)["cells"]
             if (c["mode"], c["n"], c["d"], c["causal"]) == ("fwd", 16384, 128, False)}
    df = next(d.value for d in at.dataframe if "implementation" in d.value.columns).set_index("implementation")
    spread = {i: (c["ms_p80"] - c["ms_p20"]) / c["ms"] for i, c in cells.items()}
    for impl, x in spread.items():
        assert df.loc[charts.impl_label(impl, "en"), t("speed.col_spread", "en")] == f"{x:.1%}"
    noisy = [charts.impl_label(r["impl"], "en") for r in charts.ratio_rows(list(cells.values()))
             if spread[r["impl"]] > SPREAD_NOISY]
    assert noisy == ["SDPA cuDNN", charts.impl_label("fast", "en")]
    assert t("speed.noisy_graph", "en", pct="5%", impls=", ".join(noisy)) in texts(at)
    per_call = cells["fa4"]["ms"] / cells["fast"]["ms"]
    graph = cells["fa4"]["graph_ms"] / cells["fast"]["graph_ms"]
    assert abs(per_call - graph) > SPREAD_NOISY                 # why the caption is there: the two ways disagree


def test_noisy_impls_are_those_past_the_threshold_only():
    """speed_live.noisy_impls: strictly above SPREAD_NOISY counts, at it or without a spread (an OOM, a CPU cell
    without quantiles) does not; labels in the page's language."""
    from flashviz.bench.spec import SPREAD_NOISY
    from flashviz.ui.speed_live import noisy_impls
    rows = [dict(impl="fast", spread=SPREAD_NOISY + 1e-9), dict(impl="sdpa-cudnn", spread=SPREAD_NOISY),
            dict(impl="naive", spread=None), dict(impl="fa4", spread=0.2)]
    for lang in ("en", "zh"):
        assert noisy_impls(rows, lang) == [charts.impl_label(i, lang) for i in ("fast", "fa4")]
    assert noisy_impls(rows[1:3], "en") == []


def test_per_call_and_graph_times_differ_most_at_the_smallest_n():
    """The caption's trend, in the training run: for `fast`, per-call over graph time is largest at N = 1024 in
    every (mode, d, causal)."""
    by: dict = {}
    for c in load_dataset(TRAIN)["cells"]:
        if c["impl"] == "fast" and c["status"] == "ok" and c.get("graph_ms"):
            by.setdefault((c["mode"], c["d"], c["causal"]), {})[c["n"]] = c["ms"] / c["graph_ms"]
    assert len(by) == 8
    for ratios in by.values():
        assert max(ratios, key=ratios.get) == min(ratios) == 1024


def test_time_metric_draws_log_axes_with_reference_slopes():
    at = open_page(n=4096, d=128, dtype="float16")
    at.segmented_control(key="_w.speed.metric").set_value("ms").run()
    clean(at)
    perf, mem = (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
    assert perf["layout"]["xaxis"]["type"] == "log" and perf["layout"]["yaxis"]["type"] == "log"
    names = [tr.get("name") for tr in perf["data"]] + [tr.get("name") for tr in mem["data"]]
    assert names.count("∝ N² (reference)") == 2 and names.count("∝ N (reference)") == 2
    assert mem["layout"]["yaxis"]["type"] == "log"


# ----------------------------------------------------------------------------- chart builders

def test_builders_make_valid_figures_with_failure_marks():
    ds = load_dataset(FWD)
    cells = charts.family(ds["cells"], dict(d=64, causal=False, dtype="float16", batch=4, heads=32, mode="fwd"))
    assert {c["n"] for c in cells} == {1024, 2048, 4096, 8192, 16384}
    for lang in ("en", "zh"):
        for fig in (charts.perf_figure(cells, lang, metric="ms", mark_n=4096, shown=("naive", "fast")),
                    charts.perf_figure(cells, lang, metric="tflops"), charts.memory_figure(cells, lang)):
            go.Figure(fig.to_dict())                                      # plotly's own validation
    mem = charts.memory_figure(cells, "en", shown=("naive", "fast"))
    marks = [tr for tr in mem.data if tr.mode == "markers+text"]
    assert marks and all(x == 16384 for tr in marks for x in tr.x)        # sdpa-math OOMed at 16384
    hidden = {tr.name for tr in mem.data if tr.visible == "legendonly"}
    assert "SDPA math" in hidden and "naive (PyTorch)" not in hidden
    with pytest.raises(ValueError):
        charts.perf_figure(cells, "en", metric="watts")


def test_ratio_rows():
    rows = {r["impl"]: r for r in charts.ratio_rows(fake_cells(4096, 128, False, "float16", 4, 32))}
    assert rows["naive"]["status"] == "oom" and rows["fast"]["speedup_vs_naive"] is None
    assert rows["sdpa-cudnn"]["speedup_vs_cudnn"] == 1.0 and rows["fast"]["memory_vs_cudnn"] > 0
    cells = {c["impl"]: c for c in fake_cells(4096, 128, False, "float16", 4, 32)}
    assert rows["fast"]["graph_ms"] == cells["fast"]["graph_ms"]
    assert rows["fast"]["graph_speedup_vs_cudnn"] == pytest.approx(cells["sdpa-cudnn"]["graph_ms"] /
                                                                   cells["fast"]["graph_ms"], rel=1e-12)
    assert rows["naive"]["graph_ms"] is None and rows["naive"]["graph_speedup_vs_cudnn"] is None
    c = cells["fast"]
    assert rows["fast"]["spread"] == pytest.approx((c["ms_p80"] - c["ms_p20"]) / c["ms"], rel=1e-12)
    assert rows["naive"]["spread"] is None                              # OOM: no times


def test_the_h200_preset_lands_on_a_recorded_cell():
    at = open_page()
    at.selectbox(key="_w.preset").set_value("h200").run()
    clean(at)
    assert recorded_note(at) == same_note(n=8192, d=128, causal=False, dtype="float16")


def test_a_recording_cut_short_is_never_the_default_while_a_complete_one_exists():
    """ui.common.complete_first: the committed forward files, complete ones first, each group newest name first;
    the page opens on the first of them."""
    from flashviz.ui.common import complete_first
    rec = {p.name: load_dataset(p) for p in list_datasets()}
    order = list(complete_first(rec))
    done = [k for k in order if rec[k]["complete"]]
    assert order == done + [k for k in order if not rec[k]["complete"]]
    assert done == sorted(done, reverse=True)
    fwd = [k for k in order if any(c["mode"] == "fwd" for c in rec[k]["cells"])]
    at = open_page()
    clean(at)
    assert dataset_shown(at) == f"file:{fwd[0]}" and rec[fwd[0]]["complete"]


@pytest.mark.parametrize("name", [p.name for p in list_datasets()])
def test_every_committed_recording_opens_on_the_page(name):
    """Each committed file, picked in the selector (forward and training modes), draws its charts and table with
    every impl it recorded (ws included) and no error."""
    ds = load_dataset(next(p for p in list_datasets() if p.name == name))
    for mode in dict.fromkeys(c["mode"] for c in ds["cells"]):
        at = open_page()
        if mode != "fwd":
            at.segmented_control(key="_w.speed.mode").set_value(mode).run()
        at.selectbox(key="_w.speed.dataset").set_value(f"file:{name}").run()
        assert not at.exception and not at.error, (name, mode)
        assert dataset_shown(at) == f"file:{name}" and len(at.get("plotly_chart")) == 2
