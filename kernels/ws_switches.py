"""The ws forward's version-gated build switches (and one of the backward's: bwd_thread_arrive_default): code paths
fixed for the process when the kernel module is imported (module constexprs in kernels/_ws_tile.py, _ws_softmax.py,
_ws_ring.py, _ws_bwd_walk.py), each on by default only under the tritons where it was timed faster on a GPU and its
test files passed with it forced (kernels/gates.py), and each overridden by its FLASHVIZ_WS_* variable (1 / 0).
FRESH and NAMED are read at each launch (kernel arguments), so a tool can time their two sides in one process. Every
*_default docstring names its evidence files; tests/kernels/test_ws_switch_env.py (SWITCHES) checks each
default against its tritons and its status line. The launch-time schedule (persistent, consumers, OVERLAP,
PINGPONG, HALF, LPT) is kernels/ws_schedule.py's."""
from __future__ import annotations

import os

from .errors import KernelInputError

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

SKIP_ENV = "FLASHVIZ_WS_SKIP"              # 1 / 0: a consumer walks only the key tiles its own rows see and passes
                                           # the ring on for the rest (skip_default); read at the kernel import
SKIP_TRITONS = ("3.6.", "3.8.")            # where that is the default: faster on an H100 under both (skip_default's
                                           # files); 3.7, 3.9: untimed, its suite not run there

THREAD_ARRIVE_ENV = "FLASHVIZ_WS_THREAD_ARRIVE"  # 1 / 0: each consumer thread arrives on the ring's empty and the
                                           # turn barriers itself (thread_arrive_default); read at the kernel import
THREAD_ARRIVE_TRITONS = ()                 # where that is the default: none (no faster on the H100, 3.8)
HALF_TAIL_ENV = "FLASHVIZ_WS_HALF_TAIL"    # 1 / 0: HALF's last half step's Q·Kᵀ issued behind the last whole
                                           # tile's P·V (half_tail_default); read at the kernel import
HALF_TAIL_TRITONS = ("3.8.",)              # where that is the default: the H100's window of 1024 faster under 3.8,
                                           # the rest even (half_tail_default's files); HALF runs by default there
Q_AHEAD_ENV = "FLASHVIZ_WS_Q_AHEAD"        # 1 / 0: a persistent producer loads the next query tile's Q early in
                                           # this tile's K/V loads (q_ahead_default); read at the kernel import
Q_AHEAD_TRITONS = ()                       # where that is the default: none (the window no faster with it on the
                                           # H100 under 3.8: q_ahead_default's files)
WALK_ENV = "FLASHVIZ_WS_WALK"              # 1 / 0: a persistent program steps its tile order's state from tile to
                                           # tile instead of decoding each tile by division (walk_default)
WALK_TRITONS = ()                          # where that is the default: none (the windows no faster with it on the
                                           # H100 under 3.8, 512 slower: walk_default's files)
FRESH_ENV = "FLASHVIZ_WS_FRESH"            # 1 / 0: a persistent consumer reads the sizes and program count afresh
                                           # each tile, so ptxas keeps nothing in local memory (fresh_default);
                                           # read at each launch (ws.forward's FRESH), so one process times both
FRESH_TRITONS = ()                         # where that is the default: none (on the H100 under 3.8 the window of
                                           # 1024 within 2 % either way, d = 64 windows slower: fresh_default)
NAMED_ENV = "FLASHVIZ_WS_NAMED"            # 1 / 0: PINGPONG's turns through named barriers (bar.sync / bar.arrive)
                                           # instead of mbarriers (named_turn_default); read at each launch
NAMED_TRITONS = ()                         # where that is the default: none (no steady gain: named_turn_default)
POLY_ENV = "FLASHVIZ_WS_POLY"              # 1 / 0: at d = 64 one exponential in eight of an unmasked tile on the
                                           # FMA pipe (poly_default); read at the kernel import
POLY_TRITONS = ()                          # where that is the default: none (slower on the H100: poly_default)
MMA_SUM_ENV = "FLASHVIZ_WS_MMA_SUM"        # 1 / 0: at d = 64 the row sums by a P·1 wgmma beside P·V instead of
                                           # FADDs (mma_sum_default); read at the kernel import
MMA_SUM_TRITONS = ()                       # where that is the default: none (untimed; it spills: mma_sum_default)
BWD_THREAD_ARRIVE_ENV = "FLASHVIZ_WS_BWD_THREAD_ARRIVE"  # 1 / 0: the same for the ws backward's ring empty and dS^T
                                           # free barriers (bwd_thread_arrive_default); read at its kernel's import
