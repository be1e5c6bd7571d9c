"""AppTest helpers shared by the page tests: open app.py on a page, assert a clean run, decode plotly arrays.
Pages are named by their slug in flashviz.ui.pages ("stepper", "blocks", ...)."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from flashviz.ui.config import FIELDS, Config, follow_row
from flashviz.ui.pages import PAGES as APP_PAGES, scale, switch
from flashviz.ui.state import SCALES, canon

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = [(p.slug, p.slug) for p in APP_PAGES]            # (page, url path), in navigation order


def cfg_key(page: str, field: str) -> str:
    """The session key of a shared field as page `page` reads it (its scale: flashviz.ui.state)."""
    return canon(field, scale(page))


def page_config(at: AppTest, page: str) -> Config:
    """The shared configuration page `page` speaks about, read from an AppTest's session state."""
    base = SCALES[scale(page)]
    return Config(**{f: at.session_state[cfg_key(page, f)] if cfg_key(page, f) in at.session_state
                     else getattr(base, f) for f in FIELDS})


def open_page(page: str, *, lang: str | None = None, timeout: float = 60, **values) -> AppTest:
    """app.py on page `page` (a slug); values: shared fields by name (n=16: the page's own scale) or page keys with
    a dot ('blocks.order')."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    if lang:
        at.query_params["lang"] = lang
    if "n" in values and "row" not in values:         # as the sidebar does: a row that followed the last one follows
        base = SCALES[scale(page)]
        values = {**values, "row": follow_row(base.row, base.n, values["n"])}
    for k, v in values.items():
        at.session_state[k if "." in k else cfg_key(page, k)] = v
    return switch(at, page).run()


def run_app(*, timeout: float = 60, **cfg) -> AppTest:
    """app.py on its first page (the stepper) with shared fields set by name (n=16)."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for k, v in cfg.items():
        at.session_state[f"cfg.{k}"] = v
    return at.run()


def clean(at: AppTest) -> None:
    """No exception and no st.error on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def kernel_panel_view(at: AppTest) -> dict | None:
    """What the stepper's kernel panel shows after a run (None if it shows no result): max difference and
    tolerance from its metrics; from its table, which tiles the kernel ran and its m, l, alpha per tile."""
    shown = {m.label: m.value for m in at.metric}
    if "Max difference" not in shown:
        return None
    [tol] = [v for k, v in shown.items() if k.startswith("Tolerance (")]
    df = at.dataframe[-1].value
    ran = [x != "skipped" for x in df["m kernel"]]
    kernel = {f: np.array([float(x) if ok else np.nan for x, ok in zip(df[f"{sym} kernel"], ran)])
              for f, sym in (("m", "m"), ("l", "ℓ"), ("alpha", "α"))}
    return dict(max_diff=float(shown["Max difference"]), tol=float(tol), ran=ran, kernel=kernel)


def chart_specs(at: AppTest) -> list[dict]:
    """The page's Plotly charts as figure specs, in page order."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def chart_specs_by_key(at: AppTest) -> dict[str, dict]:
    """The page's Plotly charts as figure specs, by their widget key."""
    return {c.key: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def array(a) -> np.ndarray:
    """A plotly 7 array: a list or {'dtype', 'bdata' (base64)[, 'shape']}."""
    if isinstance(a, dict):
        out = np.frombuffer(base64.b64decode(a["bdata"]), dtype=a["dtype"])
        return out.reshape([int(s) for s in a["shape"].split(",")]) if "shape" in a else out
    return np.asarray(a)
