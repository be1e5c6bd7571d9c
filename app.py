"""flashviz: the Streamlit entry point. Page config, language switch, navigation; the pages do the rest.

    streamlit run app.py
"""
import gc

import streamlit as st

from flashviz.i18n import t
from flashviz.ui import navigation, pages, present, state
from flashviz.ui.common import begin_run, export_sidebar



@st.cache_resource(show_spinner=False)
def _settle_heap() -> bool:
    """Once per server process: import the heavy long-lived modules every page ends up using and move their
    objects out of the garbage collector's reach (gc.freeze). Otherwise each full collection walks torch's,
    triton's and plotly's ~10^5 module objects and stalls a rerun by 100-200 ms every few clicks."""
    import pandas  # noqa: F401
    import plotly.graph_objects  # noqa: F401
    import torch  # noqa: F401

    import flashviz_kernels  # noqa: F401  (triton)
    from flashviz.ui import routes
    routes.install()                      # /blocks/extra: our "no such page" instead of a blank page
    gc.freeze()
    return True


_settle_heap()
state.init()
st.set_page_config(page_title="flashviz", page_icon=":material/bolt:", layout="wide",
                   initial_sidebar_state=state.sidebar_state())   # folded away in presenter mode
lang = state.language_switch()
present.setup(lang)                       # sidebar toggle; while presenting: larger text and a top bar

nav = st.navigation(navigation.all_pages(lang))
state.set_scale(pages.scale(nav.url_path))   # the small example or a realistic size: whose N, d, ... the page shows
begin_run(nav.title, nav.url_path or pages.DEFAULT)   # the charts this run draws go into the page's zip
nav.run()
export_sidebar(lang)                      # below the page's own sidebar controls: camera format, zip of the page
st.sidebar.caption(t("common.app_title", lang))
