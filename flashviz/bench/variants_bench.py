"""`python -m flashviz.bench --preset h200-variants`: time attention variants, ours against FlexAttention and SDPA.

    python -m flashviz.bench --preset h200-variants [--budget-s 480] [--out PATH]
    python -m flashviz.bench --preset cpu-variants            # tiny, CPU, for tests

Per N, per variant (flashviz/bench/variants_spec.py), fresh seeded inputs shared by the impls, then per impl:
  flex   create_block_mask (timed: block_mask_s), torch.compile(flex_attention) (first call timed: compile_s,
         never part of the timing), then the timed calls; eager flex where the preset turns compiling off;
  sdpa   torch's scaled_dot_product_attention: is_causal (dense-causal, gqa with enable_gqa), a boolean attn_mask
         (window, docs), a float bias (alibi); softcap is not expressible: status "unavailable";
  ours   flashviz_kernels.attention(q, k, v, causal=True, sm_scale, impl, window=..., softcap=..., alibi_slopes=...,
         seq_ids=...) with only the variant's keywords; an impl that does not take a keyword yet is "unavailable".
         docs: the same seq_ids tensor every call (its tables built once, as flex's block mask), and ms_new_ids
         timed with a new tensor per call (tables rebuilt each time);
Each impl: one call checked against a float64 reference on a few rows of two heads, then timed (do_bench on CUDA,
perf_counter on CPU; flashviz.bench.measure). A failure is recorded in its cell (never a crash). The file is
written after every N (atomic); schema in flashviz/bench/variants_dataset.py.
"""
from __future__ import annotations

import datetime
import math
import time
import zlib
from pathlib import Path

import torch

from flashviz.infra.errors import InputError

from . import peers, provenance
from .measure import classify_error, device_kind, free_memory, quantile, short_error, sync, time_calls
from .variants_spec import (FLEX_BLOCK, IMPLS, KIND, OURS, PRESETS, REL_TOL, SCHEMA_VERSION, VARIANTS, cell_flops,
                            doc_lens, variant_of)

DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
CHECK_ROWS = 16


def make_inputs(name: str, n: int, cfg: dict, seed: int, device: str) -> dict:
    var = variant_of(name, n, cfg)
    g = torch.Generator(device=device).manual_seed(seed + zlib.crc32(f"{name}:{n}".encode()))
    b, h, d, dt = cfg["batch"], cfg["heads"], cfg["d"], DTYPES[cfg["dtype"]]
    q = torch.randn(b, h, n, d, generator=g, device=device).to(dt)
    k, v = (torch.randn(b, var.kv_heads, n, d, generator=g, device=device).to(dt) for _ in range(2))
    slopes = None if var.slopes is None else torch.tensor(var.slopes, dtype=torch.float32, device=device)
    ids = None if var.doc_lens is None else torch.as_tensor(var.seq_ids(n), device=device)
    return dict(var=var, q=q, k=k, v=v, slopes=slopes, ids=ids, scale=1.0 / math.sqrt(d), n=n)


def reference(x: dict) -> dict:
    """float64 rows of (batch 0, first and last head) by the definitions (flashviz.engine.variants)."""
    var, n = x["var"], x["n"]
    rows = torch.linspace(0, n - 1, min(CHECK_ROWS, n)).round().long().unique()
    j = torch.arange(n)
    left, right = var.bounds
    lo = (rows - left).clamp(min=0) if left >= 0 else torch.zeros_like(rows)
    hi = (rows + right).clamp(max=n - 1) if right >= 0 else torch.full_like(rows, n - 1)
    mask = (j[None] >= lo[:, None]) & (j[None] <= hi[:, None])
    if x["ids"] is not None:
        ids = x["ids"].cpu()
        mask &= ids[rows][:, None] == ids[None]
    out = {}
    for hq in sorted({0, var.heads - 1}):
        hk = hq // var.group
        q = x["q"][0, hq, rows].double().cpu()
        s = q @ x["k"][0, hk].double().cpu().T * x["scale"]
        if var.softcap is not None:
            s = var.softcap * torch.tanh(s / var.softcap)
        if var.alibi:
            s = s - float(var.slopes[hq]) * (rows[:, None] - j[None]).abs()
        p = torch.softmax(s.masked_fill(~mask, -math.inf), dim=-1)
        out[hq] = (rows, p @ x["v"][0, hk].double().cpu())
    return out


