"""One place for what every real-browser test, the load test and the screenshot script need: a
`streamlit run app.py` on a free loopback port (stopped by the streamlit process's own PID), Debian's
chromium for Playwright (never `playwright install`), and small waits for Streamlit's page to settle.

Used by tests/browser/test_*.py (through the fixtures in tests/browser/conftest.py), tests/load/test_load.py and by the
scripts `python -m tests.load.loadtest` and `python -m tests.browser.screenshots` (plain context managers).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from flashviz.infra.procs import stat_fields
from flashviz.infra.serve import free_port, healthy, rss_mb  # noqa: F401  (healthy: GET /_stcore/health is 200)

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "assets" / "screenshots"
# The flags Debian's chromium needs to run headless in a container (no GPU, no sandbox) without reaching the network.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
STATUS = '[data-testid="stStatusWidget"]'       # Streamlit's "Running..." indicator (absent when idle)
EXCEPTION = '[data-testid="stException"]'       # Streamlit's red traceback box


def app_pages():
    """The app's pages in navigation order: flashviz.ui.pages.PAGES (slug, module, title key, icon)."""
    from flashviz.ui.pages import PAGES
    return PAGES


def chromium_path() -> str | None:
    return os.environ.get("FLASHVIZ_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class Server:
    url: str
    pid: int

    def rss_mb(self) -> float | None:
        """Resident memory of the streamlit process (Linux /proc), or None."""
        return rss_mb(self.pid)

    def alive(self) -> bool:
        """The streamlit process exists and is not a zombie (Linux /proc; True where /proc cannot tell)."""
        try:
            return Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False
        except (OSError, IndexError):
            return True

    def cpu_s(self) -> float | None:
        """CPU seconds (user + system, all threads) the streamlit process has used so far (Linux /proc), or None."""
        fields = stat_fields(self.pid)
        try:
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")    # utime, stime
        except (TypeError, IndexError, ValueError):                               # no /proc, or not a number
            return None


@contextlib.contextmanager
def streamlit_server(*, log: Path | None = None, start_timeout: float = 60.0, env: dict | None = None):
    """`streamlit run app.py` headless on 127.0.0.1 at a free port; yields a Server (.url, .pid). Stopped by SIGTERM to
    the streamlit process itself (Popen of the interpreter, no wrapper shell), killed if it does not exit."""
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port),
           "--browser.serverAddress", "localhost", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    out = open(log, "wb") if log else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while not healthy(url, timeout=1):
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {proc.returncode} before answering (log: {log})")
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not answer /_stcore/health within {start_timeout:.0f} s")
            time.sleep(0.25)
        yield Server(url, proc.pid)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        if log:
            out.close()


def launch_chromium(playwright, **kw):
    """Debian's chromium through a Playwright (sync or async) instance; awaitable with the async API."""
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, **kw)


@contextlib.contextmanager
def chromium():
    """A sync Playwright Browser on Debian's chromium."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = launch_chromium(p)
        try:
            yield b
        finally:
            b.close()


# ----------------------------------------------------------------------------- waits (sync API)

def settle(page, *, draw_ms: int = 1200, timeout: int = 60000) -> None:
    """Wait until the script has finished (no status widget) and give Plotly time to draw."""
    page.wait_for_timeout(300)
    page.wait_for_function(f"() => !document.querySelector('{STATUS}')", timeout=timeout)
    page.wait_for_timeout(draw_ms)


def expect_count(locator, n: int, timeout: int = 30000) -> None:
    """Wait until `locator` matches exactly n elements (a page still being drawn is waited for, not read once)."""
    from playwright.sync_api import expect
    expect(locator).to_have_count(n, timeout=timeout)


def expect_some(locator, timeout: int = 30000) -> None:
    """Wait until `locator` matches at least one element."""
    from playwright.sync_api import expect
    expect(locator.first).to_be_attached(timeout=timeout)


def expect_text(locator, text: str, timeout: int = 30000) -> None:
    """Wait until the first element of `locator` has exactly this text."""
    from playwright.sync_api import expect
    expect(locator.first).to_have_text(text, timeout=timeout)


def expect_eval(locator, script: str, want, timeout: int = 30000, step_ms: int = 100):
    """Wait until `locator.evaluate(script)` (first element) equals `want`; an AssertionError names the last value read.
    For what the page draws after the element itself (a style sheet Streamlit mounts later, a pseudo-element's text):
    read once, it can catch the element before the sheet that styles it, on a busy machine."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        try:
            got = locator.first.evaluate(script)
        except Exception as e:                                   # noqa: BLE001 (an element redrawn between reads)
            got = e
        if got == want:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"after {timeout} ms: {got!r} != {want!r}")
        locator.page.wait_for_timeout(step_ms)


def no_exception(page) -> None:
    """Neither Streamlit's exception box nor a raw traceback on the page."""
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()
    assert page.get_by_text("Traceback (most recent call last)").count() == 0


def has_cjk_font() -> bool:
    if not shutil.which("fc-list"):
        return True                                      # cannot tell; assume the system has one
    out = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
    return bool(out.strip())
