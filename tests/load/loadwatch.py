"""The load test's client-side watch (tests/load/loadtest.py): how a simulated student's session waits for its page
and when it gives up. A session fails on what Watch reports (a dead or hung server, the run's hard cap) or on a page
that settled on wrong numbers, never on a fixed time per action; Wire times the websocket messages that matter.
tests/load/loadtest.py re-exports the classes and functions; the constants live here only, so a test patches them
here (tests/load/test_loadtest_harness.py drives them with fake pages).
"""
from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]   # helpers

from helpers import browser as bu  # noqa: E402
from helpers.stepper_snapshot import SNAPSHOT_JS, complete  # noqa: E402

STALL_S = 300.0                 # requests waiting and no script run finished for anyone this long: hung
LOST_S = 30.0                   # an action's rerun request not sent after this long: the click or Enter was lost
WRONG_S = 120.0                 # a settled page, its run finished, still showing other numbers this long: wrong
POLL_S = 0.25                   # the client polls every page: faster polling costs the shared CPU more
HEALTH_EVERY_S = 5.0
HEALTH_FAILS = 6                # consecutive failed health checks (10 s timeout each) that mean a dead server

# ----------------------------------------------------------------------------- the watch over the server

def default_sessions(cores: int | None = None) -> int:
    """Browser sessions the machine can drive beside the server: 4 per core, at least 4, at most 20."""
    return max(4, min(20, 4 * (cores or os.cpu_count() or 1)))


class Watch:
    """Shared by every session: when the server last finished a script run, which sessions wait for one, and
    whether the server is alive. A session fails on what this reports, never on a fixed time per action."""

    def __init__(self, server: bu.Server, budget_s: float):
        self.server, self.deadline = server, time.monotonic() + budget_s
        self.last = time.monotonic()
        self.dead = ""
        self.wires: list[Wire] = []

    def progress(self) -> None:
        self.last = time.monotonic()

    def problem(self) -> str:
        """Why every session should give up now, or "". Hung means: a rerun request is waiting and the server has
        finished no run for anyone for STALL_S. A browser slow to draw what the server already sent is not hung."""
        now = time.monotonic()
        if self.dead:
            return self.dead
        if now - self.last > STALL_S and any(w.pending() for w in self.wires):
            return f"the server finished no script run for {now - self.last:.0f} s with requests waiting (hung)"
        if now > self.deadline:
            return "the run's hard cap (--budget) was reached"
        return ""

    async def monitor(self) -> None:
        fails = 0
        while not self.dead:
            if not self.server.alive():
                self.dead = "the server process exited"
                return
            fails = 0 if await asyncio.to_thread(bu.healthy, self.server.url, 10) else fails + 1
            if fails >= HEALTH_FAILS:
                self.dead = f"GET /_stcore/health failed {fails} times in a row"
                return
            await asyncio.sleep(HEALTH_EVERY_S)

    async def guard(self, aw, what: str):
        """Await aw (a Playwright action), giving up only when the server is dead or hung."""
        task = asyncio.ensure_future(aw)
        while not task.done():
            await asyncio.wait({task}, timeout=1.0)
            why = self.problem()
            if why and not task.done():
                task.cancel()
                raise AssertionError(f"{what}: {why}")
        return task.result()


# ----------------------------------------------------------------------------- one session

@dataclass
class Session:
    index: int
    seed: int
    tile: int
    ok: bool = False
    error: str = ""
    load_s: float | None = None
    reruns: list = field(default_factory=list)     # (action, seconds): click -> the page shows the new state
    wire: list = field(default_factory=list)       # (action, seconds): rerun request sent -> script finished
    cpu: list = field(default_factory=list)        # (action, server CPU seconds from the click to the checked page)
    kernel_s: float | None = None
    max_diff: float | None = None
    queue_max: int | None = None                    # the largest "runs ahead of yours" the page showed
    checks: int = 0                                 # snapshots compared with the engine and found equal
    ws_reruns: int = 0                              # rerun requests the browser sent on the websocket
    ws_finished: int = 0                            # script runs the server reported finished
    tag: str = ""                                   # ?lt= of this session: its script runs in the run log
    windows: list = field(default_factory=list)     # (action, start, end) in time.time(): runs started in it are its
    step_requests: int = 0                          # rerun requests the steps sent (the browser steps: must be 0)

