"""Rules the kernels and the app both follow, in plain Python: importing this module loads neither torch nor
triton, so the numpy engine, the dataset validator and the pages use the very same rules as the kernels.

    as_int(x)                        an integral number as int, else None (bools are not sizes)
    check_int(name, x, lo=None, hi=None, error=ValueError)   as_int within bounds, or `error` saying why
    tile_problem(x, compiled=..., any_size=...)           why x is not a tile the kernels take, or None
    is_gpu_tile(x) / nearest_gpu_tile(x)                 the compiled kernels' tiles: powers of two, 16..256
    next_pow2(x)
"""
from __future__ import annotations

import math
import numbers

MAX_TILE = 256          # largest Br or Bc: a bigger tile's registers and shared memory do not fit one program
MIN_GPU_TILE = 16       # compiled tl.dot needs at least 16 in each dimension (the interpreter takes less)


def as_int(x) -> int | None:
    """x as a Python int if it is an integral number (int, numpy integer, any numbers.Integral), else None.
    True and False are integral to Python but never a size here, so they are None too."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        return None
    return int(x)


def check_int(name: str, x, lo: int | None = None, hi: int | None = None, *,
              error: type[Exception] = ValueError) -> int:
    """as_int(x) within lo..hi (a bound that is None is no bound); otherwise raise `error` naming `name`."""
    v = as_int(x)
    if v is None:
        raise error(f"{name} must be an integer, got {'nothing' if x is None else repr(x)}")
    if lo is not None and hi is not None and not lo <= v <= hi:
        raise error(f"{name} must be in {lo}..{hi}, got {v}")
    if lo is not None and v < lo:
        raise error(f"{name} must be at least {lo}, got {v}")
    if hi is not None and v > hi:
        raise error(f"{name} must be at most {hi}, got {v}")
    return v


def next_pow2(x: int) -> int:
    """The smallest power of two >= x (1 for x <= 1)."""
    return 1 << max(0, int(x) - 1).bit_length()


def tile_problem(x: int, *, compiled: bool, any_size: bool = False) -> str | None:
    """Why the integer x (already in 1..MAX_TILE) cannot be a tile, or None. Compiled code needs powers of two
    of at least MIN_GPU_TILE; the interpreter takes smaller ones, and any size at all when the kernel pads its
    lanes to a power of two (any_size: the teaching kernel)."""
    pow2 = x & (x - 1) == 0
    if compiled and (x < MIN_GPU_TILE or not pow2):
        return f"on a GPU it must be a power of two >= {MIN_GPU_TILE} (tl.dot needs {MIN_GPU_TILE})"
    if not any_size and not pow2:
        return f"this kernel needs a power of two in 1..{MAX_TILE}"
    return None


def is_gpu_tile(x) -> bool:
    """True if x is a tile the compiled kernels take: a power of two in MIN_GPU_TILE..MAX_TILE."""
    v = as_int(x)
    return v is not None and 1 <= v <= MAX_TILE and tile_problem(v, compiled=True) is None


def nearest_gpu_tile(x: int) -> int:
    """The compiled kernels' tile nearest to x on a log scale."""
    return min(MAX_TILE, max(MIN_GPU_TILE, 1 << max(0, round(math.log2(max(x, 1))))))
