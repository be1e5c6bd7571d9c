"""The page "Inside the kernel" under AppTest: without a recording (the message and the command), and with one built
from the real H200 trace fixture plus a synthetic warp-specialised cell (tests/helpers/timeline.py): the opening window
and its sentence, the metrics, the whole-CTA bars, the shares and the notes are the dataset's numbers; the committed
recordings open on the ping-pong configuration; a failed cell is a note; a broken file a warning; both languages,
no English prose on the Chinese page; figures are cached and never mutated."""
import json
import re

import numpy as np
import pytest

pytest.importorskip("streamlit")
from helpers.app import chart_specs as _charts, APP, array, clean, open_page  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402
from flashviz.engine import kernel_timeline as kt  # noqa: E402
from flashviz.bench import timeline_dataset as td  # noqa: E402
from flashviz.i18n import t  # noqa: E402
from flashviz.ui import inside  # noqa: E402
from flashviz.ui.pages import switch  # noqa: E402
from helpers.timeline import counted_numbers, dataset  # noqa: E402

PAGE = "inside"
NAME = "nvidia-h200-2026-11-30.json"


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    data = dataset()
    (tmp_path / NAME).write_text(json.dumps(data))
    monkeypatch.setattr(td, "DEFAULT_DIR", tmp_path)
    return data


@pytest.fixture
def none(tmp_path, monkeypatch):
    monkeypatch.setattr(td, "DEFAULT_DIR", tmp_path / "absent")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_without_a_recording_the_page_says_so_and_shows_the_command(none, lang):
    at = open_page(PAGE, lang=lang)
    clean(at)
    assert at.title[0].value == t("inside.title", lang)
    assert [i.value for i in at.info] == [t("inside.no_recording", lang)]
    assert [c.value for c in at.code] == [inside.COMMAND] and "--preset h200-timeline" in inside.COMMAND
    assert _charts(at) == []
    assert [e.label for e in at.main.expander] == [t(f"inside.{k}_header", lang) for k in ("why", "scopes", "can")]


def _window_takeaway(cell: dict, clock: float, lang: str = "en") -> str:
    """The opening sentence for a ws cell, from numbers computed here by counting cycles (helpers.timeline.counted_numbers)."""
    ref = counted_numbers(cell)
    sched = t(f"inside.sched_{cell['schedule']}", lang) if cell.get("schedule") else t("inside.sched_unknown", lang)
    return t("inside.takeaway_ws", lang, schedule=sched, lead=f"{ref['lead'] / ref['period']:.1f}",
             lead_t=f"{ref['lead'] / clock:,.2f} µs", under=f"{100 * ref['under']:.0f}",
             both=f"{100 * ref['both']:.0f}")


