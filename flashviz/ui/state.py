"""The shared configuration in st.session_state: one set of values for every page.

Streamlit deletes the state of widgets that are not drawn on the current page. So the canonical
values live in plain keys `cfg.<field>` (never a widget key); each sidebar widget has its own key
`_w.cfg.<field>`, re-seeded from the canonical value before it is drawn and copied back by its
on_change callback. A page shows any subset of the fields; the rest keep their values.

Two scales. The stepper and the pages that follow one query row speak about a small example (N = 16, fp32); the
pages about traffic, speed, backward and hardware open on a realistic size that the H200 recordings measured
(KERNEL_DEFAULT). Each scale keeps its own N, d, Br, Bc, dtype and query row (SCALED: canonical keys `cfg.<f>` for
the row scale, `cfg.k.<f>` for the kernel scale); the causal mask, seed, masked keys, typed scores and guard are one
set for both. app.py sets the scale of the page about to run (flashviz.ui.pages, PageSpec.scale), so a change in
the sidebar carries over to every page of the same scale, and a student who changes N on the blocks page does not
lose the stepper's small row.

Use:  state.init(); lang = state.lang(); cfg = state.config_sidebar(lang, fields=STEPPER_FIELDS)
"""
from __future__ import annotations

import streamlit as st

from ..infra.errors import check_int
from ..i18n import DEFAULT_LANG, LANGS, lang_from_accept_language, normalise_lang, t
from ..engine.recompute import MAX_BH
from .config import DEFAULT, DTYPES, FIELDS, KERNEL_DEFAULT, PRESETS, Config, follow_row
from .messages import shown_errors

CANON = "cfg."          # canonical key prefix (row scale, and the fields both scales share)
KERNEL_CANON = "cfg.k."  # canonical key prefix of the kernel scale's own fields
SCALED = ("n", "d", "block_m", "block_n", "dtype", "row")
SCALES = {"row": DEFAULT, "kernel": KERNEL_DEFAULT}
SCALE_KEY = "cfg.scale"
WIDGET = "_w.cfg."      # widget key prefix
LANG_KEY, LANG_WIDGET = "lang", "_w.lang"
FMT_KEY, FMT_WIDGET = "export_fmt", "_w.export_fmt"
PRESENT_KEY, PRESENT_WIDGET = "present", "_w.present"
PRESET_WIDGET, PRESET_APPLIED = "_w.preset", "preset.applied"
PRESET_PAGES = {"h200": "speed"}      # a preset that points to a page (a slug of flashviz.ui.pages)
PRESET_GPU = {"h200": "H200"}         # a preset measured on a GPU: the pages' own GPU choices follow it
PRESET_SCALES = {"h200": "kernel"}    # a preset of realistic size: it sets the kernel scale from any page
GPU_KEYS = ("blocks.gpu", "hardware.gpu")
EXPORT_FORMATS = ("png", "svg")

ALL_FIELDS = ("n", "d", "block_m", "block_n", "causal", "dtype", "seed", "row", "masked", "scores", "guard")
STEPPER_FIELDS = ("n", "d", "block_n", "causal", "dtype", "seed", "row", "masked", "scores", "guard")
ADVANCED = ("row", "masked", "scores", "guard")      # drawn inside an expander
assert set(ALL_FIELDS) == set(FIELDS)


# ----------------------------------------------------------------------------- canonical values

def init() -> None:
    """Idempotent: default every canonical key (both scales); pick the language once per session."""
    ss = st.session_state
    for name in FIELDS:
        ss.setdefault(CANON + name, getattr(DEFAULT, name))
    for name in SCALED:
        ss.setdefault(KERNEL_CANON + name, getattr(KERNEL_DEFAULT, name))
    ss.setdefault(SCALE_KEY, "row")
    ss.setdefault(FMT_KEY, EXPORT_FORMATS[0])
    if LANG_KEY not in ss:
        ss[LANG_KEY] = _initial_lang()
    if PRESENT_KEY not in ss:
        ss[PRESENT_KEY] = str(st.query_params.get("present", "")).lower() in ("1", "true", "yes", "on")


def _initial_lang() -> str:
    """?lang= query parameter, else the browser's Accept-Language, else its locale, else English."""
    qp = st.query_params.get("lang")
    if qp:
        return normalise_lang(qp)
    try:
        header = st.context.headers.get("Accept-Language")
    except Exception:                                  # no request (bare mode, tests)
        header = None
    if header:
        return lang_from_accept_language(header)
    try:
        locale = st.context.locale
    except Exception:
        locale = None
    return normalise_lang(locale) if locale else DEFAULT_LANG


def lang() -> str:
    return st.session_state.get(LANG_KEY, DEFAULT_LANG)


def presenting() -> bool:
    return bool(st.session_state.get(PRESENT_KEY, False))


def sidebar_state() -> str:
    """For st.set_page_config: the sidebar starts folded away in presenter mode."""
    return "collapsed" if presenting() else "auto"


