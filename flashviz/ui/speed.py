"""Page "Speed and memory": measured time and memory of naive attention vs the flash kernels.

Thin: the shared configuration (N, d, Br/Bc, causal, dtype; ui/state.py) plus this page's own batch B, heads H,
pass (forward / backward / both) and chart metric (kept under speed.<name>). With CUDA, ui/speed_live.py
measures through flashviz.bench.live. Always: recorded datasets (flashviz.bench: committed under assets/benchmarks/
or uploaded in this session, validated by the bench's loader, never executed) with their provenance, at the
recorded configuration nearest the shared one; and the lesson's exercise 3 measured on this CPU
(flashviz.bench.cpu_memory). Charts: flashviz/charts/speed.py. Strings: flashviz/i18n/speed.py.
Shown by st.navigation, which calls render() (flashviz/ui/pages.py).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from flashviz.infra import literal
from flashviz.bench import live
from flashviz.bench import (cells_for, cpu_memory, dataset_label, list_datasets, load_dataset, nearest_config,
                            parse_dataset, provenance_fields)
from flashviz.bench.spec import flops
from flashviz.charts import palette as P
from flashviz.infra.cache import fingerprint
from flashviz.charts import speed as charts
from flashviz.infra.errors import DatasetError
from flashviz.i18n import t
from flashviz.ui import pages, speed_live, state
from flashviz.ui.common import chart, committed_recordings, shared_figure, shown_errors
from flashviz.ui.config import Config, follow_row

NS = "speed"
FIELDS = ("n", "d", "block_m", "block_n", "causal", "dtype")
DEFAULTS = dict(batch=4, heads=32, mode="fwd", metric="ms")      # B, H as the recorded H200 sweep; time first
MODES = ("fwd", "bwd", "fwd+bwd")
EXERCISE_NS = (512, 2048, 8192)
SAME_KEYS = ("n", "d", "causal", "dtype", "batch", "heads")
# One limit: the dataset reader's MAX_BYTES (5 MiB), whose refusal is translated. The widget's own limit is set above
# it (Streamlit counts MB as 10^6 or 2^20 bytes depending on the browser's platform), so a file the reader accepts is
# never refused first by the widget in English; a larger one is refused by the widget (its message, on a zh page,
# is replaced by ours: upload_css).
UPLOAD_MB = 6


def _kept(name: str) -> dict:
    return state.kept(f"{NS}.{name}", DEFAULTS[name])


# ----------------------------------------------------------------------------- datasets

def read_upload(data: bytes) -> dict:
    """An uploaded file's bytes -> a validated dataset: the bench's loader (size cap, strict UTF-8 JSON, schema,
    finite numbers). Nothing in it is ever evaluated or executed. DatasetError with a clear message otherwise."""
    return parse_dataset(data)


def datasets(lang: str) -> dict[str, dict]:
    """{id: dataset}: committed files ("file:<name>"), then this session's uploads ("upload:<name>")."""
    out = committed_recordings(list_datasets(), load_dataset, lang, "speed.bad_committed", prefix="file:",
                               escape=True)
    out.update(st.session_state.get(f"{NS}.uploads", {}))
    return out


def upload_box(lang: str) -> None:
    """st.file_uploader -> read_upload; an accepted file becomes selectable (this session) and selected."""
    ss = st.session_state
    f = st.file_uploader(t("speed.upload", lang), type=["json"], key=f"_w.{NS}.upload", max_upload_size=UPLOAD_MB,
                         help=t("speed.upload_help", lang))
    upload_css(lang)
    if f is None:
        ss.pop(f"{NS}.upload_msg", None)
        return
    if ss.get(f"{NS}.upload_seen") != f.file_id:            # each file once, not on every rerun
        ss[f"{NS}.upload_seen"] = f.file_id
        try:
            ds = read_upload(f.getvalue())
        except DatasetError as e:
            ss[f"{NS}.upload_msg"] = ("error", f.name, e)          # shown in the language of each rerun
        else:
            key = f"upload:{f.name}"
            ss.setdefault(f"{NS}.uploads", {})[key] = ds
            ss[f"{NS}.dataset"] = key
            modes = {c["mode"] for c in ds["cells"]}
            if ss.get(f"{NS}.mode", "fwd") not in modes and modes:
                ss[f"{NS}.mode"] = next(m for m in MODES if m in modes)
            ss[f"{NS}.upload_msg"] = ("ok", f.name, dataset_label(ds))
    kind, raw_name, raw_msg = ss[f"{NS}.upload_msg"]
    name = literal.md(raw_name)                                           # the file's own text: never Markdown
    if kind == "error":
        st.error(t("speed.upload_rejected", lang, name=name, msg=literal.md(raw_msg.localized(lang))),
                 icon=":material/block:")
    else:
        st.success(t("speed.upload_accepted", lang, name=name, label=literal.md(raw_msg)), icon=":material/check:")


