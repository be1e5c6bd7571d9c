"""The backward family's dispatch table: which backward autograd runs ("auto") and how each one launches.

  ROUTES              (variant, d) -> "ws" (kernels/ws_bwd.py), "fused" (kernels/backward_fused.py) or "reference"
                      (kernels/backward.py, 7 matmuls: every variant; what runs where no row applies)
  WS_BWD_LAUNCHES     d -> the ws backward's block_m, stages, dq_split, rotate, dq_mode, early_dq
  FUSED_LAUNCHES      (d up to, element bytes) -> the fused backward's block_n, block_m, num_warps, num_stages, rotate
  REFERENCE_LAUNCHES  (d up to, element bytes) -> the reference's dK/dV and dQ tiles, num_warps, num_stages
A call's variants: "dense" (plain or causal), plus "window" (a sliding window), "docs" (packed documents), "gqa"
(K/V with fewer heads). "auto" runs ws where the dense row at d and the row of each other variant it has say "ws",
the ws backward takes the variant (no softcap, no ALiBi) and kernels/gates.py verifies "ws-backward" here; else
"fused" where the dense row says so, the variant is plain or causal and the gate verifies "fused-backward"; else
the reference. Rows' claims are checked against their files by tests/kernels/test_dispatch_evidence.py.
"""
from __future__ import annotations

import sys

from .claims import Faster, Fastest, NotFaster, Ran
from .tables import ANY, Launch, Memo, Route, View, dims

WS_D128 = "assets/benchmarks/tune/nvidia-h200-backward-ws-2026-12-02c.json"
WS_D128_ORDERS = "assets/benchmarks/tune/nvidia-h200-backward-ws-orders-2026-12-02c.json"   # early / first, prefetch 2
WS_D64 = "assets/benchmarks/tune/nvidia-h200-backward-ws-2026-12-02d.json"
WS_D64_ORDERS = "assets/benchmarks/tune/nvidia-h200-backward-ws-orders-d64-2026-12-02.json"   # early / first, prefetch 2
WS_EXP = "assets/benchmarks/tune/nvidia-h200-backward-ws-exp-d{d}-2026-12-05.json"   # ws_bwd.EXP_MODES at WS_BWD
# first, no ROTATE and next_s 1 beside the launch, triton 3.8 on an H100 (ws_bwd.next_default reads it too)
WS_H100_ORDERS = "assets/benchmarks/tune/nvidia-h100-backward-ws-orders-d{d}-triton38-2026-12-05.json"
FUSED = "assets/benchmarks/tune/nvidia-h200-backward-2026-11-30.json"
MASKS = "assets/benchmarks/tune/nvidia-h200-backward-ws-{variant}-d{d}-2026-12-02.json"   # with WS_BWD's launches
# the GPU and triton a kernel runs with: kernels/gates.py's rows for its path (the reference runs anywhere)
GATES = {"ws": "ws-backward", "fused": "fused-backward"}
# prefetch 2: the producer brings each query block's lse and delta with Q_i and dO_i (kernels/ws_bwd.py); d = 128:
# "frag" stages dQ in the accumulator's order (no bank conflicts), which left room for a third ring stage; d = 64:
# "rows-frag" is "rows" (FlashAttention-3's half-the-rows split) staged the same way
WS_BWD = {64: dict(block_m=128, stages=2, dq_split=1, rotate=True, dq_mode="rows-frag", early_dq=False, prefetch=2),
          128: dict(block_m=64, stages=3, dq_split=1, rotate=True, dq_mode="frag", early_dq=False, prefetch=2)}


def tune_name(f: dict, early=None) -> str:
    """The name tools/tune_backward.py gives this ws launch in its files (lse and delta starting the accumulators)."""
    early = f["early_dq"] if early is None else early
    return (f"ws{(f['block_m'], f['stages'], f['dq_split'], f['rotate'])} {f['dq_mode']} acc=1 "
            f"early={int(early)}" + (" first=1" if f.get("dq_first") and not early else "") +
            (f" pre={int(f['prefetch'])}" if f.get("prefetch") else ""))


def _ws_dense(d, file):
    me = dict(name=tune_name(WS_BWD[d]))
    return (Faster(file, me, dict(name="fused"), dict(d=d)), Faster(file, me, dict(name="reference"), dict(d=d)))


def _ws_mask(variant, d):
    file = MASKS.format(variant=variant, d=d)
    return (Faster(file, dict(name="ws"), dict(name="reference"), dict(d=d)),
            Ran(file, dict(name="ws"), max_err=2e-2 if variant == "gqa" else 1e-2))