def test_the_page_opens_on_a_few_iterations_and_says_what_they_show(recorded):
    at = open_page(PAGE)
    clean(at)
    fast, ws, _ = recorded["cells"]
    clock = recorded["method"]["clock_mhz"]
    charts = _charts(at)
    assert charts[0]["layout"]["title"]["text"] == t("inside.window_title", "en", k=3)
    rows = charts[0]["layout"]["yaxis"]["ticktext"]
    assert rows == ["fast · warpgroup 0 (warp 0)", "ws · producer (warp 8)", "ws · warpgroup 0 (warp 0)",
                    "ws · warpgroup 1 (warp 4)"]
    md = [m.value for m in at.markdown]
    assert md[1] == _window_takeaway(ws, clock)             # right under the picture (md[0] is the idea)
    assert "90" in md[1] and at.markdown[0].value == t("inside.intro", "en")   # 1800 of 2000 softmax cycles
    assert t("inside.window_caption", "en", fast="128 × 64", ws="128 × 128") in [c.value for c in at.caption]
    # below, behind expanders: the whole CTA of each kernel, then the shares
    assert [e.label for e in at.main.expander] == [t(f"inside.{k}_header", "en")
                                              for k in ("why", "cta", "shares", "scopes", "can")]
    titles = [c["layout"]["title"]["text"] for c in charts[1:]]
    assert titles == [t("inside.gantt_title", "en", impl="fast"), t("inside.gantt_title", "en", impl="ws"),
                      t("inside.shares_title", "en")]
    for spec, cell in zip(charts[1:3], (fast, ws)):
        for tr in spec["data"]:
            i = cell["scopes"].index(tr["meta"])
            rows = [r for r in cell["timeline"] if r[1] == i]
            np.testing.assert_allclose(array(tr["x"]), [r[3] / clock for r in rows], rtol=1e-6)
            np.testing.assert_allclose(array(tr["base"]), [r[2] / clock for r in rows], rtol=1e-6)
        assert spec["layout"]["xaxis"]["range"][1] == pytest.approx(fast["cta"]["span_cycles"] / clock * 1.01)
    metrics = [(m.label, m.value) for m in at.metric]
    m = {k: t(f"inside.m_{k}", "en") for k in ("kernel", "instr", "overhead", "events")}
    assert metrics[:4] == [(m["kernel"], "0.09"), (m["instr"], "0.12"), (m["overhead"], f"{0.12 / 0.09:.2f}×"),
                           (m["events"], "1,024 (2)")]
    assert metrics[6:8] == [(m["overhead"], f"{0.075 / 0.07:.2f}×"), (m["events"], "200 (2)")]
    assert not [m for m in metrics if m[0].startswith("Call")]          # the per-call time is not a headline
    times = at.dataframe[1].value                                           # [0] is the schedules table
    assert list(times[t("inside.col_host", "en")]) == [f"{0.1 - 0.09:.4g}", f"{0.08 - 0.07:.4g}"]
    shares = {tr["meta"]: tr for tr in charts[3]["data"] if tr.get("meta")}
    sm = next(s for s in fast["shares"] if s["scope"] == "softmax")
    assert array(shares["softmax"]["x"])[0] == pytest.approx(100 * sm["share"])
    caps = [c.value for c in at.caption]
    us = fast["cta"]["span_cycles"] / clock
    assert any(c.startswith("Drawn: CTA 0 (on SM 124), the one with the median span, number 1 of 2") and
               f"{us:,.2f} µs" in c for c in caps)
    assert t("inside.dropped", "en", kept="1,024", expected="2,048", pct="50") in caps
    assert t("inside.complete", "en", expected="200", buffer=t("inside.buffer_global", "en")) in caps
    top = max(fast["shares"], key=lambda s: s["share"])
    rest = 100 * (1 - sum(s["share"] for s in fast["shares"]))
    assert t("inside.largest", "en", impl="fast", role="warpgroup 0", scope=top["scope"],
             pct=f"{100 * top['share']:.1f}", outside=f"{rest:.1f}") in md
    [table] = [d.value for d in at.dataframe if t("inside.col_count", "en") in d.value.columns]
    assert len(table) == len(fast["shares"]) + len(ws["shares"])
    assert list(table[t("inside.col_count", "en")])[:4] == [s["count"] for s in fast["shares"]]
    assert [c.value for c in at.code] == [recorded["provenance"]["command"]]
    assert t("inside.ws_missing", "en") not in caps


def test_the_committed_recordings_open_on_the_ping_pong_configuration():
    """With the app's own files: the newest recording, at the configuration whose ws run used ping-pong (N = 8192,
    d = 128, causal in 12-01b), and the sentence under the picture carries that cell's numbers."""
    at = open_page(PAGE)
    clean(at)
    assert at.selectbox(key="_w.inside.dataset").value == "nvidia-h200-2026-12-01b.json"
    key = at.selectbox(key="_w.inside.config").value
    assert key == (8192, 128, True, "float16", 1, 4)
    data = td.load_timeline_dataset(td.DEFAULT_DIR / "nvidia-h200-2026-12-01b.json")
    ws = next(c for c in td.cells_at(data, key) if c["impl"] == "ws")
    assert ws["schedule"] == "overlap+pingpong"
    assert at.markdown[1].value == _window_takeaway(ws, data["method"]["clock_mhz"])
    assert t("inside.default_shown", "en") in [c.value for c in at.caption]
    sched = at.dataframe[0].value                                      # every configuration's schedule and numbers
    assert len(sched) == len(td.configs(data))
    lead = [round(kt.takeaway(c).lead_iterations, 2) for c in data["cells"] if c["impl"] == "ws"]
    assert list(sched[t("inside.col_lead", "en")]) == lead


