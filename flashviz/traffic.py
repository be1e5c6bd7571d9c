"""HBM traffic totals: standard attention, closed forms, the Θ expressions, sweeps over M and N (numpy, no UI).

Builds on flashviz.tiling (symbols glossed there: N, d, M, Br, Bc, Tr, Tc). Counts are elements moved
between HBM and SRAM; IOCounts also gives bytes.

How the exact counts relate to the Θ numbers of Theorem 2 (the seed's example N = 1024, d = 64,
M = 100 KB = 25,600 fp32 elements -> Bc = 100, Br = 64, Tc = 11, Tr = 16):
  standard  Θ(Nd + N^2) = 1,114,112;  exact 4(N^2 + Nd) = 4,456,448 = 4.0 x Θ.
  flash     Θ(N^2 d^2 / M) = 167,772;  FA1's leading term is 3 Tc N d (read Q_i, read O_i, write O_i on
            every pass) with Tc ≈ 4Nd/M, i.e. ≈ 12 N^2 d^2 / M; with ceil(N/Bc) = 11 instead of 10.24 and
            the K, V, l, m and initialisation terms, exact FA1 = 2,406,400 ≈ 14.3 x Θ.
            FA2 streams K, V Tr times: 2 N^2 d / Br; with Br = min(M/4d, d) this is 8 N^2 d^2 / M only while
            M < 4 d^2; here Br = d, so exact FA2 = 2 N^2 + 2Nd + N = 2,229,248 ≈ 13.3 x Θ.
  So the Θ ratio 6.6x drops constants of 4 vs ~12-14; exact counts at this M give ~1.9x (FA1) and ~2.0x
  (FA2). The saving grows with M (fewer passes) and with N (standard is quadratic with constant 4).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError, check_int
from .tiling import (MAX_D, MAX_N, ORDERS, SEED_EXAMPLE, IOCounts, Schedule, TilingConfig, make_counts, make_config)


def standard_counts(n: int, d: int, *, elem_bytes: int = 4) -> IOCounts:
    """Algorithm 0: read Q, K, write S; read S, write P; read P, V, write O (S, P are N x N)."""
    n, d = check_int("N", n, 1, MAX_N), check_int("head dim d", d, 1, MAX_D)
    nd, nn = n * d, n * n
    return make_counts({"Q": nd, "K": nd, "S": nn, "P": nn, "V": nd}, {"S": nn, "P": nn, "O": nd},
                   elem_bytes, 4)


def closed_form(cfg: TilingConfig, order: str) -> IOCounts:
    """Totals by formula: any N when not causal; causal only with Br = Bc dividing N (T = N / B blocks)."""
    n, d, tr, tc = cfg.n, cfg.d, cfg.tr, cfg.tc
    if cfg.causal:
        if cfg.br != cfg.bc or n % cfg.br:
            raise InputError("the causal closed form needs Br = Bc dividing N; use Schedule.totals()")
        passes = n * (tr + 1) // 2            # sum over the T block columns/rows of the rows visited
    if order == "fa1":
        q = passes if cfg.causal else tc * n  # Q/O/l/m rows read over all inner steps
        reads = {"Q": q * d, "O": q * d, "l": q, "m": q, "K": n * d, "V": n * d}
        writes = {"O": (n + q) * d, "l": n + q, "m": n + q}
    elif order == "fa2":
        kv = passes if cfg.causal else tr * n
        reads = {"Q": n * d, "K": kv * d, "V": kv * d}
        writes = {"O": n * d, "L": n}
    else:
        raise InputError(f"loop order must be one of {ORDERS}, got {order!r}")
    return make_counts(reads, writes, cfg.elem_bytes, cfg.stats_bytes)


def theta_standard(n, d):
    """Θ(Nd + N^2) of standard attention with constant 1 (as the seed computes it)."""
    n = np.asarray(n, dtype=np.float64)
    return n * d + n * n


def theta_flash(n, d, sram_elems):
    """Θ(N^2 d^2 / M) of FlashAttention with constant 1, M in elements (vectorised)."""
    n, m = np.asarray(n, dtype=np.float64), np.asarray(sram_elems, dtype=np.float64)
    return n * n * d * d / m


@dataclass(frozen=True)
class Sweep:
    """Exact totals (elements and bytes) of standard, FA1 and FA2 over M or over N, with the Θ curves."""

    x_name: str                 # "M" (x in bytes) or "N"
    x: np.ndarray
    br: np.ndarray
    bc: np.ndarray
    elements: dict              # "standard" / "fa1" / "fa2" -> (len(x),) int64
    bytes: dict
    theta_standard: np.ndarray
    theta_flash: np.ndarray     # NaN where M is not given (pinned blocks)
    d: int
    elem_bytes: int
    causal: bool
    n: int | None = None            # the fixed N of a sweep over M
    sram_bytes: int | None = None   # the fixed M (bytes) of a sweep over N, if the blocks came from M


def _sweep(x_name, x, cfgs, causal, n=None, sram_bytes=None) -> Sweep:
    el = {k: [] for k in ("standard", "fa1", "fa2")}
    by = {k: [] for k in ("standard", "fa1", "fa2")}
    for c in cfgs:
        std = standard_counts(c.n, c.d, elem_bytes=c.elem_bytes)
        el["standard"].append(std.total)
        by["standard"].append(std.total_bytes)
        for order in ORDERS:
            tot = Schedule(c, order).totals()
            el[order].append(tot.total)
            by[order].append(tot.total_bytes)
    c0 = cfgs[0]
    ns = np.array([c.n for c in cfgs], dtype=np.float64)
    ms = np.array([np.nan if c.sram_elems is None else c.sram_elems for c in cfgs])
    return Sweep(x_name, np.asarray(x), np.array([c.br for c in cfgs]), np.array([c.bc for c in cfgs]),
                 {k: np.array(v, np.int64) for k, v in el.items()},
                 {k: np.array(v, np.int64) for k, v in by.items()},
                 theta_standard(ns, c0.d), theta_flash(ns, c0.d, ms), c0.d, c0.elem_bytes, bool(causal),
                 n, sram_bytes)


def sweep_sram(n: int, d: int, sram_bytes_values, *, elem_bytes: int = 4, causal: bool = False) -> Sweep:
    """HBM accesses vs SRAM size M (bytes), blocks from the paper's rule at each M."""
    xs = [check_int("SRAM size (bytes)", x, 1) for x in np.atleast_1d(sram_bytes_values)]
    if not xs:
        raise InputError("give at least one SRAM size")
    cfgs = [make_config(n, d, sram_bytes=x, elem_bytes=elem_bytes, causal=causal) for x in xs]
    return _sweep("M", np.array(xs, np.int64), cfgs, causal, n=cfgs[0].n)


