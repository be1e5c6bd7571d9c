"""Page "Blocks and memory traffic": the Tr x Tc grid of score blocks S_ij, step by step, and its HBM traffic.

Above the fold: the idea, the configuration it shows (a realistic size, state.shows_caption), the step grid with
its counters and, computed, what the counts model and what was measured (ui/blocks_traffic.py). Everything else
(controls, on-chip budget, loop orders, the NaN pitfall, the launch grid, the sweeps, the lessons, the worked
example) sits in closed expanders.

Thin: the shared configuration (N, d, Br, Bc, causal, dtype; seed/row/masked/guard for the NaN pitfall; ui/state.py)
and this page's own controls (SRAM size M, blocks from M or pinned, loop order, batch and heads) go to the engines
(flashviz.engine.tiling, flashviz.engine.traffic, the one-row online softmax); their results go to charts/blocks.py. What moves
with the step is drawn in the step fragment (ui/steps.py, namespace "blocks"). Flash-decoding: ui/decoding.py.
Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

from flashviz.infra.cache import MiB, figure_memo, memo
from flashviz.charts import blocks as charts
from flashviz.charts import palette as P
from flashviz.infra.errors import FlashvizError, check_int
from flashviz.i18n import t
from flashviz.engine.tiling import GPU_PRESETS, MASKED, Schedule, TilingConfig, make_config, preset_sram_bytes
from flashviz.engine.traffic import standard_counts, sweep_n, sweep_sram
from flashviz.ui import blocks_lessons, blocks_ratio, blocks_traffic, pages, state, steps
from flashviz.ui.common import chart, shared_figure, shown_errors
from flashviz.ui.config import DTYPE_SHORT, PRESETS, Config
from flashviz.ui.stepper import cached_trace, recurrence_table
from flashviz.infra.units import ELEM_BYTES, fmt_bytes

NS = "blocks"                       # step index and this page's own values live under "blocks."
FIELDS = ("n", "d", "block_m", "block_n", "causal", "dtype", "seed", "row", "masked", "guard")
GPUS = (*GPU_PRESETS, "custom")
DEFAULTS = dict(gpu="H200", sram_kib=100, mode="pinned", order="fa2", batch=4, heads=32, unit="elements")
MAX_DRAWN_CELLS = 512 * 512         # the grid is redrawn every step; above this only the counters follow
PIT_ROWS = 16                       # tiles listed in the NaN-pitfall table
THETA_FLASH, THETA_STD = 12, 4      # constants of the exact counts (flashviz/engine/traffic.py docstring)
M_MAX = 1 << 20                     # the sweep over M: from 4d elements up to 1 MiB
N_SWEEP = tuple(2 ** k for k in range(4, 15))        # 16 .. 16384
NAN_CSS, MASKED_CSS = f"color: {P.VERMILLION}; font-weight: bold;", f"background-color: {P.SHADE};"


@dataclass(frozen=True)
class Choice:
    """This page's own controls (kept in session state under blocks.<name>)."""

    gpu: str
    sram_kib: int
    mode: str                       # "sram": blocks from M; "pinned": the shared Br, Bc
    order: str                      # "fa1" or "fa2"
    batch: int
    heads: int
    unit: str                       # "elements" or "bytes" (charts)

    @property
    def sram_bytes(self) -> int:
        if self.gpu == "custom":
            return check_int("SRAM size M (KiB)", self.sram_kib, 1) * 1024
        return preset_sram_bytes(self.gpu)


def choice() -> Choice:
    ss = st.session_state
    return Choice(**{k: ss.get(f"{NS}.{k}", v) for k, v in DEFAULTS.items()})


def _kept(name: str) -> dict:
    return state.kept(f"{NS}.{name}", DEFAULTS[name])


# ----------------------------------------------------------------------------- engines (cached)