ROUTES = (
    Route("dense", dims(64), ANY, (1, None), "ws", "faster than both Triton backwards in every cell",
          _ws_dense(64, WS_D64)),
    Route("dense", dims(128), ANY, (1, None), "ws", "faster than both Triton backwards in every cell",
          _ws_dense(128, WS_D128)),
    *(Route(v, dims(d), ANY, (1, None), "ws", f"faster than the 7-matmul reference (the only other backward that "
            f"takes {what}) in every cell", _ws_mask(v, d))
      for v, what in (("window", "windows"), ("docs", "documents"), ("gqa", "GQA")) for d in (64, 128)),
    Route("dense", (1, 64), ANY, (1, None), "fused", "faster than the reference at d = 64 in every cell (d < 64 "
          "untuned: as d = 64)", (Faster(FUSED, dict(name="fused(64, 64, 4, 3, True)"), dict(name="reference"),
                                         dict(d=64)),)),
    Route("dense", (65, 256), ANY, (1, None), "reference", "faster than every fused tile timed at d = 128",
          (Faster(FUSED, dict(name="reference"), dict(name="fused(*"), dict(d=128)),)),
)

def _orders(f: dict) -> list:
    """The launch with dQ's MMAs early (behind dK's) or first (before dK's), at f's prefetch."""
    return [tune_name(f, early=True), tune_name({**f, "dq_first": True})]


def _exp_claim(d: int, f: dict):
    """P^T's exponentials all on MUFU.EX2 as soon as S^T is done (exp_mode "mufu", the name without "exp=") no
    slower (geometric mean, within 1 %) than issuing them late or half as a cubic on the FMA pipe (ws_bwd.EXP_MODES)."""
    others = [f"{tune_name(f)} exp={e}" for e in ("late", "poly", "late-poly")]
    return Faster(WS_EXP.format(d=d), dict(name=tune_name(f)), dict(name=others), dict(d=d), within=1.01,
                  geomean=True)


def _h100_claim(d: int, f: dict):
    """dQ's MMAs first and the walk without ROTATE no faster (within 1 %) than the launch under triton 3.8 on an H100
    (WS_H100_ORDERS)."""
    rot = tune_name({**f, "rotate": False})
    return Faster(WS_H100_ORDERS.format(d=d), dict(name=tune_name(f)),
                  dict(name=[tune_name({**f, "dq_first": True}), rot]), dict(d=d), within=1.01, geomean=True)


def _orders_claim(d: int, f: dict):
    """dQ's MMAs early or first no faster (within 1 %) than the launch's order, timed at the launch's prefetch 2 in
    their own runs (WS_D128_ORDERS, WS_D64_ORDERS): at prefetch 0, WS_D128's run timed "first" and WS_D64's "early"
    faster than the plain order."""
    return Faster(WS_D128_ORDERS if d == 128 else WS_D64_ORDERS, dict(name=tune_name(f)), dict(name=_orders(f)),
                  dict(d=d), within=1.01, geomean=True)


WS_BWD_LAUNCHES = tuple(
    Launch("ws_bwd", "dense", dims(d), ANY, f, "the fastest ws tiles timed (geometric mean, within 1 %); the row "
           "statistics loaded with Q_i and dO_i faster than at each block's start or a block ahead in registers; dQ's "
           "MMAs early (behind dK's) or first (before dK's, FlashAttention-3's order) no faster (within 1 %; "
           "first nor the walk without ROTATE under triton 3.8 on an H100); "
           "the exponentials on MUFU as soon as S^T is done no slower than any other EXP_MODES order (within 1 %)",
           (Fastest(file, dict(name=tune_name(f)), dict(name="ws(*", dq_adds=True), dict(d=d), within=1.01,
                    geomean=True),
            Faster(file, dict(name=tune_name(f)),
                   dict(name=[tune_name({**f, "prefetch": 0}), tune_name({**f, "prefetch": 1})]), dict(d=d),
                   geomean=True),
            _orders_claim(d, f), _exp_claim(d, f), _h100_claim(d, f)))
    for d, file in ((64, WS_D64), (128, WS_D128)) for f in (WS_BWD[d],))

_FIT = "untuned: sized to fit shared memory"
FUSED_NAMES = ("block_n", "block_m", "num_warps", "num_stages", "rotate")
REFERENCE_NAMES = ("dkdv_block_m", "dkdv_block_n", "dq_block_m", "dq_block_n", "num_warps", "num_stages")


def _fused(d, tiles):
    return dict(zip(FUSED_NAMES, tiles))


FUSED_LAUNCHES = (
    Launch("fused", "dense", (1, 32), ANY, _fused(32, (64, 64, 4, 3, True)), _FIT + " (as d = 64)",
           key=dict(itemsize=2)),
    Launch("fused", "dense", (33, 64), ANY, _fused(64, (64, 64, 4, 3, True)), "the fastest fused tile timed at d = 64",
           (Fastest(FUSED, dict(name="fused(64, 64, 4, 3, True)"), dict(name="fused(*"), dict(d=64), geomean=True),),
           key=dict(itemsize=2)),
    Launch("fused", "dense", (65, 128), ANY, _fused(128, (64, 64, 8, 2, True)),
           "the tile that spilled least for sm_90 (compile check, not recorded in a file); the tune run timed others "
           "faster (see claim): kept, as \"auto\" runs the reference here, faster than every fused tile",
           (NotFaster(FUSED, dict(name="fused(64, 64, 8, 2, True)"), dict(name="fused(*"), dict(d=128)),),
           key=dict(itemsize=2)),
    Launch("fused", "dense", (129, 256), ANY, _fused(256, (64, 32, 4, 2, True)), _FIT, key=dict(itemsize=2)),
    Launch("fused", "dense", (1, 256), ANY, _fused(256, (32, 32, 4, 2, True)),
           "fp32 (no tensor cores): the (64, 32) tile spilled 4-12 KB at d = 64 (compile check, not recorded in a "
           "file); untuned", key=dict(itemsize=4)),
)