def sweep_n(n_values, d: int, *, sram_bytes: int | None = None, br: int | None = None, bc: int | None = None,
            elem_bytes: int = 4, causal: bool = False) -> Sweep:
    """HBM accesses vs N at a fixed M (bytes) or fixed pinned Br, Bc (each clamped to N)."""
    xs = [check_int("N", x, 1, MAX_N) for x in np.atleast_1d(n_values)]
    if not xs:
        raise InputError("give at least one sequence length")
    if sram_bytes is not None:
        cfgs = [make_config(x, d, sram_bytes=sram_bytes, elem_bytes=elem_bytes, causal=causal) for x in xs]
    else:
        if br is None or bc is None:
            raise InputError("give the SRAM size M or both block sizes Br and Bc")
        br, bc = check_int("block size Br", br, 1), check_int("block size Bc", bc, 1)
        cfgs = [make_config(x, d, br=min(br, x), bc=min(bc, x), elem_bytes=elem_bytes, causal=causal) for x in xs]
    return _sweep("N", np.array(xs, np.int64), cfgs, causal, sram_bytes=sram_bytes)


def seed_example() -> dict:
    """The seed's Theorem 2 example: Θ numbers and our exact counts (elements) for standard, FA1, FA2."""
    e = SEED_EXAMPLE
    cfg = make_config(e["n"], e["d"], sram_bytes=e["sram_bytes"], elem_bytes=e["elem_bytes"])
    m = cfg.sram_elems
    return {"config": cfg, "sram_elems": m,
            "theta_standard": float(theta_standard(e["n"], e["d"])),
            "theta_flash": float(theta_flash(e["n"], e["d"], m)),
            "standard": standard_counts(e["n"], e["d"], elem_bytes=e["elem_bytes"]).total,
            "fa1": Schedule(cfg, "fa1").totals().total,
            "fa2": Schedule(cfg, "fa2").totals().total}
