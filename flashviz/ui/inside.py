"""Page "Inside the kernel": where one CTA's time goes, measured with Triton proton's intra-kernel scopes.

Thin: the recorded timelines (assets/benchmarks/timeline/*.json, written by `python -m flashviz.bench --preset
h200-timeline`, validated by flashviz.bench.timeline_dataset, never executed) go to charts/timeline.py. Every number
shown comes from the dataset; without one the page says so and shows the command. Strings: flashviz/i18n/inside.py.
Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from flashviz.bench import timeline_dataset as td
from flashviz.charts import timeline as charts
from flashviz.i18n import t
from flashviz.ui import state
from flashviz.ui.common import chart, committed_recordings, shown_errors

NS = "inside"
COMMAND = "python -m flashviz.bench --preset h200-timeline --traces /tmp/flashviz-traces"


def datasets(lang: str) -> dict[str, dict]:
    return committed_recordings(td.list_timeline_datasets(), td.load_timeline_dataset, lang, "inside.bad_file")


def config_label(key: tuple, lang: str) -> str:
    n, d, causal, dtype, batch, heads = key
    return t("inside.config_fmt", lang, n=f"{n:,}", d=d, mask=t("inside.mask_causal" if causal else "inside.mask_full",
                                                                 lang), batch=batch, heads=heads, dtype=dtype)


def _ms(v) -> str:
    return "—" if v is None else f"{v:.4g}"


def duration(cycles: float, clock_mhz: float | None) -> str:
    us = td.clock_us(cycles, clock_mhz)
    return f"{cycles / 1000:,.1f} k cycles" if us is None else f"{us:,.1f} µs ({cycles / 1000:,.1f} k cycles)"


def events_note(c: dict, lang: str) -> None:
    exp, kept = c.get("events_expected"), c["events"]
    if exp is None:
        return
    if kept < exp:
        st.caption(t("inside.dropped", lang, kept=f"{kept:,}", expected=f"{exp:,}", pct=f"{100 * (exp - kept) / exp:.0f}"))
    elif kept == exp:
        st.caption(t("inside.complete", lang, expected=f"{exp:,}", buffer=t(f"inside.buffer_{c['buffer']}", lang)))
    else:
        st.caption(t("inside.extra", lang, kept=f"{kept:,}", expected=f"{exp:,}"))


def schedule_note(c: dict, lang: str) -> str:
    """Which OVERLAP / PINGPONG schedule a ws cell ran: recorded, or (older files) today's default, said as such."""
    if c.get("schedule"):
        return t("inside.schedule_recorded", lang, schedule=t(f"inside.sched_{c['schedule']}", lang))
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


def impl_block(c: dict, name: str, clock: float | None, x_max: float | None, lang: str) -> None:
    st.markdown(t("inside.impl_header", lang, impl=c["impl"], kernel=c["kernel"], bm=c["block_m"], bn=c["block_n"],
                  stages=c["num_stages"], warps=len(c.get("warps", ())) or c["num_warps"]))
    if c["impl"] == "ws":
        st.caption(schedule_note(c, lang))
        if note := consumers_note(c, lang):
            st.caption(note)
    cols = st.columns(5)
    cols[0].metric(t("inside.m_plain", lang), _ms(c["ms_plain"]), help=t("inside.m_plain_help", lang))
    khelp = t("inside.m_kernel_help", lang, reps=c.get("reps_kernel") or "?")
    cols[1].metric(t("inside.m_kernel", lang), _ms(c["ms_kernel_plain"]), help=khelp)
    cols[2].metric(t("inside.m_instr", lang), _ms(c["ms_kernel_instrumented"]), help=khelp)
    ov = td.overhead(c)
    cols[3].metric(t("inside.m_overhead", lang), t("inside.not_measured", lang) if ov is None else f"{ov:.2f}×",
                   help=t("inside.m_overhead_help", lang))
    if c["status"] != "ok":
        st.caption(t("inside.not_ok", lang, impl=c["impl"], status=t(f"inside.status_{c['status']}", lang),
                     msg=c.get("message") or ""))
        return
    cols[4].metric(t("inside.m_events", lang), f"{c['events']:,} ({c['ctas']})")
    slug = f"{name}_{c['impl']}_N{c['n']}_d{c['d']}{'_causal' if c['causal'] else ''}"
    meta = dict(source="recorded dataset", dataset=name, cta=c["cta"], impl=c["impl"])
    with shown_errors(lang, where=f"timeline {c['impl']}"):
        chart(charts.gantt_figure(c, lang, clock_mhz=clock, x_max=x_max,
                                  title=t("inside.gantt_title", lang, impl=c["impl"])),
              "inside_timeline", slug, key=f"{NS}.gantt_{c['impl']}", meta=meta)
    sp = c["span_cycles"]
    st.caption(t("inside.cta_caption", lang, id=c["cta"]["id"], core=c["cta"]["core"], rank=c["cta"]["rank"] + 1,
                 ctas=c["ctas"], span=duration(c["cta"]["span_cycles"], clock), lo=duration(sp["min"], clock),
                 hi=duration(sp["max"], clock)))
    events_note(c, lang)


