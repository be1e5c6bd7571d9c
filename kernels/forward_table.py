"""The forward family's dispatch table: which kernel impl="fast" runs and how each kernel launches.

  ROUTES       (variant, d, causal, N = min(Nq, Nk)) -> "ws" (kernels/ws.py) or "tl" (kernels/fast.py)
  WS_LAUNCHES  (variant, d, causal) -> the ws kernel's schedule: block_n, stages, overlap, pingpong, persistent,
               consumers (NC warpgroups of 64 query rows: block_m = 64 NC); a band row may add half
               (kernels/_ws_half.py; off unless a row says so, and where kernels/gates.py's "ws-half" rows verify the
               triton)
  TL_LAUNCHES  (d up to, causal, element bytes) -> the tl kernel's block_m, block_n, num_warps, num_stages
A call's variants: "dense" (plain or causal; GQA/MQA read K/V heads in place and follow it), plus "window" (a causal
window's left side), "alibi" (causal ALiBi), "docs" (packed documents). impl="fast" with no pinned launch runs ws
only where the dense row for its (d, causal, N) and the row of each other variant it has at d say "ws", ws takes
the inputs (ws.takes: no softcap; ALiBi and windows causal only; fp16/bf16, d 64 or 128) and kernels/gates.py
verifies this (triton, GPU) for "ws-forward" (gates.describe lists the pairs); otherwise, and for anything no row
names, the tl kernel. A ws launch takes its dense row's schedule, then the fields a band's row (window, else docs)
sets (persistent, consumers, half, stages, pingpong), then those ALiBi's row sets (ws.schedule; at three consumers a
persistent or banded launch runs without OVERLAP: ws.overlap_default). Every claim (kernels/claims.py) is checked
against its file by tests/kernels/test_dispatch_evidence.py; docs/BENCHMARKS.md prints each row with the figures
its file holds.
"""
from __future__ import annotations

import sys

from .claims import Faster, Fastest, NotFaster
from .tables import ANY, Launch, Memo, Route, View, dims

