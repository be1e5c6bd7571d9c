"""What the variants benchmark measures: presets, the variants, and the FLOPs of each cell (no torch).

A preset is one shape (B, H, d, dtype), a list of N, the impls and the variants; every variant is causal:
    dense-causal   causal alone
    window         causal + sliding window (left = `window`, right = 0)
    softcap        causal + softcap `softcap`
    alibi          causal + the standard geometric ALiBi slopes for H heads
    gqa            causal + H_kv = `kv_heads` key/value heads
    docs           causal + packed documents of lengths doc_lens(N) (seq_ids)
Impls: "flex" (torch.compile(flex_attention) with a block mask from create_block_mask; eager flex when the preset
says so, on CPU), "sdpa" (torch's scaled_dot_product_attention, where an attn_mask / enable_gqa can express the
variant), "fa4" (FlashAttention-4 where it runs: flashviz/bench/peers.py) and our flashviz_kernels.attention impls
("fast", "teaching", "naive").
"""
from __future__ import annotations

from flashviz.infra.errors import InputError
from flashviz.engine.tiling import fa2_block_sizes
from flashviz.engine.variants import Variant, block_map, make_variant, visible_pairs

KIND = "flashviz-variants"
SCHEMA_VERSION = 1
VARIANTS = ("dense-causal", "window", "softcap", "alibi", "gqa", "docs")
OURS = ("fast", "teaching", "naive")
IMPLS = ("flex", "sdpa", "fa4", *OURS)
STATUSES = ("ok", "oom", "unavailable", "error")
FLEX_BLOCK = (128, 128)                 # create_block_mask's BLOCK_SIZE (its default)
REL_TOL = {"float16": 5e-3, "bfloat16": 2e-2, "float32": 2e-3, "float64": 1e-9}

PRESETS = {
    # The recorded H200 run: fp16, B=4, H=32, d=128.
    "h200-variants": dict(ns=(4096, 16384), batch=4, heads=32, d=128, dtype="float16", window=1024, softcap=50.0,
                          kv_heads=8, impls=("fast", "teaching", "flex", "sdpa", "fa4"), compile=True, warmup_ms=25.0,
                          rep_ms=100.0, min_reps=5),
    # Level with FlashAttention-4: N = 16384 only, ours against FA4 and FlexAttention (same shape as h200-variants).
    "h200-variants-fa4": dict(ns=(16384,), batch=4, heads=32, d=128, dtype="float16", window=1024, softcap=50.0,
                              kv_heads=8, impls=("fast", "fa4", "flex"), compile=True, warmup_ms=25.0, rep_ms=100.0,
                              min_reps=5),
    # Tiny, for tests on CPU: eager flex (no compiler), naive as "ours".
    "cpu-variants": dict(ns=(32, 48), batch=1, heads=2, d=16, dtype="float32", window=8, softcap=5.0, kv_heads=1,
                         impls=("naive", "flex", "sdpa"), compile=False, warmup_ms=0.0, rep_ms=1.0, min_reps=2),
}


def doc_lens(n: int) -> tuple[int, ...]:
    """Packed documents for N: a quarter, an eighth, a half, the rest (uneven on purpose)."""
    a, b, c = n // 4, n // 8, n // 2
    return tuple(x for x in (a, b, c, n - a - b - c) if x > 0)


def variant_of(name: str, n: int, cfg: dict) -> Variant:
    """The engine's Variant of a named benchmark variant at N, for the preset's shape."""
    h = cfg["heads"]
    kw = dict(causal=True, heads=h)
    if name == "window":
        kw["window"] = (cfg["window"], 0)
    elif name == "softcap":
        kw["softcap"] = cfg["softcap"]
    elif name == "alibi":
        kw["alibi"] = True
    elif name == "gqa":
        kw["group"] = h // cfg["kv_heads"]
    elif name == "docs":
        kw["doc_lens"] = doc_lens(n)
    elif name != "dense-causal":
        raise InputError(key="errors.variant_unknown", got=repr(name), choices=", ".join(VARIANTS))
    return make_variant(n=n, **kw)


def impl_tiles(impl: str, n: int, d: int) -> list | None:
    """The [Br, Bc] an impl's executed FLOPs are counted with, clipped to N: flex's BLOCK_SIZE; for our Triton
    kernels the FA2 tiles of flashviz.engine.tiling.fa2_block_sizes until the cell runs, when variants_bench counts the
    tiles the call launches instead (flashviz_kernels.launch_plan: tuned tiles, or the ws kernel's), and the cell
    records them; None for naive (every pair) and sdpa (tiles unknown)."""
    if impl == "flex":
        br, bc = FLEX_BLOCK
    elif impl in ("fast", "teaching"):
        br, bc = fa2_block_sizes(d)
    else:
        return None
    return [min(br, n), min(bc, n)]


def cell_flops(name: str, impl: str, n: int, cfg: dict, tiles: list | None = None) -> tuple[float, float | None, list | None]:
    """(useful FLOPs: 4·d per visible pair over B·H, executed FLOPs of the run tiles or None where unknown, the
    tiles [Br, Bc] counted). `tiles` defaults to impl_tiles; naive computes every pair."""
    var = variant_of(name, n, cfg)
    per_pair = 4.0 * cfg["d"] * cfg["batch"] * cfg["heads"]
    useful = per_pair * visible_pairs(var, n)
    if impl == "naive":
        return useful, per_pair * n * n, None
    tiles = impl_tiles(impl, n, cfg["d"]) if tiles is None else tiles
    if tiles is None:
        return useful, None, None
    bm = block_map(var, n, tiles[0], tiles[1])
    return useful, per_pair * bm.executed_pairs, list(tiles)
