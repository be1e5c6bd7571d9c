"""A recorded training dataset (`python -m flashviz.bench --preset h200-train`: modes "bwd" and "fwd+bwd") as the
backward page reads it. Plain Python on the dict flashviz.bench.dataset loads: no torch, no streamlit.

has_training(dataset)                       whether it holds training-step cells (mode fwd+bwd)
training_view(dataset, *, n, d, ...)        the recorded configuration nearest a requested one and its cells
times_rows(bwd, step, ref)                  per implementation: backward and step times, peak memory, speed-ups
speed_summary(dataset, ref, mode)           ref's recorded speed-up ranges per head dim
backward_kernel(provenance_text, d)         which backward kernel autograd ran at d ("ws", "fused", "reference")
same_backward_noise(bwd)                    run-to-run noise between two runs of one backward kernel
"""
from __future__ import annotations

import re

from ..infra.errors import InputError
from .dataset_query import cells_for, nearest_config


# ----------------------------------------------------------------------------- recorded training cells

def has_training(dataset: dict) -> bool:
    return any(c["mode"] == "fwd+bwd" for c in dataset["cells"])


def training_view(dataset: dict, *, n, d, causal, dtype, batch, heads) -> dict:
    """The recorded configuration nearest the given one (mode fwd+bwd) and what the page shows of it:
    config, same (bool), step / bwd cells there, curve = fwd+bwd cells of its (d, causal, dtype, B, H) over N."""
    if not has_training(dataset):
        raise InputError(key="errors.no_training")
    cfg = nearest_config(dataset, n=n, d=d, causal=causal, dtype=dtype, batch=batch, heads=heads, mode="fwd+bwd")
    same = (cfg["n"], cfg["d"], cfg["causal"], cfg["dtype"], cfg["batch"], cfg["heads"]) == (
        n, d, bool(causal), dtype, batch, heads)
    rest = ("d", "causal", "dtype", "batch", "heads")
    curve = [c for c in dataset["cells"] if c["mode"] == "fwd+bwd" and all(c[k] == cfg[k] for k in rest)]
    return dict(config=cfg, same=same, step=cells_for(dataset, cfg), bwd=cells_for(dataset, dict(cfg, mode="bwd")),
                curve=curve)


def times_rows(bwd: list[dict], step: list[dict], ref: str = "fast") -> list[dict]:
    """Per implementation: ms and TFLOP/s of the backward alone and of a training step, the step's peak extra
    memory, and how many times faster `ref` is (t_impl / t_ref; None where either did not run); bwd_graph_ms and
    ref_vs_bwd_graph: the same for the backward's CUDA-graph replays (GPU time alone) where recorded."""
    by_b, by_s = {c["impl"]: c for c in bwd}, {c["impl"]: c for c in step}
    ratio = lambda by, i, key="ms": (by[i][key] / by[ref][key]  # noqa: E731
                                     if i in by and ref in by and by[i].get(key) and by[ref].get(key) else None)
    rows = []
    for impl in dict.fromkeys([*by_s, *by_b]):
        b, s = by_b.get(impl, {}), by_s.get(impl, {})
        peak = s.get("peak_extra_bytes")
        rows.append(dict(impl=impl, status=s.get("status") or b.get("status"), bwd_ms=b.get("ms"),
                         bwd_tflops=b.get("tflops"), step_ms=s.get("ms"), step_tflops=s.get("tflops"),
                         peak_mib=None if peak is None else peak / 2 ** 20,
                         ref_vs_bwd=ratio(by_b, impl), ref_vs_step=ratio(by_s, impl),
                         bwd_graph_ms=b.get("graph_ms"), ref_vs_bwd_graph=ratio(by_b, impl, "graph_ms")))
    return rows


def speed_summary(dataset: dict, ref: str = "fast", mode: str = "bwd") -> dict:
    """{d: {"flash": (lo, hi), "cudnn": (lo, hi), "naive": (lo, hi)}}: ref's recorded speed-ups (t_base / t_ref)
    over every configuration of `mode`, per head dim; an empty range is left out."""
    out: dict = {}
    for c in dataset["cells"]:
        if c["impl"] != ref or c["mode"] != mode or c["status"] != "ok":
            continue
        for base in ("flash", "cudnn", "naive"):
            v = c.get(f"speedup_vs_{base}")
            if v is not None:
                lo, hi = out.setdefault(c["d"], {}).get(base, (v, v))
                out[c["d"]][base] = (min(lo, v), max(hi, v))
    return dict(sorted(out.items()))


# ----------------------------------------------------------------------------- which backward kernel a recording ran

_WS_RULE = re.compile(r"ws \([^)]*\) for plain/causal d in \(([\d,\s]+)\)")
_FUSED_RULE = re.compile(r"fused \([^)]*\) for d <= (\d+)")


def backward_kernel(provenance_text: str | None, d: int) -> str | None:
    """The backward kernel autograd ran at head dim d in a recorded training dataset, read from its provenance's
    `backward_kernel` rule: "ws", "fused" or "reference"; None when the file does not say (older recordings).
    impl="teaching" and impl="fast" differ only in their forward: both run this backward."""
    if not provenance_text:
        return None
    m = _WS_RULE.search(provenance_text)
    if m and d in {int(x) for x in m.group(1).replace(" ", "").split(",") if x}:
        return "ws"
    m = _FUSED_RULE.search(provenance_text)
    if m and d <= int(m.group(1)):
        return "fused"
    return "reference" if "reference" in provenance_text else None


def same_backward_noise(bwd: list[dict]) -> float | None:
    """|t_teaching - t_fast| / t_fast of the backward-alone cells: both ran the same backward kernel, so this is
    run-to-run noise, not a difference between kernels (None when either is missing)."""
    by = {c["impl"]: c for c in bwd if c.get("status") == "ok" and c.get("ms")}
    if "teaching" not in by or "fast" not in by:
        return None
    return abs(by["teaching"]["ms"] - by["fast"]["ms"]) / by["fast"]["ms"]
