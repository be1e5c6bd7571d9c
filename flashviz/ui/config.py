"""The shared configuration every page speaks about, and the one query row it describes (pure, no streamlit).

A `Config` is frozen and hashable: pages use it as a cache key. `row_problem(cfg)` turns it into the
row of scores (N,) and values (N, d) the stepper streams; the kernels panel uses the same `inputs(cfg)`.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from flashviz_kernels.rules import as_int

from ..infra.errors import InputError, check_int
from ..engine.online_softmax import apply_mask, make_qkv, parse_positions, parse_scores, row_scores
from ..infra.units import KERNEL_DTYPES

PAGE_MAX_N = 16384                 # documented cap for the pages (the engine allows more)
MAX_D = 256
DTYPES = KERNEL_DTYPES
DTYPE_SHORT = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}


@dataclass(frozen=True)
class Config:
    """One configuration for all pages. Values may be invalid: `check()` says why."""

    n: int = 16                    # sequence length N (keys; also queries)
    d: int = 4                     # head dim
    block_m: int = 4               # Br: query rows per block (2-D pages, kernels)
    block_n: int = 4               # Bc: keys per tile (the stepper's tile size)
    causal: bool = False
    dtype: str = "float32"         # what the kernels compute in; the simulator rounds its inputs to it
    seed: int = 12
    row: int = 15                  # the query row the stepper follows (default: the last, N - 1)
    masked: str = ""               # typed masked key positions, e.g. "0-3, 9"
    scores: str = ""               # typed scores for the row; empty = seeded q·k/sqrt(d)
    guard: bool = True             # guard exp(-inf - -inf); off reproduces the NaN pitfall

    @property
    def tile(self) -> int:
        return self.block_n

    @property
    def typed(self) -> bool:
        return bool(self.scores.strip())

    def check(self) -> None:
        """Raise InputError (a clear English message) if the page cannot use this configuration."""
        for name, label in (("n", "N"), ("d", "head dim d"), ("block_m", "query block Br"),
                            ("block_n", "tile size Bc"), ("seed", "seed"), ("row", "query row")):
            check_int(label, getattr(self, name))
        if not 1 <= self.n <= PAGE_MAX_N:
            raise InputError(key="errors.n_page_cap", hi=PAGE_MAX_N, got=self.n)
        if not 1 <= self.d <= MAX_D:
            raise InputError(key="errors.int_between", name="head dim d", lo=1, hi=MAX_D, got=self.d)
        if self.dtype not in DTYPES:
            raise InputError(key="errors.one_of", name="dtype", choices=", ".join(DTYPES), got=repr(self.dtype))
        if self.block_m < 1:
            raise InputError(key="errors.int_min", name="query block Br", lo=1, got=self.block_m)
        if self.seed < 0:
            raise InputError(key="errors.seed_min", got=self.seed)

    def slug(self) -> str:
        """Short file-name-safe description, e.g. 'N16_d4_Bc4_fp32_seed3_row15' (+ _causal, _typed, _noguard)."""
        parts = [f"N{self.n}", f"d{self.d}", f"Br{self.block_m}", f"Bc{self.block_n}",
                 DTYPE_SHORT.get(self.dtype, str(self.dtype)), f"seed{self.seed}", f"row{self.row}"]
        parts += ["causal"] * self.causal + ["masked"] * bool(self.masked.strip())
        parts += ["typed"] * self.typed + ["noguard"] * (not self.guard)
        return "_".join(parts)

    def to_dict(self) -> dict:
        return asdict(self)


FIELDS = tuple(f.name for f in fields(Config))
DEFAULT = Config()
# The realistic size the traffic, speed, backward and hardware pages open on: a cell of the recorded H200 forward
# and training sweeps (B = 4, H = 32) and of the Nsight HBM recording (B = 1, H = 16), with the FA2 kernels' own
# 128 x 64 tiles (flashviz.engine.tiling.fa2_block_sizes).
KERNEL_DEFAULT = Config(n=4096, d=128, block_m=128, block_n=64, dtype="float16", row=4095)

# Presets write the canonical values. None = keep the current value. Each sets Br too: at the kernel scale (Br = 128)
# a small preset would otherwise keep a Br larger than its N (the blocks page refused it).
# "masked_tile": keys 0-3 masked as padding make the first tile of row 9 fully masked (causal alone never can).
PRESETS: dict[str, dict] = {
    "lesson": dict(n=16, d=4, block_m=4, block_n=4, causal=False, row=15, masked="", scores="", guard=True,
                   seed=DEFAULT.seed),
    "tile1": dict(n=16, d=4, block_m=4, block_n=1, causal=False, row=15, masked="", scores="", guard=True,
                  seed=DEFAULT.seed),
    "masked_tile": dict(n=16, d=4, block_m=4, block_n=4, causal=True, row=9, masked="0-3", scores="", guard=True,
                        seed=DEFAULT.seed),
    "long": dict(n=4096, d=64, block_m=64, block_n=64, causal=False, row=4095, masked="", scores="", guard=True,
                 seed=DEFAULT.seed),
    # a configuration the recorded H200 sweep measured (assets/benchmarks/nvidia-h200-fwd-*.json)
    "h200": dict(n=8192, d=128, block_m=64, block_n=64, causal=False, dtype="float16", row=8191, masked="",
                 scores="", guard=True, seed=DEFAULT.seed),
}


def follow_row(row, old_n, new_n):
    """The query row once N changes from old_n to new_n: it stays where it was while it exists (0 <= row < new_n);
    a row past the new end becomes the new last row (the stepper page says so). Values that are not integers
    stay as they are (Config.check reports them). old_n is kept for the callers' signature."""
    r, new = as_int(row), as_int(new_n)
    if r is None or new is None or new < 1:
        return row
    return new - 1 if r >= new else row