def _errors(o: torch.Tensor, ref: dict) -> tuple[float, float]:
    num = den = mx = 0.0
    for hq, (rows, want) in ref.items():
        got = o[0, hq, rows.to(o.device)].double().cpu()
        mx = max(mx, float((got - want).abs().max()))
        num += float(((got - want) ** 2).sum())
        den += float((want ** 2).sum())
    return mx, math.sqrt(num / max(den, 1e-300))


def _flex_runner(x: dict, compile_: bool, cell: dict):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    var, n, ids, slopes = x["var"], x["n"], x["ids"], x["slopes"]
    left, right = var.bounds

    def mask_mod(b, h, q, kv):
        ok = kv <= q + right if right >= 0 else kv >= 0
        if left >= 0:
            ok = ok & (kv >= q - left)
        if ids is not None:
            ok = ok & (ids[q] == ids[kv])
        return ok

    score_mod = None
    if var.softcap is not None:
        cap = var.softcap
        score_mod = lambda s, b, h, q, kv: cap * torch.tanh(s / cap)                       # noqa: E731
    elif var.alibi:
        score_mod = lambda s, b, h, q, kv: s - slopes[h] * (q - kv).abs()                 # noqa: E731
    t0 = time.perf_counter()
    bm = create_block_mask(mask_mod, None, None, n, n, device=x["q"].device.type, BLOCK_SIZE=FLEX_BLOCK)
    sync(x["q"].device.type)
    cell["block_mask_s"] = time.perf_counter() - t0
    if compile_:      # a fresh compile per cell: past dynamo's recompile limit (8) flex silently runs eager,
        torch._dynamo.reset()   # materialising N x N scores (an H200 run ran out of memory at N = 16384 so)
    fn = torch.compile(flex_attention, dynamic=False) if compile_ else flex_attention
    cell["compiled"] = bool(compile_)
    return lambda: fn(x["q"], x["k"], x["v"], score_mod=score_mod, block_mask=bm, scale=x["scale"],
                      enable_gqa=var.group > 1)


def _sdpa_runner(x: dict):
    import torch.nn.functional as F
    var, n = x["var"], x["n"]
    if var.softcap is not None:
        return None, "sdpa cannot express a softcap (no score modification)"
    kw = dict(scale=x["scale"], enable_gqa=var.group > 1)
    if var.window is None and var.doc_lens is None and not var.alibi:
        kw["is_causal"] = True
    else:
        dev = x["q"].device
        i, j = torch.arange(n, device=dev)[:, None], torch.arange(n, device=dev)[None]
        left, right = var.bounds
        mask = (j <= i + right) & ((j >= i - left) if left >= 0 else True)
        if x["ids"] is not None:
            mask = mask & (x["ids"][:, None] == x["ids"][None])
        if var.alibi:                                    # (1, H, N, N) in q's dtype, one head at a time in fp32
            dist = (i - j).abs().float()
            bias = torch.empty(1, var.heads, n, n, dtype=x["q"].dtype, device=dev)
            for h in range(var.heads):
                bias[0, h] = (-x["slopes"][h] * dist).masked_fill(~mask, -math.inf)
            del dist
            kw["attn_mask"] = bias
        else:
            kw["attn_mask"] = mask
    return (lambda: F.scaled_dot_product_attention(x["q"], x["k"], x["v"], **kw)), None


def _ours_kw(x: dict, impl: str) -> dict:
    """Our call's keywords for the cell's variant (every variant causal)."""
    var = x["var"]
    kw = dict(causal=True, sm_scale=x["scale"], impl=impl)
    if var.window is not None:
        kw["window"] = var.window
    if var.softcap is not None:
        kw["softcap"] = var.softcap
    if var.alibi:
        kw["alibi_slopes"] = x["slopes"]
    if var.doc_lens is not None:
        kw["seq_ids"] = x["ids"].reshape(1, -1).expand(x["q"].shape[0], -1).contiguous()   # (B, N)
    return kw


def _ours_runner(x: dict, impl: str, new_ids: bool = False):
    """Our call with the variant's keywords. new_ids: a fresh seq_ids tensor per call (a clone), so the kernels'
    document tables, otherwise built once per tensor and reused, are rebuilt every call."""
    import flashviz_kernels as fk
    kw = _ours_kw(x, impl)
    if new_ids and "seq_ids" in kw:
        ids = kw.pop("seq_ids")
        return lambda: fk.attention(x["q"], x["k"], x["v"], seq_ids=ids.clone(), **kw)
    return lambda: fk.attention(x["q"], x["k"], x["v"], **kw)