def test_a_configuration_whose_trace_failed_is_a_note_not_a_chart(recorded):
    at = open_page(PAGE)
    keys = td.configs(recorded)
    at.selectbox(key="_w.inside.config").set_value(keys[1]).run()
    clean(at)
    assert _charts(at) == []
    failed = recorded["cells"][2]
    caps = [c.value for c in at.caption]
    assert t("inside.not_ok", "en", impl="fast", status=t("inside.status_error", "en"), msg=failed["message"]) in caps
    assert t("inside.ws_missing", "en") in caps
    assert [m.value for m in at.metric][:3] == ["—", "—", t("inside.not_measured", "en")]


LATIN_RUN = re.compile(r"(?<![`\w])[A-Za-z][a-z]+(?:[ -][a-z]+){2,}")      # three English words in a row


def _zh_prose(at) -> list[str]:
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [at.title[0].value]
    return [re.sub(r"`[^`]*`", "", x) for x in texts]


def test_chinese_page_with_a_recording(recorded):
    at = open_page(PAGE, lang="zh")
    clean(at)
    assert at.title[0].value == t("inside.title", "zh")
    assert at.metric[0].label == t("inside.m_kernel", "zh")
    assert [c["layout"]["title"]["text"] for c in _charts(at)][-1] == t("inside.shares_title", "zh")
    assert at.markdown[1].value == _window_takeaway(recorded["cells"][1], recorded["method"]["clock_mhz"], "zh")
    english = [m.group(0) for x in _zh_prose(at) for m in LATIN_RUN.finditer(x)]
    assert not english, english
    assert not any("内核" in x for x in _zh_prose(at))


def test_the_committed_chinese_page_has_no_english_prose():
    """The recorded caveat and method lines are English data: the Chinese page says what they say in Chinese."""
    at = open_page(PAGE, lang="zh")
    clean(at)
    prose = _zh_prose(at)
    english = [m.group(0) for x in prose for m in LATIN_RUN.finditer(x)]
    assert not english, english
    assert not any("k cycles" in x or "内核" in x for x in prose)
    from helpers.zh import english_on_a_chinese_page
    assert not english_on_a_chinese_page(at)


def test_a_broken_file_is_a_warning_and_the_good_one_still_shows(recorded, tmp_path):
    (tmp_path / "zz-broken.json").write_text('{"kind": "flashviz-timeline"}')
    at = open_page(PAGE)
    clean(at)
    [w] = at.warning
    assert w.value.startswith("zz-broken.json could not be read")
    assert len(_charts(at)) == 4


def test_a_presenter_session_leaves_the_next_sessions_charts_alone(recorded):
    first = [c.proto.spec for c in open_page(PAGE).get("plotly_chart")]
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["present"] = "1"
    presented = [json.loads(c.proto.spec) for c in switch(at, PAGE).run().get("plotly_chart")]
    again = [c.proto.spec for c in open_page(PAGE).get("plotly_chart")]
    assert len(first) == 4 and again == first
    assert all(p["layout"]["font"]["size"] > json.loads(f)["layout"]["font"]["size"] for p, f in zip(presented, first))


