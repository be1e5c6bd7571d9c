"""Small pieces every page uses: errors shown as messages (never a traceback; ui/messages.py), and charts with
export.

`chart(fig, name, slug, meta=...)` draws a Plotly chart, registers it for this run's zip and puts an "Export"
menu under it (PNG, SVG, offline HTML, CSV, JSON). Nothing is generated on a rerun: every download button
gets a callable that Streamlit runs only when that button is clicked (flashviz.charts.export does the work).
app.py calls `begin_run(page)` before the page runs and `export_sidebar(lang)` after it: one zip per page.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import logging

import plotly.graph_objects as go
import streamlit as st

from ..charts import export
from ..infra import literal, runlog
from ..infra.cache import MiB, frozen_figure, is_frozen_figure, named
from ..bench.recording import complete_first
from ..charts.common import plotly_config
from ..infra.errors import DatasetError
from ..i18n import t
from . import state
from .messages import shown_errors  # noqa: F401  (the pages take it from here)

log = logging.getLogger("flashviz.ui")
REGISTRY = "_export.registry"             # {"page": {...}, "charts": {key: ChartExport}}; a new dict per full run
ICONS = {"png": ":material/image:", "svg": ":material/polyline:", "html": ":material/public:",
         "csv": ":material/table:", "json": ":material/data_object:"}
PRESENT_FONT, PRESENT_TITLE_FONT = 17, 21       # chart text in presenter mode (else 13 / 16)
FIGURES = named("ui.figures", 64 * MiB)         # every page's charts, serialised once per configuration


def config_ok(cfg, ns: str, lang: str) -> bool:
    """cfg.check() with its error shown as a message; when it fails, the page's hint (<ns>.fix_input) too."""
    with shown_errors(lang, where="configuration"):
        cfg.check()
        return True
    st.info(t(f"{ns}.fix_input", lang), icon=":material/edit:")
    return False


# ----------------------------------------------------------------------------- the per-run registry

def begin_run(title: str = "", url_path: str = "") -> None:
    """A full run starts: a fresh registry (the zip button of the previous run keeps the old one)."""
    runlog.begin(url_path)
    st.session_state[REGISTRY] = {"page": {"title": title, "url_path": url_path}, "charts": {}}


def registry() -> dict:
    reg = st.session_state.setdefault(REGISTRY, {"page": {"title": "", "url_path": ""}, "charts": {}})
    reg.setdefault("files", {})
    return reg


def _meta(extra: dict | None) -> dict:
    """What every export carries: page, language, the shared configuration (read once per run); then the page's
    own `meta` (e.g. device or dataset provenance), which wins on a clash."""
    reg = registry()
    base = reg.get("meta")
    if base is None:
        page = reg["page"]
        base = reg["meta"] = {"page": page["url_path"] or page["title"], "language": state.lang(),
                              "configuration": state.config().to_dict()}
    return {**base, **(extra or {})}


# ----------------------------------------------------------------------------- charts

def shared_figure(name: str, key: tuple, build):
    """The figure `build()` makes, built and serialised once per process for (name, key) and shared read-only by
    every session (a FrozenFigure, which chart() draws without copying or validating it). `key` must hold every
    input the figure depends on (configuration, step, language, sizes): equal keys, equal figures."""
    return FIGURES.get((name, key, repr(key)), lambda: frozen_figure(build()))


def chart(fig, name: str, slug: str, *, height: int | None = None, key: str | None = None,
          meta: dict | None = None) -> None:
    """st.plotly_chart with the modebar's camera configured (format from the sidebar, named file), registered
    for the page's zip, with an Export menu under it. `meta` goes into every exported file's metadata.
    `fig` is a Plotly Figure or a FrozenFigure (shared_figure, figure_memo's .frozen): that one is sent as it
    was serialised, and an export makes a Figure of its own from it only when asked."""
    frozen = is_frozen_figure(fig)
    if state.presenting():                                     # larger chart text for the back row, on a copy:
        fig = fig.figure() if frozen else go.Figure(fig, _validate=False)   # the caller's may be shared
        fig.update_layout(font_size=PRESENT_FONT, title_font_size=PRESENT_TITLE_FONT)
        frozen = False
    cfg = plotly_config(f"flashviz_{name}_{slug}", state.export_format(), height=height)
    st.plotly_chart(fig, config=cfg, theme=None, key=key)
    lang = state.lang()
    with shown_errors(lang, where="export"):
        item = export.ChartExport(name=name, slug=slug, fig=export.LazyFigure(fig.figure) if frozen else fig,
                                  meta=_meta(meta), height=height)
        registry()["charts"][key or f"{name}:{slug}"] = item
        export_menu(item, lang, key=key)


def image_why(why: str, lang: str) -> str:
    """A reason flashviz.infra.images gave (an images.Why: its code and values) in the page's language; a helper's
    own error text inside it (an exception's words, a path) stays as it is, in a code span. A plain str (a reason
    from elsewhere) is shown as it is."""
    code = getattr(why, "code", None)
    if code is None:
        return why
    values = {k: image_why(v, lang) if getattr(v, "code", None) else literal.code(v) if k in ("detail", "path")
              else v for k, v in why.values.items()}
    return t(f"export.why_{code}", lang, **values)


