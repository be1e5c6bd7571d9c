"""The hardware page's deeper sections (each in an expander of ui/hardware.py): the GPU's memory hierarchy with
sourced numbers (registers on top), why naive attention is memory-bound, and measured HBM bytes next to the
SRAM-only formula; plus the recordings they read.

Thin: numbers come from flashviz.engine.hardware / roofline / lessons / traffic and from recorded datasets
(flashviz.bench.dataset for timings, flashviz.bench.hbm_dataset for Nsight Compute bytes); figures from
charts/roofline.py.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from flashviz.bench import hbm_dataset
from flashviz.bench.dataset import list_datasets, load_dataset
from flashviz.bench.recording import complete_first
from flashviz.infra.cache import fingerprint
from flashviz.charts import roofline as charts
from flashviz.infra.errors import DatasetError
from flashviz.engine.hardware import capacity_ratio, gpu, hierarchy_rows
from flashviz.i18n import t
from flashviz.engine.lessons import fused_compulsory_bytes, unfused_stages
from flashviz.engine.roofline import model_points, naive_memory_bound
from flashviz.engine.tiling import Schedule, TilingConfig, make_config
from flashviz.ui.common import chart, shared_figure

NS = "hardware"
ELEM = {"float16": 2, "bfloat16": 2, "float32": 4}


def fmt_si(b: float, unit: str = "B") -> str:
    """Decimal units, as vendors print them: 3.35e12 -> '3.35 TB'."""
    for div, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if b >= div:
            return f"{b / div:,.4g} {p}{unit}"
    return f"{b:,.0f} {unit}"


def fmt_bin(b: float) -> str:
    for div, u in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if b >= div:
            return f"{b / div:,.3g} {u}"
    return f"{b:,.0f} B"


def fmt_time(s: float) -> str:
    return f"{s * 1e3:,.3g} ms" if s >= 1e-3 else f"{s * 1e6:,.3g} µs"


def _stamped(paths) -> tuple:
    """(path, size, mtime) of each file: the cache key, so a newly recorded file is read on the next rerun."""
    out = []
    for p in paths:
        try:
            st_ = p.stat()
            out.append((str(p), st_.st_size, st_.st_mtime_ns))
        except OSError:
            continue
    return tuple(out)


@st.cache_data(show_spinner=False, max_entries=8)
def _load_timing(stamped: tuple) -> list[dict]:
    out = []
    for path, _, _ in stamped:
        try:
            out.append(load_dataset(path))
        except DatasetError:
            continue
    return out


@st.cache_data(show_spinner=False, max_entries=8)
def _load_hbm(stamped: tuple) -> list[dict]:
    out = []
    for path, _, _ in stamped:
        try:
            out.append(hbm_dataset.load_hbm_dataset(path))
        except DatasetError:
            continue
    return out


def timing_datasets() -> list[dict]:
    """Every committed timing dataset that validates, complete ones first, newest name first within each
    (st.cache_data hands each session its own copy)."""
    return complete_first(_load_timing(_stamped(list_datasets())))


def hbm_recordings() -> list[dict]:
    """Every recorded measured-HBM dataset that validates, newest file name first."""
    return _load_hbm(_stamped(hbm_dataset.list_hbm_datasets()))


# ----------------------------------------------------------------------------- sections

def _capacity(r: dict, g: dict, which: str) -> str:
    v = r[which]
    if v is None:
        return "—"
    if r["level"] == "l2":
        return g["l2_label"]
    if r["level"] == "hbm":
        return f"{fmt_si(v)} {g['hbm_type']}"
    return fmt_bin(v)


def hierarchy(name: str, lang: str) -> None:
    g = gpu(name)
    rows = hierarchy_rows(name)
    st.markdown(t("hardware.hier_lead", lang, gpu=f"{g['name']} ({g['variant']})"))
    df = pd.DataFrame({
        t("hardware.col_level", lang): [t(f"hardware.level_{r['level']}", lang) for r in rows],
        t("hardware.col_per_sm", lang): [_capacity(r, g, "per_sm") for r in rows],
        t("hardware.col_total", lang, sms=g["sms"]): [_capacity(r, g, "total") for r in rows],
        t("hardware.col_bandwidth", lang): [fmt_si(r["bandwidth"], "B/s") if r["bandwidth"] else "—" for r in rows],
        t("hardware.col_holds", lang): [t(f"hardware.holds_{r['level']}", lang) for r in rows],
    })
    st.dataframe(df, hide_index=True, key=f"{NS}.hw_table")
    regs, smem = rows[0]["per_sm"], rows[1]["per_sm"]
    st.markdown(t("hardware.explain", lang, regs=regs // 1024, smem=smem // 1024, ratio=f"{capacity_ratio(name):,.0f}",
                  hbm=fmt_si(g["hbm_bytes"])))
    if g["sram_bw"]:
        st.markdown(t("hardware.explain_bw", lang, sram=fmt_si(g["sram_bw"], "B/s"), hbm=fmt_si(g["hbm_bw"], "B/s"),
                      x=f"{g['sram_bw'] / g['hbm_bw']:.0f}"))
    src = " · ".join(g["sources"]) + (f" · {g['other']}" if g["other"] else "")
    st.caption(t("hardware.sources", lang, src=src, tuning=g["source"]))
    st.session_state[f"{NS}.hw_view"] = dict(gpu=name, rows=rows, ridge=g["peak_fp16"] / g["hbm_bw"])   # tests


def memory_bound(name: str, tcfg: TilingConfig, dtype: str, lang: str) -> None:
    r = naive_memory_bound(name, tcfg)
    fa2 = model_points(tcfg)["fa2"]
    st.markdown(t("hardware.mb_explain", lang, n=tcfg.n, d=tcfg.d, dtype=dtype, bh=tcfg.batch * tcfg.heads,
                  flops=fmt_si(r["flops"], "FLOP"), bytes=fmt_si(r["bytes"]), share=f"{100 * r['nn_share']:.0f}",
                  i=f"{r['intensity']:.1f}", ridge=f"{r['ridge']:.0f}", gpu=gpu(name)["name"],
                  tm=fmt_time(r["t_memory"]), tc=fmt_time(r["t_compute"]), ratio=f"{r['ratio']:.1f}",
                  bound=t(f"hardware.bound_{r['bound']}", lang), i2=f"{fa2.intensity:.1f}"))
    if tcfg.causal:
        st.caption(t("hardware.mb_causal", lang, flops=fmt_si(r["flops"], "FLOP"), useful=fmt_si(r["useful"], "FLOP")))
    if tcfg.elem_bytes == 4:
        st.caption(t("hardware.fp32_note", lang))
    st.session_state[f"{NS}.mb_view"] = r


def formula_bytes(c: dict) -> tuple[int, int]:
    """(formula, compulsory) bytes of one recorded call: naive as kernels/naive.py runs it (scale, QK^T, mask
    when causal, softmax, PV), the flash kernels by the FA2 schedule at the kernel's own Br, Bc."""
    n, d, e, bh = c["n"], c["d"], ELEM.get(c["dtype"], 2), c["batch"] * c["heads"]
    least = fused_compulsory_bytes(n, d, e) * bh
    if c["impl"] == "naive":
        return sum(s["reads"] + s["writes"] for s in unfused_stages(n, d, e, mask=c["causal"])) * bh, least
    cfg = make_config(n, d, br=min(c["block_m"], n), bc=min(c["block_n"], n), elem_bytes=e, causal=c["causal"])
    return Schedule(cfg, "fa2").totals().total_bytes * bh, least


