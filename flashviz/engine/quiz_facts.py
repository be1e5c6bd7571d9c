"""The numbers the quiz's questions, options and explanations state, each computed by the engine that shows it on
its page (no UI). The quiz formats its strings with them (flashviz/i18n/quiz.py placeholders), so a number a
student reads is the engine's, and tests/pages/test_quiz_page.py checks each against an independent count.

    facts() -> {name: value already formatted for the text}
"""
from __future__ import annotations

import functools

from . import kernel_timeline as kt
from . import ring
from .decoding import decode_grid
from .hardware import ridge_point
from .roofline import useful_flops
from .tiling import GPU_PRESETS
from .traffic import standard_counts
from .variants import make_variant, variant_costs

GPU = "H200"
DECODE = dict(batch=1, heads=32, workers=4)                 # one sequence, 32 heads; flash-decoding's W
RING_W = 4                                                  # the ring page's default
RING_MEM = dict(n=524288, batch=1, heads=32, d=128, elem_bytes=2)      # the ring recording's shape
GQA = dict(heads=32, group=4)                               # 32 query heads over 8 K/V heads
NAIVE = dict(n=4096, d=128, elem_bytes=2)                   # fp16, as the speed recordings


@functools.lru_cache(maxsize=1)
def facts() -> dict[str, str]:
    g = GPU_PRESETS[GPU]
    sms = g["sms"]
    one = decode_grid(DECODE["batch"], DECODE["heads"], GPU)
    split = decode_grid(DECODE["batch"], DECODE["heads"], GPU, workers=DECODE["workers"])
    n = 2 * RING_W * 4
    idle = {lay: int((ring.work_table(RING_W, n, lay, True) == 0).sum()) for lay in ring.LAYOUTS}
    one_gpu = sum(ring.forward_memory(1, RING_MEM["n"], "contiguous", True, **_shape()).values())
    frac = {lay: sum(ring.forward_memory(2, RING_MEM["n"], lay, True, **_shape()).values()) / one_gpu
            for lay in ring.LAYOUTS}
    costs = variant_costs(make_variant(causal=True, heads=GQA["heads"], group=GQA["group"]), 256, 64, 64, 64)
    counts = standard_counts(NAIVE["n"], NAIVE["d"], elem_bytes=NAIVE["elem_bytes"])
    naive = useful_flops(NAIVE["n"], NAIVE["d"], False) / counts.total_bytes
    return dict(
        gpu=GPU, sms=sms, regs=g["registers_kib_per_sm"], smem=g["shared_kib_per_sm"],
        dec_b=DECODE["batch"], dec_h=DECODE["heads"], dec_p=one.programs, dec_pct=f"{100 * one.busy_share:.0f}",
        dec_w=DECODE["workers"], dec_pw=split.programs, dec_pwpct=f"{100 * split.busy_share:.0f}",
        ring_w=RING_W, ring_last=2 * RING_W - 1, ring_slots=RING_W * RING_W, idle_c=idle["contiguous"],
        idle_z=idle["zigzag"], ring_frac=f"{frac['contiguous']:.2f}", ring_frac_z=f"{frac['zigzag']:.2f}",
        gqa_h=GQA["heads"], gqa_hkv=GQA["heads"] // GQA["group"],
        gqa_ratio=f"{costs['kv_cache_mha'] / costs['kv_cache_gqa']:g}",
        naive_n=NAIVE["n"], naive_d=NAIVE["d"], naive_int=f"{naive:.0f}", ridge=f"{ridge_point(GPU):.0f}",
        tc=f"{kt.TENSOR_FLOP_PER_CLK:,}", sfu=kt.SFU_EXP_PER_CLK, r128=f"{kt.exp_vs_mma_clocks(128):g}",
        r64=f"{kt.exp_vs_mma_clocks(64):g}")


def _shape() -> dict:
    return {k: v for k, v in RING_MEM.items() if k != "n"}