def _launched_tiles(x: dict, impl: str) -> list[int]:
    """[Br, Bc] our Triton impl launches for this cell (fast: the ws kernel's tiles where the dispatch sends it)."""
    import flashviz_kernels as fk
    kw = _ours_kw(x, impl)
    kw.pop("sm_scale")
    _, bm, bn = fk.launch_plan(x["q"], x["k"], x["v"], **kw)
    return [min(bm, x["n"]), min(bn, x["n"])]


def blank_cell(variant: str, impl: str, n: int, cfg: dict) -> dict:
    useful, executed, tiles = cell_flops(variant, impl, n, cfg)
    return dict(variant=variant, impl=impl, n=n, status="error", message=None, ms=None, ms_p20=None, ms_p80=None,
                reps=None, compile_s=None, block_mask_s=None, ms_new_ids=None, compiled=None, flops_useful=useful,
                flops_executed=executed, tiles=tiles, tflops_useful=None, tflops_executed=None, max_abs_err=None,
                rel_err=None, correct=None, speedup_vs_flex=None, speedup_vs_fa4=None,
                doc_lens=list(doc_lens(n)) if variant == "docs" else None)


def measure_impl(impl: str, x: dict, ref: dict, cfg: dict, spec: dict, device: str) -> dict:
    cell = blank_cell(x["variant"], impl, x["n"], cfg)
    try:
        if impl == "flex":
            fn = _flex_runner(x, spec["compile"] and device == "cuda", cell)
        elif impl == "sdpa":
            fn, why = _sdpa_runner(x)
            if fn is None:
                cell.update(status="unavailable", message=why)
                return cell
        elif impl == "fa4":                              # FlashAttention-4 on its own layout (bench/peers.py)
            try:
                fn = peers.fa4_variant_runner(x)
            except peers.Unavailable as e:
                cell.update(status="unavailable", message=str(e))
                return cell
        elif impl in OURS:
            fn = _ours_runner(x, impl)
            if impl != "naive":                          # executed FLOPs at the tiles that really run
                _, cell["flops_executed"], cell["tiles"] = cell_flops(x["variant"], impl, x["n"], cfg,
                                                                      tiles=_launched_tiles(x, impl))
        else:
            raise InputError(key="errors.one_of", name="impl", choices=", ".join(IMPLS), got=repr(impl))
        t0 = time.perf_counter()
        out = fn()                                       # compiles (flex under torch.compile, Triton kernels)
        sync(device)
        if impl == "flex":
            cell["compile_s"] = time.perf_counter() - t0
        cell["max_abs_err"], cell["rel_err"] = _errors(out, ref)
        cell["correct"] = cell["rel_err"] <= REL_TOL[cfg["dtype"]]
        est = (time.perf_counter() - t0) * 1e3 if impl != "flex" else 1.0
        times = time_calls(fn, device, spec["warmup_ms"], spec["rep_ms"], spec["min_reps"], est)
        ms = float(quantile(times, 0.5))
        cell.update(status="ok", ms=ms, ms_p20=float(quantile(times, 0.2)), ms_p80=float(quantile(times, 0.8)),
                    reps=len(times), tflops_useful=cell["flops_useful"] / (ms * 1e9))
        if cell["flops_executed"] is not None:
            cell["tflops_executed"] = cell["flops_executed"] / (ms * 1e9)
        if impl in OURS and x["ids"] is not None:       # the tables' cost, as flex's block_mask_s is its mask's
            fresh = time_calls(_ours_runner(x, impl, new_ids=True), device, spec["warmup_ms"], spec["rep_ms"],
                          spec["min_reps"], est)
            cell["ms_new_ids"] = float(quantile(fresh, 0.5))
    except TypeError as e:                               # a keyword this impl does not take (yet)
        cell.update(status="unavailable", message=f"{impl} does not support this variant yet: {short_error(e)}")
    except Exception as e:                               # noqa: BLE001 - recorded in the cell, never raised
        cell.update(status=classify_error(e), message=short_error(e))
        if cell["status"] == "oom":
            free_memory(device)
    return cell


