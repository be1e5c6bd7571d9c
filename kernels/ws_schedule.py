"""The ws forward's schedule for a launch: the forward table's rows (kernels/forward_table.py WS_LAUNCHES) resolved
for (d, causal, window, documents, ALiBi), the environment switches that override them for every launch
(PERSISTENT_ENV, CONSUMERS_ENV, OVERLAP_ENV; tests run both sides), and ws.status()'s lines saying which launches run
what and who decided it (the bench records them in every dataset's provenance). kernels/ws.py launches with it."""
from __future__ import annotations

import os
from types import MappingProxyType

from . import forward_table
from .errors import KernelInputError
from .tables import Memo

PERSISTENT_ENV = "FLASHVIZ_WS_PERSISTENT"  # 1 / 0: run every ws launch persistent / one tile per program
CONSUMERS_ENV = "FLASHVIZ_WS_CONSUMERS"    # 2 / 3: consumer warpgroups of every ws launch that does not pass block_m
OVERLAP_ENV = "FLASHVIZ_WS_OVERLAP"        # 1 / 0: OVERLAP on / off for every ws launch that does not pass overlap
PINGPONG_ENV = "FLASHVIZ_WS_PINGPONG"      # 1 / 0: PINGPONG on / off for every ws launch that does not pass pingpong
HALF_ENV = "FLASHVIZ_WS_HALF"              # 1 / 0: HALF (kernels/_ws_half.py) on / off for every ws launch that
                                           # does not pass half (only where kernels/gates.py's "ws-half" rows let it)
HALF_TRITONS = ("3.6.", "3.7.", "3.8.")    # where a band row's half is the default: 3.9's HALF passed its GPU tests
                                           # but ran the d = 128 window slower (half_default's files)
HALF_DENSE_TRITONS = ("3.8.",)             # where a dense causal row's is: faster on an H100 under 3.8, slower
                                           # under 3.6 (half_default's files); 3.7, 3.9: untimed

P_PACK_ENV = "FLASHVIZ_WS_PPACK"           # 1 / 0: key tile 0's P packed by inline asm (p_pack_default) or not;
                                           # read once, when the kernel module is imported (a module constexpr)
P_PACK_TRITONS = ()                        # where that is the default: none, as timed on an H100 under 3.8
                                           # (p_pack_default says why it was tried and why it is off)

EARLY_RESCALE_ENV = "FLASHVIZ_WS_EARLY_RESCALE"  # 1 / 0: O rescaled right after P·V's wait, or before the next
                                           # P·V (early_rescale_default); read once, at the kernel module's import
EARLY_RESCALE_TRITONS = ("3.6.",)          # where early is the default: faster in every d = 64 / 128 forward cell on
                                           # an H200 under 3.6, slower under 3.8 (early_rescale_default's files)

LOCAL_SUM_ENV = "FLASHVIZ_WS_LOCAL_SUM"      # 1 / 0: at d = 64 each lane keeps its share of a row's sum until the
                                           # query tile's end (local_sum_default); read once, at the kernel import
LOCAL_SUM_TRITONS = ("3.6.", "3.8.", "3.9.")  # where that is the default: faster at d = 64 on an H100 under 3.6,
                                           # 3.8 and 3.9 (local_sum_default's files); 3.7: untimed

SPLIT_BARS_ENV = "FLASHVIZ_WS_SPLIT_BARS"    # 1 / 0: V's ring barriers and each turn barrier in allocations of
                                           # their own (split_bars_default); read once, at the kernel import
SPLIT_BARS_TRITONS = ()                    # where that is the default: none, timed even against cuDNN on an H100
                                           # under 3.6 and 3.8 (split_bars_default's files)

PAIR_MAX_ENV = "FLASHVIZ_WS_PAIR_MAX"      # 1 / 0: in d = 64's dense launches a thread's two rows' maxima joined
                                           # before their exponentials (pair_max_default); read at the kernel import
PAIR_MAX_TRITONS = ("3.8.", "3.9.")        # where that is the default: faster on an H100 under 3.8 and 3.9, even
                                           # under 3.6 (pair_max_default's files); 3.7: untimed

