"""Okabe-Ito colour-blind-safe palette, shared by every chart."""

BLACK = "#000000"
ORANGE = "#E69F00"      # the current tile (on-chip, in SRAM)
SKY_BLUE = "#56B4E9"
GREEN = "#009E73"       # the exact answer
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"  # rescale steps, NaN, OOM
PURPLE = "#CC79A7"
GREY = "#BBBBBB"        # not loaded yet
DARK_GREY = "#666666"   # processed and discarded

SEQUENCE = [BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY_BLUE, YELLOW, BLACK]
