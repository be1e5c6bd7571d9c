"""The measuring core: one configuration at a time, every GPU step under flashviz_kernels.LAUNCH_LOCK.

    measure_cell(impl, n, d, causal, dtype, batch, heads, mode="fwd", **opts) -> cell dict
    measure_config(impls, n, d, causal, dtype, batch, heads, mode="fwd", **opts) -> [cell dict], ratios filled
    run_sweep(spec, progress_callback=None, command=None, on_partial=None) -> dataset dict

Per configuration: fresh random inputs (seeded per configuration, never zeros) allocated once and shared by
the impls; a float64 reference on a few query rows of every (batch, head) (and, in fwd+bwd mode, full
gradients of two (batch, head) slices). Per impl, in this order:
  1. one call: warm-up (compiles) and correctness (max |out - ref|, ||out - ref|| / ||ref||);
  2. one call for memory: synchronize, reset peak stats, baseline = memory_allocated() with the inputs
     resident, run, peak extra = max_memory_allocated() - baseline; its wall time estimates the run time;
  3. timing: triton.testing.do_bench(return_mode="all"), median taken here (what return_mode="median"
     returns), warm-up/rep budgets raised so even a 100 ms cell gets >= min_reps timed runs; do_bench
     clears L2 before every timed run. On CPU: time.perf_counter median, memory "n/a" (None). With rounds R > 1
     (SweepSpec.rounds) steps 1-2 run for every impl first, then step 3 visits the impls in turn R times (each
     round starting one impl further on) and pools each one's runs, so a GPU clock that drifts over the
     configuration's seconds reaches them alike.
  4. graph timing (CUDA only): the same call captured in a torch.cuda.CUDAGraph and replayed
     (graph_timing.replay_times: triton.testing.do_bench_cudagraph, or for "bwd" the backward captured on its
     forward's stream; median of the replays): GPU time without the host's launch cost,
     calls back to back with L2 not cleared between them. A capture that fails leaves graph_ms null and
     says why in graph_message; on CPU graph_message says graphs are not available.
Failures never propagate: OOM -> status "oom" (caches emptied), impl unable to run -> "unavailable",
anything else -> "error", with the message.
"""
from __future__ import annotations

import gc
import math
import statistics
import time

import torch

import flashviz_kernels as fk

from . import peers, provenance
from .graph_timing import replay_times
from .reference import errors as _errors, make_inputs, reference
from .spec import (BASELINES, DATASET_KIND, PEERS, REL_TOL, SCHEMA_VERSION, SweepSpec, config_key, flops,
                   ideal_bytes)

TRITON_IMPLS = ("teaching", "fast", "ws")
GRAD_TOL_FACTOR = {"fwd": 1.0, "fwd+bwd": 4.0, "bwd": 4.0}   # gradients (dq sums over N keys) round more than outputs
GRAPH_CPU_MESSAGE = "graph: not available on CPU (CUDA graphs need a GPU)"
GRAPH_SKIPPED_MESSAGE = "graph: not measured, the per-call run did not succeed"
CPU_TRITON_MESSAGE = ("no CUDA here: the Triton kernels would run in Triton's interpreter, which executes the "
                      "same code slowly; its timing is not speed, so it is not measured")


def device_kind() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def free_memory(device: str) -> None:
    gc.collect()
    if device == "cuda":
        torch.cuda.empty_cache()


def short_error(e: BaseException, limit: int = 500) -> str:
    lines = str(e).strip().splitlines()
    first = lines[0] if lines else ""
    return (first if isinstance(e, fk.KernelError) and first else f"{type(e).__name__}: {first}")[:limit]


def classify_error(e: BaseException) -> str:
    if isinstance(e, (torch.cuda.OutOfMemoryError, fk.KernelOutOfMemory, MemoryError)):
        return "oom"
    if isinstance(e, (fk.KernelUnavailable, ImportError)):
        return "unavailable"
    return "error"


# ---- one impl -------------------------------------------------------------------------------------------------

