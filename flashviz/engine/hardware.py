"""The memory hierarchy and compute roof of the GPU presets, with sources (data + arithmetic, no UI).

Keys are those of flashviz.engine.tiling.GPU_PRESETS (SM count and shared memory per SM live there, with their
tuning-guide sources); this table adds HBM, L2 and the dense fp16 tensor-core peak. Vendor figures use
decimal units as the vendor prints them (GB = 1e9 bytes, TB/s = 1e12 bytes/s, TFLOP/s = 1e12).

  A100 (SXM4 40 GB)  NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs; 40 GB HBM2 at
                     1555 GB/s; 40 MB L2; 192 KB L1 + shared memory per SM, up to 164 KB of it shared;
                     FP16 tensor 312 TFLOP/s dense (624 with 2:4 sparsity). The A100 80GB datasheet:
                     80 GB HBM2e at 2039 GB/s, same compute. FlashAttention (Dao et al. 2022, Sec. 2.1)
                     quotes 40-80 GB, 1.5-2.0 TB/s, 192 KB SRAM per SM and SRAM bandwidth ~19 TB/s.
  H100 (SXM5 80 GB)  NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022) and H100 datasheet: 132 SMs;
                     80 GB HBM3 at 3.35 TB/s; 50 MB L2; 256 KB L1 + shared memory per SM, up to 228 KB
                     shared; FP16 tensor 989.4 TFLOP/s dense (1979 with sparsity).
  H200 (SXM 141 GB)  NVIDIA H200 datasheet: 141 GB HBM3e at 4.8 TB/s; FP16 tensor 1979 TFLOP/s with
                     sparsity, i.e. 989.4 dense, the same GH100 compute as the H100 SXM5. The datasheet
                     gives no SM count or L2 size: 132 SMs and 62,914,560 B (60 MiB) of L2 are what
                     torch.cuda.get_device_properties reported on the H200 this project records on.
"""
from __future__ import annotations

from ..infra.errors import InputError
from .tiling import GPU_PRESETS

A100_WP = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)"
H100_WP = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022); NVIDIA H100 datasheet (SXM5)"
H200_DS = "NVIDIA H200 Tensor Core GPU datasheet (SXM); SM count and L2 read on our H200 (torch)"
FA_PAPER = "FlashAttention (Dao et al., 2022), Section 2.1"

HARDWARE: dict[str, dict] = {
    "A100": dict(variant="SXM4 40 GB", hbm_bytes=40e9, hbm_type="HBM2", hbm_bw=1555e9, l2_bytes=40e6,
                 l2_label="40 MB", peak_fp16=312e12, sram_bw=19e12,
                 other="A100 80GB: 80 GB HBM2e at 2039 GB/s, same compute (A100 80GB datasheet)",
                 sources=(A100_WP, "NVIDIA A100 80GB datasheet", FA_PAPER)),
    "H100": dict(variant="SXM5 80 GB", hbm_bytes=80e9, hbm_type="HBM3", hbm_bw=3.35e12, l2_bytes=50e6,
                 l2_label="50 MB", peak_fp16=989.4e12, sram_bw=None, other="",
                 sources=(H100_WP,)),
    "H200": dict(variant="SXM 141 GB", hbm_bytes=141e9, hbm_type="HBM3e", hbm_bw=4.8e12, l2_bytes=62914560,
                 l2_label="60 MiB", peak_fp16=989.4e12, sram_bw=None, other="",
                 sources=(H200_DS,)),
}


def gpu(name: str) -> dict:
    """Every number of one preset: the tiling preset (SMs, shared memory) merged with this table."""
    if name not in HARDWARE or name not in GPU_PRESETS:
        raise InputError(key="errors.one_of", name="GPU", choices=", ".join(HARDWARE), got=repr(name))
    g = {**GPU_PRESETS[name], **HARDWARE[name], "key": name}
    g["smem_bytes_per_sm"] = g["shared_kib_per_sm"] * 1024
    g["smem_total_bytes"] = g["smem_bytes_per_sm"] * g["sms"]
    return g


def ridge_point(name: str) -> float:
    """FLOP per HBM byte where the two roofs meet: peak / bandwidth. Below it a kernel is memory-bound."""
    g = gpu(name)
    return g["peak_fp16"] / g["hbm_bw"]


def hierarchy_rows(name: str) -> list[dict]:
    """The levels a student should picture, fastest and smallest first: the register file (the top: where FA2 and
    FA3 keep S, P and the running O of their rows), shared memory (the SRAM the paper's tiles live in), L2, HBM.
    Each with its capacity per SM (None for L2 and HBM, which the SMs share), for the whole GPU, and the bandwidth
    where a source gives one (None otherwise). The register file is larger than shared memory on every preset."""
    g = gpu(name)
    regs = g["registers_kib_per_sm"] * 1024
    return [
        dict(level="registers", per_sm=regs, total=regs * g["sms"], bandwidth=None),
        dict(level="sram", per_sm=g["smem_bytes_per_sm"], total=g["smem_total_bytes"], bandwidth=g["sram_bw"]),
        dict(level="l2", per_sm=None, total=g["l2_bytes"], bandwidth=None),
        dict(level="hbm", per_sm=None, total=g["hbm_bytes"], bandwidth=g["hbm_bw"]),
    ]


def capacity_ratio(name: str) -> float:
    """HBM capacity / shared memory of one SM."""
    g = gpu(name)
    return g["hbm_bytes"] / g["smem_bytes_per_sm"]
