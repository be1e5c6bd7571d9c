"""The ring benchmark launcher on CPU (gloo, 2 forked ranks, tiny sizes) and the ring dataset's schema."""
import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from flashviz.bench.ring_dataset import load_ring_dataset, parse_ring_dataset, validate_ring_dataset
from flashviz.bench.spec import flops
from flashviz.infra.errors import DatasetError
from helpers.ring import run_ranks

ROOT = Path(__file__).resolve().parents[2]


def _bench(rank, world, argv):
    from flashviz.bench import ring_bench
    return ring_bench.main(argv)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("ring") / "ring.json"
    rcs = run_ranks(2, _bench, ["--seq", "32", "64", "--heads", "2", "--head-dim", "8", "--reps", "2", "--min-reps", "1",
                                "--check-n", "32", "--compute-only", "--quiet", "--out", str(out)])
    assert rcs == [0, 0]
    return json.loads(out.read_text()), out


def test_dataset_is_complete_and_valid(recorded):
    data, path = recorded
    assert load_ring_dataset(path) == data
    assert data["complete"] is True and data["kind"] == "flashviz-ring"
    p = data["provenance"]
    assert p["backend"] == "gloo" and p["world_size"] == 2 and p["nccl_version"] is None
    assert p["ring_merge"] == "torch, a slab of rows at a time"                 # a CPU run merges in torch
    assert p["command"].startswith("torchrun --nproc-per-node 2 -m flashviz.bench.ring_bench --seq 32 64")
    cells = data["cells"]
    # forward first, then forward+backward; per pass and N: 1 GPU and both layouts on 2, causal and not
    assert [c["mode"] for c in cells] == ["fwd"] * 12 + ["fwd+bwd"] * 12
    assert {(c["world"], c["layout"], c["causal"]) for c in cells} == {
        (1, "contiguous", True), (1, "contiguous", False), (2, "contiguous", True), (2, "zigzag", True),
        (2, "contiguous", False), (2, "zigzag", False)}
    assert all(c["status"] == "ok" for c in cells)
    assert data["config"]["chunks"] is None                      # the kernel's default: the plain ring
    assert {c["chunks"] for c in cells if c["world"] == 2} == {1}
    assert {c["chunks"] for c in cells if c["world"] == 1} == {None}
    for c in cells:
        cfg = data["config"]
        assert c["flops"] == flops(c["n"], cfg["d"], c["causal"], cfg["batch"], cfg["heads"], c["mode"])
        assert c["ms"] > 0 and c["ms_p20"] <= c["ms"] <= c["ms_p80"]
        n_loc = c["n"] // c["world"]
        assert c["input_bytes"] == (4 if c["mode"] == "fwd+bwd" else 3) * 2 * n_loc * 8 * 4
        if c["world"] == 1:
            assert c["ms_comm"] is None and c["hidden"] is None and c["ms_exposed"] is None and c["step_bytes"] == 0
        else:
            assert c["ms_compute"] > 0 and c["ms_comm"] > 0 and c["step_bytes"] == 2 * 2 * n_loc * 8 * 4
            assert 0 <= c["ms_exposed"] <= c["ms_p80"]             # waits are part of the (slowest) call
            assert c["hidden"] == pytest.approx(1 - c["ms_exposed"] / c["ms_comm"])
        assert c["peak_bytes"] is None                           # no CUDA: not measured, not invented


def test_checks_against_float64(recorded):
    data, _ = recorded
    checks = data["checks"]
    assert {(c["layout"], c["causal"]) for c in checks} == {(l, c) for l in ("contiguous", "zigzag") for c in (0, 1)}
    assert all(c["ok"] and c["world"] == 2 and c["n"] == 32 for c in checks)
    assert all(c["err_ring"] < 1e-5 for c in checks)             # float32 on CPU