def runner(impl: str, x: dict, cfg: dict, blocks: dict):
    """A no-argument function running one of our impls or torch's (not FA4: peers.fa4_runner) on inputs x in cfg's
    mode, which _measure_impl times: fwd -> the output; fwd+bwd -> (out, dq, dk, dv); bwd -> the same, the forward
    run once on the first call."""
    q, k, v, causal = x["q"], x["k"], x["v"], cfg["causal"]
    if cfg["mode"] == "fwd":
        def fwd():
            with torch.no_grad():
                return fk.attention(q, k, v, causal=causal, impl=impl, **blocks)
        return fwd
    # leaves of their own (x's storage): a leaf's AccumulateGrad node keeps the stream it was made on while any graph
    # holds it, so a graph kept elsewhere (another runner's, an earlier output) on the same leaves made a backward
    # capture on a side stream fail (graph_timing.backward_replays)
    def leaves():
        return tuple(t.detach().requires_grad_(True) for t in (q, k, v))

    qkv = leaves()

    def fwd_bwd():
        out = fk.attention(*qkv, causal=causal, impl=impl, **blocks)
        if not out.requires_grad:
            raise fk.KernelUnavailable(f"{impl} has no backward pass yet")
        return (out, *torch.autograd.grad(out, qkv, x["dout"]))
    if cfg["mode"] == "fwd+bwd":
        return fwd_bwd

    saved = {}

    def bwd():                                           # forward once (new leaves each time), then the backward alone
        if "out" not in saved:
            saved["qkv"] = leaves()
            saved["out"] = fk.attention(*saved["qkv"], causal=causal, impl=impl, **blocks)
            if not saved["out"].requires_grad:
                raise fk.KernelUnavailable(f"{impl} has no backward pass yet")
        out = saved["out"]
        return (out, *torch.autograd.grad(out, saved["qkv"], x["dout"], retain_graph=True))
    bwd.saved = saved
    return bwd


def any_runner(impl: str, x: dict, cfg: dict, blocks: dict | None = None):
    """runner's function for one of ours or torch's, peers.fa4_runner's for a peer (PEERS): the call the bench
    times for impl (peers.Unavailable where the peer cannot run here)."""
    return peers.fa4_runner(x, cfg) if impl in PEERS else runner(impl, x, cfg, blocks or {})


def time_calls(fn, device: str, warmup_ms: float, rep_ms: float, min_reps: int, est_ms: float) -> list[float]:
    """Timed runs in ms (each one call of fn)."""
    if device == "cuda":
        from triton.testing import do_bench
        return do_bench(fn, warmup=max(warmup_ms, est_ms), rep=max(rep_ms, (min_reps + 1) * est_ms),
                        return_mode="all")
    t_end = time.perf_counter() + warmup_ms / 1e3
    while time.perf_counter() < t_end:
        fn()
    times, t_stop = [], time.perf_counter() + rep_ms / 1e3
    while len(times) < min_reps or (time.perf_counter() < t_stop and len(times) < 10000):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def quantile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    i = p * (len(xs) - 1)
    lo = int(i)
    return xs[lo] + (xs[min(lo + 1, len(xs) - 1)] - xs[lo]) * (i - lo)


def blank_cell(impl: str, cfg: dict) -> dict:
    """A cell with every field present and nothing measured yet."""
    return dict(impl=impl, **cfg, status="error", message=None, ms=None, ms_p20=None, ms_p80=None, reps=None,
                tflops=None, flops=flops(cfg["n"], cfg["d"], cfg["causal"], cfg["batch"], cfg["heads"], cfg["mode"]),
                peak_extra_bytes=None, ideal_bytes=ideal_bytes(cfg["n"], cfg["d"], cfg["dtype"], cfg["batch"],
                                                               cfg["heads"], cfg["mode"]),
                peak_over_ideal=None, max_abs_err=None, rel_err=None, correct=None,
                speedup_vs_cudnn=None, speedup_vs_flash=None, speedup_vs_naive=None, speedup_vs_fa4=None,
                memory_vs_naive=None,
                graph_ms=None, graph_tflops=None, graph_speedup_vs_cudnn=None, graph_message=GRAPH_SKIPPED_MESSAGE)


