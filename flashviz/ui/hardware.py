"""Page "Hardware: why bytes matter": the roofline of attention on a real GPU, with the recorded speeds placed at the
bytes Nsight Compute measured; the memory hierarchy, why naive attention is memory-bound and the measured bytes
against the SRAM-only model behind expanders (ui/hardware_more.py).

Thin: the kernel-scale shared configuration (N, d, Br, Bc, causal, dtype; ui/state.py) and this page's GPU
(hardware.gpu, H200 by default: the recordings' GPU) go to flashviz.engine.roofline / flashviz.engine.hardware; recordings come
from flashviz.bench (timings: assets/benchmarks, bytes: assets/hbm); the figure from charts/roofline.py.
"""
from __future__ import annotations

import streamlit as st

from flashviz.charts import roofline as charts
from flashviz.engine.hardware import HARDWARE, gpu
from flashviz.i18n import t
from flashviz.engine.roofline import measured_bytes_points, model_points, roofline_verdict
from flashviz.engine.tiling import TilingConfig, make_config
from flashviz.ui import hardware_more as more
from flashviz.ui import pages, state
from flashviz.infra.cache import fingerprint
from flashviz.ui.common import chart, config_ok, shared_figure, shown_errors
from flashviz.ui.config import DTYPE_SHORT, Config

NS = "hardware"
FIELDS = ("n", "d", "block_m", "block_n", "causal", "dtype")
DEFAULT_GPU = "H200"                       # the GPU every recording was made on
ELEM = {"float16": 2, "bfloat16": 2, "float32": 4}
BATCH, HEADS = 4, 32                       # the recorded sweeps' B and H: the launch the byte and time totals count


def tiling(cfg: Config) -> TilingConfig:
    cfg.check()
    return make_config(cfg.n, cfg.d, br=min(cfg.block_m, cfg.n), bc=min(cfg.block_n, cfg.n),
                       elem_bytes=ELEM[cfg.dtype], causal=cfg.causal, batch=BATCH, heads=HEADS)


def measured(name: str, tcfg: TilingConfig) -> tuple[list[dict], dict | None, dict | None]:
    """(points, timing dataset, hbm dataset): the recorded speeds at measured bytes for this N, d, causal, from the
    newest complete timing dataset recorded on this GPU that has them, with the newest Nsight recording."""
    hbm = more.hbm_recordings()
    if not hbm or name.lower() not in hbm[0]["provenance"]["device_name"].lower():
        return [], None, hbm[0] if hbm else None
    for ds in more.timing_datasets():
        if name.lower() not in ds["provenance"]["device_name"].lower():
            continue
        pts = measured_bytes_points(ds, hbm[0], tcfg.n, tcfg.d, tcfg.causal)
        if pts:
            return pts, ds, hbm[0]
    return [], None, hbm[0]


def gpu_picker(lang: str) -> str:
    st.segmented_control(t("hardware.pick_gpu", lang), tuple(HARDWARE), required=True,
                         **state.kept(f"{NS}.gpu", DEFAULT_GPU))
    return st.session_state[f"{NS}.gpu"]


def _use_recorded() -> None:
    state.set_values(n=4096, d=128, dtype="float16", causal=False)


