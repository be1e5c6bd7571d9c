"""Page "Backward and recomputation": what the backward pass keeps (S, P vs O, LSE), the measured peak memory of a
training step, the extra FLOPs recomputing S costs and the time it still saves, what registers cost inside our
Hopper backward (a recorded tune file, bench/tune_record.py), and a small demo of our Triton backward
(ui/backward_demo.py).

Thin: the shared configuration (N, d, causal, dtype, seed; ui/state.py) and this page's own B, H and data source go
to flashviz.engine.recompute (closed forms), flashviz.bench.training (recorded-cell views) and flashviz.bench.live (a GPU,
when there is one); the results go
to charts/backward.py. Recorded numbers come from a dataset in assets/benchmarks/ with its provenance beside each chart.
Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from flashviz.bench import live, training
from flashviz.engine import recompute as rc
from flashviz.bench import dataset_label, list_datasets, load_dataset, provenance_fields, tune_record
from flashviz.infra.cache import fingerprint
from flashviz.charts import backward as charts
from flashviz.infra.errors import InputError
from flashviz.i18n import t
from flashviz.ui import backward_demo, state
from flashviz.ui.common import chart, committed_recordings, shared_figure, shown_errors
from flashviz.ui.config import DTYPE_SHORT, PRESETS, Config
from flashviz.infra.units import fmt_bytes

NS = "backward"
FIELDS = ("n", "d", "causal", "dtype", "seed")
DEFAULTS = dict(batch=4, heads=32, source=None)
LIVE = "live"                                   # the source "measure on this GPU"
LIVE_NS = (1024, 2048, 4096, 8192, 16384)
TRAINING_PRESET = "long"                        # the button's size: one the recorded training sweep ran
PROV_KEYS = ("device", "driver", "cuda", "torch", "triton", "date", "commit")


def _kept(name: str, default=None) -> dict:
    return state.kept(f"{NS}.{name}", DEFAULTS[name] if default is None else default)


def _ss(name: str):
    return st.session_state.get(f"{NS}.{name}", DEFAULTS.get(name))


def fmt(x, spec: str = ".2f") -> str:
    return "—" if x is None else format(x, spec)


def cfg_text(c: dict, lang: str) -> str:
    causal = t("backward.causal_yes" if c["causal"] else "backward.causal_no", lang)
    sep = "、" if lang == "zh" else ", "
    return sep.join((f"N = {c['n']}", f"d = {c['d']}", causal, DTYPE_SHORT.get(c["dtype"], c["dtype"]),
                     f"B = {c['batch']}", f"H = {c['heads']}"))


# ----------------------------------------------------------------------------- data sources

def datasets(lang: str) -> dict[str, dict]:
    """{file name: dataset}: the committed ones with training cells (ui.common.committed_recordings: cached per
    file version, a copy per session, complete recordings first, a broken file a warning); a recording of the
    forward and backward alone (an FA4 or per-version run) has nothing this page draws, so it is not offered."""
    out = committed_recordings(list_datasets(), load_dataset, lang, "speed.bad_committed", escape=True)
    return {k: v for k, v in out.items() if training.has_training(v)}


def source_picker(lang: str) -> dict | None:
    """This page's data source: a recorded dataset, or live runs on this GPU. Returns the dataset (or None)."""
    sets = datasets(lang)
    options = list(sets) + [LIVE] * live.gpu_available()
    if not options:
        raise InputError(key="errors.no_dataset")
    if _ss("source") not in options:
        st.session_state[f"{NS}.source"] = options[0]
    label = lambda k: t("backward.src_live", lang) if k == LIVE else f"{k} · {dataset_label(sets[k])}"  # noqa: E731
    st.selectbox(t("backward.src", lang), options, format_func=label, help=t("backward.src_help", lang),
                 **_kept("source", options[0]))
    if _ss("source") == LIVE:
        return live_source(lang)
    return sets[_ss("source")]