def measured_bytes(tcfg: TilingConfig, slug: str, lang: str) -> None:
    recs = hbm_recordings()
    if not recs:
        bh, e = tcfg.batch * tcfg.heads, tcfg.elem_bytes
        naive = sum(s["reads"] + s["writes"] for s in unfused_stages(tcfg.n, tcfg.d, e, mask=tcfg.causal)) * bh
        fa2 = Schedule(tcfg, "fa2").totals().total_bytes * bh
        least = fused_compulsory_bytes(tcfg.n, tcfg.d, e) * bh
        c = st.columns(3)
        c[0].metric(t("hardware.f_naive", lang), fmt_si(naive), help=t("hardware.f_naive_help", lang))
        c[1].metric(t("hardware.f_fa2", lang, br=tcfg.br, bc=tcfg.bc), fmt_si(fa2))
        c[2].metric(t("hardware.f_least", lang), fmt_si(least))
        st.caption(t("hardware.f_per_call", lang, bh=bh))
        st.info(t("hardware.hbm_none", lang), icon=":material/pending:")
        st.code("python -m flashviz.bench --preset h200-hbm --out assets/hbm/nvidia-h200-hbm.json", language="bash")
        st.session_state[f"{NS}.hbm_view"] = dict(rows=None, formula=dict(naive=naive, fa2=fa2, least=least))
        return
    ds = recs[0]
    cells = hbm_dataset.matching_cells(ds, n=tcfg.n, d=tcfg.d, causal=tcfg.causal)
    p = ds["provenance"]
    st.caption(t("hardware.hbm_source", lang, device=p["device_name"], date=p["created_utc"][:10],
                 commit=str(p["git_commit"])[:10], ncu=p.get("ncu_version") or "?", cmd=p["command"]))
    if not cells:
        have = ", ".join(f"N={n} d={d}{' causal' if c else ''}" for n, d, c in hbm_dataset.recorded_configs(ds))
        st.info(t("hardware.hbm_other", lang, have=have), icon=":material/info:")
        st.session_state[f"{NS}.hbm_view"] = dict(rows=[])
        return
    rows = []
    for c in cells:
        formula, least = formula_bytes(c)
        writes = c["write_bytes"] + c["flush_write_bytes"]
        rows.append(dict(impl=c["impl"], formula=formula, least=least, measured=c["read_bytes"] + writes,
                         measured_reads=c["read_bytes"], measured_writes=writes, kernels=len(c["kernels"]),
                         bh=c["batch"] * c["heads"], br=c["block_m"], bc=c["block_n"]))
    fig = shared_figure("hardware.hbm_bytes", (fingerprint(rows), lang), lambda: charts.hbm_bytes_figure(rows, lang))
    chart(fig, "hbm_bytes", slug, key=f"{NS}.hbm_bytes",
          meta={"dataset": {"device": p["device_name"], "created_utc": p["created_utc"], "commit": p["git_commit"],
                            "command": p["command"]}})
    df = pd.DataFrame({
        t("hardware.col_impl", lang): [r["impl"] for r in rows],
        t("hardware.col_kernels", lang): [r["kernels"] for r in rows],
        t("hardware.col_formula", lang): [f"{r['formula'] / 1e6:,.2f} MB" for r in rows],
        t("hardware.col_reads", lang): [f"{r['measured_reads'] / 1e6:,.2f} MB" for r in rows],
        t("hardware.col_writes", lang): [f"{r['measured_writes'] / 1e6:,.2f} MB" for r in rows],
        t("hardware.col_ratio", lang): [f"{r['measured'] / r['formula']:.2f}×" for r in rows],
        t("hardware.col_least", lang): [f"{r['least'] / 1e6:,.2f} MB" for r in rows],
    })
    st.dataframe(df, hide_index=True, key=f"{NS}.hbm_table")
    c0 = cells[0]
    kv = 2 * c0["n"] * c0["d"] * ELEM.get(c0["dtype"], 2)
    qkv = {c["impl"]: 3 * c["n"] * c["d"] * ELEM.get(c["dtype"], 2) * c["batch"] * c["heads"] for c in cells}
    once = {r["impl"]: r["measured_reads"] / qkv[r["impl"]] for r in rows if r["impl"] != "naive"}
    st.markdown(t("hardware.hbm_explain", lang, bh=rows[0]["bh"], kv=fmt_si(kv), l2=fmt_bin(ds["method"]["l2_bytes"]),
                  flush=fmt_bin(ds["method"]["flush_read_bytes"]),
                  once=", ".join(f"{k} {v:.2f}×" for k, v in once.items()) or "—"))
    st.session_state[f"{NS}.hbm_view"] = dict(rows=rows, reads_over_qkv=once)