def with_preset(cfg: Config, name: str) -> Config:
    if name not in PRESETS:
        raise InputError(key="errors.unknown_config_preset", got=repr(name))
    return replace(cfg, **PRESETS[name])


# ----------------------------------------------------------------------------- inputs

def round_to_dtype(x: np.ndarray, dtype: str) -> np.ndarray:
    """Round float64 values to the nearest `dtype` value (returned as float64). bfloat16 by bit rounding."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "float16":
        return x.astype(np.float16).astype(np.float64)
    if dtype == "bfloat16":
        u = x.astype(np.float32).view(np.uint32)
        u = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
        return u.view(np.float32).astype(np.float64)      # round to nearest even on the top 16 bits
    return x.astype(np.float32).astype(np.float64)


def inputs(cfg: Config) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeded q, K, V (N, d) rounded to the configured dtype: what a kernel in that dtype reads."""
    cfg.check()
    q, k, v = make_qkv(cfg.n, cfg.d, cfg.seed)
    return tuple(round_to_dtype(a, cfg.dtype) for a in (q, k, v))


def row_problem(cfg: Config) -> tuple[np.ndarray, np.ndarray]:
    """(scores (N,), values (N, d)) for the stepper: the query row's scores, or the typed ones, masked."""
    cfg.check()
    if cfg.typed:
        s = parse_scores(cfg.scores)                      # N comes from what was typed
        n = s.shape[0]
        v = round_to_dtype(make_qkv(n, cfg.d, cfg.seed)[2], cfg.dtype)
    else:
        q, k, v = inputs(cfg)
        n = cfg.n
        if not 0 <= cfg.row < n:
            raise InputError(key="errors.row_range", hi=n - 1, got=cfg.row)
        s = row_scores(q[cfg.row], k)                     # (N,) = K q / sqrt(d)
    masked = parse_positions(cfg.masked, n)
    return apply_mask(s, causal_row=cfg.row if cfg.causal else None, masked=masked), v


def n_steps(n: int, tile: int) -> int:
    """Tc = ceil(N / Bc)."""
    return math.ceil(n / tile)