def live_source(lang: str) -> dict | None:
    """On a GPU: measure a training step over N (and the backward alone at this N) with flashviz.bench.live."""
    cfg, b, h = state.config(), _ss("batch"), _ss("heads")
    if st.button(t("backward.live_run", lang), key=f"{NS}.live_run", icon=":material/speed:"):
        from flashviz.bench import provenance as prov
        from flashviz.bench.measure import TIMER_CUDA
        bar = st.progress(0.0)
        tick = lambda i, n, _c: bar.progress(min(1.0, i / max(n, 1)))  # noqa: E731
        ns = sorted(set(LIVE_NS) | {cfg.n})
        cells = live.sweep_live(ns, cfg.d, cfg.causal, cfg.dtype, b, h, mode="fwd+bwd", progress=tick)
        cells += live.measure_live(cfg.n, cfg.d, cfg.causal, cfg.dtype, b, h, mode="bwd")
        p = prov.collect("cuda", "flashviz app, page 'Backward and recomputation': flashviz.bench.live.sweep_live("
                         f"{ns}, d={cfg.d}, causal={cfg.causal}, dtype={cfg.dtype}, B={b}, H={h}, mode='fwd+bwd')",
                         TIMER_CUDA)
        st.session_state[f"{NS}.live"] = dict(provenance=p, sweep={}, cells=cells, complete=True)
    ds = st.session_state.get(f"{NS}.live")
    if ds is None:
        st.info(t("backward.live_press", lang), icon=":material/speed:")
    return ds


def provenance(ds: dict, lang: str) -> None:
    """GPU, driver, CUDA, torch, triton, date, commit and the command, under a chart, in the page's language."""
    p = ds["provenance"]
    f = {x["key"]: x["value"] for x in provenance_fields(ds)}
    if p.get("sm_count") and p.get("total_memory_bytes"):
        f["device"] = t("backward.prov_device_value", lang, name=p["device_name"], sms=p["sm_count"],
                        gib=f"{p['total_memory_bytes'] / 2**30:.0f}")
    f["date"] = str(p.get("created_utc", f["date"]))[:10]
    _prov_caption(f, lang)


def _prov_caption(f: dict, lang: str) -> None:
    """f: PROV_KEYS and "command" -> text; one caption line of them, the command under it."""
    sep = "；" if lang == "zh" else " · "
    line = sep.join(f"{t('backward.prov_' + k, lang)} {f[k]}" for k in PROV_KEYS)
    st.caption(t("backward.prov_line", lang, line=line, command=f["command"]))


# ----------------------------------------------------------------------------- sections

def controls(lang: str) -> None:
    a, b, c = st.columns([2, 2, 5])
    a.number_input(t("backward.batch", lang), step=1, help=t("backward.bh_help", lang), **_kept("batch"))
    b.number_input(t("backward.heads", lang), step=1, help=t("backward.bh_help", lang), **_kept("heads"))
    p = PRESETS[TRAINING_PRESET]
    c.button(t("backward.load_training", lang, n=p["n"], d=p["d"]), key=f"{NS}.load_training",
             icon=":material/model_training:", on_click=_load_training, help=t("backward.load_training_help", lang))


def _load_training() -> None:
    state.apply_preset(TRAINING_PRESET)            # a size the recorded training sweep ran (a test checks it)
    state.set_values(dtype="float16")


def headline(cfg: Config, b: int, h: int, lang: str) -> None:
    """Above the picture: what each side keeps for the backward pass, in bytes."""
    naive, flash, ratio = rc.stored_totals(rc.stored_tensors(cfg.n, cfg.d, cfg.dtype, b, h))
    m1, m2, m3 = st.columns(3)
    m1.metric(t("backward.metric_naive", lang), fmt_bytes(naive), help=t("backward.metric_naive_help", lang))
    m2.metric(t("backward.metric_flash", lang), fmt_bytes(flash), help=t("backward.metric_flash_help", lang))
    m3.metric(t("backward.metric_ratio", lang), f"{ratio:,.1f}×", help=t("backward.metric_ratio_help", lang))


