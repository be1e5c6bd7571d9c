"""Panel "The kernel's own numbers" (stepper page): the Triton teaching kernel's m, ℓ, α per tile,
laid over the simulator's, with the max difference.

The kernel runs with TRACE on (flashviz_kernels.attention_trace) on the stepper's seeded q, K, V
(config.inputs(cfg), as (1, 1, ·, d) tensors in the configured dtype), block_m = Br, block_n = Bc, causal as
configured. Of the Tr programs of a launch, one computes the chosen row: the one for its query block of Br rows.
We launch exactly that program's work (q = the row's block; K, V = all keys, or under causal masking the keys
up to the block's last row, where the full launch stops too): the same loop over the same tiles for that row
(tests/pages/test_kernel_panel.py checks it against a full launch), without paying the interpreter for Tr - 1 other
programs. Runs on a button press (or on every change, opt-in); results are cached per configuration.
"""
from __future__ import annotations

import math
from concurrent.futures import wait
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pandas as pd
import streamlit as st

from flashviz.infra.cache import freeze
from flashviz.charts.common import fmt_num
from flashviz.charts.kernel import overlay_figure
from flashviz.i18n import t
from flashviz.i18n.errors import message
from flashviz.engine.online_softmax import Trace
from flashviz.infra.runqueue import RunQueue
from flashviz.ui import state
from flashviz.ui.common import chart
from flashviz.ui.config import DTYPE_SHORT, Config, inputs
from flashviz_kernels.rules import MAX_TILE, nearest_gpu_tile

NS = "kernel"
INTERP_MAX_N = 256                 # the interpreter executes tiles one by one in Python: keep it snappy
TOLERANCE = {"float32": 1e-5, "float16": 1e-4, "bfloat16": 1e-4}
FIELDS = ("m", "l", "alpha")
POLL_S = 0.25                      # how often a waiting session refreshes its place in the line


@st.cache_resource(show_spinner=False)
def kernel_mode() -> str:
    """'gpu' (compiled Triton), 'interpreter' (Triton's interpreter on CPU) or 'unavailable' (no triton)."""
    import flashviz_kernels as fk
    from flashviz_kernels import _env
    if not _env.HAS_TRITON:
        return "unavailable"
    return "interpreter" if fk.INTERPRET else "gpu"


def why_not(cfg: Config, mode: str) -> tuple[str, dict] | None:
    """(i18n key, format args) saying why the kernel cannot run this configuration here, or None."""
    if cfg.typed:
        return "kernel.why_typed", {}
    if cfg.masked.strip():
        return "kernel.why_masked", {}
    if mode == "unavailable":
        return "kernel.why_no_triton", {}
    if max(cfg.block_m, cfg.block_n) > MAX_TILE:
        return "kernel.why_big_tile", dict(br=cfg.block_m, bc=cfg.block_n, cap=MAX_TILE)
    if mode == "interpreter" and cfg.n > INTERP_MAX_N:
        return "kernel.why_too_big", dict(n=cfg.n, cap=INTERP_MAX_N)
    if mode == "gpu":
        from flashviz.bench.live import gpu_tiles
        if gpu_tiles(cfg.block_m, cfg.block_n) is None:
            return "kernel.why_tiles", dict(br=cfg.block_m, bc=cfg.block_n)
    return None


# ----------------------------------------------------------------------------- the run (no streamlit)

def block_span(cfg: Config) -> tuple[int, int, int]:
    """(query block index i, first row, one past the last row) of the program that computes cfg.row."""
    i = cfg.row // cfg.block_m
    return i, i * cfg.block_m, min(cfg.n, (i + 1) * cfg.block_m)


def run_block(cfg: Config) -> dict:
    """Launch the program of cfg.row's query block with TRACE on: {"m", "l", "alpha": (rows, Tc) float64 with
    NaN where the kernel skipped a tile, "lo": first row, "keys": keys streamed}. Raises KernelError subclasses."""
    import torch

    import flashviz_kernels as fk
    _, lo, hi = block_span(cfg)
    kv_hi = hi if cfg.causal else cfg.n              # causal: the launch never reads keys past the block's end
    dev = "cpu" if fk.INTERPRET else "cuda"
    dt = getattr(torch, cfg.dtype)
    q, k, v = (torch.from_numpy(np.ascontiguousarray(a)).to(dt).reshape(1, 1, cfg.n, cfg.d) for a in inputs(cfg))
    _, tr = fk.attention_trace(q[:, :, lo:hi].to(dev), k[:, :, :kv_hi].to(dev), v[:, :, :kv_hi].to(dev),
                               causal=cfg.causal, block_m=cfg.block_m, block_n=cfg.block_n)
    tc = math.ceil(cfg.n / cfg.block_n)
    out = {}
    for name, x in zip(FIELDS, tr):
        a = np.full((hi - lo, tc), np.nan)
        got = x[0, 0].double().cpu().numpy()
        a[:, :got.shape[1]] = got
        out[name] = a
    return dict(out, lo=lo, keys=kv_hi)


