"""Shared test setup.

Without CUDA the Triton kernels run in Triton's interpreter; TRITON_INTERPRET must be set before
triton is imported anywhere, so it is decided here first (the kernels package decides it the same
way when imported outside pytest). GPU tests carry the `gpu` marker and skip cleanly without CUDA.
"""
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "ci", deadline=None, max_examples=60, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("thorough", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

HAS_CUDA = torch.cuda.is_available()
from helpers.browser import chromium_path  # noqa: E402

CHROMIUM = chromium_path()


def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason="needs a CUDA GPU")
    skip_browser = pytest.mark.skip(reason="no Chromium found (apt-get install chromium)")
    for item in items:
        if "gpu" in item.keywords and not HAS_CUDA:
            item.add_marker(skip_gpu)
        if "browser" in item.keywords and not CHROMIUM:
            item.add_marker(skip_browser)


# ----------------------------------------------------------------------------- browser fixtures (tests/helpers/browser.py)

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


# ----------------------------------------------------------------------------- the Gluon ws kernels (tests/test_ws*.py)

@pytest.fixture
def fresh_ws_state(monkeypatch):
    """The ws kernel's module state as a fresh process has it: no recorded failure, nothing warned yet."""
    from flashviz_kernels import fallback, ws
    monkeypatch.setattr(ws, "_state", {"failed": None, "warned": False})
    fallback.forget()


@pytest.fixture
def needs_ws():
    """Skip, with the reason, where the ws forward cannot run (no Hopper, not the verified triton)."""
    from flashviz_kernels import ws
    st = ws.status()
    if not st["active"]:
        pytest.skip(f"ws cannot run here: {st['reason']}")


@pytest.fixture
def needs_ws_bwd():
    """Skip, with the reason, where the ws backward cannot run."""
    from flashviz_kernels import ws_bwd
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    why = ws_bwd.supported(torch.empty((1, 1, 1, 64), dtype=torch.float16, device="cuda"))
    if why:
        pytest.skip(f"the ws backward cannot run here: {why}")