def upload_css(lang: str) -> None:
    """A file over the widget's limit is refused in the browser, before the page sees it, with Streamlit's English
    "File must be 6.0MB or smaller" (kept for screen readers): show the reader's one limit, in the page's language,
    next to the refused file instead. The box's own "Upload" and "6MB per file • JSON" are drawn in the page's
    language too, with the one limit the reader applies (the widget's words stay in the DOM for screen readers)."""
    from flashviz.bench.dataset import MAX_BYTES
    cap = f"{MAX_BYTES / 2**20:.0f}"
    say = lambda key: t(key, lang, cap=cap).replace("\\", "").replace('"', "'")          # noqa: E731 (CSS text)
    box = f".st-key-_w-{NS}-upload"
    css = (f'{box} [data-testid="stFileChip"][aria-invalid="true"]::after {{content: "{say("speed.upload_too_big")}"; '
           f'color: var(--st-red-color, {P.VERMILLION}); font-size: 0.875rem; margin-left: 0.5rem;}}')
    button = f'{box} [data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"] p'
    limit = f'{box} [data-testid="stFileUploaderDropzoneInstructions"] > div'
    css += (f'{button}, {limit} > span {{font-size: 0;}} '
            f'{button}::after {{content: "{say("speed.upload_button")}"; font-size: 1rem;}} '
            f'{limit}::after {{content: "{say("speed.upload_limit")}"; font-size: 0.875rem;}}')
    st.html(f"<style>{css}</style>")


def _label(key: str, ds: dict, lang: str) -> str:
    extra = t("speed.uploaded", lang) if key.startswith("upload:") else key.removeprefix("file:")
    return f"{dataset_label(ds)} · {extra}"


def provenance_panel(ds: dict, lang: str) -> None:
    """Every provenance field, in a grid of four columns, the re-runnable command below."""
    fields = [f for f in provenance_fields(ds) if f["key"] != "command"]
    with st.container(border=True):
        st.markdown(t("speed.prov_header", lang))
        cols = st.columns(4)
        for i, f in enumerate(fields):
            label = t(f"speed.prov_{f['key']}", lang)
            value = timer_text(ds, lang) if f["key"] == "timer" and lang != "en" else None
            cols[i % 4].caption(f"**{label}** · {value or literal.md(f['value'])}")
        command = next(f["value"] for f in provenance_fields(ds) if f["key"] == "command")
        st.caption(t("speed.prov_command", lang))
        st.code(command, language="bash", wrap_lines=True)


def timer_text(ds: dict, lang: str) -> str | None:
    """A recording's timer in the page's language where flashviz.bench.measure wrote it (None: another file's
    own words, which the panel shows as they are)."""
    from flashviz.bench import measure
    key = {measure.TIMER_CUDA: "cuda", measure.TIMER_CUDA + measure.TIMER_GRAPH: "cuda_graph",
           measure.TIMER_CPU: "cpu"}.get(ds["provenance"].get("timer"))
    if key is None:
        return None
    s = ds.get("sweep", {})
    rep = (t("speed.timer_rep", lang, warmup=f"{s['warmup_ms']:g}", rep=f"{s['rep_ms']:g}")
           if s.get("warmup_ms") is not None and s.get("rep_ms") is not None else "")
    if (s.get("rounds") or 1) > 1:
        rep += t("speed.timer_rounds", lang, rounds=s["rounds"])
    return t(f"speed.timer_{key}", lang) + rep


def source_line(ds: dict, lang: str) -> str:
    """One line naming where a chart's numbers come from (beside every chart); the dataset's text as plain text."""
    raw = {f["key"]: str(f["value"]) for f in provenance_fields(ds)}
    raw["date"] = raw["date"][:10]                          # cut the text, then escape it (not the other way round)
    p = {k: literal.md(v) for k, v in raw.items()}
    return t("speed.source", lang, gpu=p["device"], driver=p["driver"], cuda=p["cuda"], torch=p["torch"],
             triton=p["triton"], date=p["date"], commit=p["commit"])


RECORDED_SHOWN = live.LIVE_IMPLS + ("fa4",)     # a recording's peers start visible: cuDNN and FlashAttention-4


def _use_recorded(near: dict) -> None:
    ss = st.session_state
    n, row = near["n"], follow_row(ss.get("cfg.row", 0), ss.get("cfg.n", 0), near["n"])
    state.set_values(n=n, d=near["d"], causal=near["causal"], dtype=near["dtype"], row=row)
    ss[f"{NS}.batch"], ss[f"{NS}.heads"] = near["batch"], near["heads"]


