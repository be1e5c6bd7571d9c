"""Real-browser tests: `streamlit run app.py` on a free loopback port (conftest `app_url`), Debian's
chromium through Playwright (conftest `browser`; never `playwright install`).

Every page of flashviz.ui.pages renders (a Plotly chart, the quiz its questions) without an exception, in English and
Chinese; on the stepper the tile size, the step buttons and their keyboard shortcuts move the page to exactly the
numpy engine's numbers; the language switch and ?lang=zh; a chart's Export menu downloads a valid PNG, SVG and
offline HTML; the page's zip and its manifest; presenter mode; the quiz's feedback; autoplay. Screenshots go to
pytest's tmp dirs; the README's are made by `python -m tests.browser.screenshots`.
"""
from __future__ import annotations

import io
import json
import time
import xml.etree.ElementTree as ET
import zipfile

import pytest
from playwright.sync_api import expect

from helpers import stepper_snapshot
from helpers.browser import (EXCEPTION, app_pages, expect_count, expect_eval, expect_some, expect_text, has_cjk_font,
                             no_exception, settle)
from flashviz.i18n import t

pytestmark = pytest.mark.browser


def _open(browser, url: str, path: str = "", query: str = "lang=en", *, height: int = 900, width: int = 1400):
    page = browser.new_page(viewport={"width": width, "height": height}, locale="en-US", accept_downloads=True)
    page.goto(f"{url}/{path}?{query}")
    page.locator("h1").first.wait_for(timeout=60000)
    return page


def _at_step(page, tr, step: int, seed: int = 12) -> dict:
    return stepper_snapshot.wait_state(page, lambda s: stepper_snapshot.step_problems(s, tr, step, seed))


def _label(page) -> str | None:
    return page.evaluate(stepper_snapshot.SNAPSHOT_JS)["label"]


# ----------------------------------------------------------------------------- every page

# texts Streamlit cuts with an ellipsis when they overflow (metric and widget labels): a cut one hides words
CUT = """() => [...document.querySelectorAll('*')].filter(e => getComputedStyle(e).textOverflow === 'ellipsis'
    && e.getBoundingClientRect().width > 0 && e.scrollWidth > e.clientWidth + 1).map(e => e.innerText.slice(0, 60))
    .filter(text => text.trim())"""


def _visit_all(page, lang: str) -> list[str]:
    """Click every page in the sidebar's navigation; each must draw (charts or quiz questions), raise nothing and
    show its labels whole."""
    seen = []
    for url_path, _module, title_key, _icon, *_ in app_pages():
        title = t(title_key, lang)
        page.locator("[data-testid=stSidebarNav] a", has_text=title).first.click()
        path = "/" if url_path == app_pages()[0].slug else f"/{url_path}"     # the first page lives at /
        page.wait_for_function(f"() => location.pathname === {path!r}", timeout=30000)
        page.locator("h1", has_text=t(f"{url_path}.title", lang)).first.wait_for(timeout=60000)
        if url_path == "quiz":
            page.locator("[data-testid=stRadio]").nth(5).wait_for(timeout=60000)     # at least six questions
        elif url_path == "exercises":                                           # worked by hand: no chart
            page.locator("[data-testid=stExpander]").nth(4).wait_for(timeout=60000)   # five worked solutions
        else:
            page.locator(".js-plotly-plot").first.wait_for(timeout=90000)
        settle(page, draw_ms=500, timeout=90000)
        no_exception(page)
        assert page.locator("[data-testid=stAlertContentError]").count() == 0, \
            page.locator("[data-testid=stAlertContentError]").first.inner_text()
        try:                                                    # no label cut to "…", once the layout settles
            page.wait_for_function(f"() => ({CUT})().length === 0", timeout=15000)
        except Exception:
            raise AssertionError((url_path, lang, page.evaluate(CUT))) from None
        heading = page.locator("h1").first.inner_text()                         # waited for above
        if lang == "zh":
            assert any("\u4e00" <= c <= "\u9fff" for c in heading), heading       # a Chinese title
        else:
            assert heading.isascii(), heading
        seen.append(url_path)
    return seen


