"""The page "Speed and memory" in its tests (tests/pages/test_speed_page.py, tests/pages/test_speed_live.py): opened by AppTest, and
the cells a faked GPU measures (recorded cells of one configuration, naive out of memory, teaching failing)."""
from __future__ import annotations

import copy
from pathlib import Path

from streamlit.testing.v1 import AppTest

from flashviz.bench import load_dataset
from helpers import app

SPEED = "speed"
FWD = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "nvidia-h200-fwd-2026-12-01b.json"


def open_page(page: str = SPEED, **values) -> AppTest:
    return app.open_page(page, **values)


def fake_cells(n, d, causal, dtype, batch, heads, mode="fwd"):
    """Recorded cells of one configuration, naive marked OOM and teaching failing to compile."""
    ds = load_dataset(FWD)
    cells = copy.deepcopy([c for c in ds["cells"] if (c["d"], c["causal"], c["dtype"]) == (128, False, "float16")
                           and c["n"] == 4096 and c["impl"] in ("naive", "sdpa-flash", "sdpa-cudnn", "teaching",
                                                                "fast")])
    for c in cells:
        c.update(n=n, d=d, causal=causal, dtype=dtype, batch=batch, heads=heads, mode=mode)
        if c["impl"] in ("naive", "teaching"):
            c.update(status="oom" if c["impl"] == "naive" else "error", ms=None, tflops=None, peak_extra_bytes=None,
                     message="GPU out of memory for {'impl': 'naive'}" if c["impl"] == "naive" else
                     "Triton ran out of on-chip resources for {'block_m': 256}: shared memory")
    return cells
