"""Reusable step controls: first / previous / next / last, a scrub slider, and autoplay.

The step index lives in st.session_state under a per-page namespace (`<ns>.step`, 0-based), so stepping
back is instant (the trace is cached; nothing is recomputed). Everything that depends on the step is
drawn by `body(step)` inside an `st.fragment`: a click reruns only that fragment, and autoplay is the
same fragment with `run_every` set. The autoplay toggle and speed sit outside the fragment because
starting or stopping the timer needs a full rerun.

Use on a page:
    interval = steps.autoplay_controls(ns, lang)             # None when not playing
    steps.stepped(ns, n_steps, lang, body, interval=interval)  # calls body(step) with 0 <= step < n_steps
"""
from __future__ import annotations

from typing import Callable

import streamlit as st

from ..i18n import t

SPEEDS = (0.5, 1.0, 2.0, 4.0)          # seconds per step while autoplaying
SHORTCUTS = {"first": "Home", "prev": "Left", "next": "Right", "last": "End"}   # keys for presenters
DEFAULT_SPEED = 1.0


def _k(ns: str, name: str) -> str:
    return f"{ns}.{name}"


def current(ns: str, n_steps: int) -> int:
    """The 0-based step, clamped to 0..n_steps-1 (the count changes with N or the tile size)."""
    ss = st.session_state
    i = ss.get(_k(ns, "step"), 0)
    i = min(max(int(i), 0), max(n_steps - 1, 0))
    ss[_k(ns, "step")], ss[_k(ns, "n_steps")] = i, n_steps
    return i


def go(ns: str, i: int) -> None:
    """Jump to step i (clamped on the next draw). Safe in callbacks."""
    st.session_state[_k(ns, "step")] = int(i)
    st.session_state[_k(ns, "_user")] = True          # a person moved it: not an autoplay tick


def _go_rel(ns: str, delta: int) -> None:
    go(ns, st.session_state.get(_k(ns, "step"), 0) + delta)


def _go_last(ns: str) -> None:
    go(ns, st.session_state.get(_k(ns, "n_steps"), 1) - 1)


def _on_slider(ns: str) -> None:
    go(ns, st.session_state[f"_w.{ns}.slider"] - 1)    # the slider shows 1-based steps


def _timer_tick() -> bool:
    """This run is a fragment's rerun (an autoplay tick), not a click on a widget outside the fragment."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    return bool(ctx is not None and getattr(ctx, "fragment_ids_this_run", None))


def _on_play(ns: str) -> None:
    ss = st.session_state
    if _timer_tick():
        # The toggle sits outside the fragment, so a person's click is a full run. A tick that carries a changed
        # toggle is the browser's stale value from before the automatic stop at the last step: keep ours.
        ss[f"_w.{ns}.play"] = ss.get(_k(ns, "play"), False)
        return
    ss[_k(ns, "play")] = bool(ss[f"_w.{ns}.play"])
    if ss[_k(ns, "play")] and ss.get(_k(ns, "step"), 0) >= ss.get(_k(ns, "n_steps"), 1) - 1:
        go(ns, 0)                                      # playing from the end starts over


def _on_speed(ns: str) -> None:
    st.session_state[_k(ns, "speed")] = st.session_state[f"_w.{ns}.speed"] or DEFAULT_SPEED


def autoplay_controls(ns: str, lang: str) -> float | None:
    """Autoplay toggle and speed. Returns seconds per step while playing, else None."""
    ss = st.session_state
    ss.setdefault(_k(ns, "play"), False)
    ss.setdefault(_k(ns, "speed"), DEFAULT_SPEED)
    ss[f"_w.{ns}.play"], ss[f"_w.{ns}.speed"] = ss[_k(ns, "play")], ss[_k(ns, "speed")]
    c1, c2 = st.columns([1, 2], vertical_alignment="center")
    c1.toggle(t("common.autoplay", lang), key=f"_w.{ns}.play", on_change=_on_play, args=(ns,),
              help=t("common.autoplay_help", lang))
    c2.segmented_control(t("common.speed", lang), SPEEDS, key=f"_w.{ns}.speed", required=True,
                         format_func=lambda s: t("common.speed_value", lang, s=f"{s:g}"),
                         on_change=_on_speed, args=(ns,), label_visibility="collapsed")
    return float(ss[_k(ns, "speed")]) if ss[_k(ns, "play")] else None


def tick(ns: str, n_steps: int) -> bool:
    """One autoplay tick: advance a step; at the end stop playing. Returns True if still playing."""
    ss = st.session_state
    i = ss.get(_k(ns, "step"), 0)
    if i >= n_steps - 1:
        ss[_k(ns, "play")] = False
        return False
    ss[_k(ns, "step")] = i + 1
    return True


def controls(ns: str, n_steps: int, lang: str) -> int:
    """Draw first / previous / next / last and the scrub slider; return the 0-based step."""
    i = current(ns, n_steps)
    cols = st.columns(4)
    spec = [("first", ":material/first_page:", go, (ns, 0), i == 0),
            ("prev", ":material/chevron_left:", _go_rel, (ns, -1), i == 0),
            ("next", ":material/chevron_right:", _go_rel, (ns, 1), i >= n_steps - 1),
            ("last", ":material/last_page:", _go_last, (ns,), i >= n_steps - 1)]
    for col, (name, icon, cb, args, disabled) in zip(cols, spec):
        col.button(t(f"common.step_{name}", lang), key=_k(ns, name), icon=icon, on_click=cb, args=args,
                   disabled=disabled, width="stretch", shortcut=SHORTCUTS[name])
    if n_steps > 1:
        st.session_state[f"_w.{ns}.slider"] = i + 1
        # Disabled while autoplaying: a timer tick can leave the browser before the last run's slider value has
        # arrived there, and that stale value would count as a move back (autoplay jumped 4 -> 3 -> 4 ...).
        st.slider(t("common.step_slider", lang), 1, n_steps, key=f"_w.{ns}.slider", on_change=_on_slider,
                  args=(ns,), help=t("common.step_slider_help", lang),
                  disabled=bool(st.session_state.get(_k(ns, "play"))))
    return i


def _fragment_body(ns: str, n_steps: int, lang: str, body: Callable[[int], None]) -> None:
    ss = st.session_state
    full, user = ss.pop(_k(ns, "_full"), False), ss.pop(_k(ns, "_user"), False)
    if ss.get(_k(ns, "play")) and not full and not user:     # a timer tick, not a click or a full run
        if not tick(ns, n_steps):
            st.rerun(scope="app")                             # full rerun: stops the timer, resets the toggle
    body(controls(ns, n_steps, lang))


def stepped(ns: str, n_steps: int, lang: str, body: Callable[[int], None], *,
            interval: float | None = None) -> None:
    """Draw the step controls and `body(step)` in a fragment; with `interval`, advance every interval s."""
    st.session_state[_k(ns, "_full")] = True
    st.fragment(_fragment_body, run_every=interval)(ns, n_steps, lang, body)
