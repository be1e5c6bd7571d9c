"""Pure chart builders: engine or bench data in, plotly Figure out. No streamlit here.

common.py   shared layout, the modebar export config, non-finite value handling
palette.py  Okabe-Ito colour-blind-safe colours with their meanings
stepper.py  the online-softmax stepper's charts (score strip, m/alpha/l, accumulator, error)
"""