def test_every_page_renders_in_both_languages(browser, app_url):
    page = _open(browser, app_url, width=1280)                 # a classroom projector's width: labels stay whole
    assert _visit_all(page, "en") == [p.slug for p in app_pages()]
    page.locator(".st-key-_w-lang button", has_text="中文").click()           # the sidebar's language switch
    page.locator("[data-testid=stSidebarNav] a", has_text=t("common.nav_quiz", "zh")).wait_for(timeout=30000)
    assert _visit_all(page, "zh") == [p.slug for p in app_pages()]
    page.close()


# ----------------------------------------------------------------------------- the stepper

def _reruns(page) -> list:
    """Rerun requests this page sends on its websocket (BackMsg rerun_script), appended as they go out."""
    sent = []

    def attach(ws):
        if "_stcore/stream" in ws.url:
            def on_sent(payload):
                from streamlit.proto.BackMsg_pb2 import BackMsg
                if isinstance(payload, bytes) and BackMsg.FromString(payload).WhichOneof("type") == "rerun_script":
                    sent.append(time.monotonic())
            ws.on("framesent", on_sent)
    page.on("websocket", attach)
    return sent


def test_stepper_tile_buttons_keys_and_language(browser, app_url, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 900}, locale="en-US")
    sent = _reruns(page)
    page.goto(f"{app_url}/?lang=en")
    _at_step(page, stepper_snapshot.engine(12, 4), 0)
    tr = stepper_snapshot.engine(12, 2)                                     # tile 2: Tc = 8
    box = page.locator(".st-key-_w-cfg-block_n input")
    box.fill("2")
    box.press("Enter")
    _at_step(page, tr, 0)                                           # a configuration change: a server run
    before = len(sent)
    page.locator("[data-fv-act=next]").click()                      # the button
    _at_step(page, tr, 1)
    page.locator("h1").first.click()                                # focus on the page, not an input
    for key, step in (("ArrowRight", 2), ("ArrowRight", 3), ("ArrowLeft", 2), ("End", 7), ("Home", 0)):
        page.keyboard.press(key)                                    # ← → Home End (flashviz/client/player.js)
        _at_step(page, tr, step)
    page.locator("[data-fv-act=slider]").fill("6")                  # the slider scrubs
    _at_step(page, tr, 5)
    page.locator("[data-fv-act=last]").click()
    snap = _at_step(page, tr, 7)                                    # the last step: error vs exact shown too
    assert snap["metrics"]["Max error vs exact"] == f"{tr.error(7):.2e}"
    page.wait_for_timeout(500)
    assert len(sent) == before                                      # stepping asked the server for nothing

    page.locator(".st-key-_w-lang button", has_text="中文").click()   # the sidebar switch keeps the step
    page.get_by_text("第 8 / 8 步", exact=False).first.wait_for(timeout=30000)
    settle(page, draw_ms=300)
    expect_text(page.locator("h1"), t("stepper.title", "zh"))
    assert "lang=zh" in page.url
    expect_count(page.get_by_text(t("stepper.rec_header", "zh"), exact=True), 1)
    expect(page.locator("[data-fv-act=next]")).to_contain_text(t("common.step_next", "zh"))
    no_exception(page)
    page.screenshot(path=str(tmp_path / "stepper_zh_switched.png"))
    page.close()


def test_fast_key_presses_all_count(browser, app_url):
    """Ten → presses with no pause move ten steps (the server's reruns used to coalesce them)."""
    page = _open(browser, app_url)
    box = page.locator(".st-key-_w-cfg-block_n input")
    box.fill("1")
    box.press("Enter")
    tr = stepper_snapshot.engine(12, 1)                                     # 16 steps
    _at_step(page, tr, 0)
    page.locator("h1").first.click()
    for _ in range(10):
        page.keyboard.press("ArrowRight", delay=0)
    _at_step(page, tr, 10)
    page.close()


