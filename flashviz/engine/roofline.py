"""The roofline of attention: FLOPs over exact HBM bytes for naive, FA1 and FA2, against a GPU's roofs (numpy).

Arithmetic intensity I = FLOPs / HBM bytes. A kernel cannot beat min(peak FLOP/s, bandwidth x I): below the
ridge point I* = peak / bandwidth the bandwidth roof binds (memory-bound), above it the compute roof.

FLOPs are counted as the benchmarks count them (flashviz.bench.spec.flops): 4 N^2 d per head (the two
matmuls), halved when causal. Bytes are the engine's exact counts (flashviz.engine.traffic.standard_counts for the
naive Algorithm 0, flashviz.engine.tiling.Schedule(...).totals() for FA1 and FA2 at the configured Br, Bc).
Batch and heads scale FLOPs and bytes alike, so I is per head; times are for the whole B x H launch.
Measured points (flashviz.bench datasets): y = the recorded TFLOP/s of a cell with the same N, d and
causal; x = the model's intensity of the algorithm that impl runs (naive -> standard, the flash kernels ->
FA2) at the cell's element size and the configured Br, Bc (the kernels' own tiles may differ).

The model's byte counts are SRAM-only: every K/V re-read goes to HBM, none is served by the L2. The Nsight
recording (flashviz.bench.hbm_dataset) gives the bytes a kernel really moved; `measured_bytes_points` places the
recorded speeds at those intensities. A flash kernel then reads Q, K, V about once and writes O once, 4 N d e
bytes per head for 4 N^2 d FLOPs: I ~ N / e, far right of the ridge, so it is compute-bound and its distance below
the roof is to the tensor-core peak (`roofline_verdict`).
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
    whole B x H launch (S and P, N x N each, are written to HBM and read back). FLOPs are those naive executes:
    all 4 N^2 d per head even under a causal mask (it computes every score, then masks); `useful` is the
    benchmarks' count (halved when causal)."""
    g = gpu(name)
    p = model_points(cfg)["standard"]
    bh = cfg.batch * cfg.heads
    ridge = g["peak_fp16"] / g["hbm_bw"]
    executed = useful_flops(cfg.n, cfg.d, False)
    nn_bytes = 4 * cfg.n * cfg.n * cfg.elem_bytes                 # S write + read, P write + read
    intensity = executed / p.bytes
    return dict(intensity=intensity, ridge=ridge, below=intensity < ridge, flops=executed * bh,
                useful=p.flops * bh, bytes=p.bytes * bh, nn_bytes=nn_bytes * bh, nn_share=nn_bytes / p.bytes,
                attainable=attainable(name, intensity), **time_bounds(name, executed * bh, p.bytes * bh))


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


def measured_bytes_per_head(cell: dict) -> float:
    """HBM bytes one head of a recorded Nsight cell moved: reads + writes + its dirty lines written back later."""
    return (cell["read_bytes"] + cell["write_bytes"] + cell["flush_write_bytes"]) / (cell["batch"] * cell["heads"])


def measured_bytes_points(timing: dict, hbm: dict, n: int, d: int, causal: bool) -> list[dict]:
    """Recorded forward speeds placed at the intensity of the bytes Nsight measured for the same kernel, N, d,
    causal and dtype (per head, so the recordings' different B x H do not matter): impl, dtype, intensity (useful
    FLOPs per measured byte), achieved (FLOP/s), bytes_per_head, ms."""
    by_key = {(c["impl"], c["n"], c["d"], c["causal"], c["dtype"]): c for c in hbm.get("cells", [])}
    out = []
    for c in timing.get("cells", []):
        if c.get("status") != "ok" or c.get("mode") != "fwd" or (c["n"], c["d"], c["causal"]) != (n, d, causal):
            continue
        h = by_key.get((c["impl"], n, d, causal, c["dtype"]))
        if h is None:
            continue
        b = measured_bytes_per_head(h)
        out.append(dict(impl=c["impl"], dtype=c["dtype"], intensity=useful_flops(n, d, causal) / b,
                        achieved=c["tflops"] * 1e12, bytes_per_head=b, ms=c["ms"], batch=c["batch"],
                        heads=c["heads"]))
    return out


def roofline_verdict(name: str, cfg: TilingConfig, measured: list[dict], impl: str = "fast") -> dict | None:
    """What the roofline says about the flash kernel `impl` (None if it has no measured-bytes point): its
    intensity with measured bytes next to N / e, the ridge, which roof binds, its speed as a share of the
    tensor-core peak, and the SRAM-only model's FA2 ceiling with whether the recorded kernel beats it (then that
    ceiling is no bound at all: the L2 served the re-reads the model sends to HBM)."""
    pts = [m for m in measured if m["impl"] == impl]
    if not pts:
        return None
    m = pts[0]
    g = gpu(name)
    ridge = g["peak_fp16"] / g["hbm_bw"]
    model = model_points(replace(cfg, elem_bytes=ELEM_BYTES[m["dtype"]]))["fa2"]
    ceiling = attainable(name, model.intensity)
    return dict(impl=impl, intensity=m["intensity"], n_over_e=cfg.n / ELEM_BYTES[m["dtype"]], ridge=ridge,
                bound="compute" if m["intensity"] > ridge else "memory", achieved=m["achieved"],
                peak=g["peak_fp16"], share_of_peak=m["achieved"] / g["peak_fp16"],
                model_intensity=model.intensity, model_ceiling=ceiling, beats_model=m["achieved"] > ceiling)
