"""The benchmark command and measuring core: CPU paths here, the live GPU path under the `gpu` marker."""
import json
import math
import subprocess
import sys

import pytest
import torch

import flashviz_kernels as fk
from flashviz.bench import measure, report
from flashviz.bench.__main__ import build_spec, _parser
from flashviz.bench.dataset import load_dataset
from flashviz.bench.spec import Grid, SweepSpec, flops, ideal_bytes

TINY = dict(warmup_ms=1, rep_ms=2, min_reps=3)


def _fwd_flops(c):
    f = 4 * c["batch"] * c["heads"] * c["n"] ** 2 * c["d"]
    return f / 2 if c["causal"] else f


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "smoke.json"
    r = subprocess.run([sys.executable, "-m", "flashviz.bench", "--preset", "smoke", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return load_dataset(out), r.stdout


def test_cli_smoke_writes_a_valid_dataset_with_provenance(smoke):
    data, stdout = smoke
    p = data["provenance"]
    for key in ("device", "device_name", "driver_version", "cuda_version", "torch", "triton", "numpy", "python",
                "platform", "created_utc", "git_commit", "git_dirty", "command", "timer"):
        assert key in p
    assert p["command"].startswith("python -m flashviz.bench --preset smoke --out ")
    assert data["complete"] is True and data["sweep"]["preset"] == "smoke"
    assert len(data["cells"]) == 4 * 6
    assert "wrote" in stdout and "naive" in stdout and "TFLOP/s" in stdout


def test_cli_flops_and_ratios_are_consistent(smoke):
    data, _ = smoke
    ok = [c for c in data["cells"] if c["status"] == "ok"]
    assert ok
    for c in ok:
        assert c["flops"] == _fwd_flops(c)
        assert c["tflops"] * 1e12 * c["ms"] / 1e3 == pytest.approx(_fwd_flops(c), rel=1e-9)
        assert c["correct"] is True
        assert c["ideal_bytes"] == c["batch"] * c["heads"] * c["n"] * (c["d"] * 4 + 4)
        naive = next(x for x in data["cells"] if x["impl"] == "naive" and
                     all(x[k] == c[k] for k in ("n", "d", "causal", "dtype", "batch", "heads", "mode")))
        assert c["speedup_vs_naive"] == pytest.approx(naive["ms"] / c["ms"])
        if torch.cuda.is_available():
            continue
        assert c["speedup_vs_cudnn"] is None         # cuDNN is unavailable on CPU
        assert c["speedup_vs_flash"] is None         # sdpa-flash is not in the smoke preset
        assert c["peak_extra_bytes"] is None         # CPU memory: n/a


@pytest.mark.skipif(torch.cuda.is_available(), reason="CPU-only expectations")
def test_cli_records_unavailable_impls_instead_of_dying(smoke):
    data, stdout = smoke
    by_impl = {}
    for c in data["cells"]:
        by_impl.setdefault(c["impl"], set()).add(c["status"])
    assert by_impl["sdpa-cudnn"] == {"unavailable"}
    assert by_impl["teaching"] == by_impl["fast"] == {"unavailable"}
    msg = next(c["message"] for c in data["cells"] if c["impl"] == "teaching")
    assert "interpreter" in msg and "not speed" in msg
    assert "unavailable" in stdout


@pytest.mark.parametrize("exc, status", [
    (RuntimeError("boom"), "error"),
    (fk.KernelOutOfMemory("GPU out of memory"), "oom"),
    (torch.cuda.OutOfMemoryError("CUDA out of memory"), "oom"),
    (MemoryError(), "oom"),
    (fk.KernelUnavailable("nope"), "unavailable"),
    (ImportError("no module fast"), "unavailable"),
])
def test_failures_become_cells(monkeypatch, exc, status):
    def broken(*a, **k):
        raise exc
    monkeypatch.setattr(measure.fk, "attention", broken)
    cell = measure.measure_cell("naive", 32, 16, False, "float32", 1, 1, **TINY)
    assert cell["status"] == status and cell["ms"] is None and cell["tflops"] is None
    assert cell["message"]


def test_wrong_kernel_is_flagged(monkeypatch):
    real = fk.attention
    monkeypatch.setattr(measure.fk, "attention", lambda *a, **k: real(*a, **k) * 1.05)
    cells = measure.measure_config(["naive", "sdpa"], 64, 16, True, "float32", 2, 2, **TINY)
    assert all(c["status"] == "ok" and c["correct"] is False for c in cells)
    assert "WRONG" in report.cell_row(cells[0])


def test_nan_output_is_not_written_as_nan(monkeypatch):
    monkeypatch.setattr(measure.fk, "attention", lambda q, *a, **k: torch.full_like(q, float("nan")))
    cell = measure.measure_cell("naive", 32, 16, False, "float32", 1, 1, **TINY)
    assert cell["correct"] is False and cell["rel_err"] is None and "finite" in cell["message"]
    json.dumps(cell, allow_nan=False)


def test_fwd_bwd_mode_on_cpu():
    cells = measure.measure_config(["naive", "sdpa-math"], 48, 16, True, "float64", 2, 3, mode="fwd+bwd", **TINY)
    for c in cells:
        assert c["status"] == "ok" and c["correct"] is True and c["rel_err"] < 1e-12
        assert c["flops"] == pytest.approx(3.5 * _fwd_flops(c))
        assert c["ideal_bytes"] == ideal_bytes(48, 16, "float64", 2, 3, "fwd") + 3 * 2 * 3 * 48 * 16 * 8


def test_run_sweep_progress_and_partial_saves():
    spec = SweepSpec(grids=(Grid(n=(16, 32), d=(16,), causal=(False,), dtype=("float32",), batch=(1,), heads=(1,),
                                 impls=("naive", "sdpa")),), **TINY)
    seen, partial = [], []
    data = measure.run_sweep(spec, progress_callback=lambda i, n, c: seen.append((i, n, c["impl"])),
                             command="test", on_partial=lambda d: partial.append(len(d["cells"])))
    assert seen == [(1, 4, "naive"), (2, 4, "sdpa"), (3, 4, "naive"), (4, 4, "sdpa")]
    assert partial == [2, 4] and data["complete"] and data["provenance"]["command"] == "test"


def test_cli_flags_override_preset_fields():
    spec = build_spec(_parser().parse_args(["--preset", "h200"]))
    assert spec.n_cells() == 20 * 10 + 8 * 5                # 10 impls (ws, fa4 too) x 20 fp16 configs + the bf16 subset
    narrowed = build_spec(_parser().parse_args(["--preset", "h200", "--impls", "fast", "--causal", "on"]))
    assert narrowed.n_cells() == 10 + 4 and narrowed.warmup_ms == 25
    spec = build_spec(_parser().parse_args(["--n", "64", "--d", "16", "32", "--causal", "both", "--dtype",
                                            "float32", "--batch", "1", "--heads", "2", "--impls", "naive"]))
    assert spec.n_cells() == 4 and spec.preset is None


def test_flop_formula():
    assert flops(1024, 64, False, 4, 32) == 4 * 4 * 32 * 1024 ** 2 * 64
    assert flops(1024, 64, True, 4, 32) == 2 * 4 * 32 * 1024 ** 2 * 64
    assert flops(1024, 64, False, 1, 1, "fwd+bwd") == 3.5 * 4 * 1024 ** 2 * 64


def test_bench_imports_no_ui_libraries():
    code = ("import sys, flashviz.bench, flashviz.bench.dataset, flashviz.bench.cpu_memory;"
            "assert 'torch' not in sys.modules, 'dataset side must stay torch-free';"
            "from flashviz.bench import measure_cell, run_sweep; import flashviz.bench.__main__;"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')]; assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


# ---- GPU (H200) -----------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_gpu_live_cell_numbers_and_memory():
    b, h, n, d = 2, 8, 2048, 64
    naive, flash = measure.measure_config(["naive", "sdpa-flash"], n, d, False, "float16", b, h,
                                          warmup_ms=5, rep_ms=20)
    for c in (naive, flash):
        assert c["status"] == "ok", c["message"]
        assert c["correct"] is True
        for k in ("ms", "tflops", "peak_extra_bytes"):
            assert c[k] > 0 and math.isfinite(c[k])
    scores = 2 * b * h * n * n * 2                    # S and P, fp16
    assert naive["peak_extra_bytes"] >= 0.9 * scores
    assert flash["peak_extra_bytes"] < 0.1 * scores
    assert flash["peak_over_ideal"] < 1.5 and flash["speedup_vs_naive"] > 1 and flash["speedup_vs_flash"] == 1
    assert naive["speedup_vs_flash"] == pytest.approx(flash["ms"] / naive["ms"])


@pytest.mark.gpu
def test_gpu_fwd_bwd_cell():
    c = measure.measure_cell("sdpa-flash", 1024, 64, True, "float16", 2, 4, mode="fwd+bwd", warmup_ms=5, rep_ms=20)
    assert c["status"] == "ok" and c["correct"] is True and c["peak_extra_bytes"] >= c["ideal_bytes"] * 0.9


@pytest.mark.gpu
def test_gpu_smoke_command(tmp_path):
    out = tmp_path / "gpu-smoke.json"
    r = subprocess.run([sys.executable, "-m", "flashviz.bench", "--preset", "smoke", "--out", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    data = load_dataset(out)
    assert data["provenance"]["device"] == "cuda" and data["provenance"]["sm_count"] > 0
    ok = [c for c in data["cells"] if c["status"] == "ok"]
    assert {"naive", "sdpa"} <= {c["impl"] for c in ok}
    assert all(c["peak_extra_bytes"] is not None for c in ok)


def test_git_commit_from_the_environment_wins_over_a_stale_checkout(monkeypatch):
    from flashviz.bench import provenance
    monkeypatch.setenv("FLASHVIZ_GIT_COMMIT", "0123abcd")
    monkeypatch.setenv("FLASHVIZ_GIT_DIRTY", "0")
    assert provenance.git_state() == ("0123abcd", False)
    monkeypatch.setenv("FLASHVIZ_GIT_DIRTY", "yes?")
    assert provenance.git_state() == ("0123abcd", None)                  # unreadable: unknown, not a guess


def test_source_digest_names_the_code_that_ran(tmp_path):
    from flashviz.bench import provenance
    for rel, text in (("flashviz/a.py", "x = 1\n"), ("kernels/b.py", "y = 2\n"), ("README.md", "not code")):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    import hashlib
    want = hashlib.sha256(b"flashviz/a.py\0x = 1\n\0kernels/b.py\0y = 2\n\0").hexdigest()
    assert provenance.source_digest(tmp_path) == want
    (tmp_path / "README.md").write_text("changed")                       # not measured code: same digest
    assert provenance.source_digest(tmp_path) == want
    (tmp_path / "kernels/b.py").write_text("y = 3\n")
    assert provenance.source_digest(tmp_path) != want
    assert provenance.source_digest(tmp_path / "nothing") is None
    assert len(provenance.source_digest()) == 64                          # this checkout


# ---- CUDA-graph column ----------------------------------------------------------------------------------------

def test_cpu_cells_say_graph_is_not_available(smoke):
    """Every cell carries the graph fields; on CPU none has a graph time and each says why."""
    data, _ = smoke
    for c in data["cells"]:
        assert {"graph_ms", "graph_tflops", "graph_message", "graph_speedup_vs_cudnn"} <= set(c)
        if not torch.cuda.is_available():
            assert c["graph_ms"] is None and c["graph_tflops"] is None
            assert c["graph_message"] == measure.GRAPH_CPU_MESSAGE


def test_old_files_without_graph_fields_still_load(smoke, tmp_path):
    data, _ = smoke
    old = json.loads(json.dumps(data))
    for c in old["cells"]:
        for k in ("graph_ms", "graph_tflops", "graph_message", "graph_speedup_vs_cudnn"):
            c.pop(k)
    p = tmp_path / "old.json"
    p.write_text(json.dumps(old))
    assert len(load_dataset(p)["cells"]) == len(old["cells"])
    assert "graph_tflops" not in report.table(load_dataset(p))


def test_graph_fields_are_validated(smoke):
    from flashviz.infra.errors import DatasetError
    from flashviz.bench.dataset import validate_dataset
    data, _ = smoke
    ok = next(c for c in data["cells"] if c["status"] == "ok")
    good = json.loads(json.dumps(data))
    cell = next(c for c in good["cells"] if c["impl"] == ok["impl"] and c["n"] == ok["n"] and c["d"] == ok["d"]
                and c["causal"] == ok["causal"])
    cell.update(graph_ms=0.5, graph_tflops=cell["flops"] / (0.5 * 1e9), graph_message=None)
    validate_dataset(good)
    assert "graph_tflops by impl" in report.table(good)
    for bad in (dict(graph_tflops=None), dict(graph_tflops=cell["graph_tflops"] * 2), dict(graph_ms=-1.0),
                dict(graph_message=7)):
        broken = json.loads(json.dumps(good))
        next(c for c in broken["cells"] if c == cell).update(bad)
        with pytest.raises(DatasetError):
            validate_dataset(broken)


def test_failed_capture_is_recorded_not_raised(monkeypatch):
    """A capture that fails (here: do_bench_cudagraph raising) leaves graph_ms null with the reason."""
    import triton.testing

    def boom(*a, **k):
        raise RuntimeError("operation not permitted when stream is capturing")
    monkeypatch.setattr(triton.testing, "do_bench_cudagraph", boom)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: None)
    cell = measure.blank_cell("naive", dict(n=8, d=4, causal=False, dtype="float32", batch=1, heads=1, mode="fwd"))
    measure._graph(cell, lambda: None, "cuda", 5.0)
    assert cell["graph_ms"] is None and cell["graph_message"].startswith("graph capture failed: RuntimeError")
    measure._graph(cell, lambda: None, "cpu", 5.0)
    assert cell["graph_message"] == measure.GRAPH_CPU_MESSAGE


def test_graph_ratio_to_cudnn():
    cfg = dict(n=8, d=4, causal=False, dtype="float16", batch=1, heads=1, mode="fwd")
    a, b = measure.blank_cell("fast", cfg), measure.blank_cell("sdpa-cudnn", cfg)
    for c, ms in ((a, 2.0), (b, 1.0)):
        c.update(status="ok", ms=ms, graph_ms=ms / 2)
    measure.add_ratios([a, b])
    assert a["graph_speedup_vs_cudnn"] == pytest.approx(0.5) and b["graph_speedup_vs_cudnn"] == 1.0


def test_a_backward_alone_is_captured_on_its_forwards_stream(monkeypatch):
    """graph_timing.replay_times: a bwd-mode call (fn.saved) goes to backward_replays, which reruns the forward on
    the capture stream (autograd's backward ops run on their forward's stream); any other call goes to
    do_bench_cudagraph."""
    import triton.testing

    from flashviz.bench import graph_timing
    seen = []
    monkeypatch.setattr(triton.testing, "do_bench_cudagraph", lambda fn, rep, return_mode: seen.append("all") or [1.0])
    monkeypatch.setattr(graph_timing, "backward_replays", lambda fn, saved, rep: seen.append(saved) or [2.0])

    def bwd():
        pass
    bwd.saved = {"out": 1}
    assert graph_timing.replay_times(lambda: None, 5.0) == [1.0]
    assert graph_timing.replay_times(bwd, 5.0) == [2.0] and seen == ["all", {"out": 1}]


@pytest.mark.gpu
def test_gpu_cells_record_graph_and_per_call_times():
    """Every mode's call captures: a forward, a training step and (on its forward's stream) a backward alone; the
    backward's graph replays carry no host launch cost, so they take no longer than its per-call median plus the
    spread of its timed runs."""
    for impl in ("fast", "sdpa-cudnn"):
        for mode in ("fwd", "fwd+bwd", "bwd"):
            c = measure.measure_cell(impl, 1024, 64, True, "float16", 2, 4, mode=mode, warmup_ms=5, rep_ms=20)
            assert c["status"] == "ok" and c["ms"] > 0, (impl, mode, c.get("message"))
            assert c["graph_ms"] > 0 and c["graph_message"] is None and c["graph_tflops"] > 0, \
                (impl, mode, c["graph_message"])
            if mode == "bwd":
                assert c["graph_ms"] <= c["ms_p80"] * 1.5, (impl, c["graph_ms"], c["ms"], c["ms_p80"])


def _leaves(out):
    """The tensors of every AccumulateGrad node out's autograd graph reaches."""
    seen, todo, leaves = set(), [out.grad_fn], []
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            leaves.append(node.variable)
        todo.extend(f for f, _ in node.next_functions)
    return leaves


@pytest.mark.parametrize("mode", ["fwd+bwd", "bwd"])
def test_each_runner_differentiates_leaves_of_its_own(mode):
    """A runner's graph reaches leaves that share x's storage but are not x's tensors: a leaf's AccumulateGrad keeps
    the stream it was made on while any graph holds it, so two bwd runners on x's own leaves (tools/fa4_rounds: ours
    and cuDNN's, each keeping its forward) made ours fail to capture on a side stream (2026-12-04, H200)."""
    cfg = dict(n=16, d=8, causal=True, dtype="float32", batch=1, heads=2, mode=mode)
    x = measure.make_inputs(cfg, 0, "cpu")
    fn = measure.runner("naive", x, cfg, {})
    out, dq, dk, dv = fn()
    leaves = _leaves(out)
    assert len(leaves) == 3
    assert all(leaf is not x[n] for leaf in leaves for n in ("q", "k", "v"))
    assert {leaf.data_ptr() for leaf in leaves} == {x[n].data_ptr() for n in ("q", "k", "v")}
    q, k, v = (x[n].detach().double().requires_grad_(True) for n in ("q", "k", "v"))   # float64 reference
    s = (q @ k.transpose(-1, -2)) / math.sqrt(cfg["d"])
    s = s.masked_fill(torch.ones(16, 16, dtype=torch.bool).triu(1), float("-inf"))
    ref = torch.softmax(s, -1) @ v
    grads = torch.autograd.grad(ref, (q, k, v), x["dout"].double())
    torch.testing.assert_close(out.double(), ref, atol=1e-5, rtol=1e-5)
    for got, want in zip((dq, dk, dv), grads):
        torch.testing.assert_close(got.double(), want, atol=1e-4, rtol=1e-4)
    assert x["q"].grad is None
    if mode == "bwd":                                 # a rerun forward (graph_timing clears fn.saved) gets new ones
        fn.saved.clear()
        again = _leaves(fn()[0])
        assert all(a is not b for a in again for b in leaves)


@pytest.mark.gpu
def test_bwd_runners_sharing_inputs_each_capture():
    """tools/fa4_rounds' order: every impl's first call (forward kept), then each one's backward captured and
    replayed while the others' graphs and the first calls' outputs (their graphs) stay alive."""
    cfg = dict(n=1024, d=64, causal=True, dtype="float16", batch=2, heads=4, mode="bwd")
    x = measure.make_inputs(cfg, 0, "cuda")
    from flashviz.bench import graph_timing
    runs = {impl: measure.runner(impl, x, cfg, {}) for impl in ("fast", "sdpa-cudnn")}
    first = {impl: fn() for impl, fn in runs.items()}
    torch.cuda.synchronize()
    for a, b in zip(first["fast"], first["sdpa-cudnn"]):
        assert float((a.float() - b.float()).abs().max()) < 2e-2
    for impl, fn in runs.items():
        times = graph_timing.replay_times(fn, 10.0)
        assert len(times) >= graph_timing.MIN_REPLAYS and min(times) > 0, impl


def test_markdown_tables_are_printed_from_the_file():
    """report.markdown: every row's TFLOP/s and fast's ratios are the cells' own numbers (docs/BENCHMARKS.md's
    tables are its output), one row per (N, d, causal) of the mode and dtype asked for."""
    from pathlib import Path

    from flashviz.bench import report
    from flashviz.bench.dataset import load_dataset
    files = sorted((Path(__file__).parents[2] / "assets/benchmarks").glob("nvidia-h200-fwd-*.json"))
    data = load_dataset(files[-1])
    md = report.markdown(data, "fwd", "float16").splitlines()
    cells = [c for c in data["cells"] if c["mode"] == "fwd" and c["dtype"] == "float16"]
    keys = sorted({(c["n"], c["d"], c["causal"]) for c in cells})
    marks = 0
    for line, (n, d, causal) in zip(md[2:], keys):
        by = {c["impl"]: c for c in cells if (c["n"], c["d"], c["causal"]) == (n, d, causal)}
        cols = [x.strip() for x in line.strip("|").split("|")]
        assert cols[:3] == [str(n), str(d), "yes" if causal else "no"]
        fast, cudnn = by["fast"], by["sdpa-cudnn"]
        spread = max((c["ms_p80"] - c["ms_p20"]) / c["ms"] for c in (fast, cudnn))       # p20-p80 over the median
        mark = "†" * (spread > 0.05)
        assert f"{fast['tflops']:.0f}" in cols and f"{cudnn['ms'] / fast['ms']:.2f}x{mark}" in cols
        marks += bool(mark)
    assert marks > 0                                      # this file has such cells: the note below the table
    from flashviz.bench.markdown_tables import NOISY_NOTE
    assert md[2 + len(keys):] == ["", NOISY_NOTE] and len(md) == 4 + len(keys)