def tiling_config(cfg: Config, ch: Choice) -> TilingConfig:
    """The engine's validated config: blocks from M (the paper's rule for Algorithm 1, the kernel's tiles for the
    FA2 order) or the shared pinned Br, Bc."""
    cfg.check()
    common = dict(elem_bytes=ELEM_BYTES[cfg.dtype], causal=cfg.causal, batch=ch.batch, heads=ch.heads)
    m = ch.sram_bytes                                   # validated in both modes: the page shows it
    if ch.mode == "sram":
        return make_config(cfg.n, cfg.d, sram_bytes=m, rule="paper" if ch.order == "fa1" else "fa2", **common)
    return make_config(cfg.n, cfg.d, br=cfg.block_m, bc=cfg.block_n, **common)


@memo("blocks.schedule", 32 * MiB)
def cached_schedule(tcfg: TilingConfig, order: str) -> Schedule:
    """One Schedule per (config, order), shared read-only. Its per-block arrays are made here, before it is
    shared (not lazily by whichever session asks first), when the grid is small enough to be drawn."""
    sch = Schedule(tcfg, order)
    if sch.tr * sch.tc <= MAX_DRAWN_CELLS:
        sch.block_kind, sch.order_index  # noqa: B018
    return sch


def preset_marks() -> dict[str, int]:
    """{'A100': bytes, 'H100 / H200': bytes}: the presets' M, one label per distinct size."""
    marks: dict[int, list[str]] = {}
    for g in GPU_PRESETS:
        marks.setdefault(preset_sram_bytes(g), []).append(g)
    return {" / ".join(v): k for k, v in marks.items()}


@figure_memo("blocks.vs_m", 8 * MiB)
def vs_m_figure(n: int, d: int, eb: int, causal: bool, mine: int | None, unit: str, lang: str):
    """HBM accesses vs M (blocks from the paper's rule at each M), presets and a custom M marked. Cached: the
    sweep is the same on every step; each call gets its own Figure (a caller may restyle it)."""
    lo = 4 * d * eb                                     # M must hold one row each of Q, K, V, O
    xs = np.geomspace(lo, max(M_MAX, lo * 2), 41).round().astype(np.int64)
    extra = [x for x in (*preset_marks().values(), mine) if x is not None and x >= lo]
    sw = sweep_sram(n, d, np.unique(np.concatenate([xs, extra]).astype(np.int64)), elem_bytes=eb, causal=causal)
    return charts.traffic_vs_m_figure(sw, lang, unit=unit, theta_scale=THETA_FLASH, std_scale=THETA_STD,
                                      mark_bytes=mine, presets=preset_marks())


@figure_memo("blocks.vs_n", 8 * MiB)
def vs_n_figure(n: int, d: int, eb: int, causal: bool, sram_bytes: int | None, br: int | None, bc: int | None,
                unit: str, lang: str):
    """HBM accesses vs N (16 .. 16384 and this N) at this M or these pinned blocks."""
    sw = sweep_n(sorted(set(N_SWEEP) | {n}), d, sram_bytes=sram_bytes, br=br, bc=bc, elem_bytes=eb, causal=causal)
    return charts.traffic_vs_n_figure(sw, lang, unit=unit, theta_scale=THETA_FLASH, std_scale=THETA_STD)


# ----------------------------------------------------------------------------- small formatters



def slug(cfg: Config, tcfg: TilingConfig, ch: Choice) -> str:
    parts = [f"N{tcfg.n}", f"d{tcfg.d}", f"Br{tcfg.br}", f"Bc{tcfg.bc}", DTYPE_SHORT[cfg.dtype], ch.order]
    parts += ["causal"] * tcfg.causal + [f"M{ch.sram_bytes // 1024}KiB"] * (ch.mode == "sram")
    return "_".join(parts)


# ----------------------------------------------------------------------------- controls and readouts

