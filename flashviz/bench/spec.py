"""What a benchmark sweep is: configurations, presets, FLOP and ideal-memory formulas (no torch).

A configuration is (N, d, causal, dtype, batch, heads, mode); a cell is a configuration plus one impl.
A sweep is one or more grids (Cartesian products); presets name the recorded ones. Shared by the
measuring code (measure.py), the command (__main__.py) and the dataset validator (dataset.py).
"""
from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field

from ..infra.units import ELEM_BYTES

SCHEMA_VERSION = 1
DATASET_KIND = "flashviz-bench"
STATUSES = ("ok", "oom", "unavailable", "error")
MODES = ("fwd", "fwd+bwd", "bwd")          # bwd: the backward pass alone, forward done once
DTYPES = ("float16", "bfloat16", "float32", "float64")
ALL_IMPLS = ("naive", "sdpa", "sdpa-flash", "sdpa-cudnn", "sdpa-efficient", "sdpa-math", "teaching", "fast", "ws",
             "fa4")
PEERS = ("fa4",)                        # not ours, not torch's: flashviz/bench/peers.py (FlashAttention-4)
# ratio columns: speed-up = t_baseline / t_impl
BASELINES = {"sdpa-cudnn": "speedup_vs_cudnn", "sdpa-flash": "speedup_vs_flash", "naive": "speedup_vs_naive",
             "fa4": "speedup_vs_fa4"}
BWD_FLOP_FACTOR = 2.5                   # backward = 2.5 x forward FLOPs, as is usual (FA2 paper)

# ||out - ref64|| / ||ref64|| above this marks a cell wrong (fp32 allows TF32 dots on the GPU).
REL_TOL = {"float16": 5e-3, "bfloat16": 2e-2, "float32": 2e-3, "float64": 1e-9}

# A cell's per-call times whose p20-p80 spread exceeds this share of their median: a per-call ratio with it on
# either side is no steadier than that (marked in docs/BENCHMARKS.md, named on the speed page, each beside the
# CUDA-graph columns, which time the same calls as replays)
SPREAD_NOISY = 0.05

CONFIG_KEYS = ("n", "d", "causal", "dtype", "batch", "heads", "mode")


def flops(n: int, d: int, causal: bool, batch: int, heads: int, mode: str = "fwd") -> float:
    """Forward 4*B*H*N^2*d (two matmuls), halved when causal; bwd x2.5, fwd+bwd x(1 + 2.5)."""
    f = 4.0 * batch * heads * n * n * d
    if causal:
        f /= 2
    return f * {"fwd": 1.0, "bwd": BWD_FLOP_FACTOR, "fwd+bwd": 1.0 + BWD_FLOP_FACTOR}[mode]


def ideal_bytes(n: int, d: int, dtype: str, batch: int, heads: int, mode: str = "fwd") -> int:
    """Least extra memory a flash kernel needs: output + fp32 log-sum-exp (+ dq, dk, dv when training)."""
    out = batch * heads * n * d * ELEM_BYTES[dtype]
    lse = batch * heads * n * 4
    return out + lse + (3 * out if mode in ("fwd+bwd", "bwd") else 0)


def config_key(c: dict) -> tuple:
    return tuple(c[k] for k in CONFIG_KEYS)