def test_figures_are_built_once_per_configuration_and_never_mutated(recorded):
    """The window and whole-CTA figures come from st.cache_resource: every session gets the same object, and a run
    of the page (presenter mode included) leaves it as it was."""
    key = td.configs(recorded)[0]
    path, mtime = inside._file(NAME)
    a = inside.window_fig(path, mtime, key, "en", recorded)
    g = inside.gantt_fig(path, mtime, key, "ws", "en", None, recorded)
    before = (a.to_json(), g.to_json())
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["present"] = "1"
    switch(at, PAGE).run()
    open_page(PAGE)
    assert inside.window_fig(path, mtime, key, "en", recorded) is a
    assert inside.gantt_fig(path, mtime, key, "ws", "en", None, recorded) is g
    assert (a.to_json(), g.to_json()) == before


@pytest.mark.parametrize("recorded_schedule", [None, "overlap+pingpong", "plain"])
def test_the_ws_schedule_is_said_recorded_or_as_todays_default(recorded, tmp_path, recorded_schedule):
    """A ws cell says which OVERLAP / PINGPONG schedule ran when the file records it; an older file without the
    field gets today's default from kernels/ws.py, said as such (never passed off as what ran)."""
    from flashviz_kernels import ws
    data = json.loads((tmp_path / NAME).read_text())
    cell = next(c for c in data["cells"] if c["impl"] == "ws")
    if recorded_schedule:
        cell["schedule"] = recorded_schedule
    (tmp_path / NAME).write_text(json.dumps(data))
    td.load_timeline_dataset(tmp_path / NAME)                                   # the schema takes the field
    at = open_page(PAGE)
    clean(at)
    captions = [c.value for c in at.caption]
    if recorded_schedule:
        want = t("inside.schedule_recorded", "en", schedule=t(f"inside.sched_{recorded_schedule}", "en"))
    else:
        today = td.schedule_name(*ws.CONFIGS[(cell["d"], bool(cell["causal"]))][3:5])
        want = t("inside.schedule_unrecorded", "en", d=cell["d"], schedule=t(f"inside.sched_{today}", "en"),
                 mask=t("inside.mask_causal" if cell["causal"] else "inside.mask_none", "en"))
    assert want in captions


def test_a_schedule_outside_the_schema_is_refused(tmp_path):
    data = dataset()
    next(c for c in data["cells"] if c["impl"] == "ws")["schedule"] = "warp-magic"
    (tmp_path / NAME).write_text(json.dumps(data))
    from flashviz.infra.errors import DatasetError
    with pytest.raises(DatasetError, match="schedule"):
        td.load_timeline_dataset(tmp_path / NAME)
    assert [td.schedule_name(o, p) for o in (True, False) for p in (True, False)] == list(td.SCHEDULES)


@pytest.mark.parametrize("d", [64, 128])
def test_a_ws_cell_recorded_with_another_consumer_count_says_so(recorded, tmp_path, d):
    """block_m = 64 rows per consumer warpgroup: a ws cell whose block_m is not today's CONFIGS for its d and mask
    gets a caption with both counts (the committed d=64 timeline ran two, the kernel runs three there now); a cell
    that matches today's layout gets none."""
    from flashviz_kernels import ws
    data = json.loads((tmp_path / NAME).read_text())
    fast, cell = data["cells"][:2]                           # one configuration: both drawn on the page
    assert cell["impl"] == "ws" and fast["impl"] == "fast"
    fast["d"] = cell["d"] = d
    (tmp_path / NAME).write_text(json.dumps(data))
    td.load_timeline_dataset(tmp_path / NAME)
    for lang in ("en", "zh"):
        at = open_page(PAGE, lang=lang)
        clean(at)
        captions = [c.value for c in at.caption]
        cfg = ws.CONFIGS[(d, bool(cell["causal"]))]
        want = t("inside.consumers_changed", lang, then=2, bm=128, now=cfg[6], bm_now=cfg[0], d=d)
        assert (want in captions) == (cfg[0] != 128)
        assert (cfg[0] != 128) == (d == 64)                  # measured: three consumers at d=64, two at d=128
