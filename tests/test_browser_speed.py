"""Real-browser test of the page "Speed and memory": `streamlit run app.py` on a free port, Debian's chromium.

Opens /speed, waits for a Plotly chart (the recorded dataset's), runs the CPU memory exercise, and saves the
screenshots assets/screenshots/speed_en.png and speed_zh.png. Never `playwright install`: the system chromium.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import CHROMIUM
from test_browser import ARGS, ROOT, SHOTS, _free_port

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--browser.serverAddress", "localhost",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://localhost:{port}"
    try:
        for _ in range(120):                            # up to ~30 s to come up
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).status == 200:
                    break
            except OSError:
                time.sleep(0.25)
        else:
            pytest.fail("streamlit did not start")
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)                # the streamlit process itself, by its PID
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=os.environ.get("FLASHVIZ_CHROMIUM") or CHROMIUM, args=ARGS)
        yield b
        b.close()


def _settle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60000)
    page.wait_for_timeout(1500)                          # plotly draws after the delta arrives


def _speed_page(browser, url: str, lang: str, title: str, button: str):
    page = browser.new_page(viewport={"width": 1440, "height": 3700}, locale="en-US")
    page.goto(f"{url}/speed?lang={lang}", wait_until="networkidle")
    page.get_by_text(title).first.wait_for(timeout=30000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=30000)
    page.get_by_role("button", name=button).click()      # lesson exercise 3 on this CPU (a third chart)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=90000)
    _settle(page)
    assert page.get_by_text("Traceback").count() == 0
    return page


def test_speed_page_en(server, browser):
    page = _speed_page(browser, server, "en", "Speed and memory", "Measure on this CPU (N = 512, 2048, 8192)")
    assert page.get_by_text("No CUDA GPU on this machine").count() >= 1
    assert page.get_by_text("NVIDIA H200").count() >= 1               # provenance beside the charts
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "speed_en.png"), full_page=True)
    page.close()


def test_speed_page_zh(server, browser):
    page = _speed_page(browser, server, "zh", "速度与显存", "在本机 CPU 上测量（N = 512, 2048, 8192）")
    assert page.get_by_text("本机没有 CUDA GPU").count() >= 1
    page.screenshot(path=str(SHOTS / "speed_zh.png"), full_page=True)
    page.close()
