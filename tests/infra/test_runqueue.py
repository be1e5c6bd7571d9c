"""flashviz.infra.runqueue: one run per configuration for all sessions, a visible place in the line, failures forgotten,
results bounded by bytes; and the stepper's kernel panel showing the place while it waits."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from flashviz.infra.runqueue import RunQueue


class Gate:
    """fn for a RunQueue whose runs block until released; records every call."""

    def __init__(self):
        self.calls: list[tuple] = []
        self.go: dict[tuple, threading.Event] = {}
        self.started = threading.Event()

    def __call__(self, *key):
        self.calls.append(key)
        self.started.set()
        self.go.setdefault(key, threading.Event()).wait(10)
        if key[0] == "fail":
            raise ValueError(f"bad {key}")
        return {"key": key, "a": np.arange(4.0)}

    def release(self, key):
        self.go.setdefault(key, threading.Event()).set()


def test_same_key_runs_once_and_everyone_gets_the_result():
    g = Gate()
    q = RunQueue(g)
    futs = []
    threads = [threading.Thread(target=lambda: futs.append(q.submit(("a", 1)))) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    g.release(("a", 1))
    results = [f.result(timeout=5) for f in futs]
    assert g.calls == [("a", 1)] and q.runs == 1
    assert all(r is results[0] for r in results)
    assert q.submit(("a", 1)).result(timeout=1) is results[0]          # kept: no second run
    assert q.runs == 1


def test_place_in_the_line_counts_runs_ahead_in_arrival_order():
    g = Gate()
    q = RunQueue(g)
    f1 = q.submit(("k", 1))
    assert g.started.wait(5)                                          # the first is running
    f2, f3 = q.submit(("k", 2)), q.submit(("k", 3))
    assert [q.position(("k", i)) for i in (1, 2, 3)] == [0, 1, 2]
    assert q.position(("k", 9)) is None and len(q) == 3
    g.release(("k", 1))
    f1.result(timeout=5)
    g.release(("k", 3))                                               # 3 may not overtake 2
    assert not f3.done()
    assert q.position(("k", 3)) == 1
    g.release(("k", 2))
    assert f2.result(timeout=5)["key"] == ("k", 2) and f3.result(timeout=5)["key"] == ("k", 3)
    assert g.calls == [("k", 1), ("k", 2), ("k", 3)]
    assert q.position(("k", 3)) is None and len(q) == 0


def test_a_failure_reaches_every_waiter_and_is_not_remembered():
    g = Gate()
    q = RunQueue(g)
    a, b = q.submit(("fail", 1)), q.submit(("fail", 1))
    g.release(("fail", 1))
    for f in (a, b):
        with pytest.raises(ValueError, match="bad"):
            f.result(timeout=5)
    assert not q.kept(("fail", 1))
    c = q.submit(("fail", 1))                                         # asked again: runs again
    with pytest.raises(ValueError):
        c.result(timeout=5)
    assert g.calls == [("fail", 1), ("fail", 1)]
    d = q.submit(("ok", 1))                                           # and the worker is still alive
    g.release(("ok", 1))
    assert d.result(timeout=5)["key"] == ("ok", 1)


def test_results_are_bounded_by_bytes_least_recently_used_out():
    sizes = {i: 1000 * i for i in range(1, 6)}
    q = RunQueue(lambda i: np.zeros(sizes[i], np.uint8), max_bytes=9000)
    for i in (1, 2, 3):
        q.submit((i,)).result(timeout=5)
    from flashviz.infra.cache import nbytes
    size = {i: nbytes(np.zeros(sizes[i], np.uint8)) for i in sizes}    # the array and its header
    assert q.held_bytes == size[1] + size[2] + size[3]
    q.submit((1,)).result(timeout=5)                                  # 1 is now the most recently used
    q.submit((4,)).result(timeout=5)                                  # over 9000: the oldest (2) goes
    assert q.held_bytes == size[1] + size[3] + size[4] and not q.kept((2,)) and q.kept((1,)) and q.kept((3,)) and q.kept((4,))
    big = RunQueue(lambda: np.zeros(100, np.uint8), max_bytes=10)
    assert big.submit(()).result(timeout=5).nbytes == 100 and big.held_bytes == 0   # handed out, not kept
    assert not big.kept(())


@pytest.mark.skipif(not __import__("flashviz_kernels").INTERPRET, reason="the interpreter's panel (CPU)")
def test_the_panel_shows_its_place_while_another_sessions_run_holds_the_line(monkeypatch):
    """Another session's run holds the server-wide line; this session's Run waits, is told "1 run(s) ahead of
    yours", then gets its own real kernel result once the other finishes."""
    from helpers.app import run_app

    from flashviz.ui import kernel_panel as kp
    gate = threading.Event()
    real = kp.cached_block

    def held(*key):
        if key[0] == "other":
            gate.wait(20)
            return {}
        return real(*key)

    monkeypatch.setattr(kp, "RUNS", RunQueue(held))
    other = kp.RUNS.submit(("other",))
    said = []
    orig_t = kp.t
    monkeypatch.setattr(kp, "t", lambda key, lang, **kw: (said.append((key, kw)), orig_t(key, lang, **kw))[1])
    at = run_app()
    threading.Timer(1.5, gate.set).start()
    at.button(key="kernel.run").click().run()
    assert not at.exception and not at.error
    assert ("kernel.queued", {"ahead": 1}) in said, " ".join(k for k, _ in said)
    assert other.done() and kp.RUNS.runs == 2
    assert {m.label: m.value for m in at.metric}["Tiles compared"] == "4 / 4"
    assert not [i for i in at.info if "Waiting for the kernel" in i.value]      # the notice is gone when done
