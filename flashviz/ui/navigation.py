"""What st.navigation gets on this run: the lessons of ui/pages.py in order, their aliases, and a page for an address
that names none.

    st.navigation(navigation.all_pages(lang))   # app.py

Every page has its own address, the first one too: "/" and "/stepper" both open the stepper (a hidden alias page
serves "/stepper", since Streamlit serves its default page at "/" only). An address that names no page opens a
hidden page of our own (ui/not_found.py) that says so in the session's language and links to the lessons, instead
of Streamlit's English "Page not found" dialog and a silent jump to the first page.

Above the pages it routes to: ui/pages.py (the list) and ui/not_found.py import nothing of this module.
"""
from __future__ import annotations

import streamlit as st

from ..i18n import t
from .pages import BY_SLUG, DEFAULT, NOT_FOUND, PAGES, page, runner, settle, title


def requested_path() -> str | None:
    """The page name a browser asked for by address (e.g. "stepper", "nope"), or None when it asked by a page's
    hash (a click in the navigation) or for "/". Streamlit keeps it in the run's page manager."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
        pm = get_script_run_ctx().pages_manager
        if pm.intended_page_script_hash:
            return None
        return pm.intended_page_name or None
    except Exception:                                   # bare mode, an older Streamlit: no address to answer
        return None


def _not_found_runner(asked: str):
    def run() -> None:
        from . import not_found
        settle(not_found.__name__)
        not_found.render(asked)
    run.__name__ = "not_found"
    return run


def all_pages(lang: str) -> list[st.Page]:
    """The lessons in order, the hidden alias "/stepper" and, when the address names no page, a hidden page that
    says so (its url_path is the address asked for, so Streamlit resolves to it and sends no English dialog)."""
    out = [page(p.slug, lang) for p in PAGES]
    out.append(st.Page(runner(BY_SLUG[DEFAULT].module), title=title(DEFAULT, lang), url_path=DEFAULT,
                       visibility="hidden"))
    asked = requested_path()
    if asked and asked not in BY_SLUG and asked != "home":
        safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in asked.strip("/"))[:100] or NOT_FOUND
        if safe == asked.strip("/"):
            out.append(st.Page(_not_found_runner(asked), title=t("common.not_found_title", lang), url_path=safe,
                               visibility="hidden"))
    return out
