"""Server-side time of one stepper rerun after a step change (issue 2 item 5; a measurement, not a test).

    python -m flashviz.ui.rerun_bench [--reruns 20] [--sizes 16 1024 4096] [--tiles 4 64]

For each (N, tile): an AppTest of app.py with that configuration, one warm-up run, then `--reruns`
clicks of Next/Previous (moving back and forth around the last step, where the charts hold the most
points); prints the median and p95 wall time of AppTest.run() (the whole script, the figures' JSON and
AppTest's own bookkeeping) and the median time inside the page's render(). Target: < 100 ms at N = 4096.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"


def bench(n: int, tile: int, reruns: int) -> dict:
    from streamlit import logger
    from streamlit.testing.v1 import AppTest

    logger.set_log_level("error")                      # AppTest's bare-mode warnings are noise here
    import flashviz.ui.stepper as page
    render, inside = page.render, []

    def timed_render() -> None:                         # the page file imports `render` on every run
        t0 = time.perf_counter()
        try:
            render()
        finally:
            inside.append(time.perf_counter() - t0)

    page.render = timed_render
    try:
        return _bench(AppTest, n, tile, reruns, inside)
    finally:
        page.render = render


def _bench(AppTest, n: int, tile: int, reruns: int, inside: list) -> dict:
    at = AppTest.from_file(str(APP), default_timeout=120)
    for k, v in dict(n=n, block_n=tile, row=n - 1).items():
        at.session_state[f"cfg.{k}"] = v
    at.session_state["stepper.step"] = 10**9            # clamped to the last step
    at.run()
    if at.exception or at.error:
        raise RuntimeError(f"app failed: {[e.value for e in at.exception] or [e.value for e in at.error]}")
    times, direction = [], "prev"
    inside.clear()
    for _ in range(reruns + 1):                         # the first click is a second warm-up
        t0 = time.perf_counter()
        at.button(key=f"stepper.{direction}").click().run()
        times.append(time.perf_counter() - t0)
        direction = "next" if direction == "prev" else "prev"
    times = sorted(times[1:])
    steps = at.session_state["stepper.n_steps"]
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return dict(n=n, tile=tile, steps=steps, median_ms=1e3 * statistics.median(times), p95_ms=1e3 * p95,
                render_ms=1e3 * statistics.median(inside[1:]))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reruns", type=int, default=20)
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 1024, 4096])
    ap.add_argument("--tiles", type=int, nargs="+", default=[4, 64])
    args = ap.parse_args(argv)
    print(f"{'N':>6} {'tile':>5} {'steps':>6} {'median ms':>10} {'p95 ms':>8} {'render() ms':>12}")
    for n in args.sizes:
        for tile in args.tiles:
            if tile > n:
                continue
            r = bench(n, tile, args.reruns)
            print(f"{r['n']:>6} {r['tile']:>5} {r['steps']:>6} {r['median_ms']:>10.1f} {r['p95_ms']:>8.1f} "
                  f"{r['render_ms']:>12.1f}", flush=True)


if __name__ == "__main__":
    main()