def test_chunks_are_run_and_recorded(tmp_path):
    """--chunks 2: the chunked forward passes the float64 checks, and every two-rank cell records S = 2."""
    from flashviz.bench.ring_dataset import markdown_table
    out = tmp_path / "ring.json"
    run_ranks(2, _bench, ["--seq", "32", "--heads", "1", "--head-dim", "8", "--reps", "1", "--min-reps", "1",
                          "--modes", "fwd", "--check-n", "32", "--chunks", "2", "--quiet", "--out", str(out)])
    data = load_ring_dataset(out)
    assert data["config"]["chunks"] == 2 and data["complete"] is True
    assert len(data["checks"]) == 4 and all(c["ok"] and c["err_ring"] < 1e-5 for c in data["checks"])
    assert [c["chunks"] for c in data["cells"] if c["world"] == 2] == [2] * 4
    assert "zigzag, S = 2" in markdown_table(data)


def test_chunked_backward_is_run_and_recorded(tmp_path):
    """--chunks 2 with fwd+bwd: the backward is the chunked one, recorded per two-rank cell as bwd_chunks = 2 (the
    transfer-only loop runs it too); without --chunks the cells record the plain backward (1); one GPU none."""
    for chunks, want in (("2", 2), (None, 1)):
        out = tmp_path / f"ring{chunks}.json"
        run_ranks(2, _bench, ["--seq", "32", "--heads", "1", "--head-dim", "8", "--reps", "1", "--min-reps", "1",
                              "--modes", "fwd+bwd", "--causal", "on", "--check-n", "0", "--quiet", "--out", str(out)]
                  + (["--chunks", chunks] if chunks else []))
        data = load_ring_dataset(out)
        assert data["complete"] is True and all(c["status"] == "ok" for c in data["cells"])
        assert [c.get("bwd_chunks") for c in data["cells"]] == [None, want, want]
        assert all(c["ms_comm"] > 0 for c in data["cells"] if c["world"] == 2)


def test_chunks_auto_is_the_memory_rule_and_is_recorded(tmp_path):
    """--chunks auto: the kernel's memory-bounded rule (tiny blocks stay whole, S = 1), recorded as "auto"; a
    value that is neither an int nor auto is refused by the parser."""
    out = tmp_path / "ring.json"
    run_ranks(2, _bench, ["--seq", "32", "--heads", "1", "--head-dim", "8", "--reps", "1", "--min-reps", "1",
                          "--modes", "fwd", "--causal", "on", "--check-n", "0", "--chunks", "auto", "--quiet",
                          "--out", str(out)])
    data = load_ring_dataset(out)
    assert data["config"]["chunks"] == "auto"
    assert [c["chunks"] for c in data["cells"] if c["world"] == 2] == [1, 1]
    from flashviz.bench import ring_bench
    with pytest.raises(SystemExit):
        ring_bench._parser().parse_args(["--chunks", "many"])


def test_budget_skips_cells_and_marks_incomplete(tmp_path):
    out = tmp_path / "ring.json"
    run_ranks(2, _bench, ["--seq", "32", "--heads", "1", "--head-dim", "8", "--reps", "1", "--min-reps", "1", "--modes", "fwd",
                          "--causal", "on", "--check-n", "0", "--budget-s", "0", "--quiet", "--out", str(out)])
    data = load_ring_dataset(out)
    assert data["complete"] is False and "budget" in data["stopped"]
    assert [c["status"] for c in data["cells"]] == ["skipped"] * 3
    assert all(c["ms"] is None and "time budget" in c["message"] for c in data["cells"])


def test_imports_without_streamlit_or_plotly():
    code = ("import sys; sys.modules['streamlit'] = None; sys.modules['plotly'] = None\n"
            "import flashviz.bench.ring_bench, flashviz.bench.ring_dataset, flashviz_kernels.ring, flashviz.engine.ring")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


# ----------------------------------------------------------------------------- schema

def _broken(data, edit):
    d = copy.deepcopy(data)
    edit(d)
    return d