WS_RUN = "assets/benchmarks/ws/nvidia-h200-ws-2026-12-01b.json"          # ws and tl (pinned) against cuDNN
FWD_1130 = "assets/benchmarks/nvidia-h200-fwd-2026-11-30.json"          # CUDA-graph times below N = 4096
NC3 = "assets/benchmarks/tune/nvidia-h200-ws-nc3-2026-12-01.json"
OVERLAP = "assets/benchmarks/tune/nvidia-h200-ws-overlap-2026-12-01.json"
WINDOW_B = "assets/benchmarks/tune/nvidia-h200-window-2026-12-01b.txt"
WINDOW_C = "assets/benchmarks/tune/nvidia-h200-window-2026-12-01c.txt"
ALIBI = "assets/benchmarks/tune/nvidia-h200-alibi-2026-12-01.txt"
ALIBI_B = "assets/benchmarks/tune/nvidia-h200-alibi-2026-12-01b.txt"
DOCS = "assets/benchmarks/tune/nvidia-h200-docs-2026-12-01.txt"
PINGPONG_W = "assets/benchmarks/tune/nvidia-h200-window-pingpong-{}-2026-12-03.txt"   # after CARRY (b61c793)
HALF_W = "assets/benchmarks/tune/nvidia-h200-window-half-{}-2026-12-03.txt"   # timed under triton 3.8.0 only
WINDOW_D64_H100 = "assets/benchmarks/tune/nvidia-h100-window-1024-d64-triton38-2026-12-06.txt"   # 3 rounds, 3.8.0
OVERLAP_D64 = "assets/benchmarks/tune/nvidia-h200-ws-overlap-d64-2026-12-03.json"   # FA4's d=64 mix, 8 rounds
OVERLAP_D64_38 = "assets/benchmarks/tune/nvidia-h200-ws-overlap-d64-triton38-2026-12-03.json"   # the same, 3.8.0
PP_D128_38 = "assets/benchmarks/tune/nvidia-h200-ws-overlap-d128-triton38-2026-12-05.json"    # non-causal, 3.8.0
PERS_D128_38 = "assets/benchmarks/tune/nvidia-h200-ws-persistent-d128-triton38-2026-12-05.json"   # the same, both
# three consumers against two (FLASHVIZ_WS_CONSUMERS=2) in same-process rounds on an H100, N 4096..16384 (NC3 has no
# N = 4096, where a 192-row tile leaves a partial last query block): "fast" there is the table's three
NC3_H100 = "assets/benchmarks/tune/nvidia-h100-consumers-d64-triton{}-2026-12-06.json"
# persistent (FLASHVIZ_WS_PERSISTENT=1) against one tile per program (=0, "fast" there) in the same rounds, FA4 and
# cuDNN beside them, on an H100 under 3.8 with SKIP and LPT at their defaults
PERS_H100 = "assets/benchmarks/tune/nvidia-h100-fa4-rounds-persistent-triton38-2026-12-06.json"
PERS_PP0_H100 = "assets/benchmarks/tune/nvidia-h100-fa4-rounds-persistent-pp0-d128-triton38-2026-12-06.json"  # both
ONE, PERS = dict(name="fast"), dict(name="fast FLASHVIZ_WS_PERSISTENT=1")                 # without PINGPONG (CARRY)
# the same question call by call (L2 cleared, the bench's timer) at N = 16384, SM clocks sampled: there "fast" ran
# persistent and "fast FLASHVIZ_WS_PERSISTENT=0" one tile per program
PERS_CALLS_H100 = "assets/benchmarks/tune/nvidia-h100-fwd16k-calls-clocks-persistent-triton38-2026-12-06.json"
ONE_CALLS, PERS_CALLS = dict(name="fast FLASHVIZ_WS_PERSISTENT=0"), dict(name="fast")
# HALF (FLASHVIZ_WS_HALF=1) against whole tiles (=0, "fast" there) in dense causal launches, same-process rounds on an
# H100: under 3.8 faster in every cell (ws_schedule.HALF_DENSE_TRITONS), under 3.6 slower in every cell
HALF_C_H100 = "assets/benchmarks/tune/nvidia-h100-fwd-half-switch-causal-triton{}-2026-12-06.json"
HALF_ON = dict(name="fast FLASHVIZ_WS_HALF=1")

# the GPU and triton a kernel runs with: kernels/gates.py's rows for its path (a kernel not named here runs anywhere)
GATES = {"ws": "ws-forward"}

WS, TL = dict(name="ws"), dict(name="fast")       # in WS_RUN and FWD_1130, "fast" is the tl kernel (pinned or
PICKED, BAND = dict(name="ws as picked"), dict(name="ws persistent=1 NC=2")   # below its ws threshold then)


def _dense_ws(d, causal):
    return Faster(WS_RUN, WS, TL, dict(d=d, causal=causal))


def _graph_ws(d, causal):
    return Faster(FWD_1130, WS, TL, dict(d=d, causal=causal, n=(1024, 2048)), metric="graph_ms")


