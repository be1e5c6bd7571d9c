"""The "Ring attention" page's recorded section: the committed two-GPU datasets (assets/benchmarks/ring/*.json,
written by `torchrun ... -m flashviz.bench.ring_bench`, validated by flashviz.bench.ring_dataset, never executed) as
speed-up, time, transfer and memory charts (charts/ring_measured.py), a table, the hidden share per layout (a wait
beyond the transfers is load imbalance or a neighbour's compute, never a negative share), what a ring GPU holds
(flashviz.engine.ring.forward_memory) and the provenance. Drawn inside the page's expander by flashviz/ui/ring.py.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from flashviz.engine import ring as engine
from flashviz.charts import ring_measured as mcharts
from flashviz.i18n import t
from flashviz.ui import state
from flashviz.infra.cache import fingerprint
from flashviz.ui.common import chart, shared_figure, shown_errors

NS = "ring"
RING_TIMER = "CUDA events per repetition, barrier before each, slowest rank"   # flashviz.bench.ring_bench's timer
COMMAND = "torchrun --nproc-per-node 2 -m flashviz.bench.ring_bench --budget-s 400 --out assets/benchmarks/ring/ring.json"
DEFAULTS = dict(mode="fwd", mcausal=True)


def _kept(name: str) -> dict:
    return state.kept(f"{NS}.{name}", DEFAULTS[name])


def _val(name: str):
    return st.session_state.get(f"{NS}.{name}", DEFAULTS[name])


def _timer(timer: str, lang: str) -> str | None:
    """The recording's timer in the page's language: its own words in English; in Chinese the benchmark's one
    method said in Chinese, or nothing when the file names another (its English stays off a Chinese page)."""
    if lang == "en":
        return timer
    return t("ring.prov_timer_events", lang) if timer.startswith(RING_TIMER) else None


def provenance(ds: dict, lang: str) -> None:
    p = ds["provenance"]
    items = [("ring.prov_gpus", p.get("gpu_names")), ("ring.prov_backend", p["backend"]),
             ("ring.prov_nccl", p.get("nccl_version")), ("ring.prov_world", p["world_size"]),
             ("ring.prov_driver", p.get("driver_version")), ("ring.prov_cuda", p.get("cuda_version")),
             ("ring.prov_torch", p["torch"]), ("ring.prov_triton", p.get("triton")),
             ("ring.prov_date", p["created_utc"]), ("ring.prov_commit", p["git_commit"]),
             ("ring.prov_timer", _timer(p["timer"], lang)),
             ("ring.prov_shape", "B={batch} H={heads} d={d} {dtype}, {impl}".format(**ds["config"]))]
    with st.container(border=True):
        st.markdown(t("ring.prov_header", lang))
        cols = st.columns(4)
        for i, (k, v) in enumerate((k, v) for k, v in items if v is not None or lang == "en"):
            cols[i % 4].caption(f"**{t(k, lang)}** · {'unknown' if v is None else v}")
        st.caption(t("ring.prov_command", lang))
        st.code(p["command"], language="bash", wrap_lines=True)
    if ds.get("checks"):
        st.dataframe(pd.DataFrame([{t("ring.chk_world", lang): c["world"], t("ring.layout", lang): c["layout"],
                                    t("ring.causal", lang): c["causal"], "N": c["n"],
                                    t("ring.chk_ring", lang): f"{c['err_ring']:.1e}",
                                    t("ring.chk_single", lang): f"{c['err_single']:.1e}",
                                    t("ring.chk_ok", lang): "✓" if c["ok"] else "✗"} for c in ds["checks"]]),
                     hide_index=True, key=f"{NS}.checks")


def _ms3(v: float) -> str:
    """A time in ms to three significant digits, without an exponent: 0.00582, 21.2, 2,287."""
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}" if abs(v) >= 1e-4 else f"{v:.1e}"


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f} %"


def recorded_table(cells: list[dict], mode: str, causal: bool, lang: str) -> pd.DataFrame:
    """One row per ring cell of the pass and mask: its speed-up and memory against one GPU, its times side by side."""
    groups = mcharts.series(cells, mode, causal)
    one = {c["n"]: c for c in groups.get((1, "single"), [])}
    over = {(r["n"], r["world"], r["layout"]): r for r in mcharts.overlap_rows(cells, mode, causal)}
    direct = any(r["direct"] for r in over.values())
    sfx = "_direct" if direct else ""
    rows = []
    for key, cs in groups.items():
        for c in cs if key[0] > 1 else ():
            r, o = over.get((c["n"], *key), {}), one.get(c["n"])
            row = {t("ring.col_n", lang): c["n"], t("ring.col_layout", lang): mcharts.label(key, lang),
                   t("ring.col_chunks", lang): c.get("chunks") or 1,
                   t("ring.col_ms1", lang): o and o["ms"], t("ring.col_ms", lang): c["ms"],
                   t("ring.col_speedup", lang): o["ms"] / c["ms"] if o else None,
                   t("ring.col_compute" + sfx, lang): r.get("ms_compute"), t("ring.col_comm", lang): r.get("ms_comm"),
                   t("ring.col_exposed" + sfx, lang): r.get("exposed"),
                   t("ring.col_comm_pct", lang): _pct(r.get("comm_pct")),
                   t("ring.col_exposed_pct", lang): _pct(r.get("exposed_pct"))}
            if direct:                                     # a wait beyond the transfers hides nothing: imbalance
                waited = r.get("exposed") is not None and r["exposed"] > r["ms_comm"]
                row[t("ring.col_hidden", lang)] = (t("ring.hidden_imbalance", lang) if waited else
                                                   _pct(None if r.get("hidden") is None else 100 * r["hidden"]))
            else:
                row[t("ring.col_spread", lang)] = _pct(r.get("spread_pct"))
            row[t("ring.col_peak", lang)] = None if not c.get("peak_bytes") else c["peak_bytes"] / mcharts.GIB
            row[t("ring.col_peak_ratio", lang)] = (c["peak_bytes"] / o["peak_bytes"] if c.get("peak_bytes") and o
                                                   and o.get("peak_bytes") else None)
            rows.append((c["n"], key, row))
    return pd.DataFrame([row for _, _, row in sorted(rows, key=lambda x: (x[0], x[1]))])


def overlap_note(cells: list[dict], mode: str, causal: bool, lang: str) -> None:
    """How much of the transfer the compute hid, when the recording timed the waits; otherwise the transfer's
    size next to the timing noise, and why no hidden share is shown."""
    rows = mcharts.overlap_rows(cells, mode, causal)
    words = dict(pass_=t(f"ring.pass_{mode}", lang), mask=t("ring.mask_causal" if causal else "ring.mask_full", lang))
    if rows and all(r["direct"] for r in rows):
        st.caption(t("ring.overlap_direct", lang, **words))
        for layout, g in mcharts.overlap_by_layout(rows).items():
            what = t(f"ring.layout_{layout}", lang)
            if hid := g["hidden"]:
                st.caption(t("ring.overlap_hidden", lang, layout=what,
                             c_lo=f"{min(r['comm_pct'] for r in hid):.1f}", c_hi=f"{max(r['comm_pct'] for r in hid):.1f}",
                             e_lo=_ms3(min(r["exposed"] for r in hid)), e_hi=_ms3(max(r["exposed"] for r in hid)),
                             h_lo=f"{100 * min(r['hidden'] for r in hid):.1f}",
                             h_hi=f"{100 * max(r['hidden'] for r in hid):.1f}"))
            if over := g["over"]:
                work = engine.imbalance(engine.work_table(over[-1]["world"], over[-1]["n"], layout, causal))
                busy = work["per_device"].max() / max(work["per_device"].min(), 1)
                key = "ring.overlap_imbalance" if busy > 1.05 else "ring.overlap_longer"
                st.caption(t(key, lang, layout=what,
                             ns=", ".join(f"{r['n'] // 1024}k" for r in over),
                             w_lo=_ms3(min(r["exposed"] for r in over)), w_hi=_ms3(max(r["exposed"] for r in over)),
                             t_lo=_ms3(min(r["ms_comm"] for r in over)), t_hi=_ms3(max(r["ms_comm"] for r in over)),
                             busy=f"{busy:.1f}"))
        if mode == "fwd+bwd":
            st.caption(t("ring.overlap_direct_bwd", lang))
        return
    spread = sorted(r["spread_pct"] for r in rows if r["spread_pct"] is not None)
    if not rows or not spread:
        st.caption(t("ring.overlap_none", lang))
        return
    hidden = [1 - r["exposed"] / r["ms_comm"] for r in rows if r["ms_comm"] > 0]
    st.caption(t("ring.overlap_note", lang, **words,
                 c_lo=f"{min(r['comm_pct'] for r in rows):.1f}", c_hi=f"{max(r['comm_pct'] for r in rows):.1f}",
                 n_lo=f"{spread[0]:.1f}", n_hi=f"{spread[-1]:.1f}", n_med=f"{float(np.median(spread)):.1f}",
                 h_lo=f"{min(hidden):.2f}" if hidden else "—", h_hi=f"{max(hidden):.2f}" if hidden else "—"))


def chunked_note(cells: list[dict], mode: str, causal: bool, lang: str) -> None:
    """Which N of this view ran the memory-bounded chunked forward (its S per cell), which the plain ring, the
    default, would run faster: the numbers are of the forward that ran, so say which."""
    runs = sorted({(c["n"], c["chunks"]) for c in cells if c["status"] == "ok" and c["mode"] == mode
                   and c["causal"] == causal and c["world"] > 1 and (c.get("chunks") or 1) > 1})
    if runs:
        st.caption(t("ring.chunked_cells", lang, cells=", ".join(f"N = {n // 1024}k: S = {s}" for n, s in runs)))


def memory_note(ds: dict, causal: bool, lang: str) -> None:
    """The forward's measured peak per GPU at the largest N recorded for two GPUs, next to what the ring holds
    (flashviz.engine.ring.forward_memory) and one GPU's measured peak."""
    cells = [c for c in ds["cells"] if c["mode"] == "fwd" and c["causal"] == causal and c["status"] == "ok"
             and c.get("peak_bytes")]
    one = {c["n"]: c for c in cells if c["world"] == 1}
    pairs = [c for c in cells if c["world"] == 2 and c["n"] in one]
    if not pairs:
        return
    n = max(c["n"] for c in pairs)
    c = min((c for c in pairs if c["n"] == n), key=lambda c: c["peak_bytes"])
    cfg = ds["config"]
    shape = dict(batch=cfg["batch"], heads=cfg["heads"], d=cfg["d"], elem_bytes=2 if cfg["dtype"] != "float32" else 4)
    chunks = c.get("chunks") or 1                                 # absent: recorded before the chunked forward
    parts = engine.forward_memory(2, n, c["layout"], causal, chunks=chunks, **shape)
    single = engine.forward_memory(1, n, "contiguous", causal, **shape)
    gib = lambda b: f"{b / mcharts.GIB:.2f}"                                  # noqa: E731
    model = sum(parts.values())
    key = "ring.memory_note" if chunks == 1 else "ring.memory_note_chunked"
    st.caption(t(key, lang, s=chunks, n=f"{n // 1024}k", layout=t(f"ring.layout_{c['layout']}", lang),
                 frac=f"{model / sum(single.values()):.2f}",
                 mask=t("ring.mask_causal" if causal else "ring.mask_full", lang), peak=gib(c["peak_bytes"]),
                 one=gib(one[n]["peak_bytes"]), ratio=f"{c['peak_bytes'] / one[n]['peak_bytes']:.2f}",
                 inputs=gib(parts["inputs"]), receive=gib(parts["receive"]), acc=gib(parts["accumulator"]),
                 blk=gib(parts["block_output"]),
                 slices=t("ring.memory_slices" if chunks == 1 else "ring.memory_slices_chunked", lang,
                          slices=gib(parts["slices"])) if parts["slices"] else "",
                 model=gib(model), gap=f"{(c['peak_bytes'] - model) / 2 ** 20:.0f}", one_model=gib(sum(single.values()))))