@pytest.mark.parametrize("edit,where", [
    (lambda d: d.update(kind="flashviz-bench"), "kind"),
    (lambda d: d["cells"][0].update(ms=-1.0), "cells[0].ms"),
    (lambda d: d["cells"][0].update(tflops=123.0), "cells[0].tflops"),
    (lambda d: d["cells"][0].update(flops=1.0), "cells[0].flops"),
    (lambda d: d["cells"][0].update(layout="spiral"), "cells[0].layout"),
    (lambda d: d["cells"][0].update(extra=1), "cells[0].extra"),
    (lambda d: d["cells"].append(dict(d["cells"][0])), "duplicates"),
    (lambda d: d["provenance"].update(backend="mpi"), "provenance.backend"),
    (lambda d: d["provenance"].update(ring_merge=3), "provenance.ring_merge"),
    (lambda d: d["provenance"].pop("git_commit"), "git_commit"),
    (lambda d: d["config"].update(heads=0), "config.heads"),
    (lambda d: d["checks"][0].update(ok="yes"), "checks[0].ok"),
    (lambda d: d["config"].update(chunks=0), "config.chunks"),
    (lambda d: d["config"].update(chunks="many"), "config.chunks"),
    (lambda d: d["cells"][0].update(chunks=0), "cells[0].chunks"),
])
def test_schema_rejects(recorded, edit, where):
    with pytest.raises(DatasetError, match=where.replace("[", r"\[").replace("]", r"\]")):
        validate_ring_dataset(_broken(recorded[0], edit))


def test_parse_rejects_nonfinite_and_non_json(recorded):
    text = json.dumps(recorded[0]).replace('"elapsed_s": ', '"elapsed_s": NaN, "x": ', 1)
    with pytest.raises(DatasetError, match="NaN"):
        parse_ring_dataset(text.encode())
    with pytest.raises(DatasetError, match="not JSON"):
        parse_ring_dataset(b"{not json")
    with pytest.raises(DatasetError, match="must be given as bytes"):
        parse_ring_dataset("a string")


def test_flags_survive_torchrun():
    """torchrun's own argparse reads every option before the module's: a flag that is a prefix of one of
    torchrun's ("--n" of "--nnodes") would be taken by torchrun, or rejected as ambiguous."""
    from torch.distributed.run import get_args_parser

    from flashviz.bench import ring_bench
    theirs = [o for a in get_args_parser()._actions for o in a.option_strings]
    ours = [o for a in ring_bench._parser()._actions for o in a.option_strings if o not in ("-h", "--help")]
    assert ours and not [o for o in ours if any(x.startswith(o) for x in theirs)]


