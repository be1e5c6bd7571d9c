"""The page registry, flashviz.ui.pages: the one list the navigation, the links between pages and the tests use.
Every link target is a registered page, and every registered page renders (AppTest) in both languages."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from helpers.app import APP, clean, open_page
from flashviz.i18n import LANGS, STRINGS, t
from flashviz.ui import pages, quiz, state

ROOT = Path(__file__).resolve().parents[2]


def link_targets() -> list[tuple[str, str]]:
    """(where, slug) for every pages.link(...) call with a literal slug in the package, every quiz question's
    page and every preset's page."""
    out = []
    for path in sorted((ROOT / "flashviz").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and "link" in (getattr(node.func, "attr", None), getattr(node.func, "id", None))
                    and node.args and isinstance(node.args[0], ast.Constant)):
                out.append((f"{path.name}:{node.lineno}", node.args[0].value))
    out += [(f"quiz {q.id}", q.page) for q in quiz.QUESTIONS]
    out += [(f"preset {name}", slug) for name, slug in state.PRESET_PAGES.items()]
    return out


def test_every_link_target_is_a_registered_page():
    targets = link_targets()
    assert {"stepper", "blocks", "speed", "backward"} <= {s for _, s in targets}      # the scan sees them
    assert [(w, s) for w, s in targets if s not in pages.BY_SLUG] == []


def test_the_registry_is_well_formed():
    slugs = [p.slug for p in pages.PAGES]
    assert len(set(slugs)) == len(slugs) and pages.DEFAULT == slugs[0] == "stepper"
    for p in pages.PAGES:
        assert callable(importlib.import_module(f"flashviz.ui.{p.module}").render), p
        assert p.title_key in STRINGS and all(STRINGS[p.title_key].get(lang) for lang in LANGS), p
    with pytest.raises(KeyError):                  # a typo is an error, not a link that silently disappears
        pages.title("speeds", "en")


def test_a_link_carries_the_registered_title_and_address():
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.selectbox(key="_w.preset").set_value("h200").run()                 # the H200 preset links to "speed"
    clean(at)
    [pl] = at.get("page_link")
    assert (pl.proto.label, pl.proto.page) == (t("common.nav_speed", "en"), "speed")


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("slug", [p.slug for p in pages.PAGES])
def test_every_registered_page_renders(slug, lang):
    at = open_page(slug, lang=lang)
    clean(at)
    assert at.title[0].value == t(f"{pages.BY_SLUG[slug].module}.title", lang)


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("slug", ["decoding", "variants"])
def test_a_server_without_a_browser_says_so_in_the_pages_language(slug, lang, monkeypatch):
    """A bare machine (no Chromium: the README's first command on a fresh box) keeps PNG/SVG off and says why in
    the page's language, the install command in a code span; a Chinese page shows no English prose for it."""
    from flashviz.charts import export
    from flashviz.infra import images
    from helpers.zh import english_on_a_chinese_page, page_texts
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    assert images.no_browser_reason() == export.NO_BROWSER
    monkeypatch.setattr(export, "image_status", lambda: (False, images.no_browser_reason()))
    at = open_page(slug, lang=lang)
    clean(at)
    found = t("export.why_no_browser", lang)
    shown = [c.value for c in at.caption]
    assert t("export.no_browser", lang, why=found) in shown
    assert t("export.zip_no_images", lang, why=found) in shown
    assert not any(export.NO_BROWSER in x for x in page_texts(at) + shown)
    if lang == "zh":
        assert not english_on_a_chinese_page(at)


@pytest.mark.parametrize("lang", list(LANGS))
def test_a_browser_that_failed_says_why_in_the_pages_language(lang, monkeypatch):
    """A browser that did not start (status) and an image that timed out (the last failure) are said in the
    page's language, the browser's own words in a code span; a Chinese page shows no English prose for them."""
    from flashviz.charts import export
    from flashviz.infra import images
    from flashviz.ui.common import image_why
    from helpers.zh import english_on_a_chinese_page, page_texts
    start = images.Why("Chromium at /opt/c did not start (RuntimeError: exit 3)", "start_failed",
                       dict(path="/opt/c", detail="RuntimeError: exit 3"))
    timeout = images.Why("Chromium did not finish the image within 8 s", "timeout", dict(s="8"))
    restarted = images.Why(f"{timeout}; the browser is restarted for the next image", "restarted", dict(why=timeout))
    for status, failure, key, why in (((False, images._retry(start, 15)), None, "export.no_browser",
                                       images._retry(start, 15)),
                                      ((True, "/usr/bin/chromium"), restarted, "export.image_failed", restarted)):
        monkeypatch.setattr(export, "image_status", lambda status=status: status)
        monkeypatch.setattr(export, "last_image_failure", lambda failure=failure: failure)
        at = open_page("variants", lang=lang)
        clean(at)
        said = image_why(why, lang)
        assert t(key, lang, why=said) in [c.value for c in at.caption]
        assert ("15" in said or "8" in said) and (said.replace("`", "") == str(why)) == (lang == "en")
        if lang == "zh":
            assert not english_on_a_chinese_page(at) and not any(str(why) in x for x in page_texts(at))


@pytest.mark.parametrize("slug", [p.slug for p in pages.PAGES])
def test_no_chinese_page_opens_on_english_prose(slug):
    """Every registered page, as it opens in Chinese: recorded literals (a source, a timer) in code spans or said in
    Chinese, never three English words in a row; none of the spellings the glossary retired."""
    from helpers.zh import english_on_a_chinese_page
    at = open_page(slug, lang="zh")
    clean(at)
    assert not english_on_a_chinese_page(at)


def test_the_readmes_page_table_is_the_course():
    """README's table of pages: every registered page, in the navigation's order, under its sidebar name and its
    address; the quiz row's question count is the quiz's."""
    import re
    from pathlib import Path
    from flashviz.ui.quiz import QUESTIONS
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("| Page (address) |", 1)[1].split("\n\n", 1)[0]
    rows = [re.match(r"\| (.+?) \((`[^)]*`)\) \| (.+) \|$", r) for r in table.splitlines()[2:]]
    assert all(rows), table
    assert [(m[1], m[2].split(", ")[-1]) for m in rows] == [
        (t(p.title_key, "en"), f"`/{p.slug}`") for p in pages.PAGES]
    quiz = next(m[3] for m in rows if m[2].endswith("`/quiz`"))
    assert quiz.startswith(f"{len(QUESTIONS)} questions"), quiz
