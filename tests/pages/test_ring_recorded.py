"""The page "Ring attention" under AppTest, its committed two-GPU recording: the speed-up, transfers next to compute,
the timing noise and the memory drawn from the file, the plain ring against the chunked one at 512k, and the
timeline's parameters taken from the recording. Expected values come from float64 numpy, the engine's pure
functions, or the recording's JSON read directly. The simulation, bad input and a recording written here are in
test_ring_page.py."""
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")          # the GPU machine has no streamlit; `pytest tests/*/test_ring*.py` still collects
from helpers.app import array, clean, open_page  # noqa: E402
from helpers import ring_page as rp  # noqa: E402
from flashviz.engine import ring  # noqa: E402
from flashviz.bench import ring_dataset  # noqa: E402
from flashviz.i18n import t  # noqa: E402

PAGE = "ring"
RING_DIR = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "ring"
RECORDING = RING_DIR / "nvidia-h200-x2-2026-11-30b.json"
COMPARE = RING_DIR / "compare" / "nvidia-h200-x2-2026-11-30-plain-512k.json"    # plain ring, not listed on the page
GIB = 2 ** 30


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
    df = rp.table(at, lang, "ring.col_speedup")
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
                 w=2) in rp.markdown(at)

    # speed-up and memory charts per N and layout
    sp = rp.traces(rp.chart(at, t("ring.m_speedup_title", lang)))
    mem = rp.traces(rp.chart(at, t("ring.m_memory_title", lang)))
    for lay in ("contiguous", "zigzag"):
        cs = [c for c in ring_cells if c["layout"] == lay]
        both = [c for c in cs if c["n"] in one]                               # a speed-up needs both measured
        assert list(array(sp[name[lay]]["x"])) == [c["n"] for c in both]
        assert np.allclose(array(sp[name[lay]]["y"]), [one[c["n"]] / c["ms"] for c in both])
        assert np.allclose(array(mem[name[lay]]["y"]), [c["peak_bytes"] / GIB for c in cs])
    ones = sorted((c for c in ok if c["world"] == 1), key=lambda c: c["n"])
    assert np.allclose(array(mem[t("ring.m_single", lang)]["y"]), [c["peak_bytes"] / GIB for c in ones])

    # transfers next to compute: the transfers alone and the timed waits, as % of the compute (ring - waits)
    ov = rp.chart(at, t("ring.m_overlap_title", lang))
    tr = rp.traces(ov)
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