def test_lang_query_parameter_gives_chinese(browser, app_url):
    if not has_cjk_font():
        import warnings
        warnings.warn("no CJK font (apt-get install fonts-droid-fallback): Chinese renders as boxes")
    page = _open(browser, app_url, query="lang=zh")
    page.get_by_text("第 1 / 4 步", exact=False).first.wait_for(timeout=30000)
    settle(page)
    expect_text(page.locator("h1"), t("stepper.title", "zh"))
    expect_count(page.locator("[data-testid=stSidebarNav] a", has_text=t("common.nav_blocks", "zh")), 1)
    expect_some(page.get_by_text(t("common.cfg_block_n", "zh"), exact=True))            # sidebar label
    expect_some(page.locator(".js-plotly-plot .gtitle", has_text="分数"))                 # a chart title
    no_exception(page)
    page.close()


def test_autoplay_advances_then_stops(browser, app_url):
    page = browser.new_page(viewport={"width": 1400, "height": 1200}, locale="en-US")
    sent = _reruns(page)
    page.goto(f"{app_url}/?lang=en")
    page.get_by_text("Step 1 of 4").first.wait_for(timeout=60000)        # the stepper is drawn: a click now counts
    page.locator("[data-fv-speed='0.5']").click()
    play = page.locator("[data-fv-act=play]")
    stepper_snapshot.record_player(page)                # every state drawn from here on (a step lasts 0.5 s)
    before = len(sent)
    play.click()
    rec = stepper_snapshot.wait_record(page, lambda r: any(p for _, p in r) and r[-1] == (4, False))
    played = [s for s, p in rec if p]
    assert rec[0] == (1, False) and played[0] == 1, rec              # it starts where it stood ...
    assert played == sorted(set(played)) and played[-1] in (3, 4), rec   # ... moves forward only, to the end
    assert set(played) >= {2, 3}, rec                   # every step drawn (a 0.5 s step outlasts any frame)
    page.wait_for_timeout(1500)                         # stopped at the end, and it stays there
    assert stepper_snapshot.player_record(page) == rec
    expect_some(page.get_by_text("Step 4 of 4"))
    assert len(sent) == before                          # autoplay ran no script on the server
    play.click()                                        # playing from the end starts over
    rec2 = stepper_snapshot.wait_record(page, lambda r: (2, True) in r[len(rec):])
    assert rec2[len(rec)] == (1, True), rec2
    page.close()


# ----------------------------------------------------------------------------- export

def _download(page, scope, label: str, dest) -> tuple[str, bytes]:
    with page.expect_download(timeout=90000) as dl:
        scope.get_by_role("button", name=label).first.click()
    d = dl.value
    path = dest / d.suggested_filename
    d.save_as(path)
    return d.suggested_filename, path.read_bytes()


def _stepper_export(page):
    page.locator("[data-testid=stPopover]", has_text=t("stepper.export", "en")).first.locator("button").first.click()
    menu = page.locator("[data-testid=stPopoverBody]")
    menu.wait_for(timeout=60000)
    return menu


def test_chart_export_png_svg_html(browser, app_url, tmp_path):
    from flashviz.charts.common import fmt_num
    page = _open(browser, app_url)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60000)
    settle(page)
    menu = _stepper_export(page)                                             # the strip chart is picked first
    stem = "flashviz_strip_N16_d4_Br4_Bc4_fp32_seed12_row15_step4"           # at the last step: the whole run

    name, png = _download(page, menu, t("export.fmt_png", "en"), tmp_path)
    assert name == f"{stem}.png"
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    from PIL import Image
    assert Image.open(io.BytesIO(png)).size[0] == 2560                       # 1280 px at 2x: slide-sized

    name, svg = _download(page, menu, t("export.fmt_svg", "en"), tmp_path)
    assert name == f"{stem}.svg"
    root = ET.fromstring(svg)
    assert root.tag in ("svg", "{http://www.w3.org/2000/svg}svg")
    assert "Scores q·k/√d" in svg.decode()                                   # the chart's title as SVG text

    name, html = _download(page, menu, t("export.fmt_html", "en"), tmp_path)
    assert name == f"{stem}.html"
    text = html.decode()
    assert "plotly.js v" in text and "Plotly.newPlot(" in text and len(html) > 3_000_000     # offline bundle
    assert "<title>Scores q·k/√d · 16 keys, tile = 4</title>" in text
    tr = stepper_snapshot.engine(12, 4)
    for j in range(12, 16):                                                  # the last tile's scores
        assert f'["{fmt_num(float(tr.scores[j]))}","current tile (on-chip SRAM)"]' in text
    no_exception(page)
    page.close()


