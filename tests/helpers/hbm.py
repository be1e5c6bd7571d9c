"""The measured-HBM path's fixture (tests/bench/test_bench_hbm.py, the blocks and hardware pages' tests): ncu's CSV
written by hand in ncu's layout (tests/data/ncu_sample.csv; numbers made up, a parser fixture, not a measurement),
the probe's manifest of its calls, and the dataset built from the two."""
from __future__ import annotations

import copy
from pathlib import Path

from flashviz.bench import hbm

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "ncu_sample.csv"
MANIFEST = {"range": "flashviz-measured", "clean_kernel": "flashviz_l2_clean", "flush_kernel": "flashviz_l2_flush",
            "l2_bytes": 62914560, "flush_read_bytes": 251658240, "flush_programs": 15360,
            "cells": [dict(impl="naive", n=1024, d=64, causal=False, dtype="float16", batch=1, heads=16,
                           block_m=None, block_n=None, finite=True),
                      dict(impl="fast", n=1024, d=64, causal=False, dtype="float16", batch=1, heads=16,
                           block_m=128, block_n=128, finite=True)]}
PROV = dict(device="cuda", device_name="NVIDIA H200", torch="2.11.0", python="3.12.3", platform="Linux",
            created_utc="2026-12-01T00:00:00+00:00", git_commit="abc123", command="python -m flashviz.bench",
            timer="ncu", sm_count=132)


def sample_cells():
    return hbm.split_cells(hbm.parse_ncu_csv(SAMPLE.read_text()), copy.deepcopy(MANIFEST))


def sample_dataset():
    return hbm.build_dataset(sample_cells(), MANIFEST, provenance=dict(PROV), command="python -m flashviz.bench "
                             "--preset h200-hbm", elapsed_s=12.5, ncu="Version 2025.3.1.0", ncu_cmd=["ncu", "x"])
