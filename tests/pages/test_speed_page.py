"""AppTest of app.py on the page "Speed and memory" (CPU): uploads (accepted or rejected, never executed), lesson
exercise 3, bad input, the configuration shared across pages, the kernel line and the timer's words. The recorded
datasets, the nearest cell and the chart builders are in test_speed_recorded.py; the GPU path's wiring with
flashviz.bench.live faked (OOM and errors shown per cell) and the live results' store are in test_speed_live.py (all
three open the page through tests/helpers/speed.py)."""
from __future__ import annotations

import json
import re

import pytest

from helpers.app import clean
from helpers.speed import FWD, SPEED, dataset_shown, open_page, texts

from flashviz.bench import list_datasets, load_dataset
from flashviz.infra.errors import DatasetError
from flashviz.i18n import t
from flashviz.infra.literal import unmd
from flashviz.ui.pages import switch

STEPPER = "stepper"
W = "_w.cfg."


# ----------------------------------------------------------------------------- uploads

def test_a_malformed_upload_is_rejected_with_a_message():
    at = open_page()
    at.file_uploader[0].set_value(("broken.json", b"{not json at all", "application/json")).run()
    assert not at.exception
    assert len(at.error) == 1 and "broken.json was not accepted" in unmd(at.error[0].value)
    assert "not JSON" in unmd(at.error[0].value)
    assert dataset_shown(at) == f"file:{FWD.name}"                       # the page carries on
    assert len(at.get("plotly_chart")) == 2


def test_an_upload_with_a_non_finite_number_is_rejected():
    raw, hits = re.subn(r'"ms": [0-9.e+-]+', '"ms": NaN', FWD.read_text(), count=1)   # the first cell's time
    assert hits == 1
    at = open_page()
    at.file_uploader[0].set_value(("nan.json", raw.encode(), "application/json")).run()
    assert not at.exception and "NaN is not allowed" in unmd(at.error[0].value)


def test_a_valid_upload_becomes_selectable_in_this_session():
    ds = json.loads(FWD.read_bytes())
    ds["provenance"].update(device_name="My Laptop GPU", git_commit="abc1234")
    at = open_page()
    at.file_uploader[0].set_value(("mine.json", json.dumps(ds).encode(), "application/json")).run()
    clean(at)
    assert dataset_shown(at) == "upload:mine.json"
    assert "My Laptop GPU" in texts(at) and "abc1234" in texts(at)
    options = at.selectbox(key="_w.speed.dataset").options
    committed = [p for p in list_datasets() if any(c["mode"] == "fwd" for c in load_dataset(p)["cells"])]
    label = f"My Laptop GPU · {ds['provenance']['created_utc'][:10]} · {len(ds['cells'])} cells · uploaded"
    assert label in options and len(options) == len(committed) + 1
    at.selectbox(key="_w.speed.dataset").set_value(f"file:{FWD.name}").run()   # back to the committed one; kept
    at.run()
    assert dataset_shown(at) == f"file:{FWD.name}" and "NVIDIA H200" in texts(at)


@pytest.mark.parametrize("data, words", [
    (b"\xff\xfe", "not UTF-8"),
    (b'{"schema_version": 1, "kind": "flashviz-bench"}', "missing"),
    (b"[1, 2, 3]", "JSON object"),
    (b"x" * (6 * 2 ** 20), "limited to"),
])
def test_read_upload_rejects_bad_bytes(data, words):
    from flashviz.ui.speed import read_upload
    with pytest.raises(DatasetError, match=words):
        read_upload(data)


# ----------------------------------------------------------------------------- exercise 3 on this CPU

def test_cpu_exercise_naive_grows_as_n_squared(monkeypatch):
    monkeypatch.setattr("flashviz.ui.speed.EXERCISE_NS", (256, 512, 1024))
    at = open_page()
    at.button(key="speed.cpu_run").click().run()
    clean(at)
    [df] = [d.value for d in at.dataframe if "naive peak (MiB)" in d.value.columns]
    mib = lambda col: [float(x.replace(",", "")) for x in df[col]]  # noqa: E731
    naive, tiled = mib("naive peak (MiB)"), mib("tiled peak (MiB)")
    assert df["N"].tolist() == [256, 512, 1024]
    for a, b in zip(naive, naive[1:]):
        assert b / a == pytest.approx(4, rel=0.2)
    assert naive[-1] > 2 * tiled[-1]
    assert len(at.get("plotly_chart")) == 3
    assert any("O(N²)" in m.value for m in at.markdown)


# ----------------------------------------------------------------------------- bad input