BWD_THREAD_ARRIVE_TRITONS = ()             # where that is the default: none (correct, but no faster than the A/B's
                                           # noise on the H100 under 3.8: bwd_thread_arrive_default's files)


def env_switch(name: str, allowed: tuple, what: str) -> str | None:
    """The environment switch `name` when set (one of `allowed`; KernelInputError naming `what` otherwise), else
    None: the launch's own default."""
    env = os.environ.get(name, "")
    if env == "":
        return None
    if env not in allowed:
        raise KernelInputError(f"{name} must be {what}, not {env!r}")
    return env


def switch_line(env: str, describe) -> str:
    """One status line: describe() (the launches a switch applies to by default) and whether env decided it."""
    try:
        text = describe()
    except KernelInputError as e:
        return str(e)
    return f"{text} ({f'{env}={os.environ[env]}' if os.environ.get(env) else 'CONFIGS'})"


def status_lines(version: str) -> dict:
    """ws.status()'s line for each switch here (what it applies to where on, and whether its variable decided)."""
    return dict(p_pack=switch_line(P_PACK_ENV, lambda: "d=64" if p_pack_default(version) else "none"),
                early_rescale=switch_line(EARLY_RESCALE_ENV,
                                          lambda: "every OVERLAP launch" if early_rescale_default(version) else "none"),
                local_sum=switch_line(LOCAL_SUM_ENV, lambda: "d=64" if local_sum_default(version) else "none"),
                split_bars=switch_line(SPLIT_BARS_ENV,
                                       lambda: "every launch" if split_bars_default(version) else "none"),
                pair_max=switch_line(PAIR_MAX_ENV, lambda: "d=64 dense" if pair_max_default(version) else "none"),
                skip=switch_line(SKIP_ENV, lambda: "three-consumer launches without a window or documents"
                                 if skip_default(version) else "none"),
                thread_arrive=switch_line(THREAD_ARRIVE_ENV,
                                          lambda: "every launch" if thread_arrive_default(version) else "none"),
                half_tail=switch_line(HALF_TAIL_ENV, lambda: "HALF launches with OVERLAP, without CARRY"
                                      if half_tail_default(version) else "none"),
                q_ahead=switch_line(Q_AHEAD_ENV, lambda: "persistent launches" if q_ahead_default(version) else "none"),
                walk=switch_line(WALK_ENV, lambda: "persistent launches" if walk_default(version) else "none"),
                fresh=switch_line(FRESH_ENV, lambda: "persistent launches" if fresh_default(version) else "none"),
                named=switch_line(NAMED_ENV, lambda: "PINGPONG launches" if named_turn_default(version) else "none"),
                poly=switch_line(POLY_ENV, lambda: "d=64 unmasked tiles" if poly_default(version) else "none"),
                mma_sum=switch_line(MMA_SUM_ENV, lambda: "d=64 OVERLAP launches without HALF, CARRY or ALiBi"
                                    if mma_sum_default(version) else "none"),
                bwd_thread_arrive=switch_line(BWD_THREAD_ARRIVE_ENV, lambda: "every backward launch"
                                              if bwd_thread_arrive_default(version) else "none"))


def p_pack_default(version: str) -> bool:
    """Whether the ws forward converts key tile 0's P to fp16/bf16 with one inline-asm cvt a pair
    (kernels/_ws_softmax.py p_operand): P_PACK_ENV when set (1 or 0), else on for the tritons of P_PACK_TRITONS.
    Under triton 3.8 LLVM folds the two P conversions that meet at the loop's phi into one after it, so the loop
    carries fp32 P and ptxas spends 32 PRMT a trip in the default partition's consumer
    (assets/benchmarks/tune/cpu-sm90-sass-loops-2026-12-05.txt); an asm conversion cannot be folded. Under 3.6 and
    3.9 nothing is folded and the asm adds register moves. Off everywhere: on an H100 under 3.8 it timed no faster
    (d = 64, alternating runs: assets/benchmarks/tune/nvidia-h100-fwd-ppack*-triton38-2026-12-05.json), so those
    PRMT are not what makes 3.8's d = 64 forward slower than 3.6's; with SKIP on, again no faster in every cell
    (two pairs, cells either side of 1: nvidia-h100-fwd-ppack{0,1}-skip-run{1,2}-triton38-2026-12-06.json); its
    GPU tests passed as far as they ran (assets/verified/nvidia-h100-triton-3.8.0-ws-forward-ppack.json, interrupted
    at the device's time limit)."""
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
    stays off; its GPU tests passed under 3.6 (assets/verified/nvidia-h100-triton-3.6.0-ws-forward-split-bars.json)
    and 3.8 (...-3.8.0-ws-forward-split-bars.json). On the d = 128 window under 3.8 (HALF_TAIL on) it ran the window
    of 1024 faster in four pairs of alternating processes and those of 512 and 2048 slower in most
    (tune/nvidia-h100-window-fit-d128-split-bars{0,1}-pair{1..4}-triton38-2026-12-07.json): off still.
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


