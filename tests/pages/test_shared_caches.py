"""Sessions share one server process and its caches: nothing one session does may change what another sees.

The page-level check renders every page of app.py three times in this one process (as three classroom
sessions would be served): a normal session, a presenter session (?present=1: larger chart text), and a
normal session again. Every chart the last one draws, and every figure it registers for export, must be the
same as the first one's. Per cache, unit tests check that what the cache hands out cannot be changed by a
consumer: arrays are read-only, figures are fresh copies, the live-measurement store hands out copies.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from helpers.app import APP, PAGES

from flashviz.ui.common import REGISTRY
from flashviz.ui.pages import switch


def render(path: str, **query) -> dict[str, str]:
    """{chart id: figure JSON} of one fresh session on page `path`: what st.plotly_chart sent, and what the
    page registered for export (the figure the PNG / SVG / HTML would be made from)."""
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    switch(at, path).run()
    assert not at.exception, [e.value for e in at.exception]
    out = {f"drawn {i}": c.proto.spec for i, c in enumerate(at.get("plotly_chart"))}
    for key, item in at.session_state[REGISTRY]["charts"].items():
        out[f"export {key}"] = item.fig.to_json()
    return out


def font_size(spec: str) -> int | None:
    return json.loads(spec)["layout"].get("font", {}).get("size")


def test_a_presenter_session_leaves_every_other_sessions_charts_alone():
    first = {path: render(path) for path, _ in PAGES}
    presented = {path: render(path, present="1") for path, _ in PAGES}
    again = {path: render(path) for path, _ in PAGES}
    assert sum(map(len, first.values())) >= 10                          # the check sees real charts
    blocks = [k for k in first["blocks"] if k.startswith("drawn")]
    assert len(blocks) >= 4                                             # incl. HBM vs M and vs N (cached figures)
    for path, charts in presented.items():                              # presenter mode did enlarge them
        for key, spec in charts.items():
            if key.startswith("drawn"):
                assert font_size(spec) > font_size(first[path][key]), (path, key)
    for path, _ in PAGES:
        assert again[path].keys() == first[path].keys(), path
        for key, spec in first[path].items():
            assert again[path][key] == spec, (path, key, font_size(spec), font_size(again[path][key]))


# ----------------------------------------------------------------------------- per cache

def test_the_blocks_pages_sweep_figures_are_fresh_copies():
    from flashviz.ui import blocks
    for fn, args in ((blocks.vs_m_figure, (1024, 64, 4, False, None, "elements", "en")),
                     (blocks.vs_n_figure, (1024, 64, 4, True, None, 64, 64, "bytes", "en"))):
        a = fn(*args)
        before = a.to_json()
        a.update_layout(font_size=99, title_text="changed by one session")
        b = fn(*args)
        assert b is not a and b.to_json() == before


def test_a_cached_trace_is_read_only_and_unchanged():
    from flashviz.ui.config import Config
    from flashviz.ui.stepper import cached_trace
    cfg = Config(n=64, d=8, block_n=8, row=63, seed=5)
    tr = cached_trace(cfg)
    m = tr.m.copy()
    with pytest.raises(ValueError, match="read-only"):
        tr.m[0] = 123.0
    with pytest.raises(ValueError, match="read-only"):
        tr.values[0, 0] = 123.0
    assert cached_trace(cfg) is tr and np.array_equal(cached_trace(cfg).m, m)


def test_blocks_schedule_arrays_are_read_only():
    from flashviz.engine.tiling import make_config
    from flashviz.ui.blocks import cached_schedule
    sch = cached_schedule(make_config(64, 8, br=16, bc=16, causal=True), "fa2")
    for a in (sch.block_kind, sch.order_index, sch._start):
        with pytest.raises(ValueError, match="read-only"):
            a.flat[0] = 7
    assert cached_schedule(make_config(64, 8, br=16, bc=16, causal=True), "fa2") is sch


def test_decoding_results_are_read_only():
    from flashviz.ui.config import Config
    from flashviz.ui.decoding import cached_decode, cached_paged
    cfg = Config(n=32, d=4, block_n=4, row=31, seed=3)
    res = cached_decode(cfg, 4, False)
    out = res.output.copy()
    for a in (res.merged.o, res.start, res.single.m, res.partials[0].o):
        with pytest.raises(ValueError, match="read-only"):
            a.flat[0] = 7
    paged, contiguous = cached_paged(cfg, 4, 3, 0)
    for a in (paged.cache.block_table, paged.cache.k_cache, paged.order, contiguous):
        with pytest.raises(ValueError, match="read-only"):
            a.flat[0] = 7
    assert np.array_equal(cached_decode(cfg, 4, False).output, out)


def test_the_kernels_shared_run_is_read_only():
    from flashviz.ui.kernel_panel import RUNS
    key = (32, 8, 16, 16, False, "float32", 3, 1)
    blk = RUNS.submit(key).result(timeout=120)
    m = np.array(blk["m"])
    with pytest.raises(TypeError):
        blk["m"] = None
    with pytest.raises(ValueError, match="read-only"):
        blk["m"][0, 0] = 7.0
    assert RUNS.submit(key).result(timeout=5) is blk and np.array_equal(blk["m"], m, equal_nan=True)


def test_committed_recordings_are_copies():
    """ui.common's cached reader of committed files (the speed, backward, ring, variants and inside pages)."""
    from flashviz.bench import list_datasets
    from flashviz.ui.common import _committed
    p = list_datasets()[0]
    loader = "flashviz.bench.dataset.load_dataset"
    a = _committed(loader, str(p), p.stat().st_mtime)
    a["cells"].clear()
    a["provenance"]["device_name"] = "changed by one session"
    b = _committed(loader, str(p), p.stat().st_mtime)
    assert b["cells"] and b["provenance"]["device_name"] != "changed by one session"