def cached_block(n: int, d: int, br: int, bc: int, causal: bool, dtype: str, seed: int,
                 block: int) -> MappingProxyType:
    """run_block for the program of query block `block` (rows of one block share one run); one result is handed
    to every session that asked for it, so it is read-only (a mapping proxy of non-writeable arrays)."""
    return MappingProxyType(freeze(run_block(Config(n=n, d=d, block_m=br, block_n=bc, causal=causal, dtype=dtype,
                                                    seed=seed, row=block * br))))


# One line for the whole server: a configuration asked for by several sessions runs once, the others wait for it
# and see their place; results kept within 64 MiB. (Looked up by name, so a test can replace cached_block.)
RUNS = RunQueue(lambda *key: cached_block(*key), max_bytes=64 << 20, name="flashviz-kernel-trace")


def cache_key(cfg: Config) -> tuple:
    return (cfg.n, cfg.d, cfg.block_m, cfg.block_n, cfg.causal, cfg.dtype, cfg.seed, block_span(cfg)[0])


@dataclass(frozen=True, eq=False)
class Comparison:
    engine: dict            # "m", "l", "alpha": (Tc,) the simulator's values
    kernel: dict            # the kernel's, NaN where it skipped the tile
    ran: np.ndarray         # (Tc,) bool: tiles the kernel computed
    diff: np.ndarray        # (Tc,) max over m, ℓ, α of |kernel - engine| / max(1, |engine|); NaN where skipped
    max_diff: float


def compare(tr: Trace, blk: dict, row: int) -> Comparison:
    """The kernel's row `row` (from a run_block result) against the engine's trace of the same row."""
    engine = {"m": tr.m, "l": tr.l, "alpha": tr.alpha}
    kernel = {f: blk[f][row - blk["lo"]] for f in FIELDS}
    ran = ~np.isnan(kernel["m"])
    with np.errstate(invalid="ignore"):
        per = [np.where(kernel[f] == engine[f], 0.0, np.abs(kernel[f] - engine[f]) / np.maximum(1.0, np.abs(engine[f])))
               for f in FIELDS]                      # equal infinities count as no difference
    diff = np.where(ran, np.max(per, axis=0), np.nan)
    return Comparison(engine, kernel, ran, diff, float(np.nanmax(diff)) if ran.any() else float("nan"))


# ----------------------------------------------------------------------------- the panel

def _remember(key: tuple) -> None:
    ran = st.session_state.setdefault(f"{NS}.ran", [])
    if key not in ran:
        ran.append(key)


def _use_tiles(br: int, bc: int) -> None:
    state.set_values(block_m=br, block_n=bc)


def _explain_mode(mode: str, lang: str) -> None:
    if mode == "interpreter":
        st.caption(t("kernel.mode_interpreter", lang, cap=INTERP_MAX_N))
    elif mode == "gpu":
        st.caption(t("kernel.mode_gpu", lang))


def _table(cfg: Config, tr: Trace, cmp: Comparison, lang: str) -> pd.DataFrame:
    skipped = t("kernel.skipped", lang)

    def ker(a):
        return [skipped if np.isnan(v) else fmt_num(float(v), 7) for v in a]

    cols = {t("kernel.col_tile", lang): np.arange(1, tr.steps + 1),
            t("kernel.col_keys", lang): [f"{a}–{b - 1}" for a, b in zip(tr.start, tr.stop)]}
    for f, sym in zip(FIELDS, ("m", "ℓ", "α")):
        cols[t("kernel.col_engine", lang, q=sym)] = [fmt_num(float(v), 7) for v in cmp.engine[f]]
        cols[t("kernel.col_kernel", lang, q=sym)] = ker(cmp.kernel[f])
    cols[t("kernel.col_diff", lang)] = ["—" if np.isnan(x) else f"{x:.1e}" for x in cmp.diff]
    return pd.DataFrame(cols)


