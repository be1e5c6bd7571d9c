"""The page "Ring attention" under AppTest, read from what it renders: the simulation, the causal balance, the cost
model and its sources, the committed two-GPU recording (speed-up, transfers next to compute, the timing noise,
memory) or the note that there is none, bad input as a message, both languages. Expected values come from float64
numpy, the engine's pure functions, or the recording's JSON read directly."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")          # the GPU machine has no streamlit; `pytest tests/*/test_ring*.py` still collects
from helpers.app import array, clean, open_page  # noqa: E402
from flashviz.engine import ring  # noqa: E402
from flashviz.bench import ring_dataset  # noqa: E402
from flashviz.bench.spec import flops  # noqa: E402
from flashviz.charts.ring import human_ms  # noqa: E402
from flashviz.i18n import t  # noqa: E402

PAGE = "ring"
RING_DIR = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "ring"
RECORDING = RING_DIR / "nvidia-h200-x2-2026-11-30b.json"
COMPARE = RING_DIR / "compare" / "nvidia-h200-x2-2026-11-30-plain-512k.json"    # plain ring, not listed on the page
GIB = 2 ** 30


@pytest.fixture
def no_recordings(tmp_path, monkeypatch):
    monkeypatch.setattr(ring_dataset, "DEFAULT_DIR", tmp_path / "ring")
    return tmp_path / "ring"


def _charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _chart(at, title: str) -> dict:
    [spec] = [s for s in _charts(at) if s["layout"]["title"]["text"] == title]
    return spec


def _traces(spec: dict) -> dict:
    return {d["name"]: d for d in spec["data"]}


def _markdown(at) -> list[str]:
    return [m.value for m in at.markdown]


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _table(at, lang: str, column: str):
    [df] = [d.value for d in at.dataframe if t(column, lang) in d.value.columns]
    return df


def test_default_page_shows_the_ring_its_balance_and_no_recording(no_recordings):
    at = open_page(PAGE, d=8, seed=3)
    clean(at)
    assert any(c.value.startswith("N = 32 tokens in chunks of 4 · W = 4") for c in at.caption)
    # zigzag over 4 GPUs, chunk 4: GPU r owns chunks r and 7 - r, its local row 0 is global 4r
    table = _table(at, "en", "ring.col_row")
    assert list(table[t("ring.col_row", "en")]) == [0, 4, 8, 12]
    at.button(key="ring.steps.last").click().run()
    clean(at)
    table = _table(at, "en", "ring.col_row")
    q, k, _ = (np.asarray(a, np.float32).astype(np.float64) for a in
               np.random.default_rng(3).standard_normal((3, 32, 8)))
    for i, m_shown, l_shown in zip(table[t("ring.col_row", "en")], table["m"], table["ℓ"]):
        s = k[:i + 1] @ q[i] / math.sqrt(8)                       # causal: keys 0..i, float64
        assert float(m_shown) == pytest.approx(s.max(), abs=6e-5)
        assert float(l_shown) == pytest.approx(np.exp(s - s.max()).sum(), abs=6e-5)
    [said] = [m for m in _markdown(at) if m.startswith("After 4 steps")]
    diff = said.split("max difference ")[1].split(")")[0]
    assert float(diff) <= 1e-12                                 # the merged rows are one pass, to float64 rounding
    # the causal balance, counted here: chunk (query) i sees key chunk j <= i; contiguous GPU r owns chunk r
    owned = {"contiguous": [[r] for r in range(4)], "zigzag": [[r, 7 - r] for r in range(4)]}
    def work(layout):
        nc = 4 if layout == "contiguous" else 8
        c = 32 // nc
        full = c * c
        pairs = lambda qi, kj: 0 if kj > qi else full if kj < qi else c * (c + 1) // 2          # noqa: E731
        return np.array([[sum(pairs(qi, kj) for qi in owned[layout][r] for kj in owned[layout][(r - s) % 4])
                          for r in range(4)] for s in range(4)])
    wc, wz = work("contiguous"), work("zigzag")
    assert np.array_equal(wc, ring.work_table(4, 32, "contiguous", True))
    ideal = wc.sum() / 4
    text = t("ring.balance_text", "en", w=4, n=32, idle=int((wc == 0).sum()), slots=16,
             busy=f"{wc.sum(0).max() / wc.sum(0).min():.1f}", crit=f"{wc.max(1).sum() / ideal:.2f}",
             idle_z=int((wz == 0).sum()), crit_z=f"{wz.max(1).sum() / ideal:.2f}")
    assert text in _markdown(at)
    assert (wc == 0).sum() == 6 and (wz == 0).sum() == 0
    assert said == t("ring.takeaway_zigzag", "en", w=4, n=32, diff=diff, slots=16, idle_c=6, idle_z=0,
                     crit_c=f"{wc.max(1).sum() / ideal:.2f}", crit_z=f"{wz.max(1).sum() / ideal:.2f}")
    # the opening picture, then everything else behind expanders named for their reader
    assert [e.label for e in at.main.expander] == [t(f"ring.{k}_header", "en") for k in ("row", "balance", "tl", "rec")]
    assert any(t("ring.no_recording", "en")[:40] in i.value for i in at.info)
    assert any("torchrun --nproc-per-node 2 -m flashviz.bench.ring_bench" in c.value for c in at.code)
    assert len(at.get("plotly_chart")) == 5                     # ring, matrix, state, work, timeline


def test_stepping_moves_the_blocks(no_recordings):
    at = open_page(PAGE, **{"ring.world": 3, "ring.layout": "contiguous", "ring.causal": True, "ring.chunk": 2})
    clean(at)
    work = ring.work_table(3, 6, "contiguous", True)
    for step, button in ((0, None), (1, "next"), (2, "last")):
        if button:
            at.button(key=f"ring.steps.{button}").click().run()
            clean(at)
        busy = int((work[step] > 0).sum())
        assert busy == 3 - step                                   # contiguous causal: GPU 0 idles first
        assert t("ring.step_text", "en", s=step + 1, s0=step, w=3, busy=busy, idle=3 - busy) in _markdown(at)
        held = _table(at, "en", "ring.col_block")[t("ring.col_block", "en")]
        assert list(held) == [f"GPU {(r - step) % 3}" for r in range(3)]
        spec = next(s for s in _charts(at) if s["layout"]["title"]["text"] == t("ring.ring_title", "en", s=step + 1,
                                                                                  w=3))
        assert list(array(spec["data"][0]["customdata"])[:, 1]) == [(r - step) % 3 for r in range(3)]


def test_timeline_shows_the_model_and_labels_its_sources(no_recordings, monkeypatch):
    import flashviz.ui.ring as page
    monkeypatch.setattr(page, "list_datasets", lambda: [])          # no speed recording either: all assumed
    at = open_page(PAGE)
    clean(at)
    tl = ring.timeline(4, 131072, "zigzag", True, batch=1, heads=32, d=128, elem_bytes=2)   # assumed parameters
    shown = _metrics(at)
    assert shown[t("ring.tl_total", "en")] == f"{human_ms(tl.total_s)} ms"
    assert shown[t("ring.tl_comm_only", "en")] == f"{human_ms(tl.comm_only_s)} ms"
    assert shown[t("ring.tl_exposed", "en")] == f"{human_ms(tl.total_s - tl.compute_only_s)} ms"
    caps = [c.value for c in at.caption]
    assert t("ring.tl_shares", "en", share=f"{100 * tl.comm_only_s / tl.compute_only_s:.1f}",
             exposed=human_ms(tl.total_s - tl.compute_only_s), hidden=f"{100 * tl.hidden:.0f}") in caps
    assert "Assumed: about the fast kernel" in " ".join(caps)
    assert "Assumed: NVLink 4" in " ".join(caps) and "Assumed: a device-to-device copy" in " ".join(caps)


@pytest.mark.parametrize("values,msg", [({"ring.chunk": 0}, "chunk length must be in 1..16"),
                                        ({"ring.chunk": 99}, "1..16"), ({"d": 0}, "head dim d")])
def test_bad_input_is_a_message(no_recordings, values, msg):
    at = open_page(PAGE, **values)
    assert not at.exception
    assert any(msg in e.value for e in at.error)


def test_chinese(no_recordings):
    at = open_page(PAGE, lang="zh")
    clean(at)
    assert at.title[0].value == t("ring.title", "zh")


# ----------------------------------------------------------------------------- the committed two-GPU recording

def _file_cells(mode: str, causal: bool) -> list[dict]:
    return [c for c in json.loads(RECORDING.read_text())["cells"] if c["mode"] == mode and c["causal"] == causal]


@pytest.mark.parametrize("lang,mode,causal", [("en", "fwd", True), ("zh", "fwd+bwd", True), ("en", "fwd", False),
                                             ("zh", "fwd+bwd", False)])
def test_the_recording_is_drawn_from_the_file(lang, mode, causal):
    at = open_page(PAGE, lang=lang, **{"ring.mode": mode, "ring.mcausal": causal})
    clean(at)
    cells = _file_cells(mode, causal)
    ok = [c for c in cells if c["status"] == "ok"]
    one = {c["n"]: c["ms"] for c in ok if c["world"] == 1}
    ring_cells = sorted((c for c in ok if c["world"] == 2), key=lambda c: (c["n"], c["layout"]))
    name = {lay: t("ring.m_multi", lang, w=2, layout=t(f"ring.layout_{lay}", lang)) for lay in ("contiguous", "zigzag")}

    # the table: one row per 2-GPU cell, speed-up and memory over 1 GPU, the timed waits and the transfers alone
    df = _table(at, lang, "ring.col_speedup")
    col = lambda key: list(df[t(key, lang)])                                   # noqa: E731
    peak1 = {c["n"]: c["peak_bytes"] for c in ok if c["world"] == 1}
    compute = [c["ms"] - c["ms_exposed"] for c in ring_cells]
    assert col("ring.col_n") == [c["n"] for c in ring_cells]
    assert col("ring.col_layout") == [name[c["layout"]] for c in ring_cells]
    nan = float("nan")
    fl = lambda xs: np.array([nan if x is None else x for x in xs], dtype=float)   # noqa: E731
    assert np.allclose(fl(col("ring.col_speedup")), [one[c["n"]] / c["ms"] if c["n"] in one else nan
                                                     for c in ring_cells], equal_nan=True)
    assert np.allclose(col("ring.col_comm"), [c["ms_comm"] for c in ring_cells])
    assert np.allclose(col("ring.col_exposed_direct"), [c["ms_exposed"] for c in ring_cells])
    assert np.allclose(col("ring.col_compute_direct"), compute)
    assert col("ring.col_comm_pct") == [f"{100 * c['ms_comm'] / x:.2f} %" for c, x in zip(ring_cells, compute)]
    assert col("ring.col_hidden") == [f"{100 * (1 - c['ms_exposed'] / c['ms_comm']):.2f} %"
                                      if c["ms_exposed"] <= c["ms_comm"] else t("ring.hidden_imbalance", lang)
                                      for c in ring_cells]
    assert np.allclose(col("ring.col_peak"), [c["peak_bytes"] / GIB for c in ring_cells])
    assert np.allclose(fl(col("ring.col_peak_ratio")), [c["peak_bytes"] / peak1[c["n"]] if c["n"] in peak1 else nan
                                                        for c in ring_cells], equal_nan=True)

    # the summary: each layout's speed-up at its largest N measured on both 1 and 2 GPUs
    for lay in ("contiguous", "zigzag"):
        n = max(c["n"] for c in ring_cells if c["layout"] == lay and c["n"] in one)
        [c] = [c for c in ring_cells if c["layout"] == lay and c["n"] == n]
        assert t("ring.rec_summary", lang, what=name[lay], n=f"{n // 1024}k", s=f"{one[n] / c['ms']:.2f}",
                 w=2) in _markdown(at)

    # speed-up and memory charts per N and layout
    sp = _traces(_chart(at, t("ring.m_speedup_title", lang)))
    mem = _traces(_chart(at, t("ring.m_memory_title", lang)))
    for lay in ("contiguous", "zigzag"):
        cs = [c for c in ring_cells if c["layout"] == lay]
        both = [c for c in cs if c["n"] in one]                               # a speed-up needs both measured
        assert list(array(sp[name[lay]]["x"])) == [c["n"] for c in both]
        assert np.allclose(array(sp[name[lay]]["y"]), [one[c["n"]] / c["ms"] for c in both])
        assert np.allclose(array(mem[name[lay]]["y"]), [c["peak_bytes"] / GIB for c in cs])
    ones = sorted((c for c in ok if c["world"] == 1), key=lambda c: c["n"])
    assert np.allclose(array(mem[t("ring.m_single", lang)]["y"]), [c["peak_bytes"] / GIB for c in ones])

    # transfers next to compute: the transfers alone and the timed waits, as % of the compute (ring - waits)
    ov = _chart(at, t("ring.m_overlap_title", lang))
    tr = _traces(ov)
    for lay in ("contiguous", "zigzag"):
        cs = [c for c in ring_cells if c["layout"] == lay]
        comm = tr[t("ring.m_comm_series", lang, what=name[lay])]
        exposed = tr[t("ring.m_exposed_series_direct", lang, what=name[lay])]
        assert np.allclose(array(comm["y"]), [100 * c["ms_comm"] / (c["ms"] - c["ms_exposed"]) for c in cs])
        assert np.allclose(array(exposed["y"]), [100 * c["ms_exposed"] / (c["ms"] - c["ms_exposed"]) for c in cs])
        assert not np.any(array(exposed["error_y"]["array"]))               # a timed wait is no difference of totals

    # the hidden share, from the timed waits, per layout; a cell that waited longer than its transfers alone take
    # has no hidden share (a share below 0 means nothing): its wait is load imbalance; the backward's caveat
    hidden = [100 * (1 - c["ms_exposed"] / c["ms_comm"]) for c in ring_cells]
    assert np.allclose(hidden, [100 * c["hidden"] for c in ring_cells])          # the benchmark's own figure
    captions = [c.value for c in at.caption]
    assert t("ring.overlap_direct", lang, pass_=t(f"ring.pass_{mode}", lang),
             mask=t("ring.mask_causal" if causal else "ring.mask_full", lang)) in captions
    ms3 = lambda v: f"{v:,.0f}" if v >= 100 else f"{v:.3g}" if v >= 1e-4 else f"{v:.1e}"   # noqa: E731
    for lay in ("contiguous", "zigzag"):
        cs = [c for c in ring_cells if c["layout"] == lay]
        under = [c for c in cs if c["ms_exposed"] <= c["ms_comm"]]
        over = [c for c in cs if c["ms_exposed"] > c["ms_comm"]]
        pct = [100 * c["ms_comm"] / (c["ms"] - c["ms_exposed"]) for c in under]
        share = [100 * (1 - c["ms_exposed"] / c["ms_comm"]) for c in under]
        if under:
            assert t("ring.overlap_hidden", lang, layout=t(f"ring.layout_{lay}", lang), c_lo=f"{min(pct):.1f}",
                     c_hi=f"{max(pct):.1f}", e_lo=ms3(min(c["ms_exposed"] for c in under)),
                     e_hi=ms3(max(c["ms_exposed"] for c in under)), h_lo=f"{min(share):.1f}",
                     h_hi=f"{max(share):.1f}") in captions
            assert 0 <= min(share) and max(share) <= 100
        imbalance = [x for x in captions if x.startswith(t(f"ring.layout_{lay}", lang) + (" at N = " if lang == "en"
                                                                                         else "，N = "))]
        assert len(imbalance) == (1 if over else 0)
        if over:                  # contiguous causal: GPU 1 does 3x GPU 0's work (counted here); else balanced
            n = over[-1]["n"]
            c = n // 2
            per = [c * (c + 1) // 2, c * (c + 1) // 2 + c * c] if lay == "contiguous" and causal else [1, 1]
            assert (lay == "contiguous" and causal) or mode == "fwd+bwd"        # the forward waits only so
            key = "ring.overlap_imbalance" if per[1] > per[0] else "ring.overlap_longer"
            assert t(key, lang, layout=t(f"ring.layout_{lay}", lang),
                     ns=", ".join(f"{c['n'] // 1024}k" for c in over),
                     w_lo=ms3(min(c["ms_exposed"] for c in over)), w_hi=ms3(max(c["ms_exposed"] for c in over)),
                     t_lo=ms3(min(c["ms_comm"] for c in over)), t_hi=ms3(max(c["ms_comm"] for c in over)),
                     busy=f"{per[1] / per[0]:.1f}") == imbalance[0]
    assert (t("ring.overlap_direct_bwd", lang) in captions) == (mode == "fwd+bwd")
    assert not any(x.endswith("%") and x.startswith("-") for x in col("ring.col_hidden"))
    runs = sorted({(c["n"], c["chunks"]) for c in ring_cells if c["chunks"] > 1})    # which N ran chunked, S each
    assert runs and t("ring.chunked_cells", lang, cells=", ".join(f"N = {n // 1024}k: S = {s}" for n, s in runs)) \
        in captions
    assert col("ring.col_chunks") == [c["chunks"] for c in ring_cells]
    if mode == "fwd" and causal:                            # the contiguous causal chunked cells waited for compute
        assert min(hidden) < 0

    # memory: the forward's peak per GPU at the largest N, next to what the ring holds (engine) and one GPU
    fwd = [c for c in _file_cells("fwd", causal) if c["status"] == "ok"]
    n = max(c["n"] for c in fwd if c["world"] == 2)
    c2 = min((c for c in fwd if c["world"] == 2 and c["n"] == n), key=lambda c: c["peak_bytes"])
    [c1] = [c for c in fwd if c["world"] == 1 and c["n"] == n]
    shape = dict(batch=1, heads=32, d=128, elem_bytes=2)
    s_ = c2.get("chunks") or 1                                                 # the S this cell ran
    parts = ring.forward_memory(2, n, c2["layout"], causal, chunks=s_, **shape)
    g = lambda b: f"{b / GIB:.2f}"                                             # noqa: E731
    chunked = s_ > 1
    assert t("ring.memory_note_chunked" if chunked else "ring.memory_note", lang, s=s_, n=f"{n // 1024}k",
             layout=t(f"ring.layout_{c2['layout']}", lang),
             mask=t("ring.mask_causal" if causal else "ring.mask_full", lang), peak=g(c2["peak_bytes"]),
             one=g(c1["peak_bytes"]), ratio=f"{c2['peak_bytes'] / c1['peak_bytes']:.2f}", inputs=g(parts["inputs"]),
             receive=g(parts["receive"]), acc=g(parts["accumulator"]), blk=g(parts["block_output"]),
             slices=t("ring.memory_slices_chunked" if chunked else "ring.memory_slices", lang,
                      slices=g(parts["slices"])) if parts["slices"] else "",
             model=g(sum(parts.values())), gap=f"{(c2['peak_bytes'] - sum(parts.values())) / 2 ** 20:.0f}",
             one_model=g(sum(ring.forward_memory(1, n, "contiguous", causal, **shape).values())),
             frac=f"{sum(parts.values()) / sum(ring.forward_memory(1, n, 'contiguous', causal, **shape).values()):.2f}"
             ) in captions

    caps = " ".join(c.value for c in at.caption)
    for c in cells:
        assert (f"N={c['n']} W={c['world']} {c['layout']}: skipped" in caps) == (c["status"] == "skipped")
    assert any("2.28.9" in c.value for c in at.caption)


def test_the_recording_hides_the_forward_transfers_and_its_memory_is_what_the_ring_holds():
    """What the page says, checked on the file: in the forward every plain-ring 2-GPU cell (S = 1) waited
    for less than 1 % of its transfer time, every chunked one without a mask for less than 5 %; and every forward
    cell's measured peak is the engine's account of what a GPU holds for the S it ran plus at most the merge's
    scratch (three 64 MiB slabs), never less."""
    data = json.loads(RECORDING.read_text())
    cfg = data["config"]
    fwd = [c for c in data["cells"] if c["status"] == "ok" and c["mode"] == "fwd"]
    plain = [c for c in fwd if c["world"] == 2 and (c.get("chunks") or 1) == 1]
    chunked = [c for c in fwd if c["world"] == 2 and (c.get("chunks") or 1) > 1]
    assert plain and chunked and all(c["hidden"] >= 0.99 and c["ms_exposed"] < 0.01 * c["ms_comm"] for c in plain)
    assert all(c["hidden"] >= 0.95 for c in chunked if not c["causal"])
    for c in fwd:
        model = sum(ring.forward_memory(c["world"], c["n"], c["layout"], c["causal"], chunks=c.get("chunks") or 1,
                                        batch=cfg["batch"], heads=cfg["heads"], d=cfg["d"], elem_bytes=2).values())
        assert 0 <= c["peak_bytes"] - model <= 3 * 64 * 2 ** 20, c


def test_plain_ring_against_chunked_at_512k_is_a_trade_of_speed_for_memory():
    """The comparison the page draws, on the two files: the same commit and machine ran the plain ring (S = 1) at
    N = 512k; it was faster than the default chunked forward in every cell, and held more memory per GPU; both
    peaks are the engine's account (the plain one to the byte plus nothing, the chunked one plus its 32 MiB)."""
    plain = ring_dataset.load_ring_dataset(COMPARE)                            # a valid recording
    ring_data = json.loads(RECORDING.read_text())
    assert plain["provenance"]["git_commit"] == ring_data["provenance"]["git_commit"]
    chunked = {(c["layout"], c["causal"]): c for c in ring_data["cells"]
               if c["mode"] == "fwd" and c["world"] == 2 and c["n"] == 524288 and c["status"] == "ok"}
    cells = [c for c in plain["cells"] if c["status"] == "ok"]
    assert len(cells) == 4 and all(c["world"] == 2 and c["n"] == 524288 and c["chunks"] == 1 for c in cells)
    for c in cells:
        other = chunked[(c["layout"], c["causal"])]
        assert other["chunks"] > 1 and c["ms"] < other["ms"] and c["peak_bytes"] > other["peak_bytes"]
        model = sum(ring.forward_memory(2, c["n"], c["layout"], c["causal"], chunks=1, batch=1, heads=32, d=128,
                                        elem_bytes=2).values())
        assert 0 <= c["peak_bytes"] - model <= 3 * 64 * 2 ** 20