QUEUED = re.compile(r"Waiting for the kernel: (\d+) run")



async def _until(page, ok, watch: Watch, what: str, res: Session, finished=lambda: False, kernel: bool = False):
    """Poll the page until ok(snapshot) returns [] on a settled page. Raise when the page shows an error, when the
    server is dead or hung (Watch), or when a settled, complete page (helpers.stepper_snapshot.complete) has shown
    other numbers for WRONG_S seconds after the server finished this action's run (finished())."""
    problems, wrong_since = ["nothing read"], None
    while True:
        why = watch.problem()
        if why:
            raise AssertionError(f"{what}: {why}; the page showed: {problems[:3]}")
        snap = await watch.guard(page.evaluate(SNAPSHOT_JS), what)
        if snap["exceptions"] or snap["errors"]:
            raise AssertionError(f"{what}: the page shows an error: {snap['exceptions'] + snap['errors']}")
        for m in (QUEUED.search(x) for x in snap["infos"]):
            if m:
                res.queue_max = max(res.queue_max or 0, int(m.group(1)))
        problems = ok(snap)
        settled = not snap["running"] and not snap["stale"]
        if not problems and settled:
            return snap
        if problems and settled and complete(snap, kernel) and finished():
            wrong_since = wrong_since or time.monotonic()
            if time.monotonic() - wrong_since > WRONG_S:
                raise AssertionError(f"{what}: the page settled on a wrong state: {problems[:3]}")
        else:
            wrong_since = None
        await asyncio.sleep(POLL_S)


class Wire:
    """Times of the session's websocket messages that matter: each rerun request the browser sends (BackMsg
    rerun_script) and each end of a script run the server sends (ForwardMsg script_finished), as Playwright
    reports them. The server-side time of an action = its request -> the next script_finished."""

    def __init__(self, page, watch: Watch):
        self.sent: list[float] = []
        self.done: list[float] = []
        self.watch = watch
        watch.wires.append(self)
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        if "_stcore/stream" in ws.url:
            ws.on("framesent", self._sent)
            ws.on("framereceived", self._received)

    def _sent(self, payload) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        if isinstance(payload, bytes) and BackMsg.FromString(payload).WhichOneof("type") == "rerun_script":
            self.sent.append(time.monotonic())

    def _received(self, payload) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        # script_finished is a few dozen bytes; skip parsing the large deltas (charts) to spare the shared CPU
        if isinstance(payload, bytes) and len(payload) < 512 and \
                ForwardMsg.FromString(payload).WhichOneof("type") == "script_finished":
            self.done.append(time.monotonic())
            self.watch.progress()

    def pending(self) -> bool:
        """A rerun request was sent after the last script_finished this session received."""
        return bool(self.sent) and (not self.done or self.sent[-1] > self.done[-1])

    def since(self, t: float) -> float | None:
        """Seconds from the first rerun request after t to the first script_finished after that request."""
        sent = next((x for x in self.sent if x >= t), None)
        done = next((x for x in self.done if sent is not None and x >= sent), None)
        return None if done is None else done - sent


async def _redo_if_lost(page, do, ok, wire: Wire, sent: int, watch: Watch, what: str, tries: int = 3) -> None:
    """A click or an Enter that lands during a redraw can be lost: no rerun request leaves the browser, the page
    never changes, and nothing would ever end the wait (no request is pending, so Watch sees no hung server).
    When nothing was sent for LOST_S and the page does not already show the expected state, do it again: each
    action here is idempotent (typing the same value again, clicking Run again)."""
    for _ in range(tries):
        t = time.monotonic()
        while time.monotonic() - t < LOST_S:
            if len(wire.sent) > sent:
                return
            await asyncio.sleep(POLL_S)
        snap = await watch.guard(page.evaluate(SNAPSHOT_JS), what)
        if not ok(snap):                                        # already showing it: nothing was lost
            return
        await watch.guard(do(), f"{what} (again: the first was lost)")