LPT_ENV = "FLASHVIZ_WS_LPT"                # 1 / 0: causal launches of one tile (forward) or key block (backward) a
                                           # program start a group of heads' longest tiles first (lpt_default)
LPT_WAVES = {"forward": (16, 32), "backward": (0, 64)}   # where LPT_ENV is unset: on in launches of so many
                                           # tiles (key blocks) per SM (lpt_default says why)
SKIP_ENV = "FLASHVIZ_WS_SKIP"              # 1 / 0: a consumer walks only the key tiles its own rows see and passes
                                           # the ring on for the rest (skip_default); read at the kernel import
SKIP_TRITONS = ("3.6.", "3.8.")            # where that is the default: faster on an H100 under both (skip_default's
                                           # files); 3.7, 3.9: untimed, its suite not run there
L2_KV_BYTES = 32 << 20   # causal head groups: bytes of the heads in flight together (H100 / H200 L2: 50 MB)

CONFIGS = forward_table.ws_configs()   # {(d, causal): (block_m, block_n, stages, OVERLAP, PINGPONG, PERSISTENT, NC)}
# block_n 256 (two consumers at d = 64 only, an explicit launch's; no table row runs it yet): FlashAttention-3 runs
# 192-key tiles at d = 64 (hopper/tile_size.h), the nearest power of two is 256. One consumer's 64 x 256 fp32 scores
# take 128 of its 240 registers: OVERLAP's second score tile spills, as do ALiBi's terms under triton 3.8; three
# consumers' 160 fail ptxas, and d = 128's K/V ring outgrows shared memory (what ptxas made of each: assets/
# benchmarks/tune/cpu-sm90-compile-wide-2026-12-05.txt)
WIDE_BN = 256


def tile_problem(block_m: int, block_n: int, d: int) -> str | None:
    """Why the ws forward cannot run this (block_m, block_n) at head dim d (None: it can): 2 or 3 consumer
    warpgroups x 64 rows by 64 or 128 keys, and 128 x WIDE_BN at d = 64."""
    if block_m in (128, 192) and block_n in (64, 128):
        return None
    if (block_m, block_n, d) == (128, WIDE_BN, 64):
        return None
    return (f"the ws kernel runs block_m = 128 or 192 (two or three warpgroups x 64 rows) and block_n 64 or 128, or "
            f"128 x {WIDE_BN} at d = 64; got {block_m} x {block_n} at d = {d}")


def schedule(d: int, causal: bool, *, window: bool = False, docs: bool = False, alibi: bool = False) -> dict:
    """The forward table's ws schedule for a launch (block_n, stages, overlap, pingpong, persistent, consumers):
    the dense row of (d, causal), then the fields a band's row (window, else docs) sets, then those ALiBi's row
    sets. KeyError where the kernel has no schedule (d not in HEAD_DIMS)."""
    return dict(_schedule(int(d), bool(causal), bool(window), bool(docs), bool(alibi)))


def _resolve(d: int, causal: bool, window: bool, docs: bool, alibi: bool) -> MappingProxyType:
    out = forward_table.ws_dense(d, causal)
    for on, variant in ((docs and not window, "docs"), (window, "window"), (alibi, "alibi")):
        row = forward_table.ws_rows(variant, d, causal) if on else None
        if row is not None:
            out.update(row.fields)
    return MappingProxyType(out)


_schedule = Memo(_resolve, ((forward_table, "WS_LAUNCHES"),))     # a launch asks for it six times


def consumers_default(d: int, causal: bool, window: bool = False, *, docs: bool = False) -> int:
    """Consumer warpgroups (NC) for a launch that does not pass block_m: CONSUMERS_ENV when set (2 or 3), else the
    forward table's schedule (window / docs: a causal window's or packed documents' launch)."""
    env = env_switch(CONSUMERS_ENV, ("2", "3"), "2 or 3 (consumer warpgroups)")
    if env is None:
        return schedule(d, causal, window=window, docs=docs)["consumers"]
    return int(env)


def env_switch(name: str, allowed: tuple, what: str) -> str | None:
    """The environment switch `name` when set (one of `allowed`; KernelInputError naming `what` otherwise), else
    None: the launch's own default."""
    env = os.environ.get(name, "")
    if env == "":
        return None
    if env not in allowed:
        raise KernelInputError(f"{name} must be {what}, not {env!r}")
    return env


