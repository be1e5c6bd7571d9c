"""Real-browser test of the page "Speed and memory": `streamlit run app.py` (conftest `app_url`), Debian's chromium
(conftest `browser`).

Opens /speed, waits for a Plotly chart (the recorded dataset's), runs the CPU memory exercise and checks its chart
appears; a screenshot of each language goes to pytest's tmp dir (the README's: `python -m tests.browser.screenshots`).
"""
from __future__ import annotations

import pytest

from helpers.browser import expect_some, no_exception, settle

pytestmark = pytest.mark.browser


def _speed_page(browser, url: str, lang: str, title: str, button: str):
    page = browser.new_page(viewport={"width": 1440, "height": 3700}, locale="en-US")
    page.goto(f"{url}/speed?lang={lang}", wait_until="networkidle")
    page.get_by_text(title).first.wait_for(timeout=30000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=30000)
    page.get_by_role("button", name=button).click()      # lesson exercise 3 on this CPU (a third chart)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=90000)
    settle(page, draw_ms=1500)
    no_exception(page)
    return page


def test_speed_page_en(app_url, browser, tmp_path):
    page = _speed_page(browser, app_url, "en", "Speed and memory", "Measure on this CPU (N = 512, 2048, 8192)")
    expect_some(page.get_by_text("No CUDA GPU on this machine"))
    expect_some(page.get_by_text("NVIDIA H200"))                      # provenance beside the charts
    page.screenshot(path=str(tmp_path / "speed_en.png"), full_page=True)
    page.close()


def test_speed_page_zh(app_url, browser, tmp_path):
    page = _speed_page(browser, app_url, "zh", "速度与显存", "在本机 CPU 上测量（N = 512, 2048, 8192）")
    expect_some(page.get_by_text("本机没有 CUDA GPU"))
    page.screenshot(path=str(tmp_path / "speed_zh.png"), full_page=True)
    page.close()