def add_speedups(cells: list[dict]) -> None:
    """speedup_vs_flex and speedup_vs_fa4 = the peer's time / the cell's, same variant and N (same run)."""
    for peer in ("flex", "fa4"):
        t_peer = {(c["variant"], c["n"]): c["ms"] for c in cells if c["impl"] == peer and c["status"] == "ok"}
        for c in cells:
            t = t_peer.get((c["variant"], c["n"]))
            c[f"speedup_vs_{peer}"] = t / c["ms"] if t and c["status"] == "ok" else None


def run(preset: str, *, out: Path | None = None, budget_s: float | None = None, seed: int = 0,
        command: str | None = None, variants=VARIANTS, on_partial=None, progress=None, ns=None) -> dict:
    """ns: some of the preset's N only (a preset too long for one sitting runs as several files); None: all."""
    spec = dict(PRESETS[preset])
    if ns is not None:
        bad = sorted(set(ns) - set(spec["ns"]))
        if bad or not ns:                                 # some of this preset's N only
            raise InputError(key="errors.one_of", name="--n", choices=", ".join(map(str, spec["ns"])),
                             got=repr(bad or list(ns)))
        spec["ns"] = tuple(n for n in spec["ns"] if n in ns)
    cfg = {k: spec[k] for k in ("batch", "heads", "d", "dtype", "window", "softcap", "kv_heads")}
    device = device_kind()
    timer = "triton.testing.do_bench" if device == "cuda" else "time.perf_counter"
    data = dict(schema_version=SCHEMA_VERSION, kind=KIND, complete=False, elapsed_s=0.0,
                provenance=provenance.collect(device, command, timer),
                config=dict(cfg, preset=preset, ns=list(spec["ns"]), impls=list(spec["impls"]), variants=list(variants),
                            compile=bool(spec["compile"]), warmup_ms=spec["warmup_ms"], rep_ms=spec["rep_ms"],
                            min_reps=spec["min_reps"],
                            seed=seed, budget_s=budget_s, flex_block=list(FLEX_BLOCK)),
                cells=[])
    t_start = time.perf_counter()
    for n in spec["ns"]:
        for name in variants:
            if budget_s is not None and time.perf_counter() - t_start > budget_s:
                data["stopped"] = f"budget of {budget_s:g} s reached before N={n} {name}"
                data["elapsed_s"] = time.perf_counter() - t_start
                return data
            x = dict(make_inputs(name, n, cfg, seed, device), variant=name)
            ref = reference(x)
            for impl in spec["impls"]:
                data["cells"].append(measure_impl(impl, x, ref, cfg, spec, device))
                if progress:
                    progress(data["cells"][-1])
            del x
            free_memory(device)
            add_speedups(data["cells"])
            data["elapsed_s"] = time.perf_counter() - t_start
            if on_partial:
                on_partial(data)
    data["complete"] = True
    data["elapsed_s"] = time.perf_counter() - t_start
    return data


def default_out(data: dict) -> Path:
    slug = provenance.device_slug(data["provenance"])
    return Path("assets/benchmarks/variants") / f"{slug}-{datetime.date.today().isoformat()}.json"


def main(argv: list[str]) -> int:
    import argparse
    import sys

    from .jsonio import write_json
    from .variants_dataset import validate_variants_dataset
    p = argparse.ArgumentParser(prog="python -m flashviz.bench", description="attention variants: ours vs flex vs sdpa")
    p.add_argument("--preset", choices=sorted(PRESETS), required=True)
    p.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    p.add_argument("--budget-s", type=float)
    p.add_argument("--n", type=int, nargs="+", help="some of the preset's N only (default: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    command = provenance.command_line(["", *argv])
    holder = {}

    def partial(d):
        holder["out"] = Path(args.out) if args.out else default_out(d)
        write_json(d, holder["out"])

    def progress(c):
        if not args.quiet:
            ms = "" if c["ms"] is None else f"{c['ms']:.3f} ms"
            print(f"N={c['n']:>6} {c['variant']:<13} {c['impl']:<8} {c['status']:<11} {ms} {c['message'] or ''}"[:200],
                  file=sys.stderr, flush=True)

    try:
        data = run(args.preset, budget_s=args.budget_s, seed=args.seed, command=command,
                   variants=tuple(args.variants), on_partial=partial, progress=progress, ns=args.n)
    except InputError as e:                               # a bad --n: a usage message, not a traceback
        p.error(str(e))
    partial(data)
    validate_variants_dataset(data)
    print(f"wrote {holder['out']} ({len(data['cells'])} cells, {data['elapsed_s']:.1f} s)", flush=True)
    return 0
