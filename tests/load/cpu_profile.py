"""Server CPU per page and per action, read from /proc of a real `streamlit run app.py` (one real Chromium session).

    python -m tests.load.cpu_profile [--pages stepper blocks ...] [--repeat 3] [--json out.json] [--server URL --pid PID]

What it measures, for every page of flashviz.ui.pages (or --pages), in one fresh server process:
  cold     the very first page load of the process (the app's imports: torch, triton, plotly), on /
  first    the first load of this page in the process, in a fresh browser context (empty cache)
  warm     a reload of the page (median of --repeat)
  config   a change of the shared configuration in the sidebar: a new seed typed into its box (median of --repeat;
           each repetition a seed not seen before, so the engine really computes), or N where a page has no seed
  step     the stepper's Next (and any page's `<ns>.next` button): median of --repeat
For each: the server process's CPU seconds (utime + stime of all its threads, /proc/<pid>/stat) from just before
the action until the server is quiet again after the script run the action caused (its websocket's
script_finished, then no CPU tick for QUIET_S), and the process's RSS at the end. The browser runs at the lowest CPU
priority (nice 19, tests/loadtest.niced_chromium), so on a busy machine the server is not starved by its own
measurement; CPU seconds are the server's own either way (wall time is not reported: it depends on the machine's load).

Against a server already running (e.g. one backend of `python -m flashviz.infra.serve`): --server URL --pid PID.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]  # helpers; loadtest

from helpers import browser as bu  # noqa: E402
from helpers.record import provenance  # noqa: E402

QUIET_S = 0.4                   # no CPU tick for this long after the run finished: the server is done
SETTLE_CAP_S = 30.0
STEP_BUTTONS = (".st-key-stepper-next button",              # a server-side step button (other pages)
                "[data-fv-act=prev]:not([disabled]), [data-fv-act=next]:not([disabled])")   # the browser's stepper


def cpu_s(pid: int) -> float:
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Wire:
    """Counts the script runs the server reports finished to this page (ForwardMsg script_finished)."""

    def __init__(self, page):
        self.finished = 0
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        if "_stcore/stream" in ws.url:
            ws.on("framereceived", self._received)

    def _received(self, payload) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        if isinstance(payload, bytes) and len(payload) < 512 and \
                ForwardMsg.FromString(payload).WhichOneof("type") == "script_finished":
            self.finished += 1


def quiet(pid: int, cap_s: float = SETTLE_CAP_S) -> None:
    """Wait until the server used no CPU for QUIET_S (or cap_s passed)."""
    end, last, since = time.monotonic() + cap_s, cpu_s(pid), time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.1)
        now = cpu_s(pid)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= QUIET_S:
            return


def measure(pid: int, page, wire: Wire, do, runs: int = 1) -> float:
    """Server CPU seconds of `do()` and the `runs` script runs it causes, until the server is quiet again."""
    quiet(pid)
    want, c0 = wire.finished + runs, cpu_s(pid)
    do()
    end = time.monotonic() + 120
    while wire.finished < want and time.monotonic() < end:
        page.wait_for_timeout(50)
    quiet(pid)
    return cpu_s(pid) - c0


def _input(page, *fields):
    for f in fields:
        box = page.locator(f".st-key-_w-cfg-{f} input")
        if box.count():
            return f, box.first
    return None, None


def profile_page(browser, url: str, pid: int, slug: str, repeat: int, seeds) -> dict:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = ctx.new_page()
    wire = Wire(page)
    default = bu.app_pages()[0].slug
    path = f"{url}/{'' if slug == default else slug}?lang=en"        # the first page lives at /
    row = {"page": slug}
    try:
        row["first_ms"] = 1e3 * measure(pid, page, wire, lambda: page.goto(path))
        warm = [measure(pid, page, wire, lambda: page.reload()) for _ in range(repeat)]
        row["warm_ms"] = 1e3 * statistics.median(warm)
        try:
            page.wait_for_selector(".st-key-_w-cfg-seed input, .st-key-_w-cfg-n input", timeout=20000)
        except Exception:                                          # a page without the shared sidebar
            pass
        field, box = _input(page, "seed", "n")
        if box is not None:
            def change():
                box.fill(str(next(seeds) if field == "seed" else 16 + 8 * next(seeds) % 64))
                box.press("Enter")
            row["config_ms"] = 1e3 * statistics.median(measure(pid, page, wire, change) for _ in range(repeat))
            row["config_field"] = field
        for sel in STEP_BUTTONS:
            btn = page.locator(sel)
            if slug == default:
                try:
                    btn.first.wait_for(timeout=10000)
                except Exception:
                    continue
            if btn.count() and btn.first.is_enabled():
                runs = 1 if sel.startswith(".st-key") else 0          # a client-side step runs no script
                row["step_ms"] = 1e3 * statistics.median(
                    measure(pid, page, wire, lambda: page.locator(sel).first.click(), runs=runs) for _ in range(repeat))
                break
        row["rss_mb"] = rss_mb(pid)
    finally:
        ctx.close()
    return row


def run(url: str, pid: int, pages: list[str], repeat: int) -> dict:
    import tempfile

    from playwright.sync_api import sync_playwright

    from loadtest import niced_chromium
    seeds = iter(range(5000, 10**6))
    out = {"pid": pid, "rows": []}
    with sync_playwright() as p:
        wrap = niced_chromium(Path(tempfile.mkdtemp(prefix="flashviz-cpu-")))     # every Chromium process at nice 19
        browser = p.chromium.launch(executable_path=wrap, args=bu.CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
            page = ctx.new_page()
            wire = Wire(page)
            out["cold_ms"] = 1e3 * measure(pid, page, wire, lambda: page.goto(f"{url}/?lang=en"))
            out["rss_after_cold_mb"] = rss_mb(pid)
            ctx.close()
            for slug in pages:
                out["rows"].append(profile_page(browser, url, pid, slug, repeat, seeds))
                print(_line(out["rows"][-1]), flush=True)
        finally:
            browser.close()
    return out


def _f(x) -> str:
    return "-" if x is None else f"{x:.0f}"


def _line(r: dict) -> str:
    return (f"{r['page']:<10} {_f(r.get('first_ms')):>8} {_f(r.get('warm_ms')):>8} {_f(r.get('config_ms')):>8} "
            f"{_f(r.get('step_ms')):>8} {_f(r.get('rss_mb')):>8}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", nargs="+", help="page slugs (default: every page)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--server", help="URL of a running server (default: start one)")
    ap.add_argument("--pid", type=int, help="PID of that server's streamlit process")
    ap.add_argument("--server-log", type=Path)
    a = ap.parse_args(argv)
    pages = a.pages or [p.slug for p in bu.app_pages()]
    print("server CPU ms per action (from /proc), RSS MB after the page; browser at nice 19")
    print(f"{'page':<10} {'first':>8} {'warm':>8} {'config':>8} {'step':>8} {'rss':>8}", flush=True)
    if a.server:
        out = run(a.server.rstrip("/"), a.pid, pages, a.repeat)
    else:
        with bu.streamlit_server(log=a.server_log) as server:
            out = run(server.url, server.pid, pages, a.repeat)
    print(f"cold start (first load of a fresh process): {out['cold_ms']:.0f} ms CPU, "
          f"RSS {out['rss_after_cold_mb']:.0f} MB")
    if a.json:
        a.json.write_text(json.dumps(dict(out, provenance=provenance("/proc utime+stime")), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
