"""The page "Ring attention" under AppTest: the simulation it shows, the causal balance, the cost model's sources,
the recorded measurement (or the note that there is none), bad input as a message, both languages."""
import json

import numpy as np
import pytest

pytest.importorskip("streamlit")          # the GPU machine has no streamlit; `pytest tests/test_ring*.py` still collects
from app_util import array, clean, open_page  # noqa: E402
from flashviz import ring  # noqa: E402
from flashviz.bench import ring_dataset  # noqa: E402
from flashviz.bench.spec import flops  # noqa: E402
from flashviz.i18n import t  # noqa: E402

PAGE = "ring"


@pytest.fixture
def no_recordings(tmp_path, monkeypatch):
    monkeypatch.setattr(ring_dataset, "DEFAULT_DIR", tmp_path / "ring")
    return tmp_path / "ring"


def _charts(at) -> dict:
    return {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def test_default_page_runs_and_shows_no_recording(no_recordings):
    at = open_page(PAGE)
    clean(at)
    v = at.session_state["ring.view"]
    assert v == dict(world=4, n=32, layout="zigzag", causal=True, err=v["err"]) and v["err"] < 1e-12
    assert at.session_state["ring.rec_view"] is None
    assert any(t("ring.no_recording", "en")[:40] in i.value for i in at.info)
    assert any("torchrun --nproc-per-node 2 -m flashviz.ring_bench" in c.value for c in at.code)
    b = at.session_state["ring.balance"]
    wc = ring.imbalance(ring.work_table(4, 32, "contiguous", True))
    assert b == dict(idle=wc["idle"], idle_z=0, crit=wc["critical_over_ideal"], crit_z=1.0)
    assert len(at.get("plotly_chart")) == 5                     # ring, matrix, state, work, timeline
    assert any(t("ring.same", "en", w=4, diff="")[:30] in s.value for s in at.success)


def test_stepping_moves_the_blocks(no_recordings):
    at = open_page(PAGE, **{"ring.world": 3, "ring.layout": "contiguous", "ring.causal": True, "ring.chunk": 2})
    clean(at)
    assert at.session_state["ring.step_view"] == dict(step=0, busy=3)
    at.button(key="ring.steps.next").click().run()
    clean(at)
    assert at.session_state["ring.step_view"] == dict(step=1, busy=2)       # contiguous causal: GPU 0 idles
    spec = next(s for s in _charts(at).values() if "ring" in s["layout"]["title"]["text"].lower()
                and "step 2 of 3" in s["layout"]["title"]["text"])
    held = array(spec["data"][0]["customdata"])[:, 1]
    assert list(held) == list(ring.held(3)[1])
    at.button(key="ring.steps.last").click().run()
    assert at.session_state["ring.step_view"] == dict(step=2, busy=1)


def test_timeline_sources_are_labelled(no_recordings):
    at = open_page(PAGE)
    clean(at)
    view = at.session_state["ring.tl_view"]
    assert view["source"]["link"] == {"kind": "assumed"} and view["source"]["hbm"] == {"kind": "assumed"}
    caps = " ".join(c.value for c in at.caption)
    assert "Assumed: NVLink 4" in caps and "Assumed: a device-to-device copy" in caps


@pytest.mark.parametrize("values,msg", [({"ring.chunk": 0}, "chunk length must be a whole number in 1..16"),
                                        ({"ring.chunk": 99}, "1..16"), ({"d": 0}, "head dim d")])
def test_bad_input_is_a_message(no_recordings, values, msg):
    at = open_page(PAGE, **values)
    assert not at.exception
    assert any(msg in e.value for e in at.error)


def test_chinese(no_recordings):
    at = open_page(PAGE, lang="zh")
    clean(at)
    assert at.title[0].value == t("ring.title", "zh")


# ----------------------------------------------------------------------------- with a recording

def _dataset() -> dict:
    cfg = dict(batch=1, heads=4, d=64, dtype="float16", impl="fast", warmup=1, reps=5, min_reps=3, rep_s=1.5,
               budget_s=400.0, seed=0, overlap=True)
    cells = []
    for n, t1, t2, comp, comm in ((4096, 2.0, 1.2, 1.1, 0.4), (8192, 8.0, 4.4, 4.3, 0.6)):
        for w, lay, ms, mc, mm in ((1, "contiguous", t1, None, None), (2, "zigzag", t2, comp, comm)):
            f = flops(n, 64, True, 1, 4, "fwd")
            cells.append(dict(n=n, world=w, layout=lay, causal=True, mode="fwd", status="ok", message=None, ms=ms,
                              ms_p20=ms, ms_p80=ms, reps=5, ms_compute=mc, ms_comm=mm,
                              hidden=None if mm is None else 1 - (ms - mc) / mm, flops=f, tflops=f / (ms * 1e9),
                              peak_bytes=n * 1000 // w, peak_bytes_min=n * 900 // w, input_bytes=3 * n * 512 // w,
                              step_bytes=0 if w == 1 else 2 * n * 512 // w))
    prov = dict(device="cuda", device_name="NVIDIA H200", torch="2.11.0+cu130", python="3.12.3", platform="Linux",
                created_utc="2026-12-01T10:00:00+00:00", git_commit="abc123", command="torchrun --nproc-per-node 2 "
                "-m flashviz.ring_bench --budget-s 400", timer="CUDA events", backend="nccl", nccl_version="2.27.3",
                world_size=2, gpu_names="NVIDIA H200, NVIDIA H200")
    return ring_dataset.validate_ring_dataset(dict(
        schema_version=1, kind="flashviz-ring", complete=True, elapsed_s=12.0, provenance=prov, config=cfg,
        checks=[dict(world=2, layout="zigzag", causal=True, n=2048, err_ring=1e-3, err_single=9e-4, ok=True)],
        cells=cells))


def test_recorded_measurement_is_drawn_with_provenance(no_recordings):
    no_recordings.mkdir()
    (no_recordings / "h200x2.json").write_text(json.dumps(_dataset()))
    (no_recordings / "broken.json").write_text("{not json")
    at = open_page(PAGE)
    assert not at.exception
    assert any("broken.json" in w.value for w in at.warning)     # a bad file is a warning, not a dead page
    v = at.session_state["ring.rec_view"]
    assert v["dataset"] == "h200x2.json" and v["speedups"]["(2, 'zigzag')"] == [(4096, 2.0 / 1.2), (8192, 8.0 / 4.4)]
    assert any("**1.82×**" in m.value for m in at.markdown)      # 8.0 / 4.4 at the largest N
    specs = _charts(at)
    hidden = next(s for s in specs.values() if s["layout"]["title"]["text"] == t("ring.m_hidden_title", "en"))
    assert np.allclose(array(hidden["data"][0]["y"]), [100 * (1 - (1.2 - 1.1) / 0.4), 100 * (1 - (4.4 - 4.3) / 0.6)])
    assert any("2.27.3" in c.value for c in at.caption) and any("NVIDIA H200, NVIDIA H200" in c.value for c in at.caption)
    src = at.session_state["ring.tl_view"]["source"]
    assert src["compute"] == {"kind": "ring", "n": 8192}         # only causal 1-GPU cells: those
    assert src["link"] == {"kind": "ring", "n": 8192, "w": 2}