def test_the_timeline_takes_its_parameters_from_the_recording():
    at = open_page(PAGE)
    clean(at)
    cells = [c for c in json.loads(RECORDING.read_text())["cells"] if c["status"] == "ok" and c["mode"] == "fwd"]
    one = max((c for c in cells if c["world"] == 1 and not c["causal"]), key=lambda c: c["n"])
    plain = [c for c in cells if c["world"] > 1 and c["ms_comm"] and c["chunks"] == 1]
    comm = max(plain, key=lambda c: c["n"])                   # the plain ring's largest N: one block per step
    caps = [c.value for c in at.caption]
    assert t("ring.src_compute_ring", "en", v=f"{one['flops'] / (one['ms'] * 1e-3) / 1e12:,.0f}", n=one["n"]) in caps
    link = comm["step_bytes"] / (comm["ms_comm"] * 1e-3)      # W = 2: one step, one K/V block
    assert t("ring.src_link_ring", "en", v=f"{link / 1e9:,.0f}", n=comm["n"], w=2) in caps
    # every cell measures the same link once its bytes are counted right: a chunked forward (S sub-chunk passes per
    # query slab, S slabs) sends S blocks where the plain ring sends one
    for c in (c for c in cells if c["world"] > 1 and c["ms_comm"] and c["n"] >= 65536 and not c["causal"]):
        rate = c["chunks"] * c["step_bytes"] / (c["ms_comm"] * 1e-3)
        assert 0.75 < rate / link < 1.25, (c["n"], c["chunks"], rate / 1e9, link / 1e9)