def recorded_section(datasets: dict[str, dict], lang: str) -> None:
    if not datasets:
        st.info(t("ring.no_recording", lang), icon=":material/folder_off:")
        st.code(COMMAND, language="bash", wrap_lines=True)
        return
    ss = st.session_state
    if ss.get(f"{NS}.dataset") not in datasets:
        ss[f"{NS}.dataset"] = next(iter(datasets))
    a, b, c = st.columns([3, 2, 1], vertical_alignment="bottom")
    a.selectbox(t("ring.dataset", lang), list(datasets), **state.kept(f"{NS}.dataset", next(iter(datasets))))
    b.segmented_control(t("ring.pass", lang), ("fwd", "fwd+bwd"), required=True,
                        format_func=lambda m: t(f"ring.pass_{m}", lang), **_kept("mode"))
    c.toggle(t("ring.causal", lang), **_kept("mcausal"))
    name = ss[f"{NS}.dataset"]
    ds, mode, causal = datasets[name], _val("mode"), bool(_val("mcausal"))
    cells = ds["cells"]
    slug = f"{name.removesuffix('.json')}_{mode}{'_causal' if causal else ''}"
    meta = dict(source="recorded dataset", dataset=name, provenance=ds["provenance"], config=ds["config"])
    sp = mcharts.speedups(cells, mode, causal)
    best = [(k, v[-1]) for k, v in sp.items() if v]
    for k, (n, s) in best:
        st.markdown(t("ring.rec_summary", lang, what=mcharts.label(k, lang), n=f"{n // 1024}k", s=f"{s:.2f}", w=k[0]))
    chunked_note(cells, mode, causal, lang)
    figs = [("time", mcharts.time_figure), ("speedup", mcharts.speedup_figure), ("overlap", mcharts.overlap_figure),
            ("memory", mcharts.memory_figure)]
    key = (fingerprint(cells), lang, mode, causal)                  # each figure built once per recording
    for row in (figs[:2], figs[2:]):
        cols = st.columns(2)
        for col, (what, fn) in zip(cols, row):
            with col, shown_errors(lang, where=f"recorded {what}"):
                fig = shared_figure(f"ring.recorded_{what}", key,
                                    lambda fn=fn: fn(cells, lang, mode=mode, causal=causal))
                chart(fig, f"ring_recorded_{what}", slug, key=f"{NS}.rec_{what}", meta=meta)
    with shown_errors(lang, where="recorded overlap"):
        overlap_note(cells, mode, causal, lang)
    with shown_errors(lang, where="recorded memory"):
        memory_note(ds, causal, lang)
    st.dataframe(recorded_table(cells, mode, causal, lang), hide_index=True, key=f"{NS}.rec_table")
    other = [c for c in cells if c["status"] != "ok" and c["mode"] == mode and c["causal"] == causal]
    if other:
        st.caption(t("ring.not_measured", lang, cells="; ".join(
            f"N={c['n']} W={c['world']} {c['layout']}: {c['status']}" for c in other)))
    provenance(ds, lang)


