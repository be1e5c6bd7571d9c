"""Blocks page lessons that tie the pages together: kernel fusion and dropout's Philox mask, causal alignment
when Nq != Nk, and the size of the N x N score matrix next to what the flash kernel keeps.

Thin: numbers from flashviz.engine.lessons (and flashviz.engine.tiling for the fused kernel's traffic), figures from
charts/lessons.py, strings from i18n/lessons.py. Called from ui/blocks.py once the configuration is valid;
each lesson sits in its own closed expander.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from flashviz.charts import lessons as charts
from flashviz.engine.hardware import HARDWARE
from flashviz.i18n import t
from flashviz.engine.lessons import (ALIGNS, alignment_summary, dropout_state_bytes, flash_kept_bytes,
                                     fused_compulsory_bytes, score_matrix_bytes, size_examples, unfused_stages)
from flashviz.engine.tiling import MAX_GRID_CELLS, Schedule, TilingConfig
from flashviz.ui import state
from flashviz.infra.cache import MiB, fingerprint, memo
from flashviz.ui.common import chart, shared_figure, shown_errors
from flashviz.ui.config import DTYPE_SHORT, Config

NS = "blocks"
MAX_ALIGN_CELLS = 128 * 128            # blocks drawn per alignment panel
MAX_ALIGN_N = 1 << 16


def fmt_bin(b: float) -> str:
    for div, u in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if b >= div:
            return f"{b / div:,.4g} {u}"
    return f"{b:,.0f} B"


@memo("blocks.fused_bytes", 1 * MiB)
def fused_bytes(tcfg: TilingConfig) -> int:
    """HBM bytes of the fused FA2 kernel at this configuration (the whole schedule, once per configuration)."""
    return Schedule(tcfg, "fa2").totals().total_bytes


def fusion(cfg: Config, tcfg: TilingConfig, slug: str, lang: str) -> None:
    st.markdown(t("lessons.fusion_intro", lang))
    dropout = st.toggle(t("lessons.with_dropout", lang), **state.kept(f"{NS}.dropout", True))
    n, d, e = tcfg.n, tcfg.d, tcfg.elem_bytes
    stages = unfused_stages(n, d, e, mask=tcfg.causal, dropout=dropout)
    fused = fused_bytes(tcfg)
    least = fused_compulsory_bytes(n, d, e)
    fig = shared_figure("blocks.fusion", (tcfg, bool(dropout), lang), lambda: charts.fusion_figure(stages, fused, lang))
    chart(fig, "fusion", slug + ("_dropout" if dropout else ""), key=f"{NS}.fusion")
    total = sum(s["reads"] + s["writes"] for s in stages)
    st.markdown(t("lessons.fusion_explain", lang, k=len(stages), total=fmt_bin(total), fused=fmt_bin(fused),
                  least=fmt_bin(least), br=tcfg.br, bc=tcfg.bc, ratio=f"{total / fused:,.1f}"))
    ds = dropout_state_bytes(n, tcfg.batch, tcfg.heads)
    st.markdown(t("lessons.dropout_explain", lang, n=n, b=tcfg.batch, h=tcfg.heads, cells=f"{ds['elements']:,}",
                  bool_b=fmt_bin(ds["bool_bytes"]), bit_b=fmt_bin(ds["bit_bytes"]), philox=ds["philox_bytes"]))
    st.session_state[f"{NS}.fusion_view"] = dict(stages=stages, fused=fused, least=least, dropout=ds)


def alignment(cfg: Config, tcfg: TilingConfig, slug: str, lang: str) -> None:
    st.markdown(t("lessons.align_intro", lang))
    a, b = st.columns(2)
    a.number_input(t("lessons.nq", lang), min_value=1, max_value=MAX_ALIGN_N, step=1,
                   **state.kept(f"{NS}.nq", max(1, cfg.n // 2)))
    b.number_input(t("lessons.nk", lang), min_value=1, max_value=MAX_ALIGN_N, step=1,
                   **state.kept(f"{NS}.nk", cfg.n))
    nq, nk = int(st.session_state[f"{NS}.nq"]), int(st.session_state[f"{NS}.nk"])
    br, bc = min(tcfg.br, nq), min(tcfg.bc, nk)
    if -(-nq // br) * -(-nk // bc) > MAX_GRID_CELLS:
        st.info(t("lessons.align_way_too_big", lang, tr=-(-nq // br), tc=-(-nk // bc)), icon=":material/grid_off:")
        st.session_state[f"{NS}.align_view"] = None
        return
    summ = {al: alignment_summary(nq, nk, br, bc, al) for al in ALIGNS}
    cells = summ["top_left"]["tr"] * summ["top_left"]["tc"]
    if cells > MAX_ALIGN_CELLS:
        st.info(t("lessons.align_too_big", lang, tr=summ["top_left"]["tr"], tc=summ["top_left"]["tc"],
                  cap=MAX_ALIGN_CELLS), icon=":material/grid_off:")
    else:
        fig = shared_figure("blocks.alignment", (nq, nk, br, bc, lang),
                            lambda: charts.alignment_figure(nq, nk, br, bc, lang))
        chart(fig, "causal_alignment", f"{slug}_Nq{nq}_Nk{nk}", key=f"{NS}.alignment")
    tl, brt = summ["top_left"], summ["bottom_right"]
    st.markdown(t("lessons.align_explain", lang, nq=nq, nk=nk, off=nk - nq, br=br, bc=bc,
                  tl_full=tl["full"], tl_part=tl["masked"], tl_empty=tl["skipped"], tl_pairs=f"{tl['visible_pairs']:,}",
                  br_full=brt["full"], br_part=brt["masked"], br_empty=brt["skipped"],
                  br_pairs=f"{brt['visible_pairs']:,}"))
    if brt["dead_rows"]:
        st.caption(t("lessons.align_dead", lang, k=brt["dead_rows"]))
    if tl["hidden_keys"]:
        st.caption(t("lessons.align_hidden", lang, k=tl["hidden_keys"]))
    st.session_state[f"{NS}.align_view"] = dict(nq=nq, nk=nk, br=br, bc=bc, summary=summ)


def sizes(cfg: Config, tcfg: TilingConfig, slug: str, lang: str) -> None:
    rows = size_examples(d=128, elem_bytes=2)
    cur = dict(n=tcfg.n, heads=tcfg.heads, scores=score_matrix_bytes(tcfg.n, tcfg.heads, tcfg.elem_bytes, tcfg.batch),
               kept=flash_kept_bytes(tcfg.n, tcfg.d, tcfg.heads, tcfg.elem_bytes, tcfg.batch))
    cur["ratio"] = cur["scores"] / cur["kept"]
    df = pd.DataFrame({
        t("lessons.col_case", lang): [t("lessons.case_example", lang, n=f"{r['n']:,}", h=r["heads"]) for r in rows]
        + [t("lessons.case_current", lang, n=f"{tcfg.n:,}", b=tcfg.batch, h=tcfg.heads, d=tcfg.d,
             dtype=DTYPE_SHORT.get(cfg.dtype, cfg.dtype))],
        t("lessons.col_scores", lang): [fmt_bin(r["scores"]) for r in [*rows, cur]],
        t("lessons.col_kept", lang): [fmt_bin(r["kept"]) for r in [*rows, cur]],
        t("lessons.col_ratio", lang): [f"{r['ratio']:,.0f}×" for r in [*rows, cur]],
    })
    st.dataframe(df, hide_index=True, key=f"{NS}.size_table")
    fig = shared_figure("blocks.sizes", (fingerprint(rows), lang), lambda: charts.sizes_figure(rows, lang))
    chart(fig, "score_matrix_sizes", "examples_d128_fp16", key=f"{NS}.sizes")
    big = rows[-1]
    hbm = max(HARDWARE.values(), key=lambda g: g["hbm_bytes"])
    gpu_name = next(k for k, g in HARDWARE.items() if g is hbm)
    st.markdown(t("lessons.size_explain", lang, s0=fmt_bin(rows[0]["scores"]), s1=fmt_bin(rows[1]["scores"]),
                  s2=fmt_bin(big["scores"]), k2=fmt_bin(big["kept"]), gpu=gpu_name,
                  hbm=f"{hbm['hbm_bytes'] / 1e9:,.0f} GB", times=f"{big['scores'] / hbm['hbm_bytes']:,.1f}"))
    st.session_state[f"{NS}.size_view"] = dict(rows=rows, current=cur)


def render(cfg: Config, tcfg: TilingConfig, slug: str, lang: str) -> None:
    """Each lesson in its own expander (closed: the page's one idea stays above the fold)."""
    with st.expander(t("lessons.fusion_header", lang)), shown_errors(lang, where="kernel fusion"):
        fusion(cfg, tcfg, slug, lang)
    with st.expander(t("lessons.align_header", lang)), shown_errors(lang, where="causal alignment"):
        alignment(cfg, tcfg, slug, lang)
    with st.expander(t("lessons.size_header", lang)), shown_errors(lang, where="score matrix sizes"):
        sizes(cfg, tcfg, slug, lang)
