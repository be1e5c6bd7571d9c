"""Load test: one `streamlit run app.py` on loopback, 20 concurrent browser sessions on the stepper.

    python -m tests.loadtest [--sessions 20] [--budget 240] [--json report.json]

Client: ONE headless Debian chromium driven by async Playwright, one browser context (own cookies, own
websocket, own Streamlit session) per simulated student. That is the real client: Streamlit's React app with
its websocket protocol, fragment reruns for the step buttons, number inputs committed by Enter, Plotly
drawing every chart. It costs more CPU than a hand-written websocket client (the browser and the server
share this machine's cores, so the figures are pessimistic), but nothing of the protocol is guessed.

Each session i (N = 16, d = 4, Br = 4, query row 15, fp32):
  load /?lang=en -> type seed 1000 + i -> type tile Bc in (2, 3, 5, 1)[i % 4] -> Next x3 -> Previous -> Next
  -> "Run the kernel" (the Triton teaching kernel in Triton's interpreter; launches are serialised by
  flashviz_kernels.LAUNCH_LOCK; every session's seed differs, so every run misses the cache and really runs).
After every action it waits until the page shows the expected state and checks it against this process's own
numpy engine (flashviz.online_softmax) for the session's configuration: the step label, the recurrence table
(tile, keys, tile max, m, alpha, l, rescale: the same strings the page formats), the counters; after the
kernel run, its table's simulator columns, the kernel's columns within 1e-5 and the max difference < 1e-5.
Another session's seed or tile would show different numbers, so a cross-session mix-up fails.

The sessions start together and act without pauses (no student think time): the worst case, in lockstep.

Timings. "rerun time": client side, from the click (or Enter) until the page shows the new state, complete and
checked. "server time": the same actions seen on the websocket (Playwright's frame events): the browser's
rerun request -> the server's script_finished; it leaves out the browser's drawing but not the wait for the CPU.
The server's CPU seconds during the run (/proc) say how much of the machine the server itself needed: on the
2-core CI machine about 0.2 CPU-s per request, some 13 % of the cores over the run; the 20 chromium renderers
take the rest, so the times measure this shared machine, not a classroom where every browser has its own.
(Running the browsers at a lower priority, `nice 10`, changed neither figure.) A request waits mostly for the
others of its burst: the 20 sessions' scripts share one Python interpreter (GIL).
After the load: GET /_stcore/health, and one fresh session runs the same script alone.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))          # browser_util, also under `python -m tests.…`

import browser_util as bu  # noqa: E402

N, D, BR, ROW = 16, 4, 4, 15
TILES = (2, 3, 5, 1)            # Tc = 8, 6, 4, 16 (ragged last tiles for 3 and 5)
KERNEL_TOL = 1e-5
KERNEL_ROWS_IN_VIEW = 10       # rows of the kernel table glide draws without scrolling (of 16 at tile 1)
WAIT_S = 180.0                  # one action may take this long (and never past the run's budget)
POLL_S = 0.15                   # the client polls 20 pages: faster polling costs the shared CPU more

# What the page shows, read in one evaluate: the step label, the two tables (glide's accessible <table>), the
# metrics, captions, and whether a script run is still going (status widget, stale elements).
SNAPSHOT_JS = """() => {
  const txt = e => (e ? e.textContent : null);
  const texts = sel => [...document.querySelectorAll(sel)].map(e => e.textContent.slice(0, 300));
  const label = [...document.querySelectorAll('[data-testid=stMarkdownContainer] p')]
      .map(p => p.textContent).find(t => /^(Step \\d+ of \\d+|第 \\d+ \\/ \\d+ 步) · /.test(t)) || null;
  const tables = [...document.querySelectorAll('[data-testid=stDataFrame] table')].map(t =>
      [...t.querySelectorAll('tr')].map(r => [...r.children].map(c => c.textContent)));
  const metrics = {};
  for (const m of document.querySelectorAll('[data-testid=stMetric]'))
    metrics[txt(m.querySelector('[data-testid=stMetricLabel]'))] = txt(m.querySelector('[data-testid=stMetricValue]'));
  const captions = [...document.querySelectorAll('[data-testid=stCaptionContainer]')].map(e => e.textContent);
  return {label, tables, metrics, captions,
          running: !!document.querySelector('[data-testid=stStatusWidget]'),
          stale: document.querySelectorAll('[data-stale=true]').length,
          exceptions: texts('[data-testid=stException]'), errors: texts('[data-testid=stAlertContentError]')};
}"""


# ----------------------------------------------------------------------------- what the page must show

@dataclass(frozen=True)
class Plan:
    index: int
    seed: int
    tile: int

    @property
    def steps(self) -> int:
        return math.ceil(N / self.tile)


def plan(i: int) -> Plan:
    return Plan(index=i, seed=1000 + i, tile=TILES[i % len(TILES)])


def engine(seed: int, tile: int):
    """The numpy engine's trace for the page's configuration (the page's defaults, this seed and tile)."""
    from flashviz.online_softmax import online_softmax_trace
    from flashviz.ui.config import Config, row_problem
    cfg = Config(n=N, d=D, block_m=BR, block_n=tile, seed=seed, row=ROW)
    s, v = row_problem(cfg)
    return online_softmax_trace(s, v, cfg.tile, guard=cfg.guard)


def expected_rows(tr, step: int) -> list[list[str]]:
    """The recurrence table's rows for tiles 1..step+1, formatted as the page formats them."""
    from flashviz.charts.common import fmt_num
    return [[str(j + 1), f"{tr.start[j]}–{tr.stop[j] - 1}", fmt_num(float(tr.tile_max[j])), fmt_num(float(tr.m[j])),
             fmt_num(float(tr.alpha[j])), fmt_num(float(tr.l[j])), "yes" if tr.rescaled[j] else ""]
            for j in range(step + 1)]


def _table(snap: dict, ncols: int) -> list[list[str]] | None:
    for t in snap["tables"]:
        if t and len(t[0]) == ncols:
            return t
    return None


def step_problems(snap: dict, tr, step: int, seed: int) -> list[str]:
    """Why the snapshot is not the page of (seed, tile) at `step`; [] when it is."""
    out = []
    lo, hi = int(tr.start[step]), int(tr.stop[step])
    want = f"Step {step + 1} of {tr.steps} · keys {lo}–{hi - 1} are in SRAM"
    if snap["label"] != want:
        out.append(f"label {snap['label']!r} != {want!r}")
    if not any(f"from seed {seed}," in c and f"Bc = {tr.tile_size} →" in c for c in snap["captions"]):
        out.append(f"no caption with seed {seed} and Bc = {tr.tile_size}")
    table = _table(snap, 7)
    rows = expected_rows(tr, step)
    if table is None:
        out.append("no recurrence table")
    elif table[1:] != rows:
        out.append(f"recurrence table {table[1:]} != engine {rows}")
    m = snap["metrics"]
    if m.get("Scores in SRAM now (of N)") != f"{hi - lo} / {N}":
        out.append(f"resident {m.get('Scores in SRAM now (of N)')!r}")
    if m.get("Rescales so far") != str(int(tr.rescaled[:step + 1].sum())):
        out.append(f"rescales {m.get('Rescales so far')!r} != {int(tr.rescaled[:step + 1].sum())}")
    if step == tr.steps - 1 and m.get("Max error vs exact") != f"{tr.error(step):.2e}":
        out.append(f"error {m.get('Max error vs exact')!r} != {tr.error(step):.2e}")
    return out


def kernel_problems(snap: dict, tr) -> tuple[list[str], float | None]:
    """Why the kernel panel does not show this trace's numbers within 1e-5; and the max difference shown."""
    from flashviz.charts.common import fmt_num
    out, shown = [], snap["metrics"].get("Max difference")
    try:
        max_diff = float(shown)
    except (TypeError, ValueError):
        return [f"max difference {shown!r}"], None
    if not max_diff < KERNEL_TOL:
        out.append(f"max difference {max_diff} >= {KERNEL_TOL}")
    if snap["metrics"].get("Tiles compared") != f"{tr.steps} / {tr.steps}":
        out.append(f"tiles compared {snap['metrics'].get('Tiles compared')!r}")
    table = _table(snap, 9)
    want = min(tr.steps, KERNEL_ROWS_IN_VIEW)        # glide renders only the rows in view (the table is 400 px)
    if table is None or not want <= len(table) - 1 <= tr.steps:
        return out + [f"kernel table shows {None if table is None else len(table) - 1} rows, want {want}"], max_diff
    for j, row in enumerate(table[1:]):
        for col, arr in ((2, tr.m), (4, tr.l), (6, tr.alpha)):
            eng = float(arr[j])
            if row[col] != fmt_num(eng, 7):
                out.append(f"tile {j + 1}: simulator column {row[col]!r} != engine {fmt_num(eng, 7)!r}")
            got = float(row[col + 1])
            if abs(got - eng) > KERNEL_TOL * max(1.0, abs(eng)):
                out.append(f"tile {j + 1}: kernel {got} vs engine {eng}")
    return out, max_diff


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
    kernel_s: float | None = None
    max_diff: float | None = None
    checks: int = 0                                 # snapshots compared with the engine and found equal
    ws_reruns: int = 0                              # rerun requests the browser sent on the websocket
    ws_finished: int = 0                            # script runs the server reported finished


async def _until(page, ok, deadline: float, what: str):
    """Poll the page until ok(snapshot) returns [] on a settled page; raise with the last problems otherwise."""
    problems, t_end = ["nothing read"], min(deadline, time.monotonic() + WAIT_S)
    while time.monotonic() < t_end:
        snap = await page.evaluate(SNAPSHOT_JS)
        if snap["exceptions"] or snap["errors"]:
            raise AssertionError(f"{what}: the page shows an error: {snap['exceptions'] + snap['errors']}")
        problems = ok(snap)
        if not problems and not snap["running"] and not snap["stale"]:
            return snap
        await asyncio.sleep(POLL_S)
    raise AssertionError(f"{what}: not shown within the time allowed: {problems[:3]}")


class Wire:
    """Times of the session's websocket messages that matter: each rerun request the browser sends (BackMsg
    rerun_script) and each end of a script run the server sends (ForwardMsg script_finished), as Playwright
    reports them. The server-side time of an action = its request -> the next script_finished."""

    def __init__(self, page):
        self.sent: list[float] = []
        self.done: list[float] = []
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

    def since(self, t: float) -> float | None:
        """Seconds from the first rerun request after t to the first script_finished after that request."""
        sent = next((x for x in self.sent if x >= t), None)
        done = next((x for x in self.done if sent is not None and x >= sent), None)
        return None if done is None else done - sent


async def run_session(browser, url: str, p: Plan, deadline: float) -> Session:
    """One student on the stepper; never raises (the result says what failed)."""
    res = Session(p.index, p.seed, p.tile)
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = await ctx.new_page()
    wire = Wire(page)
    try:
        first = engine(12, 4)                                   # the page's defaults before the session types
        mine = engine(p.seed, p.tile)

        t0 = time.monotonic()
        await page.goto(f"{url}/?lang=en", timeout=WAIT_S * 1000)
        await _until(page, lambda s: step_problems(s, first, 0, 12), deadline, "first load")
        res.load_s = time.monotonic() - t0
        res.checks += 1

        async def rerun(action: str, do, ok) -> None:
            t = time.monotonic()
            await do()
            await _until(page, ok, deadline, action)
            res.reruns.append((action, time.monotonic() - t))
            res.wire.append((action, wire.since(t)))
            res.checks += 1

        async def typed(key: str, value: int) -> None:
            box = page.locator(f".st-key-_w-cfg-{key} input")
            await box.fill(str(value))
            await box.press("Enter")

        seeded = engine(p.seed, 4)
        await rerun("seed", lambda: typed("seed", p.seed), lambda s: step_problems(s, seeded, 0, p.seed))
        await rerun("tile", lambda: typed("block_n", p.tile), lambda s: step_problems(s, mine, 0, p.seed))
        step = 0
        for name, delta in (("next", 1), ("next", 1), ("next", 1), ("prev", -1), ("next", 1)):
            step += delta
            await rerun(name, lambda n=name: page.locator(f".st-key-stepper-{n} button").click(),
                        lambda s, k=step: step_problems(s, mine, k, p.seed))

        t = time.monotonic()
        await page.locator(".st-key-kernel-run button").click()
        snap = await _until(page, lambda s: kernel_problems(s, mine)[0] + step_problems(s, mine, step, p.seed),
                            deadline, "kernel run")
        res.kernel_s = time.monotonic() - t
        res.wire.append(("kernel", wire.since(t)))
        res.max_diff = kernel_problems(snap, mine)[1]
        res.checks += 1
        res.ok = True
    except Exception as e:                                      # a failed session is a result, not a crash
        res.error = f"{type(e).__name__}: {str(e)[:500]}"
    finally:
        res.ws_reruns, res.ws_finished = len(wire.sent), len(wire.done)
        await ctx.close()
    return res


# ----------------------------------------------------------------------------- the run and its report

def _pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]      # nearest-rank percentile


