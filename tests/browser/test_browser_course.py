"""Real-browser checks of the course's addresses and the blocks page's height (Playwright on Debian's chromium,
conftest's `app_url` and `browser`): every page's own address opens it, an unknown or nested address gets our page in
the session's language (never Streamlit's English dialog or a blank page), and the blocks page at 1400 px with its
expanders closed is at most page_budget.BLOCKS_HEIGHT_BUDGET px tall."""
from __future__ import annotations

import pytest

from helpers import page_budget as pb
from helpers.browser import expect_eval, expect_some, expect_text, no_exception, settle
from flashviz.i18n import t
from flashviz.ui.pages import PAGES

pytestmark = pytest.mark.browser


def _open(browser, url: str, path: str):
    page = browser.new_page(viewport=pb.VIEW, locale="en-US")
    page.goto(f"{url}/{path}")
    page.locator("h1").first.wait_for(timeout=90000)
    settle(page, timeout=120000)
    return page


@pytest.mark.parametrize("slug", ["stepper", "hardware", "exercises"])
def test_a_page_address_opens_that_page(browser, app_url, slug):
    page = _open(browser, app_url, f"{slug}?lang=en")
    try:
        spec = next(p for p in PAGES if p.slug == slug)
        expect_text(page.locator("h1"), t(f"{spec.module}.title", "en"))
        assert page.get_by_text("Page not found").count() == 0
        no_exception(page)
    finally:
        page.close()


@pytest.mark.parametrize("path, shown", [("nope?lang=zh", "/nope"), ("blocks/extra?lang=zh", "/blocks/extra")])
def test_an_unknown_or_nested_address_is_answered_in_chinese(browser, app_url, path, shown):
    page = _open(browser, app_url, path)
    try:
        expect_text(page.locator("h1"), t("common.not_found_title", "zh"))
        expect_some(page.get_by_text(shown, exact=False))
        expect_eval(page.locator("body"), "() => document.querySelectorAll('[data-testid=stPageLink]').length",
                    len(PAGES))                                                       # every lesson, linked once
        assert page.get_by_text("Page not found").count() == 0 and page.get_by_text("You have requested").count() == 0
        no_exception(page)
    finally:
        page.close()


def test_the_blocks_page_fits_the_height_budget(browser, app_url):
    h = pb.page_height(browser, app_url, "blocks", "en")
    assert 1000 < h <= pb.BLOCKS_HEIGHT_BUDGET, h


def test_a_file_over_the_limit_is_refused_in_the_page_language(browser, app_url, tmp_path):
    """Streamlit refuses a file over the widget's limit in the browser, in English; the page shows the reader's one
    limit in Chinese beside it (ui/speed.upload_css)."""
    from flashviz.bench.dataset import MAX_BYTES
    from flashviz.ui.speed import UPLOAD_MB
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (UPLOAD_MB * 2**20 + 1))                  # over the widget's limit however MB is counted
    page = _open(browser, app_url, "speed?lang=zh")
    try:
        page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(str(big))
        chip = page.locator("[data-testid=stFileChip][aria-invalid=true]")
        chip.wait_for(timeout=30000)
        expect_eval(chip, "e => getComputedStyle(e, '::after').content",          # the chip can come before the sheet
                    '"' + t("speed.upload_too_big", "zh", cap=f"{MAX_BYTES / 2**20:.0f}") + '"')
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_upload_box_says_its_words_and_the_readers_limit_in_the_page_language(browser, app_url, lang):
    """Streamlit writes "Upload" and "6MB per file • JSON" in English and names its widget's limit; the box shows
    the page's language and the one limit the reader applies (ui/speed.upload_css), the widget's words hidden."""
    from flashviz.bench.dataset import MAX_BYTES
    page = _open(browser, app_url, f"speed?lang={lang}")
    try:
        box = page.locator(".st-key-_w-speed-upload")
        box.wait_for(timeout=60000)
        after = "e => [getComputedStyle(e, '::after').content, getComputedStyle(e).fontSize]"
        button = box.locator("[data-testid=stFileUploaderDropzone] button [data-testid=stMarkdownContainer] p")
        limit = box.locator("[data-testid=stFileUploaderDropzoneInstructions] > div")
        expect_eval(button, after, [f'"{t("speed.upload_button", lang)}"', "0px"])
        cap = f"{MAX_BYTES / 2**20:.0f}"
        expect_eval(limit, "e => getComputedStyle(e, '::after').content", f'"{t("speed.upload_limit", lang, cap=cap)}"')
        expect_eval(limit.locator("span"), "e => getComputedStyle(e).fontSize", "0px")
    finally:
        page.close()
