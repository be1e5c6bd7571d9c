"""Memory of one server process over a long lecture: AppTest renders the pages for many distinct configurations
in this one process (as many classroom sessions would on one server) and prints the resident set size (VmRSS of
/proc/self/status) after every `--every` configurations, and the bytes the process-wide caches hold.

    python -m tests.load.memory_curve [--configs 200] [--every 20]

The caches together hold at most flashviz.infra.cache.TOTAL_BUDGET (FLASHVIZ_CACHE_MIB); the last lines are the process
at rest (after handing the heap's free pages back) and the peak.

The configurations cycle over the pages whose caches depend on the configuration (stepper, blocks,
flash-decoding) and over N, d, Bc, Br, causal, dtype and the seed, so no two are alike. The first few are
the lesson-sized defaults the app opens with.
"""
from __future__ import annotations

import argparse
import gc
import itertools
import json
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # helpers, also under `python -m tests.…`

from helpers import app as app_util  # noqa: E402
from helpers.record import provenance  # noqa: E402

PAGES = ("stepper", "blocks", "decoding")          # page slugs (flashviz.ui.pages)
NS = (1024, 2048, 4096, 8192, 16384)
DS = (64, 128, 256, 32)
BCS = (4, 16, 64, 1)                     # 4: the lesson's tile; 1: the "tile of one key" preset
DTYPES = ("float32", "float16", "bfloat16")


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def configs(count: int, ns=NS, ds=DS, bcs=BCS):
    """(page, values) for `count` distinct configurations."""
    combos = itertools.product(DTYPES, (False, True), bcs, ds, ns)          # N changes fastest
    for i, (dtype, causal, bc, d, n) in zip(range(count), itertools.cycle(combos)):
        page = PAGES[i % len(PAGES)]
        yield page, dict(n=n, d=d, block_n=bc, block_m=bc, causal=causal, dtype=dtype, seed=100 + i, row=n - 1)


def held() -> str:
    """The process-wide caches' held bytes, if flashviz.infra.cache is there (after the byte-bounded caches)."""
    try:
        from flashviz.infra import cache
    except ImportError:
        return ""
    budget = min(cache.total_budget(), getattr(cache, "TOTAL_BUDGET", cache.total_budget()))
    return f"  caches {cache.held_bytes() / 2**20:7.1f} MiB of {budget / 2**20:.0f} MiB"


def run(count: int, every: int) -> list[tuple[int, float]]:
    curve = [(0, rss_mib())]
    print(f"configs    0  RSS {curve[0][1]:7.1f} MiB", flush=True)
    t0 = time.monotonic()
    for k, (page, values) in enumerate(configs(count), 1):
        at = app_util.open_page(page, timeout=300, **values)
        assert not at.exception, (page, values, [e.value for e in at.exception])
        assert not at.error, (page, values, [e.value for e in at.error])
        del at
        if k % every == 0 or k == count:
            gc.collect()
            curve.append((k, rss_mib()))
            print(f"configs {k:4d}  RSS {curve[-1][1]:7.1f} MiB  ({time.monotonic() - t0:5.0f} s){held()}",
                  flush=True)
    try:                                       # what the process keeps once the lecture is over
        from flashviz.infra import cache
        cache.trim_heap(force=True)
        print(f"at rest      RSS {rss_mib():7.1f} MiB  (the heap's free pages handed back){held()}", flush=True)
    except ImportError:
        pass
    peak = max(r for _, r in curve)
    print(f"peak RSS {peak:.0f} MiB over {count} configurations (goal: under 1024 MiB per process)", flush=True)
    return curve


def main(argv=None) -> None:
    logging.getLogger("streamlit").setLevel(logging.ERROR)       # bare-mode warnings of every AppTest run
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", type=int, default=200)
    ap.add_argument("--every", type=int, default=20)
    ap.add_argument("--json", type=Path, help="also write the curve and its provenance here")
    a = ap.parse_args(argv)
    curve = run(a.configs, a.every)
    if a.json:
        a.json.write_text(json.dumps(dict(configs=a.configs, every=a.every, curve_mib=curve,
                                          provenance=provenance("VmRSS")), indent=1))


if __name__ == "__main__":
    main()