def recorded_section(cfg: Config, batch: int, heads: int, mode: str, lang: str) -> None:
    ss = st.session_state
    st.header(t("speed.rec_header", lang))
    pick, up = st.columns([3, 2])
    with up:
        upload_box(lang)
    options = {k: ds for k, ds in datasets(lang).items() if any(c["mode"] == mode for c in ds["cells"])}
    if not options:
        st.warning(t("speed.no_dataset", lang, mode=t(f"speed.mode_{mode}", lang)), icon=":material/folder_off:")
        return
    if ss.get(f"{NS}.dataset") not in options:
        ss[f"{NS}.dataset"] = next(iter(options))
    with pick:
        st.selectbox(t("speed.dataset", lang), list(options), format_func=lambda k: _label(k, options[k], lang),
                     help=t("speed.dataset_help", lang), **state.kept(f"{NS}.dataset", next(iter(options))))
        st.segmented_control(t("speed.metric", lang), ("ms", "tflops"), required=True,
                             format_func=lambda m: t(f"speed.metric_{m}", lang), **_kept("metric"))
    key = ss[f"{NS}.dataset"]
    ds = options[key]
    near = nearest_config(ds, n=cfg.n, d=cfg.d, causal=cfg.causal, dtype=cfg.dtype, batch=batch, heads=heads,
                          mode=mode)
    mine = dict(n=cfg.n, d=cfg.d, causal=cfg.causal, dtype=cfg.dtype, batch=batch, heads=heads, mode=mode)
    same = all(near[k] == mine[k] for k in SAME_KEYS)
    if same:
        st.success(t("speed.rec_same", lang, cfg=speed_live.family_text(near, lang)), icon=":material/check:")
    else:
        st.info(t("speed.rec_nearest", lang, mine=speed_live.family_text(mine, lang),
                  near=speed_live.family_text(near, lang)),
                icon=":material/near_me:")
        st.button(t("speed.use_recorded", lang), key=f"{NS}.use_recorded", on_click=_use_recorded, args=(near,),
                  icon=":material/sync_alt:")

    fam = charts.family(ds["cells"], near)
    fam_key = fingerprint(fam, near["n"], RECORDED_SHOWN)           # what the two charts are drawn from
    fam_text = speed_live.family_text(near, lang, with_n=False)
    slug = key.split(":", 1)[1].removesuffix(".json") + "_" + speed_live.family_slug(near)
    source = source_line(ds, lang)
    meta = dict(source="recorded dataset", dataset=key.split(":", 1)[1], provenance=ds["provenance"],
                recorded_configuration=near, asked=mine)                 # goes into every exported file
    a, b = st.columns(2)
    metric = ss[f"{NS}.metric"]
    with a, shown_errors(lang, where="time vs N"):
        title = charts.two_line_title(t("speed.title_time" if metric == "ms" else "speed.title_tflops", lang), fam_text)
        fig = shared_figure("speed.perf", (fam_key, lang, metric, title), lambda: charts.perf_figure(
            fam, lang, metric=metric, mark_n=near["n"], shown=RECORDED_SHOWN, title=title))
        chart(fig, f"recorded_{metric}", slug, key=f"{NS}.rec_perf", meta=meta)
        st.caption(source)
    with b, shown_errors(lang, where="memory vs N"):
        title = charts.two_line_title(t("speed.title_memory", lang), fam_text)
        fig = shared_figure("speed.memory", (fam_key, lang, title), lambda: charts.memory_figure(
            fam, lang, mark_n=near["n"], shown=RECORDED_SHOWN, title=title))
        chart(fig, "recorded_memory", slug, key=f"{NS}.rec_memory", meta=meta)
        st.caption(source)
    with shown_errors(lang, where="provenance"):
        provenance_panel(ds, lang)
    st.caption(t("speed.legend_hint", lang))

    st.subheader(t("speed.table_header", lang, cfg=speed_live.family_text(near, lang)))
    cells = cells_for(ds, near)
    speed_live.show_ratio_table(cells, lang, key=f"{NS}.rec_table")
    st.caption(source)
    speed_live.cell_notes(cells, lang)
    naive_causal_note(cells, lang)


def naive_causal_note(cells: list[dict], lang: str) -> None:
    """Under the causal mask naive attention computes all N² scores and masks afterwards; TFLOP/s counts only the
    useful half. Say what its recorded time means in FLOPs it actually executed (derived from the time)."""
    for c in cells:
        if c["impl"] == "naive" and c["causal"] and c["status"] == "ok" and c.get("ms"):
            done = flops(c["n"], c["d"], False, c["batch"], c["heads"], c["mode"]) / (c["ms"] * 1e9)
            st.caption(t("speed.naive_causal", lang, n=c["n"], ms=f"{c['ms']:,.2f}", useful=f"{c['tflops']:.0f}",
                         done=f"{done:.0f}"))


