"""flashviz: an interactive visualizer that teaches FlashAttention, backed by real Triton kernels.

One room per folder. A room imports only rooms on lower lines, never one above and never in a circle:
    ui              thin Streamlit pages: navigation, session state, one module per lesson (app.py runs them)
    charts, bench   Plotly figures from data, and a figure as a file | measurement: run, record, validate, read
    engine          numpy / torch models of the algorithm, one idea a module; no UI, no files
    infra           typed errors, units, caches, the run queue, images, serving a class: the ground floor
    i18n, client    English / Chinese strings | the stepper's browser side (JavaScript)
flashviz_kernels (the folder kernels/) lies under them all and imports nothing of flashviz.
"""
__version__ = "0.1.0"
