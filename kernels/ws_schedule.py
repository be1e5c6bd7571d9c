"""The ws forward's schedule for a launch: the forward table's rows (kernels/forward_table.py WS_LAUNCHES) resolved
for (d, causal, window, documents, ALiBi), the environment switches that override them for every launch
(PERSISTENT_ENV, CONSUMERS_ENV, OVERLAP_ENV; tests run both sides), and ws.status()'s lines saying which launches run
what and who decided it (the bench records them in every dataset's provenance). kernels/ws.py launches with it."""
from __future__ import annotations

from types import MappingProxyType

from . import forward_table
from .tables import Memo
from .ws_switches import env_switch, status_lines, switch_line

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

LPT_ENV = "FLASHVIZ_WS_LPT"                # 1 / 0: causal launches of one tile (forward) or key block (backward) a
                                           # program start a group of heads' longest tiles first (lpt_default)
LPT_WAVES = {"forward": (16, 32), "backward": (0, 64)}   # where LPT_ENV is unset: on in launches of so many
                                           # tiles (key blocks) per SM (lpt_default says why)
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
    slower (assets/benchmarks/tune/nvidia-h100-window-fit-d128-half*-triton39-*), its fixed cost per query tile most;
    3.9's ptxas spills the persistent window's HALF build several times more than 3.8's
    (tune/cpu-sm90-compile-half-triton38-vs-39-2026-12-05.txt). Under 3.8 on an H100, with both sides in the same rounds
    (tools.window_fit --switch), it ran each d = 128 window of 512-2048 faster than whole tiles
    (tune/nvidia-h100-window-fit-half-same1-{0,1}-triton38-2026-12-07.json). In dense causal launches (the diagonal tile
    the first consumers see half of) it was faster on an H100 under 3.8 in every cell of same-process rounds
    (tune/nvidia-h100-fwd-half-switch-causal-triton38-2026-12-06.json), though at d = 64 its build spills where whole
    tiles do not (tune/cpu-sm90-compile-half-triton38-2026-12-06.txt), and slower under 3.6, most at d = 64
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
    "early_rescale": ..., "local_sum": ..., "split_bars": ..., "pair_max": ..., "lpt": ..., "skip": ...,
    "thread_arrive": ..., "half_tail": ..., "q_ahead": ..., "walk": ..., "fresh": ..., "named": ...,
    "poly": ..., "mma_sum": ..., "bwd_thread_arrive": ...}
    for ws.status(); half_why: why this triton may not run HALF (kernels/gates.py), None where it may; version: the
    installed triton's (the build switches' lines: kernels/ws_switches.py status_lines)."""
    sw = status_lines(version)
    return dict(persistent=_persistent_status(), consumers=_consumers_status(), overlap=_overlap_status(),
                pingpong=_pingpong_status(), half=_half_status(half_why, version or None),
                **{k: sw[k] for k in ("p_pack", "early_rescale", "local_sum", "split_bars", "pair_max")},
                lpt=switch_line(LPT_ENV, lambda: "causal launches of one tile per program at " + ", ".join(
                    f"{lo}-{hi} {'key blocks' if kind == 'backward' else 'tiles'} per SM ({kind})"
                    for kind, (lo, hi) in LPT_WAVES.items())),
                skip=sw["skip"], thread_arrive=sw["thread_arrive"], half_tail=sw["half_tail"],
                q_ahead=sw["q_ahead"], walk=sw["walk"], fresh=sw["fresh"], named=sw["named"],
                poly=sw["poly"], mma_sum=sw["mma_sum"], bwd_thread_arrive=sw["bwd_thread_arrive"])


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

