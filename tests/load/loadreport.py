"""The load test's report (tests/load/loadtest.py): the kinds of action it times (page load, seed or tile change, step,
kernel trace), the capacity rule (one such action per student every CLICK_EVERY_S seconds with the server's core
at most BUSY busy), nearest-rank percentiles, and Report, the dataclass loadtest.run fills with the concurrent
phase's times, the solo sessions' server CPU per action and the health after the load, and whose text() is the
summary printed by `python -m tests.load.loadtest`. tests/load/loadtest.py re-exports these names.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

STEP_ACTIONS = ("next", "prev")
CONFIG_ACTIONS = ("seed", "tile")
KINDS = {"load": ("load",), "config change": CONFIG_ACTIONS, "step": STEP_ACTIONS, "kernel trace": ("kernel",)}
CLICK_EVERY_S = 10.0            # capacity is stated for one such action per student every 10 s ...
BUSY = 0.5                      # ... with the server's core at most half busy (so that requests seldom queue)


def _pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]      # nearest-rank percentile


def _of(rows: list, kinds: tuple) -> list[float]:
    return [s for a, s in rows if a in kinds and s is not None]


@dataclass
class Report:
    sessions: int
    succeeded: int
    failures: list
    think_s: float
    ramp_s: float
    requests: int                   # page loads + reruns + kernel runs issued by the concurrent sessions
    reruns: int
    ws_reruns: int
    ws_finished: int
    rerun_p50_ms: float | None      # client side: click or Enter -> the page shows the new, checked state
    rerun_p95_ms: float | None
    server_ms: dict                 # kind -> {"p50", "p95", "max"}: on the wire, rerun request -> script_finished
    load_p50_s: float | None        # client side, first page load
    load_max_s: float | None
    cold_start_s: float | None      # the warm-up load before the sessions: the server's one-off imports
    kernel_runs: int
    kernel_p50_s: float | None
    kernel_max_s: float | None
    queue_max: int | None           # the largest place in the kernel line any session was shown
    queue_seen: int                 # sessions that were shown a place in the line
    max_diff_max: float | None
    wall_s: float
    server_cpu_s: float | None      # CPU seconds the streamlit process used during the concurrent phase
    solo_cpu_ms: dict               # kind -> median server CPU ms of one action, sessions alone
    solo_server_ms: dict            # kind -> median wire ms, sessions alone
    students_per_core: dict         # kind -> students one core serves at one such action every 10 s, half busy
    health_after: bool
    solo_ok: bool
    solo_sessions: list
    server_rss_mb: float | None
    cpus: int
    loadavg: tuple
    per_session: list
    procs: int = 1                  # server processes (more than one: flashviz.infra.serve behind HAProxy)
    rss_each_mb: list | None = None # RSS of each server process after the load
    run_ms: dict | None = None      # kind -> {"n", "p50", "p95", "max"}: wall ms of its script runs, from the server
    run_cpu_ms: dict | None = None  # kind -> median CPU ms of its script runs' thread, from the server
    client_ms: dict | None = None   # kind -> {"p50", "p95"}: click -> the page shows the new, checked state
    step_requests: int = 0          # rerun requests the steps sent (they run in the browser: 0)

    def text(self) -> str:
        f = lambda x, spec: "-" if x is None else format(x, spec)      # noqa: E731
        pace = "lockstep, no pauses" if not self.think_s else f"a pause of ~{self.think_s:g} s between actions"
        where = ("one `streamlit run app.py`" if self.procs <= 1 else
                 f"{self.procs} server processes behind HAProxy (flashviz.infra.serve)")
        lines = [
            f"load test: {self.sessions} concurrent sessions against {where} ({self.cpus} CPU "
            f"cores, load average {self.loadavg[0]:.1f} at the start; one headless chromium at nice 19, a context per "
            f"session; {pace}, arrivals over {self.ramp_s:g} s)",
            f"  sessions ok        {self.succeeded} / {self.sessions}, failures {len(self.failures)}",
            f"  requests           {self.requests} (page loads {self.sessions}, reruns {self.reruns}, kernel runs "
            f"{self.kernel_runs}); on the websocket {self.ws_reruns} rerun requests, {self.ws_finished} runs finished",
            f"  client time        rerun p50 {f(self.rerun_p50_ms, '.0f')} ms, p95 {f(self.rerun_p95_ms, '.0f')} ms; "
            f"first page load p50 {f(self.load_p50_s, '.1f')} s, max {f(self.load_max_s, '.1f')} s "
            f"(click -> the page shows the new state, browsers' drawing included)",
        ]
        for kind, x in (self.run_ms or {}).items():
            if not x["n"] and kind == "step":
                lines.append(f"  server run   {kind:<14} none: {self.step_requests} requests sent (the browser steps)")
                continue
            lines.append(f"  server run   {kind:<14} p50 {f(x['p50'], '.0f')} ms, p95 {f(x['p95'], '.0f')} ms, "
                         f"max {f(x['max'], '.0f')} ms, CPU p50 {f((self.run_cpu_ms or {}).get(kind), '.0f')} ms "
                         f"({x['n']} script runs, timed by the server: flashviz.infra.runlog)")
        for kind, x in self.server_ms.items():
            if kind == "step":
                continue
            lines.append(f"  on the wire  {kind:<14} p50 {f(x['p50'], '.0f')} ms, p95 {f(x['p95'], '.0f')} ms, "
                         f"max {f(x['max'], '.0f')} ms (rerun request -> script_finished, seen by the browser)")
        for kind, x in (self.client_ms or {}).items():
            lines.append(f"  client       {kind:<14} p50 {f(x['p50'], '.0f')} ms, p95 {f(x['p95'], '.0f')} ms "
                         f"(click -> the page shows the new, checked numbers)")
        lines += [
            f"  cold start         {f(self.cold_start_s, '.1f')} s (the first page load of a fresh server: imports)",
            f"  kernel-trace run   p50 {f(self.kernel_p50_s, '.2f')} s, max {f(self.kernel_max_s, '.2f')} s (click -> "
            f"results, waiting in the server-wide line included); {self.queue_seen} sessions were shown their place, "
            f"up to {f(self.queue_max, 'd')} runs ahead; max difference {f(self.max_diff_max, '.1e')}",
            f"  wall time          {self.wall_s:.1f} s; the server process used {f(self.server_cpu_s, '.1f')} CPU-s "
            f"of it, chromium and this client the rest of the {self.cpus} cores",
            "  alone (server CPU per action, median of the solo sessions; students one core serves at one such "
            f"action every {CLICK_EVERY_S:g} s, core {BUSY:.0%} busy):",
        ]
        for kind in KINDS:
            lines.append(f"    {kind:<14} {f(self.solo_cpu_ms.get(kind), '.0f'):>6} ms CPU, "
                         f"{f(self.solo_server_ms.get(kind), '.0f'):>6} ms on the wire -> "
                         f"{f(self.students_per_core.get(kind), '.0f')} students per core")
        each = ", ".join(f(x, ".0f") for x in (self.rss_each_mb or [self.server_rss_mb]))
        lines.append(f"  after the load     health {'ok' if self.health_after else 'FAILED'}, "
                     f"{len(self.solo_sessions)} fresh sessions {'ok' if self.solo_ok else 'FAILED'}, "
                     f"server RSS {each} MB (per process)")
        lines += [f"  FAILED session {x['index']} (seed {x['seed']}, tile {x['tile']}): {x['error']}"
                  for x in self.failures + [s for s in self.solo_sessions if not s["ok"]]]
        return "\n".join(lines)