def roofline(name: str, cfg: Config, tcfg: TilingConfig, slug: str, lang: str) -> None:
    """The one picture and its takeaway, computed."""
    g = gpu(name)
    pts = model_points(tcfg)
    meas, ds, hbm = measured(name, tcfg)
    meta = {"gpu": g["name"], "sources": list(g["sources"]),
            "model_bytes_per_head": {a: p.bytes for a, p in pts.items()},
            "measured": [{k: m[k] for k in ("impl", "intensity", "achieved", "bytes_per_head")} for m in meas]}
    if ds:
        meta["timing_dataset"] = {k: ds["provenance"][k] for k in ("device_name", "created_utc", "git_commit")}
    fig = shared_figure("hardware.roofline", (name, tcfg, fingerprint(meas), lang),
                        lambda: charts.roofline_figure(name, pts, meas, lang))
    chart(fig, "roofline", f"{slug}_{name}", key=f"{NS}.roofline", meta=meta)
    verdict = roofline_verdict(name, tcfg, meas)
    ridge = g["peak_fp16"] / g["hbm_bw"]
    naive = next((m for m in meas if m["impl"] == "naive"), None)
    if verdict:
        st.markdown(t("hardware.takeaway", lang, i=f"{verdict['intensity']:,.0f}", ne=f"{verdict['n_over_e']:,.0f}",
                      ridge=f"{ridge:,.0f}", gpu=g["name"], tf=f"{verdict['achieved'] / 1e12:,.0f}",
                      pct=f"{100 * verdict['share_of_peak']:.0f}", peak=f"{verdict['peak'] / 1e12:,.0f}",
                      i0=f"{naive['intensity']:,.0f}" if naive else f"{pts['standard'].intensity:,.0f}"))
        st.caption(t("hardware.takeaway_source", lang, date=ds["provenance"]["created_utc"][:10],
                     hdate=hbm["provenance"]["created_utc"][:10], b=meas[0]["batch"], h=meas[0]["heads"]))
    else:
        st.markdown(t("hardware.takeaway_model", lang, i0=f"{pts['standard'].intensity:,.1f}", ridge=f"{ridge:,.0f}",
                      gpu=g["name"]))
        have = ""
        if hbm:
            from flashviz.bench import hbm_dataset
            have = ", ".join(f"N={n} d={d}{' causal' if c else ''}" for n, d, c in hbm_dataset.recorded_configs(hbm))
        st.info(t("hardware.no_measured", lang, gpu=g["name"], have=have or "—",
                  where=hbm["provenance"]["device_name"] if hbm else "—"), icon=":material/info:")
        st.button(t("hardware.use_recorded", lang), key=f"{NS}.use_recorded", on_click=_use_recorded,
                  icon=":material/sync_alt:")
    st.session_state[f"{NS}.roof_view"] = dict(gpu=name, model={a: p.intensity for a, p in pts.items()},
                                               measured=meas, verdict=verdict)


def render() -> None:
    lang, cfg = state.page_start(NS, fields=FIELDS)
    if not config_ok(cfg, NS, lang):
        return
    state.shows_caption(cfg, lang)
    tcfg = None
    with shown_errors(lang, where="configuration"):
        tcfg = tiling(cfg)
    if tcfg is None:
        return
    name = gpu_picker(lang)
    slug = f"N{tcfg.n}_d{tcfg.d}_Br{tcfg.br}_Bc{tcfg.bc}_{DTYPE_SHORT[cfg.dtype]}" + "_causal" * tcfg.causal
    with shown_errors(lang, where="roofline"):
        roofline(name, cfg, tcfg, slug, lang)
    with st.expander(t("hardware.x_hierarchy", lang, gpu=gpu(name)["name"])), shown_errors(lang, where="hierarchy"):
        more.hierarchy(name, lang)
    with st.expander(t("hardware.x_memory_bound", lang)), shown_errors(lang, where="memory-bound"):
        more.memory_bound(name, tcfg, DTYPE_SHORT[cfg.dtype], lang)
    with st.expander(t("hardware.x_bytes", lang)), shown_errors(lang, where="measured HBM bytes"):
        st.markdown(t("hardware.model_note", lang, **_model_numbers(name, tcfg)))
        more.measured_bytes(tcfg, slug, lang)
    with st.expander(t("hardware.x_gap", lang)):
        st.markdown(t("hardware.gap", lang))
        pages.link("inside", lang)
    pages.link("inside", lang, label=t("hardware.next", lang, page=pages.title("inside", lang)))


def _model_numbers(name: str, tcfg: TilingConfig) -> dict:
    """The SRAM-only model's FA2 point for the note in the bytes expander (computed)."""
    g = gpu(name)
    fa2 = model_points(tcfg)["fa2"]
    ceiling = min(g["peak_fp16"], g["hbm_bw"] * fa2.intensity)
    return dict(i2=f"{fa2.intensity:,.0f}", br=tcfg.br, tr=tcfg.tr, ceiling=f"{ceiling / 1e12:,.0f}",
                ridge=f"{g['peak_fp16'] / g['hbm_bw']:,.0f}")