_REF_TUNED = ("tuned by `tune_backward --d 128 --n 4096 8192 16384` on the H200 (2026-11-29, commit 0d20f8e): first "
              "of 12 in every N x causal row; its output is in that commit's message, not recorded in a file")


def _ref(d, tiles):
    return dict(zip(REFERENCE_NAMES, tiles))


REFERENCE_LAUNCHES = (
    Launch("reference", "dense", (1, 32), ANY, _ref(32, (64, 128, 128, 64, 4, 3)), _FIT, key=dict(itemsize=2)),
    Launch("reference", "dense", (33, 64), ANY, _ref(64, (64, 128, 128, 64, 8, 3)),
           "checked at N = 8192 on the H200 within 2 % of the best of 12 (commit 0d20f8e's message, not recorded in a "
           "file)", key=dict(itemsize=2)),
    Launch("reference", "dense", (65, 128), ANY, _ref(128, (64, 128, 128, 64, 8, 3)), _REF_TUNED, key=dict(itemsize=2)),
    Launch("reference", "dense", (129, 256), ANY, _ref(256, (32, 32, 32, 32, 4, 2)), _FIT, key=dict(itemsize=2)),
    Launch("reference", "dense", (1, 256), ANY, _ref(256, (32, 64, 64, 32, 4, 2)), "fp32: smaller tiles fit; untuned",
           key=dict(itemsize=4)),
)


def ws_launch(d: int) -> dict:
    """The ws backward's launch at head dim d (KeyError where it has none)."""
    row = _ws_bwd_row(int(d))
    if row is None:
        raise KeyError(d)
    return dict(row.fields)


def _ws_bwd_row_of(d: int) -> Launch | None:
    return next((r for r in WS_BWD_LAUNCHES if r.covers("ws_bwd", "dense", d, True)), None)


_ws_bwd_row = Memo(_ws_bwd_row_of, ((sys.modules[__name__], "WS_BWD_LAUNCHES"),))   # a call reads it 13 times


def _tiles(rows, kernel, d, itemsize, names):
    row = next(r for r in rows if r.covers(kernel, "dense", d, True, itemsize=4 if itemsize == 4 else 2))
    return tuple(row.fields[k] for k in names)


def fused_tiles(d: int, itemsize: int) -> tuple:
    return _tiles(FUSED_LAUNCHES, "fused", d, itemsize, FUSED_NAMES)


def reference_tiles(d: int, itemsize: int) -> tuple:
    return _tiles(REFERENCE_LAUNCHES, "reference", d, itemsize, REFERENCE_NAMES)


def ws_configs() -> View:
    """{d: (block_m, stages, dq_split, rotate, dq_mode)} (ws_bwd.CONFIGS), read live."""
    keys = lambda: [r.d[0] for r in WS_BWD_LAUNCHES]  # noqa: E731
    return View(keys, lambda d: tuple(ws_launch(d)[k] for k in ("block_m", "stages", "dq_split", "rotate", "dq_mode")))


def ws_early() -> View:
    """{d: early_dq} (ws_bwd.EARLY_DQ), read live."""
    return View(lambda: [r.d[0] for r in WS_BWD_LAUNCHES], lambda d: ws_launch(d)["early_dq"])


def ws_dq_first() -> View:
    """{d: dq_first} (ws_bwd.DQ_FIRST: dQ's MMAs before dK's; a row without the field: False), read live."""
    return View(lambda: [r.d[0] for r in WS_BWD_LAUNCHES], lambda d: bool(ws_launch(d).get("dq_first", False)))


def ws_prefetch() -> View:
    """{d: prefetch} (ws_bwd.PREFETCH, 0 1 2: where lse and delta come from; a row without the field: 0), live."""
    return View(lambda: [r.d[0] for r in WS_BWD_LAUNCHES], lambda d: int(ws_launch(d).get("prefetch", 0)))


def by_bound(rows, kernel, names, itemsize=2) -> View:
    """{d bound: tiles} of the fp16/bf16 rows (backward_fused.CONFIGS, backward.BWD_CONFIGS), read live."""
    keys = lambda: [r.d[1] for r in rows if r.key.get("itemsize") == itemsize]  # noqa: E731
    return View(keys, lambda d: _tiles(rows, kernel, d, itemsize, names))


def all_rows():
    return (*ROUTES, *WS_BWD_LAUNCHES, *FUSED_LAUNCHES, *REFERENCE_LAUNCHES)