def export_format() -> str:
    return st.session_state.get(FMT_KEY) or EXPORT_FORMATS[0]


def scale() -> str:
    """The scale of the page this run draws: "row" (small example) or "kernel" (realistic size)."""
    s = st.session_state.get(SCALE_KEY, "row")
    return s if s in SCALES else "row"


def set_scale(name: str) -> None:
    """app.py, before the page runs: whose N, d, Br, Bc, dtype and row the sidebar and config() use."""
    if name not in SCALES:
        raise KeyError(f"unknown scale {name!r}")
    st.session_state[SCALE_KEY] = name


def canon(name: str, scale_: str | None = None) -> str:
    """The canonical session key of field `name` at a scale (default: the current page's)."""
    return (KERNEL_CANON if (scale_ or scale()) == "kernel" and name in SCALED else CANON) + name


def config(scale_: str | None = None) -> Config:
    """Frozen snapshot of the canonical values at a scale, default the current page's (may be invalid: call
    .check())."""
    ss = st.session_state
    base = SCALES[scale_ or scale()]
    return Config(**{name: ss.get(canon(name, scale_), getattr(base, name)) for name in FIELDS})


def set_values(**values) -> None:
    """Write canonical values at the current scale (from callbacks, presets, buttons); widgets follow on the next
    run."""
    for name, v in values.items():
        if name not in FIELDS:
            raise KeyError(f"unknown config field {name!r}")
        st.session_state[canon(name)] = v


def apply_preset(name: str) -> None:
    """Write a preset's values at its own scale (PRESET_SCALES), else at the current page's."""
    for field, v in PRESETS[name].items():
        st.session_state[canon(field, PRESET_SCALES.get(name))] = v
    st.session_state[PRESET_APPLIED] = name
    if name in PRESET_GPU:
        for key in GPU_KEYS:
            st.session_state[key] = PRESET_GPU[name]


# ----------------------------------------------------------------------------- callbacks

def _copy(name: str) -> None:
    st.session_state[canon(name)] = st.session_state[WIDGET + name]


def _copy_n() -> None:
    """N changed: a row that followed the last row (or fell off the end) follows the new last row."""
    ss = st.session_state
    n, row = canon("n"), canon("row")
    old_n, ss[n] = ss[n], ss[WIDGET + "n"]
    ss[row] = follow_row(ss[row], old_n, ss[n])


def _copy_pref(canon: str, widget: str) -> None:
    st.session_state[canon] = st.session_state[widget] or st.session_state[canon]   # no deselecting


def _on_preset(key: str = PRESET_WIDGET) -> None:
    name = st.session_state.get(key)
    if name:
        apply_preset(name)
    st.session_state[key] = None                        # back to the placeholder


# ----------------------------------------------------------------------------- widgets

def _seed(name: str) -> str:
    """Re-seed the widget key from the canonical value; return the widget key."""
    st.session_state[WIDGET + name] = st.session_state[canon(name)]
    return WIDGET + name


def _field(name: str, lang: str) -> None:
    key = _seed(name)
    label, help_ = t(f"common.cfg_{name}", lang), t(f"common.cfg_{name}_help", lang)
    cb = _copy_n if name == "n" else _copy
    args = () if name == "n" else (name,)
    if name in ("causal", "guard"):
        st.toggle(label, key=key, help=help_, on_change=cb, args=args)
    elif name == "dtype":
        st.selectbox(label, DTYPES, key=key, help=help_, on_change=cb, args=args)
    elif name in ("masked", "scores"):
        st.text_input(label, key=key, help=help_, on_change=cb, args=args,
                      placeholder=t(f"common.cfg_{name}_placeholder", lang))
    else:  # integers: no min/max on purpose, so the engine's message explains a bad value
        st.number_input(label, step=1, key=key, help=help_, on_change=cb, args=args)


def preset_picker(lang: str, names: tuple[str, ...] = tuple(PRESETS), *, key: str = PRESET_WIDGET) -> None:
    """A selectbox of presets; choosing one writes the canonical values and returns to the placeholder.
    A preset that belongs to another page (PRESET_PAGES) then shows a link to it."""
    st.session_state.setdefault(key, None)
    st.selectbox(t("common.preset", lang), names, index=None, key=key, on_change=_on_preset, args=(key,),
                 format_func=lambda k: t(f"common.preset_{k}", lang),
                 placeholder=t("common.preset_placeholder", lang), help=t("common.preset_help", lang))
    target = PRESET_PAGES.get(st.session_state.get(PRESET_APPLIED))
    if target:
        from .pages import link                       # late: keep state light
        link(target, lang, icon=":material/speed:")


def checked_batch_heads(cfg: Config, ns: str, defaults: dict, lang: str) -> tuple[int, int] | None:
    """For a page with its own batch B and heads H (session keys <ns>.batch, <ns>.heads): check `cfg` and both
    (1..MAX_BH). (B, H), or None once the first problem is shown as an error."""
    ss = st.session_state
    with shown_errors(lang, where="configuration"):
        cfg.check()
        return tuple(check_int(label, ss.get(f"{ns}.{name}", defaults[name]), 1, MAX_BH)
                     for name, label in (("batch", "batch B"), ("heads", "heads H")))
    return None


