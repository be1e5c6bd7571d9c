"""Page "Exercises": the seed's three exercises and two on the hardware and ring lessons. Each poses a problem from
the engine, takes the student's answer (or a step the student runs), checks it with flashviz.engine.exercises (tolerances
stated on the page) and keeps a worked solution behind an expander.

Thin: problems, answers and checks come from flashviz.engine.exercises; the memory measurement is the speed page's cached
run of flashviz.bench.cpu_memory; recordings through ui/hardware_more. No chart: the exercises are worked by hand.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from flashviz.engine import exercises as ex
from flashviz.i18n import t
from flashviz.ui import hardware_more, pages, state
from flashviz.ui.common import shown_errors

NS = "exercises"


def _verdict(results: dict, lang: str) -> None:
    """One line per checked value: right, or the engine's value."""
    for name, (ok, want) in results.items():
        label = t(f"exercises.field_{name}", lang)
        if ok:
            st.success(t("exercises.right", lang, what=label), icon=":material/check:")
        else:
            shown = want if isinstance(want, str) else f"{want:.6g}"
            st.error(t("exercises.wrong", lang, what=label, want=t(f"exercises.bound_{want}", lang)
                       if name == "bound" else shown), icon=":material/close:")


def _num(label: str, key: str, fmt: str = "%.6g"):
    return st.number_input(label, value=None, format=fmt, key=f"{NS}.{key}", placeholder="?")


# ----------------------------------------------------------------------------- the five exercises

@st.cache_data(show_spinner=False, max_entries=4)
def cached_decoding(seed: int) -> dict:
    return ex.decoding_problem(seed=seed)


def decoding(lang: str) -> None:
    st.subheader(t("exercises.dec_header", lang))
    p = cached_decoding(12)
    st.markdown(t("exercises.dec_task", lang, n=p["n"], d=p["d"], w=p["workers"]))
    st.dataframe(pd.DataFrame({
        t("exercises.col_worker", lang): list(range(p["workers"])),
        t("exercises.col_keys", lang): [f"{a}–{b - 1}" for a, b in zip(p["start"], p["stop"])],
        "m_w": [f"{q['m']:.6f}" for q in p["partials"]], "ℓ_w": [f"{q['l']:.6f}" for q in p["partials"]],
        "o_w[0]": [f"{q['o'][0]:.6f}" for q in p["partials"]]}), hide_index=True, key=f"{NS}.dec_table")
    with st.form(f"{NS}.dec_form", border=False):
        a, b, c = st.columns(3)
        with a:
            m = _num("m", "dec_m")
        with b:
            l = _num("ℓ", "dec_l")
        with c:
            o = _num(t("exercises.field_out0", lang), "dec_o")
        checked = st.form_submit_button(t("exercises.check", lang), icon=":material/fact_check:")
    st.caption(t("exercises.tol_rel", lang, rel=f"{ex.DECODING_REL:g}", abs=f"{ex.DECODING_ABS:g}"))
    if checked:
        _verdict(ex.check_decoding(p, m, l, o), lang)
    with st.expander(t("exercises.solution", lang)):
        terms = " + ".join(f"{s:.4f}·{q['l']:.4f}" for s, q in zip(p["scale"], p["partials"]))
        st.markdown(t("exercises.dec_solution", lang, m=f"{p['m']:.6f}", terms=terms, l=f"{p['l']:.6f}",
                      o0=f"{p['o'][0]:.6f}", out0=f"{p['output'][0]:.6f}", err=f"{p['error']:.1e}"))
        pages.link("decoding", lang)
    st.session_state[f"{NS}.dec_view"] = p


def causal(lang: str) -> None:
    st.subheader(t("exercises.causal_header", lang))
    st.markdown(t("exercises.causal_task", lang))
    if st.button(t("exercises.causal_verify", lang), key=f"{NS}.causal_verify", icon=":material/rule:"):
        err = ex.tiled_causal_error(16, 4, 4, 12)
        st.session_state[f"{NS}.causal_err"] = err
    if (err := st.session_state.get(f"{NS}.causal_err")) is not None:
        ok = err <= ex.EXACT_ABS
        (st.success if ok else st.error)(t("exercises.causal_verified", lang, err=f"{err:.1e}",
                                           tol=f"{ex.EXACT_ABS:g}"))
    st.markdown(t("exercises.causal_task2", lang))
    with st.form(f"{NS}.nan_form", border=False):
        a, b, c = st.columns(3)
        row = a.number_input(t("exercises.field_row", lang), min_value=0, max_value=15, value=15, key=f"{NS}.nan_row")
        bc = b.number_input("Bc", min_value=1, max_value=16, value=4, key=f"{NS}.nan_bc")
        masked = c.text_input(t("exercises.field_masked", lang), value="", key=f"{NS}.nan_masked",
                              placeholder=t("common.cfg_masked_placeholder", lang))
        run = st.form_submit_button(t("exercises.run", lang), icon=":material/play_arrow:")
    if run:
        with shown_errors(lang, where="NaN exercise"):
            st.session_state[f"{NS}.nan_view"] = ex.causal_nan_run(16, 4, int(bc), int(row), masked, 12)
    view = st.session_state.get(f"{NS}.nan_view")
    if view:
        tiles = ", ".join(f"{k + 1} ({view['ranges'][k][0]}–{view['ranges'][k][1]})" for k in view["full_tiles"])
        st.caption(t("exercises.nan_tiles", lang, tiles=tiles or t("exercises.none", lang)))
        if view["nan_without_guard"]:
            st.success(t("exercises.nan_reproduced", lang, err=f"{view['guarded_error']:.1e}"),
                       icon=":material/check:")
        else:
            st.info(t("exercises.nan_not_yet", lang), icon=":material/science:")
    with st.expander(t("exercises.solution", lang)):
        sol = ex.causal_nan_run(16, 4, 4, 9, "0-3", 12)
        st.markdown(t("exercises.causal_solution", lang, err=f"{sol['guarded_error']:.1e}"))
        pages.link("stepper", lang)