def controls(cfg: Config, lang: str) -> Choice:
    """This page's own widgets; returns the current Choice."""
    ss = st.session_state
    with st.expander(t("blocks.ctl_header", lang), expanded=False):
        c1, c2, c3 = st.columns([5, 4, 3])
        with c1:
            st.segmented_control(t("blocks.ctl_gpu", lang), GPUS, required=True, help=t("blocks.ctl_gpu_help", lang),
                                 format_func=lambda g: t("blocks.gpu_custom", lang) if g == "custom" else g,
                                 **_kept("gpu"))
            if ss[f"{NS}.gpu"] == "custom":
                st.number_input(t("blocks.ctl_sram_kib", lang), step=1, **_kept("sram_kib"))
            try:
                _sram_doc(cfg, choice(), lang)
            except FlashvizError:                   # a bad M: the configuration's message below says why
                pass
        with c2:
            st.radio(t("blocks.ctl_mode", lang), ("sram", "pinned"), help=t("blocks.ctl_mode_help", lang),
                     format_func=lambda m: t(f"blocks.mode_{m}", lang), **_kept("mode"))
            st.radio(t("blocks.ctl_order", lang), ("fa1", "fa2"),
                     format_func=lambda o: t(f"blocks.order_{o}_short", lang), **_kept("order"))
        with c3:
            b, h = st.columns(2)
            b.number_input(t("blocks.ctl_batch", lang), step=1, help=t("blocks.ctl_bh_help", lang), **_kept("batch"))
            h.number_input(t("blocks.ctl_heads", lang), step=1, help=t("blocks.ctl_bh_help", lang), **_kept("heads"))
            st.segmented_control(t("blocks.ctl_unit", lang), ("elements", "bytes"), required=True,
                                 format_func=lambda u: t(f"blocks.unit_{u}", lang), **_kept("unit"))
    return choice()