def persistent_default(d: int, causal: bool, window: bool = False, *, docs: bool = False) -> bool:
    """PERSISTENT for a launch that does not say: PERSISTENT_ENV when set (1 or 0), else the forward table's
    schedule (window / docs: a causal window's or packed documents' launch)."""
    env = env_switch(PERSISTENT_ENV, ("0", "1"), "1 (persistent) or 0 (one tile per program)")
    if env is None:
        return schedule(d, causal, window=window, docs=docs)["persistent"]
    return env == "1"


def overlap_default(d: int, causal: bool, alibi: bool = False, *, consumers: int = 2, persistent: bool = False,
                    window: bool = False, block_n: int = 128) -> bool:
    """OVERLAP for a launch that does not say: OVERLAP_ENV when set (1 or 0), else the forward table's (ALiBi's row
    where it has one; windows keep their (d, causal) row's); never at three consumers walking tiles persistently or
    a window, nor at block_n = WIDE_BN: their registers spill with it (tools/compile_check.py --ws shows the bytes)."""
    env = env_switch(OVERLAP_ENV, ("0", "1"), "1 (overlap) or 0 (no overlap)")
    if env is None:
        if (consumers == 3 and (persistent or window)) or block_n == WIDE_BN:
            return False
        return schedule(d, causal, alibi=alibi)["overlap"]
    return env == "1"


def pingpong_default(d: int, causal: bool, window: bool = False, *, docs: bool = False, alibi: bool = False) -> bool:
    """PINGPONG for a launch that does not say: PINGPONG_ENV when set (1 or 0), else the forward table's schedule
    (window / docs / alibi: a causal window's, packed documents' or ALiBi's launch). Without it a persistent launch
    carries each tile's last P·V into the next tile (kernels/_ws_tile.py, CARRY)."""
    env = env_switch(PINGPONG_ENV, ("0", "1"), "1 (pingpong) or 0 (no pingpong)")
    if env is None:
        return schedule(d, causal, window=window, docs=docs, alibi=alibi)["pingpong"]
    return env == "1"


def half_default(d: int, causal: bool, window: bool = False, *, docs: bool = False, alibi: bool = False,
                 version: str | None = None) -> bool:
    """HALF for a launch that does not say: HALF_ENV when set (1 or 0), else the forward table's schedule (a row's
    `half`; off where no row sets it) under the tritons of HALF_TRITONS for a band's launch (window / docs) and of
    HALF_DENSE_TRITONS otherwise (version; None: the installed one's). Under 3.9 on an H100 HALF made every window
    slower (assets/benchmarks/tune/nvidia-h100-window-fit-d128-half*-triton39-*), its fixed cost per query tile
    most; 3.9's ptxas spills the persistent window's HALF build several times more than 3.8's
    (tune/cpu-sm90-compile-half-triton38-vs-39-2026-12-05.txt). In dense causal launches (the diagonal tile the
    first consumers see half of) it was faster on an H100 under 3.8 in every cell of same-process rounds
    (tune/nvidia-h100-fwd-half-switch-causal-triton38-2026-12-06.json) and slower under 3.6, most at d = 64
    (...-triton36-...). Whether this triton may run it is ws.forward's question (gates "ws-half")."""
    env = env_switch(HALF_ENV, ("0", "1"), "1 (half edge tiles) or 0 (whole tiles)")
    if env is None:
        if version is None:
            from .ws import triton_version
            version = triton_version()
        if alibi and not (window or docs):            # ALiBi's own launches keep whole tiles: HALF untimed there
            return False
        tritons = HALF_TRITONS if window or docs else HALF_DENSE_TRITONS
        return bool(schedule(d, causal, window=window, docs=docs).get("half", False)) and version.startswith(tritons)
    return env == "1"


def half_runs(d: int, causal: bool, window: bool = False, *, docs: bool = False, alibi: bool = False,
              version: str | None = None) -> bool:
    """Whether a launch that does not say runs HALF's half steps: HALF on (half_default, version's), causal, no
    packed documents and no CARRY (a persistent launch with OVERLAP and without PINGPONG; _ws_gluon.py's HALF_P)."""
    pers = persistent_default(d, causal, window, docs=docs)
    carry = pers and not pingpong_default(d, causal, window, docs=docs, alibi=alibi) and overlap_default(
        d, causal, alibi, consumers=consumers_default(d, causal, window, docs=docs), persistent=pers,
        window=window or docs)
    return half_default(d, causal, window, docs=docs, alibi=alibi, version=version) and causal and not docs \
        and not carry


