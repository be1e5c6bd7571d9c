"""Where time goes inside one CTA: record proton intra-kernel traces of the attention kernels (GPU only).

    python -m flashviz.bench --preset h200-timeline [--out PATH] [--traces DIR] [--impls fast ws]

For each configuration of the preset and each implementation that can run here ("fast": the tl kernel of
kernels/fast.py, called directly so no dispatch swaps it; "ws": the Gluon warp-specialised kernel, when
flashviz_kernels.ws exists and its status() says active), this
  1. times the plain kernel: triton.testing.do_bench (median), and the kernel alone on the GPU (CUPTI through
     torch.profiler, median of REPS launches), while nvidia-smi samples the SM clock;
  2. runs it once under proton's instrumentation backend (data="trace", warp granularity) with a global-memory
     buffer sized for every event (the default shared buffer of the fast kernel kept half: it is circular and
     keeps the latest events); if that mode fails, the default shared buffer, and the cell says which;
  3. times the instrumented kernel alone the same way, in a second proton session (data="tree": a small file),
     so ms_kernel_instrumented / ms_kernel_plain is the instrumentation's cost;
  4. parses the trace (flashviz/bench/timeline_trace.py) into the dataset (flashviz/bench/timeline_dataset.py).
Triton kernels (not Gluon) are instrumented only after pl.enable_semantic("triton"): Triton warns that its
pipelining and reordering can move work across scope boundaries, which the dataset's method block repeats.
What a kernel needs to appear: proton scopes (kernels/scopes.py, or triton.profiler.language in Gluon) that each
warp enters once per key tile, so the trip count predicts the events (fast: load_k, qk, softmax, load_v_pv in its
key loop). A warp whose scopes all start with "tma" or "producer" is drawn as the producer; other warps by their
warpgroup (warp // 4). The ws kernel has them: tma_wait_slot and tma_issue (K), tma_wait_slot_v and tma_issue_v
(V) per tile in its producer (one pair in recordings made before that split); wait_kv, wait_turn, qk, softmax, pv in its
consumers' loop (the overlapped last P·V counts as one pv).
No streamlit, no plotly.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .timeline_dataset import DEFAULT_DIR, KIND, SCHEMA_VERSION, validate_timeline_dataset
from .timeline_trace import TraceError, summarize, tiles_per_program

# B=1 and H picked so each grid is about one wave on the H200's 132 SMs (128 or 256 programs) and a trace stays
# a few hundred thousand events; d=128 and 64, N=4096 and 8192, causal and not: under a minute in all.
PRESETS = {
    "h200-timeline": (dict(batch=1, heads=4, n=4096, d=128, causal=False),
                      dict(batch=1, heads=2, n=8192, d=128, causal=False),
                      dict(batch=1, heads=4, n=8192, d=128, causal=True),
                      dict(batch=1, heads=2, n=8192, d=64, causal=False)),
    "timeline-small": (dict(batch=1, heads=2, n=1024, d=64, causal=False),),
}
IMPLS = ("fast", "ws")
REPS = 10
SEMANTIC = ("Triton (tl) kernels are instrumented after pl.enable_semantic('triton'); Triton disables that by "
            "default because loop pipelining and instruction reordering can move work across scope boundaries, "
            "so a tl kernel's scopes are approximate. A scope is timed from when a warp reaches its start to when "
            "it reaches its end: asynchronous work (TMA copies, wgmma) issued inside one scope may be waited for "
            "in a later one.")


class Impl:
    """How to pick tiles for, launch, and name the kernel of one implementation."""

    def __init__(self, name: str, module, kernel: str):
        self.name, self.module, self.kernel = name, module, kernel

    def tiles(self, q, k, causal: bool):
        return self.module.pick_config(q, k, causal=causal)

    def schedule(self, d: int, causal: bool) -> str | None:
        """The ws kernel's schedule switches this launch runs with (its CONFIGS default), as one of
        timeline_dataset.SCHEDULES; None for kernels without them."""
        if self.name != "ws":
            return None
        from .timeline_dataset import schedule_name
        return schedule_name(*self.module.CONFIGS[(d, bool(causal))][3:5])

    def launcher(self, q, k, v, causal: bool, tiles):
        bm, bn, warps, stages = tiles
        scale = q.shape[-1] ** -0.5
        if self.name == "ws":                         # the Gluon kernel takes plain or causal attention only;
            kw = dict(causal=causal, persistent=False)    # one tile per program: the grid and buffers recorded
        else:                                         # fast takes a checked variant (plain or causal here)
            from flashviz_kernels import variants
            kw = dict(variant=variants.CAUSAL if causal else variants.PLAIN)
        return lambda: self.module.forward(q, k, v, sm_scale=scale, block_m=bm, block_n=bn, num_warps=warps,
                                           num_stages=stages, **kw)


def unverified() -> str | None:
    """Why proton's intra-kernel instrumentation may not be trusted here (kernels/gates.py "timeline": the (triton,
    GPU) pairs a recording was checked on; FLASHVIZ_UNVERIFIED=1 records anyway, to verify a new pair), else None."""
    from flashviz_kernels import ws
    return ws.gate_reason("timeline")


def available_impls(wanted=IMPLS) -> tuple[list[Impl], list[str]]:
    """The implementations that can run here, and a note per one that cannot."""
    from flashviz_kernels import fast
    out, notes = [], []
    if "fast" in wanted:
        out.append(Impl("fast", fast, "_fast_fwd"))
    if "ws" in wanted:
        try:
            from flashviz_kernels import ws
        except ImportError:
            notes.append("ws: flashviz_kernels.ws is not in this checkout")
        else:
            st = ws.status()
            if st.get("active"):
                out.append(Impl("ws", ws, "ws_fwd"))
            else:
                notes.append(f"ws: not active here ({st.get('reason')})")
    return out, notes


# ----------------------------------------------------------------------------- timers

class ClockSampler:
    """nvidia-smi's SM clock, read once per timed window from a thread while the GPU is busy."""

    def __init__(self):
        self.samples: list[float] = []

    def _read(self, delay: float) -> None:
        time.sleep(delay)
        try:
            r = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", "-i", "0"],
                               capture_output=True, text=True, timeout=10)
            self.samples.append(float(r.stdout.strip().splitlines()[0]))
        except (OSError, subprocess.SubprocessError, ValueError, IndexError):
            pass

    def during(self, fn, delay: float = 0.15):
        th = threading.Thread(target=self._read, args=(delay,), daemon=True)
        th.start()
        try:
            return fn()
        finally:
            th.join(timeout=15)


