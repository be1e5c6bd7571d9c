"""The demo of page "Backward and recomputation" (ui/backward.py): our Triton backward on a tiny problem.

On CPU the kernels run in Triton's interpreter (slow: the same code, executed step by step in numpy), so the demo
is capped small (recompute.DEMO_CAPS) and runs on a button press, cached; on a GPU it runs compiled and larger.
It shows dQ, dK, dV against float64 autograd (beside naive autograd in the same dtype) and every tensor autograd
saved for the backward pass, per path (recompute.run_demo). No time is shown: interpreter time is not speed.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from flashviz.bench import live
from flashviz.engine import recompute as rc
from flashviz.infra.errors import check_int
from flashviz.infra.cache import MiB, memo
from flashviz.i18n import t
from flashviz.ui import state
from flashviz.ui.config import DTYPE_SHORT, Config

NS = "backward"
DEFAULTS = dict(demo_n=64, demo_d=32, demo_impl="teaching")
WHAT = {("input", None): "backward.what_input", ("output", None): "backward.what_output",
        ("new", "N×N"): "backward.what_nn", ("new", "mask N×N"): "backward.what_mask",
        ("new", "N×d"): "backward.what_nd", ("new", "N"): "backward.what_n"}


@memo("backward.demo", 16 * MiB)
def cached_demo(n: int, d: int, causal: bool, dtype: str, seed: int, impl: str, device: str) -> rc.DemoResult:
    """One run per parameter set, shared by every session (the interpreter takes the launch lock)."""
    return rc.run_demo(n, d, causal, dtype, seed, impl, device)


def _kept(name: str) -> dict:
    return state.kept(f"{NS}.{name}", DEFAULTS[name])


def _what(s: rc.Saved, lang: str) -> str:
    key = WHAT.get((s.role, None if s.role != "new" else s.kind), "backward.what_other")
    return t(key, lang)


def params(cfg: Config, device: str) -> tuple:
    """(n, d, causal, dtype, seed, impl, device), checked: InputError says what is out of range."""
    ss = st.session_state
    n, d = rc.check_demo(ss.get(f"{NS}.demo_n"), ss.get(f"{NS}.demo_d"), cfg.dtype, device)
    seed = check_int("seed", cfg.seed, 0)
    return n, d, bool(cfg.causal), cfg.dtype, seed, ss.get(f"{NS}.demo_impl"), device


def section(cfg: Config, lang: str) -> None:
    device = "cuda" if live.gpu_available() else "cpu"
    cap_n, cap_d = rc.DEMO_CAPS[device]
    st.markdown(t(f"backward.demo_explain_{device}", lang))
    a, b, c = st.columns([2, 2, 3])
    a.number_input(t("backward.demo_n", lang), step=1, help=t("backward.demo_cap", lang, n=cap_n, d=cap_d),
                   **_kept("demo_n"))
    b.number_input(t("backward.demo_d", lang), step=1, help=t("backward.demo_cap", lang, n=cap_n, d=cap_d),
                   **_kept("demo_d"))
    c.segmented_control(t("backward.demo_impl", lang), ("teaching", "fast"), required=True,
                        format_func=lambda i: t(f"backward.impl_{i}", lang), **_kept("demo_impl"))
    st.caption(t("backward.demo_from_sidebar", lang, dtype=DTYPE_SHORT.get(cfg.dtype, cfg.dtype),
                 causal=t("backward.causal_yes" if cfg.causal else "backward.causal_no", lang), seed=cfg.seed,
                 n=cap_n, d=cap_d))
    p = params(cfg, device)                          # InputError -> the page's st.error
    if st.button(t(f"backward.demo_run_{device}", lang), key=f"{NS}.demo_run", icon=":material/play_arrow:",
                 type="primary"):
        st.session_state[f"{NS}.demo_key"] = p
    if st.session_state.get(f"{NS}.demo_key") != p:
        st.info(t("backward.demo_press", lang), icon=":material/touch_app:")
        return
    with st.spinner(t("backward.demo_running", lang)):
        res = cached_demo(*p)
    show(res, lang)


def show(res: rc.DemoResult, lang: str) -> None:
    e = rc.ELEM_BYTES[res.dtype]
    st.subheader(t("backward.demo_grads", lang, n=res.n, d=res.d, dtype=DTYPE_SHORT[res.dtype],
                   impl=t(f"backward.impl_{res.impl}", lang)))
    names = ("dQ", "dK", "dV")
    grads = pd.DataFrame({
        t("backward.col_grad", lang): list(names),
        t("backward.col_ours_err", lang): [f"{res.ours_err[k]:.2e}" for k in names],
        t("backward.col_naive_err", lang, dtype=DTYPE_SHORT[res.dtype]): [f"{res.naive_err[k]:.2e}" for k in names],
        t("backward.col_bound", lang): [f"{2 * res.naive_err[k] + rc.GRAD_EPS[res.dtype]:.2e}" for k in names],
        t("backward.col_within", lang): ["✓" if res.within(k) else "✗" for k in names]})
    st.dataframe(grads, hide_index=True, key=f"{NS}.demo_grads")
    if res.dtype == "bfloat16" and res.device == "cpu":
        st.caption(t("backward.demo_bf16", lang))
    naive_new, ours_new = res.new_bytes("naive"), res.new_bytes("ours")
    st.subheader(t("backward.demo_saved", lang))
    m1, m2, m3 = st.columns(3)
    m1.metric(t("backward.demo_naive_new", lang), f"{naive_new:,} B")
    m2.metric(t("backward.demo_ours_new", lang), f"{ours_new:,} B")
    m3.metric(t("backward.demo_nn", lang, dtype=DTYPE_SHORT[res.dtype]), f"{res.n * res.n * e:,} B")
    path = {"naive": t("backward.path_naive", lang), "ours": t("backward.path_ours", lang)}
    saved = pd.DataFrame({t("backward.col_path", lang): [path[s.path] for s in res.saved],
                          t("backward.col_what", lang): [_what(s, lang) for s in res.saved],
                          t("backward.col_saved_shape", lang): [" × ".join(map(str, s.shape)) for s in res.saved],
                          t("backward.col_dtype", lang): [s.dtype for s in res.saved],
                          t("backward.col_saved_bytes", lang): [s.bytes for s in res.saved],
                          t("backward.col_role", lang): [t(f"backward.role_{s.role}", lang) for s in res.saved]})
    st.dataframe(saved, hide_index=True, key=f"{NS}.demo_saved")
    st.markdown(t("backward.demo_after", lang, naive=f"{naive_new:,}", ours=f"{ours_new:,}", n=res.n,
                  ratio=f"{naive_new / ours_new:,.0f}"))