def stored_section(cfg: Config, b: int, h: int, lang: str) -> None:
    st.markdown(t("backward.stored_explain", lang))
    rows = rc.stored_tensors(cfg.n, cfg.d, cfg.dtype, b, h)
    ratio = rc.stored_totals(rows)[2]
    yes, no = "✓", ""
    df = pd.DataFrame({t("backward.col_tensor", lang): [r.name for r in rows],
                       t("backward.col_shape", lang): [r.shape for r in rows],
                       t("backward.col_elems", lang): [r.elems for r in rows],
                       t("backward.col_bytes", lang, b=b, h=h, dtype=DTYPE_SHORT[cfg.dtype]): [r.bytes for r in rows],
                       t("backward.col_size", lang): [fmt_bytes(r.bytes) for r in rows],
                       t("backward.col_naive", lang): [yes if r.naive else no for r in rows],
                       t("backward.col_flash", lang): [yes if r.flash else no for r in rows]})
    st.dataframe(df, hide_index=True, key=f"{NS}.stored_table")
    st.caption(t("backward.stored_note", lang))
    left, right = st.columns([4, 5])
    with left:
        fig = shared_figure("backward.stored", (cfg.n, cfg.d, cfg.dtype, b, h, lang),
                            lambda: charts.stored_figure(rows, lang, ratio=ratio))
        chart(fig, "backward_stored", slug(cfg, b, h), key=f"{NS}.stored")
    with right:
        st.markdown(t("backward.recompute_explain", lang))


def peak_section(ds: dict, view: dict, cfg: Config, lang: str) -> None:
    st.caption(t("backward.peak_explain", lang, config=cfg_text(view["config"], lang)))
    curve = view["curve"]
    dev = ds["provenance"].get("total_memory_bytes")
    ns = sorted({c["n"] for c in curve})
    mark = cfg.n if ns and ns[0] <= cfg.n <= ns[-1] else None
    fig = shared_figure("backward.peak", (fingerprint(curve), dev, mark, lang),
                        lambda: charts.peak_figure(curve, lang, device_bytes=dev, mark_n=mark))
    chart(fig, "backward_peak",
          f"d{view['config']['d']}_{'causal' if view['config']['causal'] else 'full'}", key=f"{NS}.peak")
    provenance(ds, lang)
    impls = [i for i in charts.IMPLS if any(c["impl"] == i for c in curve)]
    cell = {(c["impl"], c["n"]): c for c in curve}
    txt = lambda c: (t("backward.oom", lang) if c and c["status"] == "oom" else  # noqa: E731
                     fmt(c["peak_extra_bytes"] / 2 ** 20, ",.0f") if c and c.get("peak_extra_bytes") else "—")
    df = pd.DataFrame({"N": ns, **{charts.impl_name(i, lang): [txt(cell.get((i, n))) for n in ns] for i in impls},
                       t("backward.ideal_name", lang): [fmt(next(c["ideal_bytes"] for c in curve if c["n"] == n)
                                                            / 2 ** 20, ",.0f") for n in ns]})
    with st.expander(t("backward.peak_table", lang)):
        st.dataframe(df, hide_index=True, key=f"{NS}.peak_table")


def cost_section(cfg: Config, b: int, h: int, lang: str) -> None:
    rows = rc.matmul_rows(cfg.n, cfg.d, cfg.causal, b, h)
    tr = rc.trade(cfg.n, cfg.d, cfg.dtype, cfg.causal, b, h)
    left, right = st.columns([4, 5])
    with left:
        st.markdown(t("backward.cost_explain", lang, bwd=f"{tr['bwd_extra']:.0%}", step=f"{tr['step_extra']:.1%}"))
    with right:
        fig = shared_figure("backward.flops", (cfg.n, cfg.d, cfg.causal, b, h, lang),
                            lambda: charts.flops_figure(rows, lang))
        chart(fig, "backward_flops", slug(cfg, b, h), key=f"{NS}.flops")
    df = pd.DataFrame({t("backward.col_pass", lang): [t(f"backward.pass_{r['key']}", lang) for r in rows],
                       t("backward.col_matmuls", lang): [r["matmuls"] for r in rows],
                       t("backward.col_ops", lang): [r["ops"] for r in rows],
                       t("backward.col_flops", lang): [f"{r['flops']:.3g}" for r in rows],
                       t("backward.col_vs_fwd", lang): [f"{r['vs_fwd']:g}×" for r in rows]})
    st.dataframe(df, hide_index=True, key=f"{NS}.flops_table")
    st.markdown(t("backward.trade", lang, flops=f"{tr['extra_flops']:.3g}", io=fmt_bytes(tr["io_bytes"]),
                  fpb=f"{tr['flops_per_byte']:.0f}", extra_ms=f"{tr['extra_ms']:.3g}", io_ms=f"{tr['io_ms']:.3g}"))


