"""One palette for every chart and page: the Okabe-Ito colour-blind-safe colours, then the neutrals and text shades
the charts draw with. A colour in a chart or a page is a name from here, never a literal."""

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
BROWN = "#8C564B"       # an eighth series after SEQUENCE's colours where orange and grey already mean something

# text: ORANGE and GREEN are too light to read as text on white (contrast 2.3:1 and 3.4:1); these are ~6.9:1
ORANGE_TEXT = "#7A5200"
GREEN_TEXT = "#00684C"
INK = "#222222"         # chart text, dark marker outlines
CELL_TEXT = "#111111"   # numbers written on light cells
MUTED_TEXT = "#555555"  # a mark that names what a shaded region is
PAGE_TEXT = "#1F2328"   # body text of an exported offline HTML page

# neutrals
WHITE = "#FFFFFF"       # empty: skipped or masked cells
OUTLINE = "#444444"     # outlines of markers and cells
STRONG_OUTLINE = "#333333"
REFERENCE = "#888888"   # a theory or reference curve beside measured ones
AXIS = "#999999"        # axis lines and ticks
ZERO_LINE = "#CCCCCC"
RULE = "#DDDDDD"        # thin separators inside a grid
GAP = "#E3E3E3"         # plot background that shows as the gaps between cells
GRID = "#E6E6E6"        # grid lines
SHADE = "#EEEEEE"       # a shaded region, a masked table cell
HEAT_LOW = "#F4F4F4"    # the low end of a heat map
VEIL = "rgba(255,255,255,0.85)"   # a legend's background over the plot
