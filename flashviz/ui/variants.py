"""Page "Variants": sliding windows, softcap, ALiBi, GQA and packed documents on the block schedule and on one row.

Thin: this page's controls (N, Br, Bc, the variant, the tracked row, B, H) go to the numpy engine flashviz.engine.variants
(block map, FLOPs and HBM bytes vs dense, GQA's K/V bytes) and online_softmax.variant_trace (one row), whose results
go to charts/variants.py; the recorded measurements (assets/benchmarks/variants/*.json, written by
`python -m flashviz.bench --preset h200-variants`, validated by flashviz.bench.variants_dataset, never executed)
go to a table and a chart with their provenance. The page opens on the block map and what it saves; the controls,
the row, the savings, GQA and the recording are behind expanders. The shared sidebar gives d, dtype and seed. Strings:
flashviz/i18n/variants.py. Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd
import streamlit as st

from flashviz.engine import variants as engine
from flashviz.bench.variants_dataset import (fullest_first, list_variants_datasets, load_variants_dataset,
                                             window_account)
from flashviz.infra.cache import MiB, fingerprint, freeze, memo
from flashviz.charts import variants as charts
from flashviz.charts.common import fmt_num
from flashviz.infra.errors import InputError, check_int
from flashviz.i18n import t
from flashviz.engine.online_softmax import make_qkv, variant_trace
from flashviz.ui import pages, state, steps
from flashviz.ui.common import chart, committed_recordings, config_ok, shared_figure, shown_errors
from flashviz.infra.units import ELEM_BYTES, fmt_bytes

NS = "variants"
FIELDS = ("d", "dtype", "seed")
DEFAULTS = dict(n=256, br=32, bc=32, causal=True, use_window=True, left=64, right=0, use_softcap=False, softcap=1.0,
                alibi=False, heads=8, group=1, use_docs=False, docs="96 64 96", row=200, head=0, batch=4, dataset=None,
                mn=None)
MAX_N = 8192
COMMAND = "python -m flashviz.bench --preset h200-variants --budget-s 480 --quiet"


def _kept(name: str) -> dict:
    return state.kept(f"{NS}.{name}", DEFAULTS[name])


def _val(name: str):
    return st.session_state.get(f"{NS}.{name}", DEFAULTS[name])


def parse_doc_lens(text: str) -> tuple[int, ...]:
    """'96 64, 96' -> (96, 64, 96); a token that is not a whole number is an InputError."""
    out = []
    for tok in (x for x in re.split(r"[,\s;]+", str(text).strip()) if x):
        if not re.fullmatch(r"-?\d+", tok):
            raise InputError(key="errors.doc_lens_text", tok=tok)
        out.append(int(tok))
    return tuple(out)


# ----------------------------------------------------------------------------- cached engine and data

@st.cache_resource(max_entries=32, show_spinner=False)
def cached_costs(v: engine.Variant, n: int, d: int, br: int, bc: int, batch: int, elem: int) -> dict:
    """Read-only: block map and costs of one configuration, shared by every session (its arrays frozen)."""
    return freeze(engine.variant_costs(v, n, d, br, bc, batch=batch, elem_bytes=elem))


@memo("variants.row", 32 * MiB)
def cached_rows(v: engine.Variant, n: int, d: int, seed: int, row: int, bc: int, head: int):
    """(plain, variant) traces of query row `row` on the seeded Q, K, V: computed once per configuration, shared
    read-only by every session (not on every rerun)."""
    q, k, vv = make_qkv(n, d, seed)
    plain = variant_trace(q, k, vv, row, bc)
    var = variant_trace(q, k, vv, row, bc, head=head, causal=v.causal, window=v.window, softcap=v.softcap,
                        alibi_slopes=v.slopes, seq_ids=v.seq_ids(n))
    return plain, var


def variants_datasets(lang: str) -> dict[str, dict]:
    return fullest_first(committed_recordings(list_variants_datasets(), load_variants_dataset, lang,
                                              "variants.bad_file"))


# ----------------------------------------------------------------------------- the variant: widgets and values

def variant_widgets(lang: str) -> None:
    """Every control of the variant (drawn in an expander under the picture; the picture reads their values)."""
    c = st.columns(4)
    c[0].number_input("N", step=16, help=t("variants.n_help", lang, hi=MAX_N), **_kept("n"))
    c[1].number_input("Br", step=8, help=t("variants.br_help", lang), **_kept("br"))
    c[2].number_input("Bc", step=8, help=t("variants.bc_help", lang), **_kept("bc"))
    c[3].toggle(t("variants.causal", lang), help=t("variants.causal_help", lang), **_kept("causal"))
    c = st.columns(4, vertical_alignment="bottom")
    c[0].toggle(t("variants.use_window", lang), **_kept("use_window"))
    c[1].number_input(t("variants.left", lang), step=1, help=t("variants.lr_help", lang), **_kept("left"),
                      disabled=not _val("use_window"))
    c[2].number_input(t("variants.right", lang), step=1, help=t("variants.lr_help", lang), **_kept("right"),
                      disabled=not _val("use_window"))
    c[3].toggle(t("variants.alibi", lang), help=t("variants.alibi_help", lang), **_kept("alibi"))
    c = st.columns(4, vertical_alignment="bottom")
    c[0].toggle(t("variants.use_softcap", lang), **_kept("use_softcap"))
    c[1].number_input(t("variants.softcap", lang), step=0.5, format="%.2f", help=t("variants.softcap_help", lang),
                      disabled=not _val("use_softcap"), **_kept("softcap"))
    c[2].number_input(t("variants.heads", lang), step=1, help=t("variants.heads_help", lang), **_kept("heads"))
    c[3].number_input(t("variants.group", lang), step=1, help=t("variants.group_help", lang), **_kept("group"))
    c = st.columns([1, 2, 1], vertical_alignment="bottom")
    c[0].toggle(t("variants.use_docs", lang), **_kept("use_docs"))
    c[1].text_input(t("variants.docs", lang), help=t("variants.docs_help", lang), disabled=not _val("use_docs"),
                    **_kept("docs"))
    c[2].number_input(t("variants.batch", lang), step=1, help=t("variants.batch_help", lang), **_kept("batch"))


def read_variant() -> tuple[engine.Variant, int, int, int, int]:
    """(variant, N, Br, Bc, B) from the page's values; bad input raises InputError (shown as a message)."""
    n = check_int("N", _val("n"), 16, MAX_N)
    br, bc = check_int("block size Br", _val("br"), 1, n), check_int("block size Bc", _val("bc"), 1, n)
    batch = check_int("batch B", _val("batch"), 1, 1024)
    v = engine.make_variant(
        causal=bool(_val("causal")), window=(_val("left"), _val("right")) if _val("use_window") else None,
        softcap=_val("softcap") if _val("use_softcap") else None, alibi=bool(_val("alibi")), heads=_val("heads"),
        group=_val("group"), doc_lens=parse_doc_lens(_val("docs")) if _val("use_docs") else None, n=n)
    return v, n, br, bc, batch


