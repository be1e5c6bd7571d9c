"""Presenter mode: larger text (CSS), the sidebar folded away (app.py's set_page_config), and a bar at the top
of the page with the presets, a way out, and the keys that step (the step buttons carry ←/→/Home/End
shortcuts, see steps.controls). On by the sidebar toggle or ?present=1.
"""
from __future__ import annotations

import streamlit as st

from ..i18n import t
from . import state

PRESET_KEY = "_w.preset.present"          # the bar's own preset picker (the sidebar's has another key)

# Streamlit sizes its text in rem: raising the root size scales text, widgets and metrics together.
CSS = """<style>
html { font-size: 20px; }
[data-testid="stMainBlockContainer"] { padding-top: 4rem; max-width: 100%; }
[data-testid="stMetricValue"] { font-size: 2.4rem; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { line-height: 1.5; }
</style>"""


def setup(lang: str) -> bool:
    """The sidebar toggle; while presenting, the CSS and the top bar. Returns whether presenting."""
    on = state.presenter_switch(lang)
    if on:
        st.html(CSS)
        bar(lang)
    return on


def bar(lang: str) -> None:
    with st.container(border=True):
        a, b, c = st.columns([3, 3, 4], vertical_alignment="center")
        a.markdown(t("present.bar", lang))
        a.button(t("present.exit", lang), key="present.exit", icon=":material/close_fullscreen:",
                 on_click=state.set_presenting, args=(False,))
        with b:
            state.preset_picker(lang, key=PRESET_KEY)
        c.caption(t("present.keys", lang))
