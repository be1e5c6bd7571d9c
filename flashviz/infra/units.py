"""Sizes and how they are written, one source for the engines, the measurement and the pages (plain Python).

    ELEM_BYTES["float16"] -> 2       bytes per element of a dtype name
    KERNEL_DTYPES                    the dtypes the Triton kernels (and so the pages) compute in
    fmt_bytes(3 * 2**20) -> "3.00 MiB"
"""
from __future__ import annotations

import math

ELEM_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}
KERNEL_DTYPES = ("float32", "float16", "bfloat16")


def fmt_bytes(b: float) -> str:
    """Bytes with a binary prefix and two decimals ("1.50 KiB"), plain below 1 KiB ("512 B"), "—" if not finite."""
    if not math.isfinite(b):
        return "—"
    for div, unit in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= div:
            return f"{b / div:.2f} {unit}"
    return f"{b:.0f} B"