ROUTES = (
    Route("dense", dims(64), False, (4096, None), "ws", "ws (three consumers) faster than tl at every N timed",
          (_dense_ws(64, False),)),
    Route("dense", dims(64), True, (4096, None), "ws", "ws (three consumers) faster than tl at every N timed",
          (_dense_ws(64, True),)),
    Route("dense", dims(64), ANY, (1024, 4095), "tl", "launch-bound sizes: tl's CUDA-graph time as low or lower",
          (NotFaster(FWD_1130, WS, TL, dict(d=64, n=(1024, 2048)), metric="graph_ms"),)),
    Route("dense", dims(128), False, (4096, None), "ws", "ws faster than tl at every N timed",
          (_dense_ws(128, False),)),
    Route("dense", dims(128), True, (4096, None), "ws", "ws faster than tl at every N timed",
          (_dense_ws(128, True),)),
    Route("dense", dims(128), False, (1024, 4095), "ws", "launch-bound sizes: ws's CUDA-graph time below tl's",
          (_graph_ws(128, False),)),
    Route("dense", dims(128), True, (1024, 4095), "ws", "launch-bound sizes: ws's CUDA-graph time below tl's",
          (_graph_ws(128, True),)),
    Route("window", dims(64), True, (1, None), "ws",
          "ws (its band schedule) faster than tl as fast ran it then; tl's best tile won the later run (c) under "
          "3.6; under 3.8 on an H100, in interleaved rounds, ws beat every tl tile timed",
          (Faster(WINDOW_B, PICKED, dict(name="fast dispatched"), dict(d=64)),
           Faster(WINDOW_D64_H100, PICKED, dict(name="tl (*"), dict(d=64)))),
    Route("window", dims(128), True, (1, None), "ws", "ws (its band schedule) faster than tl's (128, 64) tile",
          (Faster(WINDOW_B, PICKED, dict(name="tl (128, 64, 4, 2)"), dict(d=128)),
           Faster(WINDOW_C, PICKED, dict(name="tl (128, 64, 4, 2)"), dict(d=128)))),
    Route("alibi", dims(64), True, (1, None), "ws", "ws faster than every tl tile timed",
          (Faster(ALIBI, PICKED, dict(name="tl (*"), dict(d=64)),)),
    Route("alibi", dims(128), True, (1, None), "ws", "ws faster than every tl tile timed",
          (Faster(ALIBI, PICKED, dict(name="tl (*"), dict(d=128)),)),
    Route("docs", dims(128), ANY, (1, None), "ws", "ws (band schedule) faster than tl as fast ran it, N 4096 and 16384",
          (Faster(DOCS, BAND, dict(name="fast dispatched"), dict(d=128)),)),
    Route("docs", dims(64), ANY, (1, None), "tl", "ws not faster than tl as fast ran it at N = 4096",
          (NotFaster(DOCS, BAND, dict(name="fast dispatched"), dict(d=64)),)),
)


def _ws(block_n, stages, overlap, pingpong, persistent, consumers):
    return dict(block_n=block_n, stages=stages, overlap=overlap, pingpong=pingpong, persistent=persistent,
                consumers=consumers)


_D64 = _ws(128, 2, True, True, False, 3)           # FA4's sm90 d=64 mix: 2 stages, OVERLAP, PINGPONG over three
_D64_BAND = dict(stages=3, pingpong=False, half=False)   # the d=64 band and ALiBi rows keep the schedule they were
                                                         # timed with (whole tiles: HALF untimed there)
_D128 = _ws(128, 2, True, True, True, 2)            # PINGPONG since 2026-12-05: faster under triton 3.8 (claims)
_D128_TIMED = dict(_D128, pingpong=False)           # the schedule OVERLAP's 3.6 run timed OVERLAP and persistence in
_D128C = _ws(128, 2, True, True, False, 2)


def _overlap_on(fields, d, causal, within):
    return Faster(OVERLAP, dict(fields, overlap=True), dict(fields, overlap=False), dict(d=d, causal=causal),
                  within=within)


def _fa4_mix(causal):
    """Non-causal: PINGPONG faster than without in every cell, 2 stages within 1 % of 3; causal: the fastest; under
    triton 3.8 (what a fresh install gets) faster than the row it replaced in every cell."""
    mix, three = dict(consumers=3, block_n=128, stages=2, overlap=True, pingpong=True), dict(consumers=(2, 3))
    where, before = dict(d=64, causal=causal), dict(consumers=3, stages=3, overlap=True, pingpong=False)
    on_38 = Faster(OVERLAP_D64_38, mix, before, where)
    if causal:
        return (Fastest(OVERLAP_D64, mix, three, where, geomean=True), on_38)
    return (Faster(OVERLAP_D64, mix, dict(consumers=3, stages=3, pingpong=False), where, within=0.99),
            Fastest(OVERLAP_D64, mix, three, where, within=1.01, geomean=True), on_38)