@dataclass
class Report:
    sessions: int
    succeeded: int
    failures: list
    requests: int                   # page loads + reruns + kernel runs issued by the concurrent sessions
    reruns: int
    ws_reruns: int                  # rerun requests on the websocket (each config change, click, the first load)
    ws_finished: int                # script runs the server finished (full runs and fragment runs)
    rerun_p50_ms: float | None
    rerun_p95_ms: float | None
    rerun_max_ms: float | None
    server_p50_ms: float | None     # the same reruns on the wire: request sent -> script_finished received
    server_p95_ms: float | None
    server_kernel_p50_s: float | None
    load_p50_s: float | None
    load_max_s: float | None
    kernel_runs: int
    kernel_p50_s: float | None
    kernel_max_s: float | None
    max_diff_max: float | None
    wall_s: float
    server_cpu_s: float | None      # CPU seconds the streamlit process used during the concurrent phase
    fresh_rerun_p50_ms: float | None    # the fresh session alone after the load: its UI rerun time
    health_after: bool
    fresh_session_ok: bool
    fresh_session: dict
    server_rss_mb: float | None
    cpus: int
    per_session: list

    def _per_request_ms(self) -> float | None:
        return None if self.server_cpu_s is None or not self.requests else 1e3 * self.server_cpu_s / self.requests

    def text(self) -> str:
        f = lambda x, spec: "-" if x is None else format(x, spec)      # noqa: E731
        lines = [
            f"load test: {self.sessions} concurrent sessions against one `streamlit run app.py` "
            f"({self.cpus} CPU cores; one headless chromium, a browser context per session)",
            f"  sessions ok        {self.succeeded} / {self.sessions}",
            f"  requests           {self.requests} (page loads {self.sessions}, reruns {self.reruns}, "
            f"kernel runs {self.kernel_runs}); on the websocket {self.ws_reruns} rerun requests, "
            f"{self.ws_finished} script runs finished",
            f"  failures           {len(self.failures)}",
            f"  rerun time         p50 {f(self.rerun_p50_ms, '.0f')} ms, p95 {f(self.rerun_p95_ms, '.0f')} ms, "
            f"max {f(self.rerun_max_ms, '.0f')} ms (client side: click or Enter -> the page shows the new state)",
            f"  server time        p50 {f(self.server_p50_ms, '.0f')} ms, p95 {f(self.server_p95_ms, '.0f')} ms "
            f"(the same reruns on the websocket: rerun request sent -> script_finished received)",
            f"  first page load    p50 {f(self.load_p50_s, '.1f')} s, max {f(self.load_max_s, '.1f')} s",
            f"  kernel-trace run   p50 {f(self.kernel_p50_s, '.2f')} s, max {f(self.kernel_max_s, '.2f')} s "
            f"(click -> results; includes waiting for the launch lock), "
            f"on the wire p50 {f(self.server_kernel_p50_s, '.2f')} s, max difference {f(self.max_diff_max, '.1e')}",
            f"  wall time          {self.wall_s:.1f} s for the concurrent phase; the server process used "
            f"{f(self.server_cpu_s, '.0f')} CPU-s of it ({f(self._per_request_ms(), '.0f')} ms per request), "
            f"chromium and this client the rest of the {self.cpus} cores",
            f"  after the load     health {'ok' if self.health_after else 'FAILED'}, fresh session "
            f"{'ok' if self.fresh_session_ok else 'FAILED'} (alone: rerun p50 {f(self.fresh_rerun_p50_ms, '.0f')} ms), "
            f"server RSS {f(self.server_rss_mb, '.0f')} MB",
        ]
        lines += [f"  FAILED session {x['index']} (seed {x['seed']}, tile {x['tile']}): {x['error']}"
                  for x in self.failures]
        return "\n".join(lines)


