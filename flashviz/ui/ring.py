"""Page "Ring attention": one sequence over W GPUs, K/V blocks passed around a ring, partial results merged.

Thin: this page's controls (W, layout, causal, chunk length, tracked row; timeline N and overlap; recorded pass
and mask) go to the numpy simulation flashviz.engine.ring (cached), whose results go to charts/ring.py. The page opens on
the ring and the score matrix at one step with one computed sentence; the tracked rows, the causal balance, the
cost model and the recording (flashviz/ui/ring_recorded.py) are behind expanders named for their reader. The
shared sidebar gives d, dtype and seed of the simulated Q, K, V. Strings: flashviz/i18n/ring.py.
Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from flashviz.engine import ring as engine
from flashviz.bench import list_datasets, load_dataset, nearest_cell
from flashviz.bench.recording import complete_first
from flashviz.bench.ring_dataset import list_ring_datasets, load_ring_dataset
from flashviz.charts import ring as charts
from flashviz.charts.common import fmt_num
from flashviz.infra.errors import DatasetError, check_int
from flashviz.i18n import t
from flashviz.engine.online_softmax import make_qkv
from flashviz.ui import ring_recorded, state, steps
from flashviz.infra.cache import fingerprint
from flashviz.ui.common import chart, committed_recordings, config_ok, shared_figure, shown_errors
from flashviz.ui.config import round_to_dtype

NS = "ring"
FIELDS = ("d", "dtype", "seed")
DEFAULTS = dict(world=4, layout="zigzag", causal=True, chunk=4, row=0, tl_n=131072, overlap=True, mode="fwd",
                mcausal=True, dataset=None)
MAX_CHUNK = 16
OPEN_HEIGHT = 400                    # px of the two opening charts: the step's picture above the fold at 1000 px
TL_NS = (32768, 65536, 131072, 262144, 524288)
TL_SHAPE = dict(batch=1, heads=32, d=128, dtype="float16")          # the recording's target configuration
ELEM = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


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


def ring_step(sim: engine.RingSim, name: str, lang: str, step: int, sim_key: tuple | None = None) -> None:
    """The opening picture at one step (the ring and the score matrix), and the tracked rows behind an expander.
    `sim_key`: the arguments of cached_sim that made `sim` (its figures are then built once per process)."""
    busy = int((sim.work[step] > 0).sum())
    st.markdown(t("ring.step_text", lang, s=step + 1, s0=step, w=sim.world, busy=busy, idle=sim.world - busy))
    key = (sim_key or fingerprint(sim), step, lang)

    def fig(what: str, build):
        return shared_figure(f"ring.{what}", key, build)

    a, b = st.columns([5, 6])
    with a:
        chart(fig("ring", lambda: charts.ring_figure(sim, step, lang, height=OPEN_HEIGHT)), "ring",
              f"{name}_step{step + 1}", key=f"{NS}.ring_chart")
    with b:
        chart(fig("matrix", lambda: charts.matrix_figure(sim, step, lang, height=OPEN_HEIGHT, legend_right=True)),
              "ring_matrix", f"{name}_step{step + 1}", key=f"{NS}.matrix")
    with st.expander(t("ring.row_header", lang)):
        a, b = st.columns([3, 2])
        with a:
            chart(fig("state", lambda: charts.state_figure(sim, step, lang)), "ring_state", f"{name}_step{step + 1}",
                  key=f"{NS}.state")
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
    c = st.columns([2, 2, 1.3, 1, 2], vertical_alignment="bottom")       # "Causal" and its help whole at 1280 px
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
    sim_key = (world, layout, causal, chunk, int(_val("row")), cfg.d, cfg.dtype, cfg.seed)
    sim = cached_sim(*sim_key)
    name = f"W{world}_{layout}{'_causal' if causal else ''}_N{sim.n}_row{sim.row}"
    steps.stepped(f"{NS}.steps", world, lang, lambda step: ring_step(sim, name, lang, step, sim_key=sim_key))
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
    fig = shared_figure("ring.work", (w, n, lang), lambda: charts.work_figure(wc, wz, lang))
    chart(fig, "ring_work", f"W{w}_N{n}", key=f"{NS}.work")


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
    fig = shared_figure("ring.timeline", (fingerprint(tl), lang, title),
                        lambda: charts.timeline_figure(tl, lang, title=title))
    chart(fig, "ring_timeline", f"W{sim.world}_{sim.layout}_N{n}", key=f"{NS}.timeline",
          meta=dict(cost_model=model.source, shape=shape, n=n))
    values = dict(compute=f"{model.flops_per_s / 1e12:,.0f}", link=f"{model.link_bytes_per_s / 1e9:,.0f}",
                  hbm=f"{model.hbm_bytes_per_s / 1e12:.1f}")
    for key in ("compute", "link", "hbm"):
        src = model.source[key]
        st.caption(t(f"ring.src_{key}_{src['kind']}", lang, v=values[key], **{k: v for k, v in src.items()
                                                                             if k != "kind"}))


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
        ring_recorded.recorded_section(datasets, lang)