def _sram_doc(cfg: Config, ch: Choice, lang: str) -> None:
    eb = ELEM_BYTES.get(cfg.dtype, 4)
    dtype = DTYPE_SHORT.get(cfg.dtype, cfg.dtype)
    if ch.gpu == "custom":
        st.caption(t("blocks.custom_doc", lang, kib=ch.sram_bytes // 1024, m_elems=ch.sram_bytes // eb, dtype=dtype))
        return
    g = GPU_PRESETS[ch.gpu]
    st.caption(t("blocks.gpu_doc", lang, name=g["name"], sms=g["sms"], l1=g["l1_shared_kib_per_sm"],
                 smem=g["shared_kib_per_sm"], blk=g["shared_kib_per_block"], m_elems=ch.sram_bytes // eb,
                 dtype=dtype, src=g["source"], regs=g["registers_kib_per_sm"]))


def describe(cfg: Config, sch: Schedule, ch: Choice, lang: str) -> None:
    c = sch.cfg
    how = {"paper": t("blocks.how_sram", lang, kib=ch.sram_bytes // 1024), "fa2": t("blocks.how_fa2", lang),
           "pinned": t("blocks.how_pinned", lang)}[c.rule]
    causal = ""
    if c.causal:
        small = c.tr * c.tc <= MAX_DRAWN_CELLS
        masked = f"{int((sch.block_kind == MASKED).sum()):,}" if small else "…"
        causal = t("blocks.causal_note", lang, skipped=c.tr * c.tc - sch.steps, masked=masked)
    foot = c.sram_footprint
    fits = t("traffic.budget_short", lang, m=fmt_bytes(ch.sram_bytes),
             pct=blocks_ratio.pct(foot * c.elem_bytes, ch.sram_bytes))      # a share of M, never a verdict
    st.markdown(t("blocks.describe", lang, n=c.n, d=c.d, dtype=DTYPE_SHORT[cfg.dtype], br=c.br, bc=c.bc, how=how,
                  tr=c.tr, tc=c.tc, causal=causal, steps=sch.steps, foot=foot,
                  foot_b=fmt_bytes(foot * c.elem_bytes), fits=fits))
    if c.causal:                                   # windows and packed documents skip more blocks than causal
        pages.link("variants", lang, label=t("variants.from_blocks", lang))
    if ch.mode == "sram":
        st.button(t("blocks.pin_these", lang, br=c.br, bc=c.bc), key=f"{NS}.pin", icon=":material/push_pin:",
                  on_click=_pin, args=(c.br, c.bc))


def _pin(br: int, bc: int) -> None:
    state.set_values(block_m=br, block_n=bc)
    st.session_state[f"{NS}.mode"] = "pinned"


# ----------------------------------------------------------------------------- the step view (in the fragment)

def _moved(d: dict, lang: str) -> str:
    return " · ".join(f"{charts.SHOWN.get(k, k)} {v:,}" for k, v in d.items()) or t("blocks.nothing", lang)


def step_view(sch: Schedule, ch: Choice, name: str, lang: str, step: int) -> None:
    """Everything that changes with the step: label, grid, counters, traffic per tensor."""
    s = sch.step(step)
    c = sch.cfg
    st.markdown(t("blocks.step_label", lang, t=step + 1, n=sch.steps, i=s.i, j=s.j, q0=s.q_rows[0],
                  q1=s.q_rows[1] - 1, k0=s.kv_rows[0], k1=s.kv_rows[1] - 1,
                  masked=t("blocks.step_masked", lang) if s.masked else ""))
    left, right = st.columns(2)
    with left, shown_errors(lang, where="block grid"):
        cells = c.tr * c.tc
        if cells > MAX_DRAWN_CELLS:
            st.info(t("blocks.grid_too_big", lang, tr=c.tr, tc=c.tc, cells=cells, cap=MAX_DRAWN_CELLS),
                    icon=":material/grid_off:")
        else:
            fig = shared_figure("blocks.grid", (c, sch.order, step, lang), lambda: charts.grid_figure(sch, step, lang))
            chart(fig, "grid", f"{name}_step{step + 1}", key=f"{NS}.grid")
    with right, shown_errors(lang, where="counters"):
        now, tot, std = s.cumulative, sch.totals(), standard_counts(c.n, c.d, elem_bytes=c.elem_bytes)
        a, b = st.columns(2)
        a.metric(t("blocks.ctr_sofar", lang), f"{now.total:,}", help=t("blocks.ctr_sofar_help", lang))
        b.metric(t("blocks.ctr_total", lang), f"{tot.total:,}", help=t("blocks.ctr_total_help", lang))
        a, b = st.columns(2)
        a.metric(t("blocks.ctr_standard", lang), f"{std.total:,}", help=t("blocks.ctr_standard_help", lang))
        b.metric(t("blocks.ctr_ratio", lang), f"{std.total / tot.total:.2f}×", help=t("blocks.ctr_ratio_help", lang))
        st.caption(t("blocks.ctr_bytes", lang, sofar=fmt_bytes(now.total_bytes), total=fmt_bytes(tot.total_bytes),
                     std=fmt_bytes(std.total_bytes), eb=c.elem_bytes))
        st.caption(t("blocks.ctr_moved", lang, loaded=_moved(s.loaded, lang), stored=_moved(s.stored, lang)))
        fig = shared_figure("blocks.bars", (c, sch.order, step, lang, ch.unit),
                            lambda: charts.traffic_bars_figure(now, tot, std, lang, ch.unit))
        chart(fig, "traffic", f"{name}_step{step + 1}", key=f"{NS}.bars")


# ----------------------------------------------------------------------------- static sections

def launch_readout(sch: Schedule, ch: Choice, lang: str) -> None:
    c = sch.cfg
    causal = t("blocks.launch_causal" if c.causal else "blocks.launch_all", lang)
    st.markdown(t("blocks.launch_fa2", lang, tr=c.tr, bh=c.batch * c.heads, b=c.batch, h=c.heads, programs=c.programs,
                  br=c.br, d=c.d, jmax=t("blocks.launch_jdiag", lang) if c.causal else c.tc - 1, causal=causal))
    if ch.gpu in GPU_PRESETS:
        g = GPU_PRESETS[ch.gpu]
        st.markdown(t("blocks.launch_waves", lang, gpu=g["name"], sms=g["sms"], programs=f"{c.programs:,}",
                      per_sm=c.programs / g["sms"]))
    if ch.order == "fa1":
        st.markdown(t("blocks.launch_fa1", lang, bh=c.batch * c.heads, tr=c.tr))


def sweep_charts(sch: Schedule, ch: Choice, name: str, lang: str) -> None:
    c = sch.cfg
    left, right = st.columns(2)
    with left, shown_errors(lang, where="HBM accesses vs M"):
        mine = ch.sram_bytes if ch.gpu == "custom" else None
        chart(vs_m_figure.frozen(c.n, c.d, c.elem_bytes, c.causal, mine, ch.unit, lang), "traffic_vs_M", name,
              key=f"{NS}.vs_m")
    with right, shown_errors(lang, where="HBM accesses vs N"):
        from_m = ch.mode == "sram"
        fig = vs_n_figure.frozen(c.n, c.d, c.elem_bytes, c.causal, ch.sram_bytes if from_m else None,
                                 None if from_m else c.br, None if from_m else c.bc, ch.unit, lang)
        chart(fig, "traffic_vs_N", name, key=f"{NS}.vs_n")
    st.caption(t("blocks.theta_note", lang))


def _style_nan(df: pd.DataFrame) -> pd.DataFrame:
    """NaN cells vermillion; rows of fully masked tiles (tile max −∞) grey."""
    tile_max = df.columns[2]
    rows = np.where((df[tile_max] == "−∞").to_numpy()[:, None], MASKED_CSS, "")
    css = np.char.add(np.broadcast_to(rows, df.shape).astype(str), np.where(df.to_numpy() == "NaN", NAN_CSS, ""))
    return pd.DataFrame(css, index=df.index, columns=df.columns)


def pitfall(cfg: Config, tcfg: TilingConfig, lang: str) -> None:
    """The one-row engine on query row cfg.row with this grid's Bc: the fully masked tile, guard off / on."""
    tr = cached_trace(replace(cfg, scores="", block_n=tcfg.bc))          # the stepper's cache, same engine
    st.markdown(t("blocks.pit_explain", lang, row=cfg.row, qi=cfg.row // tcfg.br, bc=tcfg.bc))
    a, b = st.columns(2)
    a.button(t("blocks.pit_preset", lang), key=f"{NS}.pitfall", icon=":material/science:", on_click=_pitfall_preset)
    b.button(t("blocks.pit_guard_off" if cfg.guard else "blocks.pit_guard_on", lang), key=f"{NS}.guard",
             icon=":material/shield:", on_click=state.set_values, kwargs=dict(guard=not cfg.guard))
    full = np.flatnonzero(tr.tile_max == -np.inf)
    tiles = ", ".join(t("stepper.strip_tile", lang, t=k + 1, lo=int(tr.start[k]), hi=int(tr.stop[k]) - 1)
                      for k in full[:8]) or t("blocks.pit_none", lang)
    st.caption(t("blocks.pit_masked_tiles", lang, tiles=tiles))
    shown = min(tr.steps, PIT_ROWS)
    if tr.steps > shown:
        st.caption(t("blocks.pit_window", lang, k=shown, n=tr.steps))
    df = recurrence_table(tr, shown - 1, lang)
    special = (df.to_numpy() == "NaN").any() or (df.to_numpy() == "−∞").any()     # a Styler costs ~5 ms: only then
    st.dataframe(df.style.apply(_style_nan, axis=None) if special else df, hide_index=True, key=f"{NS}.pit_table",
                 height=min(38 + 35 * len(df), 400))
    err = tr.error(tr.steps - 1)
    if np.isnan(tr.l).any():
        st.error(t("blocks.pit_nan", lang), icon=":material/warning:")
    elif len(full) and tr.guard:
        st.success(t("blocks.pit_saved", lang, err=f"{err:.1e}"), icon=":material/shield:")
    else:
        st.caption(t("blocks.pit_ok", lang, err=f"{err:.1e}"))


def _pitfall_preset() -> None:
    """The shared preset 'causal with a fully masked tile', guard off, blocks pinned; focus its block."""
    p = PRESETS["masked_tile"]
    state.apply_preset("masked_tile")
    state.set_values(guard=False, block_m=p["block_n"])
    st.session_state[f"{NS}.mode"] = "pinned"
    st.session_state[f"{NS}._focus"] = (p["row"] // p["block_n"], 0)     # the row's first (masked) tile


# ----------------------------------------------------------------------------- the page

def _focus(sch: Schedule) -> None:
    """After the pitfall preset: jump to the step of the row's masked block."""
    ij = st.session_state.pop(f"{NS}._focus", None)
    if ij and ij[0] < sch.tr and ij[1] < sch.tc and sch.tr * sch.tc <= MAX_DRAWN_CELLS:
        k = int(sch.order_index[ij])
        if k >= 0:
            steps.go(NS, k)


def render() -> None:
    lang, cfg = state.page_start(NS, fields=FIELDS)
    state.shows_caption(cfg, lang)
    ch = controls(cfg, lang)
    bh = state.checked_batch_heads(cfg, NS, DEFAULTS, lang)      # B, H within 1..MAX_BH, else a message

    tcfg = None
    if bh:
        with shown_errors(lang, where="configuration"):
            tcfg = tiling_config(cfg, ch)
    if tcfg is None:
        st.info(t("blocks.fix_input", lang), icon=":material/edit:")
    else:
        sch = cached_schedule(tcfg, ch.order)
        name = slug(cfg, tcfg, ch)
        with shown_errors(lang, where="description"):
            describe(cfg, sch, ch, lang)
        _focus(sch)
        interval = steps.autoplay_controls(NS, lang)
        with shown_errors(lang, where="steps"):
            steps.stepped(NS, sch.steps, lang, functools.partial(step_view, sch, ch, name, lang), interval=interval)
        with shown_errors(lang, where="traffic summary"):
            blocks_traffic.summary(tcfg, lang)
        with shown_errors(lang, where="description"):
            blocks_ratio.budget_section(sch.cfg, ch.sram_bytes, ch.gpu if ch.gpu in GPU_PRESETS else None, lang)
        with st.expander(t("blocks.orders_header", lang)):
            st.markdown(t("blocks.explain_orders", lang))
        with st.expander(t("blocks.pit_header", lang)), shown_errors(lang, where="NaN pitfall"):
            pitfall(cfg, tcfg, lang)
        with st.expander(t("blocks.launch_header", lang)), shown_errors(lang, where="launch grid"):
            launch_readout(sch, ch, lang)
        with st.expander(t("blocks.charts_header", lang)):
            sweep_charts(sch, ch, name, lang)
        with st.expander(t("traffic.ratio_header", lang)):
            blocks_ratio.ratio_section(sch, ch.sram_bytes, ch.mode == "sram", name, lang)
        blocks_lessons.render(cfg, tcfg, name, lang)       # fusion and dropout, causal alignment, sizes
    e = blocks_ratio.SEED_EXAMPLE
    with st.expander(t("traffic.seed_header", lang, n=e["n"], d=e["d"], kib=e["sram_bytes"] // 1024)), \
            shown_errors(lang, where="worked example"):
        blocks_ratio.seed_section(lang)
    st.caption(t("blocks.decoding_link", lang, page=pages.title("decoding", lang)))
