"""Real-browser smoke test: `streamlit run app.py` on a free port, Debian's chromium through Playwright.

Opens the stepper, clicks Next once, checks the step label changed, and saves the screenshots used in the
README (assets/screenshots/stepper_en.png, stepper_zh.png). Never `playwright install`: the system chromium.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import CHROMIUM

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "assets" / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--browser.serverAddress", "localhost",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
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


def _open(browser, url: str, lang: str):
    page = browser.new_page(viewport={"width": 1440, "height": 2350}, locale="en-US")
    page.goto(f"{url}/?lang={lang}", wait_until="networkidle")
    page.get_by_text("Tc = 4" if lang == "en" else "共 Tc = 4 步").first.wait_for(timeout=30000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=30000)
    return page


def _settle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=20000)
    page.wait_for_timeout(1200)                          # plotly draws after the delta arrives


def test_step_and_screenshot_en(server, browser):
    page = _open(browser, server, "en")
    page.get_by_text("Step 1 of 4").first.wait_for(timeout=20000)
    page.get_by_role("button", name="Next").click()
    page.get_by_text("Step 2 of 4").first.wait_for(timeout=20000)
    assert page.get_by_text("keys 4–7 are in SRAM").count() >= 1
    _settle(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "stepper_en.png"), full_page=True)
    assert page.get_by_text("Traceback").count() == 0
    page.close()


def _has_cjk_font() -> bool:
    if not shutil.which("fc-list"):
        return True                                      # cannot tell; assume the system has one
    out = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
    return bool(out.strip())


def test_chinese_screenshot(server, browser):
    if not _has_cjk_font():
        import warnings
        warnings.warn("no CJK font (apt-get install fonts-droid-fallback or fonts-noto-cjk): "
                      "stepper_zh.png will show boxes instead of Chinese")
    page = _open(browser, server, "zh")
    page.get_by_role("button", name="下一步").click()
    page.get_by_text("第 2 / 4 步").first.wait_for(timeout=20000)
    _settle(page)
    page.screenshot(path=str(SHOTS / "stepper_zh.png"), full_page=True)
    assert page.get_by_text("在线 softmax，逐块推进").count() >= 1
    page.close()


def test_autoplay_advances_then_stops(server, browser):
    page = _open(browser, server, "en")
    page.get_by_text("0.5 s / step").click()
    page.wait_for_timeout(500)
    toggle = page.locator("[data-testid=stMain] [data-testid=stCheckbox] input").first   # Autoplay
    page.get_by_text("Autoplay").first.click()
    page.get_by_text("Step 2 of 4").first.wait_for(timeout=15000)
    assert toggle.is_checked()
    for want in (3, 4):                                 # the fragment's run_every timer moves it
        page.get_by_text(f"Step {want} of 4").first.wait_for(timeout=15000)
    page.wait_for_timeout(2000)
    assert page.get_by_text("Step 4 of 4").count() >= 1   # stopped at the end, toggle back off
    assert not toggle.is_checked()
    page.close()
