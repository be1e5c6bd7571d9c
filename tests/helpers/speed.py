"""The page "Speed and memory" in its tests (tests/pages/test_speed_page.py, test_speed_recorded.py and
test_speed_live.py): opened by AppTest, what it shows (the dataset picked, the recorded-cell note, its text), and
the cells a faked GPU measures (recorded cells of one configuration, naive out of memory, teaching failing)."""
from __future__ import annotations

import copy
from pathlib import Path

from streamlit.testing.v1 import AppTest

from flashviz.bench import load_dataset
from flashviz.i18n import t
from flashviz.infra.literal import unmd
from flashviz.ui.speed_live import family_text
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


def dataset_shown(at: AppTest) -> str:
    return at.selectbox(key="_w.speed.dataset").value


def recorded_note(at: AppTest) -> str:
    """The line saying which recorded configuration the charts and the table show."""
    [note] = [e.value for e in [*at.success, *at.info] if "exactly your configuration" in e.value
              or "nearest, not the same" in e.value]
    return note


def same_note(**c) -> str:
    """What recorded_note says when the dataset has exactly this configuration (defaults B=4, H=32, forward)."""
    return t("speed.rec_same", "en", cfg=family_text(dict(batch=4, heads=32, mode="fwd") | c, "en"))


def texts(at: AppTest) -> str:
    """What the page shows as text: Markdown bodies with their escapes removed (a dataset's text is escaped)."""
    parts = [e.value if kind == "code" else unmd(e.value)
             for kind in ("markdown", "caption", "info", "success", "warning", "error", "code", "subheader")
             for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts)