def label(v: engine.Variant, lang: str) -> str:
    parts = [t("variants.l_causal", lang)] if v.causal else []
    if v.window is not None:
        parts.append(t("variants.l_window", lang, left=v.window[0], right=v.window[1]))
    if v.softcap is not None:
        parts.append(t("variants.l_softcap", lang, c=f"{v.softcap:g}"))
    if v.alibi:
        parts.append("ALiBi")
    if v.group > 1:
        parts.append(t("variants.l_gqa", lang, hkv=v.kv_heads))
    if v.doc_lens is not None:
        parts.append(t("variants.l_docs", lang, k=len(v.doc_lens)))
    return " + ".join(parts) or t("variants.l_dense", lang)


# ----------------------------------------------------------------------------- the opening: which blocks run

def _name(v, n, br, bc) -> str:
    return f"N{n}_Br{br}_Bc{bc}_{re.sub(r'[^A-Za-z0-9]+', '-', label(v, 'en'))}"


def opening(v, n, br, bc, batch, cfg, lang: str) -> dict:
    """The block map, what runs and what it saves, one caption on what is shown."""
    costs = cached_costs(v, n, cfg.d, br, bc, batch, ELEM_BYTES[cfg.dtype])
    bm = costs["blocks"]
    a, b = st.columns([3, 2])
    with a:
        fig = shared_figure("variants.map", (v, n, br, bc, lang),
                            lambda: charts.block_map_figure(bm, lang, label=label(v, lang)))
        chart(fig, "variants_blocks", _name(v, n, br, bc), key=f"{NS}.map",
              meta=dict(variant=label(v, "en"), n=n, br=br, bc=bc))
    runs = bm.run_per_row
    with b:
        st.markdown(t("variants.map_text", lang, run=int(bm.run.sum()), total=bm.tr * bm.tc, skipped=bm.count("skipped"),
                      partial=bm.count("partial"), full=bm.count("full"), lo=int(runs.min()), hi=int(runs.max()),
                      tc=bm.tc))
        c = st.columns(2)
        c[0].metric(t("variants.met_flops", lang), f"{100 * costs['executed_flops'] / costs['dense_flops']:.1f} %")
        c[1].metric(t("variants.met_bytes", lang), f"{100 * costs['variant_bytes'] / costs['dense_bytes']:.1f} %",
                    help=t("variants.met_bytes_help", lang))
        st.caption(t("variants.same_blocks", lang))
        st.caption(t("variants.shown", lang, label=label(v, lang), n=n, br=br, bc=bc))
    return costs


