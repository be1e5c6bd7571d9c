"""The app's live measurement path (no Streamlit): what "Run on GPU" does, callable from a script.

The "Speed and memory" page calls `measure_live` / `sweep_live`; `python -m flashviz.bench.live` runs the
very same calls on a GPU machine without Streamlit and lays them beside a recorded dataset, so the
page's numbers can be checked against `python -m flashviz.bench`:

    python -m flashviz.bench.live --n 4096 --d 128 --causal --compare assets/benchmarks/nvidia-h200-fwd-2026-11-29.json

Measurement itself is flashviz.bench.measure_config (do_bench medians, peak extra memory, float64
check, OOM recorded per cell); every GPU step there holds flashviz_kernels.LAUNCH_LOCK, so several
classroom browsers pressing the button at once are measured one after another, never interleaved.
"""
from __future__ import annotations

import argparse
import sys

from flashviz_kernels.rules import is_gpu_tile

LIVE_IMPLS = ("naive", "sdpa-flash", "sdpa-cudnn", "teaching", "fast")
SWEEP_NS = (512, 1024, 2048, 4096, 8192, 16384)
MAX_LIVE_N = 65536


def gpu_available() -> bool:
    import torch
    return torch.cuda.is_available()


def gpu_tiles(br: int, bc: int) -> tuple[int, int] | None:
    """The stepper's Br x Bc if the compiled teaching kernel can run them (powers of two, 16..256), else None."""
    return (br, bc) if is_gpu_tile(br) and is_gpu_tile(bc) else None


def measure_live(n: int, d: int, causal: bool, dtype: str, batch: int, heads: int, *, mode: str = "fwd",
                 impls=LIVE_IMPLS, tiles: tuple[int, int] | None = None, progress=None) -> list[dict]:
    """One configuration, every impl; cells as in a recorded dataset (never raises for a cell)."""
    from . import measure_config
    from ..infra.errors import InputError
    if not 1 <= n <= MAX_LIVE_N:
        raise InputError(key="errors.n_live", hi=MAX_LIVE_N, got=n)
    return measure_config(list(impls), n, d, causal, dtype, batch, heads, mode, progress_callback=progress,
                          teaching_blocks=tiles)


def sweep_live(ns, d: int, causal: bool, dtype: str, batch: int, heads: int, *, mode: str = "fwd",
               impls=LIVE_IMPLS, tiles=None, progress=None) -> list[dict]:
    """measure_live over several N; progress(done, total, cell) counts cells over the whole sweep."""
    cells, total = [], len(ns) * len(impls)
    for n in ns:
        def tick(_i, _t, cell, base=len(cells)):
            if progress:
                progress(base + _i, total, cell)
        cells += measure_live(n, d, causal, dtype, batch, heads, mode=mode, impls=impls, tiles=tiles, progress=tick)
    return cells


def compare_rows(live: list[dict], dataset: dict) -> list[dict]:
    """Each live cell beside the recorded cell of the same configuration (None where not recorded)."""
    from . import nearest_cell
    rows = []
    for c in live:
        rec = nearest_cell(dataset, c["impl"], n=c["n"], d=c["d"], causal=c["causal"], dtype=c["dtype"],
                           batch=c["batch"], heads=c["heads"], mode=c["mode"])
        same = rec is not None and all(rec[k] == c[k] for k in ("n", "d", "causal", "dtype", "batch", "heads"))
        r_ms = rec["ms"] if same and rec["status"] == "ok" else None
        rows.append(dict(impl=c["impl"], status=c["status"], live_ms=c["ms"], recorded_ms=r_ms,
                         live_over_recorded=(c["ms"] / r_ms) if (c["ms"] and r_ms) else None,
                         live_peak_mib=None if c["peak_extra_bytes"] is None else c["peak_extra_bytes"] / 2 ** 20,
                         recorded_peak_mib=(rec["peak_extra_bytes"] / 2 ** 20
                                            if same and rec.get("peak_extra_bytes") is not None else None)))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flashviz.bench.live", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[4096])
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--mode", default="fwd")
    ap.add_argument("--tiles", type=int, nargs=2, metavar=("BR", "BC"), help="pin the teaching kernel's tiles")
    ap.add_argument("--compare", help="a recorded dataset to lay the live numbers beside")
    args = ap.parse_args(argv)
    cells = sweep_live(args.n, args.d, args.causal, args.dtype, args.batch, args.heads, mode=args.mode,
                       tiles=tuple(args.tiles) if args.tiles else None)
    dataset = None
    if args.compare:
        from . import load_dataset
        dataset = load_dataset(args.compare)
    print(f"{'impl':<12}{'N':>7} {'status':<11}{'live ms':>10}{'rec. ms':>10}{'live/rec':>9}"
          f"{'live MiB':>11}{'rec. MiB':>11}")
    for c in cells:
        r = compare_rows([c], dataset)[0] if dataset else {}
        fmt = lambda x, f: "-" if x is None else format(x, f)  # noqa: E731
        print(f"{c['impl']:<12}{c['n']:>7} {c['status']:<11}{fmt(c['ms'], '.3f'):>10}"
              f"{fmt(r.get('recorded_ms'), '.3f'):>10}{fmt(r.get('live_over_recorded'), '.3f'):>9}"
              f"{fmt(r.get('live_peak_mib'), '.1f'):>11}{fmt(r.get('recorded_peak_mib'), '.1f'):>11}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
