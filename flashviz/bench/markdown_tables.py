"""Markdown tables of a recorded speed dataset: TFLOP/s per impl and fast's ratios per (N, d, causal) of one mode
and dtype (`python -m flashviz.bench.report FILE --markdown`; docs/BENCHMARKS.md prints them from the newest
recordings). A leaf of the measurement room: report.py and benchmarks_doc.py both import it."""
from __future__ import annotations

from .spec import SPREAD_NOISY

MIB = 1024 ** 2
NOISY_MARK = "†"
NOISY_NOTE = (f"{NOISY_MARK} per-call times of fast or of the peer spread more than {SPREAD_NOISY:.0%} of their "
              "median between runs (p20–p80): the ratio is no steadier than that; compare the CUDA-graph column.")


MD_BASE = ("naive", "sdpa-flash", "sdpa-cudnn", "fa4", "teaching", "fast", "ws")
MD_NAMES = {"naive": "naive", "sdpa-flash": "SDPA flash", "sdpa-cudnn": "SDPA cuDNN", "fa4": "FA4",
            "teaching": "teaching", "fast": "fast", "ws": "ws"}


def _gib(b) -> str:
    return "—" if b is None else (f"{b / MIB / 1024:.1f} GiB" if b >= 1024 * MIB else f"{b / MIB:.0f} MiB")


def spread(c: dict | None) -> float | None:
    """A cell's per-call p20-p80 spread as a share of its median time (None where it has none)."""
    if not c or c.get("status") != "ok" or not c.get("ms") or c.get("ms_p20") is None or c.get("ms_p80") is None:
        return None
    return (c["ms_p80"] - c["ms_p20"]) / c["ms"]


def noisy(c: dict | None) -> bool:
    s = spread(c)
    return s is not None and s > SPREAD_NOISY


def markdown(dataset: dict, mode: str = "fwd", dtype: str = "float16", ns=None) -> str:
    """TFLOP/s per impl and fast's ratios, one row per (N, d, causal) of `mode` and `dtype`, as Markdown: the tables
    of docs/BENCHMARKS.md are printed from the recorded file (`python -m flashviz.bench.report FILE --markdown`).
    Ratios from CUDA-graph replays (launch cost removed) are added where the file has them; forward tables add
    peak memory. A per-call ratio either of whose cells spread more than SPREAD_NOISY is marked, with a note
    under the table."""
    rows: dict[tuple, dict] = {}
    for c in dataset["cells"]:
        if c["mode"] == mode and c["dtype"] == dtype and (ns is None or c["n"] in ns):
            rows.setdefault((c["n"], c["d"], c["causal"]), {})[c["impl"]] = c
    impls = [i for i in MD_BASE if any(i in by for by in rows.values())]
    graph = any(c.get("graph_ms") is not None for by in rows.values() for c in by.values())

    def tf(c):
        if c is None:
            return "—"
        return f"{c['tflops']:.0f}" if c["status"] == "ok" else {"oom": "OOM"}.get(c["status"], c["status"])

    marked = []

    def ratio(a, b, key="ms"):
        ok = a is not None and b is not None and a["status"] == b["status"] == "ok" and a.get(key) and b.get(key)
        mark = key == "ms" and ok and (noisy(a) or noisy(b))
        marked.append(mark)
        return f"{b[key] / a[key]:.2f}x" + NOISY_MARK * bool(mark) if ok else "—"
    peers = [("sdpa-cudnn", "cuDNN"), ("sdpa-flash", "flash")] + ([("fa4", "FA4")] if "fa4" in impls else [])
    head = [MD_NAMES[i] for i in impls] + [f"fast / {name}" for _, name in peers]
    graphed = [(i, name) for i, name in peers if i != "sdpa-flash"] if graph else []
    head += [f"fast / {name}, CUDA graph" for _, name in graphed]
    head += ["naive peak", "fast peak"] if mode == "fwd" else []
    lines = ["| N | d | causal | " + " | ".join(head) + " |", "|---|---|---|" + "---|" * len(head)]
    for (n, d, causal), by in sorted(rows.items()):
        f = by.get("fast")
        cols = [tf(by.get(i)) for i in impls] + [ratio(f, by.get(i)) for i, _ in peers]
        cols += [ratio(f, by.get(i), "graph_ms") for i, _ in graphed]
        if mode == "fwd":
            cols += [_gib((by.get(i) or {}).get("peak_extra_bytes")) for i in ("naive", "fast")]
        lines.append(f"| {n} | {d} | {'yes' if causal else 'no'} | " + " | ".join(cols) + " |")
    if any(marked):
        lines += ["", NOISY_NOTE]
    return "\n".join(lines)