def savings_section(v, n, br, bc, batch, costs: dict, cfg, lang: str) -> None:
    st.caption(t("variants.cost_text", lang, b=batch, h=v.heads, d=cfg.d, dtype=cfg.dtype,
                 dense=f"{costs['dense_flops'] / 1e9:,.2f}", exec=f"{costs['executed_flops'] / 1e9:,.2f}",
                 useful=f"{costs['useful_flops'] / 1e9:,.2f}", dbytes=fmt_bytes(costs["dense_bytes"]),
                 vbytes=fmt_bytes(costs["variant_bytes"])))
    fig = shared_figure("variants.savings", (v, n, cfg.d, br, bc, batch, ELEM_BYTES[cfg.dtype], lang),
                        lambda: charts.savings_figure(costs, lang))
    chart(fig, "variants_savings", _name(v, n, br, bc), key=f"{NS}.savings")
    pages.link("blocks", lang, label=t("variants.link_blocks", lang))


# ----------------------------------------------------------------------------- section 3: one row

def row_section(v, n, bc, cfg, lang: str) -> None:
    a, b = st.columns([3, 1])
    st.session_state[f"{NS}.row"] = min(max(int(_val("row") or 0), 0), n - 1)
    a.slider(t("variants.row", lang), 0, n - 1, **_kept("row"))
    if v.alibi:
        st.session_state[f"{NS}.head"] = min(max(int(_val("head") or 0), 0), v.heads - 1)
        b.number_input(t("variants.head", lang), min_value=0, max_value=v.heads - 1, step=1, **_kept("head"))
    row, head = int(_val("row")), int(_val("head")) if v.alibi else 0
    rows_key = (v, n, cfg.d, cfg.seed, row, bc, head)
    plain, var = cached_rows(*rows_key)
    lo = int(np.argmax(np.isfinite(var.scores))) if np.isfinite(var.scores).any() else n
    empty = int(np.sum(var.tile_max == -np.inf))
    lines = [t("variants.row_tiles", lang, row=row, tc=var.steps, empty=empty, lo=lo,
               vis=int(np.isfinite(var.scores).sum()), resc=int(var.rescaled.sum()), resc0=int(plain.rescaled.sum()))]
    if v.softcap is not None:
        lines.append(t("variants.row_softcap", lang, c=f"{v.softcap:g}", m=fmt_num(float(np.max(var.m))),
                       m0=fmt_num(float(np.max(plain.m)))))
    if v.alibi:
        keys = np.flatnonzero(np.isfinite(var.scores))
        dist = int(np.max(np.abs(row - keys))) if keys.size else 0
        slope = float(v.slopes[head])
        lines.append(t("variants.row_alibi", lang, h=head, s=f"{slope:.6g}", dist=dist, drop=fmt_num(slope * dist)))
    if v.group > 1:
        lines.append(t("variants.row_gqa", lang, g=v.group, h=head, kv=head // v.group))
    lines.append(t("variants.row_err", lang, err=f"{var.error(var.steps - 1):.1e}"))
    st.markdown("\n".join(f"- {x}" for x in lines))
    interval = steps.autoplay_controls(f"{NS}.steps", lang)
    name = f"row{row}_Bc{bc}"
    meta = dict(variant=label(v, "en"), row=row, head=head)
    steps.stepped(f"{NS}.steps", var.steps, lang, functools.partial(row_step, plain, var, v.softcap, name, meta, lang,
                                                                    key=rows_key), interval=interval)
    pages.link("stepper", lang, label=t("variants.link_stepper", lang))


def row_step(plain, var, softcap, name: str, meta: dict, lang: str, step: int, key: tuple | None = None) -> None:
    """Tile `step` of the row: the chart up to it, its numbers, the table of the tiles so far. `key`: the
    arguments of cached_rows that made the traces (the chart is then built once per process and step)."""
    st.markdown(t("variants.step_text", lang, s=step + 1, tc=var.steps, a=int(var.start[step]),
                  b=int(var.stop[step]) - 1, tmax=fmt_num(float(var.tile_max[step])), m=fmt_num(float(var.m[step])),
                  alpha=fmt_num(float(var.alpha[step])), l=fmt_num(float(var.l[step]))))
    fig = shared_figure("variants.row", (key or fingerprint(plain, var), softcap, step, lang),
                        lambda: charts.row_figure(plain, var, lang, softcap=softcap, step=step))
    chart(fig, "variants_row", f"{name}_tile{step + 1}", key=f"{NS}.row_chart", meta=meta)
    k = step + 1
    st.dataframe(pd.DataFrame({t("variants.col_tile", lang): np.arange(1, k + 1),
                               t("variants.col_keys", lang): [f"{a}–{b - 1}" for a, b in zip(var.start[:k], var.stop[:k])],
                               t("variants.col_tmax", lang): [fmt_num(float(x)) for x in var.tile_max[:k]],
                               "m": [fmt_num(float(x)) for x in var.m[:k]],
                               "α": [fmt_num(float(x)) for x in var.alpha[:k]],
                               "ℓ": [fmt_num(float(x)) for x in var.l[:k]]}), hide_index=True, key=f"{NS}.row_table")


# ----------------------------------------------------------------------------- section 4: GQA

def gqa_section(v, costs: dict, lang: str) -> None:
    c = st.columns(3)
    c[0].metric(t("variants.met_cache_mha", lang), fmt_bytes(costs["kv_cache_mha"]))
    c[1].metric(t("variants.met_cache_gqa", lang, hkv=v.kv_heads), fmt_bytes(costs["kv_cache_gqa"]))
    c[2].metric(t("variants.met_reads", lang), fmt_bytes(costs["kv_reads_shared"]))
    if v.group == 1:
        st.markdown(t("variants.gqa_none", lang, h=v.heads, per=fmt_bytes(costs["kv_reads_per_head"])))
    else:
        st.markdown(t("variants.gqa_text", lang, h=v.heads, hkv=v.kv_heads, g=v.group,
                      ratio=f"{costs['kv_cache_mha'] / costs['kv_cache_gqa']:g}",
                      per=fmt_bytes(costs["kv_reads_per_head"]), shared=fmt_bytes(costs["kv_reads_shared"])))
    fig = shared_figure("variants.gqa", (fingerprint({k: costs[k] for k in sorted(costs) if k != "blocks"}), v.group,
                                         lang), lambda: charts.gqa_figure(costs, v.group, lang))
    chart(fig, "variants_gqa", f"H{v.heads}_Hkv{v.kv_heads}", key=f"{NS}.gqa")
    pages.link("decoding", lang, label=t("variants.link_decoding", lang))


# ----------------------------------------------------------------------------- section 5: the recording

def _num(x, fmt: str) -> str:
    return "—" if x is None else format(x, fmt)


def measured_table(cells: list[dict], n: int, lang: str) -> pd.DataFrame:
    rows = []
    for c in (c for c in cells if c["n"] == n):
        rows.append({t("variants.col_variant", lang): t(f"variants.v_{c['variant']}", lang), "impl": c["impl"],
                     t("variants.col_status", lang): c["status"], "ms": _num(c["ms"], ".3f"),
                     t("variants.col_tf_useful", lang): _num(c["tflops_useful"], ".1f"),
                     t("variants.col_tf_exec", lang): _num(c["tflops_executed"], ".1f"),
                     t("variants.col_tiles", lang): "—" if c["tiles"] is None else " × ".join(map(str, c["tiles"])),
                     t("variants.col_vs_flex", lang): _num(c["speedup_vs_flex"], ".2f"),
                     t("variants.col_vs_fa4", lang): _num(c.get("speedup_vs_fa4"), ".2f"),
                     t("variants.col_new_ids", lang): _num(c.get("ms_new_ids"), ".3f"),
                     t("variants.col_compile", lang): _num(c["compile_s"], ".1f"),
                     t("variants.col_err", lang): _num(c["rel_err"], ".1e"),
                     t("variants.col_msg", lang): c["message"] or ""})
    return pd.DataFrame(rows)


def recorded_section(datasets: dict[str, dict], lang: str) -> None:
    if not datasets:
        st.info(t("variants.no_recording", lang), icon=":material/folder_off:")
        st.code(COMMAND, language="bash", wrap_lines=True)
        return
    ss = st.session_state
    if ss.get(f"{NS}.dataset") not in datasets:
        ss[f"{NS}.dataset"] = next(iter(datasets))
    ds = datasets[ss[f"{NS}.dataset"]]
    ns = sorted({c["n"] for c in ds["cells"]})
    if ss.get(f"{NS}.mn") not in ns:
        ss[f"{NS}.mn"] = ns[-1]
    a, b = st.columns([3, 2])
    a.selectbox(t("variants.dataset", lang), list(datasets), **state.kept(f"{NS}.dataset", next(iter(datasets))))
    b.segmented_control("N", ns, required=True, format_func=lambda x: f"{x:,}", **state.kept(f"{NS}.mn", ns[-1]))
    n = int(ss[f"{NS}.mn"])
    cfg, p = ds["config"], ds["provenance"]
    st.caption(t("variants.rec_shape", lang, b=cfg["batch"], h=cfg["heads"], d=cfg["d"], dtype=cfg["dtype"],
                 w=cfg["window"], c=f"{cfg['softcap']:g}", hkv=cfg["kv_heads"]))
    fig = shared_figure("variants.measured", (fingerprint(ds["cells"]), n, lang),
                        lambda: charts.measured_figure(ds["cells"], lang, n=n))
    chart(fig, "variants_measured", f"{ss[f'{NS}.dataset']}_N{n}",
          key=f"{NS}.measured", meta=dict(source="recorded dataset", dataset=ss[f"{NS}.dataset"], provenance=p,
                                          config=cfg))
    st.dataframe(measured_table(ds["cells"], n, lang), hide_index=True, key=f"{NS}.rec_table")
    if (acc := window_account(ds, n)) is not None:                 # pairs saved vs tiles saved vs time saved
        st.markdown(t("variants.window_account", lang, w=cfg["window"], n=f"{n:,}", speed=f"{acc['speedup']:.2f}",
                      useful=f"{acc['useful']:.2f}", exec=f"{acc['executed']:.2f}", br=acc["tiles"][0],
                      bc=acc["tiles"][1], eff=f"{acc['efficiency']:.0%}"))
    with st.container(border=True):
        st.caption(t("variants.prov", lang, device=p["device_name"], torch=p["torch"], triton=p.get("triton") or "—",
                     date=p["created_utc"], commit=p["git_commit"], timer=p["timer"]))
        st.code(p["command"], language="bash", wrap_lines=True)
    pages.link("speed", lang, label=t("variants.link_speed", lang))


# ----------------------------------------------------------------------------- the page

def render() -> None:
    lang, cfg = state.page_start(NS, fields=FIELDS)
    if not config_ok(cfg, NS, lang):
        return
    chosen = costs = None
    with shown_errors(lang, where="variant"):
        chosen = read_variant()
    if chosen is not None:
        v, n, br, bc, batch = chosen
        with shown_errors(lang, where="block map"):
            costs = opening(v, n, br, bc, batch, cfg, lang)
    else:
        st.info(t("variants.fix_input", lang), icon=":material/edit:")
    with st.expander(t("variants.cfg_header", lang), expanded=chosen is None):
        variant_widgets(lang)
    if chosen is None:
        return
    with st.expander(t("variants.row_header", lang)), shown_errors(lang, where="one row"):
        row_section(v, n, bc, cfg, lang)
    if costs is not None:
        with st.expander(t("variants.save_header", lang)), shown_errors(lang, where="savings"):
            savings_section(v, n, br, bc, batch, costs, cfg, lang)
        with st.expander(t("variants.gqa_header", lang)), shown_errors(lang, where="gqa"):
            gqa_section(v, costs, lang)
    datasets = {}
    with shown_errors(lang, where="recorded datasets"):
        datasets = variants_datasets(lang)
    with st.expander(t("variants.rec_header", lang)), shown_errors(lang, where="recorded measurement"):
        recorded_section(datasets, lang)