def kernel_ms(fn, kernel: str, reps: int = REPS) -> float | None:
    """Median GPU time (ms) of the kernels named `kernel` over `reps` calls of fn, from CUPTI (torch.profiler)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    with tempfile.TemporaryDirectory(prefix="flashviz-kineto-") as tmp:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(reps):
                fn()
            torch.cuda.synchronize()
        path = os.path.join(tmp, "kineto.json")
        prof.export_chrome_trace(path)
        events = json.loads(Path(path).read_text(encoding="utf-8")).get("traceEvents", [])
    durs = [e["dur"] for e in events if e.get("cat") == "kernel" and kernel in str(e.get("name", ""))]
    return statistics.median(durs) / 1e3 if durs else None


def proton_mode(buffer: str, buffer_bytes: int):
    """proton's instrumentation mode at warp granularity: its default shared buffer, or ("global") a global one of
    buffer_bytes (proton splits it among a CTA's warps and wants a power of two each; tools/window_trace.py too)."""
    from triton.profiler import mode as pm
    kw = dict(granularity=pm.granularities["warp"])
    if buffer == "global":
        kw.update(buffer_type=pm.buffer_types["global"], buffer_size=buffer_bytes)
    return pm.Default(**kw)


def proton_session(path: str, data: str, md, fn) -> None:
    """fn run once, synchronised, inside a proton instrumentation session writing `path` (data "trace" or "tree")."""
    import torch
    import triton.profiler as proton
    proton.start(path, data=data, backend="instrumentation", mode=md)
    try:
        fn()
        torch.cuda.synchronize()
    finally:
        proton.finalize()


# ----------------------------------------------------------------------------- one cell

def measure(impl: Impl, cfg: dict, clock: ClockSampler, traces: Path | None) -> dict:
    import torch
    import triton.testing
    b, h, n, d, causal = cfg["batch"], cfg["heads"], cfg["n"], cfg["d"], cfg["causal"]
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
    tiles = impl.tiles(q, k, causal)
    bm, bn, warps, stages = tiles
    fn = impl.launcher(q, k, v, causal, tiles)
    cell = dict(impl=impl.name, kernel=impl.kernel, status="error", message=None, n=n, d=d, causal=causal,
                dtype="float16", batch=b, heads=h, block_m=bm, block_n=bn, num_warps=warps, num_stages=stages,
                grid=[-(-n // bm), b * h], buffer="global", ms_plain=None, ms_kernel_plain=None,
                ms_kernel_instrumented=None, reps_kernel=REPS)
    if impl.schedule(d, causal) is not None:
        cell["schedule"] = impl.schedule(d, causal)
    fn()
    torch.cuda.synchronize()
    cell["ms_plain"] = clock.during(lambda: triton.testing.do_bench(fn, warmup=25, rep=300, return_mode="median"))
    notes = []
    try:
        cell["ms_kernel_plain"] = kernel_ms(fn, impl.kernel)
    except Exception as e:                                    # noqa: BLE001 - recorded, not fatal
        notes.append(f"plain kernel time not measured ({type(e).__name__}: {str(e)[:200]})")
    per_cta = tiles_per_program(n, n, bm, bn, causal, 1)
    # per CTA: 2 x (16 warps x 8 scopes x 2 records of 8 bytes) per key tile (proton keeps 2 records per scope
    # entry; its default shared buffer of 8 KiB held 512 events), rounded up to a power of two
    buffer_bytes = 1 << (max(per_cta) * 2 * 16 * 8 * 2 * 8 - 1).bit_length()
    trace = None
    with tempfile.TemporaryDirectory(prefix="flashviz-proton-") as tmp:
        for buffer in ("global", "shared"):
            stem = os.path.join(tmp, f"{impl.name}_{buffer}")
            try:
                proton_session(stem, "trace", proton_mode(buffer, buffer_bytes), fn)
                trace_path = Path(stem + ".chrome_trace")
                if not trace_path.is_file():
                    raise TraceError("proton wrote no trace: the kernel recorded no scope")
                trace = json.loads(trace_path.read_text(encoding="utf-8"))
                cell["buffer"] = buffer
            except Exception as e:                            # noqa: BLE001 - try the next buffer, say why
                notes.append(f"{buffer} buffer failed ({type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''})")
                continue
            if traces is not None:
                try:
                    traces.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(trace_path, traces / f"{impl.name}_N{n}_d{d}{'_causal' if causal else ''}.chrome_trace")
                except OSError as e:
                    notes.append(f"raw trace not kept ({e})")
            break
        if trace is not None:
            try:
                res: dict = {}
                proton_session(os.path.join(tmp, "timing"), "tree", proton_mode(cell["buffer"], buffer_bytes),
                         lambda: res.setdefault("ms", kernel_ms(fn, impl.kernel)))
                cell["ms_kernel_instrumented"] = res.get("ms")
            except Exception as e:                            # noqa: BLE001
                notes.append(f"instrumented kernel time not measured ({type(e).__name__}: {str(e)[:200]})")
    if trace is not None:
        try:
            cell.update(summarize(trace, tiles=per_cta * b * h, kernel=None))
            cell["status"] = "ok"
            if cell["kernel"] != impl.kernel:
                notes.append(f"the trace names kernel {cell['kernel']!r}")
        except TraceError as e:
            cell["status"] = "no_scopes" if "no scope events" in str(e) else "error"
            notes.append(str(e))
    elif any("recorded no scope" in x for x in notes):
        cell["status"] = "no_scopes"
    cell["message"] = "; ".join(notes)[:2000] or None
    return checked(cell)


def checked(cell: dict) -> dict:
    """The cell if it passes the schema; else (e.g. a kernel whose scopes nest, so a warp's shares exceed its time)
    the same cell without the parsed trace, status "error", saying why: one odd kernel must not lose the run."""
    from flashviz.infra.errors import DatasetError

    from .timeline_dataset import PARSED_KEYS, check_cell
    try:
        check_cell(0, cell)
        return cell
    except DatasetError as e:
        out = {k: v for k, v in cell.items() if k not in PARSED_KEYS}
        out.update(status="error", message=(f"trace parsed but not valid: {e}; " + (cell.get("message") or ""))[:2000])
        return out


# ----------------------------------------------------------------------------- the run

def build(cells: list[dict], *, provenance: dict, clock: ClockSampler, elapsed_s: float, complete: bool,
          stopped: str | None = None) -> dict:
    s = sorted(clock.samples)
    mode = "default (instrumentation backend, data=trace), granularity=warp, metric=cycle, buffer per cell"
    data = {"schema_version": SCHEMA_VERSION, "kind": KIND, "complete": complete, "elapsed_s": float(elapsed_s),
            "provenance": provenance,
            "method": {"profiler": "triton proton (intra-kernel instrumentation)", "granularity": "warp",
                       "mode": mode, "semantic": SEMANTIC,
                       "clock_mhz": statistics.median(s) if s else None,
                       "clock_source": (f"nvidia-smi clocks.sm, {len(s)} samples while the plain kernels ran "
                                        f"({s[0]:g}-{s[-1]:g} MHz)") if s else "not read (no nvidia-smi)",
                       "timer_plain": "triton.testing.do_bench, median, warm-up 25 ms, rep 300 ms",
                       "timer_kernel": f"CUPTI kernel durations (torch.profiler), median of {REPS} launches; "
                                       "instrumented: in a proton session of the same mode (data=tree)",
                       "representative": "the CTA with the median span (lower median), ties by CTA id"},
            "cells": cells}
    if stopped:
        data["stopped"] = stopped
    return validate_timeline_dataset(data)


def table(data: dict) -> str:
    lines = [f"{'impl':5} {'N':>6} {'d':>4} {'causal':6} {'ms':>8} {'kern ms':>8} {'instr ms':>8} {'events':>8} "
             f"{'expected':>8} status"]
    for c in data["cells"]:
        f = lambda x: "-" if x is None else f"{x:.4f}"           # noqa: E731
        lines.append(f"{c['impl']:5} {c['n']:>6} {c['d']:>4} {str(c['causal']):6} {f(c['ms_plain']):>8} "
                     f"{f(c['ms_kernel_plain']):>8} {f(c['ms_kernel_instrumented']):>8} {c.get('events', '-'):>8} "
                     f"{str(c.get('events_expected', '-')):>8} {c['status']} {c.get('message') or ''}")
    return "\n".join(lines)


def write(data: dict, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(data, separators=(",", ":"), allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m flashviz.bench", description=__doc__.split("\n")[0])
    p.add_argument("--preset", choices=sorted(PRESETS), default="h200-timeline")
    p.add_argument("--impls", nargs="+", choices=IMPLS, default=list(IMPLS))
    p.add_argument("--out", help="JSON path (default assets/benchmarks/timeline/<device>-<date>.json)")
    p.add_argument("--traces", help="also keep each raw proton trace in this folder")
    p.add_argument("--budget-s", type=float, default=300.0, help="start no new configuration after this")
    args = p.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        raise SystemExit("the timeline needs a CUDA GPU (proton instruments compiled kernels, not the interpreter)")
    why = unverified()
    if why:
        raise SystemExit(f"the proton timeline recording is not verified here: {why}")
    import triton.profiler.language as pl
    pl.enable_semantic("triton")                  # the tl kernel's scopes; Gluon's are on by default
    from . import provenance as prov
    given = list(sys.argv[1:] if argv is None else argv)
    if "--preset" not in given and not any(a.startswith("--preset=") for a in given):
        given = ["--preset", args.preset, *given]
    command = prov.command_line(["", *given])
    p_info = prov.collect("cuda", command, "triton.testing.do_bench + CUPTI kernel durations")
    name = p_info["device_name"]
    out = Path(args.out) if args.out else DEFAULT_DIR / (
        f"{prov.device_slug(dict(device='cuda', device_name=name))}-{datetime.date.today().isoformat()}.json")
    impls, notes = available_impls(tuple(args.impls))
    for note in notes:
        print(f"flashviz.bench.timeline: {note}", file=sys.stderr, flush=True)
    clock, cells, t0 = ClockSampler(), [], time.perf_counter()
    configs = PRESETS[args.preset]
    stopped = None
    for i, cfg in enumerate(configs):
        if time.perf_counter() - t0 > args.budget_s:
            stopped = f"budget of {args.budget_s:g} s spent after {i} of {len(configs)} configurations"
            break
        for impl in impls:
            try:
                cell = measure(impl, cfg, clock, Path(args.traces) if args.traces else None)
            except Exception as e:                            # noqa: BLE001 - a launch failure is a cell, not the end
                print(f"flashviz.bench.timeline: {impl.name} {cfg}: {type(e).__name__}: {e}", file=sys.stderr)
                continue
            cells.append(cell)
            print(f"[{time.perf_counter() - t0:6.1f} s] {impl.name} {cfg}: {cell['status']} "
                  f"{cell.get('events', '-')} events (expected {cell.get('events_expected', '-')}) "
                  f"{cell.get('message') or ''}", file=sys.stderr, flush=True)
            data = build(cells, provenance=p_info, clock=clock, elapsed_s=time.perf_counter() - t0, complete=False)
            write(data, out)
    if not cells:
        raise SystemExit("no configuration could be measured")
    data = build(cells, provenance=p_info, clock=clock, elapsed_s=time.perf_counter() - t0,
                 complete=stopped is None, stopped=stopped)
    write(data, out)
    print(table(data))
    print(f"wrote {out} ({len(cells)} cells, {data['elapsed_s']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