def kernel_label(ds: dict, d: int, lang: str) -> str | None:
    """The backward kernel the recording ran at d, in words (the recording's own rule, parsed); None if unsaid."""
    k = training.backward_kernel(ds.get("provenance", {}).get("backward_kernel"), d)
    return t(f"backward.kernel_{k}", lang) if k else None


def times_section(ds: dict, view: dict, cfg: Config, b: int, h: int, lang: str) -> None:
    """Recorded times, rows labelled by the backward kernel that ran; teaching and fast share it."""
    c = view["config"]
    st.markdown(t("backward.same" if view["same"] else "backward.nearest", lang, config=cfg_text(c, lang),
                  mine=cfg_text(dict(n=cfg.n, d=cfg.d, causal=cfg.causal, dtype=cfg.dtype, batch=b, heads=h), lang)))
    tr_rows = sorted(training.times_rows(view["bwd"], view["step"]), key=lambda r: charts.impl_key(r["impl"]))
    kernel = kernel_label(ds, c["d"], lang)
    ours = {"teaching": t("backward.row_teaching", lang, kernel=kernel),
            "fast": t("backward.row_fast", lang, kernel=kernel)} if kernel else {}
    kernel = kernel or t("backward.kernel_autograd", lang)
    name = lambda i: ours.get(i) or charts.impl_name(i, lang)  # noqa: E731
    for r in tr_rows:
        if r["impl"] == "teaching":                # the same backward kernel as the fast row: no ratio to show
            r["ref_vs_bwd"] = r["ref_vs_bwd_graph"] = None
    ratio = lambda v: fmt(v) + "×" * (v is not None)  # noqa: E731
    cols = {t("backward.col_impl", lang): [name(r["impl"]) for r in tr_rows],
            t("backward.col_bwd_ms", lang): [fmt(r["bwd_ms"]) for r in tr_rows],
            t("backward.col_bwd_graph_ms", lang): [fmt(r["bwd_graph_ms"]) for r in tr_rows],
            t("backward.col_bwd_tflops", lang): [fmt(r["bwd_tflops"], ".0f") for r in tr_rows],
            t("backward.col_step_ms", lang): [fmt(r["step_ms"]) for r in tr_rows],
            t("backward.col_step_tflops", lang): [fmt(r["step_tflops"], ".0f") for r in tr_rows],
            t("backward.col_peak", lang): [fmt(r["peak_mib"], ",.0f") for r in tr_rows],
            t("backward.col_ref_bwd", lang): [ratio(r["ref_vs_bwd"]) for r in tr_rows],
            t("backward.col_ref_bwd_graph", lang): [ratio(r["ref_vs_bwd_graph"]) for r in tr_rows],
            t("backward.col_ref_step", lang): [ratio(r["ref_vs_step"]) for r in tr_rows]}
    graph = any(r["bwd_graph_ms"] is not None for r in tr_rows)
    if not graph:                                     # beside the per-call columns they compare with, or none
        for key in ("backward.col_bwd_graph_ms", "backward.col_ref_bwd_graph"):
            del cols[t(key, lang)]
    df = pd.DataFrame(cols)
    st.dataframe(df, hide_index=True, key=f"{NS}.times_table")
    if graph:
        st.caption(t("backward.graph_note", lang))
    noise = training.same_backward_noise(view["bwd"])
    if noise is not None:
        st.caption(t("backward.same_kernel", lang, kernel=kernel, pct=f"{100 * noise:.1f}"))
    cells = view["bwd"] + view["step"]
    fig = shared_figure("backward.times", (fingerprint(cells), lang), lambda: charts.times_figure(cells, lang))
    chart(fig, "backward_times", cfg_slug(c), key=f"{NS}.times")
    provenance(ds, lang)
    summary(ds, lang)
    st.session_state[f"{NS}.times_view"] = dict(kernel=kernel, noise=noise, rows=tr_rows)       # for tests


