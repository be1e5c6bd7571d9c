"""The page "Ring attention" under AppTest, read from what it renders: the simulation, the causal balance, the cost
model and its sources, the note that there is no recording, a recording written here (broken or good, chunked), bad
input as a message, both languages. The committed two-GPU recording is test_ring_recorded.py's. Expected values come
from float64 numpy, the engine's pure functions, or the recording's JSON read directly."""
import json
import math

import numpy as np
import pytest

pytest.importorskip("streamlit")          # the GPU machine has no streamlit; `pytest tests/*/test_ring*.py` still collects
from helpers.app import array, clean, open_page  # noqa: E402
from helpers import ring_page as rp  # noqa: E402
from flashviz.engine import ring  # noqa: E402
from flashviz.bench import ring_dataset  # noqa: E402
from flashviz.bench.spec import flops  # noqa: E402
from flashviz.charts.ring import human_ms  # noqa: E402
from flashviz.i18n import t  # noqa: E402

PAGE = "ring"
GIB = 2 ** 30


@pytest.fixture
def no_recordings(tmp_path, monkeypatch):
    monkeypatch.setattr(ring_dataset, "DEFAULT_DIR", tmp_path / "ring")
    return tmp_path / "ring"


def test_default_page_shows_the_ring_its_balance_and_no_recording(no_recordings):
    at = open_page(PAGE, d=8, seed=3)
    clean(at)
    assert any(c.value.startswith("N = 32 tokens in chunks of 4 · W = 4") for c in at.caption)
    # zigzag over 4 GPUs, chunk 4: GPU r owns chunks r and 7 - r, its local row 0 is global 4r
    table = rp.table(at, "en", "ring.col_row")
    assert list(table[t("ring.col_row", "en")]) == [0, 4, 8, 12]
    at.button(key="ring.steps.last").click().run()
    clean(at)
    table = rp.table(at, "en", "ring.col_row")
    q, k, _ = (np.asarray(a, np.float32).astype(np.float64) for a in
               np.random.default_rng(3).standard_normal((3, 32, 8)))
    for i, m_shown, l_shown in zip(table[t("ring.col_row", "en")], table["m"], table["ℓ"]):
        s = k[:i + 1] @ q[i] / math.sqrt(8)                       # causal: keys 0..i, float64
        assert float(m_shown) == pytest.approx(s.max(), abs=6e-5)
        assert float(l_shown) == pytest.approx(np.exp(s - s.max()).sum(), abs=6e-5)
    [said] = [m for m in rp.markdown(at) if m.startswith("After 4 steps")]
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
    assert text in rp.markdown(at)
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
        assert t("ring.step_text", "en", s=step + 1, s0=step, w=3, busy=busy, idle=3 - busy) in rp.markdown(at)
        held = rp.table(at, "en", "ring.col_block")[t("ring.col_block", "en")]
        assert list(held) == [f"GPU {(r - step) % 3}" for r in range(3)]
        spec = next(s for s in rp.charts(at) if s["layout"]["title"]["text"] == t("ring.ring_title", "en", s=step + 1,
                                                                                  w=3))
        assert list(array(spec["data"][0]["customdata"])[:, 1]) == [(r - step) % 3 for r in range(3)]


def test_timeline_shows_the_model_and_labels_its_sources(no_recordings, monkeypatch):
    import flashviz.ui.ring as page
    monkeypatch.setattr(page, "list_datasets", lambda: [])          # no speed recording either: all assumed
    at = open_page(PAGE)
    clean(at)
    tl = ring.timeline(4, 131072, "zigzag", True, batch=1, heads=32, d=128, elem_bytes=2)   # assumed parameters
    shown = rp.metrics(at)
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
    assert any("**1.82×**" in m for m in rp.markdown(at))          # 8.0 / 4.4 at the largest N
    df = rp.table(at, "en", "ring.col_speedup")
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