def _graph(cell: dict, fn, device: str, rep_ms: float) -> None:
    """Step 4: graph_ms / graph_tflops, or graph_message saying why not. Never raises."""
    if device != "cuda":
        cell["graph_message"] = GRAPH_CPU_MESSAGE
        return
    try:
        with fk.LAUNCH_LOCK:
            times = replay_times(fn, rep_ms)
        ms = statistics.median(times)
        if not ms > 0:
            raise RuntimeError(f"median replay time {ms} ms is not positive")
    except Exception as e:                               # noqa: BLE001 - a failed capture is a recorded fact
        cell.update(graph_ms=None, graph_tflops=None, graph_message="graph capture failed: " + short_error(e, 400))
        try:                                             # a capture that failed midway must not leak into the next
            torch.cuda.synchronize()
        except Exception:                                # noqa: BLE001
            pass
        free_memory(device)                                    # e.g. an OOM inside the capture: give its pool back
    else:
        cell.update(graph_ms=ms, graph_tflops=cell["flops"] / (ms * 1e9), graph_message=None)


def _prepare(impl, x, ref, cfg, device, teaching_blocks=None):
    """Steps 1-2 for one impl: (cell, fn, est_ms), fn None where the cell is already final (unavailable, error)."""
    cell = blank_cell(impl, cfg)
    blocks = {}
    if impl == "teaching" and teaching_blocks:
        blocks = dict(block_m=int(teaching_blocks[0]), block_n=int(teaching_blocks[1]))
        cell.update(blocks)
    if device == "cpu":
        cell["graph_message"] = GRAPH_CPU_MESSAGE
    if device == "cpu" and impl in TRITON_IMPLS:
        cell.update(status="unavailable", message=CPU_TRITON_MESSAGE)
        return cell, None, None
    try:                                                 # FlashAttention-4: its own layout, copied before timing
        fn = any_runner(impl, x, cfg, blocks)
    except peers.Unavailable as e:
        cell.update(status="unavailable", message=str(e))
        return cell, None, None
    try:
        with fk.LAUNCH_LOCK:
            r = fn()                                     # 1. warm-up + correctness
            sync(device)
            if ref is not None:
                max_abs, rel = _errors(r, ref, cfg)
                ok = math.isfinite(max_abs) and math.isfinite(rel)
                cell.update(max_abs_err=max_abs if ok else None, rel_err=rel if ok else None,
                            correct=bool(ok and rel <= REL_TOL[cfg["dtype"]] * GRAD_TOL_FACTOR[cfg["mode"]]))
                if not ok:
                    cell["message"] = "output is not finite (NaN or inf)"
            del r
            if device == "cuda":                         # 2. memory, after warm-up (bwd: forward's state resident)
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                base = torch.cuda.memory_allocated()
            t0 = time.perf_counter()
            r = fn()
            sync(device)
            est_ms = (time.perf_counter() - t0) * 1e3
            if device == "cuda":
                cell["peak_extra_bytes"] = int(torch.cuda.max_memory_allocated() - base)
            del r
    except Exception as e:                               # noqa: BLE001 - every failure becomes a cell
        return _failed(cell, fn, e, device), None, None
    return cell, fn, est_ms


def _failed(cell: dict, fn, e: Exception, device: str) -> dict:
    cell.update(status=classify_error(e), message=short_error(e), ms=None, peak_extra_bytes=None)
    getattr(fn, "saved", {}).clear()                     # bwd mode: drop the forward's graph
    if cell["status"] == "oom":
        free_memory(device)
    return cell


