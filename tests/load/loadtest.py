"""Load test: `streamlit run app.py` on loopback (or several behind HAProxy: --procs), many concurrent browser
sessions on the stepper.

    python -m tests.load.loadtest [--sessions N] [--think S] [--ramp S] [--procs P] [--solo K] [--json report.json]

    python -m tests.load.loadtest --sessions 50 --think 10 --ramp 60            # a class, one server process
    python -m tests.load.loadtest --sessions 50 --think 10 --ramp 60 --procs 2  # the same behind flashviz.infra.serve

Client: ONE headless Debian chromium driven by async Playwright, one browser context (own cookies, own websocket,
own Streamlit session) per simulated student: Streamlit's real React app and websocket protocol, fragment reruns for
the step buttons, number inputs committed by Enter, Plotly drawing every chart. Nothing of the protocol is guessed.

Each session i (N = 16, d = 4, Br = 4, query row 15, fp32):
  load /?lang=en -> type seed 1000 + i -> type tile Bc in (2, 3, 5, 1)[i % 4] -> Next x3 -> Previous -> Next
  -> "Run the kernel" (the Triton teaching kernel in Triton's interpreter; every session's seed differs, so every run
  really runs, one at a time, through the server-wide line of flashviz.infra.runqueue; a waiting session is shown its place).
The steps run in the browser (flashviz/client): a step must send the server nothing, and the test counts what it sent.
After every action it waits until the page shows the expected state and checks it against this process's own numpy
engine (flashviz.engine.online_softmax) for the session's configuration: the step label, the recurrence table, the counters;
after the kernel run, its table's simulator columns, the kernel's columns within 1e-5, the max difference < 1e-5.
Another session's seed or tile would show different numbers, so a cross-session mix-up fails.

A slow or busy machine must not fail the test; wrong numbers, an exception on a page or a dead server must. So no
action has a fixed time limit. A session fails when its page shows an error, when the server process dies or stops
answering /_stcore/health, or when the server finishes no script run for any session for STALL_S seconds while work
is outstanding (a hung server; tests/load/loadwatch.py's Watch); the whole phase has a generous hard cap (--budget)
only so that a run always ends.
By default the number of sessions follows the machine (4 per CPU core, 4 to 20) and they act in lockstep, without
pauses (the worst case); --think and --ramp model students who read between clicks and arrive over a while.

Server-side time is measured by the server itself: every script run writes its wall and CPU time (flashviz.infra.runlog,
FLASHVIZ_RUN_LOG), tagged with the session (?lt=), and each run is assigned to the action whose window it started in.
The browsers run at the lowest CPU priority (nice 19, through a wrapper around chromium) so that on a busy machine
the server is not starved by its own load test; the client (this process) stays at normal priority.

What the server costs, apart from the test's own browsers (which share the cores): before the sessions start, one
warm-up load pays the server's one-off imports (reported as the cold start). After the concurrent phase, --solo K
fresh sessions run the same script one after another, alone: the server's CPU seconds (from /proc) per action kind
(page load, seed or tile change, step, kernel trace) are measured there, and from them how many students one core
serves at a given click rate. "server time" is what the browser's websocket saw: rerun request sent -> the server's
script_finished, which leaves out the browsers' drawing but not the wait for the CPU or the GIL.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]   # helpers; loadreport

from helpers import browser as bu  # noqa: E402
from helpers.record import provenance  # noqa: E402
from flashviz.i18n import t as i18n  # noqa: E402
from helpers.stepper_snapshot import (KERNEL_TOL, Plan, engine, kernel_problems, plan,  # noqa: E402,F401
                                      step_problems)
from loadreport import (BUSY, CLICK_EVERY_S, CONFIG_ACTIONS, KINDS, STEP_ACTIONS, Report, _of,  # noqa: E402,F401
                        _pct)
from loadwatch import Session, Watch, Wire, _redo_if_lost, _until, default_sessions  # noqa: E402,F401

REDO_ACTIONS = ("seed", "tile", "kernel")   # server actions that are safe to repeat
BUDGET_S = 1800.0               # hard cap of the concurrent phase, only so that a run always ends
NICE = 19                       # the browsers' priority: the lowest


def niced_chromium(folder: Path) -> str:
    """A wrapper that runs Debian's chromium at nice NICE (Playwright launches it; `exec` keeps its pid). Run as
    root, Chromium raises its browser and GPU processes back to nice -8 by itself: setpriv takes away the
    capability to do so (CAP_SYS_NICE), so every Chromium process stays at NICE."""
    import shutil
    path = folder / "chromium-nice"
    drop = "setpriv --bounding-set -sys_nice --inh-caps -sys_nice " if shutil.which("setpriv") else ""
    path.write_text(f'#!/bin/sh\nexec {drop}nice -n {NICE} {bu.chromium_path()} "$@"\n')
    path.chmod(0o755)
    return str(path)


async def _open_kernel_panel(page, tries: int = 6) -> None:
    """Open the expander of the kernel panel until its Run button shows (a click during a redraw can be lost, or
    open and close it again); then the panel is there to click."""
    summary = page.locator("[data-testid=stExpander] summary", has_text=i18n("stepper.exp_kernel", "en"))
    button = page.locator(".st-key-kernel-run button")
    for _ in range(tries):
        if await button.is_visible():
            return
        await summary.click(timeout=60000)
        try:
            await button.wait_for(state="visible", timeout=20000)
            return
        except Exception:                                       # not open yet: look again, click again
            continue
    raise AssertionError("the kernel panel's expander did not open")


async def run_session(browser, url: str, p: Plan, watch: Watch, *, think_s: float = 0.0) -> Session:
    """One student on the stepper; never raises (the result says what failed). think_s: mean pause between
    actions (uniform in 0.5..1.5 of it, seeded by the session's index)."""
    res = Session(p.index, p.seed, p.tile, tag=f"s{p.index}")
    rng = random.Random(p.index)
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ctx.set_default_timeout(0)                      # no per-action limit: Watch decides when to give up
    page = await ctx.new_page()
    wire = Wire(page, watch)
    try:
        first = engine(12, 4)                                   # the page's defaults before the session types
        mine = engine(p.seed, p.tile)

        async def act(action: str, do, ok) -> dict:
            if think_s and action != "load":
                await asyncio.sleep(rng.uniform(0.5, 1.5) * think_s)
            t, cpu0, t_wall, sent = time.monotonic(), watch.server.cpu_s(), time.time(), len(wire.sent)
            await watch.guard(do(), action)
            client = action in STEP_ACTIONS                         # stepped in the browser: no run to wait for
            if action in REDO_ACTIONS:
                await _redo_if_lost(page, do, ok, wire, sent, watch, action)
            snap = await _until(page, ok, watch, action, res,
                                finished=lambda: client or wire.since(t) is not None, kernel=action == "kernel")
            cpu1 = watch.server.cpu_s()
            res.windows.append((action, t_wall - 0.05, time.time()))
            if client:
                res.step_requests += len(wire.sent) - sent
            res.wire.append((action, None if client else wire.since(t)))
            res.cpu.append((action, None if None in (cpu0, cpu1) else cpu1 - cpu0))
            res.checks += 1
            watch.progress()
            if action == "kernel":
                res.kernel_s = time.monotonic() - t                 # the click to the checked results (no pause)
            elif action != "load":
                res.reruns.append((action, time.monotonic() - t))
            return snap

        async def typed(key: str, value: int) -> None:
            box = page.locator(f".st-key-_w-cfg-{key} input")
            await box.fill(str(value))
            await box.press("Enter")

        t0 = time.monotonic()
        await act("load", lambda: page.goto(f"{url}/?lang=en&lt={res.tag}"), lambda s: step_problems(s, first, 0, 12))
        res.load_s = time.monotonic() - t0
        seeded = engine(p.seed, 4)
        await act("seed", lambda: typed("seed", p.seed), lambda s: step_problems(s, seeded, 0, p.seed))
        await act("tile", lambda: typed("block_n", p.tile), lambda s: step_problems(s, mine, 0, p.seed))
        step = 0
        for name, delta in (("next", 1), ("next", 1), ("next", 1), ("prev", -1), ("next", 1)):
            step += delta
            await act(name, lambda n=name: page.locator(f"[data-fv-act={n}]").click(),
                      lambda s, k=step: step_problems(s, mine, k, p.seed))
        await watch.guard(_open_kernel_panel(page), "open the kernel panel")   # depth behind an expander
        snap = await act("kernel", lambda: page.locator(".st-key-kernel-run button").click(),
                         lambda s: kernel_problems(s, mine)[0] + step_problems(s, mine, step, p.seed))
        res.max_diff = kernel_problems(snap, mine)[1]
        res.ok = True
    except Exception as e:                                      # a failed session is a result, not a crash
        res.error = f"{type(e).__name__}: {str(e)[:500]}"
    finally:
        res.ws_reruns, res.ws_finished = len(wire.sent), len(wire.done)
        await ctx.close()
    return res


# ----------------------------------------------------------------------------- the run (its report: loadreport.py)

async def _warm_up(browser, url: str, watch: Watch) -> float:
    """One page load before the sessions start (a teacher opens the app before class): the server's one-off
    imports are paid here, and timed."""
    res = Session(-1, 12, 4)
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ctx.set_default_timeout(0)
    page = await ctx.new_page()
    Wire(page, watch)
    try:
        t = time.monotonic()
        await watch.guard(page.goto(f"{url}/?lang=en&lt=warm"), "warm-up")
        first = engine(12, 4)
        await _until(page, lambda s: step_problems(s, first, 0, 12), watch, "warm-up", res)
        return time.monotonic() - t
    finally:
        await ctx.close()


async def _run(server: bu.Server, sessions: int, budget_s: float, think_s: float, ramp_s: float, solo: int):
    from playwright.async_api import async_playwright
    async with async_playwright() as pw:
        wrap = Path(tempfile.mkdtemp(prefix="flashviz-load-"))
        browser = await pw.chromium.launch(executable_path=niced_chromium(wrap), args=bu.CHROMIUM_ARGS)
        watch = Watch(server, budget_s)
        monitor = asyncio.create_task(watch.monitor())
        try:
            cold = await _warm_up(browser, server.url, watch)

            async def student(i: int) -> Session:
                await asyncio.sleep(ramp_s * i / sessions)
                return await run_session(browser, server.url, plan(i), watch, think_s=think_s)

            t0, cpu0 = time.monotonic(), server.cpu_s()
            results = await asyncio.gather(*(student(i) for i in range(sessions)))
            wall, cpu1 = time.monotonic() - t0, server.cpu_s()
            solos = []
            for j in range(solo):                               # alone, one after another: the server's own cost
                watch.deadline = max(watch.deadline, time.monotonic() + 600)
                solos.append(await run_session(browser, server.url, plan(sessions + j), watch))
            return results, wall, None if None in (cpu0, cpu1) else cpu1 - cpu0, solos, cold
        finally:
            monitor.cancel()
            await browser.close()


def server_runs(sessions: list[Session], run_log: Path | None) -> dict[str, list[tuple[float, float]]]:
    """{action: [(wall ms, CPU ms) of each server script run started in one of that action's windows]} from the run
    log the server wrote (flashviz.infra.runlog), matched by the session's tag."""
    out: dict[str, list] = {}
    if run_log is None or not run_log.exists():
        return out
    runs: dict[str, list] = {}
    for line in run_log.read_text(encoding="utf-8").splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        runs.setdefault(r.get("tag", ""), []).append(r)
    for sess in sessions:
        for r in runs.get(sess.tag, []):
            for action, t0, t1 in sess.windows:
                if t0 <= r["start"] <= t1:
                    out.setdefault(action, []).append((r["wall_ms"], r["cpu_ms"]))
                    break
    return out


def run(server, sessions: int | None = None, budget_s: float = BUDGET_S, *, think_s: float = 0.0,
        ramp_s: float = 0.0, solo: int = 3, run_log: Path | None = None, procs: int = 1) -> Report:
    """Warm-up, the concurrent phase, then health and `solo` fresh sessions alone. `server`: a helpers.browser.Server
    or a flashviz.infra.serve.Cluster (url, alive, cpu_s, rss_mb); `run_log`: the file its processes write their runs to."""
    sessions = sessions or default_sessions()
    loadavg = os.getloadavg()
    results, wall, server_cpu, solos, cold = asyncio.run(_run(server, sessions, budget_s, think_s, ramp_s, solo))
    health = bu.healthy(server.url, timeout=10)
    wire = [x for r in results for x in r.wire]
    reruns = [s for r in results for _, s in r.reruns]
    loads = [r.load_s for r in results if r.load_s is not None]
    kernels = [r.kernel_s for r in results if r.kernel_s is not None]
    diffs = [r.max_diff for r in results if r.max_diff is not None]
    queued = [r.queue_max for r in results if r.queue_max]
    ms = lambda x: None if x is None else 1e3 * x                      # noqa: E731
    server_ms = {k: {"p50": ms(_pct(_of(wire, a), 0.5)), "p95": ms(_pct(_of(wire, a), 0.95)),
                     "max": ms(max(_of(wire, a), default=None))} for k, a in KINDS.items()}
    solo_cpu = {k: ms(statistics.median(v)) for k, a in KINDS.items()
                if (v := _of([x for s in solos if s.ok for x in s.cpu], a))}
    solo_wire = {k: ms(statistics.median(v)) for k, a in KINDS.items()
                 if (v := _of([x for s in solos if s.ok for x in s.wire], a))}
    capacity = {k: BUSY * CLICK_EVERY_S / (c / 1e3) for k, c in solo_cpu.items() if c}
    by_action = server_runs(results, run_log)
    run_ms, run_cpu_ms = {}, {}
    for kind, acts in KINDS.items():
        walls = [w for a in acts for w, _ in by_action.get(a, [])]
        cpus = [c for a in acts for _, c in by_action.get(a, [])]
        run_ms[kind] = {"n": len(walls), "p50": _pct(walls, 0.5), "p95": _pct(walls, 0.95),
                        "max": max(walls, default=None)}
        run_cpu_ms[kind] = _pct(cpus, 0.5)
    client = [x for r in results for x in r.reruns]
    client_ms = {k: {"p50": ms(_pct(_of(client, a), 0.5)), "p95": ms(_pct(_of(client, a), 0.95))}
                 for k, a in KINDS.items() if k != "load"}
    rss_each = server.rss_each() if hasattr(server, "rss_each") else [server.rss_mb()]
    return Report(
        sessions=sessions, succeeded=sum(r.ok for r in results), failures=[asdict(r) for r in results if not r.ok],
        think_s=think_s, ramp_s=ramp_s, requests=len(loads) + len(reruns) + len(kernels), reruns=len(reruns),
        ws_reruns=sum(r.ws_reruns for r in results), ws_finished=sum(r.ws_finished for r in results),
        rerun_p50_ms=ms(_pct(reruns, 0.5)), rerun_p95_ms=ms(_pct(reruns, 0.95)), server_ms=server_ms,
        load_p50_s=statistics.median(loads) if loads else None, load_max_s=max(loads, default=None),
        cold_start_s=cold, kernel_runs=len(kernels), kernel_p50_s=statistics.median(kernels) if kernels else None,
        kernel_max_s=max(kernels, default=None), queue_max=max(queued, default=None), queue_seen=len(queued),
        max_diff_max=max(diffs, default=None), wall_s=wall, server_cpu_s=server_cpu, solo_cpu_ms=solo_cpu,
        solo_server_ms=solo_wire, students_per_core=capacity, health_after=health,
        solo_ok=bool(solos) and all(s.ok for s in solos), solo_sessions=[asdict(s) for s in solos],
        server_rss_mb=server.rss_mb(), cpus=os.cpu_count() or 0, loadavg=loadavg,
        per_session=[asdict(r) for r in results], procs=procs, rss_each_mb=rss_each, run_ms=run_ms,
        run_cpu_ms=run_cpu_ms, client_ms=client_ms, step_requests=sum(r.step_requests for r in results))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=None, help="default: 4 per CPU core, 4 to 20")
    ap.add_argument("--think", type=float, default=0.0, help="mean seconds between a session's actions (0: lockstep)")
    ap.add_argument("--ramp", type=float, default=0.0, help="sessions arrive spread over this many seconds")
    ap.add_argument("--solo", type=int, default=3, help="fresh sessions run alone after the load (server cost)")
    ap.add_argument("--budget", type=float, default=BUDGET_S, help="hard cap of the concurrent phase, seconds")
    ap.add_argument("--json", type=Path, help="also write the full report (with per-session results) here")
    ap.add_argument("--server-log", type=Path, help="streamlit's output (default: discarded; with --procs: a folder)")
    ap.add_argument("--procs", type=int, default=1,
                    help="server processes: 1 = one `streamlit run app.py`; more = flashviz.infra.serve behind HAProxy")
    args = ap.parse_args(argv)
    if not bu.chromium_path():
        print("no chromium found (apt-get install chromium)", file=sys.stderr)
        return 2
    run_log = Path(tempfile.mkdtemp(prefix="flashviz-runs-")) / "runs.jsonl"
    env = {"FLASHVIZ_RUN_LOG": str(run_log)}
    if args.procs > 1:
        from flashviz.infra.serve import Cluster
        ctx = Cluster(args.procs, log_dir=args.server_log, env=env)
    else:
        ctx = bu.streamlit_server(log=args.server_log, env=env)
    with ctx as server:
        report = run(server, args.sessions, args.budget, think_s=args.think, ramp_s=args.ramp, solo=args.solo,
                     run_log=run_log, procs=args.procs)
    print(report.text())
    if args.json:
        out = dict(asdict(report), provenance=provenance("server runlog + /proc"))
        args.json.write_text(json.dumps(out, indent=1))
    ok = report.succeeded == report.sessions and report.health_after and report.solo_ok
    return 0 if ok and report.step_requests == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