# ----------------------------------------------------------------------------- a recording written here

def _dataset() -> dict:
    cfg = dict(batch=1, heads=4, d=64, dtype="float16", impl="fast", warmup=1, reps=5, min_reps=3, rep_s=1.5,
               budget_s=400.0, seed=0, overlap=True)
    cells = []
    for n, t1, t2, comp, comm in ((4096, 2.0, 1.2, 1.1, 0.4), (8192, 8.0, 4.4, 4.3, 0.6)):
        for w, lay, ms, mc, mm in ((1, "contiguous", t1, None, None), (2, "zigzag", t2, comp, comm)):
            f = flops(n, 64, True, 1, 4, "fwd")
            cells.append(dict(n=n, world=w, layout=lay, causal=True, mode="fwd", status="ok", message=None, ms=ms,
                              ms_p20=ms * 0.99, ms_p80=ms * 1.02, reps=5, ms_compute=mc, ms_comm=mm,
                              hidden=None if mm is None else 1 - (ms - mc) / mm, flops=f, tflops=f / (ms * 1e9),
                              peak_bytes=n * 1000 // w, peak_bytes_min=n * 900 // w, input_bytes=3 * n * 512 // w,
                              step_bytes=0 if w == 1 else 2 * n * 512 // w))
    prov = dict(device="cuda", device_name="NVIDIA H200", torch="2.11.0+cu130", python="3.12.3", platform="Linux",
                created_utc="2026-12-01T10:00:00+00:00", git_commit="abc123", command="torchrun --nproc-per-node 2 "
                "-m flashviz.bench.ring_bench --budget-s 400", timer="CUDA events", backend="nccl", nccl_version="2.27.3",
                world_size=2, gpu_names="NVIDIA H200, NVIDIA H200")
    return ring_dataset.validate_ring_dataset(dict(
        schema_version=1, kind="flashviz-ring", complete=True, elapsed_s=12.0, provenance=prov, config=cfg,
        checks=[dict(world=2, layout="zigzag", causal=True, n=2048, err_ring=1e-3, err_single=9e-4, ok=True)],
        cells=cells))


def test_a_broken_file_is_a_warning_and_a_good_one_is_drawn(no_recordings):
    no_recordings.mkdir()
    (no_recordings / "h200x2.json").write_text(json.dumps(_dataset()))
    (no_recordings / "broken.json").write_text("{not json")
    at = open_page(PAGE)
    assert not at.exception
    assert any("broken.json" in w.value for w in at.warning)     # a bad file is a warning, not a dead page
    assert any("**1.82×**" in m for m in _markdown(at))          # 8.0 / 4.4 at the largest N
    df = _table(at, "en", "ring.col_speedup")
    assert np.allclose(df[t("ring.col_speedup", "en")], [2.0 / 1.2, 8.0 / 4.4])
    assert np.allclose(df[t("ring.col_exposed", "en")], [1.2 - 1.1, 4.4 - 4.3])
    assert list(df[t("ring.col_comm_pct", "en")]) == [f"{100 * 0.4 / 1.1:.2f} %", f"{100 * 0.6 / 4.3:.2f} %"]
    assert any("2.27.3" in c.value for c in at.caption) and any("NVIDIA H200, NVIDIA H200" in c.value for c in at.caption)
    caps = " ".join(c.value for c in at.caption)
    assert "N = 8192 in the ring recording" in caps             # compute: the only (causal) 1-GPU cells
    assert "at N = 8192 on 2 GPUs" in caps                       # link: its transfers alone


def test_a_chunked_recording_is_told_as_chunked(no_recordings):
    """A recording whose two-GPU forwards ran the chunked forward (cells' "chunks" = 4): the memory note names the
    sub-chunks and the engine's account of that forward (two sub-chunk buffers, one slab's output), not the
    arriving block; in both languages."""
    ds = _dataset()
    for c in ds["cells"]:
        if c["world"] == 2:
            c["chunks"] = 4
    no_recordings.mkdir()
    (no_recordings / "h200x2.json").write_text(json.dumps(ds))
    shape = dict(batch=1, heads=4, d=64, elem_bytes=2)
    parts = ring.forward_memory(2, 8192, "zigzag", True, chunks=4, **shape)
    assert parts["receive"] == 2 * 2 * 2 * 512 * 4 * 64 * 2 and parts["block_output"] == 512 * 4 * 64 * 2
    g = lambda b: f"{b / GIB:.2f}"                                             # noqa: E731
    c2 = ds["cells"][3]
    one = ds["cells"][2]["peak_bytes"]
    for lang in ("en", "zh"):
        at = open_page(PAGE, lang=lang)
        assert not at.exception
        want = t("ring.memory_note_chunked", lang, s=4, n="8k", layout=t("ring.layout_zigzag", lang),
                 mask=t("ring.mask_causal", lang), peak=g(c2["peak_bytes"]), one=g(one),
                 ratio=f"{c2['peak_bytes'] / one:.2f}", inputs=g(parts["inputs"]), receive=g(parts["receive"]),
                 acc=g(parts["accumulator"]), blk=g(parts["block_output"]),
                 slices=t("ring.memory_slices_chunked", lang, slices=g(parts["slices"])),
                 model=g(sum(parts.values())), gap=f"{(c2['peak_bytes'] - sum(parts.values())) / 2 ** 20:.0f}",
                 one_model=g(sum(ring.forward_memory(1, 8192, "contiguous", True, **shape).values())))
        assert want in [c.value for c in at.caption]


@pytest.mark.parametrize("values", [{}, {"ring.mode": "fwd+bwd", "ring.mcausal": False}])
def test_the_chinese_page_has_no_english_prose(values):
    from helpers.zh import english_on_a_chinese_page
    at = open_page(PAGE, lang="zh", **values)
    clean(at)
    assert not english_on_a_chinese_page(at)