def schedule_lines(half_why: str | None = None, version: str = "") -> dict:
    """{"persistent": ..., "consumers": ..., "overlap": ..., "pingpong": ..., "half": ..., "p_pack": ...,
    "early_rescale": ..., "local_sum": ..., "split_bars": ..., "pair_max": ..., "lpt": ..., "skip": ...} for
    ws.status(); half_why: why this triton may not run HALF (kernels/gates.py), None where it may; version: the
    installed triton's (p_pack_default, early_rescale_default, local_sum_default, split_bars_default,
    pair_max_default, skip_default)."""
    return dict(persistent=_persistent_status(), consumers=_consumers_status(), overlap=_overlap_status(),
                pingpong=_pingpong_status(), half=_half_status(half_why, version or None),
                p_pack=switch_line(P_PACK_ENV, lambda: "d=64" if p_pack_default(version) else "none"),
                early_rescale=switch_line(EARLY_RESCALE_ENV,
                                          lambda: "every OVERLAP launch" if early_rescale_default(version) else "none"),
                local_sum=switch_line(LOCAL_SUM_ENV, lambda: "d=64" if local_sum_default(version) else "none"),
                split_bars=switch_line(SPLIT_BARS_ENV,
                                       lambda: "every launch" if split_bars_default(version) else "none"),
                pair_max=switch_line(PAIR_MAX_ENV, lambda: "d=64 dense" if pair_max_default(version) else "none"),
                lpt=switch_line(LPT_ENV, lambda: "causal launches of one tile per program at " + ", ".join(
                    f"{lo}-{hi} {'key blocks' if kind == 'backward' else 'tiles'} per SM ({kind})"
                    for kind, (lo, hi) in LPT_WAVES.items())),
                skip=switch_line(SKIP_ENV, lambda: "three-consumer launches without a window or documents"
                                 if skip_default(version) else "none"))


def switch_line(env: str, describe) -> str:
    """One status line: describe() (the launches a switch applies to by default) and whether env decided it."""
    try:
        text = describe()
    except KernelInputError as e:
        return str(e)
    return f"{text} ({f'{env}={os.environ[env]}' if os.environ.get(env) else 'CONFIGS'})"


def _band_dims() -> list[int]:
    return sorted({r.d[0] for r in forward_table.WS_LAUNCHES if r.variant == "window"})


def _consumers_status() -> str:
    """Consumer warpgroups per (d, causal) launch that does not pass block_m (and per causal window)."""
    return switch_line(CONSUMERS_ENV, lambda: ", ".join(
        [f"d={d} causal={c}: {consumers_default(d, c)}" for d, c in sorted(CONFIGS)]
        + [f"d={d} window: {consumers_default(d, True, window=True)}" for d in _band_dims()]))


def _overlap_status() -> str:
    """Which (d, causal) launches run OVERLAP by default here (and the ALiBi launches that do not)."""
    def describe():
        on = [f"d={d} causal={c}" for d, c in sorted(CONFIGS) if overlap_default(d, c)]
        alibi = sorted({r.d[0] for r in forward_table.WS_LAUNCHES if r.variant == "alibi"})
        off = [f"d={d} ALiBi" for d in alibi
               if overlap_default(d, True) and not overlap_default(d, True, alibi=True)]
        text = "every (d, causal)" if len(on) == len(CONFIGS) else ", ".join(on) or "none"
        return f"{text}{' but ' + ', '.join(off) if off else ''}"
    return switch_line(OVERLAP_ENV, describe)


def _pingpong_status() -> str:
    """Which (d, causal) launches (and causal windows) run PINGPONG by default here."""
    return switch_line(PINGPONG_ENV, lambda: ", ".join(
        [f"d={d} causal={c}" for d, c in sorted(CONFIGS) if pingpong_default(d, c)]
        + [f"d={d} window" for d in _band_dims() if pingpong_default(d, True, window=True)]) or "none")


