"""The ws backward's launch switches (kernels/ws_bwd.py re-exports every name here): how dQ leaves (DQ_MODES), how
P^T's exponentials issue (EXP_MODES), how masked blocks zero P^T (MASK_MODES), where the next query block's S^T is
issued (NEXT_MODES), whether the accumulators start from lse and delta (STATS_ACC, DP_ZERO), and the table's
per-d early_dq / dq_first / prefetch; each function turns a launch's asked-for switch into the kernel's constexpr,
with the version gates and environment overrides the timings behind them call for. No Gluon, no torch."""
from __future__ import annotations

from . import backward_table, ws
from .errors import KernelInputError
from .ws_switches import env_switch

# dq_mode -> the kernel's DQ_MODE (kernels/ws_bwd.py's and kernels/_ws_bwd_gluon.py's docstrings say what each does):
# "split-scalar" is "split" with scalar atomics (to time the pairs' worth); "tma3" is "tma2" with two shared buffers
# per consumer for the dQ piece (its store waits for the reduce-add two blocks back); "frag" takes d 128, block_m 64
# only, "rows" and "rows-frag" block_m 128 (d 64 for "rows-frag")
DQ_MODES = {"split-scalar": 1, "split": 2, "tma": 3, "tma2": 4, "tma3": 5, "rows": 6, "frag": 7, "rows-frag": 8}
TMA_MODES = ("tma", "tma2", "tma3", "rows", "frag", "rows-frag")
FRAG_TILES = {"frag": (64, 128), "rows-frag": (128, 64)}     # (block_m, d): the tiles whose pieces are 64 x 64
# modes taken out, and why: "partial" (DQ_MODE 0, each consumer adding its own 64 keys' BM x d partial by scalar
# atomics, slower than "split" in every tune run) raced under triton 3.8 and, with 2820011's loop trims, faulted
# under 3.6 (with windows) and 3.7.1 (causal, d = 64) on an H200 while every other mode passed
# exp_mode -> the kernel's EXP (kernels/_ws_bwd_exp.py): how P^T's exponentials issue. "mufu" all on MUFU.EX2 as
# soon as S^T is done; "late" the same after dP^T is done too (dS's multiplies can sit between them); "poly" half of
# them (one column of each pair a thread holds) as a cubic on the FMA pipe, off the SFU's queue; "late-poly" both.
# "mufu" stays the default: none of the others was faster in geometric mean over N and causal (H200, triton 3.6;
# backward_table.WS_EXP's files, checked by the launch rows' claims)
EXP_MODES = {"mufu": 0, "late": 1, "poly": 2, "late-poly": 3}
# mask_mode -> the kernel's MASK: how a masked query block zeroes P^T where a key is hidden (causal band, ragged end,
# window, documents). "where": gl.where, whose 64 compares a thread makes ahead of the exponentials and holds as a
# bit mask (three instructions more a score to pack and unpack, and 2 compares a score for causal); "asm": compare
# and select in one asm statement a score (a third fewer instructions in the causal masked loop's SASS:
# assets/benchmarks/tune/cpu-sm90-bwd-mask-asm-2026-12-05.txt). "asm" passed its GPU tests on an H100 under 3.6 and
# 3.8 (assets/verified/nvidia-h100-triton-3.*-ws-backward-mask-asm.json) but timed no faster there: slower at
# d = 128, mixed at d = 64 (assets/benchmarks/tune/nvidia-h100-backward-ws-mask-asm-*.json), so "where" stays
MASK_MODES = {"where": 0, "asm": 1}
MASK_DEFAULT = "where"
# next_s -> the kernel's NEXT (kernels/_ws_bwd_next.py): where a consumer issues the next query block's S^T. 0 at that
# block's top, once this block's dQ piece left; 1 right behind this block's dK MMA, so it runs while the consumer
# waits for dK and for the other consumer's dS^T; 2 right behind this block's dQ MMAs, in flight through the piece's
# store and reduce-add (its GPU tests passed on an H100 under 3.8 and 3.9; slower than 1 at d = 64 under 3.8:
# tune/nvidia-h100-backward-ws-next2-d64-triton38-*). The default (next_default) is 1 at d = 64 under NEXT_TRITONS
# only; NEXT_ENV sets it for every launch that does not pass next_s
NEXT_MODES = (0, 1, 2)
NEXT_TRITONS = ("3.8.", "3.9.")
NEXT_ENV = "FLASHVIZ_WS_BWD_NEXT"
# DP_ZERO_ENV (stats_code: the kernel's STATS_ACC 2): S^T still starts from -lse2 / qk_scale but dP^T from zero,
# delta subtracted in dS and read from the ring stage there, so with next_s 1 at d = 64 dP^T issues at its block's
# top instead of behind its start and S^T's scaling (FA4 issues both MMAs first:
# assets/benchmarks/tune/cpu-sm90-sass-skeleton-bwd-2026-12-05.txt), for a few more spills. Its default
# (dp_zero_default) is on where next_s 1 runs at d = 64 under DP_ZERO_TRITONS
DP_ZERO_ENV = "FLASHVIZ_WS_BWD_DP_ZERO"
DP_ZERO_TRITONS = ("3.8.", "3.9.")
RETIRED = {"partial": "it raced or faulted on an H200 under triton 3.6, 3.7.1 and 3.8 where every other dQ mode "
                      "passed (assets/verified/repeats/README.md); \"split\" adds dQ by atomics too"}
