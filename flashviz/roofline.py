"""The roofline of attention: FLOPs over exact HBM bytes for naive, FA1 and FA2, against a GPU's roofs (numpy).

Arithmetic intensity I = FLOPs / HBM bytes. A kernel cannot beat min(peak FLOP/s, bandwidth x I): below the
ridge point I* = peak / bandwidth the bandwidth roof binds (memory-bound), above it the compute roof.

FLOPs are counted as the benchmarks count them (flashviz.bench.spec.flops): 4 N^2 d per head (the two
matmuls), halved when causal. Bytes are the engine's exact counts (flashviz.traffic.standard_counts for the
naive Algorithm 0, flashviz.tiling.Schedule(...).totals() for FA1 and FA2 at the configured Br, Bc).
Batch and heads scale FLOPs and bytes alike, so I is per head; times are for the whole B x H launch.
Measured points (flashviz.bench datasets): y = the recorded TFLOP/s of a cell with the same N, d and
causal; x = the model's intensity of the algorithm that impl runs (naive -> standard, the flash kernels ->
FA2) at the cell's element size and the configured Br, Bc (the kernels' own tiles may differ).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .hardware import gpu
from .tiling import Schedule, TilingConfig
from .traffic import standard_counts

ALGOS = ("standard", "fa1", "fa2")
IMPL_ALGO = {"naive": "standard", "teaching": "fa2", "fast": "fa2", "sdpa-flash": "fa2", "sdpa-cudnn": "fa2"}
ELEM_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


def useful_flops(n: int, d: int, causal: bool) -> float:
    """4 N^2 d per head, halved when causal (the benchmarks' convention)."""
    f = 4.0 * n * n * d
    return f / 2 if causal else f


@dataclass(frozen=True)
class Point:
    algo: str                 # "standard" (naive), "fa1", "fa2"
    flops: float              # per head
    bytes: int                # HBM bytes per head, exact
    intensity: float          # flops / bytes


def model_points(cfg: TilingConfig) -> dict[str, Point]:
    """Intensity of naive (Algorithm 0), FA1 and FA2 for this configuration (per head)."""
    f = useful_flops(cfg.n, cfg.d, cfg.causal)
    counts = {"standard": standard_counts(cfg.n, cfg.d, elem_bytes=cfg.elem_bytes).total_bytes,
              "fa1": Schedule(cfg, "fa1").totals().total_bytes,
              "fa2": Schedule(cfg, "fa2").totals().total_bytes}
    return {a: Point(a, f, int(b), f / b) for a, b in counts.items()}


def attainable(name: str, intensity: float) -> float:
    """The roof at intensity I: min(peak, bandwidth x I) in FLOP/s."""
    g = gpu(name)
    return min(g["peak_fp16"], g["hbm_bw"] * float(intensity))


def time_bounds(name: str, flops: float, nbytes: float) -> dict:
    """Lower bounds on the run time: FLOPs at peak, bytes at full bandwidth; the larger one binds."""
    g = gpu(name)
    t_c, t_m = flops / g["peak_fp16"], nbytes / g["hbm_bw"]
    return dict(t_compute=t_c, t_memory=t_m, bound="memory" if t_m > t_c else "compute", ratio=t_m / t_c)


def naive_memory_bound(name: str, cfg: TilingConfig) -> dict:
    """Why naive attention is memory-bound: its intensity vs the ridge point and the two time bounds for the
    whole B x H launch (S and P, N x N each, are written to HBM and read back)."""
    g = gpu(name)
    p = model_points(cfg)["standard"]
    bh = cfg.batch * cfg.heads
    ridge = g["peak_fp16"] / g["hbm_bw"]
    nn_bytes = 4 * cfg.n * cfg.n * cfg.elem_bytes                 # S write + read, P write + read
    return dict(intensity=p.intensity, ridge=ridge, below=p.intensity < ridge, flops=p.flops * bh,
                bytes=p.bytes * bh, nn_bytes=nn_bytes * bh, nn_share=nn_bytes / p.bytes,
                attainable=attainable(name, p.intensity), **time_bounds(name, p.flops * bh, p.bytes * bh))


def measured_points(dataset: dict, cfg: TilingConfig) -> list[dict]:
    """Recorded forward cells at this N, d and causal: impl, algo, x (model intensity), y (achieved FLOP/s)."""
    out = []
    for c in dataset.get("cells", []):
        if (c.get("status") != "ok" or c.get("mode") != "fwd" or c["n"] != cfg.n or c["d"] != cfg.d
                or c["causal"] != cfg.causal or c["impl"] not in IMPL_ALGO or c["dtype"] not in ELEM_BYTES):
            continue
        algo = IMPL_ALGO[c["impl"]]
        at = replace(cfg, elem_bytes=ELEM_BYTES[c["dtype"]])
        x = model_points(at)[algo].intensity
        out.append(dict(impl=c["impl"], algo=algo, dtype=c["dtype"], batch=c["batch"], heads=c["heads"],
                        intensity=x, achieved=c["tflops"] * 1e12, ms=c["ms"]))
    return out