def _persistent_status() -> str:
    """Which (d, causal) launches (and causal windows) run PERSISTENT by default here."""
    return switch_line(PERSISTENT_ENV, lambda: ", ".join(
        [f"d={d} causal={c}" for d, c in sorted(CONFIGS) if persistent_default(d, c)]
        + [f"d={d} window" for d in _band_dims() if persistent_default(d, True, window=True)]) or "none")


def _half_status(why: str | None, version: str | None = None) -> str:
    """Which causal launches (and causal windows) run HALF's half steps by default, or why none does here."""
    def on(v):
        return [f"d={d} causal=True" for d, c in sorted(CONFIGS) if c and half_runs(d, c, version=v)] \
            + [f"d={d} window" for d in _band_dims() if half_runs(d, True, window=True, version=v)]

    def describe():
        here = on(version)
        asked = here or on(HALF_TRITONS[-1])          # where the table (or HALF_ENV) asks for it: here, else 3.8
        if asked and why:
            return f"none here ({', '.join(asked)} where verified): {why}"
        if asked and not here:
            from .ws import triton_version
            return (f"none under triton {version or triton_version()} (HALF_TRITONS, HALF_DENSE_TRITONS: not timed "
                    f"faster there)")
        return ", ".join(here) or "none"
    return switch_line(HALF_ENV, describe)


def p_pack_default(version: str) -> bool:
    """Whether the ws forward converts key tile 0's P to fp16/bf16 with one inline-asm cvt a pair
    (kernels/_ws_softmax.py p_operand): P_PACK_ENV when set (1 or 0), else on for the tritons of P_PACK_TRITONS.
    Under triton 3.8 LLVM folds the two P conversions that meet at the loop's phi into one after it, so the loop
    carries fp32 P and ptxas spends 32 PRMT a trip in the default partition's consumer
    (assets/benchmarks/tune/cpu-sm90-sass-loops-2026-12-05.txt); an asm conversion cannot be folded. Under 3.6 and
    3.9 nothing is folded and the asm adds register moves. Off everywhere: on an H100 under 3.8 it timed no faster
    (d = 64, alternating runs: assets/benchmarks/tune/nvidia-h100-fwd-ppack*-triton38-2026-12-05.json), so those
    PRMT are not what makes 3.8's d = 64 forward slower than 3.6's; with SKIP on, again no faster in every cell
    (two pairs, cells either side of 1: nvidia-h100-fwd-ppack{0,1}-skip-run{1,2}-triton38-2026-12-06.json); its GPU tests
    passed as far as they ran (assets/verified/nvidia-h100-triton-3.8.0-ws-forward-ppack.json, interrupted at the
    device's time limit)."""
    return _on_where(P_PACK_ENV, P_PACK_TRITONS, version, "1 (asm-packed P) or 0 (P.to(dtype))")


def early_rescale_default(version: str) -> bool:
    """Where the ws forward's OVERLAP loop rescales O by a key tile's alpha (kernels/_ws_tile.py attend): early,
    right after the previous P·V's wait at the end of the trip that computed alpha, or late, at the start of the next
    trip between the issue of its Q·Kᵀ and of P·V. Same arithmetic on O in the same order. Late leaves the 32 FMULs
    (d = 64) to ptxas, which puts them between the first and second Q·Kᵀ HGMMA of one consumer (3.6) or two (3.8);
    early issues every consumer's Q·Kᵀ as one run (tests/tools/test_sass_loops.py). Timed against cuDNN in
    alternating processes, two pairs per setting (assets/benchmarks/tune/nvidia-h{100,200}-fwd-early*-2026-12-05.json):
    under 3.6 on an H200 early was faster in all 8 cells of both pairs, and against FlashAttention-4 in 7 of 8 cells
    of a third pair (nvidia-h200-fa4-rounds-fwd-early*-run3); on an H100 under 3.6 faster in the geomean of both
    pairs (nvidia-h100-fwd-early*-run*-2026-12-05.json); under 3.8 slower in the geomean on the H200 and the
    H100, and again on the H200 in three pairs once 3.8's d = 64 joined its rows' maxima (pair_max_default;
    nvidia-h200-fwd-early*-pair-run*-triton38-2026-12-05.json), so early is 3.6's default only (3.7 and 3.9:
    untimed, late). Its GPU tests passed under both
    (assets/verified/nvidia-h200-triton-{3.6.0,3.8.0}-ws-forward-early-rescale.json).
    EARLY_RESCALE_ENV when set (1 or 0), else early on the tritons of EARLY_RESCALE_TRITONS."""
    return _on_where(EARLY_RESCALE_ENV, EARLY_RESCALE_TRITONS, version,
                     "1 (rescale after P·V's wait) or 0 (before the next P·V)")


