"""Page "Flash-decoding and paging": one query, keys split over W workers and merged; then a paged KV cache.

Opens on the number the idea rests on (a decode step's programs against the SMs, flashviz.engine.decoding.decode_grid)
and the split-and-merge picture; the merge worker by worker, the grid at other batch sizes and the paged cache are
behind expanders named for their reader.

Thin: the shared configuration (ui/state.py) gives the query row (seeded or typed scores, causal, masks, guard);
this page's own controls (W, tree merge; block size, free slots, shuffle seed) go to flashviz.engine.decoding, whose
results go to charts/blocks.py (decoding_figure, paged_figure). The paged walk is stepped with ui/steps.py.
Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from flashviz.infra.cache import MiB, fingerprint, memo
from flashviz.charts import blocks as charts
from flashviz.charts import palette as P
from flashviz.charts.common import fmt_num
from flashviz.engine.decoding import (DecodeResult, PagedResult, build_paged_cache, decode_grid, flash_decode,
                                      paged_attention)
from flashviz.infra.errors import check_int
from flashviz.i18n import t
from flashviz.engine.online_softmax import online_softmax_trace, parse_scores
from flashviz.engine.tiling import GPU_PRESETS
from flashviz.ui import state, steps
from flashviz.ui.common import chart, config_ok, shared_figure, shown_errors
from flashviz.ui.config import Config, inputs, row_problem

NS = "decoding"
PAGED_NS = "decoding.paged"          # step index of the paged walk
FIELDS = ("n", "d", "block_n", "causal", "dtype", "seed", "row", "masked", "scores", "guard")
DEFAULTS = dict(workers=4, tree=False, bs=4, free=3, pseed=0)
MAX_W = 64
TABLE_ROWS = 64
SAME_TOL = 1e-12                     # merged vs single pass: float64 rounding only
DECODE_B, DECODE_H, GPU = 1, 32, "H200"          # the decode step the page counts: one sequence, 32 heads
GRID_BATCHES, GRID_WORKERS = (1, 4, 16, 64), (1, 2, 4, 8)


def _kept(name: str) -> dict:
    return state.kept(f"{NS}.{name}", DEFAULTS[name])


def _val(name: str):
    return st.session_state.get(f"{NS}.{name}", DEFAULTS[name])


def _diff(a: np.ndarray, b: np.ndarray) -> float:
    with np.errstate(invalid="ignore"):
        return float(np.max(np.abs(a - b)))


def _shown(x: float) -> str:
    return "NaN" if math.isnan(x) else f"{x:.1e}"


# ----------------------------------------------------------------------------- engines (cached)

# Shared, not copied per session: the results can hold tens of MiB of per-tile arrays (unpickling a copy on every
# rerun cost more than drawing the page). flashviz.infra.cache makes their arrays read-only and bounds the bytes.
@memo("decoding.decode", 96 * MiB)
def cached_decode(cfg: Config, workers: int, tree: bool) -> DecodeResult:
    scores, values = row_problem(cfg)
    return flash_decode(scores, values, workers, tile_size=cfg.block_n, guard=cfg.guard, tree=tree)


@memo("decoding.paged", 96 * MiB)
def cached_paged(cfg: Config, bs: int, free: int, pseed: int) -> tuple[PagedResult, np.ndarray]:
    """The paged walk over the seeded K, V, and the contiguous loop's output (same tiles) to compare with."""
    cfg = replace(cfg, scores="")
    scores, values = row_problem(cfg)                 # the row's scores, -inf where masked
    q, k, v = inputs(cfg)
    bs, free = check_int("block size", bs, 1), check_int("free physical blocks", free, 0)
    cache = build_paged_cache(k, v, bs, seed=pseed, num_physical=-(-cfg.n // bs) + free)
    res = paged_attention(q[cfg.row], cache, masked=np.flatnonzero(np.isneginf(scores)).tolist(), guard=cfg.guard)
    contiguous = online_softmax_trace(scores, values, bs, guard=cfg.guard).output
    return res, contiguous


# ----------------------------------------------------------------------------- flash-decoding

def partials_table(res: DecodeResult, lang: str) -> pd.DataFrame:
    """One row per worker: its keys, (m_w, ℓ_w), its rescale into the merged max, share, the running merge."""
    m = res.merged.m
    with np.errstate(invalid="ignore", over="ignore"):
        alpha = [math.exp(p.m - m) if math.isfinite(m) and p.m != -math.inf else (0.0 if p.l == 0 else math.nan)
                 for p in res.partials]
    w = res.weights
    return pd.DataFrame({
        t("decoding.col_worker", lang): [f"W{k}" for k in range(res.workers)],
        t("decoding.col_keys", lang): [f"{a}–{b - 1}" for a, b in zip(res.start, res.stop)],
        t("decoding.col_m", lang): [fmt_num(p.m) for p in res.partials],
        t("decoding.col_l", lang): [fmt_num(p.l) for p in res.partials],
        t("decoding.col_alpha", lang): [fmt_num(a) for a in alpha],
        t("decoding.col_share", lang): [fmt_num(float(x)) for x in w],
        t("decoding.col_m_run", lang): [fmt_num(r.m) for r in res.running],
        t("decoding.col_l_run", lang): [fmt_num(r.l) for r in res.running],
    })


def _nan_red(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(np.where(df.to_numpy() == "NaN", f"color: {P.VERMILLION}; font-weight: bold;", ""),
                        index=df.index, columns=df.columns)


def _styled(df: pd.DataFrame):
    """NaN cells in red: a Styler only when there is a NaN to colour (a Styler costs a rerun ~5 ms and shows a
    table without NaN exactly as the plain one)."""
    return df.style.apply(_nan_red, axis=None) if (df.to_numpy() == "NaN").any() else df


def grid_line(workers: int, lang: str) -> None:
    """The one number the idea rests on: programs of a decode step against the SMs, without and with the split."""
    sms = GPU_PRESETS[GPU]["sms"]
    one, split = (decode_grid(DECODE_B, DECODE_H, GPU, workers=w) for w in (1, workers))
    more = t("decoding.grid_more", lang, waves=split.waves) if split.waves > 1 else ""    # only where it happens
    st.markdown(t("decoding.grid", lang, b=DECODE_B, h=DECODE_H, gpu=GPU, sms=sms, p1=one.programs,
                  s1=f"{100 * one.busy_share:.0f}", w=workers, pw=split.programs, sw=f"{100 * split.busy_share:.0f}",
                  more=more))


def opening(cfg: Config, lang: str) -> DecodeResult:
    """W and the tree switch, the programs against the SMs, the picture, and the check under it."""
    a, b = st.columns([2, 1], vertical_alignment="bottom")
    a.slider(t("decoding.workers", lang), 1, MAX_W, help=t("decoding.workers_help", lang), **_kept("workers"))
    b.toggle(t("decoding.tree", lang), help=t("decoding.tree_help", lang), **_kept("tree"))
    asked, tree = int(_val("workers")), _val("tree")
    grid_line(asked, lang)
    keys = len(parse_scores(cfg.scores)) if cfg.typed else cfg.n
    workers = min(asked, keys)                                          # the split needs a key per worker
    if workers < asked:
        st.caption(t("decoding.workers_capped", lang, w=asked, n=keys))
    res = cached_decode(cfg, workers, tree)
    name = f"{cfg.slug()}_W{res.workers}" + "_tree" * bool(tree)
    fig = shared_figure("decoding.decode", (cfg, workers, tree, lang), lambda: charts.decoding_figure(res, lang))
    chart(fig, "flash_decoding", name, key=f"{NS}.chart")
    diff, exact = _diff(res.output, res.single.output), _diff(res.output, res.exact)
    if diff <= SAME_TOL:
        st.success(t("decoding.same", lang, diff=_shown(diff), exact=_shown(exact)), icon=":material/check_circle:")
    else:
        st.error(t("decoding.differ", lang, diff=_shown(diff)), icon=":material/warning:")
    key = "decoding.describe_typed" if cfg.typed else "decoding.describe"
    st.caption(t(key, lang, row=cfg.row, n=res.single.n, d=res.single.d, tile=cfg.block_n, seed=cfg.seed,
                 dtype=cfg.dtype))
    return res


def merge_section(res: DecodeResult, lang: str) -> None:
    diff, exact = _diff(res.output, res.single.output), _diff(res.output, res.exact)
    st.markdown(t("decoding.merge_rule", lang))
    c = st.columns(3)
    c[0].metric(t("decoding.ctr_workers", lang), res.workers)
    c[1].metric(t("decoding.ctr_diff", lang), _shown(diff), help=t("decoding.ctr_diff_help", lang))
    c[2].metric(t("decoding.ctr_exact", lang), _shown(exact), help=t("decoding.ctr_exact_help", lang))
    df = partials_table(res, lang)
    st.dataframe(_styled(df), hide_index=True, key=f"{NS}.table",
                 height=min(38 + 35 * len(df), 400))


def grid_table(lang: str) -> pd.DataFrame:
    """Programs and SMs given work for a few batch sizes and splits (H = DECODE_H, on GPU)."""
    rows = []
    for b in GRID_BATCHES:
        for w in GRID_WORKERS:
            g = decode_grid(b, DECODE_H, GPU, workers=w)
            rows.append({"B": b, "W": w, t("decoding.col_programs", lang): g.programs,
                         t("decoding.col_busy", lang): f"{100 * g.busy_share:.0f} %",
                         t("decoding.col_waves", lang): g.waves})
    return pd.DataFrame(rows)


def grid_section(lang: str) -> None:
    st.markdown(t("decoding.grid_text", lang, h=DECODE_H, gpu=GPU, sms=GPU_PRESETS[GPU]["sms"]))
    st.dataframe(grid_table(lang), hide_index=True, key=f"{NS}.grid")


# ----------------------------------------------------------------------------- paged

def paged_step(res: PagedResult, name: str, lang: str, step: int, key: tuple | None = None) -> None:
    """One lookup of the paged walk. `key`: the arguments of cached_paged that made `res` (its figure is then
    built once per process and step)."""
    b, p, nb = (int(x) for x in res.order[step])
    lo = b * res.cache.block_size
    st.markdown(t("decoding.paged_step", lang, i=step + 1, n=res.cache.num_logical, b=b, p=p, lo=lo, hi=lo + nb - 1,
                  m=fmt_num(float(res.trace.m[step])), l=fmt_num(float(res.trace.l[step]))))
    c = res.cache                                      # what the figure reads: the table, not the numbers
    fig = shared_figure("decoding.paged", (key or fingerprint(c.block_table, c.owner, c.valid, c.seq_len,
                                                             c.block_size), step, lang),
                        lambda: charts.paged_figure(res, lang, step=step))
    chart(fig, "paged", f"{name}_step{step + 1}", key=f"{NS}.paged_chart")


def block_table(res: PagedResult, lang: str) -> pd.DataFrame:
    k = min(res.cache.num_logical, TABLE_ROWS)
    o, tr = res.order[:k], res.trace
    return pd.DataFrame({
        t("decoding.col_logical", lang): o[:, 0], t("decoding.col_physical", lang): o[:, 1],
        t("decoding.col_keys", lang): [f"{b * res.cache.block_size}–{b * res.cache.block_size + n - 1}"
                                       for b, _, n in o],
        t("decoding.col_m_after", lang): [fmt_num(float(x)) for x in tr.m[:k]],
        t("decoding.col_l_after", lang): [fmt_num(float(x)) for x in tr.l[:k]],
    })


def paged_section(cfg: Config, lang: str) -> None:
    st.markdown(t("decoding.paged_intro", lang))
    st.code(t("decoding.paged_code", lang), language="python")
    c = st.columns(3)
    c[0].number_input(t("decoding.block_size", lang), step=1, **_kept("bs"))
    c[1].number_input(t("decoding.free", lang), step=1, help=t("decoding.free_help", lang), **_kept("free"))
    c[2].number_input(t("decoding.shuffle_seed", lang), step=1, help=t("decoding.shuffle_seed_help", lang),
                      **_kept("pseed"))
    if cfg.typed:
        st.caption(t("decoding.paged_seeded", lang))
    res, contiguous = cached_paged(cfg, _val("bs"), _val("free"), _val("pseed"))
    diff = _diff(res.output, contiguous)
    st.metric(t("decoding.ctr_paged", lang), _shown(diff), help=t("decoding.ctr_paged_help", lang))
    if diff <= SAME_TOL:
        st.success(t("decoding.paged_same", lang, diff=_shown(diff)), icon=":material/check_circle:")
    else:
        st.error(t("decoding.paged_differ", lang, diff=_shown(diff)), icon=":material/warning:")
    name = f"{replace(cfg, scores='').slug()}_Bs{res.cache.block_size}_pseed{_val('pseed')}"
    c = res.cache                                      # the figure reads the table only: same for every seed
    key = fingerprint(c.block_table, c.owner, c.valid, c.seq_len, c.block_size)
    steps.stepped(PAGED_NS, res.cache.num_logical, lang, functools.partial(paged_step, res, name, lang, key=key))
    if res.cache.num_logical > TABLE_ROWS:
        st.caption(t("decoding.table_window", lang, k=TABLE_ROWS, n=res.cache.num_logical))
    df = block_table(res, lang)
    st.dataframe(_styled(df), hide_index=True, key=f"{NS}.block_table",
                 height=min(38 + 35 * len(df), 400))


# ----------------------------------------------------------------------------- the page

def render() -> None:
    lang, cfg = state.page_start(NS, fields=FIELDS)
    if not config_ok(cfg, NS, lang):
        return
    res = None
    with shown_errors(lang, where="flash-decoding"):
        res = opening(cfg, lang)
    if res is not None:
        with st.expander(t("decoding.merge_header", lang)), shown_errors(lang, where="merge"):
            merge_section(res, lang)
    with st.expander(t("decoding.grid_header", lang)), shown_errors(lang, where="grid"):
        grid_section(lang)
    with st.expander(t("decoding.paged_header", lang)), shown_errors(lang, where="paged cache"):
        paged_section(cfg, lang)
