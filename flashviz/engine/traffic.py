"""HBM traffic totals: standard attention, closed forms, the Θ expressions, sweeps over M and N (numpy, no UI).

Builds on flashviz.engine.tiling (symbols glossed there: N, d, M, Br, Bc, Tr, Tc). Counts are elements moved
between HBM and SRAM; IOCounts also gives bytes.

How the exact counts relate to the Θ numbers of Theorem 2, on the worked example N = 1024, d = 64,
M = 100 KiB = 25,600 fp32 elements -> (paper's rule) Bc = 100, Br = 64, Tc = 11, Tr = 16:
  standard  Θ(Nd + N^2) = 1,114,112;  exact 4(N^2 + Nd) = 4,456,448 = 4.0 x Θ.
  flash     Θ(N^2 d^2 / M) = 167,772;  FA1's leading term is 3 Tc N d (read Q_i, read O_i, write O_i on
            every pass) with Tc ≈ 4Nd/M, i.e. ≈ 12 N^2 d^2 / M; with ceil(N/Bc) = 11 instead of 10.24 and
            the K, V, l, m and initialisation terms, exact FA1 = 2,406,400 ≈ 14.3 x Θ.
            FA2 streams K, V Tr times: 2 N^2 d / Br with the kernel's own Br (128 here), independent of M.
The ratio standard ÷ flash does NOT keep growing with N: with blocks fixed, both sides are quadratic in N,
so it levels off (ratio_limits):
  FA1: 4(N + d) / (3d + 2 + Tc(3d + 4))  ->  4 Bc / (3d + 4)  ≈ M / (3 d^2)     (Bc = M/4d)
  FA2: 4(N + d) / (2d + 1 + 2 Tr d)      ->  2 Br / d
  Θ with constant 1: (Nd + N^2) M / (N^2 d^2) -> M / d^2
The constants (4 for standard, ~12 for FA1) are why the exact plateau is about a third of M/d^2. At fixed N
the FA1 ratio grows with M (fewer passes) until M = 4Nd, where one block holds all of K and V (Tc = 1) and
more SRAM changes nothing; Theorem 2's Θ is stated for d <= M <= Nd.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..infra.errors import InputError, check_int
from .tiling import (MAX_D, MAX_N, ORDERS, SEED_EXAMPLE, IOCounts, Schedule, TilingConfig, block_sizes,
                     config_for_order, fa2_block_sizes, make_config, make_counts)


# The paper's own measurement (Dao et al. 2022, Figure 2, left): attention in GPT-2 medium (N = 1024, d = 64,
# 16 heads, batch 64) on an A100, forward + backward: HBM reads + writes in GB, standard vs FlashAttention.
PAPER_FIG2 = {"standard_gb": 40.3, "flash_gb": 4.4}


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
            raise InputError(key="errors.causal_closed_form")
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
        raise InputError(key="errors.one_of", name="loop order", choices=", ".join(ORDERS), got=repr(order))
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
    br: np.ndarray              # Algorithm 1's blocks at each x
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
    fa2_br: np.ndarray | None = None    # the FA2 order's blocks at each x (its own tiles when from M)
    fa2_bc: np.ndarray | None = None

    def ratio(self, order: str) -> np.ndarray:
        """standard ÷ flash (elements) at each x."""
        return self.elements["standard"] / self.elements[order]

    @property
    def theta_ratio(self) -> np.ndarray:
        """Θ(Nd + N^2) ÷ Θ(N^2 d^2 / M), both with constant 1 (NaN without M)."""
        return self.theta_standard / self.theta_flash


def _sweep(x_name, x, cfgs, causal, n=None, sram_bytes=None) -> Sweep:
    el = {k: [] for k in ("standard", "fa1", "fa2")}
    by = {k: [] for k in ("standard", "fa1", "fa2")}
    fa2 = [config_for_order(c, "fa2") for c in cfgs]
    for c, c2 in zip(cfgs, fa2):
        std = standard_counts(c.n, c.d, elem_bytes=c.elem_bytes)
        el["standard"].append(std.total)
        by["standard"].append(std.total_bytes)
        for order, oc in (("fa1", config_for_order(c, "fa1")), ("fa2", c2)):
            tot = Schedule(oc, order).totals()
            el[order].append(tot.total)
            by[order].append(tot.total_bytes)
    c0 = cfgs[0]
    ns = np.array([c.n for c in cfgs], dtype=np.float64)
    ms = np.array([np.nan if c.sram_elems is None else c.sram_elems for c in cfgs])
    return Sweep(x_name, np.asarray(x), np.array([c.br for c in cfgs]), np.array([c.bc for c in cfgs]),
                 {k: np.array(v, np.int64) for k, v in el.items()},
                 {k: np.array(v, np.int64) for k, v in by.items()},
                 theta_standard(ns, c0.d), theta_flash(ns, c0.d, ms), c0.d, c0.elem_bytes, bool(causal),
                 n, sram_bytes, np.array([c.br for c in fa2]), np.array([c.bc for c in fa2]))


def sweep_sram(n: int, d: int, sram_bytes_values, *, elem_bytes: int = 4, causal: bool = False) -> Sweep:
    """HBM accesses vs SRAM size M (bytes), blocks from the paper's rule at each M."""
    xs = [check_int("SRAM size (bytes)", x, 1) for x in np.atleast_1d(sram_bytes_values)]
    if not xs:
        raise InputError(key="errors.give_one", what="SRAM size")
    cfgs = [make_config(n, d, sram_bytes=x, elem_bytes=elem_bytes, causal=causal) for x in xs]
    return _sweep("M", np.array(xs, np.int64), cfgs, causal, n=cfgs[0].n)


