"""The app's pages, listed once: app.py's navigation and every link between pages are built from PAGES.

    st.navigation(pages.all_pages(lang))        # app.py
    pages.link("speed", lang)                   # a link to a page; an unknown slug raises KeyError

A page is a module of flashviz.ui with a render() function. st.Page runs it as a callable, so the module is
imported once per process and its caches and fragments stay the same objects on every run (a page file
executed as a script would define them anew each time). The module is looked up when the page runs, not when
the list is built: a page's import cost is paid on first visit.
"""
from __future__ import annotations

import importlib
from typing import NamedTuple

import streamlit as st

from ..i18n import t


class PageSpec(NamedTuple):
    slug: str           # the URL path, and the name other pages link with
    module: str         # flashviz.ui.<module>, which has render()
    title_key: str      # i18n key of the title in the navigation and on links
    icon: str


PAGES = (                                   # navigation order; the first is the default page, served at /
    PageSpec("stepper", "stepper", "common.nav_stepper", ":material/view_week:"),
    PageSpec("blocks", "blocks", "common.nav_blocks", ":material/grid_view:"),
    PageSpec("decoding", "decoding", "decoding.nav", ":material/call_split:"),
    PageSpec("speed", "speed", "common.nav_speed", ":material/speed:"),
    PageSpec("inside", "inside", "inside.nav", ":material/timeline:"),
    PageSpec("backward", "backward", "backward.nav", ":material/undo:"),
    PageSpec("ring", "ring", "ring.nav", ":material/cycle:"),
    PageSpec("variants", "variants", "variants.nav", ":material/tune:"),
    PageSpec("quiz", "quiz", "common.nav_quiz", ":material/quiz:"),
)
BY_SLUG = {p.slug: p for p in PAGES}
DEFAULT = PAGES[0].slug


def title(slug: str, lang: str) -> str:
    return t(BY_SLUG[slug].title_key, lang)


def _runner(module: str):
    def run() -> None:
        importlib.import_module(f"flashviz.ui.{module}").render()
    run.__name__ = module
    return run


def page(slug: str, lang: str) -> st.Page:
    """The st.Page of `slug` (KeyError if there is none). Built per run, never shared between sessions:
    st.navigation marks the page it runs."""
    spec = BY_SLUG[slug]
    return st.Page(_runner(spec.module), title=title(slug, lang), icon=spec.icon, url_path=slug,
                   default=slug == DEFAULT)


def all_pages(lang: str) -> list[st.Page]:
    return [page(p.slug, lang) for p in PAGES]


def link(slug: str, lang: str, *, label: str | None = None, icon: str | None = ":material/arrow_forward:") -> None:
    """st.page_link to the page `slug`, labelled with its title unless `label` is given."""
    st.page_link(page(slug, lang), label=label or title(slug, lang), icon=icon)


def switch(at, slug: str):
    """Point a streamlit.testing AppTest at page `slug` for its next run (the page tests, ui/rerun_bench).
    AppTest.switch_page finds file-based pages only; Streamlit addresses a callable page by the hash of its
    url_path (st.Page._script_hash), which is what a browser's page request carries too."""
    from streamlit.util import calc_hash
    at._page_hash = calc_hash(BY_SLUG[slug].slug)
    return at