def page_start(ns: str, fields: tuple[str, ...] | None = ALL_FIELDS) -> tuple[str, Config]:
    """What every page draws first: the shared configuration in the sidebar (`fields`; None: no sidebar), then
    its title and intro (i18n keys <ns>.title, <ns>.intro). Returns (language, configuration)."""
    init()
    lg = lang()
    cfg = config() if fields is None else config_sidebar(lg, fields=fields)
    st.title(t(f"{ns}.title", lg))
    st.markdown(t(f"{ns}.intro", lg))
    return lg, cfg


def shows_caption(cfg: Config, lang: str, recorded: bool | None = None) -> None:
    """On a kernel-scale page: one caption saying which configuration it shows (recorded: whether a recording
    measured it; None: whether it is still the realistic default)."""
    from .config import DTYPE_SHORT
    if recorded is None:
        recorded = all(getattr(cfg, f) == getattr(KERNEL_DEFAULT, f) for f in ("n", "d", "dtype"))
    st.caption(t("common.shows_kernel", lang, n=cfg.n, d=cfg.d, dtype=DTYPE_SHORT.get(cfg.dtype, cfg.dtype),
                 br=cfg.block_m, bc=cfg.block_n, causal=t("common.causal_on" if cfg.causal else "common.causal_off",
                                                           lang),
                 why=t("common.shows_recorded" if recorded else "common.shows_yours", lang),
                 n_row=st.session_state.get(CANON + "n", DEFAULT.n)))


def config_sidebar(lang: str, fields: tuple[str, ...] = ALL_FIELDS, presets: bool = True) -> Config:
    """Draw the shared configuration in the sidebar (only `fields`) and return the current Config."""
    init()
    with st.sidebar:
        st.subheader(t("common.cfg_header", lang))
        if presets:
            preset_picker(lang)
        for name in (f for f in fields if f not in ADVANCED):
            _field(name, lang)
        adv = [f for f in fields if f in ADVANCED]
        if adv:
            with st.expander(t("common.cfg_advanced", lang), expanded=True):
                for name in adv:
                    _field(name, lang)
    return config()


def language_switch() -> str:
    """Sidebar language switch; the choice is kept in session state and mirrored to ?lang=."""
    init()
    st.session_state[LANG_WIDGET] = st.session_state[LANG_KEY]

    def on_change() -> None:
        st.session_state[LANG_KEY] = st.session_state[LANG_WIDGET] or DEFAULT_LANG
        st.query_params["lang"] = st.session_state[LANG_KEY]

    st.sidebar.segmented_control(t("common.language", lang()), list(LANGS), key=LANG_WIDGET, required=True,
                                 format_func=LANGS.get, on_change=on_change)
    return lang()


def presenter_switch(lang: str) -> bool:
    """Sidebar toggle for presenter mode; kept in session state and mirrored to ?present=1."""
    init()
    st.session_state[PRESENT_WIDGET] = st.session_state[PRESENT_KEY]

    st.sidebar.toggle(t("present.toggle", lang), key=PRESENT_WIDGET, help=t("present.toggle_help", lang),
                      on_change=lambda: set_presenting(st.session_state[PRESENT_WIDGET]))
    return presenting()


def set_presenting(on: bool) -> None:
    """From a callback (the presenter bar's exit button)."""
    st.session_state[PRESENT_KEY] = bool(on)
    if on:
        st.query_params["present"] = "1"
    else:
        st.query_params.pop("present", None)


def export_format_switch() -> str:
    """Sidebar choice of the format the charts' camera button downloads (PNG or SVG)."""
    init()
    st.session_state[FMT_WIDGET] = st.session_state[FMT_KEY]
    st.sidebar.segmented_control(t("common.export_format", lang()), EXPORT_FORMATS, key=FMT_WIDGET, required=True,
                                 format_func=str.upper, on_change=_copy_pref, args=(FMT_KEY, FMT_WIDGET),
                                 help=t("common.export_format_help", lang()))
    return export_format()


# ----------------------------------------------------------------------------- a page's own values

def _copy_kept(key: str) -> None:
    st.session_state[key] = st.session_state["_w." + key]


def kept(key: str, default) -> dict:
    """Widget kwargs for a page's own value that must survive page switches, kept like the shared ones: the
    value lives in the plain key `key`, the widget in `_w.<key>` (re-seeded here, copied back on change).

        st.number_input(label, step=1, **state.kept("blocks.batch", 4))    # then read st.session_state["blocks.batch"]
    """
    ss = st.session_state
    ss.setdefault(key, default)
    ss["_w." + key] = ss[key]
    return dict(key="_w." + key, on_change=_copy_kept, args=(key,))
