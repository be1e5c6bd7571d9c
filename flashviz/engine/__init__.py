"""flashviz.engine: numpy / torch models of the algorithm, one idea a module (no UI, no measurement, no files).

online_softmax, softmax_loop (one query row, tile by tile), tiling, traffic (the 2-D schedule and its HBM bytes),
decoding (flash-decoding, paged attention), recompute (the backward's recomputation in numbers), ring, ring_memory
(ring attention simulated), variants (masks and which blocks they skip), hardware, roofline, lessons, and what the
exercises, the quiz and the kernel-timeline page compute from them (exercises, quiz_facts, kernel_timeline).
"""
