"""Reading a validated benchmark dataset (flashviz/bench/dataset.py loads and checks it): its distinct
configurations, the recorded configuration nearest a requested one and that configuration's cells, flat rows for
charts and tables, the provenance fields in display order and a one-line label for a picker. Plain Python on the
dict the loader returns: no torch, no streamlit; flashviz.bench.dataset re-exports every name here.
"""
from __future__ import annotations

import math

from .spec import CONFIG_KEYS, config_key


def configs(dataset: dict) -> list[dict]:
    """Distinct recorded configurations, in recorded order."""
    seen = {}
    for c in dataset["cells"]:
        seen.setdefault(config_key(c), {k: c[k] for k in CONFIG_KEYS})
    return list(seen.values())


DTYPE_ALIASES = {"fp16": "float16", "half": "float16", "bf16": "bfloat16", "fp32": "float32", "float": "float32",
                 "fp64": "float64", "double": "float64"}


def _log2_gap(a, b) -> float:
    return abs(math.log2(a) - math.log2(b))


def nearest_config(dataset: dict, *, n, d, causal, dtype, batch=1, heads=1, mode="fwd", impl=None) -> dict | None:
    """The recorded configuration closest to the given one (optionally among those with `impl` measured ok).

    Distance: |log2 N gap| + |log2 d gap| + 2 if causal differs + 1 if dtype differs + 0.25 |log2 B*H gap|;
    only the same mode counts. Ties go to the larger N, then to the order recorded. dtype: torch names
    ("float16"); "fp16", "bf16", "fp32" and torch.dtype objects are accepted too.
    """
    dtype = str(dtype).removeprefix("torch.")
    dtype = DTYPE_ALIASES.get(dtype, dtype)
    best, best_key = None, None
    for cfg in configs(dataset):
        if cfg["mode"] != mode:
            continue
        if impl is not None and not any(c["impl"] == impl and c["status"] == "ok" and config_key(c) == config_key(cfg)
                                        for c in dataset["cells"]):
            continue
        dist = (_log2_gap(cfg["n"], n) + _log2_gap(cfg["d"], d) + 2.0 * (cfg["causal"] != bool(causal))
                + 1.0 * (cfg["dtype"] != dtype) + 0.25 * _log2_gap(cfg["batch"] * cfg["heads"], batch * heads))
        key = (round(dist, 9), -cfg["n"])
        if best_key is None or key < best_key:
            best, best_key = cfg, key
    return best


def cells_for(dataset: dict, config: dict) -> list[dict]:
    """Every recorded cell (one per impl) of one configuration."""
    key = config_key(config)
    return [c for c in dataset["cells"] if config_key(c) == key]


def nearest_cell(dataset: dict, impl: str, **config) -> dict | None:
    """impl's cell at the recorded configuration nearest `config` (see nearest_config), or None."""
    cfg = nearest_config(dataset, **config)
    return next((c for c in cells_for(dataset, cfg) if c["impl"] == impl), None) if cfg else None


def tidy_rows(dataset: dict, *, status=None, impls=None, mode=None) -> list[dict]:
    """One flat dict per cell, plus peak_extra_mib, ideal_mib and a config label, for charts and tables."""
    rows = []
    for c in dataset["cells"]:
        if (status and c["status"] != status) or (impls and c["impl"] not in impls) or (mode and c["mode"] != mode):
            continue
        r = dict(c)
        r["peak_extra_mib"] = None if c.get("peak_extra_bytes") is None else c["peak_extra_bytes"] / 2**20
        r["ideal_mib"] = c["ideal_bytes"] / 2**20
        r["label"] = (f"N={c['n']} d={c['d']} {'causal' if c['causal'] else 'full'} {c['dtype']} "
                      f"B={c['batch']} H={c['heads']} {c['mode']}")
        rows.append(r)
    return rows


def provenance_fields(dataset: dict) -> list[dict]:
    """[{key, label, value}] in display order; `key` is stable for translation, values are strings."""
    p, s = dataset["provenance"], dataset["sweep"]
    gpu = p["device_name"]
    if p.get("sm_count"):
        gpu += f" ({p['sm_count']} SMs"
        gpu += f", {p['total_memory_bytes'] / 2**30:.0f} GiB)" if p.get("total_memory_bytes") else ")"
    commit = str(p["git_commit"]) + (" (uncommitted changes)" if p.get("git_dirty") else "")
    timer = p["timer"] + (f"; warm-up {s.get('warmup_ms'):g} ms, rep {s.get('rep_ms'):g} ms"
                          if s.get("warmup_ms") is not None and s.get("rep_ms") is not None else "")
    if (s.get("rounds") or 1) > 1:
        timer += f"; impls interleaved in {s['rounds']} rounds, each a full rep budget"
    items = [("device", "GPU" if p["device"] == "cuda" else "Device", gpu),
             ("driver", "Driver", p.get("driver_version")), ("cuda", "CUDA", p.get("cuda_version")),
             ("torch", "torch", p["torch"]), ("triton", "triton", p.get("triton")),
             ("numpy", "numpy", p.get("numpy")), ("python", "Python", p["python"]),
             ("platform", "Platform", p["platform"]), ("date", "Date (UTC)", p["created_utc"]),
             ("commit", "Commit", commit), ("command", "Command", p["command"]), ("timer", "Timer", timer)]
    if dataset.get("complete") is False:
        items.append(("incomplete", "Incomplete", dataset.get("stopped") or "the run was cut short"))
    return [dict(key=k, label=lbl, value="unknown" if v is None else str(v)) for k, lbl, v in items]


def dataset_label(dataset: dict) -> str:
    """Short one-line name for a picker: device, date, number of cells."""
    p = dataset["provenance"]
    return f"{p['device_name']} · {p['created_utc'][:10]} · {len(dataset['cells'])} cells"
