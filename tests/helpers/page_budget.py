"""Page budgets measured from the rendered app: words of prose outside expanders and export menus (formulas
excluded), charts, and the height of the page at 1400 px with its expanders closed.

    python -m tests.helpers.page_budget [--pages blocks speed] [--langs en zh] [--no-height] [--json out.json]

Used by tests/pages/test_page_budget.py (AppTest, every page, both languages) and tests/browser/test_browser_course.py (the blocks page's
height).

What counts as prose: the text of st.title/header/subheader, st.markdown, st.caption, st.text and the alert boxes
(st.info/success/warning/error) in the page's main area, outside every st.expander and st.popover (the export menus
are popovers). Formulas are not prose: $…$, $$…$$, code spans and fenced code are removed first, and so are link
targets, HTML tags and Markdown/emoji markup. Widgets, metrics, tables and charts are not prose.

How words are counted. English: tokens of letters or digits (`don't`, `FA2`, `8,192` are one word each). Chinese
has no spaces, so a Chinese page is counted in English-word equivalents: its Latin tokens as words, plus its Han
characters divided by ZH_CHARS_PER_WORD, the number of Han characters the app's own translations use per English
word (computed over every i18n string: Σ Han characters of the zh text ÷ Σ words of the en text the zh text does
not keep in Latin). The same 600-word budget then holds for the same prose in either language.
"""
from __future__ import annotations

import functools
import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))          # helpers, also under `python -m tests.…`

WORD_BUDGET = 600                     # words of prose outside expanders, per page and language
BLOCKS_HEIGHT_BUDGET = 5000           # px, the blocks page at 1400 px with its expanders closed
VIEW = {"width": 1400, "height": 1000}
PROSE = {"title", "header", "subheader", "markdown", "caption", "text", "info", "success", "warning", "error"}
HIDDEN_BLOCKS = {"expander", "popover"}        # st.expander, st.popover (the export menus)

_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^>]+>")
_ICON = re.compile(r":material/[a-z_]+:|:[a-z_]+:")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTER = "A-Za-z0-9\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u0370-\u03FF"        # not × (D7) or ÷ (F7)
_LATIN = re.compile(f"[{_LETTER}]+(?:[’'.,\\-][{_LETTER}]+)*")


def strip_formulas(text: str) -> str:
    """The prose of a Markdown string: formulas, code, link targets, tags and icon codes removed."""
    text = _MATH.sub(" ", text)
    text = _CODE.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    return _ICON.sub(" ", text)


def latin_words(text: str) -> int:
    return len(_LATIN.findall(_HAN.sub(" ", text)))


def han_chars(text: str) -> int:
    return len(_HAN.findall(text))


@functools.lru_cache(maxsize=1)
def zh_chars_per_word() -> float:
    """Han characters per English word in the app's own translations (every i18n string, formulas stripped)."""
    from flashviz.i18n import STRINGS
    han = words = 0
    for entry in STRINGS.values():
        en, zh = strip_formulas(entry["en"]), strip_formulas(entry["zh"])
        h = han_chars(zh)
        if h:
            han += h
            words += max(latin_words(en) - latin_words(zh), 0)
    return han / words


def count_words(text: str, lang: str) -> float:
    """Words of prose in `text` (English words, or their equivalent for Chinese: see the module docstring)."""
    prose = strip_formulas(text)
    n = latin_words(prose)
    if lang == "zh":
        n += han_chars(prose) / zh_chars_per_word()
    return n


# ----------------------------------------------------------------------------- the AppTest element tree

def _kind(node) -> str:
    """'expander', 'popover', 'markdown', 'plotly_chart', ... for an AppTest node."""
    t = getattr(node, "type", None)
    return t if isinstance(t, str) else type(node).__name__.lower()


def _children(node):
    ch = getattr(node, "children", None) or {}
    return list(ch.values()) if isinstance(ch, dict) else list(ch)


def walk(node, hidden: bool = False):
    """(node, hidden) for every node under `node`; hidden: inside an expander or a popover."""
    for c in _children(node):
        k = _kind(c)
        yield c, hidden
        if _children(c):
            yield from walk(c, hidden or k in HIDDEN_BLOCKS)


def _text(node) -> str:
    v = getattr(node, "value", None)
    if v is None:
        v = getattr(getattr(node, "proto", None), "body", "")
    return str(v)


def prose_blocks(at) -> list[str]:
    """The texts a reader sees on opening the page (main area, outside expanders and export menus)."""
    out = []
    for node, hidden in walk(at.main):
        if not hidden and _kind(node) in PROSE:
            out.append(_text(node))
    return out


