"""The live half of the page "Speed and memory" (with CUDA), and the cell tables both halves share.

Measurement is flashviz.bench.live (measure_live / sweep_live -> flashviz.bench, every GPU step under
flashviz_kernels.LAUNCH_LOCK). Results are kept process-wide per configuration (st.cache_resource store, the
MAX_RESULTS most recently used; each session gets its own copy):
several classroom browsers asking for the same configuration at once share one measurement (a per-key
lock: the second waits, then reads the first's result); different configurations queue on LAUNCH_LOCK.
A waiting session blocks only its own script thread; the server keeps serving everyone else.
"""
from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict

import pandas as pd
import streamlit as st

from flashviz.infra import literal
from flashviz.bench import live
from flashviz.bench.spec import SPREAD_NOISY
from flashviz.charts import speed as charts
from flashviz.i18n import t
from flashviz.ui.common import chart, shown_errors
from flashviz.ui.config import DTYPE_SHORT, Config

NS = "speed"


# ----------------------------------------------------------------------------- tables shared with recorded data

def _x(v, fmt: str) -> str:
    return "—" if v is None else format(v, fmt)


def ratio_frame(rows: list[dict], lang: str) -> pd.DataFrame:
    """charts.speed.ratio_rows -> the table the page shows (numbers as text, '—' where unmeasured); the CUDA-graph
    columns only where some row has a graph time."""
    graph = any(r.get("graph_ms") is not None for r in rows)
    cols = {
        t("speed.col_impl", lang): [charts.impl_label(r["impl"], lang) for r in rows],
        t("speed.col_status", lang): [t(f"speed.status_{r['status']}", lang) for r in rows],
        t("speed.col_ms", lang): [_x(r["ms"], ".3f") for r in rows],
        t("speed.col_spread", lang): [_x(r.get("spread"), ".1%") for r in rows],
        t("speed.col_graph_ms", lang): [_x(r.get("graph_ms"), ".3f") for r in rows],
        t("speed.col_tflops", lang): [_x(r["tflops"], ".0f") for r in rows],
        t("speed.col_peak", lang): [_x(r["peak_mib"], ",.0f") for r in rows],
        t("speed.col_speedup_naive", lang): [_x(r["speedup_vs_naive"], ".2f") + "×" * (r["speedup_vs_naive"]
                                                                                      is not None) for r in rows],
        t("speed.col_speedup_cudnn", lang): [_x(r["speedup_vs_cudnn"], ".2f") + "×" * (r["speedup_vs_cudnn"]
                                                                                      is not None) for r in rows],
        t("speed.col_graph_cudnn", lang): [_x(r.get("graph_speedup_vs_cudnn"), ".2f")
                                           + "×" * (r.get("graph_speedup_vs_cudnn") is not None) for r in rows],
        t("speed.col_mem_naive", lang): [_x(r["memory_vs_naive"], ".3f") for r in rows],
        t("speed.col_mem_cudnn", lang): [_x(r["memory_vs_cudnn"], ".2f") for r in rows],
    }
    if not graph:                                     # beside the per-call columns they compare with, or none
        for key in ("speed.col_graph_ms", "speed.col_graph_cudnn"):
            del cols[t(key, lang)]
    return pd.DataFrame(cols)


def cell_notes(cells: list[dict], lang: str) -> None:
    """One readable line per cell that did not run: OOM and errors as warnings, 'unavailable' as a caption."""
    for c in cells:
        if c["status"] == "ok":
            continue
        args = dict(impl=literal.md(charts.impl_label(c["impl"], lang)), n=c["n"],      # a dataset's text: plain
                    msg=literal.md((c.get("message") or "-")[:400]))
        if c["status"] == "unavailable":
            st.caption(t("speed.note_unavailable", lang, **args))
        else:
            st.warning(t(f"speed.note_{c['status']}", lang, **args), icon=":material/warning:")


def family_text(c: dict, lang: str, with_n: bool = True) -> str:
    """'N = 4096, d = 128, causal, fp16, B = 4, H = 32, forward' (without N for a sweep over N)."""
    return t("speed.family" if with_n else "speed.family_sweep", lang, n=c.get("n"), d=c["d"],
             causal=t("speed.causal" if c["causal"] else "speed.full", lang),
             dtype=DTYPE_SHORT.get(c["dtype"], c["dtype"]), b=c["batch"], h=c["heads"],
             mode=t(f"speed.mode_{c['mode']}", lang))