def shares_table(cells: list[dict], lang: str) -> pd.DataFrame:
    rows = []
    for c in cells:
        if c["status"] != "ok":
            continue
        for s in c["shares"]:
            rows.append({t("inside.col_impl", lang): c["impl"], t("inside.col_role", lang): charts.role_label(s["role"], lang),
                         t("inside.col_scope", lang): s["scope"], t("inside.col_share", lang): round(100 * s["share"], 1),
                         t("inside.col_cycles", lang): round(s["mean_cycles"]), t("inside.col_count", lang): s["count"]})
    return pd.DataFrame(rows)


def summary(cells: list[dict], lang: str) -> None:
    for impl, role, shares in charts.share_rows(cells):
        if not shares:
            continue
        top = max(shares, key=shares.get)
        st.markdown(t("inside.largest", lang, impl=impl, role=charts.role_label(role, lang), scope=top,
                      pct=f"{100 * shares[top]:.1f}", outside=f"{100 * max(0.0, 1 - sum(shares.values())):.1f}"))


def provenance(ds: dict, lang: str) -> None:
    p, m = ds["provenance"], ds["method"]
    clock = m.get("clock_mhz")
    items = [("prov_gpu", p["device_name"]), ("prov_driver", p.get("driver_version")),
             ("prov_cuda", p.get("cuda_version")), ("prov_torch", p["torch"]), ("prov_triton", p.get("triton")),
             ("prov_date", p["created_utc"]), ("prov_commit", p["git_commit"]),
             ("prov_profiler", m["profiler"]), ("prov_granularity", m["granularity"]),
             ("prov_clock", (f"{clock:g} MHz · " if clock else "") + m["clock_source"]),
             ("prov_timer_plain", m["timer_plain"]), ("prov_timer_kernel", m["timer_kernel"]),
             ("prov_representative", m["representative"])]
    with st.container(border=True):
        st.markdown(t("inside.prov_header", lang))
        cols = st.columns(3)
        for i, (k, v) in enumerate(items):
            cols[i % 3].caption(f"**{t(f'inside.{k}', lang)}** · {'unknown' if v is None else v}")
        st.caption(f"**{t('inside.prov_semantic', lang)}** · {m['semantic']}")
        st.caption(t("inside.prov_command", lang))
        st.code(p["command"], language="bash", wrap_lines=True)


def recorded_section(found: dict[str, dict], lang: str) -> None:
    st.header(t("inside.rec_header", lang))
    if not found:
        st.info(t("inside.no_recording", lang), icon=":material/folder_off:")
        st.code(COMMAND, language="bash", wrap_lines=True)
        return
    ss = st.session_state
    names = list(found)
    if ss.get(f"{NS}.dataset") not in found:
        ss[f"{NS}.dataset"] = names[0]
    a, b = st.columns([2, 3], vertical_alignment="bottom")
    a.selectbox(t("inside.dataset", lang), names, **state.kept(f"{NS}.dataset", names[0]))
    name = ss[f"{NS}.dataset"]
    ds = found[name]
    keys = td.configs(ds)
    if ss.get(f"{NS}.config") not in keys:
        ss[f"{NS}.config"] = keys[0]
    b.selectbox(t("inside.config", lang), keys, format_func=lambda k: config_label(k, lang),
                **state.kept(f"{NS}.config", keys[0]))
    if ds.get("complete") is False:
        why = ds.get("stopped") or t("inside.incomplete_cut", lang)
        st.warning(t("inside.incomplete", lang, why=why), icon=":material/warning:")
    cells = td.cells_at(ds, ss[f"{NS}.config"])
    clock = ds["method"].get("clock_mhz")
    div, _ = charts.time_unit(clock)
    spans = [c["cta"]["span_cycles"] for c in cells if c["status"] == "ok"]
    x_max = max(spans) / div if spans else None           # one time axis for every kernel: widths compare
    stem = name.removesuffix(".json")
    for c in cells:
        with st.container(border=True), shown_errors(lang, where=f"recorded {c['impl']}"):
            impl_block(c, stem, clock, x_max, lang)
    if not any(c["impl"] == "ws" for c in cells):
        st.caption(t("inside.ws_missing", lang))
    if spans:
        with shown_errors(lang, where="shares"):
            key = td.config_key(cells[0])
            chart(charts.shares_figure(cells, lang), "inside_shares",
                  f"{stem}_N{key[0]}_d{key[1]}{'_causal' if key[2] else ''}", key=f"{NS}.shares",
                  meta=dict(source="recorded dataset", dataset=name))
            summary(cells, lang)
            st.dataframe(shares_table(cells, lang), hide_index=True, key=f"{NS}.shares_table")
    provenance(ds, lang)


def render() -> None:
    lang, _ = state.page_start(NS, fields=None)
    found = {}
    with shown_errors(lang, where="recorded datasets"):
        found = datasets(lang)
    with shown_errors(lang, where="recorded timelines"):
        recorded_section(found, lang)
    with st.expander(t("inside.ws_header", lang), expanded=True):
        st.markdown(t("inside.ws_text", lang))
    with st.expander(t("inside.scopes_header", lang), expanded=False):
        st.markdown(t("inside.scopes_text", lang))
    with st.expander(t("inside.can_header", lang), expanded=True):
        st.markdown(t("inside.can_text", lang))
