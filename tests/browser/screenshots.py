"""(Re)make the README's screenshots: every page of app.py in English and Chinese, and presenter mode once.

    python -m tests.browser.screenshots [--out assets/screenshots] [--pages stepper quiz] [--langs en zh] [--full]

Starts its own `streamlit run app.py` on loopback and drives Debian's chromium (tests/helpers/browser.py). Each
page is put in a state worth showing (a few steps in, a demo run, a quiz answer), scrolled to its main picture
and shot at 1400 x 1000 CSS px; a PNG over MAX_BYTES is quantised to 256 colours with Pillow. A separate script, not
a test: tests write their screenshots to tmp dirs, so a test run never dirties the tracked PNGs.
"""
from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))          # helpers, also under `python -m tests.…`

from helpers import browser as bu  # noqa: E402

VIEW = {"width": 1400, "height": 1000}
MAX_BYTES = 400_000


def _click(page, selector: str, *, wait: str | None = None, timeout: int = 120000) -> None:
    page.locator(selector).first.click()
    bu.settle(page, draw_ms=300, timeout=timeout)
    if wait:
        page.locator(wait).first.wait_for(timeout=timeout)


def _top(page, selector: str, offset: int = 70) -> None:
    """Scroll the main area so that `selector` sits `offset` px below the top of the viewport."""
    page.locator(selector).first.evaluate(
        "(e, off) => { e.scrollIntoView({block: 'start'}); const m = document.querySelector('[data-testid=stMain]');"
        " if (m) m.scrollBy(0, -off); window.scrollBy(0, -off); }", offset)
    page.wait_for_timeout(400)


# What each page shows: (query, a function putting the page in its state; None = as it opens)
def _stepper(page) -> None:                                  # the stepper steps in the browser (flashviz/client)
    page.locator("[data-fv-chart=strip].js-plotly-plot").wait_for(timeout=90000)
    for _ in range(2):
        _click(page, "[data-fv-act=next]")
    _top(page, "h1", offset=60)


def _blocks(page) -> None:
    for _ in range(2):                                      # a few steps into the recorded-size grid
        _click(page, ".st-key-blocks-next button")
    _top(page, "h1", offset=60)


def _lang(page) -> str:
    return "zh" if "lang=zh" in page.url else "en"


def _heading(page, key: str, offset: int = 20) -> None:
    from flashviz.i18n import t
    _top(page, f":is(h2, h3):has-text({t(key, _lang(page))!r})", offset=offset)


def _decoding(page) -> None:
    _top(page, "h1", offset=60)


def _speed(page) -> None:
    _top(page, ".js-plotly-plot", offset=330)                 # the dataset picker, then the recorded charts


def _backward(page) -> None:
    _top(page, "h1", offset=60)                               # opens on a recorded size: the measured peak memory


def _ring(page) -> None:
    _click(page, ".st-key-ring-steps-next button")             # step 2: the blocks have moved one GPU on
    _top(page, "h1", offset=60)


def _variants(page) -> None:
    _top(page, "h1", offset=60)                                # the block map: skipped, partial, full


def _inside(page) -> None:
    _top(page, "h1", offset=60)                                # the opening window: a few iterations, warp by warp


def _present(page) -> None:
    page.locator("[data-fv-chart=strip].js-plotly-plot").wait_for(timeout=90000)
    for _ in range(2):
        _click(page, "[data-fv-act=next]")                   # from the top: the presenter bar, larger text


def _quiz(page) -> None:
    from flashviz.i18n import t
    lang = _lang(page)
    radios = page.locator("[data-testid=stRadio]")
    radios.nth(0).get_by_text(t("quiz.reduces_b", lang), exact=True).click()        # right
    bu.settle(page, draw_ms=200)
    radios.nth(1).get_by_text(t("quiz.alpha_b", lang), exact=True).click()          # not quite
    bu.settle(page, draw_ms=200)
    _top(page, "h1", offset=60)


SHOTS = {   # name: (url path, extra query, setup)
    "stepper": ("", "", _stepper),
    "blocks": ("blocks", "", _blocks),
    "decoding": ("decoding", "", _decoding),
    "speed": ("speed", "", _speed),
    "backward": ("backward", "", _backward),
    "ring": ("ring", "", _ring),
    "hardware": ("hardware", "", None),                        # opens on the roofline at a recorded size
    "exercises": ("exercises", "", None),
    "variants": ("variants", "", _variants),
    "inside": ("inside", "", _inside),
    "quiz": ("quiz", "", _quiz),
    "present": ("", "&present=1", _present),
}


def small_png(data: bytes, limit: int = MAX_BYTES) -> bytes:
    """The PNG as is when under `limit`, else quantised to 256 colours (screenshots have few colours)."""
    if len(data) <= limit:
        return data
    from PIL import Image
    img = Image.open(io.BytesIO(data)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue() if len(out.getvalue()) < len(data) else data


def shoot(browser, url: str, name: str, lang: str, out: Path, *, full: bool = False) -> Path:
    path, query, setup = SHOTS[name]
    page = browser.new_page(viewport=VIEW, locale="en-US")
    try:
        page.goto(f"{url}/{path}?lang={lang}{query}")
        page.locator("h1").first.wait_for(timeout=60000)
        if name not in ("quiz", "exercises"):
            page.locator(".js-plotly-plot").first.wait_for(timeout=90000)
        bu.settle(page, timeout=120000)
        if setup and not full:
            setup(page)
        elif setup and full:
            setup(page)
            page.evaluate("() => { const m = document.querySelector('[data-testid=stMain]'); if (m) m.scrollTo(0, 0); "
                          "window.scrollTo(0, 0); }")
        page.mouse.move(700, 5)                                # no hover: Plotly's modebar stays hidden
        bu.settle(page, draw_ms=1500, timeout=120000)
        bu.no_exception(page)
        png = page.screenshot(full_page=full)
    finally:
        page.close()
    target = out / f"{name}_{lang}.png"
    target.write_bytes(small_png(png) if not full else png)
    return target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=bu.SHOTS)
    ap.add_argument("--pages", nargs="+", choices=list(SHOTS), default=list(SHOTS))
    ap.add_argument("--langs", nargs="+", choices=["en", "zh"], default=["en", "zh"])
    ap.add_argument("--full", action="store_true", help="whole pages, unscrolled (to look at layout; not the README's)")
    args = ap.parse_args(argv)
    if not bu.chromium_path():
        print("no chromium found (apt-get install chromium)", file=sys.stderr)
        return 2
    if "zh" in args.langs and not bu.has_cjk_font():
        print("warning: no CJK font (apt-get install fonts-droid-fallback): Chinese will show boxes", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    with bu.streamlit_server() as server, bu.chromium() as browser:
        for name in args.pages:
            for lang in (["en"] if name == "present" else args.langs):    # presenter mode: once
                p = shoot(browser, server.url, name, lang, args.out, full=args.full)
                print(f"{p}  {p.stat().st_size // 1024} KB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