def local_sum_default(version: str) -> bool:
    """Whether the ws forward at d = 64 keeps, per key tile, only each lane's own share of a row's sum l
    (kernels/_ws_softmax.py quad_sums: no shuffle) and adds a quad's 4 shares once, at the query tile's end, as
    FlashAttention-4's sm90 forward does; else each key tile sums the row across its quad of lanes (2 SHFL + 2 FADD
    a row: 16 instructions a trip of the d = 64 loop's two paths). Timed on an H100 under 3.6 in alternating
    processes (assets/benchmarks/tune/nvidia-h100-fwd-tree0-local*-run*-2026-12-05.json against cuDNN,
    nvidia-h100-fa4-rounds-fwd-local*-2026-12-05.json against FlashAttention-4 and cuDNN; `python -m
    tools.fa4_rounds --ab` on each pair): at d = 64 faster in every cell of every comparison, at d = 128 about
    even, so d = 64 only. Under 3.8, three pairs against cuDNN
    (nvidia-h100-fwd-local*-run*-triton38-2026-12-05.json): d = 64 faster in 10 of 12 cells, d = 128 about even.
    Under 3.9 at d = 64 with PAIR_MAX on, two pairs: faster in every cell (nvidia-h100-fwd-pair1-local*-run*-
    triton39-2026-12-06.json; one pair without PAIR_MAX, nvidia-h100-fwd-local*-run1-triton39-...: the same).
    Its GPU tests passed under 3.6 and 3.8 (assets/verified/nvidia-h100-triton-{3.6.0,3.8.0}-ws-forward-local-sum.json)
    and under 3.9 with PAIR_MAX (...-3.9.0-ws-forward-pair-local.json).
    Timed on 3.6 and not adopted: each row's max (and sum) as a tree of pairs in place of 3.6's one dependent chain
    of FMNMX (FADD) a row, which 3.8 builds itself: slower in the geomean (nvidia-h100-fwd-tree{0,1}-run{1,2}, at
    c362618); the max's tree beside the lane shares took their gain back
    (nvidia-h100-fwd-tree1-local1-run*).
    LOCAL_SUM_ENV when set (1 or 0), else on for the tritons of LOCAL_SUM_TRITONS."""
    return _on_where(LOCAL_SUM_ENV, LOCAL_SUM_TRITONS, version, "1 (lane shares of l) or 0 (row sums)")


def split_bars_default(version: str) -> bool:
    """Whether the ws forward gives V's ring barriers and each consumer's turn barrier allocations of their own
    (kernels/_ws_ring.py), so that Triton's shared-memory barrier pass puts no warpgroup BAR.SYNC between a
    consumer's waits on K's and V's barriers: one BAR.SYNC fewer a loop trip under 3.6 and 3.8
    (tests/tools/test_sass_loops.py). It changes no arithmetic, only the barriers, and it timed even: two pairs
    against cuDNN in alternating processes on an H100 under 3.6 and two under 3.8
    (assets/benchmarks/tune/nvidia-h100-fwd-split*-run*-2026-12-05.json, `python -m tools.fa4_rounds --ab`), so it
    stays off; its GPU tests passed under 3.6 (assets/verified/nvidia-h100-triton-3.6.0-ws-forward-split-bars.json).
    SPLIT_BARS_ENV when set (1 or 0), else on for the tritons of SPLIT_BARS_TRITONS."""
    return _on_where(SPLIT_BARS_ENV, SPLIT_BARS_TRITONS, version, "1 (separate K and V barriers) or 0 (one array)")


