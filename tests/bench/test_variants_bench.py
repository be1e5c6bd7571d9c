"""The variants benchmark on CPU (tiny preset): every cell either measured and checked against a float64 reference
written here, or recorded with its reason; the dataset's FLOPs are brute-force counts, its ratios its own times; the
file validates, loads and is rejected when tampered with. FlexAttention runs eagerly on CPU (no compiler)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from flashviz.bench import variants_bench as vb
from flashviz.bench.__main__ import main
from flashviz.bench.variants_dataset import list_variants_datasets, load_variants_dataset, validate_variants_dataset
from flashviz.bench.variants_spec import PRESETS, VARIANTS, doc_lens
from flashviz.infra.errors import DatasetError
from helpers.variant_ref import ref_visible


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("variants") / "cpu.json"
    assert main(["--preset", "cpu-variants", "--out", str(out), "--quiet"]) == 0
    return out, json.loads(out.read_text())


def _visible(variant: str, n: int, cfg: dict) -> np.ndarray:
    ids = np.repeat(np.arange(len(doc_lens(n))), doc_lens(n)) if variant == "docs" else None
    window = (cfg["window"], 0) if variant == "window" else None
    return ref_visible(n, n, causal=True, window=window, ids=ids)


def test_every_cell_is_measured_or_says_why(recorded):
    path, data = recorded
    cfg = PRESETS["cpu-variants"]
    assert data["complete"] and data["kind"] == "flashviz-variants"
    cells = {(c["variant"], c["impl"], c["n"]): c for c in data["cells"]}
    assert len(cells) == len(VARIANTS) * len(cfg["ns"]) * len(cfg["impls"])
    for (variant, impl, n), c in cells.items():
        per_pair = 4 * cfg["d"] * cfg["batch"] * cfg["heads"]
        vis = _visible(variant, n, cfg)
        assert c["flops_useful"] == per_pair * vis.sum()
        if c["tiles"] is not None:                         # executed: whole blocks that hold a visible pair
            br, bc = c["tiles"]
            area = sum(vis[i:i + br, j:j + bc].size for i in range(0, n, br) for j in range(0, n, bc)
                       if vis[i:i + br, j:j + bc].any())
            assert c["flops_executed"] == per_pair * area
        if c["status"] == "ok":
            assert c["correct"] and c["rel_err"] < 1e-5, c
            assert math.isclose(c["tflops_useful"], c["flops_useful"] / (c["ms"] * 1e9))
            flex = cells[(variant, "flex", n)]
            assert math.isclose(c["speedup_vs_flex"], flex["ms"] / c["ms"])
        else:
            assert c["message"] and c["ms"] is None, c
    for n in cfg["ns"]:
        assert all(cells[(v, "flex", n)]["status"] == "ok" for v in VARIANTS)          # flex expresses every one
        assert cells[("softcap", "sdpa", n)]["status"] == "unavailable"               # sdpa has no score_mod
        assert all(cells[(v, "sdpa", n)]["status"] == "ok" for v in VARIANTS if v != "softcap")
        assert cells[("dense-causal", "naive", n)]["status"] == "ok"
        flex = cells[("dense-causal", "flex", n)]
        assert flex["compiled"] is False and flex["compile_s"] > 0 and flex["block_mask_s"] > 0
        # naive computes every pair: executed = 4·d·B·H·N²
        assert cells[("dense-causal", "naive", n)]["flops_executed"] == 4 * cfg["d"] * cfg["heads"] * n * n


def test_the_file_validates_loads_and_is_listed(recorded):
    path, data = recorded
    assert load_variants_dataset(path)["cells"] == data["cells"]
    assert list_variants_datasets(path.parent) == [path]
    for field, value in (("tflops_useful", 123.0), ("flops_useful", 1.0), ("tiles", [0, 8]), ("flops_executed", 2.0)):
        bad = json.loads(path.read_text())
        [c] = [c for c in bad["cells"] if c["status"] == "ok" and c["impl"] == "flex"][:1]
        c[field] = value
        with pytest.raises(DatasetError):
            validate_variants_dataset(bad)


def test_a_failing_impl_is_recorded_not_raised(monkeypatch):
    import flashviz_kernels as fk

    def boom(*a, **k):
        raise RuntimeError("kernel exploded")
    monkeypatch.setattr(fk, "attention", boom)
    data = vb.run("cpu-variants", variants=("dense-causal", "window"))
    ours = [c for c in data["cells"] if c["impl"] == "naive"]
    assert ours and all(c["status"] == "error" and "kernel exploded" in c["message"] for c in ours)
    assert all(c["status"] == "ok" for c in data["cells"] if c["impl"] == "flex")


def test_reference_rows_follow_the_definitions():
    cfg = PRESETS["cpu-variants"]
    x = vb.make_inputs("alibi", 32, cfg, 0, "cpu")
    ref = vb.reference(x)
    q, k, v = (t.double() for t in (x["q"], x["k"], x["v"]))
    slopes = x["var"].slopes
    for h, (rows, got) in ref.items():
        s = q[0, h] @ k[0, h].T * x["scale"]
        i, j = torch.arange(32)[:, None], torch.arange(32)[None]
        s = (s - slopes[h] * (i - j).abs()).masked_fill(j > i, -math.inf)
        assert torch.allclose(got, (torch.softmax(s, -1) @ v[0, h])[rows], atol=1e-12)


def test_variant_modules_import_no_ui_and_the_dataset_side_no_torch():
    import subprocess
    import sys
    code = ("import sys, flashviz.bench.variants_dataset, flashviz.bench.variants_spec;"
            "assert 'torch' not in sys.modules, 'the variants dataset side must stay torch-free';"
            "import flashviz.bench.variants_bench;"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')]; assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("plan", [None, ("ws", 128, 128)])
def test_our_cells_count_the_tiles_that_ran(monkeypatch, plan):
    """A fast cell's executed FLOPs are counted at the tiles the call launches (flashviz_kernels.launch_plan: here
    the interpreter's 64 x 64, or a ws launch's 128 x 128 clipped to N), and still match the brute-force count."""
    import flashviz_kernels as fk
    cfg = dict(PRESETS["cpu-variants"], impls=("fast", "flex"), ns=(80,))
    monkeypatch.setitem(PRESETS, "cpu-variants", cfg)
    calls = []
    if plan is not None:
        monkeypatch.setattr(fk, "launch_plan", lambda *a, **kw: calls.append(kw) or plan)
    data = vb.run("cpu-variants", variants=("window", "gqa"))
    fast = [c for c in data["cells"] if c["impl"] == "fast"]
    assert [c["status"] for c in fast] == ["ok", "ok"]
    for c in fast:
        assert c["tiles"] == ([64, 64] if plan is None else [80, 80])
        vis = _visible(c["variant"], 80, cfg)
        br, bc = c["tiles"]
        area = sum(vis[i:i + br, j:j + bc].size for i in range(0, 80, br) for j in range(0, 80, bc)
                   if vis[i:i + br, j:j + bc].any())
        assert c["flops_executed"] == 4 * cfg["d"] * cfg["batch"] * cfg["heads"] * area
    if plan is not None:
        assert calls[0]["window"] == (cfg["window"], 0) and calls[0]["impl"] == "fast"
    validate_variants_dataset(data)


def test_some_of_a_presets_n_run_alone(tmp_path, capsys):
    """--n keeps the preset's shape and runs only the N asked for (a run too long for one sitting goes as two
    files); an N outside the preset is a usage error, not a traceback."""
    out = tmp_path / "n48.json"
    assert main(["--preset", "cpu-variants", "--n", "48", "--variants", "dense-causal", "window", "--out", str(out),
                 "--quiet"]) == 0
    data = load_variants_dataset(out)
    assert data["complete"] and data["config"]["ns"] == [48] and {c["n"] for c in data["cells"]} == {48}
    assert len(data["cells"]) == 2 * len(PRESETS["cpu-variants"]["impls"])
    assert "--n 48" in data["provenance"]["command"]
    with pytest.raises(SystemExit):
        main(["--preset", "cpu-variants", "--n", "64", "--out", str(tmp_path / "bad.json"), "--quiet"])
    assert "--n must be one of 32, 48, got [64]" in capsys.readouterr().err
