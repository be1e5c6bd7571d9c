"""Fixtures of the real-browser tests: one `streamlit run app.py` for the session and one Chromium per module."""
import pytest


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """Base URL of one `streamlit run app.py` shared by the browser tests (the load test starts its own)."""
    from helpers.browser import streamlit_server
    with streamlit_server(log=tmp_path_factory.mktemp("streamlit") / "streamlit.log") as server:
        yield server.url


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium through Playwright's sync API, one per test module (closed before the next module,
    so the load test's async Playwright never overlaps a sync one)."""
    from helpers.browser import chromium
    with chromium() as b:
        yield b