def family_slug(c: dict) -> str:
    """File-name part for charts over N: 'd128_fp16_B4_H32_fwd' (+ '_causal')."""
    return (f"d{c['d']}_{DTYPE_SHORT.get(c['dtype'], c['dtype'])}_B{c['batch']}_H{c['heads']}_{c['mode']}"
            + "_causal" * c["causal"])


def noisy_impls(rows: list[dict], lang: str) -> list[str]:
    """The implementations whose per-call times spread more than SPREAD_NOISY between runs (their labels)."""
    return [charts.impl_label(r["impl"], lang) for r in rows
            if r.get("spread") is not None and r["spread"] > SPREAD_NOISY]


def show_ratio_table(cells: list[dict], lang: str, key: str) -> None:
    rows = charts.ratio_rows(cells)
    st.dataframe(ratio_frame(rows, lang), hide_index=True, key=key)
    graph = any(r.get("graph_ms") is not None for r in rows)
    if graph:
        st.caption(t("speed.graph_note", lang))
    noisy = noisy_impls(rows, lang)
    if noisy:
        st.caption(t("speed.noisy_graph" if graph else "speed.noisy", lang, pct=f"{SPREAD_NOISY:.0%}",
                     impls=literal.md(("、" if lang == "zh" else ", ").join(noisy))))


# ----------------------------------------------------------------------------- the process-wide store

MAX_RESULTS = 64                     # configurations kept process-wide (one result: tens of cells, a few KiB)


@st.cache_resource(show_spinner=False)
def _store() -> dict:
    return dict(lock=threading.Lock(), keys={}, results=OrderedDict(), busy=0)


def measure_once(key: tuple, fn, *, force: bool = False) -> dict:
    """fn() once per key across sessions: {"cells", "when", "done"}. A caller who finds the key being measured
    waits and takes that result; force re-measures unless a measurement finished after this call began.
    Every caller gets its own copy (a session may change what it got); the store keeps the MAX_RESULTS most
    recently used configurations."""
    s, asked = _store(), time.monotonic()
    with s["lock"]:
        key_lock = s["keys"].setdefault(key, threading.Lock())
    with key_lock:
        old = _get(s, key)
        if old is not None and (not force or old["done"] >= asked):
            return copy.deepcopy(old)
        with s["lock"]:
            s["busy"] += 1
        try:
            res = dict(cells=fn(), when=time.strftime("%Y-%m-%d %H:%M:%S"))
        except BaseException:
            with s["lock"]:
                if key not in s["results"] and s["keys"].get(key) is key_lock:
                    del s["keys"][key]                            # nothing to keep for it
            raise
        finally:
            with s["lock"]:
                s["busy"] -= 1
        res["done"] = time.monotonic()
        with s["lock"]:
            s["results"][key] = res
            s["results"].move_to_end(key)
            while len(s["results"]) > MAX_RESULTS:
                gone, _ = s["results"].popitem(last=False)
                lock = s["keys"].get(gone)
                if lock is not None and not lock.locked():         # (a lock in use stays until its result goes)
                    del s["keys"][gone]
        return copy.deepcopy(res)


def _get(s: dict, key: tuple) -> dict | None:
    with s["lock"]:
        res = s["results"].get(key)
        if res is not None:
            s["results"].move_to_end(key)
        return res


def stored(key: tuple) -> dict | None:
    """A copy of the stored result for `key`, or None."""
    res = _get(_store(), key)
    return None if res is None else copy.deepcopy(res)


def _progress(bar, lang: str):
    def tick(done: int, total: int, cell: dict) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=t("speed.live_progress", lang, done=done, total=total,
                                                            impl=charts.impl_label(cell["impl"], lang), n=cell["n"],
                                                            status=t(f"speed.status_{cell['status']}", lang)))
    return tick


# ----------------------------------------------------------------------------- the section

def kernel_line(n: int, d: int, causal: bool, dtype: str, lang: str, device: str = "cuda") -> str:
    """One line, computed live: which kernel impl="fast" launches at this N, d, causal and dtype and with which tiles
    (flashviz_kernels.api.launch_plan), and whether the warp-specialised kernel is used, or why not
    (flashviz_kernels.ws.status())."""
    import torch
    from flashviz_kernels import api, ws
    dt = getattr(torch, dtype)
    q = torch.empty((1, 1, n, d), device=device, dtype=dt)           # the plan depends on N, d, causal and dtype
    kernel, bm, bn = api.launch_plan(q, q, q, impl="fast", causal=causal)
    s = ws.status()
    if kernel == "ws":
        why = t("speed.ws_used", lang)
    elif s["active"]:
        why = t("speed.ws_not_here", lang, rules="; ".join(s["fast_uses_ws"]) or "—")
    else:
        why = t("speed.ws_off", lang, reason=literal.code(s["reason"]))
    return t("speed.kernel_line", lang, kernel=kernel, bm=bm, bn=bn, why=why)