def test_bad_batch_is_a_message_and_the_page_stays_up():
    at = open_page(**{"speed.batch": 0})
    assert not at.exception
    assert len(at.error) == 1 and "batch B must be" in at.error[0].value
    assert at.button(key="speed.cpu_run")                                 # the exercise is still there


# ----------------------------------------------------------------------------- shared configuration

def test_configuration_carries_across_pages():
    """N, d, Bc carry to the other realistic-size pages; the stepper keeps its own small row; the mask carries."""
    at = open_page()
    at.number_input(key=W + "n").set_value(8192).run()
    at.number_input(key=W + "block_n").set_value(128).run()
    at.toggle(key=W + "causal").set_value(True).run()
    switch(at, "backward").run()
    clean(at)
    assert at.number_input(key=W + "n").value == 8192
    switch(at, STEPPER).run()
    clean(at)
    assert at.number_input(key=W + "n").value == 16 and at.number_input(key=W + "block_n").value == 4
    assert at.toggle(key=W + "causal").value is True
    at.number_input(key=W + "d").set_value(16).run()                     # the stepper's d stays its own
    switch(at, SPEED).run()
    assert not at.exception
    assert at.number_input(key=W + "d").value == 128 and at.number_input(key=W + "n").value == 8192


def test_page_values_are_kept_across_pages():
    at = open_page()
    at.number_input(key="_w.speed.heads").set_value(8).run()
    switch(at, STEPPER).run()
    switch(at, SPEED).run()
    assert at.number_input(key="_w.speed.heads").value == 8


def test_chinese():
    at = open_page(lang="zh")
    clean(at)
    assert at.title[0].value == "速度与显存"
    assert "本机没有 CUDA GPU" in texts(at) and "IO 感知" in texts(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_kernel_line_names_the_launch_plan_and_why_ws_is_not_used(lang):
    """One line, computed live from the kernels' own answers (here on the CPU interpreter: no CUDA, so tl)."""
    from flashviz_kernels import api, ws

    from flashviz.ui.speed_live import kernel_line
    import torch
    q = torch.empty((1, 1, 4096, 128), dtype=torch.float16)
    kernel, bm, bn = api.launch_plan(q, q, q, impl="fast", causal=False)
    line = kernel_line(4096, 128, False, "float16", lang, device="cpu")
    assert f"**{kernel}**" in line and f"{bm} × {bn}" in line
    st = ws.status()
    assert (not st["active"]) and st["reason"].replace("`", "'") in line


def test_one_upload_limit_the_readers():
    """The widget's limit lies above the reader's 5 MiB whichever way Streamlit counts a MB (10^6 or 2^20 bytes),
    so a file the reader accepts is never refused first, in English, by the widget."""
    from flashviz.bench.dataset import MAX_BYTES
    from flashviz.ui import speed
    assert speed.UPLOAD_MB * 10**6 > MAX_BYTES and speed.UPLOAD_MB * 2**20 > MAX_BYTES
    with pytest.raises(DatasetError) as e:
        speed.read_upload(b" " * (MAX_BYTES + 1))
    assert "MiB" in e.value.localized("zh") and "数据集最大" in e.value.localized("zh")


def test_the_timer_is_said_in_the_pages_language_where_measure_wrote_it():
    """The provenance panel's timer: measure's own three timers in Chinese (their English keys are measure's very
    words), with the sweep's warm-up and rep; a file that names another timer keeps its own words (None here)."""
    from flashviz.bench import measure
    from flashviz.ui.speed import timer_text
    for key, timer in (("cuda", measure.TIMER_CUDA), ("cuda_graph", measure.TIMER_CUDA + measure.TIMER_GRAPH),
                       ("cpu", measure.TIMER_CPU)):
        assert t(f"speed.timer_{key}", "en") == timer
        assert timer_text(dict(provenance=dict(timer=timer), sweep={}), "zh") == t(f"speed.timer_{key}", "zh")
    ds = dict(provenance=dict(timer=measure.TIMER_CUDA), sweep=dict(warmup_ms=25, rep_ms=100.0))
    assert timer_text(ds, "zh") == t("speed.timer_cuda", "zh") + "；预热 25 ms，重复 100 ms"
    ds["sweep"]["rounds"] = 3                            # the h200-fa4 preset's interleaved rounds
    assert timer_text(ds, "zh").endswith("；预热 25 ms，重复 100 ms；各实现轮流计时 3 轮，每轮一个完整的重复预算")
    assert timer_text(ds, "en").endswith("rep 100 ms; the implementations take turns in 3 rounds, each a full "
                                         "rep budget")
    assert timer_text(dict(provenance=dict(timer="my stopwatch"), sweep={}), "zh") is None