# ----------------------------------------------------------------------------- memory on this CPU

@st.cache_data(max_entries=4, show_spinner=False)
def cached_exercise(ns: tuple[int, ...]) -> list[dict]:
    return cpu_memory.run_exercise(ns=ns)


def exercise_frame(rows: list[dict], lang: str) -> pd.DataFrame:
    mib = 2 ** 20
    return pd.DataFrame({
        "N": [r["n"] for r in rows],
        t("speed.cpu_col_naive", lang): [f"{r['naive_peak_bytes'] / mib:,.2f}" for r in rows],
        t("speed.cpu_col_theory", lang): [f"{r['naive_theory_bytes'] / mib:,.2f}" for r in rows],
        t("speed.cpu_col_tiled", lang): [f"{r['tiled_peak_bytes'] / mib:,.3f}" for r in rows],
        t("speed.cpu_col_output", lang): [f"{r['output_bytes'] / mib:,.3f}" for r in rows],
        t("speed.cpu_col_scratch", lang): [f"{r['tiled_scratch_bytes'] / 1024:,.0f}" for r in rows],
        t("speed.cpu_col_ratio", lang): [f"{r['naive_over_tiled']:.1f}×" for r in rows],
        t("speed.cpu_col_diff", lang): [f"{r['max_abs_diff']:.1e}" for r in rows],
    })


def _show_exercise() -> None:
    st.session_state[f"{NS}.cpu_shown"] = True


def exercise_section(lang: str) -> None:
    ss = st.session_state
    st.header(t("speed.cpu_header", lang))
    st.markdown(t("speed.cpu_intro", lang))
    ns = tuple(EXERCISE_NS)
    st.button(t("speed.cpu_run", lang, ns=", ".join(str(n) for n in ns)), key=f"{NS}.cpu_run",
              icon=":material/memory:", on_click=_show_exercise)
    if not ss.get(f"{NS}.cpu_shown"):
        return
    with st.spinner(t("speed.cpu_running", lang)):
        rows = cached_exercise(ns)
    left, right = st.columns([3, 2], vertical_alignment="center")
    with left:
        chart(shared_figure("speed.cpu", (fingerprint(rows), lang), lambda: charts.cpu_memory_figure(rows, lang)),
              "cpu_memory", "N" + "-".join(str(n) for n in ns),
              key=f"{NS}.cpu_chart", meta=dict(source="measured on this CPU (numpy float64, tracemalloc)",
                                               device="cpu", rows=rows))
    with right:
        first, last = rows[0], rows[-1]
        st.markdown(t("speed.cpu_explain", lang, n0=first["n"], n1=last["n"],
                      grow=last["naive_peak_bytes"] / first["naive_peak_bytes"], sq=(last["n"] / first["n"]) ** 2,
                      ratio=last["naive_over_tiled"], kib=last["tiled_scratch_bytes"] / 1024,
                      br=last["block_rows"], bc=last["block_cols"]))
    st.dataframe(exercise_frame(rows, lang), hide_index=True, key=f"{NS}.cpu_table")


# ----------------------------------------------------------------------------- the page

def controls(lang: str) -> None:
    b, h, m = st.columns([1, 1, 3])
    b.number_input(t("speed.batch", lang), step=1, help=t("speed.bh_help", lang), **_kept("batch"))
    h.number_input(t("speed.heads", lang), step=1, help=t("speed.bh_help", lang), **_kept("heads"))
    m.segmented_control(t("speed.mode", lang), MODES, required=True, help=t("speed.mode_help", lang),
                        format_func=lambda x: t(f"speed.mode_{x}", lang), **_kept("mode"))


def render() -> None:
    lang, cfg = state.page_start(NS, fields=FIELDS)
    state.shows_caption(cfg, lang)
    controls(lang)
    bh = state.checked_batch_heads(cfg, NS, DEFAULTS, lang)
    mode = st.session_state[f"{NS}.mode"]
    if bh:
        batch, heads = bh
        if live.gpu_available():
            with shown_errors(lang, where="GPU"):
                speed_live.section(cfg, batch, heads, mode, lang)
        else:
            st.info(t("speed.no_gpu", lang), icon=":material/developer_board_off:")
        with shown_errors(lang, where="recorded datasets"):
            recorded_section(cfg, batch, heads, mode, lang)
        with st.expander(t("speed.explain_header", lang), expanded=True):
            st.markdown(t("speed.explain", lang))
            pages.link("hardware", lang, label=t("speed.to_hardware", lang, page=pages.title("hardware", lang)))
            pages.link("inside", lang, label=t("inside.to_inside", lang, page=pages.title("inside", lang)))
    else:
        st.info(t("speed.fix_input", lang), icon=":material/edit:")
    with shown_errors(lang, where="CPU memory exercise"):
        exercise_section(lang)
