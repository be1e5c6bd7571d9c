"""Server-side time of one page rerun (a measurement, not a test).

    python -m flashviz.ui.rerun_bench [--reruns 20] [--sizes 16 1024 4096] [--tiles 4 64]
    python -m flashviz.ui.rerun_bench --page blocks [--sizes 4096 16384] [--tiles 64] [--orders fa2 fa1]

For each configuration: an AppTest of app.py on that page, one warm-up run, then `--reruns` runs. The stepper
steps in the browser (flashviz/client): a step runs nothing here, so its reruns are configuration changes (a new
seed each time: the trace, the payload for the browser and the page are computed anew). The blocks page clicks
Next/Previous in the middle of its schedule. Prints the median and p95 wall time of AppTest.run() (the whole
script) and the median time inside the page's render(). For the server's CPU per page and action in a real
server process, with a real browser, see `python -m tests.load.cpu_profile`.
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import time
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"


def time_reruns(page: str, state: dict, reruns: int) -> dict:
    """`reruns` runs of `page` started from `state`: new seeds on the stepper, Next/Previous on the blocks page."""
    from streamlit import logger
    from streamlit.testing.v1 import AppTest

    from flashviz.ui import pages

    logger.set_log_level("error")                      # AppTest's bare-mode warnings are noise here
    mod = importlib.import_module(f"flashviz.ui.{page}")
    render, inside = mod.render, []

    def timed_render() -> None:                         # pages.py looks `render` up on every run
        t0 = time.perf_counter()
        try:
            render()
        finally:
            inside.append(time.perf_counter() - t0)

    mod.render = timed_render
    try:
        at = AppTest.from_file(str(APP), default_timeout=120)
        for k, v in state.items():
            at.session_state[k] = v
        at.run()
        if page != "stepper":
            pages.switch(at, page).run()
        times, direction = [], "prev"
        inside.clear()
        for k in range(reruns + 1):                     # the first run is a second warm-up
            t0 = time.perf_counter()
            if page == "stepper":
                at.session_state["cfg.seed"] = 10_000 + k
                at.run()
            else:
                at.button(key=f"{page}.{direction}").click().run()
            times.append(time.perf_counter() - t0)
            direction = "next" if direction == "prev" else "prev"
        if at.exception or at.error:
            raise RuntimeError(f"page failed: {[e.value for e in at.exception] or [e.value for e in at.error]}")
    finally:
        mod.render = render
    times = sorted(times[1:])
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return dict(steps=at.session_state[f"{page}.n_steps"], median_ms=1e3 * statistics.median(times),
                p95_ms=1e3 * p95, render_ms=1e3 * statistics.median(inside[1:]))


def bench(n: int, tile: int, reruns: int) -> dict:
    """The stepper at N keys, tile Bc: configuration changes (the browser steps)."""
    state = {"cfg.n": n, "cfg.block_n": tile, "cfg.row": n - 1}
    return dict(n=n, tile=tile, **time_reruns("stepper", state, reruns))


def bench_blocks(n: int, block: int, order: str, reruns: int, d: int = 64) -> dict:
    """The blocks page at N, Br = Bc = block, d = 64, from the middle of the schedule."""
    k = "cfg.k."                                   # the blocks page reads the kernel scale's fields (ui/state.py)
    state = {f"{k}n": n, f"{k}d": d, f"{k}block_m": block, f"{k}block_n": block, f"{k}row": n - 1,
             f"{k}dtype": "float32", "blocks.mode": "pinned", "blocks.order": order, "blocks.step": (n // block) ** 2 // 2 + 3}
    return dict(n=n, tile=block, order=order, **time_reruns("blocks", state, reruns))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--page", choices=("stepper", "blocks"), default="stepper")
    ap.add_argument("--reruns", type=int, default=20)
    ap.add_argument("--sizes", type=int, nargs="+")
    ap.add_argument("--tiles", type=int, nargs="+", help="stepper: Bc; blocks: Br = Bc")
    ap.add_argument("--orders", nargs="+", default=["fa2", "fa1"], help="blocks page only")
    args = ap.parse_args(argv)
    blocks = args.page == "blocks"
    sizes = args.sizes or ([4096, 16384] if blocks else [16, 1024, 4096])
    tiles = args.tiles or ([64] if blocks else [4, 64])
    print(f"{'N':>6} {'tile':>5} {'order':>5} {'steps':>7} {'median ms':>10} {'p95 ms':>8} {'render() ms':>12}")
    for n in sizes:
        for tile in tiles:
            if tile > n:
                continue
            for order in (args.orders if blocks else ["-"]):
                r = bench_blocks(n, tile, order, args.reruns) if blocks else bench(n, tile, args.reruns)
                print(f"{n:>6} {tile:>5} {order:>5} {r['steps']:>7} {r['median_ms']:>10.1f} {r['p95_ms']:>8.1f} "
                      f"{r['render_ms']:>12.1f}", flush=True)


if __name__ == "__main__":
    main()