def _d128_claims():
    """d = 128, non-causal: OVERLAP and persistence as 3.6's OVERLAP run timed them (without PINGPONG); PINGPONG
    against the same launch without it under 3.8, in two runs (PP_D128_38's rows name persistent None: the table's,
    persistent; PERS_D128_38 times both)."""
    where, pp = dict(d=128, causal=False), {k: v for k, v in _D128.items() if k != "persistent"}
    return (_overlap_on(_D128_TIMED, 128, False, 0.98),
            Faster(OVERLAP, _D128_TIMED, dict(_D128_TIMED, persistent=False), where),
            Faster(PP_D128_38, pp, dict(pp, pingpong=False), where),
            Faster(PERS_D128_38, _D128, dict(_D128, pingpong=False), where),
            Faster(PERS_D128_38, _D128, dict(_D128, persistent=False), where),
            Faster(PERS_H100, PERS, ONE, where))


def _half_dense(d):
    """HALF in the dense causal row: faster than whole tiles under 3.8 in every cell, slower under 3.6 (why
    ws_schedule.HALF_DENSE_TRITONS holds 3.8 only)."""
    where = dict(d=d, causal=True)
    return (Faster(HALF_C_H100.format("38"), HALF_ON, ONE, where),
            NotFaster(HALF_C_H100.format("36"), HALF_ON, ONE, where))


def _nc3(causal):
    return (Faster(NC3, dict(consumers=3, block_n=128, stages=3, overlap=False, pingpong=False), dict(consumers=2),
                   dict(d=64, causal=causal), within=0.93),) + \
        tuple(Faster(NC3_H100.format(v), dict(name="fast"), dict(name="fast FLASHVIZ_WS_CONSUMERS=2"),
                     dict(d=64, causal=causal)) for v in ("36", "38")) + \
        (Faster(PERS_H100, ONE, PERS, dict(d=64, causal=causal)),
         Faster(PERS_CALLS_H100, ONE_CALLS, PERS_CALLS, dict(d=64, causal=causal)))


