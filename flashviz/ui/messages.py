"""A page section's errors shown as messages in the page's language, never as a traceback.

    with shown_errors(lang, where="configuration"):
        cfg.check()

Below ui/state.py and ui/common.py, which both use it (the pages take it from ui/common.py).
"""
from __future__ import annotations

import contextlib
import logging

import streamlit as st

from ..i18n import t
from ..i18n.errors import message
from ..infra.errors import FlashvizError

log = logging.getLogger("flashviz.ui")


@contextlib.contextmanager
def shown_errors(lang: str, *, where: str = ""):
    """Run a section; a FlashvizError becomes st.error(its message in `lang`), anything else a readable error.

    st.rerun/st.stop raise BaseException subclasses and pass through untouched.
    """
    try:
        yield
    except FlashvizError as e:
        st.error(t("common.input_error", lang, msg=message(e, lang)), icon=":material/error:")
    except Exception as e:  # a bug in an optional panel must not take the page down
        log.exception("unexpected error in %s", where or "a page section")
        st.error(t("common.unexpected_error", lang, where=where or "-", kind=type(e).__name__, msg=str(e)),
                 icon=":material/bug_report:")
