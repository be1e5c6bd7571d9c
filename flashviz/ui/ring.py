"""Page "Ring attention": one sequence over W GPUs, K/V blocks passed around a ring, partial results merged.

Thin: this page's controls (W, layout, causal, chunk length, tracked row; timeline N and overlap; recorded pass
and mask) go to the numpy simulation flashviz.ring (cached), whose results go to charts/ring.py. The page opens on
the ring and the score matrix at one step with one computed sentence; the tracked rows, the causal balance, the
cost model and the recording are behind expanders named for their reader. The recorded
two-GPU datasets (assets/benchmarks/ring/*.json, written by `torchrun ... -m flashviz.ring_bench`, validated by
flashviz.bench.ring_dataset, never executed) go to charts/ring_measured.py. The shared sidebar gives d, dtype
and seed of the simulated Q, K, V. Strings: flashviz/i18n/ring.py.
Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import streamlit as st

from flashviz import ring as engine
from flashviz.bench import list_datasets, load_dataset, nearest_cell
from flashviz.bench.recording import complete_first
from flashviz.bench.ring_dataset import list_ring_datasets, load_ring_dataset
from flashviz.charts import ring as charts
from flashviz.charts import ring_measured as mcharts
from flashviz.charts.common import fmt_num
from flashviz.errors import DatasetError, check_int
from flashviz.i18n import t
from flashviz.online_softmax import make_qkv
from flashviz.ui import state, steps
from flashviz.ui.common import chart, committed_recordings, config_ok, shown_errors
from flashviz.ui.config import round_to_dtype

NS = "ring"
FIELDS = ("d", "dtype", "seed")
DEFAULTS = dict(world=4, layout="zigzag", causal=True, chunk=4, row=0, tl_n=131072, overlap=True, mode="fwd",
                mcausal=True, dataset=None)
MAX_CHUNK = 16
RING_TIMER = "CUDA events per repetition, barrier before each, slowest rank"   # flashviz.ring_bench's timer
OPEN_HEIGHT = 400                    # px of the two opening charts: the step's picture above the fold at 1000 px
TL_NS = (32768, 65536, 131072, 262144, 524288)
TL_SHAPE = dict(batch=1, heads=32, d=128, dtype="float16")          # the recording's target configuration
ELEM = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}
COMMAND = "torchrun --nproc-per-node 2 -m flashviz.ring_bench --budget-s 400 --out assets/benchmarks/ring/ring.json"


def _kept(name: str) -> dict:
    return state.kept(f"{NS}.{name}", DEFAULTS[name])


def _val(name: str):
    return st.session_state.get(f"{NS}.{name}", DEFAULTS[name])


def _whole(name: str, label: str, lo: int, hi: int) -> int:
    return check_int(label, _val(name), lo, hi)


# ----------------------------------------------------------------------------- cached engine and data

@st.cache_resource(max_entries=32, show_spinner=False)
def cached_sim(world: int, layout: str, causal: bool, chunk: int, row: int, d: int, dtype: str,
               seed: int) -> engine.RingSim:
    """Read-only: the simulation of one configuration (never mutated by the page)."""
    n = chunk * world * (2 if layout == "zigzag" else 1)
    q, k, v = (round_to_dtype(a, dtype) for a in make_qkv(n, d, seed))
    return engine.simulate(q, k, v, world, layout, causal, row)


@st.cache_data(max_entries=2, show_spinner=False)
def speed_cell(paths: tuple[tuple[str, float], ...]) -> dict | None:
    """The fast kernel's recorded forward nearest the ring's per-block shape, from the speed datasets (complete
    recordings first, as the pages offer them)."""
    found = []
    for path, _ in paths:
        try:
            found.append(load_dataset(path))
        except DatasetError:
            continue
    for ds in complete_first(found):
        cell = nearest_cell(ds, "fast", n=16384, d=128, causal=False, dtype="float16", batch=4, heads=32,
                            mode="fwd")
        if cell and cell["status"] == "ok":
            return cell
    return None


def ring_datasets(lang: str) -> dict[str, dict]:
    return committed_recordings(list_ring_datasets(), load_ring_dataset, lang, "ring.bad_file")


# ----------------------------------------------------------------------------- section 1: the ring, step by step

def state_table(sim: engine.RingSim, step: int, lang: str) -> pd.DataFrame:
    return pd.DataFrame({
        t("ring.col_device", lang): [f"GPU {r}" for r in range(sim.world)],
        t("ring.col_row", lang): [int(i) for i in sim.tracked],
        t("ring.col_block", lang): [f"GPU {int(s)}" for s in sim.held[step]],
        t("ring.col_seen", lang): [int(x) for x in sim.seen[step]],
        "m": [fmt_num(float(x)) for x in sim.m[step]],
        "ℓ": [fmt_num(float(x)) for x in sim.l[step]],
    })


def ring_step(sim: engine.RingSim, name: str, lang: str, step: int) -> None:
    """The opening picture at one step (the ring and the score matrix), and the tracked rows behind an expander."""
    busy = int((sim.work[step] > 0).sum())
    st.markdown(t("ring.step_text", lang, s=step + 1, s0=step, w=sim.world, busy=busy, idle=sim.world - busy))
    a, b = st.columns([5, 6])
    with a:
        chart(charts.ring_figure(sim, step, lang, height=OPEN_HEIGHT), "ring", f"{name}_step{step + 1}",
              key=f"{NS}.ring_chart")
    with b:
        chart(charts.matrix_figure(sim, step, lang, height=OPEN_HEIGHT, legend_right=True), "ring_matrix",
              f"{name}_step{step + 1}", key=f"{NS}.matrix")
    with st.expander(t("ring.row_header", lang)):
        a, b = st.columns([3, 2])
        with a:
            chart(charts.state_figure(sim, step, lang), "ring_state", f"{name}_step{step + 1}", key=f"{NS}.state")
        with b:
            st.markdown(t("ring.state_explain", lang))
            st.dataframe(state_table(sim, step, lang), hide_index=True, key=f"{NS}.table")


def takeaway(sim: engine.RingSim, lang: str) -> None:
    """Under the picture: the merged rows equal one pass (the engine's float64 difference), and what the mask and
    layout do to the work (counted by the engine at this W and N)."""
    err = sim.max_error()
    single = float(np.max(np.abs(sim.outputs - np.stack([s.output for s in sim.single]))))
    diff = max(err, single)
    if not (err <= 1e-12 and single <= 1e-12):
        st.error(t("ring.differ", lang, diff=f"{diff:.1e}"), icon=":material/warning:")
        return
    w = sim.world
    n = 2 * w * max(1, sim.n // (2 * w))                # divisible by 2W: both layouts at the same N
    wc, wz = (engine.work_table(w, n, lay, True) for lay in engine.LAYOUTS)
    ic, iz = engine.imbalance(wc), engine.imbalance(wz)
    key = "ring.takeaway_full" if not sim.causal else f"ring.takeaway_{sim.layout}"
    st.markdown(t(key, lang, w=w, n=sim.n, diff=f"{diff:.0e}", slots=w * w, idle_c=ic["idle"], idle_z=iz["idle"],
                  crit_c=f"{ic['critical_over_ideal']:.2f}", crit_z=f"{iz['critical_over_ideal']:.2f}"))


def opening(cfg, lang: str) -> engine.RingSim:
    """The ring's controls (one row), the step controls, the picture, one computed sentence."""
    c = st.columns([2, 2, 1, 1, 2], vertical_alignment="bottom")
    c[0].slider(t("ring.world", lang), 1, 8, help=t("ring.world_help", lang), **_kept("world"))
    c[1].segmented_control(t("ring.layout", lang), engine.LAYOUTS, required=True, help=t("ring.layout_help", lang),
                           format_func=lambda x: t(f"ring.layout_{x}", lang), **_kept("layout"))
    c[2].toggle(t("ring.causal", lang), help=t("ring.causal_help", lang), **_kept("causal"))
    c[3].number_input(t("ring.chunk", lang), step=1, help=t("ring.chunk_help", lang), **_kept("chunk"))
    world, layout, causal = _whole("world", "W", 1, 8), _val("layout"), bool(_val("causal"))
    chunk = _whole("chunk", "chunk length", 1, MAX_CHUNK)
    n_local = chunk * (2 if layout == "zigzag" else 1)
    st.session_state[f"{NS}.row"] = min(max(int(_val("row") or 0), 0), n_local - 1)
    if n_local > 1:
        c[4].slider(t("ring.row", lang), 0, n_local - 1, help=t("ring.row_help", lang), **_kept("row"))
    else:
        c[4].caption(t("ring.row_single", lang))
    sim = cached_sim(world, layout, causal, chunk, int(_val("row")), cfg.d, cfg.dtype, cfg.seed)
    name = f"W{world}_{layout}{'_causal' if causal else ''}_N{sim.n}_row{sim.row}"
    steps.stepped(f"{NS}.steps", world, lang, functools.partial(ring_step, sim, name, lang))
    takeaway(sim, lang)
    st.caption(t("ring.describe", lang, n=sim.n, w=world, c=chunk, per=sim.n // world, d=cfg.d, dtype=cfg.dtype,
                 seed=cfg.seed))
    return sim


# ----------------------------------------------------------------------------- section 2: causal balance

def balance_section(sim: engine.RingSim, lang: str) -> None:
    w = sim.world
    n = 2 * w * max(1, sim.n // (2 * w))                # divisible by 2W: both layouts at the same N
    wc, wz = (engine.work_table(w, n, lay, True) for lay in engine.LAYOUTS)
    ic, iz = engine.imbalance(wc), engine.imbalance(wz)
    st.markdown(t("ring.balance_text", lang, w=w, n=n, idle=ic["idle"], slots=w * w,
                  busy=f"{ic['per_device'].max() / max(ic['per_device'].min(), 1):.1f}",
                  crit=f"{ic['critical_over_ideal']:.2f}", idle_z=iz["idle"], crit_z=f"{iz['critical_over_ideal']:.2f}"))
    chart(charts.work_figure(wc, wz, lang), "ring_work", f"W{w}_N{n}", key=f"{NS}.work")


# ----------------------------------------------------------------------------- section 3: cost-model timeline

def timeline_section(sim: engine.RingSim, ds: dict | None, lang: str) -> None:
    st.markdown(t("ring.tl_intro", lang))
    a, b = st.columns([3, 1], vertical_alignment="bottom")
    a.select_slider(t("ring.tl_n", lang), TL_NS, format_func=lambda n: f"{n // 1024}k", **_kept("tl_n"))
    b.toggle(t("ring.tl_overlap", lang), help=t("ring.tl_overlap_help", lang), **_kept("overlap"))
    shape = dict(TL_SHAPE) if ds is None else {k: ds["config"][k] for k in ("batch", "heads", "d", "dtype")}
    cell = speed_cell(tuple((str(p), p.stat().st_mtime) for p in list_datasets()))
    model = engine.model_from_recording(ds, cell)
    n = int(_val("tl_n")) // (2 * sim.world) * (2 * sim.world)        # equal chunks for W = 3, 5, 6, 7 too
    tl = engine.timeline(sim.world, n, sim.layout, sim.causal, batch=shape["batch"], heads=shape["heads"],
                         d=shape["d"], elem_bytes=ELEM[shape["dtype"]], model=model, overlap=bool(_val("overlap")))
    c = st.columns(4)
    c[0].metric(t("ring.tl_total", lang), f"{charts.human_ms(tl.total_s)} ms")
    c[1].metric(t("ring.tl_compute_only", lang), f"{charts.human_ms(tl.compute_only_s)} ms")
    c[2].metric(t("ring.tl_comm_only", lang), f"{charts.human_ms(tl.comm_only_s)} ms")
    c[3].metric(t("ring.tl_exposed", lang), f"{charts.human_ms(tl.total_s - tl.compute_only_s)} ms",
                help=t("ring.tl_exposed_help", lang))
    if tl.hidden is None:
        st.caption(t("ring.tl_shares_none", lang))
    else:
        st.caption(t("ring.tl_shares", lang, share=f"{100 * tl.comm_only_s / tl.compute_only_s:.1f}",
                     exposed=charts.human_ms(tl.total_s - tl.compute_only_s), hidden=f"{100 * tl.hidden:.0f}"))
    title = t("ring.tl_title_cfg", lang, w=sim.world, n=f"{n:,}", layout=t(f"ring.layout_{sim.layout}", lang),
              mask=t("ring.mask_causal" if sim.causal else "ring.mask_full", lang), **shape)
    chart(charts.timeline_figure(tl, lang, title=title), "ring_timeline", f"W{sim.world}_{sim.layout}_N{n}",
          key=f"{NS}.timeline", meta=dict(cost_model=model.source, shape=shape, n=n))
    values = dict(compute=f"{model.flops_per_s / 1e12:,.0f}", link=f"{model.link_bytes_per_s / 1e9:,.0f}",
                  hbm=f"{model.hbm_bytes_per_s / 1e12:.1f}")
    for key in ("compute", "link", "hbm"):
        src = model.source[key]
        st.caption(t(f"ring.src_{key}_{src['kind']}", lang, v=values[key], **{k: v for k, v in src.items()
                                                                             if k != "kind"}))


# ----------------------------------------------------------------------------- section 4: the recording

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
    (flashviz.ring.forward_memory) and one GPU's measured peak."""
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
    for row in (figs[:2], figs[2:]):
        cols = st.columns(2)
        for col, (what, fn) in zip(cols, row):
            with col, shown_errors(lang, where=f"recorded {what}"):
                chart(fn(cells, lang, mode=mode, causal=causal), f"ring_recorded_{what}", slug, key=f"{NS}.rec_{what}",
                      meta=meta)
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


# ----------------------------------------------------------------------------- the page

def render() -> None:
    lang, cfg = state.page_start(NS, fields=FIELDS)
    if not config_ok(cfg, NS, lang):
        return
    sim = None
    with shown_errors(lang, where="ring simulation"):
        sim = opening(cfg, lang)
    if sim is None:
        st.info(t("ring.fix_input", lang), icon=":material/edit:")
        return
    with st.expander(t("ring.balance_header", lang)), shown_errors(lang, where="causal balance"):
        balance_section(sim, lang)
    datasets = {}
    with shown_errors(lang, where="recorded datasets"):
        datasets = ring_datasets(lang)
    with st.expander(t("ring.tl_header", lang)), shown_errors(lang, where="timeline"):
        chosen = datasets.get(st.session_state.get(f"{NS}.dataset")) or next(iter(datasets.values()), None)
        timeline_section(sim, chosen, lang)
    with st.expander(t("ring.rec_header", lang)), shown_errors(lang, where="recorded measurement"):
        recorded_section(datasets, lang)
