"""AppTest of the page "Speed and memory" on its GPU path, on CPU: flashviz.bench.live faked to report a GPU and to return
recorded cells with naive out of memory and teaching failing to compile, so the page's wiring shows (OOM and errors
per cell, one run and the sweep, the user's tiles or the kernels' own), and flashviz.ui.speed_live's server-wide
store of live results (concurrent presses of one configuration measure once; copies handed out, a bounded number
kept). The page's opening and the faked cells come from tests/helpers/speed.py.
"""
from __future__ import annotations

import json

from flashviz.i18n import t
from flashviz.infra.literal import unmd
from flashviz.ui.speed_live import family_text
from helpers.speed import fake_cells, open_page


# ----------------------------------------------------------------------------- the GPU path, faked on CPU

def test_gpu_path_shows_oom_and_errors_per_cell(monkeypatch):
    import torch

    from flashviz.bench import live
    calls = []

    def measure(n, d, causal, dtype, batch, heads, *, mode="fwd", tiles=None, progress=None, **kw):
        calls.append(("one", n, tiles))
        cells = fake_cells(n, d, causal, dtype, batch, heads, mode)
        for i, c in enumerate(cells):
            progress(i + 1, len(cells), c)
        return cells

    def sweep(ns, d, causal, dtype, batch, heads, *, mode="fwd", tiles=None, progress=None, **kw):
        calls.append(("sweep", tuple(ns), tiles))
        return [c for n in ns for c in fake_cells(n, d, causal, dtype, batch, heads, mode)]

    monkeypatch.setattr(live, "gpu_available", lambda: True)
    monkeypatch.setattr(live, "measure_live", measure)
    monkeypatch.setattr(live, "sweep_live", sweep)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *_: "Fake GPU")
    at = open_page(n=2048, d=128, dtype="float16", block_m=64, block_n=32)
    assert not at.exception and not any("No CUDA GPU" in i.value for i in at.info)
    assert any("your tiles Br = 64, Bc = 32" in c.value for c in at.caption)
    at.button(key="speed.live_run").click().run()
    assert not at.exception
    assert calls[-1] == ("one", 2048, (64, 32))
    df = at.dataframe[0].value
    assert df.set_index("implementation").loc["naive (PyTorch)", "status"] == "OOM"
    warnings = " ".join(unmd(w.value) for w in at.warning)
    assert "ran out of GPU memory (OOM)" in warnings and "Triton ran out of on-chip resources" in warnings
    mine = dict(n=2048, d=128, causal=False, dtype="float16", batch=4, heads=32, mode="fwd")
    assert t("speed.live_result", "en", what=family_text(mine, "en")) in [s.value for s in at.subheader]
    assert len(df) == len(fake_cells(**mine))                           # one row per measured cell

    at.button(key="speed.live_sweep").click().run()
    assert not at.exception
    assert calls[-1][0] == "sweep" and calls[-1][1] == live.SWEEP_NS
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(specs) == 4                                                # live time + memory, recorded two
    oom_marks = [tr for tr in specs[0]["data"] if tr.get("mode") == "markers+text"]
    assert any("OOM" in tr["text"] for tr in oom_marks)


def test_non_gpu_tiles_fall_back_to_the_kernel_defaults(monkeypatch):
    import torch

    from flashviz.bench import live
    monkeypatch.setattr(live, "gpu_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *_: "Fake GPU")
    at = open_page(block_m=4, block_n=4)
    assert not at.exception
    assert any("its own tiles" in c.value and "Br = 4, Bc = 4" in c.value for c in at.caption)


# ----------------------------------------------------------------------------- the live results' store

def test_concurrent_presses_of_one_configuration_measure_once():
    """Two sessions pressing 'Run on GPU' for the same configuration at once: one measurement, both get it."""
    import threading
    import time

    from flashviz.ui import speed_live
    calls, results = [], []

    def slow():
        calls.append(1)
        time.sleep(0.3)
        return [dict(impl="naive", n=len(calls))]

    key = ("test-concurrency", time.monotonic())
    threads = [threading.Thread(target=lambda: results.append(speed_live.measure_once(key, slow, force=True)))
               for _ in range(2)]
    for th in threads:
        th.start()
        time.sleep(0.05)
    for th in threads:
        th.join()
    assert len(calls) == 1 and results[0] == results[1] and results[0] is not results[1]     # copies of one
    again = speed_live.measure_once(key, slow, force=True)               # a later press measures again
    assert len(calls) == 2 and again["cells"][0]["n"] == 2


def test_the_live_store_hands_out_copies_and_keeps_a_bounded_number():
    """A session that changes the cells it got changes nothing for the others; old configurations are dropped."""
    from flashviz.ui import speed_live
    key = ("test-copies", id(object()))
    got = speed_live.measure_once(key, lambda: [dict(impl="naive", n=1, ms=2.0)])
    got["cells"][0]["ms"] = -1.0
    got["cells"].append("junk")
    assert speed_live.stored(key)["cells"] == [dict(impl="naive", n=1, ms=2.0)]
    mine = speed_live.stored(key)
    mine["cells"].clear()
    assert speed_live.measure_once(key, lambda: [])["cells"] == [dict(impl="naive", n=1, ms=2.0)]
    for i in range(speed_live.MAX_RESULTS + 5):
        speed_live.measure_once(("test-bound", i), lambda: [dict(impl="naive", n=i)])
    s = speed_live._store()
    assert len(s["results"]) <= speed_live.MAX_RESULTS and len(s["keys"]) <= speed_live.MAX_RESULTS + 1
    assert speed_live.stored(key) is None and speed_live.stored(("test-bound", 0)) is None
    assert speed_live.stored(("test-bound", speed_live.MAX_RESULTS + 4))["cells"][0]["n"] == speed_live.MAX_RESULTS + 4