def export_menu(item: export.ChartExport, lang: str, *, key: str | None = None, popover: bool = True) -> None:
    """A small popover of download buttons (or the buttons alone); each generates its file only when clicked."""
    ok, why = export.image_status()
    box = st.popover(t("export.menu", lang), icon=":material/download:", type="tertiary",
                     help=t("export.menu_help", lang)) if popover else contextlib.nullcontext()
    stem = item.stem                                           # one safe() pass, not one per button
    with box:
        st.caption(t("export.file", lang, stem=stem))
        for fmt in export.FORMATS:
            image = fmt in export.IMAGE_FORMATS
            off = image and not ok
            click = functools.partial(image_clicked, fmt, lang) if image else "ignore"
            st.download_button(t(f"export.fmt_{fmt}", lang), data=functools.partial(export.export, item, fmt),
                               file_name=f"{stem}.{fmt}", mime=export.MIME[fmt], on_click=click,
                               key=f"{key}.export.{fmt}" if key else None, icon=ICONS[fmt], disabled=off,
                               help=image_why(why, lang) if off else t(f"export.fmt_{fmt}_help", lang), width="stretch")
        if not ok:
            st.caption(t("export.no_browser", lang, why=image_why(why, lang)))
        elif failed := export.last_image_failure():                   # shown here: a download cannot say why
            st.caption(t("export.image_failed", lang, why=image_why(failed, lang)))


def register_export(items: list, files: list, lang: str, *, title: str, note: str = "", extra_labels=None,
                    chart_labels=None, key: str) -> None:
    """For charts a page draws in the browser (the stepper): register `items` (export.ChartExport, their figures
    made only when exported) and `files` (export.FileExport) for the page's zip, and draw one Export popover with
    the files and, for a chart picked there, its formats. Nothing is generated until a button is clicked."""
    reg = registry()
    for item in items:
        item.meta = _meta(item.meta)
        reg["charts"][f"{key}.{item.name}"] = item
    for f in files:
        reg["files"][f.name] = f
    labels = extra_labels or {}
    with st.popover(title, icon=":material/download:", type="tertiary", help=t("export.menu_help", lang)):
        for f in files:
            label, help_ = labels.get(f.name, (f.name, None))
            st.download_button(label, data=f.make, file_name=f.name, mime=f.mime, on_click="ignore",
                               key=f"{key}.file.{f.name}", icon=ICONS["html"], help=help_, width="stretch")
        if note:
            st.caption(note)
        names = [item.name for item in items]
        pick = st.segmented_control(t("export.chart", lang), names, key=f"{key}.pick", default=names[0],
                                    format_func=lambda n: (chart_labels or {}).get(n, n))
        for item in items:
            if item.name == (pick or names[0]):
                export_menu(item, lang, key=f"{key}.{item.name}", popover=False)


def image_clicked(fmt: str, lang: str) -> None:
    """A PNG or SVG button was clicked (a callback: it runs at the click, beside the download it starts). A browser
    that cannot make the image now, hung or not there, is a message at once, in the page's language, instead of a
    download that never comes (the download itself restarts a hung browser and tries once more)."""
    ok, why = export.image_check()
    if ok:
        return
    if why == export.IMAGE_HUNG:
        msg = t("export.image_hung_browser", lang, fmt=fmt.upper(), s=f"{export.images.PING_TIMEOUT_S:g}")
    else:
        msg = t("export.image_hung", lang, fmt=fmt.upper(), why=image_why(why, lang))
    st.toast(msg, icon=":material/error:", duration="long")


# ----------------------------------------------------------------------------- the page's zip

def _zip(reg: dict, manifest: dict) -> bytes:
    return export.to_zip(list(reg["charts"].values()), manifest, extra_files=list(reg.get("files", {}).values()))


def export_sidebar(lang: str) -> None:
    """Sidebar: the modebar camera's format, and one zip of every chart this page drew."""
    with shown_errors(lang, where="export"):
        state.export_format_switch()
        reg = registry()
        n = len(reg["charts"]) + len(reg["files"])
        page = reg["page"]["url_path"] or "page"
        cfg = state.config()
        try:
            slug = cfg.slug()
        except Exception:                                      # a half-typed configuration
            slug = "config"
        manifest = {"page": {**reg["page"]}, "language": lang, "configuration": cfg.to_dict()}
        ok, why = export.image_status()
        st.sidebar.download_button(
            t("export.zip", lang), data=functools.partial(_zip, reg, manifest), mime=export.MIME["zip"],
            file_name=f"{export.safe(f'flashviz_{page}_{slug}')[:export.MAX_STEM]}.zip", on_click="ignore",
            key="_export.zip", icon=":material/folder_zip:", disabled=n == 0, width="stretch",
            help=t("export.zip_help", lang, n=n) if n else t("export.zip_none", lang))
        if n and not ok:
            st.sidebar.caption(t("export.zip_no_images", lang, why=image_why(why, lang)))
        elif n and (failed := export.last_image_failure()):
            st.sidebar.caption(t("export.image_failed", lang, why=image_why(failed, lang)))
    runlog.end()                                               # app.py's last call: the run's server time


@st.cache_data(max_entries=32, show_spinner=False)
def _committed(loader: str, path: str, mtime: float) -> dict:
    """A committed recording read by `loader` ("module.function"), cached per file and modification time;
    st.cache_data hands every session its own copy."""
    module, name = loader.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)(path)


def committed_recordings(paths, loader, lang: str, bad_key: str, prefix: str = "",
                         escape: bool = False) -> dict[str, dict]:
    """{prefix + file name: validated recording} for the committed files of one kind; a file that fails its schema
    is a warning (message `bad_key` with name and msg, Markdown-escaped when `escape`), never a page that does not
    open."""
    md = literal.md if escape else str
    out = {}
    for p in paths:
        try:
            out[prefix + p.name] = _committed(f"{loader.__module__}.{loader.__name__}", str(p), p.stat().st_mtime)
        except DatasetError as e:
            st.warning(t(bad_key, lang, name=md(p.name), msg=md(e.localized(lang))),
                       icon=":material/warning:")
    return complete_first(out)