def memory(lang: str) -> None:
    st.subheader(t("exercises.mem_header", lang))
    st.markdown(t("exercises.mem_task", lang))
    with st.form(f"{NS}.mem_form", border=False):
        a, b = st.columns(2)
        with a:
            naive = _num(t("exercises.field_naive", lang), "mem_naive", "%.4g")
        with b:
            tiled = _num(t("exercises.field_tiled", lang), "mem_tiled", "%.4g")
        measure = st.form_submit_button(t("exercises.measure", lang), icon=":material/memory:")
    st.caption(t("exercises.tol_mem", lang, rel=f"{100 * ex.MEMORY_REL:.0f}"))
    if measure:
        from flashviz.ui.speed import EXERCISE_NS, cached_exercise
        with st.spinner(t("speed.cpu_running", lang)), shown_errors(lang, where="memory exercise"):
            growth = ex.memory_growth(cached_exercise(tuple(EXERCISE_NS)))
            st.session_state[f"{NS}.mem_view"] = growth
            _verdict(ex.check_memory(growth, naive, tiled), lang)
    with st.expander(t("exercises.solution", lang)):
        g = st.session_state.get(f"{NS}.mem_view")
        st.markdown(t("exercises.mem_solution", lang))
        if g:
            st.caption(t("exercises.mem_measured", lang, naive=f"{g['naive']:.1f}", sq=f"{g['square']:.0f}",
                         tiled=f"{g['tiled']:.2f}", n0=g["n0"], n1=g["n1"]))
        pages.link("speed", lang)


def roofline(lang: str) -> None:
    st.subheader(t("exercises.roof_header", lang))
    hbm = hardware_more.hbm_recordings()
    timing = [ds for ds in hardware_more.timing_datasets() if "H200" in ds["provenance"]["device_name"]]
    p = next((q for ds in timing if hbm and (q := ex.roofline_problem(ds, hbm[0]))), None)
    if p is None:
        st.info(t("exercises.roof_none", lang), icon=":material/pending:")
        return
    st.markdown(t("exercises.roof_task", lang, impl=p["impl"], n=p["n"], d=p["d"], bytes=f"{p['bytes']:,.0f}",
                  peak=f"{p['peak'] / 1e12:,.1f}", bw=f"{p['bw'] / 1e12:,.1f}"))
    with st.form(f"{NS}.roof_form", border=False):
        a, b = st.columns(2)
        with a:
            i = _num(t("exercises.field_intensity", lang), "roof_i", "%.5g")
        bound = b.radio(t("exercises.field_bound", lang), ("memory", "compute"), index=None, key=f"{NS}.roof_bound",
                        format_func=lambda x: t(f"exercises.bound_{x}", lang), horizontal=True)
        checked = st.form_submit_button(t("exercises.check", lang), icon=":material/fact_check:")
    st.caption(t("exercises.tol_roof", lang, rel=f"{100 * ex.ROOFLINE_REL:.0f}"))
    if checked:
        _verdict(ex.check_roofline(p, i, bound), lang)
    with st.expander(t("exercises.solution", lang)):
        st.markdown(t("exercises.roof_solution", lang, n=p["n"], d=p["d"], flops=f"{p['flops']:,.0f}",
                      bytes=f"{p['bytes']:,.0f}", i=f"{p['intensity']:,.1f}", ridge=f"{p['ridge']:,.1f}",
                      bound=t(f"exercises.bound_{p['bound']}", lang), tf=f"{p['achieved'] / 1e12:,.0f}"))
        pages.link("hardware", lang)
    st.session_state[f"{NS}.roof_view"] = p


@st.cache_data(show_spinner=False, max_entries=2)
def cached_ring() -> dict:
    return ex.ring_problem()


def ring(lang: str) -> None:
    st.subheader(t("exercises.ring_header", lang))
    p = cached_ring()
    st.markdown(t("exercises.ring_task", lang, w=p["world"], n=p["n"]))
    with st.form(f"{NS}.ring_form", border=False):
        a, b = st.columns(2)
        with a:
            c = _num(t("exercises.field_contiguous", lang), "ring_c", "%.3g")
        with b:
            z = _num(t("exercises.field_zigzag", lang), "ring_z", "%.3g")
        checked = st.form_submit_button(t("exercises.check", lang), icon=":material/fact_check:")
    st.caption(t("exercises.tol_ring", lang, abs=f"{ex.RING_ABS:g}"))
    if checked:
        _verdict(ex.check_ring(p, c, z), lang)
    with st.expander(t("exercises.solution", lang)):
        for layout, v in p["layouts"].items():
            st.markdown(t("exercises.ring_solution", lang, layout=t(f"exercises.layout_{layout}", lang),
                          total=f"{v['total']:,}", critical=f"{v['critical']:,}", s=f"{v['speedup']:.2f}"))
            st.dataframe(pd.DataFrame(v["table"], columns=[f"GPU {r}" for r in range(p["world"])],
                                      index=[t("exercises.step", lang, s=s + 1) for s in range(p["world"])]),
                         key=f"{NS}.ring_{layout}")
        pages.link("ring", lang)
    st.session_state[f"{NS}.ring_view"] = p


def render() -> None:
    lang, _ = state.page_start(NS, fields=None)
    for section in (decoding, causal, memory, roofline, ring):
        with st.container(border=True), shown_errors(lang, where=section.__name__):
            section(lang)
