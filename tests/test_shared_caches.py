"""Sessions share one server process and its caches: nothing one session does may change what another sees.

The page-level check renders every page of app.py three times in this one process (as three classroom
sessions would be served): a normal session, a presenter session (?present=1: larger chart text), and a
normal session again. Every chart the last one draws, and every figure it registers for export, must be the
same as the first one's. Per cache, unit tests check that what the cache hands out cannot be changed by a
consumer: arrays are read-only, figures are fresh copies, the live-measurement store hands out copies.
"""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from app_util import APP
from test_export import PAGES

from flashviz.ui.common import REGISTRY


def render(path: str, **query) -> dict[str, str]:
    """{chart id: figure JSON} of one fresh session on page `path`: what st.plotly_chart sent, and what the
    page registered for export (the figure the PNG / SVG / HTML would be made from)."""
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(path).run()
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
    blocks = [k for k in first["flashviz/ui/blocks.py"] if k.startswith("drawn")]
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
