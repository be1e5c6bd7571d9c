"""Shared test setup (the rooms' own fixtures are in their folders' conftest.py; shared helpers in tests/helpers/).

Without CUDA the Triton kernels run in Triton's interpreter; TRITON_INTERPRET must be set before
triton is imported anywhere, so it is decided here first (the kernels package decides it the same
way when imported outside pytest). GPU tests carry the `gpu` marker and skip cleanly without CUDA.
"""
import gc
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


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After a GPU test, hand its cached CUDA memory back: xdist workers share one GPU, and one worker's cache of
    float64 references made its neighbours run out of memory (the H200 suite, 2026-12-02)."""
    if HAS_CUDA and "gpu" in item.keywords:
        gc.collect()
        torch.cuda.empty_cache()
