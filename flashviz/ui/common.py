"""Small pieces every page uses: errors shown as messages (never a traceback) and charts with export config."""
from __future__ import annotations

import contextlib
import logging

import streamlit as st

from ..charts.common import plotly_config
from ..errors import FlashvizError
from ..i18n import t
from . import state

log = logging.getLogger("flashviz.ui")


@contextlib.contextmanager
def shown_errors(lang: str, *, where: str = ""):
    """Run a section; a FlashvizError becomes st.error(message), anything else a readable error.

    st.rerun/st.stop raise BaseException subclasses and pass through untouched.
    """
    try:
        yield
    except FlashvizError as e:
        st.error(t("common.input_error", lang, msg=str(e)), icon=":material/error:")
    except Exception as e:  # a bug in an optional panel must not take the page down
        log.exception("unexpected error in %s", where or "a page section")
        st.error(t("common.unexpected_error", lang, where=where or "-", kind=type(e).__name__, msg=str(e)),
                 icon=":material/bug_report:")


def chart(fig, name: str, slug: str, *, height: int | None = None, key: str | None = None) -> None:
    """st.plotly_chart with the modebar's image export configured (format from the sidebar, named file)."""
    cfg = plotly_config(f"flashviz_{name}_{slug}", state.export_format(), height=height)
    st.plotly_chart(fig, config=cfg, theme=None, key=key)
