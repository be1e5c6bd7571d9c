"""A long lecture in one server process: the process-wide caches stay within their byte budgets.

A smaller version of `python -m tests.load.memory_curve` (which prints the process's RSS over 200 configurations):
40 distinct configurations over the stepper, blocks and flash-decoding pages in this one process, with every
cache's budget lowered to BUDGET so that modest sizes (N <= 2048) overflow each engine cache several times.
After every page run each cache must hold at most its budget, and what it says it holds must be what its
entries hold (flashviz.infra.cache.nbytes of each, measured again here).
"""
from __future__ import annotations

import pytest

from helpers import app as app_util
from memory_curve import configs

from flashviz.infra import cache as fc

BUDGET = 6 * fc.MiB
ENGINE = ("stepper.trace", "blocks.schedule", "decoding.decode", "decoding.paged")


@pytest.mark.timeout(600)
def test_caches_stay_within_their_byte_budgets(monkeypatch):
    import flashviz.ui.blocks  # noqa: F401  (declares the pages' caches)
    import flashviz.ui.decoding  # noqa: F401
    import flashviz.ui.stepper  # noqa: F401
    caches = {c.name: c for c in fc.caches()}
    assert set(ENGINE) <= set(caches)
    for c in caches.values():
        c.clear()
        monkeypatch.setattr(c, "budget", BUDGET)
    before = {name: c.stats()["evictions"] for name, c in caches.items()}
    biggest = 0
    for page, values in configs(40, ns=(256, 512, 1024, 2048), ds=(128, 64), bcs=(4, 1, 16)):
        at = app_util.open_page(page, **values)
        assert not at.exception and not at.error, (page, values)
        for c in caches.values():
            entries = list(c._items.values())
            assert c.held_bytes <= c.budget, (c.name, c.held_bytes)
            assert c.held_bytes == sum(size for _, size in entries)
            assert all(fc.nbytes(v) == size for v, size in entries), c.name
            biggest = max([biggest, *(size for _, size in entries)])
    after = {name: c.stats()["evictions"] for name, c in caches.items()}
    assert all(after[n] > before[n] for n in ("stepper.trace", "decoding.decode", "decoding.paged")), after
    assert biggest > BUDGET / 8                                    # the sizes were large enough to matter
    assert fc.held_bytes() <= fc.total_budget()