async def _run(server: bu.Server, sessions: int, budget_s: float) -> tuple[list[Session], float, float | None, Session]:
    from playwright.async_api import async_playwright
    async with async_playwright() as pw:
        browser = await bu.launch_chromium(pw)
        try:
            t0, cpu0 = time.monotonic(), server.cpu_s()
            deadline = t0 + budget_s
            tasks = [run_session(browser, server.url, plan(i), deadline) for i in range(sessions)]
            results = await asyncio.wait_for(asyncio.gather(*tasks), timeout=budget_s + 60)
            wall, cpu1 = time.monotonic() - t0, server.cpu_s()
            fresh = None
            if bu.healthy(server.url, timeout=10):
                fresh = await run_session(browser, server.url, plan(sessions), time.monotonic() + 120)
            return results, wall, None if None in (cpu0, cpu1) else cpu1 - cpu0, fresh
        finally:
            await browser.close()


def run(server: bu.Server, sessions: int = 20, budget_s: float = 240.0) -> Report:
    """The concurrent phase against a running server, then health and one fresh session."""
    import os
    results, wall, server_cpu, fresh = asyncio.run(_run(server, sessions, budget_s))
    health = bu.healthy(server.url, timeout=10)
    reruns = [s for r in results for _, s in r.reruns]
    wire = [s for r in results for a, s in r.wire if a != "kernel" and s is not None]
    wire_kernel = [s for r in results for a, s in r.wire if a == "kernel" and s is not None]
    loads = [r.load_s for r in results if r.load_s is not None]
    kernels = [r.kernel_s for r in results if r.kernel_s is not None]
    diffs = [r.max_diff for r in results if r.max_diff is not None]
    ms = lambda x: None if x is None else 1e3 * x                      # noqa: E731
    return Report(
        sessions=sessions, succeeded=sum(r.ok for r in results),
        failures=[asdict(r) for r in results if not r.ok],
        requests=len(loads) + len(reruns) + len(kernels), reruns=len(reruns),
        ws_reruns=sum(r.ws_reruns for r in results), ws_finished=sum(r.ws_finished for r in results),
        rerun_p50_ms=ms(_pct(reruns, 0.5)), rerun_p95_ms=ms(_pct(reruns, 0.95)),
        rerun_max_ms=ms(max(reruns, default=None)),
        server_p50_ms=ms(_pct(wire, 0.5)), server_p95_ms=ms(_pct(wire, 0.95)),
        server_kernel_p50_s=statistics.median(wire_kernel) if wire_kernel else None,
        load_p50_s=statistics.median(loads) if loads else None, load_max_s=max(loads, default=None),
        kernel_runs=len(kernels), kernel_p50_s=statistics.median(kernels) if kernels else None,
        kernel_max_s=max(kernels, default=None), max_diff_max=max(diffs, default=None), wall_s=wall,
        server_cpu_s=server_cpu,
        fresh_rerun_p50_ms=ms(_pct([s for _, s in fresh.reruns], 0.5)) if fresh and fresh.reruns else None,
        health_after=health, fresh_session_ok=bool(fresh and fresh.ok), fresh_session=asdict(fresh) if fresh else {},
        server_rss_mb=server.rss_mb(), cpus=os.cpu_count() or 0, per_session=[asdict(r) for r in results])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--budget", type=float, default=240.0, help="seconds for the concurrent phase (hard cap)")
    ap.add_argument("--json", type=Path, help="also write the full report (with per-session results) here")
    ap.add_argument("--server-log", type=Path, help="streamlit's output (default: discarded)")
    args = ap.parse_args(argv)
    if not bu.chromium_path():
        print("no chromium found (apt-get install chromium)", file=sys.stderr)
        return 2
    with bu.streamlit_server(log=args.server_log) as server:
        report = run(server, args.sessions, args.budget)
    print(report.text())
    if args.json:
        args.json.write_text(json.dumps(asdict(report), indent=1))
    return 0 if report.succeeded == report.sessions and report.health_after and report.fresh_session_ok else 1


if __name__ == "__main__":
    sys.exit(main())
