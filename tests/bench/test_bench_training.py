"""flashviz.bench.training: a recorded training dataset as the backward page reads it (the H200 recording)."""
from pathlib import Path

import pytest

from flashviz.bench import load_dataset, training
from flashviz.infra.errors import InputError

DATA = Path(__file__).resolve().parents[2] / "assets" / "benchmarks"
TRAIN, FWD = DATA / "nvidia-h200-train-2026-11-29.json", DATA / "nvidia-h200-fwd-2026-11-29.json"


def test_training_view_nearest_and_same():
    ds = load_dataset(TRAIN)
    v = training.training_view(ds, n=16, d=4, causal=False, dtype="float32", batch=4, heads=32)
    assert (v["config"]["n"], v["config"]["d"], v["config"]["dtype"], v["same"]) == (4096, 64, "float16", False)
    assert {c["mode"] for c in v["bwd"]} == {"bwd"} and {c["mode"] for c in v["step"]} == {"fwd+bwd"}
    assert sorted({c["n"] for c in v["curve"]}) == [4096, 8192, 16384] and len(v["curve"]) == 15
    assert training.training_view(ds, n=16384, d=128, causal=True, dtype="float16", batch=4, heads=32)["same"]
    with pytest.raises(InputError, match="no training cells"):
        training.training_view(load_dataset(FWD), n=4096, d=64, causal=False, dtype="float16", batch=4, heads=32)


def test_times_rows_and_summary():
    ds = load_dataset(TRAIN)
    v = training.training_view(ds, n=16384, d=64, causal=False, dtype="float16", batch=4, heads=32)
    rows = {r["impl"]: r for r in training.times_rows(v["bwd"], v["step"])}
    assert rows["naive"]["status"] == "oom" and rows["naive"]["bwd_ms"] is None and rows["naive"]["ref_vs_bwd"] is None
    fast = next(c for c in v["bwd"] if c["impl"] == "fast")
    assert rows["sdpa-flash"]["ref_vs_bwd"] == pytest.approx(fast["speedup_vs_flash"])
    s = training.speed_summary(ds)
    assert set(s) == {64, 128}
    assert s[64]["flash"][0] > 1.0 and s[128]["flash"][0] > 1.0          # the data as recorded on the H200


def test_which_backward_kernel_a_recording_ran():
    """Read from the recording's provenance rule (flashviz.bench writes it); teaching and fast share it."""
    new = ("auto: ws (Gluon, 5 matmuls, TMA dQ) for plain/causal d in (64, 128), else fused (5 matmuls) for "
           "d <= 64, reference (7 matmuls) above, on sm_90")
    old = "auto: fused (5 matmuls) for d <= 64, reference (7 matmuls) above, on sm_90"
    assert [training.backward_kernel(new, d) for d in (32, 64, 96, 128, 256)] == ["fused", "ws", "reference", "ws",
                                                                           "reference"]
    assert [training.backward_kernel(old, d) for d in (64, 128)] == ["fused", "reference"]
    assert training.backward_kernel(None, 64) is None and training.backward_kernel("", 64) is None
    cells = [dict(impl="teaching", status="ok", ms=5.78), dict(impl="fast", status="ok", ms=5.777)]
    assert training.same_backward_noise(cells) == pytest.approx(0.003 / 5.777)
    assert training.same_backward_noise(cells[:1]) is None


def test_readme_backward_headline_is_the_newest_training_recording():
    """The README's ws_bwd row and its FA4 sentence quote the newest training recording: the ranges of backward-alone
    ratios of CUDA-graph replays (launch cost removed) over N >= 4096 and both causal settings, two decimals."""
    import re
    root = DATA.parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    newest = sorted(DATA.glob("nvidia-h200-train-*.json"))[-1]
    cells = {(c["impl"], c["n"], c["d"], c["causal"]): c["graph_ms"] for c in load_dataset(newest)["cells"]
             if c["mode"] == "bwd" and c["status"] == "ok" and c["n"] >= 4096}

    def span(peer, d):
        rs = [cells[(peer, n, d_, cz)] / cells[("fast", n, d_, cz)] for (i, n, d_, cz) in cells if i == "fast"
              and d_ in d]
        return f"{min(rs):.2f}–{max(rs):.2f}x"
    row = next(line for line in readme.splitlines() if line.startswith("| `ws_bwd.py`"))
    assert f"`assets/benchmarks/{newest.name}`" in row
    assert re.search(rf"replayed as CUDA graphs: {span('sdpa-cudnn', (64,))} cuDNN at d = 64, "
                     rf"{span('sdpa-cudnn', (128,))} at d = 128", row)
    assert (f"{span('fa4', (64, 128))} at N ≥ 4096 replayed as CUDA graphs in the newest training run"
            in " ".join(readme.split()))


def test_readme_fa4_sentence_is_the_newest_fa4_recording():
    """The README's FA4 paragraph quotes the newest h200-fa4 recording: `fast` over FA4 and FA4 and `fast` over
    cuDNN, forward and backward, as ranges over its 16 cells (two decimals)."""
    root = DATA.parents[1]
    text = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    newest = sorted(DATA.glob("nvidia-h200-fa4-*.json"))[-1]
    cells = load_dataset(newest)["cells"]

    def span(impl, mode, key):
        rs = [c[key] for c in cells if c["impl"] == impl and c["mode"] == mode and c["status"] == "ok"]
        assert len(rs) == 8
        return f"{min(rs):.2f}–{max(rs):.2f}x"
    assert f"`assets/benchmarks/{newest.name}`" in text
    assert (f"`fast` took {span('fast', 'fwd', 'speedup_vs_fa4')} FA4's speed forward and "
            f"{span('fast', 'bwd', 'speedup_vs_fa4')} backward, where FA4 ran {span('fa4', 'fwd', 'speedup_vs_cudnn')}"
            f" and {span('fa4', 'bwd', 'speedup_vs_cudnn')} cuDNN and ours {span('fast', 'fwd', 'speedup_vs_cudnn')}"
            f" and {span('fast', 'bwd', 'speedup_vs_cudnn')}") in text