def pair_max_default(version: str) -> bool:
    """Whether the ws forward's d = 64 dense launches (plain or causal, GQA; no window, documents or ALiBi) join
    the two rows each thread holds (rows r and r + 8 of a warp's 16) before their exponentials
    (kernels/_ws_softmax.py pair_rows: m unchanged, 3 FMNMX a step), so that ptxas issues both rows' maxima, their
    quad shuffles included, ahead of either row's MUFU.EX2 (tests/tools/test_sass_loops.py). Without it ptxas 12.9
    (triton 3.8) issues the second row's shuffles after all of the first row's exponentials in two of the three
    d = 64 consumer loops, 3.6's ptxas after some of them (assets/benchmarks/tune/cpu-sm90-sass-skeleton-fwd-d64-
    2026-12-05.txt), and on an H100 under 3.8 the FMNMX after them wait on them (short scoreboard:
    assets/benchmarks/ncu/nvidia-h100-ncu-source-fwd-d64-early0-triton38-2026-12-05.json; with it,
    ...-pair1-triton38-...). Timed against cuDNN on an H100 in alternating processes
    (assets/benchmarks/tune/nvidia-h100-fwd-pair*-run*-2026-12-05.json, `python -m tools.fa4_rounds --ab`): under
    3.8 d = 64 faster in every cell of three pairs, d = 128 slower; under 3.6 d = 64 even, d = 128 slower. The
    d = 64 window's launch (two consumers, persistent, no PINGPONG) was slower with it under 3.8
    (nvidia-h100-window-fit-d64-pair*-run*-triton38-2026-12-05.json); ALiBi's and documents' were not timed. So
    3.8's default in the d = 64 dense launches only. Under 3.9 without it and LOCAL_SUM ptxas spaces the d = 64
    dense exponentials further apart than with both, which pack them as 3.8's default does
    (tune/cpu-sm90-compile-fwd-d64-triton38-vs-39-2026-12-05.txt, test_ws_compile_records.py); timed there on an
    H100 (nvidia-h100-fwd-pair{0,1}-run{1,2,3}-triton39-2026-12-06.json) it was faster in every d = 64 cell of
    three pairs, and both together faster than neither in every cell of two pairs timed beside FlashAttention-4
    (nvidia-h100-fa4-rounds-fwd-d64-pair*-local*-run*-triton39-2026-12-06.json; tests/kernels/test_ws_forward_39.py),
    so 3.9's default too (3.7: untimed); its GPU tests with both passed there
    (assets/verified/nvidia-h100-triton-3.9.0-ws-forward-pair-local.json).
    PAIR_MAX_ENV when set (1 or 0), else on for the tritons of PAIR_MAX_TRITONS."""
    return _on_where(PAIR_MAX_ENV, PAIR_MAX_TRITONS, version, "1 (rows' maxima joined) or 0 (each row alone)")


