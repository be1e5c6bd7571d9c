"""In Chromium at 1400 x 1000: the inside, ring, variants and decoding pages show their one picture above the fold,
in English and Chinese (the lesson's idea and picture without scrolling). Marker `browser`."""
from __future__ import annotations

import pytest

from helpers.browser import no_exception, settle

pytestmark = pytest.mark.browser
FOLD = 1000
CHARTS_DRAWN = ("() => { const c = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];"
                " return c.length > 0 && c.every(e => e.querySelector('.main-svg')); }")
TOPMOST = ("() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')].map(e => e.getBoundingClientRect())"
           ".filter(r => r.width > 0).map(r => [r.top, r.bottom]).sort((a, b) => a[0] - b[0])[0]")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("slug", ["inside", "ring", "variants", "decoding"])
def test_the_picture_is_above_the_fold(browser, app_url, slug, lang):
    page = browser.new_page(viewport={"width": 1400, "height": FOLD}, locale="en-US")
    try:
        page.goto(f"{app_url}/{slug}?lang={lang}")
        page.locator("h1").first.wait_for(timeout=90000)
        settle(page, timeout=180000)
        page.wait_for_function(CHARTS_DRAWN, timeout=90000)
        box = None
        for _ in range(30):                              # the layout is read once it stops moving
            settle(page, draw_ms=700, timeout=180000)
            now = page.evaluate(TOPMOST)
            if now == box:
                break
            box = now
        no_exception(page)
        top, bottom = box
        assert page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTop") == 0
        assert 0 < top < bottom <= FOLD, (slug, lang, top, bottom)
    finally:
        page.close()