@dataclass(frozen=True)
class Grid:
    """One Cartesian product of sweep parameters."""
    n: tuple = (256,)
    d: tuple = (64,)
    causal: tuple = (False, True)
    dtype: tuple = ("float16",)
    batch: tuple = (1,)
    heads: tuple = (4,)
    impls: tuple = ALL_IMPLS
    mode: tuple = ("fwd",)

    def configs(self) -> list[dict]:
        """Configurations in run order: small N first, so a run cut short keeps the cheap cells."""
        out = []
        for n, d, causal, dtype, batch, heads, mode in itertools.product(
                self.n, self.d, self.causal, self.dtype, self.batch, self.heads, self.mode):
            out.append(dict(n=int(n), d=int(d), causal=bool(causal), dtype=dtype, batch=int(batch),
                            heads=int(heads), mode=mode))
        return out

    def to_json(self) -> dict:
        return {k: list(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class SweepSpec:
    """Everything a sweep needs; `to_json` goes into the dataset's "sweep" field."""
    grids: tuple = field(default_factory=lambda: (Grid(),))
    warmup_ms: float = 25.0         # do_bench warm-up budget (ms); scaled up for slow cells, see measure.py
    rep_ms: float = 100.0           # do_bench repetition budget (ms)
    min_reps: int = 5               # at least this many timed runs, however slow the cell
    rounds: int = 1                 # > 1: each configuration's impls timed in that many interleaved rounds
    seed: int = 0
    check: bool = True              # compare against a float64 reference on a few rows
    budget_s: float | None = None   # stop starting new configurations after this many seconds
    preset: str | None = None

    def cells(self) -> list[tuple[dict, tuple]]:
        """(configuration, impls) pairs, duplicates merged, in run order."""
        seen: dict[tuple, tuple[dict, list]] = {}
        for g in self.grids:
            for c in g.configs():
                cfg, impls = seen.setdefault(config_key(c), (c, []))
                impls.extend(i for i in g.impls if i not in impls)
        return [(c, tuple(i)) for c, i in seen.values()]

    def n_cells(self) -> int:
        return sum(len(i) for _, i in self.cells())

    def to_json(self) -> dict:
        return dict(grids=[g.to_json() for g in self.grids], warmup_ms=self.warmup_ms, rep_ms=self.rep_ms,
                    min_reps=self.min_reps, rounds=self.rounds, seed=self.seed, check=self.check,
                    budget_s=self.budget_s, preset=self.preset)


H200_IMPLS = ALL_IMPLS          # ws and fa4 included: where they cannot run, a cell says "unavailable" and why
PRESETS = {
    # The recorded H200 dataset: fp16 full sweep plus a smaller bf16 subset (one file).
    "h200": dict(grids=(
        Grid(n=(1024, 2048, 4096, 8192, 16384), d=(64, 128), causal=(False, True), dtype=("float16",),
             batch=(4,), heads=(32,), impls=H200_IMPLS),
        Grid(n=(4096, 16384), d=(64, 128), causal=(False, True), dtype=("bfloat16",), batch=(4,), heads=(32,),
             impls=("naive", "sdpa-flash", "sdpa-cudnn", "teaching", "fast")),
    ), warmup_ms=25.0, rep_ms=100.0),
    # Training side: the backward alone and a whole training step, fp16, one file.
    "h200-train": dict(grids=(
        Grid(n=(1024, 4096, 8192, 16384), d=(64, 128), causal=(False, True), dtype=("float16",), batch=(4,),
             heads=(32,), impls=("naive", "sdpa-flash", "sdpa-cudnn", "teaching", "fast", "fa4"),
             mode=("bwd", "fwd+bwd")),
    ), warmup_ms=25.0, rep_ms=100.0),
    # Level with FlashAttention-4: the cells its issue names, forward and backward alone, cuDNN and FA4 beside ours,
    # in 3 interleaved rounds: timed one after another, fast and ws (one kernel at N = 16384, d = 128) differed by
    # 3-9 % per call while their graph replays agreed (the six files up to nvidia-h100-fa4-2026-12-06.json; the
    # runs in rounds since: tests/bench/test_fa4_preset_rounds.py)
    "h200-fa4": dict(grids=(
        Grid(n=(4096, 16384), d=(64, 128), causal=(False, True), dtype=("float16",), batch=(4,), heads=(32,),
             impls=("sdpa-cudnn", "fast", "ws", "fa4"), mode=("fwd", "bwd")),
    ), warmup_ms=25.0, rep_ms=100.0, rounds=3),
    # What a triton version gives (kernels/gates.py's evidence beside its suite summary): the Hopper kernels
    # against cuDNN, forward and backward alone, at realistic sizes.
    "h200-versions": dict(grids=(
        Grid(n=(4096, 8192), d=(64, 128), causal=(False, True), dtype=("float16",), batch=(4,), heads=(32,),
             impls=("sdpa-cudnn", "fast", "ws"), mode=("fwd", "bwd")),
    ), warmup_ms=25.0, rep_ms=100.0),
    # A quick GPU look (< 1 min incl. compiles).
    "gpu-small": dict(grids=(
        Grid(n=(1024, 4096), d=(64, 128), causal=(False, True), dtype=("float16",), batch=(4,), heads=(32,),
             impls=H200_IMPLS),
    ), warmup_ms=10.0, rep_ms=50.0),
    # Tiny: CI on CPU (naive/sdpa timed, Triton impls recorded as unavailable) or a GPU sanity check.
    "smoke": dict(grids=(
        Grid(n=(64, 128), d=(32,), causal=(False, True), dtype=("float32",), batch=(1,), heads=(2,),
             impls=("naive", "sdpa", "sdpa-math", "sdpa-cudnn", "teaching", "fast")),
    ), warmup_ms=2.0, rep_ms=10.0),
    # The default on a machine without CUDA: small enough for seconds.
    "cpu": dict(grids=(
        Grid(n=(256, 512, 1024), d=(64,), causal=(False, True), dtype=("float32",), batch=(1,), heads=(4,),
             impls=("naive", "sdpa", "sdpa-math")),
    ), warmup_ms=10.0, rep_ms=50.0),
}


def preset_spec(name: str, **overrides) -> SweepSpec:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
    kw = dict(PRESETS[name], preset=name)
    kw.update({k: v for k, v in overrides.items() if v is not None})
    return SweepSpec(**kw)