def _results(cfg: Config, tr: Trace, blk: dict, lang: str) -> None:
    cmp = compare(tr, blk, cfg.row)
    tol = TOLERANCE[cfg.dtype]
    i, lo, hi = block_span(cfg)
    c = st.columns(3)
    c[0].metric(t("kernel.ctr_diff", lang), f"{cmp.max_diff:.1e}", help=t("kernel.ctr_diff_help", lang))
    c[1].metric(t("kernel.ctr_tol", lang, dtype=DTYPE_SHORT[cfg.dtype]), f"{tol:.0e}",
                help=t("kernel.ctr_tol_help", lang))
    c[2].metric(t("kernel.ctr_tiles", lang), f"{int(cmp.ran.sum())} / {tr.steps}",
                help=t("kernel.ctr_tiles_help", lang))
    if cmp.max_diff <= tol:
        st.success(t("kernel.agree", lang, diff=f"{cmp.max_diff:.1e}", tol=f"{tol:.0e}"), icon=":material/check:")
    else:
        st.warning(t("kernel.disagree", lang, diff=f"{cmp.max_diff:.1e}", tol=f"{tol:.0e}"), icon=":material/warning:")
    st.caption(t("kernel.launched", lang, i=i, lo=lo, hi=hi - 1, tr=math.ceil(cfg.n / cfg.block_m), keys=blk["keys"],
                 br=cfg.block_m, bc=cfg.block_n, d=cfg.d, dtype=DTYPE_SHORT[cfg.dtype],
                 causal=t("kernel.causal_on" if cfg.causal else "kernel.causal_off", lang)))
    if not cmp.ran.all():
        first = int(np.flatnonzero(~cmp.ran)[0])
        st.caption(t("kernel.skipped_note", lang, first=first + 1, tc=tr.steps, last=hi - 1))
    title = t("kernel.chart_title", lang, row=cfg.row, bc=cfg.block_n, dtype=DTYPE_SHORT[cfg.dtype])
    chart(overlay_figure(cmp.engine, cmp.kernel, lang, title), "kernel_trace", cfg.slug(), key=f"{NS}.chart",
          meta=dict(kernel="flashviz_kernels teaching kernel, TRACE on", mode=kernel_mode(),
                    query_block=i, rows=[lo, hi - 1], max_difference=cmp.max_diff, tolerance=tol))
    df = _table(cfg, tr, cmp, lang)
    st.dataframe(df, hide_index=True, height=min(38 + 35 * len(df), 400), key=f"{NS}.table")


def _wait_for(key: tuple, mode: str, lang: str) -> dict:
    """The run for `key` from the server-wide line; while it waits, the session sees its place in the line."""
    fut = RUNS.submit(key)
    if fut.done():
        return fut.result()
    shown = st.empty()
    while not wait([fut], timeout=POLL_S).done:
        pos = RUNS.position(key)
        msg = (t("kernel.running_" + mode, lang) if not pos else t("kernel.queued", lang, ahead=pos))
        shown.info(msg, icon=":material/hourglass_top:")
    shown.empty()
    return fut.result()


def _copy_br() -> None:
    state.set_values(block_m=st.session_state["_w.kernel.br"])


def _br(cfg: Config, lang: str) -> None:
    """Br, which the stepper's simulator does not have: set here, and what it decides for this row."""
    st.session_state["_w.kernel.br"] = cfg.block_m
    st.number_input(t("stepper.br_label", lang), step=1, key="_w.kernel.br", help=t("stepper.br_help", lang),
                    on_change=_copy_br)
    try:
        cfg.check()
    except Exception:                                  # the configuration's own message is shown by the panel
        return
    if 0 <= cfg.row < cfg.n:
        i, lo, hi = block_span(cfg)
        st.caption(t("stepper.br_explain", lang, br=cfg.block_m, n=cfg.n, tr=math.ceil(cfg.n / cfg.block_m),
                     row=cfg.row, i=i, lo=lo, hi=hi - 1, bc=cfg.block_n))


def render(cfg: Config, tr: Trace, lang: str) -> None:
    """Draw the panel for the stepper's configuration `cfg` and its engine trace `tr` (same row, same Bc)."""
    st.subheader(t("kernel.header", lang))
    st.markdown(t("kernel.intro", lang))
    _br(cfg, lang)
    mode = kernel_mode()
    _explain_mode(mode, lang)
    reason = why_not(cfg, mode)
    if reason:
        st.info(t(reason[0], lang, **reason[1]), icon=":material/info:")
        if reason[0] == "kernel.why_tiles" and cfg.n >= 16:
            br, bc = nearest_gpu_tile(cfg.block_m), min(nearest_gpu_tile(cfg.block_n), 1 << int(math.log2(cfg.n)))
            st.button(t("kernel.use_tiles", lang, br=br, bc=bc), key=f"{NS}.use_tiles", on_click=_use_tiles,
                      args=(br, bc), icon=":material/grid_on:")
        return
    key = cache_key(cfg)
    left, right = st.columns([1, 2], vertical_alignment="center")
    left.button(t("kernel.run", lang), key=f"{NS}.run", on_click=_remember, args=(key,), type="primary",
                icon=":material/play_arrow:")
    right.checkbox(t("kernel.auto", lang), help=t("kernel.auto_help", lang), **state.kept(f"{NS}.auto", False))
    if key not in st.session_state.get(f"{NS}.ran", []) and not st.session_state[f"{NS}.auto"]:
        st.caption(t("kernel.press", lang))
        return
    import flashviz_kernels as fk
    try:
        blk = _wait_for(key, mode, lang)
    except fk.KernelError as e:                      # out of resources, compile error, OOM, bad input: readable
        st.error(t("kernel.failed", lang, kind=type(e).__name__, msg=message(e, lang)), icon=":material/error:")
        return
    _results(cfg, tr, blk, lang)
