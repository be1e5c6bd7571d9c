"""flashviz.infra.cache: byte-bounded, thread-safe, read-only process-wide caches."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from flashviz.infra import cache as fc


@dataclass(frozen=True)
class Box:
    a: np.ndarray
    parts: tuple


def test_nbytes_counts_arrays_tensors_and_containers_once():
    a = np.zeros(1000)                                        # 8000 bytes
    assert 8000 <= fc.nbytes(a) < 8000 + 200
    assert fc.nbytes(a[::2]) == fc.nbytes(a)                  # a view holds its base
    both = fc.nbytes(Box(a, (a[:10], {"x": np.ones(500, np.float32)})))
    assert 8000 + 2000 <= both < 8000 + 2000 + 2000             # `a` once, its view adds nothing
    t = torch.zeros(256, dtype=torch.float16)
    assert fc.nbytes(t) >= 512
    assert fc.nbytes("x" * 10000) >= 10000


def test_values_are_frozen_and_shared():
    c = fc.ByteLRU("test.frozen", 1 << 20)
    v = c.get("k", lambda: Box(np.arange(4.0), (np.ones(3), [np.zeros(2)])))
    for arr in (v.a, v.parts[0], v.parts[1][0]):
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = 5
    assert c.get("k", lambda: pytest.fail("recomputed")) is v


def test_least_recently_used_go_first_within_the_byte_budget():
    c = fc.ByteLRU("test.lru", 3 * 8000 + 500)
    make = lambda: np.zeros(1000)                             # noqa: E731  ~8 KB each
    for k in "abc":
        c.get(k, make)
    c.get("a", make)                                          # a is now the most recent
    c.get("d", make)                                          # evicts b, the least recent
    assert "b" not in c and all(k in c for k in "acd") and c.held_bytes <= c.budget
    big = c.get("huge", lambda: np.zeros(10_000))             # larger than the budget: returned, not kept
    assert big.shape == (10_000,) and "huge" not in c and len(c) == 3
    assert c.stats()["evictions"] == 1


def test_one_computation_per_key_across_threads_and_errors_are_not_kept():
    c = fc.ByteLRU("test.threads", 1 << 20)
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.2)
        return np.ones(8)

    out = []
    threads = [threading.Thread(target=lambda: out.append(c.get("k", slow))) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(calls) == 1 and len(out) == 6 and all(o is out[0] for o in out)

    def boom():
        raise RuntimeError("no")
    with pytest.raises(RuntimeError):
        c.get("bad", boom)
    assert "bad" not in c and c.get("bad", lambda: np.zeros(1)).shape == (1,)


def test_memo_keys_on_arguments_and_a_name_is_one_cache():
    calls = []

    @fc.memo("test.memo", 1 << 20)
    def f(x, y=1):
        calls.append((x, y))
        return np.full(3, x + y)

    assert f(1).tolist() == [2, 2, 2] and f(1, y=2).tolist() == [3, 3, 3] and f(1).tolist() == [2, 2, 2]
    assert calls == [(1, 1), (1, 2)]
    assert f(1.0).tolist() == [2, 2, 2] and f(True).tolist() == [2, 2, 2]      # equal, but other inputs
    assert calls == [(1, 1), (1, 2), (1.0, 1), (True, 1)]
    assert fc.named("test.memo", 1) is f.cache                 # a page script re-run finds the same cache
    assert f.cache in fc.caches() and fc.held_bytes() >= f.cache.held_bytes > 0


def test_all_caches_together_stay_within_the_process_budget(monkeypatch):
    """Each cache within its own budget is not enough: 9 caches of 32-128 MiB could hold more than a 1 GB process
    can spare. Together they hold at most TOTAL_BUDGET; the fullest one gives up its oldest entry first, and the
    value just computed is kept."""
    from flashviz.infra import cache as fc
    monkeypatch.setattr(fc, "TOTAL_BUDGET", 12 * fc.MiB)
    monkeypatch.setattr(fc, "_CACHES", {})
    a, b = fc.named("t.a", 10 * fc.MiB), fc.named("t.b", 10 * fc.MiB)
    block = lambda mib: np.ones(mib * fc.MiB // 8)                       # noqa: E731
    a.get("a1", lambda: block(4))
    a.get("a2", lambda: block(4))
    b.get("b1", lambda: block(3))
    assert fc.held_bytes() <= 12 * fc.MiB
    b.get("b2", lambda: block(3))                                        # 14 MiB asked: the oldest of a goes
    assert fc.held_bytes() <= 12 * fc.MiB
    assert "a1" not in a and "a2" in a and "b1" in b and "b2" in b
    assert a.evictions == 1 and b.evictions == 0


def test_the_heap_is_handed_back_after_large_evictions(monkeypatch):
    from flashviz.infra import cache as fc
    monkeypatch.setattr(fc, "_freed", {"bytes": 0, "at": 0.0})
    assert fc.trim_heap() is False                                       # nothing evicted: nothing to do
    fc._freed["bytes"] = fc.TRIM_AFTER
    import ctypes.util
    assert fc.trim_heap() is (ctypes.util.find_library("c") is not None)  # glibc: it ran
    assert fc._freed["bytes"] == 0