WS_LAUNCHES = (
    Launch("ws", "dense", dims(64), False, _D64, "three consumers (192-row tiles) at least 7 % faster than two, "
           "and with this schedule faster than two on an H100 in every cell from N = 4096 (3.6, 3.8); FA4's mix: "
           "PINGPONG over the three at least 1 % faster than without in every cell, 2 stages within 1 % "
           "of 3; under triton 3.8 faster than the 3-stage row without PINGPONG in every cell; one tile per "
           "program faster than persistent on an H100 (3.8; call by call too, at N = 16384)",
           _nc3(False) + _fa4_mix(False)),
    Launch("ws", "dense", dims(64), True, dict(_D64, half=True), "three consumers at least 7 % faster than two, "
           "and with this schedule faster than two on an H100 in every cell from N = 4096 (3.6, 3.8); FA4's mix (2 "
           "stages, OVERLAP, PINGPONG) the fastest of six schedules in geometric mean; under triton 3.8 faster than "
           "the 3-stage row without PINGPONG in every cell; one tile per program faster than persistent on an H100 "
           "(3.8; call by call too, at N = 16384); HALF (the diagonal tile's half a consumer sees, run as that "
           "half) faster on an H100 under 3.8, slower under 3.6 (ws_schedule.HALF_DENSE_TRITONS keeps it to 3.8)",
           _nc3(True) + _fa4_mix(True) + _half_dense(64)),
    Launch("ws", "dense", dims(128), False, _D128, "OVERLAP at least 2 % faster at every N and persistent faster "
           "than one tile per program (timed without PINGPONG, triton 3.6); PINGPONG faster than without in every "
           "cell of two runs under triton 3.8 (what a fresh install gets), persistent still faster there (and on "
           "an H100). 3.6's run, "
           "before CARRY (the launch without PINGPONG, since re-written), timed PINGPONG slower in geometric mean",
           _d128_claims()),
    Launch("ws", "dense", dims(128), True, dict(_D128C, half=True), "OVERLAP at least 2 % faster at every N; with "
           "PINGPONG, one tile per program (faster than persistent on an H100 under 3.8 too, call by call too at "
           "N = 16384, and without PINGPONG, "
           "where persistent launches carry a tile's last P·V into the next); HALF faster on an H100 under 3.8, "
           "slower under 3.6 (ws_schedule.HALF_DENSE_TRITONS keeps it to 3.8)",
           (_overlap_on(_D128C, 128, True, 0.98),
            Faster(OVERLAP, _D128C, dict(_D128C, pingpong=False), dict(d=128, causal=True)),
            Faster(OVERLAP, _D128C, dict(_D128C, persistent=True), dict(d=128, causal=True)),
            Faster(PERS_H100, ONE, PERS, dict(d=128, causal=True)),
            Faster(PERS_PP0_H100, ONE, PERS, dict(d=128, causal=True)),
            Faster(PERS_CALLS_H100, ONE_CALLS, PERS_CALLS, dict(d=128, causal=True))) + _half_dense(128)),
    Launch("ws", "window", dims(64), True, dict(persistent=True, consumers=2, **_D64_BAND),
           "persistent with two consumers: the fastest ws schedule timed, before and after OVERLAP and on an H100 "
           "under 3.8 (3 stages, no PINGPONG: the dense row's when timed)",
           tuple(Fastest(f, BAND, dict(name="ws persistent=*"), dict(d=64))
                 for f in (WINDOW_B, WINDOW_C, WINDOW_D64_H100))),
    Launch("ws", "window", dims(128), True, dict(persistent=True, consumers=2, half=True),
           "persistent: the fastest ws schedule timed, before and after OVERLAP; PINGPONG kept (the dense causal "
           "row's): without it the launch carries each tile's last P·V, not faster at windows 256 and 1024 (faster "
           "at 4096 in the same call: PINGPONG_W's files); HALF (a band edge's tile a consumer sees half of, run as "
           "that half) faster at windows 256 and 1024, in interleaved rounds under triton 3.8 (on an H100: faster at "
           "512-2048, slower at 256, tests/kernels/test_ws_half.py; 3.6's window fit: no gain), where "
           "kernels/gates.py lets it run and ws_schedule.HALF_TRITONS keeps it (3.9: slower)",
           tuple(Fastest(f, BAND, dict(name="ws persistent=*"), dict(d=128)) for f in (WINDOW_B, WINDOW_C))
           + tuple(NotFaster(PINGPONG_W.format(w), dict(name="ws pingpong=0"), dict(name="ws pingpong=1"),
                             dict(d=128)) for w in (256, 1024))
           + tuple(Faster(HALF_W.format(w), dict(name="ws half=1"), dict(name="ws half=0"), dict(d=128))
                   for w in (256, 1024))),
    Launch("ws", "docs", dims(128), ANY, dict(persistent=True, consumers=2, half=False),
           "a window's schedule: within 3 % of the fastest ws schedule timed (whole tiles: documents run no half "
           "steps)",
           (Fastest(DOCS, BAND, dict(name="ws persistent=*"), dict(d=128), within=1.03),)),
    Launch("ws", "docs", dims(64), ANY, dict(persistent=True, consumers=2, **_D64_BAND),
           "a window's schedule, as at d=128; one tile per program was faster at N = 4096 (kept: impl=\"fast\" runs "
           "d=64 documents on tl, so only impl=\"ws\" takes this row)",
           (NotFaster(DOCS, BAND, dict(name="ws persistent=*"), dict(d=64)),)),
    Launch("ws", "alibi", dims(64), True, dict(overlap=False, **_D64_BAND),
           "OVERLAP off: faster without it (three consumers' 160 registers spill with it; 3 stages, no PINGPONG: "
           "the dense row's when timed)",
           (Faster(ALIBI_B, dict(name="ws overlap=0"), dict(name="ws overlap=1"), dict(d=64)),)),
    Launch("ws", "alibi", dims(128), True, dict(overlap=True), "OVERLAP on: faster with it",
           (Faster(ALIBI_B, dict(name="ws overlap=1"), dict(name="ws overlap=0"), dict(d=128)),)),
)

