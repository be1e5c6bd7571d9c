"""The page for an address that names no lesson (flashviz.ui.navigation adds it, hidden, only for such an address):
what was asked for, in the session's language, and every lesson in course order."""
from __future__ import annotations

import streamlit as st

from flashviz.infra import literal
from flashviz.i18n import t
from flashviz.ui import pages, state


def render(asked: str) -> None:
    state.init()
    lang = state.lang()
    st.title(t("common.not_found_title", lang))
    if asked == pages.NOT_FOUND:                      # redirected from a nested address (ui/routes.py)
        asked = str(st.query_params.get("path", "")) or asked
    st.markdown(t("common.not_found_body", lang, path=literal.md(f"/{asked.strip('/')}")))
    for p in pages.PAGES:
        pages.link(p.slug, lang)
