"""Links between pages that degrade quietly: a page not (yet) in app.py's PAGES gets no link, no error.

    links.page_link("speed", lang)            # True if drawn
    links.first_link(("backward", "stepper"), lang, label_key="quiz.see_page")
"""
from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from ..i18n import t

# page slug -> (file run as the page, its title key); the same paths app.py's PAGES uses
PAGES = {
    "stepper": ("flashviz/ui/stepper.py", "common.nav_stepper"),
    "blocks": ("flashviz/ui/blocks.py", "common.nav_blocks"),
    "decoding": ("flashviz/ui/decoding.py", "decoding.nav"),
    "speed": ("flashviz/ui/speed.py", "common.nav_speed"),
    "backward": ("flashviz/ui/backward.py", "common.nav_backward"),
    "quiz": ("flashviz/ui/quiz.py", "common.nav_quiz"),
}


def title(slug: str, lang: str) -> str:
    return t(PAGES[slug][1], lang)


def page_link(slug: str, lang: str, *, label: str | None = None, icon: str | None = ":material/arrow_forward:") -> bool:
    """st.page_link to the page `slug` if the app's navigation has it; else draw nothing. True if drawn."""
    try:
        st.page_link(PAGES[slug][0], label=label or title(slug, lang), icon=icon)
        return True
    except (StreamlitAPIException, KeyError):        # StreamlitPageNotFoundError: not in PAGES (yet)
        return False


def first_link(slugs: tuple[str, ...], lang: str, *, label_key: str, icon: str = ":material/arrow_forward:") -> str | None:
    """A link to the first of `slugs` the app has, labelled t(label_key, page=<its title>); its slug or None."""
    for slug in slugs:
        if page_link(slug, lang, label=t(label_key, lang, page=title(slug, lang)), icon=icon):
            return slug
    return None
