"""The stepper's browser side: JavaScript and CSS files (no build step, no npm), read here as text (no streamlit).

    fmt.js        numbers formatted exactly as Python formats them (f"{x:.4f}", .2e, .4g; charts.common.fmt_num)
    charts.js     the stepper's four charts at one step, from the figures the server built once
    player.js     the stepper: store, controls, keys, autoplay, table, counters, formulas
    component.js  the entry of the Streamlit component (st.components.v2): decodes the data, loads plotly.js
    stepper.css   its look

`module_js()` is what the component runs (an ES module); `player_js()` is the same code without the Streamlit entry,
for the offline page (flashviz.charts.offline.stepper_html). plotly.js is the copy inside the installed plotly package:
`plotly_assets()` writes it, gzip-compressed once, into a folder this server serves (flashviz.ui.stepper_view).
"""
from __future__ import annotations

import functools
import gzip
import os
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAYER_FILES = ("fmt.js", "charts.js", "player.js")


@functools.lru_cache(maxsize=None)
def read(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


def player_js() -> str:
    """fmt.js + charts.js + player.js: defines window.FV (fmt, charts, player); no module syntax."""
    return "\n".join(read(n) for n in PLAYER_FILES)


def module_js() -> str:
    """The component's ES module: the player and the Streamlit entry (export default)."""
    return player_js() + "\n" + read("component.js")


def css() -> str:
    return read("stepper.css")


def plotly_version() -> str:
    from plotly.offline.offline import get_plotlyjs_version
    return get_plotlyjs_version()


def plotly_js_path() -> Path:
    import plotly
    return Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"


def asset_dir() -> Path:
    """Where the served copies live: FLASHVIZ_ASSET_DIR, else a per-user folder under the temporary directory."""
    env = os.environ.get("FLASHVIZ_ASSET_DIR")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(env) if env else Path(tempfile.gettempdir()) / f"flashviz-assets-{uid}"


@functools.lru_cache(maxsize=None)
def plotly_assets() -> tuple[Path, str, str]:
    """(folder, gzip file name, plain file name) of this plotly.js version, written once per machine (atomically:
    several server processes may start together). The gzip file is sent as it is (application/gzip: the server's
    compression leaves it alone); the plain copy is the fallback for a browser without DecompressionStream."""
    folder = asset_dir()
    folder.mkdir(parents=True, exist_ok=True)
    ver = plotly_version()
    gz, plain = f"plotly-{ver}.min.js.gz", f"plotly-{ver}.min.js"
    src = plotly_js_path().read_bytes()
    for name, data in ((gz, None), (plain, src)):
        path = folder / name
        if path.is_file() and path.stat().st_size > 0:
            continue
        body = gzip.compress(src, compresslevel=9, mtime=0) if data is None else data
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        os.replace(tmp, path)
    return folder, gz, plain
