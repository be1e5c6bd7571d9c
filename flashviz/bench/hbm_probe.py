"""The process Nsight Compute watches: one measured attention call per cell, bracketed for ncu (GPU only).

    python -m flashviz.bench.hbm_probe --impl naive teaching fast --n 1024 4096 --d 64 128 --causal both \
        --batch 1 --heads 16 --manifest /tmp/cells.json

`python -m flashviz.bench --preset h200-hbm` launches this under `ncu` (flashviz/bench/hbm.py) and parses
what ncu prints; run alone it only checks that every impl runs and writes the manifest.

Per cell, in this order:
  1. seeded random q, k, v (B, H, N, d) fp16; two warm-up calls (Triton compiles; nothing measured);
  2. a clean sweep: the kernel `flashviz_l2_clean` reads a buffer of 4x the L2 size, so L2 holds only clean
     lines of that buffer and no dirty line of earlier work is left to be written back during step 3;
  3. inside the NVTX push/pop range RANGE (ncu profiles only kernels launched inside it): the measured call,
     then `flashviz_l2_flush`, which reads the buffer again and so evicts the call's dirty lines: their
     write-back lands in the flush kernel's DRAM writes. A kernel that ends with its output still in L2
     (a 4096^2 fp16 matmul wrote 23 MB of its 33.5 MB output to DRAM by its end on the H200) is thus
     counted in full: call's reads + writes + the flush's writes.
ncu must run with --cache-control none (its default flushes caches before every profiled kernel, which
would write the dirty lines back outside any kernel's counters). The flush kernels are the separators
between cells in ncu's output: cell k is every kernel after flush k-1 up to and including flush k.
Imports torch, triton and numpy only (and the kernels), as the GPU machine has no streamlit or plotly.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

RANGE = "flashviz-measured"
CLEAN_KERNEL, FLUSH_KERNEL = "flashviz_l2_clean", "flashviz_l2_flush"
FLUSH_L2_MULTIPLE = 4            # the flush buffer is this many times the L2 size
FLUSH_BLOCK = 4096               # fp32 elements summed per flush program
IMPLS = ("naive", "teaching", "fast")
CAUSAL = {"on": (True,), "off": (False,), "both": (False, True)}


def import_kernels():
    """flashviz_kernels, from the installed package or, in a plain copy of the repository, from kernels/."""
    try:
        import flashviz_kernels
        return flashviz_kernels
    except ImportError:
        root = Path(__file__).resolve().parents[2] / "kernels"
        spec = importlib.util.spec_from_file_location("flashviz_kernels", root / "__init__.py",
                                                      submodule_search_locations=[str(root)])
        mod = importlib.util.module_from_spec(spec)
        sys.modules["flashviz_kernels"] = mod
        spec.loader.exec_module(mod)
        return mod


def _flush_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def flashviz_l2_clean(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), 0))

    @triton.jit
    def flashviz_l2_flush(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), 0))

    return flashviz_l2_clean, flashviz_l2_flush


def blocks_used(impl: str, q, k, causal: bool) -> tuple[int | None, int | None]:
    """(Br, Bc) the kernel runs with for these inputs (None for naive): the formula needs them. Asked of the
    kernel's own pick_config, so the recording can never disagree with what ran."""
    if impl in ("teaching", "fast"):
        import importlib
        mod = importlib.import_module(f"flashviz_kernels.{impl}")
        bm, bn, _, _ = mod.pick_config(q, k, causal=causal)
        return bm, bn
    return None, None


def run(impls, ns, ds, causals, batch: int, heads: int, seed: int = 0) -> dict:
    import torch
    fk = import_kernels()
    if not torch.cuda.is_available():
        raise SystemExit("hbm_probe needs a CUDA GPU (it is run under Nsight Compute)")
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    l2 = int(getattr(props, "L2_cache_size", 0) or 64 * 2**20)
    n_flush = FLUSH_L2_MULTIPLE * l2 // 4
    buf = torch.ones(n_flush, dtype=torch.float32, device=dev)
    grid = (-(-n_flush // FLUSH_BLOCK),)
    partial = torch.empty(grid[0], dtype=torch.float32, device=dev)
    clean, flush = _flush_kernels()
    cells = []
    for impl in impls:
        for n in ns:
            for d in ds:
                for causal in causals:
                    g = torch.Generator(device=dev).manual_seed(seed + n * 1009 + d * 17 + causal)
                    q, k, v = (torch.randn((batch, heads, n, d), generator=g, device=dev, dtype=torch.float16)
                               for _ in range(3))
                    call = lambda: fk.attention(q, k, v, causal=causal, impl=impl)   # noqa: E731
                    for _ in range(2):                                            # compile, autotune
                        call()
                    torch.cuda.synchronize()
                    clean[grid](buf, partial, n_flush, BLOCK=FLUSH_BLOCK)          # outside the range
                    torch.cuda.synchronize()
                    torch.cuda.nvtx.range_push(RANGE)
                    out = call()
                    flush[grid](buf, partial, n_flush, BLOCK=FLUSH_BLOCK)
                    torch.cuda.synchronize()
                    torch.cuda.nvtx.range_pop()
                    bm, bn = blocks_used(impl, q, k, causal)
                    cells.append(dict(impl=impl, n=n, d=d, causal=causal, dtype="float16", batch=batch,
                                      heads=heads, block_m=bm, block_n=bn, finite=bool(torch.isfinite(out).all())))
                    del q, k, v, out
                    torch.cuda.empty_cache()
    return dict(range=RANGE, clean_kernel=CLEAN_KERNEL, flush_kernel=FLUSH_KERNEL, l2_bytes=l2,
                flush_read_bytes=n_flush * 4, flush_programs=grid[0], cells=cells)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m flashviz.bench.hbm_probe", description=__doc__.split("\n")[0])
    p.add_argument("--impl", nargs="+", choices=IMPLS, default=list(IMPLS))
    p.add_argument("--n", type=int, nargs="+", default=[1024, 4096])
    p.add_argument("--d", type=int, nargs="+", default=[64, 128])
    p.add_argument("--causal", choices=sorted(CAUSAL), default="both")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--manifest", required=True, help="JSON file: the cells in the order they ran")
    a = p.parse_args(argv)
    man = run(a.impl, a.n, a.d, CAUSAL[a.causal], a.batch, a.heads, a.seed)
    Path(a.manifest).write_text(json.dumps(man, indent=1) + "\n", encoding="utf-8")
    print(f"hbm_probe: {len(man['cells'])} measured calls", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