# d -> early_dq (TMA modes: dQ's two MMAs issued right behind dV's and dK's), d -> dq_first (dQ's MMAs before dK's)
# and d -> prefetch: kernels/backward_table.py, read live (ws_bwd.CONFIGS holds the rest of a launch's row)
EARLY_DQ = backward_table.ws_early()
DQ_FIRST = backward_table.ws_dq_first()
PREFETCH = backward_table.ws_prefetch()
# lse and delta start the accumulators (STATS_ACC) only for |sm_scale| at least this: S^T's starts at -lse2 / qk_scale,
# about -log2(Nk) / qk_scale for scores near zero, which overflows float32 (to -inf, so P = 0) once qk_scale is below
# ~1e-37 (a denormal sm_scale); the bound keeps a wide margin, and below it the kernel holds them in registers as
# before (exact, only slower)
STATS_ACC_MIN_SCALE = 1e-20


def early_dq_on(d: int, dq_mode: str, early_dq: bool | None = None) -> bool:
    """Whether a launch issues dQ's MMAs early: early_dq, or EARLY_DQ[d] when None, and only in TMA_MODES."""
    return (EARLY_DQ[d] if early_dq is None else bool(early_dq)) and dq_mode in TMA_MODES


def prefetch_for(d: int, dq_mode: str, prefetch: int | None = None) -> int:
    """A launch's prefetch: `prefetch`, or PREFETCH[d] when None for TMA_MODES (0 for the others). 1 and 2 take
    only TMA_MODES, the modes they were timed with (under triton 3.8 on an H200 the retired "partial" computed a
    wrong dQ with prefetch 2 and faulted with 1: assets/verified/repeats/prefetch-partial-3.8.0.log)."""
    if prefetch is None:
        return PREFETCH[d] if dq_mode in TMA_MODES else 0
    if prefetch not in (0, 1, 2):
        raise KernelInputError(f"the ws backward's prefetch is 0, 1 or 2, not {prefetch!r}")
    if prefetch and dq_mode not in TMA_MODES:
        raise KernelInputError(f"prefetch {int(prefetch)} takes dq_mode {' or '.join(map(repr, TMA_MODES))}, not "
                               f"{dq_mode!r} (the modes it was timed and verified with)")
    return int(prefetch)


def stats_acc_on(stats_acc: bool, sm_scale: float) -> bool:
    """Whether a launch starts the accumulators from lse and delta: asked for, and |sm_scale| >= STATS_ACC_MIN_SCALE
    (0 has no 1 / qk_scale; far smaller scales would overflow -lse2 / qk_scale)."""
    return bool(stats_acc) and abs(sm_scale) >= STATS_ACC_MIN_SCALE


