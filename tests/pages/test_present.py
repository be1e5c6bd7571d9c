"""AppTest of presenter mode (?present=1, the sidebar toggle, the top bar's exit button, larger chart text,
keyboard shortcuts on the step buttons) and the presets (sidebar and presenter bar) writing the shared
configuration. AppTest cannot press keys: the shortcuts themselves were tried by hand in headless Chromium."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from helpers.app import clean, open_page
from flashviz.ui.config import PRESETS
from flashviz.ui.pages import PAGES

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def links(at: AppTest) -> list[str]:
    return [pl.proto.label for pl in at.get("page_link")]


def test_presenter_mode_from_the_url_and_back():
    at = open_app(present="1")
    assert at.session_state["present"] is True and at.toggle(key="_w.present").value is True
    assert at.button(key="present.exit")                                   # the bar at the top
    at.button(key="present.exit").click().run()
    assert at.session_state["present"] is False and "present" not in at.query_params
    with pytest.raises(KeyError):
        at.button(key="present.exit")
    at.toggle(key="_w.present").set_value(True).run()
    assert at.session_state["present"] is True and at.query_params["present"] in ("1", ["1"])


def _stepper(at: AppTest) -> tuple[dict, dict]:
    head, _, body = at.get("bidi_component")[0].proto.bytes.partition(b"\n")
    return json.loads(head), json.loads(body)


def test_presenter_mode_enlarges_chart_text():
    """The stepper draws its charts in the browser: presenting, it is told to, with larger sizes than the charts'."""
    (on, doc), (off, _) = _stepper(open_app(present="1")), _stepper(open_app())
    assert on["opts"]["present"] is True and off["opts"]["present"] is False
    assert min(doc["present_fonts"]) > doc["figs"]["strip"]["layout"]["font"]["size"]


@pytest.mark.parametrize("where", ["_w.preset", "_w.preset.present"])
@pytest.mark.parametrize("name", ["lesson", "tile1", "long", "masked_tile", "h200"])
def test_presets_set_the_shared_configuration(name, where):
    at = open_app(present="1")
    at.selectbox(key=where).set_value(name).run()
    assert not at.exception
    from flashviz.ui.state import PRESET_SCALES, canon
    for field, value in PRESETS[name].items():                        # at the preset's own scale (ui/state.py)
        assert at.session_state[canon(field, PRESET_SCALES.get(name, "row"))] == value, (name, field)
    assert at.selectbox(key=where).value is None                          # back to the placeholder


def test_h200_preset_is_a_recorded_configuration_and_links_to_speed():
    at = open_app()
    at.selectbox(key="_w.preset").set_value("h200").run()
    p = PRESETS["h200"]
    assert (p["n"], p["d"], p["dtype"], p["causal"]) == (8192, 128, "float16", False)
    assert "Speed and memory" in links(at)


NO_PICKER = ("inside", "exercises", "quiz")          # pages with no shared configuration (no sidebar picker)


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("slug", [p.slug for p in PAGES if p.slug not in NO_PICKER])
def test_every_preset_opens_clean_on_every_page(slug, name):
    """A preset chosen from any page's sidebar gives a configuration that page takes: no error, no exception (the
    blocks page, at the kernel scale's Br = 128, refused the small presets until each set Br too)."""
    at = open_page(slug)
    clean(at)
    at.selectbox(key="_w.preset").set_value(name).run()
    clean(at)