def section(cfg: Config, batch: int, heads: int, mode: str, lang: str) -> None:
    """'Run on GPU' for this configuration and a sweep over N, with results cached per configuration."""
    import torch
    st.header(t("speed.live_header", lang))
    gpu = torch.cuda.get_device_name(0)
    st.markdown(t("speed.live_intro", lang, gpu=gpu))
    tiles = live.gpu_tiles(cfg.block_m, cfg.block_n)
    st.caption(t("speed.live_tiles_yours" if tiles else "speed.live_tiles_default", lang, br=cfg.block_m,
                 bc=cfg.block_n))
    base = (cfg.d, cfg.causal, cfg.dtype, batch, heads, mode, tiles)
    one_key, sweep_key = ("one", cfg.n, *base), ("sweep", live.SWEEP_NS, *base)
    left, right = st.columns(2)
    run = left.button(t("speed.live_run", lang), key=f"{NS}.live_run", type="primary", icon=":material/bolt:")
    sweep = right.button(t("speed.live_sweep", lang, lo=live.SWEEP_NS[0], hi=live.SWEEP_NS[-1]),
                         key=f"{NS}.live_sweep", icon=":material/show_chart:")
    if (run or sweep) and _store()["busy"]:
        st.info(t("speed.live_queued", lang), icon=":material/hourglass_top:")
    mine = dict(n=cfg.n, d=cfg.d, causal=cfg.causal, dtype=cfg.dtype, batch=batch, heads=heads, mode=mode)

    with shown_errors(lang, where="GPU run"):
        if run:
            bar = st.progress(0.0, text=t("speed.live_running", lang))
            measure_once(one_key, lambda: live.measure_live(cfg.n, cfg.d, cfg.causal, cfg.dtype, batch, heads,
                                                            mode=mode, tiles=tiles, progress=_progress(bar, lang)),
                         force=True)
            bar.empty()
        res = stored(one_key)
        if res:
            st.subheader(t("speed.live_result", lang, what=family_text(mine, lang)))
            show_ratio_table(res["cells"], lang, key=f"{NS}.live_table")
            st.caption(t("speed.live_when", lang, gpu=gpu, when=res["when"]))
            with shown_errors(lang, where="kernel plan"):
                st.caption(kernel_line(cfg.n, cfg.d, cfg.causal, cfg.dtype, lang))
            cell_notes(res["cells"], lang)

    with shown_errors(lang, where="GPU sweep"):
        if sweep:
            with st.status(t("speed.live_sweeping", lang), expanded=True) as status:
                bar = st.progress(0.0)
                measure_once(sweep_key, lambda: live.sweep_live(live.SWEEP_NS, cfg.d, cfg.causal, cfg.dtype, batch,
                                                                heads, mode=mode, tiles=tiles,
                                                                progress=_progress(bar, lang)), force=True)
                status.update(label=t("speed.live_swept", lang), state="complete", expanded=False)
        res = stored(sweep_key)
        if res:
            fam = family_text(mine, lang, with_n=False)
            slug = "live_" + family_slug(mine)
            meta = dict(source="measured live", device=gpu, measured_at=res["when"], measured_family=mine,
                        teaching_tiles=tiles)
            a, b = st.columns(2)
            with a:
                title = charts.two_line_title(t("speed.title_time", lang), fam)
                chart(charts.perf_figure(res["cells"], lang, metric="ms", mark_n=cfg.n, title=title), "live_time",
                      slug, key=f"{NS}.live_time", meta=meta)
            with b:
                title = charts.two_line_title(t("speed.title_memory", lang), fam)
                chart(charts.memory_figure(res["cells"], lang, mark_n=cfg.n, title=title), "live_memory", slug,
                      key=f"{NS}.live_memory", meta=meta)
            st.caption(t("speed.live_when", lang, gpu=gpu, when=res["when"]))
            cell_notes(res["cells"], lang)
