"""Page "Inside the kernel": one loop iteration, warp by warp, measured with Triton proton's intra-kernel scopes.

Thin: the recorded timelines (assets/benchmarks/timeline/*.json, written by `python -m flashviz.bench --preset
h200-timeline`, validated by flashviz.bench.timeline_dataset, never executed) go to flashviz.engine.kernel_timeline (the
window, the producer's lead, the warpgroups' overlap) and charts/timeline.py. The page opens on a few loop
iterations of each kernel and states what they show; the whole CTA, the kernels' times, the shares and the method
are behind expanders. Figures are built and serialised once per recording, configuration and language
(st.cache_resource, flashviz.infra.cache.frozen_figure) and never mutated. Strings: flashviz/i18n/inside.py. Shown by
st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from flashviz.engine import kernel_timeline as kt
from flashviz.bench import timeline_dataset as td
from flashviz.infra.cache import fingerprint, frozen_figure
from flashviz.charts import timeline as charts
from flashviz.i18n import t
from flashviz.ui import state
from flashviz.ui.common import chart, committed_recordings, shared_figure, shown_errors

NS = "inside"
COMMAND = "python -m flashviz.bench --preset h200-timeline --traces /tmp/flashviz-traces"
ITERATIONS = 3                      # loop iterations in the opening window


def datasets(lang: str) -> dict[str, dict]:
    return committed_recordings(td.list_timeline_datasets(), td.load_timeline_dataset, lang, "inside.bad_file")


def config_label(key: tuple, lang: str) -> str:
    n, d, causal, dtype, batch, heads = key
    return t("inside.config_fmt", lang, n=f"{n:,}", d=d, mask=t("inside.mask_causal" if causal else "inside.mask_full",
                                                                 lang), batch=batch, heads=heads, dtype=dtype)


def default_config(ds: dict) -> tuple:
    """The configuration the page opens on: the first whose ws cell ran ping-pong (FlashAttention-3's schedule),
    else the first recorded."""
    keys = td.configs(ds)
    for c in ds["cells"]:
        if c["impl"] == "ws" and c["status"] == "ok" and "pingpong" in (c.get("schedule") or ""):
            return td.config_key(c)
    return keys[0]


def _ms(v) -> str:
    return "—" if v is None else f"{v:.4g}"


def duration(cycles: float, clock_mhz: float | None, lang: str) -> str:
    us = td.clock_us(cycles, clock_mhz)
    k = f"{cycles / 1000:,.1f}"
    return t("inside.kcycles", lang, k=k) if us is None else t("inside.us_cycles", lang, us=f"{us:,.2f}", k=k)


def short_time(cycles: float, clock_mhz: float | None, lang: str) -> str:
    us = td.clock_us(cycles, clock_mhz)
    return t("inside.kcycles", lang, k=f"{cycles / 1000:,.1f}") if us is None else f"{us:,.2f} µs"


def schedule_text(c: dict, lang: str) -> str:
    return t(f"inside.sched_{c['schedule']}", lang) if c.get("schedule") else t("inside.sched_unknown", lang)


# ----------------------------------------------------------------------------- cached figures (shared, read-only)

@st.cache_resource(max_entries=48, show_spinner=False)
def window_fig(path: str, mtime: float, key: tuple, lang: str, _ds: dict):
    """The opening window of every ok cell at one configuration. Keyed by file and modification time; the
    dataset argument is not hashed (the same file gives the same dataset). Serialised once, read-only (a
    FrozenFigure: drawn on every run without copying it)."""
    cells = [c for c in td.cells_at(_ds, key) if c["status"] == "ok"]
    panels = [(c, kt.window(c, ITERATIONS)) for c in cells]
    k = min((w.iterations for _, w in panels), default=0)
    return frozen_figure(charts.window_figure(panels, lang, clock_mhz=_ds["method"].get("clock_mhz"),
                                              title=t("inside.window_title", lang, k=k)))


@st.cache_resource(max_entries=48, show_spinner=False)
def gantt_fig(path: str, mtime: float, key: tuple, impl: str, lang: str, x_max: float | None, _ds: dict):
    """The whole kept CTA of one kernel (thousands of bars): built once per file, configuration and language."""
    [c] = [c for c in td.cells_at(_ds, key) if c["impl"] == impl]
    return frozen_figure(charts.gantt_figure(c, lang, clock_mhz=_ds["method"].get("clock_mhz"), x_max=x_max,
                                             title=t("inside.gantt_title", lang, impl=impl)))


# ----------------------------------------------------------------------------- the opening: a few iterations

def takeaway(cells: list[dict], clock: float | None, lang: str) -> str:
    """One sentence computed from the recording: the ws cell's producer lead and warpgroup overlap, else the fast
    cell's softmax share of an iteration."""
    ok = {c["impl"]: c for c in cells if c["status"] == "ok"}
    ws = ok.get("ws")
    if ws is not None:
        tk = kt.takeaway(ws)
        if tk.lead_cycles is not None and tk.mma_under_softmax is not None:
            return t("inside.takeaway_ws", lang, schedule=schedule_text(ws, lang), lead=f"{tk.lead_iterations:.1f}",
                     lead_t=short_time(tk.lead_cycles, clock, lang), under=f"{100 * tk.mma_under_softmax:.0f}",
                     both=f"{100 * tk.softmax_together:.0f}")
    for c in ok.values():
        tk = kt.takeaway(c)
        if tk.softmax_share is not None:
            return t("inside.takeaway_fast", lang, share=f"{100 * tk.softmax_share:.0f}")
    return ""


def opening(found: dict[str, dict], lang: str) -> tuple[str, dict, tuple] | None:
    """The recording and configuration pickers, the window of a few iterations and its takeaway."""
    if not found:
        st.info(t("inside.no_recording", lang), icon=":material/folder_off:")
        st.code(COMMAND, language="bash", wrap_lines=True)
        return None
    ss = st.session_state
    names = list(found)
    if ss.get(f"{NS}.dataset") not in found:
        ss[f"{NS}.dataset"] = names[0]
    a, b = st.columns([2, 3], vertical_alignment="bottom")
    a.selectbox(t("inside.dataset", lang), names, **state.kept(f"{NS}.dataset", names[0]))
    name = ss[f"{NS}.dataset"]
    ds = found[name]
    keys = td.configs(ds)
    if ss.get(f"{NS}.config") not in keys or ss.get(f"{NS}.config_of") != name:
        ss[f"{NS}.config"], ss[f"{NS}.config_of"] = default_config(ds), name
    b.selectbox(t("inside.config", lang), keys, format_func=lambda k: config_label(k, lang),
                **state.kept(f"{NS}.config", keys[0]))
    key = ss[f"{NS}.config"]
    cells = td.cells_at(ds, key)
    if ds.get("complete") is False:
        why = ds.get("stopped") or t("inside.incomplete_cut", lang)
        st.warning(t("inside.incomplete", lang, why=why), icon=":material/warning:")
    clock = ds["method"].get("clock_mhz")
    ok = [c for c in cells if c["status"] == "ok"]
    if ok:
        stem = name.removesuffix(".json")
        slug = f"{stem}_N{key[0]}_d{key[1]}{'_causal' if key[2] else ''}"
        with shown_errors(lang, where="window"):
            chart(window_fig(*_file(name), key, lang, ds), "inside_window", slug, key=f"{NS}.window",
                  meta=dict(source="recorded dataset", dataset=name, iterations=ITERATIONS))
        st.markdown(takeaway(cells, clock, lang))
        tiles = {c["impl"]: f"{c['block_m']} × {c['block_n']}" for c in ok}
        st.caption(t("inside.window_caption", lang, fast=tiles.get("fast", "—"), ws=tiles.get("ws", "—")))
        if key == default_config(ds) and any("pingpong" in (c.get("schedule") or "") for c in ok):
            st.caption(t("inside.default_shown", lang))
    return name, ds, key


def _file(name: str) -> tuple[str, float]:
    """(path, modification time) of a committed recording: the cache key of its figures."""
    p = td.DEFAULT_DIR / name
    return str(p), (p.stat().st_mtime if p.exists() else 0.0)


# ----------------------------------------------------------------------------- expanders

def why_section(ds: dict | None, lang: str) -> None:
    from flashviz_kernels import ws                      # REGS only: importing it loads no Gluon
    creg, preg, _ = ws.REGS[2]
    st.markdown(t("inside.why_text", lang, tc=f"{kt.TENSOR_FLOP_PER_CLK:,}", sfu=kt.SFU_EXP_PER_CLK,
                  r128=f"{kt.exp_vs_mma_clocks(128):.2g}", r64=f"{kt.exp_vs_mma_clocks(64):.2g}", warps=4 * (2 + 1),
                  preg=preg, creg=creg))
    if ds is not None:
        st.dataframe(schedules_table(ds, lang), hide_index=True, key=f"{NS}.schedules")


def schedules_table(ds: dict, lang: str) -> pd.DataFrame:
    """Per configuration of the recording: the ws schedule that ran and what its kept CTA shows."""
    rows = []
    for key in td.configs(ds):
        cells = {c["impl"]: c for c in td.cells_at(ds, key) if c["status"] == "ok"}
        if "ws" not in cells:
            continue
        tk = kt.takeaway(cells["ws"])
        pct = lambda v: None if v is None else round(100 * v, 1)              # noqa: E731
        rows.append({t("inside.col_config", lang): config_label(key, lang),
                     t("inside.col_schedule", lang): schedule_text(cells["ws"], lang),
                     t("inside.col_lead", lang): None if tk.lead_iterations is None else round(tk.lead_iterations, 2),
                     t("inside.col_under", lang): pct(tk.mma_under_softmax),
                     t("inside.col_both", lang): pct(tk.softmax_together),
                     t("inside.col_sm_share", lang): pct(tk.softmax_share)})
    return pd.DataFrame(rows)


def schedule_note(c: dict, lang: str) -> str:
    """Which OVERLAP / PINGPONG schedule a ws cell ran: recorded, or (older files) today's default, said as such."""
    if c.get("schedule"):
        return t("inside.schedule_recorded", lang, schedule=schedule_text(c, lang))
    from flashviz_kernels import ws                     # its CONFIGS only: importing it loads no Gluon
    cfg = ws.CONFIGS.get((c["d"], bool(c["causal"])))
    if cfg is None:
        return t("inside.schedule_recorded", lang, schedule="—")
    today = td.schedule_name(*cfg[3:5])
    return t("inside.schedule_unrecorded", lang, d=c["d"], schedule=t(f"inside.sched_{today}", lang),
             mask=t("inside.mask_causal" if c["causal"] else "inside.mask_none", lang))


def consumers_note(c: dict, lang: str) -> str | None:
    """A ws cell whose query tile (block_m: 64 rows per consumer warpgroup) is not the one the kernel runs today
    for its d and mask: say both, so an older recording is not read as today's layout. None when they agree."""
    from flashviz_kernels import ws                     # its CONFIGS only: importing it loads no Gluon
    cfg = ws.CONFIGS.get((c["d"], bool(c["causal"])))
    if cfg is None or not c.get("block_m") or c["block_m"] == cfg[0]:
        return None
    return t("inside.consumers_changed", lang, then=c["block_m"] // 64, bm=c["block_m"], now=cfg[6], bm_now=cfg[0],
             d=c["d"])


def events_note(c: dict, lang: str) -> None:
    exp, kept = c.get("events_expected"), c["events"]
    if exp is None:
        return
    if kept < exp:
        st.caption(t("inside.dropped", lang, kept=f"{kept:,}", expected=f"{exp:,}",
                     pct=f"{100 * (exp - kept) / exp:.0f}"))
    elif kept == exp:
        st.caption(t("inside.complete", lang, expected=f"{exp:,}", buffer=t(f"inside.buffer_{c['buffer']}", lang)))
    else:
        st.caption(t("inside.extra", lang, kept=f"{kept:,}", expected=f"{exp:,}"))


def times_table(cells: list[dict], lang: str) -> pd.DataFrame:
    """Per kernel: the per-call time, the kernel alone, and their difference (host time the GPU waited for)."""
    rows = []
    for c in cells:
        call, kern = c.get("ms_plain"), c.get("ms_kernel_plain")
        rows.append({t("inside.col_impl", lang): c["impl"], t("inside.col_call", lang): _ms(call),
                     t("inside.col_kernel", lang): _ms(kern),
                     t("inside.col_host", lang): _ms(call - kern) if call and kern else "—"})
    return pd.DataFrame(rows)


def impl_block(c: dict, name: str, ds: dict, key: tuple, x_max: float | None, lang: str) -> None:
    clock = ds["method"].get("clock_mhz")
    st.markdown(t("inside.impl_header", lang, impl=c["impl"], kernel=c["kernel"], bm=c["block_m"], bn=c["block_n"],
                  stages=c["num_stages"], warps=len(c.get("warps", ())) or c["num_warps"]))
    if c["impl"] == "ws":
        st.caption(schedule_note(c, lang))
        if note := consumers_note(c, lang):
            st.caption(note)
    cols = st.columns(4)
    khelp = t("inside.m_kernel_help", lang, reps=c.get("reps_kernel") or "?")
    cols[0].metric(t("inside.m_kernel", lang), _ms(c["ms_kernel_plain"]), help=khelp)
    cols[1].metric(t("inside.m_instr", lang), _ms(c["ms_kernel_instrumented"]), help=khelp)
    ov = td.overhead(c)
    cols[2].metric(t("inside.m_overhead", lang), t("inside.not_measured", lang) if ov is None else f"{ov:.2f}×",
                   help=t("inside.m_overhead_help", lang))
    if c["status"] != "ok":
        st.caption(t("inside.not_ok", lang, impl=c["impl"], status=t(f"inside.status_{c['status']}", lang),
                     msg=c.get("message") or ""))
        return
    cols[3].metric(t("inside.m_events", lang), f"{c['events']:,} ({c['ctas']})")
    stem = name.removesuffix(".json")
    slug = f"{stem}_{c['impl']}_N{c['n']}_d{c['d']}{'_causal' if c['causal'] else ''}"
    with shown_errors(lang, where=f"timeline {c['impl']}"):
        chart(gantt_fig(*_file(name), key, c["impl"], lang, x_max, ds), "inside_timeline", slug,
              key=f"{NS}.gantt_{c['impl']}", meta=dict(source="recorded dataset", dataset=name, cta=c["cta"],
                                                       impl=c["impl"]))
    sp = c["span_cycles"]
    st.caption(t("inside.cta_caption", lang, id=c["cta"]["id"], core=c["cta"]["core"], rank=c["cta"]["rank"] + 1,
                 ctas=c["ctas"], span=duration(c["cta"]["span_cycles"], clock, lang),
                 lo=duration(sp["min"], clock, lang), hi=duration(sp["max"], clock, lang)))
    events_note(c, lang)


def cta_section(name: str, ds: dict, key: tuple, lang: str) -> None:
    cells = td.cells_at(ds, key)
    div, _ = charts.time_unit(ds["method"].get("clock_mhz"))
    spans = [c["cta"]["span_cycles"] for c in cells if c["status"] == "ok"]
    x_max = max(spans) / div if spans else None           # one time axis for every kernel: widths compare
    timed = [c for c in cells if c.get("ms_plain") and c.get("ms_kernel_plain")]
    if timed:
        worst = max(timed, key=lambda c: c["ms_plain"] - c["ms_kernel_plain"])
        st.markdown(t("inside.times_text", lang, impl=worst["impl"], call=_ms(worst["ms_plain"]),
                      kernel=_ms(worst["ms_kernel_plain"])))
    st.dataframe(times_table(cells, lang), hide_index=True, key=f"{NS}.times")
    for c in cells:
        with st.container(border=True), shown_errors(lang, where=f"recorded {c['impl']}"):
            impl_block(c, name, ds, key, x_max, lang)
    if not any(c["impl"] == "ws" for c in cells):
        st.caption(t("inside.ws_missing", lang))


def shares_table(cells: list[dict], lang: str) -> pd.DataFrame:
    rows = []
    for c in cells:
        if c["status"] != "ok":
            continue
        for s in c["shares"]:
            rows.append({t("inside.col_impl", lang): c["impl"],
                         t("inside.col_role", lang): charts.role_label(s["role"], lang),
                         t("inside.col_scope", lang): charts.scope_label(s["scope"], lang),
                         t("inside.col_share", lang): round(100 * s["share"], 1),
                         t("inside.col_cycles", lang): round(s["mean_cycles"]),
                         t("inside.col_count", lang): s["count"]})
    return pd.DataFrame(rows)


def shares_section(name: str, ds: dict, key: tuple, lang: str) -> None:
    cells = [c for c in td.cells_at(ds, key) if c["status"] == "ok"]
    if not cells:
        return
    chart(shared_figure("inside.shares", (fingerprint(cells), lang), lambda: charts.shares_figure(cells, lang)),
          "inside_shares",
          f"{name.removesuffix('.json')}_N{key[0]}_d{key[1]}{'_causal' if key[2] else ''}", key=f"{NS}.shares",
          meta=dict(source="recorded dataset", dataset=name))
    for impl, role, shares in charts.share_rows(cells):
        if not shares:
            continue
        top = max(shares, key=shares.get)
        st.markdown(t("inside.largest", lang, impl=impl, role=charts.role_label(role, lang),
                      scope=charts.scope_label(top, lang), pct=f"{100 * shares[top]:.1f}",
                      outside=f"{100 * max(0.0, 1 - sum(shares.values())):.1f}"))
    st.dataframe(shares_table(cells, lang), hide_index=True, key=f"{NS}.shares_table")


def provenance(ds: dict, lang: str) -> None:
    p, m = ds["provenance"], ds["method"]
    clock = m.get("clock_mhz")
    items = [("prov_gpu", p["device_name"]), ("prov_driver", p.get("driver_version")),
             ("prov_cuda", p.get("cuda_version")), ("prov_torch", p["torch"]), ("prov_triton", p.get("triton")),
             ("prov_date", p["created_utc"]), ("prov_commit", p["git_commit"]),
             ("prov_clock", f"{clock:g} MHz" if clock else None)]
    if lang == "en":                                   # the recording's own words, English only
        items += [("prov_profiler", m["profiler"]), ("prov_granularity", m["granularity"]),
                  ("prov_timer_plain", m["timer_plain"]), ("prov_timer_kernel", m["timer_kernel"]),
                  ("prov_representative", m["representative"]), ("prov_clock", m["clock_source"])]
    with st.container(border=True):
        st.markdown(t("inside.prov_header", lang))
        cols = st.columns(3)
        for i, (k, v) in enumerate(items):
            cols[i % 3].caption(f"**{t(f'inside.{k}', lang)}** · {t('inside.unknown', lang) if v is None else v}")
        if lang == "en":
            st.caption(f"**{t('inside.prov_semantic', lang)}** · {m['semantic']}")
        else:
            st.caption(t("inside.prov_method_zh", lang))
        st.caption(t("inside.prov_command", lang))
        st.code(p["command"], language="bash", wrap_lines=True)


def render() -> None:
    lang, _ = state.page_start(NS, fields=None)
    found, shown = {}, None
    with shown_errors(lang, where="recorded datasets"):
        found = datasets(lang)
    with shown_errors(lang, where="recorded timelines"):
        shown = opening(found, lang)
    name, ds, key = shown or (None, None, None)
    with st.expander(t("inside.why_header", lang)), shown_errors(lang, where="why"):
        why_section(ds, lang)
    if ds is not None:
        with st.expander(t("inside.cta_header", lang)), shown_errors(lang, where="whole CTA"):
            cta_section(name, ds, key, lang)
        with st.expander(t("inside.shares_header", lang)), shown_errors(lang, where="shares"):
            shares_section(name, ds, key, lang)
    with st.expander(t("inside.scopes_header", lang)):
        st.markdown(t("inside.scopes_text", lang))
    with st.expander(t("inside.can_header", lang)):
        st.markdown(t("inside.can_text", lang))
        if ds is not None:
            provenance(ds, lang)