_TUNED = ("tuned by `tune_fast --quick` on the H200 (2026-11-29, commit fdf04d8): its output is in that commit's "
          "message, not recorded in a file")
_FIT = "untuned: sized to fit shared memory"
TL_LAUNCHES = tuple(
    Launch("tl", "dense", (lo, hi), causal, dict(block_m=bm, block_n=bn, num_warps=w, num_stages=s),
           why, key=dict(itemsize=size))
    for size, rows in ((2, (((1, 32), (128, 128, 4, 3), _FIT + " (as d = 64)"), ((33, 64), (128, 128, 4, 3), _TUNED),
                            ((65, 128), (128, 64, 4, 2), _TUNED), ((129, 256), (64, 64, 4, 2), _FIT))),
                       (4, (((1, 32), (64, 64, 4, 2), _FIT), ((33, 64), (64, 64, 4, 2), _FIT),
                            ((65, 128), (64, 32, 4, 2), _FIT), ((129, 256), (32, 32, 4, 2), _FIT))))
    for (lo, hi), (bm, bn, w, s), why in rows for causal in (False, True))


def ws_thresholds() -> list[str]:
    """"d=128 causal=False N>=1024", ...: from which N the dense rows send each (d, causal) to ws (ws.status())."""
    least = {}
    for r in ROUTES:
        if r.variant == "dense" and r.kernel == "ws":
            for c in ((False, True) if r.causal is ANY else (r.causal,)):
                least[(r.d[0], c)] = min(least.get((r.d[0], c), r.n[0]), r.n[0])
    return sorted(f"d={d} causal={c} N>={n}" for (d, c), n in least.items())


def _ws_row(variant: str, d: int, causal: bool) -> Launch | None:
    return next((r for r in WS_LAUNCHES if r.covers("ws", variant, d, causal)), None)


_ws_row_memo = Memo(_ws_row, ((sys.modules[__name__], "WS_LAUNCHES"),))


def ws_rows(variant: str, d: int, causal: bool) -> Launch | None:
    """The first WS_LAUNCHES row of (variant, d, causal), or None (a frozen row: remembered per table)."""
    return _ws_row_memo(variant, int(d), bool(causal))


def ws_dense(d: int, causal: bool) -> dict:
    """The dense schedule of (d, causal): KeyError where the ws kernel has none (d not 64 or 128)."""
    row = ws_rows("dense", d, causal)
    if row is None:
        raise KeyError((d, causal))
    return dict(row.fields)


def ws_keys() -> list[tuple[int, bool]]:
    return [(r.d[0], c) for r in WS_LAUNCHES if r.variant == "dense"
            for c in ((False, True) if r.causal is ANY else (r.causal,))]


def ws_configs() -> View:
    """{(d, causal): (block_m, block_n, stages, overlap, pingpong, persistent, consumers)}: the dense rows, read
    live (ws.CONFIGS, for the pages and tools that show the schedule)."""
    def value(key):
        f = ws_dense(*key)
        return (64 * f["consumers"], f["block_n"], f["stages"], f["overlap"], f["pingpong"], f["persistent"],
                f["consumers"])
    return View(ws_keys, value)


def tl_tiles(d: int, causal: bool, itemsize: int) -> tuple[int, int, int, int]:
    """The tl kernel's (block_m, block_n, num_warps, num_stages) for head dim d (d <= 256)."""
    row = next(r for r in TL_LAUNCHES if r.covers("tl", "dense", d, causal, itemsize=4 if itemsize == 4 else 2))
    f = row.fields
    return f["block_m"], f["block_n"], f["num_warps"], f["num_stages"]


def tl_configs() -> View:
    """{(d bound, causal, element bytes): tiles} (fast.CONFIGS), read live."""
    keys = lambda: [(r.d[1], r.causal, r.key["itemsize"]) for r in TL_LAUNCHES]  # noqa: E731
    return View(keys, lambda key: tl_tiles(key[0], key[1], key[2]))


def all_rows():
    """Every row of the family, for the evidence test and the generated document."""
    return (*ROUTES, *WS_LAUNCHES, *TL_LAUNCHES)