def test_page_zip_and_manifest(browser, app_url, tmp_path):
    page = _open(browser, app_url)
    page.locator("[data-fv-chart=recurrence].js-plotly-plot").wait_for(timeout=60000)
    settle(page)
    name, data = _download(page, page.locator(".st-key-_export-zip"), t("export.zip", "en"), tmp_path)
    assert name.startswith("flashviz_stepper_N16_") and name.endswith(".zip")
    zf = zipfile.ZipFile(io.BytesIO(data))
    names = set(zf.namelist())
    manifest = json.loads(zf.read("manifest.json"))
    assert manifest["app"] == "flashviz" and manifest["page"]["url_path"] == "stepper"
    assert manifest["language"] == "en"
    assert manifest["configuration"]["n"] == 16 and manifest["configuration"]["block_n"] == 4
    assert manifest["images"] == "png and svg included"
    assert sorted(c["chart"] for c in manifest["charts"]) == ["accumulator", "error", "recurrence", "strip"]
    for c in manifest["charts"]:
        assert not c.get("errors"), c
        assert {f.rsplit(".", 1)[1] for f in c["files"]} == {"html", "csv", "json", "png", "svg"}
        assert set(c["files"]) <= names
        assert zf.read(next(f for f in c["files"] if f.endswith(".png")))[:4] == b"\x89PNG"
    offline = "flashviz_stepper_N16_d4_Br4_Bc4_fp32_seed12_row15.html"       # the offline stepper
    assert manifest["files"] == [{"file": offline}] and offline in names
    assert b'id="flashviz-payload"' in zf.read(offline)
    page.close()


# ----------------------------------------------------------------------------- presenter mode and quiz

def test_presenter_mode(browser, app_url):
    page = _open(browser, app_url, query="present=1&lang=en")
    exit_button = page.get_by_role("button", name=t("present.exit", "en"))
    exit_button.wait_for(timeout=30000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60000)
    settle(page, draw_ms=300)
    # read until drawn (a style sheet can land after the element it styles on a busy machine: helpers.browser)
    expect_eval(page.locator("html"), "e => getComputedStyle(e).fontSize", "20px")      # larger text (present.CSS)
    expect_eval(page.locator("body"), """() => { const s = document.querySelector('[data-testid=stSidebar]');
        if (!s) return true; const r = s.getBoundingClientRect(); return r.width === 0 || r.right <= 0; }""",
                True)                                                                # sidebar folded away
    expect_eval(page.locator(".js-plotly-plot .gtitle"),
                "e => parseFloat(e.style.fontSize || getComputedStyle(e).fontSize) >= 20", True)  # chart titles too
    no_exception(page)
    exit_button.click()
    page.wait_for_function("() => getComputedStyle(document.documentElement).fontSize === '16px'", timeout=30000)
    assert "present" not in page.url
    page.close()


def test_quiz_feedback(browser, app_url):
    page = _open(browser, app_url, "quiz")
    first = page.locator("[data-testid=stRadio]").first
    first.get_by_text(t("quiz.reduces_b", "en"), exact=True).click()          # right: HBM traffic
    page.get_by_text(t("quiz.right", "en"), exact=False).first.wait_for(timeout=30000)
    second = page.locator("[data-testid=stRadio]").nth(1)
    second.get_by_text(t("quiz.alpha_a", "en"), exact=True).click()          # not the right answer (c)
    page.get_by_text(t("quiz.wrong", "en"), exact=False).first.wait_for(timeout=30000)
    settle(page, draw_ms=200)
    from flashviz.ui.quiz import QUESTIONS
    expect_some(page.get_by_text(t("quiz.score", "en", right=1, total=len(QUESTIONS), answered=2), exact=True))
    expect_some(page.locator("[data-testid=stAlertContentSuccess]"))
    expect_some(page.locator("[data-testid=stAlertContentError]"))
    expect_count(page.locator(EXCEPTION), 0)
    page.close()