def next_default(d: int, version: str | None = None) -> int:
    """NEXT where neither next_s nor NEXT_ENV says: 1 at d = 64 under NEXT_TRITONS (the installed triton's, or
    version), else 0. H100 timings (tests/kernels/test_ws_bwd_next.py reads them): under 3.8 faster at d = 64 every
    time, slower at d = 128; under 3.9 within noise alone and faster with dp_zero_default's start; under 3.6 within
    noise."""
    version = ws.triton_version() if version is None else version
    return int(d == 64 and version.startswith(NEXT_TRITONS))


def dp_zero_default(d: int, nxt: int, version: str | None = None) -> bool:
    """dP^T from zero where DP_ZERO_ENV does not say: at d = 64 with NEXT nxt 1 under DP_ZERO_TRITONS (H100: faster
    at d = 64 in every A/B pair, slower at d = 128; test_ws_bwd_next.py reads them), else off."""
    version = ws.triton_version() if version is None else version
    return d == 64 and nxt == 1 and version.startswith(DP_ZERO_TRITONS)


def stats_code(acc: bool, dp_zero: bool | None = None, default: bool = False):
    """The kernel's STATS_ACC: acc (stats_acc_on's bool), or 2 where acc and dp_zero (None: DP_ZERO_ENV's, else
    default: dp_zero_default's)."""
    if dp_zero is None:
        env = env_switch(DP_ZERO_ENV, ("0", "1"), "1 (dP^T from zero) or 0")
        dp_zero = default if env is None else env == "1"
    return 2 if acc and dp_zero else acc


def next_code(next_s: int | None, dq_mode: str, early_dq: bool, dq_first: bool, prefetch: int, acc: bool,
              stages: int, default: int = 0) -> int:
    """The kernel's NEXT: next_s, else NEXT_ENV's, else default (next_default's); a value outside NEXT_MODES is a
    KernelInputError. It takes a dQ mode with two dS^T slots ("tma2" on), prefetch 2, neither early_dq nor dq_first
    and 2+ stages (_ws_bwd_next.py says why): an explicit next_s elsewhere is a KernelInputError, the environment's or
    the default's is 0 there. Without the accumulator start (acc: stats_acc_on) it is 0 whoever asked."""
    asked = next_s is not None
    if not asked:
        env = env_switch(NEXT_ENV, tuple(map(str, NEXT_MODES)), f"one of {NEXT_MODES} (next_s)")
        next_s = default if env is None else int(env)
    if next_s not in NEXT_MODES:
        raise KernelInputError(f"the ws backward's next_s ({NEXT_ENV}) is one of {NEXT_MODES}, not {next_s!r}")
    takes = DQ_MODES[dq_mode] >= 4 and prefetch == 2 and not early_dq and not dq_first and stages >= 2
    if next_s and not takes and asked:
        raise KernelInputError(f"next_s {next_s} takes a dq_mode from 'tma2' on with prefetch 2, no early_dq or "
                               f"dq_first and 2+ stages; got dq_mode={dq_mode!r}, prefetch={prefetch}, "
                               f"early_dq={early_dq}, dq_first={dq_first}, stages={stages}")
    return int(next_s) if takes and acc else 0


def exp_code(exp_mode: str) -> int:
    """The kernel's EXP for an EXP_MODES key (KernelInputError for any other)."""
    if exp_mode not in EXP_MODES:
        raise KernelInputError(f"the ws backward's exp_mode is one of {tuple(EXP_MODES)}, not {exp_mode!r}")
    return EXP_MODES[exp_mode]


def mask_code(mask_mode: str | None) -> int:
    """The kernel's MASK for a MASK_MODES key, None: MASK_DEFAULT's (KernelInputError for any other)."""
    mask_mode = MASK_DEFAULT if mask_mode is None else mask_mode
    if mask_mode not in MASK_MODES:
        raise KernelInputError(f"the ws backward's mask_mode is one of {tuple(MASK_MODES)}, not {mask_mode!r}")
    return MASK_MODES[mask_mode]


def dq_layout(dq_mode: str) -> str:
    """descriptors()'s dq_layout for a DQ_MODES key: "rows", "frag", "rows-frag" as they are, the rest "cols"."""
    return dq_mode if dq_mode == "rows" or dq_mode in FRAG_TILES else "cols"