def chart_count(at) -> tuple[int, int]:
    """(charts outside expanders, charts in all) in the page's main area."""
    shown = total = 0
    for node, hidden in walk(at.main):
        if _kind(node) == "plotly_chart":
            total += 1
            shown += not hidden
    return shown, total


@dataclass
class PageMeasure:
    page: str
    lang: str
    words: int                 # prose outside expanders (English words or their equivalent)
    charts_shown: int          # charts outside expanders
    charts: int                # charts in all
    expanders: int
    height_px: int | None = None


def measure_app(slug: str, lang: str, **values) -> tuple[PageMeasure, object]:
    """Open app.py on `slug` in `lang` as a new visitor would (AppTest) and measure it."""
    from helpers.app import open_page
    at = open_page(slug, lang=lang, **values)
    words = sum(count_words(s, lang) for s in prose_blocks(at))
    shown, total = chart_count(at)
    exp = sum(_kind(n) == "expander" for n, _ in walk(at.main))
    return PageMeasure(slug, lang, round(words), shown, total, exp), at


# ----------------------------------------------------------------------------- the browser

MAIN = '[data-testid="stMain"]'
CLOSE_EXPANDERS = ("() => { let k = 0; const sel = '[data-testid=stMain] [data-testid=stExpander] details[open]';"
                   " for (const d of document.querySelectorAll(sel)) { d.querySelector('summary').click(); k++; }"
                   " return k; }")
HEIGHT = """() => { const c = document.querySelector('[data-testid=stMainBlockContainer]');
    const m = document.querySelector('[data-testid=stMain]');
    return Math.max(c ? c.scrollHeight : 0, m ? m.scrollHeight : 0, document.documentElement.scrollHeight); }"""


def page_height(browser, url: str, slug: str, lang: str = "en") -> int:
    """Rendered height in CSS px of page `slug` at 1400 px wide, every expander of the main area closed."""
    from helpers import browser as bu
    page = browser.new_page(viewport=VIEW, locale="en-US")
    try:
        page.goto(f"{url}/{slug}?lang={lang}")
        page.locator("h1").first.wait_for(timeout=90000)
        bu.settle(page, timeout=180000)
        for _ in range(3):                                   # an expander's body may hold another expander
            if not page.evaluate(CLOSE_EXPANDERS):
                break
            page.wait_for_timeout(600)
        page.wait_for_timeout(800)
        bu.no_exception(page)
        return int(page.evaluate(HEIGHT))
    finally:
        page.close()


def heights(slugs, lang: str = "en") -> dict[str, int]:
    from helpers import browser as bu
    with bu.streamlit_server() as server, bu.chromium() as browser:
        return {s: page_height(browser, server.url, s, lang) for s in slugs}


def main(argv=None) -> int:
    import argparse
    from flashviz.ui.pages import PAGES
    slugs = [p.slug for p in PAGES]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", nargs="+", choices=slugs, default=slugs)
    ap.add_argument("--langs", nargs="+", choices=["en", "zh"], default=["en", "zh"])
    ap.add_argument("--no-height", action="store_true", help="skip the browser (words and charts only)")
    ap.add_argument("--json", type=Path, help="also write the table as JSON")
    args = ap.parse_args(argv)
    rows = [measure_app(s, lang)[0] for s in args.pages for lang in args.langs]
    if not args.no_height:
        for lang in args.langs:
            for s, h in heights(args.pages, lang).items():
                next(r for r in rows if r.page == s and r.lang == lang).height_px = h
    print(f"zh: {zh_chars_per_word():.2f} Han characters per English word")
    print(f"{'page':10} {'lang':4} {'words':>6} {'charts shown/all':>17} {'expanders':>9} {'height px':>9}")
    for r in rows:
        print(f"{r.page:10} {r.lang:4} {r.words:6d} {r.charts_shown:8d}/{r.charts:<8d} {r.expanders:9d} "
              f"{r.height_px if r.height_px is not None else '-':>9}")
    for lang in args.langs:
        mine = [r for r in rows if r.lang == lang]
        print(f"{'total':10} {lang:4} {sum(r.words for r in mine):6d} {sum(r.charts_shown for r in mine):8d}/"
              f"{sum(r.charts for r in mine):<8d} {sum(r.expanders for r in mine):9d} "
              f"{sum(r.height_px or 0 for r in mine):9d}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
