"""The app's pages, listed once: app.py's navigation (ui/navigation.py) and every link between pages are built
from PAGES.

    pages.link("speed", lang)                   # a link to a page; an unknown slug raises KeyError

The order is the course's (see LESSON_ORDER_WHY).

A page is a module of flashviz.ui with a render() function. st.Page runs it as a callable, so the module is
imported once per process and its caches and fragments stay the same objects on every run (a page file
executed as a script would define them anew each time). The module is looked up when the page runs, not when
the list is built: a page's import cost is paid on first visit.
"""
from __future__ import annotations

import gc
import importlib
import threading
from typing import NamedTuple

import streamlit as st

from ..i18n import t


class PageSpec(NamedTuple):
    slug: str           # the URL path, and the name other pages link with
    module: str         # flashviz.ui.<module>, which has render()
    title_key: str      # i18n key of the title in the navigation and on links
    icon: str
    scale: str = "row"  # which shared configuration it speaks about: the small example or a realistic size (state)


PAGES = (                                   # the course's order; the first is the default page, served at /
    PageSpec("stepper", "stepper", "common.nav_stepper", ":material/view_week:"),
    PageSpec("blocks", "blocks", "common.nav_blocks", ":material/grid_view:", "kernel"),
    PageSpec("speed", "speed", "common.nav_speed", ":material/speed:", "kernel"),
    PageSpec("backward", "backward", "backward.nav", ":material/undo:", "kernel"),
    PageSpec("decoding", "decoding", "decoding.nav", ":material/call_split:"),
    PageSpec("variants", "variants", "variants.nav", ":material/tune:"),
    PageSpec("ring", "ring", "ring.nav", ":material/cycle:"),
    PageSpec("hardware", "hardware", "common.nav_hardware", ":material/memory:", "kernel"),
    PageSpec("inside", "inside", "inside.nav", ":material/timeline:"),
    PageSpec("exercises", "exercises", "common.nav_exercises", ":material/edit_note:"),
    PageSpec("quiz", "quiz", "common.nav_quiz", ":material/quiz:"),
)
LESSON_ORDER_WHY = """
1 stepper: the one new idea (online softmax) on one row, small enough to follow by hand.
2 blocks: the same recurrence over the whole N x N grid, and what it saves in HBM traffic.
3 speed: whether the saving shows on a GPU: measured time and memory against naive attention.
4 backward: training needs the backward pass; recomputation is the second half of the trick.
5-7 decoding, variants, ring: the same recurrence applied to inference, masks, and many GPUs.
8 hardware: why bytes mattered (memory hierarchy, roofline) and, with measured bytes, why FA2 then sits under the
  compute roof: it needs the speeds and traffic of pages 2-3 to read, and it leads into
9 inside: what the kernel does about that remaining gap (exp on the SFU, overlap, warp specialisation).
10 exercises, 11 quiz: practice, then a check, once every lesson has been seen.
"""
BY_SLUG = {p.slug: p for p in PAGES}
DEFAULT = PAGES[0].slug
NOT_FOUND = "not-found"                     # the module flashviz.ui.not_found, for an address that names no page


def title(slug: str, lang: str) -> str:
    return t(BY_SLUG[slug].title_key, lang)


_SETTLED: set[str] = set()
_SETTLE_LOCK = threading.Lock()


def settle(module: str) -> bool:
    """Once per process and page module, after its first import: move the objects it brought (its functions,
    the libraries it imports, Plotly's validators) out of the garbage collector's reach, as app.py does at start
    for torch, triton and plotly. Streamlit runs a full gc.collect() after every script run (runner.postScriptGC),
    which walks every tracked object: ~25,000 once every page has been visited, ~5 ms added to every rerun of
    every session. Collected first, so only what is alive is frozen. True if it ran now."""
    with _SETTLE_LOCK:
        if module in _SETTLED:
            return False
        _SETTLED.add(module)
        gc.collect()
        gc.freeze()
        return True


def runner(module: str):
    """What st.Page runs for the page module flashviz.ui.<module>: its render(), imported on first visit."""
    def run() -> None:
        name = f"flashviz.ui.{module}"
        mod = importlib.import_module(name)
        settle(name)
        mod.render()
    run.__name__ = module
    return run


def scale(url_path: str | None) -> str:
    """The configuration scale of the page at `url_path` ("" is the default page; unknown: the row scale)."""
    spec = BY_SLUG.get(url_path or DEFAULT)
    return spec.scale if spec else "row"


def page(slug: str, lang: str) -> st.Page:
    """The st.Page of `slug` (KeyError if there is none). Built per run, never shared between sessions:
    st.navigation marks the page it runs. The default page's own url_path is "home" (it is served at "/"), so
    that its slug is free for the alias that serves it at "/stepper" too."""
    spec = BY_SLUG[slug]
    default = slug == DEFAULT
    return st.Page(runner(spec.module), title=title(slug, lang), icon=spec.icon,
                   url_path="home" if default else slug, default=default)


def link(slug: str, lang: str, *, label: str | None = None, icon: str | None = ":material/arrow_forward:") -> None:
    """st.page_link to the page `slug`, labelled with its title unless `label` is given."""
    st.page_link(page(slug, lang), label=label or title(slug, lang), icon=icon)


def switch(at, slug: str):
    """Point a streamlit.testing AppTest at page `slug` for its next run (the page tests, ui/rerun_bench).
    AppTest.switch_page finds file-based pages only; Streamlit addresses a callable page by the hash of its
    url_path (st.Page._script_hash), which is what a browser's page request carries too."""
    from streamlit.util import calc_hash
    at._page_hash = calc_hash("home" if slug == DEFAULT else BY_SLUG[slug].slug)
    return at