def _finish(cell: dict, fn, times: list[float], device: str, rep_ms: float) -> dict:
    """Steps 3's statistics and 4 for one impl whose timed runs are `times`."""
    ms = statistics.median(times)
    if not ms > 0:                                       # below the timer's resolution: no honest number
        cell.update(status="error", message=f"median time {ms} ms is not positive (timer resolution)")
    else:
        cell.update(status="ok", ms=ms, ms_p20=quantile(times, 0.2), ms_p80=quantile(times, 0.8),
                    reps=len(times), tflops=cell["flops"] / (ms * 1e9))
        if cell["peak_extra_bytes"] is not None:
            cell["peak_over_ideal"] = cell["peak_extra_bytes"] / cell["ideal_bytes"]
        _graph(cell, fn, device, rep_ms)                 # 4. graph replays
    getattr(fn, "saved", {}).clear()                     # bwd mode: drop the forward's graph
    return cell


def _measure_impls(impls, x, ref, cfg, device, warmup_ms, rep_ms, min_reps, teaching_blocks, rounds, done):
    """Each impl's cell. rounds 1: one impl at a time, steps 1-4. rounds R > 1: steps 1-2 for every impl, then
    R rounds of step 3 that visit the impls in turn (each round a full rep_ms budget, times pooled; round r starts
    r impls further on, so none always follows the same one), so a drift of the GPU's clock over the
    configuration's seconds reaches every impl alike; then step 4. done(cell) as each cell is final."""
    for group in ([impl] for impl in impls) if rounds <= 1 else [list(impls)]:   # 1 round: one impl's state at a time
        live = [[*_prepare(impl, x, ref, cfg, device, teaching_blocks), []] for impl in group]
        for r in range(max(rounds, 1) if live else 0):                        # 3. time, interleaved where R > 1
            for entry in live[r % len(live):] + live[:r % len(live)]:
                cell, fn, est_ms, times = entry
                if fn is None:
                    continue
                try:
                    with fk.LAUNCH_LOCK:
                        times += time_calls(fn, device, warmup_ms, rep_ms, min_reps, est_ms)
                except Exception as e:                   # noqa: BLE001
                    _failed(cell, fn, e, device)
                    entry[1] = None
        for cell, fn, _, times in live:
            done(_finish(cell, fn, times, device, rep_ms) if fn is not None else cell)


# ---- configurations and sweeps --------------------------------------------------------------------------------

def add_ratios(cells: list[dict]) -> list[dict]:
    """Fill speedup_vs_cudnn / _flash / _naive (t_base / t) and memory_vs_naive (peak / peak_naive) in place."""
    groups: dict[tuple, dict] = {}
    for c in cells:
        groups.setdefault(config_key(c), {})[c["impl"]] = c
    for group in groups.values():
        for c in group.values():
            for base, key in BASELINES.items():
                b = group.get(base)
                ok = b is not None and b["status"] == "ok" and c["status"] == "ok"
                c[key] = b["ms"] / c["ms"] if ok else None
            nv = group.get("naive")
            ok = (nv is not None and nv["status"] == "ok" and c["status"] == "ok"
                  and c["peak_extra_bytes"] is not None and nv["peak_extra_bytes"])
            c["memory_vs_naive"] = c["peak_extra_bytes"] / nv["peak_extra_bytes"] if ok else None
            cu = group.get("sdpa-cudnn")
            ok = cu is not None and cu.get("graph_ms") is not None and c.get("graph_ms") is not None
            c["graph_speedup_vs_cudnn"] = cu["graph_ms"] / c["graph_ms"] if ok else None
    return cells


