"""flashviz.bench: the measurement room. Time, TFLOP/s, peak memory, OOM, recorded with provenance.

Imports no streamlit and no plotly (the GPU machine has neither). `flashviz.bench.dataset` and
`flashviz.bench.spec` import no torch either; the measuring functions load torch and the kernels lazily.

API (what the "Speed and memory" page calls)
    measure_cell(impl, n, d, causal, dtype, batch, heads, mode="fwd", *, warmup_ms=25, rep_ms=100,
                 min_reps=5, seed=0, check=True) -> cell
    measure_config(impls, n, d, causal, dtype, batch, heads, mode="fwd", *, ..., progress_callback=None)
        -> [cell]  (shared inputs, ratio fields filled)
    run_sweep(spec: SweepSpec, progress_callback=None, command=None, on_partial=None) -> dataset
        progress_callback(done, total, cell); SweepSpec / Grid / preset_spec("smoke") from .spec
    load_dataset(path_or_bytes) -> dataset  (validates; DatasetError otherwise), validate_dataset(obj)
    list_datasets(directory=None) -> [Path]; nearest_config / nearest_cell / cells_for; tidy_rows;
    provenance_fields(dataset) -> [{key, label, value}]; dataset_label(dataset)
    cpu_memory.run_exercise(ns=(512, 2048, 8192), ...) -> rows (lesson exercise 3, numpy + tracemalloc)
    live.measure_live / live.sweep_live: what the pages' "Run on GPU" calls (`python -m flashviz.bench.live`);
    ring_bench (+ ring_timing): `torchrun --nproc-per-node W -m flashviz.bench.ring_bench`, ring attention on W GPUs
All GPU work holds flashviz_kernels.LAUNCH_LOCK, so concurrent sessions queue instead of disturbing
each other's timings and peak-memory counters.

Dataset JSON, schema_version 1
    {"schema_version": 1, "kind": "flashviz-bench", "complete": bool, "elapsed_s": float,
     "stopped": str (only when a --budget-s cut the run short),
     "provenance": {"device": "cuda"|"cpu", "device_name", "sm_count", "total_memory_bytes",
                    "compute_capability", "driver_version", "cuda_version", "cudnn_version", "torch", "triton",
                    "numpy", "python", "platform" (no hostname), "created_utc" (ISO), "git_commit",
                    "git_dirty" (bool|null), "source_sha256" (optional: provenance.source_digest of the code that
                    ran), "command" (re-runnable), "timer", "cpu_threads", "flashviz"},
     "sweep": {"grids": [{"n": [...], "d": [...], "causal": [...], "dtype": [...], "batch": [...],
                          "heads": [...], "impls": [...], "mode": [...]}],
               "warmup_ms", "rep_ms", "min_reps", "rounds" (optional, interleaved rounds), "seed", "check",
               "budget_s", "preset"},
     "cells": [{"impl", "n", "d", "causal", "dtype", "batch", "heads", "mode": "fwd"|"fwd+bwd"|"bwd" (bwd: backward alone),
                "status": "ok"|"oom"|"unavailable"|"error", "message": str|null,
                "ms" (median), "ms_p20", "ms_p80", "reps", "tflops" = flops / ms / 1e9,
                "flops" = 4*B*H*N^2*d (halved when causal; x 2.5 for bwd, x (1 + 2.5) for fwd+bwd),
                "peak_extra_bytes" (null on CPU), "ideal_bytes" = B*H*N*d*elem + B*H*N*4 (+ 3*B*H*N*d*elem
                for the gradients in fwd+bwd), "peak_over_ideal",
                "max_abs_err", "rel_err" (vs float64 on 64 rows of every (b, h); fwd+bwd also checks the
                gradients of two (b, h) slices), "correct" (rel_err <= spec.REL_TOL[dtype], x4 in fwd+bwd),
                "speedup_vs_cudnn" = t_cudnn / t, "speedup_vs_flash" (sdpa-flash), "speedup_vs_naive",
                "memory_vs_naive" = peak / peak_naive,
                "graph_ms" (median of CUDA-graph replays: the call captured once in a torch.cuda.CUDAGraph after
                warm-up, timed by triton.testing.do_bench_cudagraph; GPU time without the host's launch cost,
                back-to-back calls with L2 warm), "graph_tflops" = flops / graph_ms / 1e9,
                "graph_speedup_vs_cudnn" = graph_ms of sdpa-cudnn / graph_ms, "graph_message" (why graph_ms is
                null: no GPU, the capture failed, or the per-call run failed)}]}
    Numbers are finite (null where unmeasured); ms and tflops are null unless status is "ok". The graph_*
    fields are optional: files recorded before them stay valid. Where ms and graph_ms differ much (small N),
    the call is launch-bound: ms is what a Python caller sees per call, graph_ms what the kernel costs.

Reproducing the recorded H200 dataset (run from the repository root, on the GPU machine)
    python -m flashviz.bench --preset h200 --budget-s 480 --quiet --out assets/benchmarks/nvidia-h200.json
The preset is fp16, N in {1024, 2048, 4096, 8192, 16384}, d in {64, 128}, causal on and off, B=4, H=32,
every impl, plus bf16 at N in {4096, 16384} (naive, sdpa-flash, sdpa-cudnn, teaching, fast): 200 cells,
about 3 minutes on an H200 (do_bench warm-up 25 ms, rep 100 ms, at least 5 timed runs per cell; the
file is rewritten after each configuration, --budget-s stops cleanly before a 10-minute limit). Where the checkout
has no .git or a stale one, pass the commit: FLASHVIZ_GIT_COMMIT=$(git rev-parse HEAD) FLASHVIZ_GIT_DIRTY=0 python -m
flashviz.bench ...; the recorded source_sha256 equals `python -m flashviz.bench.provenance` at that commit.
A quick look: `--preset gpu-small`; CI on CPU: `--preset smoke`.
Measured HBM bytes: `--preset h200-hbm` runs flashviz.bench.hbm_probe under Nsight Compute (`ncu` on PATH)
and writes a "flashviz-hbm" dataset to assets/hbm/ (schema and loader: flashviz/bench/hbm_dataset.py).
Attention variants: `--preset h200-variants` (B=4, H=32, d=128, fp16, N in {4096, 16384}; dense-causal, window 1024,
softcap 50, ALiBi, GQA H_kv=8, packed documents, all causal) times ours against torch.compile(flex_attention) and SDPA
and writes a "flashviz-variants" dataset to assets/benchmarks/variants/ (flashviz/bench/variants_bench.py; schema and
loader: variants_dataset.py); `--preset cpu-variants` is its tiny CPU form for tests.
"""
from .spec import SCHEMA_VERSION, Grid, SweepSpec, flops, ideal_bytes, preset_spec  # noqa: F401 (no torch)
from .dataset import (cells_for, dataset_label, list_datasets, load_dataset, nearest_cell,  # noqa: F401
                      nearest_config, parse_dataset, provenance_fields, tidy_rows, validate_dataset)

_LAZY = {"measure_cell", "measure_config", "run_sweep", "add_ratios", "device_kind"}


def __getattr__(name):                                   # torch + kernels load on first use only
    if name in _LAZY:
        from . import measure
        return getattr(measure, name)
    raise AttributeError(f"module 'flashviz.bench' has no attribute {name!r}")
