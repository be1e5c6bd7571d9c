"""flashviz: an interactive visualizer that teaches FlashAttention, backed by real Triton kernels.

Rooms: online_softmax / tiling / decoding (numpy engines), flashviz_kernels (torch + Triton, the
folder kernels/), bench (measurement), charts (Plotly builders), ui (thin Streamlit pages), i18n.
"""
__version__ = "0.1.0"