def head_group(n_bh: int, n_k: int, d: int, itemsize: int, causal: bool) -> int:
    """Heads whose query tiles the persistent order (and a causal launch of one tile per program, where
    lpt_default() is on) interleaves: 1 (head-major) without a mask; causal: as many as keep their K/V within
    L2_KV_BYTES, so handing out the longest tiles first does not thrash L2."""
    if not causal:
        return 1
    return max(1, min(n_bh, L2_KV_BYTES // (2 * n_k * d * itemsize)))


def divisor_at_most(n: int, most: int) -> int:
    """The largest divisor of n (>= 1) not above most (at least 1): a head group that tiles B*H exactly."""
    return max(g for g in range(1, max(1, min(n, most)) + 1) if n % g == 0)


def key_group(n_bh: int, n_q: int, d: int, itemsize: int, lpt: bool) -> int:
    """G, the heads a launch's grid (G, key blocks, n_bh / G) interleaves (kernels/_ws_bwd_walk.py head): 1 (head
    by head) without lpt (the caller's: causal, no table, ws_schedule.lpt_default); with it the largest divisor of
    n_bh whose heads' Q, dO and fp32 dQ stay within L2_KV_BYTES, so starting every head's key block 0 (its
    longest) first does not thrash L2."""
    if not lpt:
        return 1
    return divisor_at_most(n_bh, L2_KV_BYTES // (n_q * d * (2 * itemsize + 4)))


def lpt_default(waves: float, kind: str = "forward") -> bool:
    """Whether a causal ws launch of one tile (forward, non-persistent) or key block (backward) per program orders
    its programs longest first over a group of heads (head_group, key_group): all of a group's heads
    start their longest tile before any starts its second. Head by head (the order without it), the last heads'
    longest tiles start near the grid's end and can run past the other SMs' last tiles, which matters where the
    grid holds few tiles per SM. A scheduling order only: the kernels' arithmetic is the same either way. LPT_ENV
    when set (1 or 0); else on where `waves` (the grid's tiles per SM) lies within LPT_WAVES[kind]. Timed on an
    H100 in one process, each round both ways (tools.fa4_rounds --switch, B*H = 128, N 1024-16384, under 3.6 and
    3.8; tests/kernels/test_ws_lpt.py reads the files): the forward faster in every run at 21 and 31 waves (N =
    4096), never 1 % faster elsewhere; the backward faster in geometric mean up to 62 waves (N <= 8192), slower at
    124."""
    value = env_switch(LPT_ENV, ("0", "1"), "1 (a head group's longest tiles first) or 0 (head by head)")
    if value is not None:
        return value == "1"
    lo, hi = LPT_WAVES[kind]
    return lo <= waves <= hi


def skip_default(version: str) -> bool:
    """Whether each consumer of a three-consumer ws forward launch (192-row query tiles: d = 64's table launches)
    walks only the key tiles some row of its own 64 sees (kernels/_ws_tile.py own_tiles; no window, documents or
    CARRY) and, for the query tile's other key tiles, only waits for their loads, passes its PINGPONG turn and
    frees their ring slots (kernels/_ws_ring.py pass_tiles). The first two consumers' rows end before such a tile's
    last key tile or two, and a ragged last query tile's consumers past N see nothing (skipped_share counts them);
    two-consumer launches pass nothing but those idle consumers, and built with it their masked loop path grew, so
    they build without it. Built for sm_90 on a CPU under 3.6, 3.8 and 3.9; under 3.8 the three-consumer loops'
    SASS is within 2 instructions a trip of the build without it unmasked, 7 masked
    (assets/benchmarks/tune/cpu-sm90-compile-skip-2026-12-06.txt). On an H100 its GPU files passed with it forced
    under 3.6 and 3.8 (kernels/gates.py), and timed against cuDNN in alternating processes, two pairs each
    (assets/benchmarks/tune/nvidia-h100-fwd-skip{0,1}-run{1,2}-triton3{6,8}-2026-12-06.json) it was faster in every
    d = 64 cell of every pair, most at N = 4096 causal, where skipped_share is largest (tests/kernels/test_ws_skip.py).
    SKIP_ENV when set (1 or 0), else on for SKIP_TRITONS."""
    return _on_where(SKIP_ENV, SKIP_TRITONS, version, "1 (own key tiles only) or 0 (every consumer walks all)")


def skipped_share(n_q: int, n_k: int, block_m: int, block_n: int, causal: bool, m_wg: int = 64) -> float:
    """The share of consumer key-tile trips a launch's consumers make that skip_default's SKIP passes on: per query
    tile and consumer (m_wg rows), the key tiles the tile walks (kernels/_ws_tile.py key_range, no window) that no
    row of that consumer below n_q sees (bottom-right causal)."""
    walked = passed = 0
    for s in range(0, n_q, block_m):
        hi = min(max(s + block_m + n_k - n_q, 0), n_k) if causal else n_k
        tiles = -(-hi // block_n)
        for r0 in range(s, s + block_m, m_wg):
            end = min(r0 + m_wg, n_q)
            own_hi = (min(max(end + n_k - n_q, 0), n_k) if causal else n_k) if end > r0 else 0
            walked += tiles
            passed += tiles - min(-(-own_hi // block_n), tiles)
    return passed / walked if walked else 0.0


def _on_where(env: str, tritons: tuple, version: str, what: str) -> bool:
    """A 1 / 0 switch: env when set (KernelInputError naming `what` otherwise), else on for the triton versions
    starting with one of `tritons`."""
    value = env_switch(env, ("0", "1"), what)
    return version.startswith(tritons) if value is None else value == "1"