class _Clock:
    """A fake host clock (seconds): it moves only when the fake ring waits or a block computes, so the probe's
    sums are exact and a busy machine cannot change them."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class _SlowRing:
    """A two-rank ring (rank 1's view) on a fake clock: a transfer is done `delay` s after it was issued, and
    waiting for it moves the clock to that moment; the sent block is copied into the receive buffer. It keeps
    its own account of the exposed time (how far each wait moved the clock) and of the waits."""

    def __init__(self, clock, delay):
        self.rank, self.world, self.clock, self.delay = 1, 2, clock, delay
        self.exposed, self.waits = 0.0, []

    def exchange(self, send, recv, tag):
        ring, done = self, self.clock.now + self.delay

        class Work:
            def wait(w):
                moved = max(0.0, done - ring.clock.now)
                ring.exposed += moved
                ring.waits.append(moved)
                ring.clock.now = max(ring.clock.now, done)
                for a, b in zip(send, recv):
                    b.copy_(a)
        return [Work()]


@pytest.fixture
def slow_blocks(monkeypatch):
    """Each block's compute (forward or backward) takes `step` s on the fake clock; returns (clock, step)."""
    from flashviz_kernels import ring, ring_chunked
    clock, step = _Clock(), 0.05

    def slow(fn):
        def run(*a, **kw):
            clock.now += step
            return fn(*a, **kw)
        return run
    monkeypatch.setattr(ring, "block_forward", slow(ring.block_forward))
    monkeypatch.setattr(ring, "block_backward", slow(ring.block_backward))
    monkeypatch.setattr(ring_chunked, "block_forward", slow(ring_chunked.block_forward))
    return clock, step


def test_wait_probe_times_exactly_the_waits_for_transfers(slow_blocks):
    """The probe's exposed time is the time spent waiting on the transfers after computing, never the compute:
    on a fake clock, a 200 ms transfer behind 50 ms of compute exposes 150 ms. Forward: one wait (step 0; step 1
    has no transfer). Backward: K/V behind step 0's compute (150), then the dK/dV hop issued after step 0's
    compute, waited for after step 1's (200 - 50 = 150 later: 0), and the last hop of dK/dV that overlaps nothing
    (200): 350. The output still equals single-device attention."""
    import torch
    from flashviz.bench.ring_bench import WaitProbe
    from flashviz_kernels import attention
    from flashviz_kernels import ring

    class Env:
        cuda = False
    clock, _ = slow_blocks
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, 8, 8, generator=g, dtype=torch.float64) for _ in range(3))
    probe = WaitProbe(Env(), clock=clock)
    fwd = _SlowRing(clock, 0.2)
    out, lse = ring.forward_loop(q, k, v, causal=False, sm_scale=0.3, impl="naive", layout="contiguous",
                                 ring=fwd, probe=probe)
    assert len(fwd.waits) == 1 and probe.take_ms() == pytest.approx(150.0) == pytest.approx(fwd.exposed * 1e3)
    # rank 1 got its own block back (the fake ring hands it the block it sent): twice the same keys
    kk, vv = torch.cat([k, k], 2), torch.cat([v, v], 2)
    ref = attention(q, kk, vv, sm_scale=0.3, impl="naive")
    assert torch.allclose(out, ref, atol=1e-12)
    do = torch.randn_like(q)
    bwd = _SlowRing(clock, 0.2)
    ring.backward_loop(q, k, v, out, lse, do, None, causal=False, sm_scale=0.3, impl="naive", layout="contiguous",
                       ring=bwd, probe=probe)
    assert bwd.waits == pytest.approx([0.15, 0.0, 0.2])
    assert probe.take_ms() == pytest.approx(350.0) == pytest.approx(bwd.exposed * 1e3)


def test_wait_probe_in_the_chunked_forward(slow_blocks):
    """S = 2 passes: four transfers (two slabs, each over two key sub-chunks), each waited for after its compute;
    the probe sums exactly what the waits exposed, which is less than the transfers alone (compute hid part of
    each). The result is still attention over the keys the fake ring handed back (rank 1's own block twice, now
    in two sub-chunks of two passes)."""
    import torch
    from flashviz.bench.ring_bench import WaitProbe
    from flashviz_kernels import ring
    from flashviz_kernels.api import attention_with_lse

    class Env:
        cuda = False
    clock, step = slow_blocks
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 2, 8, 8, generator=g, dtype=torch.float64) for _ in range(3))
    probe = WaitProbe(Env(), clock=clock)
    slow = _SlowRing(clock, 0.15)
    out, lse = ring.forward_loop(q, k, v, causal=False, sm_scale=0.3, impl="naive", layout="zigzag",
                                 ring=slow, probe=probe, chunks=2)
    # each pass computes two pieces (zigzag: the slab's two half-shard rows) before waiting: 150 - 2 * 50 ms
    assert slow.waits == pytest.approx([0.15 - 2 * step] * 4)
    assert probe.take_ms() == pytest.approx(200.0) == pytest.approx(slow.exposed * 1e3)
    ref, ref_lse = attention_with_lse(q, torch.cat([k, k], 2), torch.cat([v, v], 2), sm_scale=0.3, impl="naive")
    assert torch.allclose(out, ref, atol=1e-12) and torch.allclose(lse.double(), ref_lse.double(), atol=1e-9)
