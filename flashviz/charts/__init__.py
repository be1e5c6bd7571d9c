"""Pure chart builders: engine or bench data in, plotly Figure out; and the figure out as a file. No streamlit here.

common.py   shared layout, the modebar export config, non-finite value handling
export.py   a figure in, file bytes out (PNG / SVG / HTML / CSV / JSON / zip)
offline.py  the offline stepper: one self-contained HTML page, no server, no network
palette.py  Okabe-Ito colour-blind-safe colours with their meanings
stepper.py  the online-softmax stepper's charts (score strip, m/alpha/l, accumulator, error)
"""