def sweep_n(n_values, d: int, *, sram_bytes: int | None = None, br: int | None = None, bc: int | None = None,
            elem_bytes: int = 4, causal: bool = False) -> Sweep:
    """HBM accesses vs N at a fixed M (bytes) or fixed pinned Br, Bc (each clamped to N)."""
    xs = [check_int("N", x, 1, MAX_N) for x in np.atleast_1d(n_values)]
    if not xs:
        raise InputError(key="errors.give_one", what="sequence length")
    if sram_bytes is not None:
        cfgs = [make_config(x, d, sram_bytes=sram_bytes, elem_bytes=elem_bytes, causal=causal) for x in xs]
    else:
        if br is None or bc is None:
            raise InputError(key="errors.m_or_blocks")
        br, bc = check_int("block size Br", br, 1), check_int("block size Bc", bc, 1)
        cfgs = [make_config(x, d, br=min(br, x), bc=min(bc, x), elem_bytes=elem_bytes, causal=causal) for x in xs]
    return _sweep("N", np.array(xs, np.int64), cfgs, causal, sram_bytes=sram_bytes)


def ratio_limits(d: int, *, sram_elems: int | None = None, br: int | None = None, bc: int | None = None) -> dict:
    """What standard ÷ flash tends to as N grows with the blocks fixed (non-causal, elements).

    With M: Algorithm 1's blocks from the paper's rule, the FA2 order's from the kernel (as the sweeps use
    them); else the pinned Br, Bc for both. Returns {"fa1": 4 Bc / (3d + 4), "fa2": 2 Br / d,
    "theta": M / d^2 (NaN without M), "fa1_blocks": (Br, Bc), "fa2_blocks": (Br, Bc)}.
    """
    d = check_int("head dim d", d, 1, MAX_D)
    if sram_elems is not None:
        m = check_int("SRAM size M (elements)", sram_elems, 1)
        b1, b2, theta = block_sizes(d, m), fa2_block_sizes(d), m / (d * d)
    else:
        if br is None or bc is None:
            raise InputError(key="errors.m_or_blocks")
        b1 = b2 = (check_int("block size Br", br, 1), check_int("block size Bc", bc, 1))
        theta = float("nan")
    return {"fa1": 4 * b1[1] / (3 * d + 4), "fa2": 2 * b2[0] / d, "theta": theta,
            "fa1_blocks": b1, "fa2_blocks": b2}


def seed_example() -> dict:
    """The worked example of Theorem 2: Θ numbers and our exact counts (elements) for standard, FA1 (paper's
    blocks) and the FA2 order (the kernel's tiles), and what the ratio tends to as N grows at this M."""
    e = SEED_EXAMPLE
    cfg = make_config(e["n"], e["d"], sram_bytes=e["sram_bytes"], elem_bytes=e["elem_bytes"])
    cfg2 = config_for_order(cfg, "fa2")
    m = cfg.sram_elems
    return {"config": cfg, "fa2_config": cfg2, "sram_elems": m,
            "theta_standard": float(theta_standard(e["n"], e["d"])),
            "theta_flash": float(theta_flash(e["n"], e["d"], m)),
            "standard": standard_counts(e["n"], e["d"], elem_bytes=e["elem_bytes"]).total,
            "fa1": Schedule(cfg, "fa1").totals().total,
            "fa2": Schedule(cfg2, "fa2").totals().total,
            "limits": ratio_limits(e["d"], sram_elems=m)}
