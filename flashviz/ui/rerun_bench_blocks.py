"""Server-side time of one "Blocks and memory traffic" rerun after a step change (issue 5; a measurement, not a test).

    python -m flashviz.ui.rerun_bench_blocks [--reruns 20] [--sizes 4096 16384] [--blocks 64] [--orders fa1 fa2]

For each (N, Br = Bc, order): an AppTest of app.py switched to the page, with that configuration (d = 64),
starting in the middle of the schedule, one warm-up run, then `--reruns` clicks of Next/Previous; prints the
median and p95 wall time of AppTest.run() (the whole script: AppTest reruns all of it, not only the step
fragment a browser reruns, so this is an upper bound) and the median time inside the page's render().
Target: < 100 ms at N = 4096, Br = Bc = 64.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"
PAGE = "flashviz/ui/blocks.py"


def bench(n: int, block: int, order: str, reruns: int, d: int = 64) -> dict:
    from streamlit import logger
    from streamlit.testing.v1 import AppTest

    logger.set_log_level("error")                      # AppTest's bare-mode warnings are noise here
    import flashviz.ui.blocks as page
    render, inside = page.render, []

    def timed_render() -> None:                         # the page file imports `render` on every run
        t0 = time.perf_counter()
        try:
            render()
        finally:
            inside.append(time.perf_counter() - t0)

    page.render = timed_render
    try:
        at = AppTest.from_file(str(APP), default_timeout=120)
        for k, v in dict(n=n, d=d, block_m=block, block_n=block, row=n - 1).items():
            at.session_state[f"cfg.{k}"] = v
        at.session_state["blocks.mode"] = "pinned"
        at.session_state["blocks.order"] = order
        at.session_state["blocks.step"] = (n // block) ** 2 // 2 + 3          # the middle of the schedule
        at.run()
        at.switch_page(PAGE).run()
        if at.exception or at.error:
            raise RuntimeError(f"page failed: {[e.value for e in at.exception] or [e.value for e in at.error]}")
        times, direction = [], "next"
        inside.clear()
        for _ in range(reruns + 1):                     # the first click is a second warm-up
            t0 = time.perf_counter()
            at.button(key=f"blocks.{direction}").click().run()
            times.append(time.perf_counter() - t0)
            direction = "next" if direction == "prev" else "prev"
        if at.exception or at.error:
            raise RuntimeError(f"page failed: {[e.value for e in at.exception] or [e.value for e in at.error]}")
        times = sorted(times[1:])
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        return dict(n=n, block=block, order=order, steps=at.session_state["blocks.n_steps"],
                    median_ms=1e3 * statistics.median(times), p95_ms=1e3 * p95,
                    render_ms=1e3 * statistics.median(inside[1:]))
    finally:
        page.render = render


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reruns", type=int, default=20)
    ap.add_argument("--sizes", type=int, nargs="+", default=[4096, 16384])
    ap.add_argument("--blocks", type=int, nargs="+", default=[64])
    ap.add_argument("--orders", nargs="+", default=["fa2", "fa1"])
    args = ap.parse_args(argv)
    print(f"{'N':>6} {'Br=Bc':>6} {'order':>5} {'steps':>7} {'median ms':>10} {'p95 ms':>8} {'render() ms':>12}")
    for n in args.sizes:
        for block in args.blocks:
            for order in args.orders:
                r = bench(n, block, order, args.reruns)
                print(f"{r['n']:>6} {r['block']:>6} {r['order']:>5} {r['steps']:>7} {r['median_ms']:>10.1f} "
                      f"{r['p95_ms']:>8.1f} {r['render_ms']:>12.1f}", flush=True)


if __name__ == "__main__":
    main()
