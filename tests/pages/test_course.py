"""The course's structure without a browser: the lesson order, the two configuration scales, the hidden pages that
serve /stepper and unknown addresses (flashviz.ui.pages, flashviz.ui.navigation), and the nested-address redirect
(flashviz.ui.routes)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest
from streamlit.util import calc_hash

from helpers.app import APP, clean, open_page
from flashviz.i18n import t
from flashviz.ui import navigation, pages, routes
from flashviz.ui.config import DEFAULT, KERNEL_DEFAULT


def test_the_lesson_order():
    assert [p.slug for p in pages.PAGES] == ["stepper", "blocks", "speed", "backward", "decoding", "variants", "ring",
                                             "hardware", "inside", "exercises", "quiz"]
    assert {p.slug for p in pages.PAGES if p.scale == "kernel"} == {"blocks", "speed", "backward", "hardware"}
    assert (DEFAULT.n, DEFAULT.dtype) == (16, "float32") and (KERNEL_DEFAULT.n, KERNEL_DEFAULT.d) == (4096, 128)


def test_the_stepper_alias_runs_the_stepper():
    at = AppTest.from_file(APP, default_timeout=60)
    at._page_hash = calc_hash("stepper")                 # what a browser's request for /stepper resolves to
    at.run()
    clean(at)
    assert at.title[0].value == t("stepper.title", "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_unknown_address_gets_our_page_in_the_session_language(monkeypatch, lang):
    monkeypatch.setattr(navigation, "requested_path", lambda: "no-such-page")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["lang"] = lang
    at._page_hash = calc_hash("no-such-page")
    at.run()
    clean(at)
    assert at.title[0].value == t("common.not_found_title", lang)
    assert "/no\\-such\\-page" in at.markdown[0].value                       # escaped: the address is text
    assert [pl.proto.label for pl in at.get("page_link")] == [pages.title(p.slug, lang) for p in pages.PAGES]


def test_only_addresses_that_name_no_page_get_the_not_found_page(monkeypatch):
    for asked, extra in (("speed", 0), ("home", 0), ("x y", 0), ("nope", 1)):
        monkeypatch.setattr(navigation, "requested_path", lambda a=asked: a)
        built = navigation.all_pages("en")
        assert len(built) == len(pages.PAGES) + 1 + extra, asked          # + the hidden /stepper alias


def test_nested_addresses_are_redirected_and_streamlits_own_are_not():
    assert routes.nested_target("blocks/extra", "lang=zh") == "/not-found?path=blocks/extra&lang=zh"
    assert routes.nested_target("a/b/c", "", "/root") == "/root/not-found?path=a/b/c"
    for own in ("blocks", "hardware/_stcore/health", "blocks/_stcore/host-config", "static/js/index.js",
                "blocks/static/js/index.js", "media/abc.png", "component/x/index.html"):
        assert routes.nested_target(own) is None, own
    assert routes.install() is False                      # no server in this process: nothing to wrap


@pytest.mark.parametrize("slug", [p.slug for p in pages.PAGES if p.scale == "kernel"])
def test_every_realistic_page_says_what_configuration_it_shows(slug):
    at = open_page(slug)
    clean(at)
    assert any("N = 4096, d = 128, fp16" in c.value and "H200 recordings" in c.value for c in at.caption)


def test_the_h200_preset_sets_the_realistic_pages_from_anywhere():
    at = AppTest.from_file(APP, default_timeout=60).run()                   # on the stepper
    at.selectbox(key="_w.preset").set_value("h200").run()
    clean(at)
    assert at.session_state["cfg.n"] == 16                                   # the stepper keeps its small row
    assert (at.session_state["cfg.k.n"], at.session_state["cfg.k.d"]) == (8192, 128)
    [pl] = at.get("page_link")
    assert pl.proto.page == "speed"