def skip_default(version: str) -> bool:
    """Whether each consumer of a three-consumer ws forward launch (192-row query tiles: d = 64's table launches)
    walks only the key tiles some row of its own 64 sees (kernels/_ws_range.py own_tiles; no window, documents or
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


def thread_arrive_default(version: str) -> bool:
    """Whether a ws forward consumer frees a K or V ring slot and hands on its PINGPONG turn with one
    cp.async.mbarrier.arrive.noinc from each of its 128 threads (kernels/_ws_ring.py arrive; those barriers count
    128 arrivals a consumer) instead of Gluon's mbarrier.arrive, which arrives from thread 0 only and so comes after
    a warpgroup BAR.SYNC that Triton puts before every such arrive, whichever allocation it names (CPU builds under
    3.8 and 3.9: test_triton_puts_a_bar_sync_before_each_one_thread_arrive in tests/tools/test_sass_loops.py; the
    lowering, ArriveBarrierOpConversion in triton's third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/BarrierOpToLLVM.cpp
    (read at triton-lang/triton 015be07), syncs first because an arrive "has block-level semantics"; mbarrier.expect's
    lowering does the same). A d = 128 loop trip issues one for the turn, one for K's slot and one for V's
    (assets/benchmarks/tune/cpu-sm90-ptx-bars-fwd-triton38-2026-12-06.txt), more BAR in all than FlashAttention-4's
    sm90 trip, and FA4 finishes a cell in fewer SM cycles at the same clock (docs/BENCHMARKS.md's clock tables). Each
    thread arrives after its own warpgroup_mma_wait, so a slot frees only once all four warps are past the MMA that
    read it, as after the BAR.SYNC. Built for sm_90a on a CPU under 3.8, a trip holds fewer BAR with it
    (assets/benchmarks/tune/cpu-sm90-sass-loops-fwd-arrive-triton38-2026-12-06.txt) and fewer than FA4's with
    SPLIT_BARS too (...-fwd-arrive-split-...; tests/tools/test_sass_loops.py holds both files to their counts):
    without it Triton's barrier pass still syncs the warps between two accesses of one allocation (a wait and an
    arrive on the turn array; the arrives on K's and V's empty barriers, one array). Timed on the H100 under 3.8
    (fwd, N = 16384, against cuDNN in alternating processes, with and without SPLIT_BARS) it was no faster, a little
    slower in most cells (assets/benchmarks/tune/nvidia-h100-fwd-arrive-ab-triton38-2026-12-07.txt): fewer BAR
    bought this way (128 arrivals in place of one) does not speed the trip, so it stays off.
    THREAD_ARRIVE_ENV when set (1 or 0), else on for the tritons of THREAD_ARRIVE_TRITONS."""
    return _on_where(THREAD_ARRIVE_ENV, THREAD_ARRIVE_TRITONS, version,
                     "1 (every thread arrives) or 0 (thread 0 after a BAR.SYNC)")


def half_tail_default(version: str) -> bool:
    """Whether HALF's last step (the diagonal or band-end key tile a consumer sees only the first half of,
    kernels/_ws_half.py) issues its Q·K_hᵀ right behind the last whole key tile's P·V (half_tail), so the tensor
    cores run the two back to back, instead of after that P·V's wait (half_step then runs Q·Kᵀ, softmax and P·V one
    after the other). Sampled on an H100 under 3.8 (ncu's warp states,
    assets/benchmarks/ncu/nvidia-h100-ncu-source-fwd-d128-win1024-triton38-2026-12-07.json), a window of 1024 spent
    about a third of its consumers' samples outside their key loops (dense causal: about a twentieth), the last
    P·V's wait and the half step among the heaviest. Timed there in alternating processes (tools/device/
    window_check.sh ab), the d = 128 window of 1024 at N = 16384 ran faster with it in all seven pairs
    (nvidia-h100-window-fit-d128-half-tail{0,1}-pair{1..7}-triton38-2026-12-07.json), the windows of 512 and
    2048 timed beside it even (so not the same saving on every query tile, which would show most at 512), and dense
    causal forward cells even against cuDNN (nvidia-h100-fwd-half-tail{0,1}-run{1,2}-...;
    tests/kernels/test_ws_half_tail.py reads both); the forward's GPU files passed with HALF and it forced
    (assets/verified/nvidia-h100-triton-3.8.0-ws-forward-half-tail.json), so it is 3.8's default, where HALF runs.
    Running the half's softmax under that P·V too, as a loop trip does, needs the loop's P read by two later P·Vs:
    LLVM then folds P's conversion past the loop and the loop carries fp32 P (32 PRMT a trip, spills and serialised
    wgmma on a CPU sm_90a build under 3.8), so only the Q·Kᵀ moves. Its mirror on a window's leading edge (the
    first half step's P·V behind key tile 0's Q·Kᵀ) timed no faster and was not kept
    (nvidia-h100-window-fit-d128-half-lead{0,1}-pair{1,2,3}-...). HALF_TAIL_ENV when set (1 or 0), else on for the
    tritons of HALF_TAIL_TRITONS."""
    return _on_where(HALF_TAIL_ENV, HALF_TAIL_TRITONS, version,
                     "1 (half step beside the last P·V) or 0 (after it)")


def q_ahead_default(version: str) -> bool:
    """Whether a persistent ws forward's producer loads query tile t+1's Q while it loads tile t's K/V (after the
    first STAGES + 2 of them, when the consumers have freed that Q slot) instead of after all of them, when the
    consumers are about STAGES key tiles from tile t's end. Asked because a window's consumers sat idle between
    tiles; tools/window_trace.py then measured that wait for Q on the H100 (window 1024, d = 128): under 3.8 a
    small share of a tile, the idle time being the consumers' own code between two key loops
    (nvidia-h100-window-trace-d128-q-ahead{0,1}-triton{38,36}-2026-12-07.json; the test below pins the share). In
    alternating processes under 3.8 (tools/device/window_check.sh ab) the window of 1024 ran slower with it in
    both pairs, 2048 too (nvidia-h100-window-fit-d128-q-ahead{0,1}-pair{1,2}-triton38-2026-12-07.json), so it is
    off; the forward's GPU files passed with it forced (tests/kernels/test_ws_q_ahead.py reads them all).
    Q_AHEAD_ENV when set (1 or 0), else on for the tritons of Q_AHEAD_TRITONS."""
    return _on_where(Q_AHEAD_ENV, Q_AHEAD_TRITONS, version, "1 (next Q early) or 0 (after this tile's K/V)")


def walk_default(version: str) -> bool:
    """Whether a persistent ws forward's partitions step their tile order (kernels/_ws_order.py walk_next: no
    division inside a head group) instead of decoding each tile with persistent_tile's two run-time integer
    divisions, which ptxas builds as long dependent chains between a query tile's last P·V and the next one's first
    Q·Kᵀ, the part of a window's query tile that tools/window_trace.py found costing about a key-loop trip.
    Same order, same tiles (tests/kernels/test_ws_host.py runs both on the host). Built for sm_90a under 3.8 the
    window's usual path from the loop's top to the Q wait is about 40 instructions shorter, but ptxas spills more of the
    scalars it keeps between tiles (56 B stored / 96 B loaded against 32 / 80). In alternating processes on an H100
    under 3.8 (tools/device/window_check.sh ab, three pairs) the window of 1024 came out even (one pair slower, two
    faster) and 512 slower in every pair (nvidia-h100-window-fit-d128-walk{0,1}-pair{1,2,3}-triton38-2026-12-07.json),
    so it is off; the forward's GPU files passed with it forced (tests/kernels/test_ws_walk.py reads them all).
    With FRESH on as well (fresh_default) the spills drop below either's and 1024 gains, 512 loses: fresh_default.
    WALK_ENV when set (1 or 0), else on for the tritons of WALK_TRITONS."""
    return _on_where(WALK_ENV, WALK_TRITONS, version, "1 (step the tile order) or 0 (decode each tile)")


def fresh_default(version: str) -> bool:
    """Whether a persistent ws forward's consumers read n_q, n_k, left and the program count afresh at each query
    tile (opaque movs, kernels/_ws_gluon.py _fresh and _nprog; the walk then a while loop). Without it LLVM hoists
    what attend derives from them out of the tile loop and ptxas, with the key loop at 238 of 240 registers, keeps
    those scalars in local memory and reloads them between tiles: the sm_90a window build under 3.8 (d = 128, HALF)
    spills 32 B and reloads 80 B, one reload on every tile's back edge; with it nothing (tools.compile_check --ws).
    Traced on an H100 (tools.window_trace, sizes only, ...-window-trace-d128-lead-*) it shortened both consumers'
    tile period. Timed on an H100 under 3.8 with both sides in the same interleaved rounds (tools.window_fit
    --switch, four processes, ...-window-fit-fresh-same{1,2,3,4}-{0,1}-...): the d = 128 window of 1024
    faster in three processes and slower in the fourth, within 2 % each, every d = 64 window slower (the two
    processes that timed d = 64), and dense d = 128 without a mask (persistent too) slower at both N
    (...-fwd-fresh-switch-d128-...). Earlier A/Bs in alternating processes (sizes only; with WALK) moved no window
    by 3 %: nvidia-h100-window-fit-d128-fresh{0,1}-pair*-, -fresh1-walk*-, -fresh-walk-both*-. So it is off; its
    GPU files passed with it forced (gates row). tests/kernels/test_ws_fresh.py reads the files.
    FRESH_ENV when set (1 or 0), else on for the tritons of FRESH_TRITONS."""
    return _on_where(FRESH_ENV, FRESH_TRITONS, version, "1 (sizes and step read afresh each tile) or 0 (hoisted)")


def named_turn_default(version: str) -> bool:
    """Whether a PINGPONG launch of the ws forward hands its consumers' turns on through hardware named barriers
    (kernels/_ws_ring.py turn_wait / turn_pass: bar.sync by the waiting warpgroup, bar.arrive by the one before it,
    256 threads; ids 8 + consumer) instead of one mbarrier a consumer (a polled wait, and before each arrive a
    BAR.SYNC of the arriving warpgroup), the way FlashAttention-3 and -4 schedule their warpgroups on Hopper. Read at
    each launch (ws.forward passes PINGPONG=2), so tools.fa4_rounds --switch and tools.window_fit --switch time both
    sides in one process. Built for sm_90a under 3.8, each path of a key-loop trip holds two SYNCS fewer and one BAR
    more (assets/benchmarks/tune/cpu-sm90-sass-loops-fwd-named{0,1}-triton38-2026-12-07.txt; FA4's trip:
    cpu-sm90-sass-loops-2026-12-05.txt). Off everywhere: timed on an H100 under 3.8 with both sides in the same
    rounds (tools.fa4_rounds --switch), the dense cells showed no steady gain either way, with equal errors on both
    sides (nvidia-h100-fwd-named-switch-triton38-2026-12-07.json). Its GPU files and the windows have not run with
    it (named_check.sh suite, windows). tests/kernels/test_ws_named.py reads the files.
    NAMED_ENV when set (1 or 0), else on for the tritons of NAMED_TRITONS."""
    return _on_where(NAMED_ENV, NAMED_TRITONS, version, "1 (named-barrier turns) or 0 (mbarrier turns)")


def poly_default(version: str) -> bool:
    """Whether the ws forward's d = 64 launches (no ALiBi) compute one exponential in eight of an unmasked key tile
    by a cubic on the FMA pipe (kernels/_ws_softmax.py POLY_ASM; _ws_bwd_exp.py's fit) instead of MUFU.EX2. Why:
    at d = 64 a trip's 66 MUFU.EX2 a thread, at 16 a cycle an SM, ask as many SM cycles as its MMAs at the tensor
    cores' peak (tools/sass_loops.py says it), so the SFU and the tensor cores must overlap perfectly to run at
    peak; FA4's Blackwell kernels emulate a share of their exp2 on the FMA pipe for the same reason. One in eight
    keeps the trip's issue slots below its MMA cycles: built for sm_90a under 3.8, fewer MUFU.EX2 and more
    instructions a trip, no new spills (assets/benchmarks/tune/cpu-sm90-sass-loops-fwd-poly1-triton38-2026-12-08.txt;
    off: ...-fwd-named0-triton38-2026-12-07.txt). Off everywhere: on an H100 under 3.8 (tools/device/d64_check.sh
    FLASHVIZ_WS_POLY, alternating processes against cuDNN) it ran slower in every d = 64 cell of two pairs
    (tune/nvidia-h100-fwd-poly-ab-triton38-2026-12-08.txt and its four files; tests/kernels/test_ws_poly.py), its
    GPU files passing with it forced (assets/verified/nvidia-h100-triton-3.8.0-ws-forward-poly.json): the added
    instructions cost more than the MUFU.EX2 removed saved, so the SFU's cycles alone do not bound the trip.
    POLY_ENV when set (1 or 0), else on for the tritons of POLY_TRITONS."""
    return _on_where(POLY_ENV, POLY_TRITONS, version, "1 (one exponential in eight on the FMA pipe) or 0 (all MUFU)")


def mma_sum_default(version: str) -> bool:
    """Whether the ws forward's d = 64 OVERLAP launches (no HALF, CARRY, early rescale or ALiBi) take each row's
    sum of P from a wgmma of P (the same fp16 / bf16 registers as P·V's A operand) against a shared 8 x BN tile of
    ones, issued beside P·V and rescaled with O, instead of 64 FADDs a thread a trip (kernels/_ws_tile.py MSUM):
    O's numerator and denominator then sum the same rounded P. Why: POLY's added instructions ran the d = 64
    forward slower (poly_default), so fewer may run it faster, and the d = 64 ncu sample left the SM's compute
    throughput about half used (assets/benchmarks/ncu/nvidia-h100-ncu-source-fwd-d64-early0-triton38-2026-12-05.json).
    Built for sm_90a under 3.8 the FADDs go and a few HGMMA and FMUL come, but its 4 accumulator registers do not
    fit the three-consumer budget, so ptxas spills, also inside the key loop (tune/cpu-sm90-sass-loops-fwd-mma-sum1-
    triton38-2026-12-08.txt; cpu-sm90-compile-fwd-d64-mma-sum1-triton38-2026-12-08.txt, on beside off).
    Untimed and its GPU files not run with it (tools/device/d64_check.sh FLASHVIZ_WS_MMA_SUM ab suite): off.
    MMA_SUM_ENV when set (1 or 0), else on for the tritons of MMA_SUM_TRITONS."""
    return _on_where(MMA_SUM_ENV, MMA_SUM_TRITONS, version, "1 (row sums by wgmma) or 0 (by FADD)")


def bwd_thread_arrive_default(version: str) -> bool:
    """thread_arrive_default for the ws backward (kernels/_ws_bwd_walk.py release): a consumer frees a ring stage
    (Q_i, dO_i) and its dS^T slot with one cp.async.mbarrier.arrive.noinc from each of its 128 threads, after the
    MMAs that read them are waited for, so Triton puts no BAR.SYNC before those two arrives. dS^T's ready barrier
    keeps thread 0's arrive after the BAR.SYNC: it publishes every thread's stores of dS^T. Built for sm_90a on a CPU
    under 3.8, every path through its loops holds one BAR fewer with it (assets/benchmarks/tune/
    cpu-sm90-sass-loops-bwd-arrive-triton38-2026-12-06.txt) than without (...-bwd-triton38-...); FlashAttention-4's
    sm90 backward: cpu-sm90-sass-loops-2026-12-05.txt. Timed on an H100 under 3.8 (tools/device/bwd_arrive_check.sh:
    float64 check, A/B in alternating processes against cuDNN; nvidia-h100-bwd-arrive-ab-triton38-2026-12-07.txt and
    its 14 files), its gradients match float64 and test_ws_bwd_gpu.py passes with it forced on (assets/verified/
    nvidia-h100-triton-3.8.0-ws-backward-thread-arrive.json), but its gain, if any, is within what seven pairs
    resolve: three pairs came out slower, four faster. So off everywhere.
    BWD_THREAD_ARRIVE_ENV when set (1 or 0), else on for the tritons of BWD_THREAD_ARRIVE_TRITONS."""
    return _on_where(BWD_THREAD_ARRIVE_ENV, BWD_THREAD_ARRIVE_TRITONS, version,
                     "1 (every thread arrives) or 0 (thread 0 after a BAR.SYNC)")


def skipped_share(n_q: int, n_k: int, block_m: int, block_n: int, causal: bool, m_wg: int = 64) -> float:
    """The share of consumer key-tile trips a launch's consumers make that skip_default's SKIP passes on: per query
    tile and consumer (m_wg rows), the key tiles the tile walks (kernels/_ws_range.py key_range, no window) that no
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
