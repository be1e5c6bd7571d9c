"""The load test's own judgement, without a browser: it must fail on wrong numbers, an error on the page, a dead
or hung server, and must not fail on a page that is merely slow."""
from __future__ import annotations

import asyncio

import pytest

import loadtest
import loadwatch
from helpers.stepper_snapshot import engine, step_problems


class FakeServer:
    url = "http://127.0.0.1:9"

    def __init__(self, alive=True):
        self._alive = alive

    def alive(self):
        return self._alive

    def cpu_s(self):
        return 0.0


class PendingWire:
    def pending(self):
        return True


def hung_watch(**kw):
    w = loadwatch.Watch(FakeServer(**kw), 60)
    w.wires.append(PendingWire())
    return w


class FakePage:
    """Shows `slow` snapshots that are still running, then `final` forever."""

    def __init__(self, final: dict, slow: int = 0):
        self.final, self.slow, self.reads = final, slow, 0

    async def evaluate(self, js):
        self.reads += 1
        if self.reads <= self.slow:
            return {**self.final, "running": True}
        return self.final


def snapshot(tr, step: int, seed: int, **over) -> dict:
    """What the page shows at `step` of trace tr, built from the engine the way the page formats it."""
    from helpers.stepper_snapshot import expected_rows
    lo, hi = int(tr.start[step]), int(tr.stop[step])
    snap = {"label": f"Step {step + 1} of {tr.steps} · keys {lo}–{hi - 1} are in SRAM",
            "captions": [f"Scores from seed {seed}, Bc = {tr.tile_size} → Tc = {tr.steps}"],
            "tables": [[["h"] * 7, *expected_rows(tr, step)]],
            "metrics": {"Scores in SRAM now (of N)": f"{hi - lo} / {tr.n}",
                        "Rescales so far": str(int(tr.rescaled[:step + 1].sum()))},
            "running": False, "stale": 0, "exceptions": [], "errors": [], "infos": []}
    return {**snap, **over}


def until(page, watch, finished=lambda: True):
    res = loadwatch.Session(0, 12, 4)
    return asyncio.run(loadwatch._until(page, lambda s: step_problems(s, TR, 1, 12), watch, "next", res, finished))


TR = engine(12, 4)


def test_the_right_state_passes_even_when_slow(monkeypatch):
    monkeypatch.setattr(loadwatch, "POLL_S", 0.001)
    page = FakePage(snapshot(TR, 1, 12), slow=50)
    assert until(page, loadwatch.Watch(FakeServer(), 60))["label"].startswith("Step 2 of 4")
    assert page.reads == 51


def test_wrong_numbers_fail_once_the_page_has_settled(monkeypatch):
    monkeypatch.setattr(loadwatch, "POLL_S", 0.001)
    monkeypatch.setattr(loadwatch, "WRONG_S", 0.05)
    other = engine(13, 4)                                     # another session's seed
    page = FakePage(snapshot(other, 1, 12))
    with pytest.raises(AssertionError, match="settled on a wrong state"):
        until(page, loadwatch.Watch(FakeServer(), 60))


def test_a_page_still_drawing_its_table_is_not_wrong(monkeypatch):
    monkeypatch.setattr(loadwatch, "POLL_S", 0.001)
    monkeypatch.setattr(loadwatch, "WRONG_S", 0.0)
    monkeypatch.setattr(loadwatch, "STALL_S", 0.2)
    page = FakePage(snapshot(TR, 1, 12, tables=[]))             # settled, run finished, table not drawn yet
    with pytest.raises(AssertionError, match="hung"):         # only the stall watch ends it, never "wrong"
        until(page, hung_watch())


def test_wrong_numbers_are_not_judged_before_the_servers_run_finished(monkeypatch):
    monkeypatch.setattr(loadwatch, "POLL_S", 0.001)
    monkeypatch.setattr(loadwatch, "WRONG_S", 0.0)
    monkeypatch.setattr(loadwatch, "STALL_S", 0.2)
    page = FakePage(snapshot(engine(13, 4), 1, 12))
    with pytest.raises(AssertionError, match="hung"):         # only the stall watch ends it
        until(page, hung_watch(), finished=lambda: False)


def test_an_error_on_the_page_fails_at_once():
    page = FakePage(snapshot(TR, 0, 12, errors=["Traceback ..."]))
    with pytest.raises(AssertionError, match="shows an error"):
        until(page, loadwatch.Watch(FakeServer(), 60))
    assert page.reads == 1


def test_a_dead_server_fails_the_session():
    watch = loadwatch.Watch(FakeServer(alive=False), 60)
    asyncio.run(asyncio.wait_for(watch.monitor(), 5))
    assert watch.dead == "the server process exited"
    with pytest.raises(AssertionError, match="exited"):
        until(FakePage(snapshot(TR, 0, 12)), watch)


def test_a_slow_browser_with_nothing_waiting_on_the_server_is_not_hung(monkeypatch):
    monkeypatch.setattr(loadwatch, "STALL_S", 0.0)
    watch = loadwatch.Watch(FakeServer(), 60)
    assert watch.problem() == ""                              # no wire pending: the wait is the browser's
    watch.wires.append(PendingWire())
    assert "hung" in watch.problem()


@pytest.mark.timeout(60)
def test_a_hung_action_is_cancelled_by_the_watch(monkeypatch):
    """An action that never finishes: only the watch can end it (else pytest's timeout fails the test), and it
    cancels the action rather than leaving it running."""
    monkeypatch.setattr(loadwatch, "STALL_S", 0.3)
    watch = hung_watch()
    seen = []

    async def forever():
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
    with pytest.raises(AssertionError, match="hung"):
        asyncio.run(watch.guard(forever(), "click"))
    assert seen == ["cancelled"]


def test_default_sessions_follow_the_cores():
    assert [loadtest.default_sessions(c) for c in (1, 2, 4, 8)] == [4, 8, 16, 20]