def measure_config(impls, n: int, d: int, causal: bool, dtype: str, batch: int, heads: int, mode: str = "fwd", *,
                   warmup_ms: float = 25.0, rep_ms: float = 100.0, min_reps: int = 5, seed: int = 0,
                   check: bool = True, device: str | None = None, progress_callback=None,
                   teaching_blocks: tuple[int, int] | None = None, rounds: int = 1) -> list[dict]:
    """Measure several impls on one configuration (shared inputs); ratios filled. Never raises for a cell.

    progress_callback(done, total, cell) after each impl (total = len(impls)). teaching_blocks =
    (Br, Bc) pins the teaching kernel's tiles (recorded in the cell as block_m, block_n). rounds > 1 times the
    impls in that many interleaved rounds (_measure_impls), every impl's state resident meanwhile.
    """
    device = device or device_kind()
    cfg = dict(n=int(n), d=int(d), causal=bool(causal), dtype=str(dtype), batch=int(batch), heads=int(heads),
               mode=str(mode))
    cells, x, ref = [], None, None
    try:
        with fk.LAUNCH_LOCK:
            x = make_inputs(cfg, seed, device)
    except Exception as e:                               # noqa: BLE001 - inputs alone do not fit
        status, msg = classify_error(e), "inputs: " + short_error(e)
        del e
        free_memory(device)
        for impl in impls:
            cells.append(dict(blank_cell(impl, cfg), status=status, message=msg))
            if progress_callback:
                progress_callback(len(cells), len(impls), cells[-1])
        return add_ratios(cells)
    note = None
    if check:
        try:
            with fk.LAUNCH_LOCK:
                ref = reference(x, cfg)
        except Exception as e:                           # noqa: BLE001 - measure anyway, unchecked
            note = "reference skipped: " + short_error(e)
            del e
            free_memory(device)

    def done(cell):
        if note and cell["message"] is None:
            cell["message"] = note
        cells.append(cell)
        if progress_callback:
            progress_callback(len(cells), len(impls), cell)

    _measure_impls(impls, x, ref, cfg, device, warmup_ms, rep_ms, min_reps, teaching_blocks, int(rounds), done)
    del x, ref
    free_memory(device)
    return add_ratios(cells)


def measure_cell(impl: str, n: int, d: int, causal: bool, dtype: str, batch: int, heads: int, mode: str = "fwd",
                 **opts) -> dict:
    """Measure one impl on one configuration (keyword options as in measure_config)."""
    return measure_config([impl], n, d, causal, dtype, batch, heads, mode, **opts)[0]


# a dataset's provenance.timer, as this module writes it (flashviz.ui.speed says each in the page's language)
TIMER_CUDA = "triton.testing.do_bench median (CUDA events, L2 cleared per run)"
TIMER_GRAPH = "; graph_ms: triton.testing.do_bench_cudagraph median (replays, L2 warm)"
TIMER_CPU = "time.perf_counter median (CPU)"


def new_dataset(spec: SweepSpec, command: str | None = None, device: str | None = None) -> dict:
    device = device or device_kind()
    timer = TIMER_CUDA + TIMER_GRAPH if device == "cuda" else TIMER_CPU
    return dict(schema_version=SCHEMA_VERSION, kind=DATASET_KIND, complete=False, elapsed_s=0.0,
                provenance=provenance.collect(device, command, timer), sweep=spec.to_json(), cells=[])


def run_sweep(spec: SweepSpec, progress_callback=None, command: str | None = None, on_partial=None) -> dict:
    """Run every configuration of `spec`; returns the dataset (see flashviz.bench for the schema).

    progress_callback(done, total, cell) after each cell; on_partial(dataset) after each configuration
    (the command uses it to save as it goes, so a run cut short keeps what it measured).
    """
    device = device_kind()
    data = new_dataset(spec, command, device)
    total, done, t0 = spec.n_cells(), 0, time.perf_counter()

    def tick(_i, _n, cell):
        nonlocal done
        done += 1
        if progress_callback:
            progress_callback(done, total, cell)

    for cfg, impls in spec.cells():
        if spec.budget_s is not None and time.perf_counter() - t0 > spec.budget_s:
            data["stopped"] = f"time budget of {spec.budget_s:g} s reached"
            break
        data["cells"] += measure_config(impls, **cfg, warmup_ms=spec.warmup_ms, rep_ms=spec.rep_ms,
                                        min_reps=spec.min_reps, seed=spec.seed, check=spec.check, device=device,
                                        progress_callback=tick, rounds=spec.rounds)
        data["elapsed_s"] = time.perf_counter() - t0
        if on_partial:
            on_partial(data)
    data["complete"] = "stopped" not in data
    data["elapsed_s"] = time.perf_counter() - t0
    return data