def registers_section(lang: str) -> None:
    """The ws backward's same tiles with lse and delta in registers or starting the accumulators: the committed
    tune file (bench/tune_record.py), read per call (small, not cached, nothing shared to mutate)."""
    st.markdown(t("backward.regs_explain", lang, acc128=tune_record.accumulator_registers(128),
                  acc64=tune_record.accumulator_registers(64), budget=tune_record.register_budget()))
    rec = tune_record.load_tune()
    rows = tune_record.register_rows(rec)
    st.markdown(t("backward.regs_source", lang, file=tune_record.DEFAULT.name) + "\n" + "\n".join(
        t("backward.regs_summary", lang, d=d, held=f"{g['held']:.2f}", started=f"{g['started']:.2f}",
          cells=g["cells"]) for d, g in tune_record.geomeans(rows).items()))
    f = {k: rec[k] for k in tune_record.PROVENANCE}
    fig = shared_figure("backward.registers", (fingerprint(rows), lang), lambda: charts.registers_figure(rows, lang))
    chart(fig, "backward_registers", "ws_h200", key=f"{NS}.registers",
          meta=dict(source=tune_record.DEFAULT.name, **f))
    _prov_caption(dict(f, commit=f["git_commit"], date=str(f["date"])[:10]), lang)
    st.caption(t("backward.regs_other_run", lang, date=str(f["date"])[:10]))


def summary(ds: dict, lang: str) -> None:
    """Our backward against the others over every recorded configuration, per head dim: the numbers as they are."""
    s = training.speed_summary(ds)
    rng = lambda p: f"{p[0]:.2f}–{p[1]:.2f}×" if p else "—"  # noqa: E731
    lines = [t("backward.summary_line", lang, d=d, flash=rng(v.get("flash")), cudnn=rng(v.get("cudnn")),
               naive=rng(v.get("naive"))) for d, v in s.items()]
    if lines:
        kernels = "; ".join(f"d = {d}: {kernel_label(ds, d, lang) or t('backward.kernel_unknown', lang)}"
                            for d in s)
        st.markdown(t("backward.summary_head", lang, date=str(ds["provenance"].get("created_utc", ""))[:10]) + "\n"
                    + "\n".join(lines) + "\n\n" + t("backward.summary_note", lang, kernel=kernels))


def slug(cfg: Config, b: int, h: int) -> str:
    return f"N{cfg.n}_d{cfg.d}_{DTYPE_SHORT[cfg.dtype]}_B{b}_H{h}" + "_causal" * cfg.causal


def cfg_slug(c: dict) -> str:
    return f"N{c['n']}_d{c['d']}_{DTYPE_SHORT.get(c['dtype'], c['dtype'])}" + "_causal" * c["causal"]


# ----------------------------------------------------------------------------- the page

def render() -> None:
    lang, cfg = state.page_start(NS, fields=FIELDS)
    state.shows_caption(cfg, lang)
    controls(lang)
    bh = state.checked_batch_heads(cfg, NS, DEFAULTS, lang)
    if bh:
        b, h = bh
        with shown_errors(lang, where="stored tensors"):
            headline(cfg, b, h, lang)
        ds = view = None
        with shown_errors(lang, where="data source"):
            ds = source_picker(lang)
            if ds is not None:
                view = training.training_view(ds, n=cfg.n, d=cfg.d, causal=cfg.causal, dtype=cfg.dtype, batch=b, heads=h)
        if view is not None:
            with shown_errors(lang, where="peak memory"):
                peak_section(ds, view, cfg, lang)
        with st.expander(t("backward.stored_header", lang)), shown_errors(lang, where="stored tensors"):
            stored_section(cfg, b, h, lang)
        with st.expander(t("backward.cost_header", lang)), shown_errors(lang, where="recomputation cost"):
            cost_section(cfg, b, h, lang)
        if view is not None:
            with st.expander(t("backward.times_header", lang)), shown_errors(lang, where="recorded times"):
                times_section(ds, view, cfg, b, h, lang)
    else:
        st.info(t("backward.fix_input", lang), icon=":material/edit:")
    with st.expander(t("backward.regs_header", lang)), shown_errors(lang, where="registers"):
        registers_section(lang)
    with st.expander(t("backward.demo_header", lang)), shown_errors(lang, where="demo"):
        backward_demo.section(cfg, lang)
