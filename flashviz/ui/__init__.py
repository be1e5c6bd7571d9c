"""Thin Streamlit pages and their shared pieces.

config.py   pure: the frozen shared configuration, presets, the row problem it describes (no streamlit)
state.py    the configuration in st.session_state (survives page switches), sidebar widgets, presets
steps.py    reusable step controls (first/prev/next/last, scrub slider, autoplay via st.fragment)
common.py   language, chart rendering with export config, errors shown as st.error (never a traceback)
stepper.py  page "Online softmax, tile by tile"
rerun_bench.py  `python -m flashviz.ui.rerun_bench [--page blocks]`: server-side time of one rerun after a step change
"""
