"""Step 4 of flashviz.bench.measure: one impl's call captured in a CUDA graph and replayed, so a time holds no
host launch cost (measure._graph records it, or why not). No UI; CUDA only.

Forward and fwd+bwd calls go through triton.testing.do_bench_cudagraph. A "bwd" call (its forward run once and
kept in fn.saved, the backward timed alone) cannot: autograd runs each backward op on the stream its forward op
ran on, do_bench_cudagraph captures on a stream of its own, and so every such capture failed ("operation failed
due to a previous error during capture": each bwd cell of assets/benchmarks/nvidia-h200-train-2026-12-03.json).
backward_replays reruns the forward on the capture stream first, as torch.cuda.make_graphed_callables does.
"""
from __future__ import annotations

import math

import torch

GRAPH_MS = 2.0      # calls captured per graph: about this many ms of work per replay, so a replay's own launch
CALLS_MAX = 50      # (a few us) stays small beside it; at most CALLS_MAX calls (each call's outputs stay allocated)
MIN_REPLAYS = 5


def replay_times(fn, rep_ms: float) -> list[float]:
    """Per-call ms of fn's graph replays over about rep_ms (the caller takes the median)."""
    saved = getattr(fn, "saved", None)
    if saved is None:
        from triton.testing import do_bench_cudagraph
        return do_bench_cudagraph(fn, rep=rep_ms, return_mode="all")
    return backward_replays(fn, saved, rep_ms)


def backward_replays(fn, saved: dict, rep_ms: float) -> list[float]:
    """bwd mode: fn.saved emptied so fn's next call reruns its forward, here on a side stream that the capture
    then uses too; k backward calls per graph (GRAPH_MS), replayed until rep_ms, each timed by CUDA events and
    divided by k. fn.saved is emptied again after, so a later call reruns the forward on its own stream."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    graph = None
    try:
        with torch.cuda.stream(stream):
            saved.clear()
            fn()                                      # the forward on this stream (kept), and a backward
            start.record()
            fn()                                      # one backward alone: the estimate
            end.record()
            end.synchronize()
            est = max(start.elapsed_time(end), 1e-3)
            k = max(1, min(CALLS_MAX, round(GRAPH_MS / est)))
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                for _ in range(k):
                    fn()
            graph.replay()                            # a first replay, untimed
            times = []
            for _ in range(max(MIN_REPLAYS, math.ceil(rep_ms / (est * k)))):
                start.record()
                graph.replay()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / k)
        return times
    finally:
        torch.cuda.current_stream().wait_stream(stream)
        del graph
        saved.clear()
