"""impl="ws" (the Gluon kernel) without a GPU: the version/capability gate, fast's fallback to the tl kernel
(warned once, reported by ws.status() and the bench provenance) and, where the installed triton is the
verified one, a compile of the Gluon kernel for sm_90 (no GPU needed)."""
import warnings

import pytest
import torch

import flashviz_kernels as fk
from attn_ref import attention_rows
from flashviz_kernels import _env, ws


@pytest.fixture(autouse=True)
def _fresh_state(monkeypatch):
    """Each test starts as a fresh process would: no recorded failure, nothing warned yet."""
    monkeypatch.setattr(ws, "_state", {"failed": None, "warned": False})


def _qkv(n=64, d=64, dtype=torch.float16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn((1, 2, n, d), generator=g).to(dtype) for _ in range(3)]


def _pretend_hopper(monkeypatch, version="3.6.0", cap=(9, 0)):
    monkeypatch.setattr(ws, "triton_version", lambda: version)
    monkeypatch.setattr(_env, "INTERPRET", False)
    monkeypatch.setattr(ws, "_capability", lambda: cap)


def test_status_here_is_inactive_with_a_reason():
    st = ws.status()
    assert set(st) >= {"active", "reason", "triton", "verified_triton"}
    assert st["triton"] == ws.triton_version()
    if not torch.cuda.is_available():
        assert st["active"] is False
        assert ("interpreter" in st["reason"]) or ("not a version" in st["reason"])


@pytest.mark.parametrize("version", ["3.8.0", "3.5.1", "3.60.0", "not installed"])
def test_unverified_triton_is_refused(monkeypatch, version):
    _pretend_hopper(monkeypatch, version=version)
    st = ws.status()
    assert st["active"] is False and version in st["reason"] and "verified" in st["reason"]


@pytest.mark.parametrize("cap", [(8, 0), (10, 0), (12, 0), None])
def test_other_gpus_are_refused(monkeypatch, cap):
    _pretend_hopper(monkeypatch, cap=cap)
    st = ws.status()
    assert st["active"] is False
    assert ("no CUDA" in st["reason"]) if cap is None else (f"{cap[0]}.{cap[1]} is not sm_90" in st["reason"])


def test_hopper_with_verified_triton_is_active_or_says_why(monkeypatch):
    _pretend_hopper(monkeypatch)
    st = ws.status()
    assert st["active"] or st["reason"].startswith("Gluon could not be imported"), st


def test_explicit_ws_raises_unavailable_with_the_reason(monkeypatch):
    monkeypatch.setattr(ws, "triton_version", lambda: "3.8.0")
    q, k, v = _qkv()
    with pytest.raises(fk.KernelUnavailable, match="3.8.0"):
        fk.attention(q, k, v, impl="ws")
    with pytest.raises(fk.KernelUnavailable, match="3.8.0"):
        fk.attention_with_lse(q, k, v, impl="ws")


def test_ws_refuses_other_dtypes_and_head_dims(monkeypatch):
    monkeypatch.setattr(ws, "_reason_unavailable", lambda: None)
    q = torch.empty((1, 1, 8, 64), dtype=torch.float16, device="meta")
    assert "CUDA" in ws.unsupported(q)
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda")), raising=False)
    assert "float32" in ws.unsupported(torch.empty((1, 1, 8, 64), dtype=torch.float32, device="meta"))
    assert "96" in ws.unsupported(torch.empty((1, 1, 8, 96), dtype=torch.float16, device="meta"))
    assert ws.unsupported(torch.empty((1, 1, 8, 128), dtype=torch.bfloat16, device="meta")) is None
    with pytest.raises(fk.KernelInputError, match="block_m = 128"):
        ws.pick_config(q, q, causal=False, block_m=64)


def test_fast_without_ws_runs_the_tl_kernel_silently_on_cpu(monkeypatch):
    """In the dispatch table but not runnable here: fast is the tl kernel; no warning for CPU tensors."""
    monkeypatch.setattr(ws, "FAST_USES_WS", {(64, False): 1})
    q, k, v = _qkv()
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="flashviz_kernels")
        out = fk.attention(q, k, v, impl="fast")
    rows = torch.arange(64)
    ref = attention_rows(q, k, v, rows, causal=False)
    assert (out.double() - ref).abs().max() < 2e-3


def test_gluon_failure_falls_back_once_and_is_reported(monkeypatch):
    """A compile/launch failure of the Gluon kernel: fast still answers (tl kernel), warns once, status says why,
    later calls go straight to the tl kernel; pinned tiles never try ws."""
    calls = []

    def broken(*a, **kw):
        calls.append(1)
        raise RuntimeError("PassManager::run failed (simulated)")

    monkeypatch.setattr(ws, "FAST_USES_WS", {(64, True): 1})
    monkeypatch.setattr(ws, "unsupported", lambda q: ws._state["failed"])
    monkeypatch.setattr(ws, "forward", broken)
    q, k, v = _qkv(n=96)
    fk.attention(q, k, v, causal=True, impl="fast", block_m=64, block_n=64)
    assert calls == []                                            # pinned launch: the tl kernel only
    with pytest.warns(RuntimeWarning, match="simulated"):
        out, lse = fk.attention_with_lse(q, k, v, causal=True, impl="fast")
    assert calls == [1]
    rows = torch.arange(96)
    assert (out.double() - attention_rows(q, k, v, rows, causal=True)).abs().max() < 2e-3
    st = ws.status()
    assert st["active"] is False and "simulated" in st["reason"]
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="flashviz_kernels")   # said once per process
        fk.attention(q, k, v, causal=True, impl="fast")
    assert calls == [1]


def test_provenance_carries_ws_status(monkeypatch):
    from flashviz.bench import provenance
    monkeypatch.setattr(ws, "triton_version", lambda: "3.8.0")
    f = provenance.ws_fields()
    assert f["ws_status"].startswith("inactive: triton 3.8.0")
    assert f["ws_verified_triton"] == "3.6.x" and f["fast_uses_ws"]
    assert all(isinstance(x, str) and len(x) <= 300 for x in f.values())
    p = provenance.collect("cpu", "python -m flashviz.bench", "test")
    assert p["ws_status"] == f["ws_status"]


COMPILE = """
import json, re
from flashviz_kernels import ws
k = ws.compile_sm90({d}, {causal}, stages=ws.CONFIGS[({d}, {causal})][2])
ptx = k.asm["ptx"]
print(json.dumps(dict(wgmma=ptx.count("wgmma.mma_async"), setmaxnreg=re.findall(r"setmaxnreg[.a-z0-9]*\\s+\\d+", ptx),
                      tma=ptx.count("cp.async.bulk.tensor"), spills=ptx.count("st.local"), shared=k.metadata.shared)))
"""


@pytest.mark.parametrize("d,causal", [(128, True), (64, False)])
def test_gluon_kernel_compiles_for_sm90(d, causal):
    """In a child process with TRITON_INTERPRET=0 (under the interpreter, jit functions cannot be compiled)."""
    import json
    import os
    import subprocess
    import sys
    if not any(ws.triton_version().startswith(p) for p in ws.VERIFIED_TRITON):
        pytest.skip(f"installed triton {ws.triton_version()} is not the verified {ws.VERIFIED_TRITON}: the Gluon "
                    "kernel is only compiled there (a venv with triton==3.6.0 runs this test)")
    env = dict(os.environ, TRITON_INTERPRET="0", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", COMPILE.format(d=d, causal=causal)], capture_output=True, text=True,
                       env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["wgmma"] > 0 and got["tma"] > 0 and got["spills"] == 0          # no register spills
    regs = [int(x.split()[-1]) for x in got["setmaxnreg"]]
    assert ws.PRODUCER_REGS in regs and ws.CONSUMER_REGS in regs                # the per-partition budgets
    assert got["shared"] <= 227 * 1024


def test_fast_dispatch_follows_the_table_per_d_causal_and_n(monkeypatch):
    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    monkeypatch.setattr(ws, "FAST_USES_WS", {(64, False): 8192})
    meta = lambda n, d=64, dt=torch.float16: torch.empty((1, 1, n, d), dtype=dt, device="meta")  # noqa: E731
    assert ws.fast_should_use(meta(8192), meta(8192), False)
    assert ws.fast_should_use(meta(9000), meta(16384), False)
    assert not ws.fast_should_use(meta(4096), meta(8192), False)          # below the measured N
    assert not ws.fast_should_use(meta(8192), meta(8192), True)           # causal: not in the table
    assert not ws.fast_should_use(meta(8192, 128), meta(8192, 128), False)
    assert not ws.fast_should_use(meta(8192, dt=torch.float32), meta(8192, dt=torch.float32), False)


def test_pinning_fast_to_tl_for_measurement(monkeypatch):
    """FLASHVIZ_FAST_TL=1 (a benchmark timing fast's tl kernel against ws) empties the table in force, and
    status() says so, so the recording's provenance shows fast_uses_ws 'none'."""
    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    monkeypatch.setattr(ws, "FAST_USES_WS", {(64, False): 8192})
    q = torch.empty((1, 1, 8192, 64), dtype=torch.float16, device="meta")
    assert ws.fast_should_use(q, q, False) and ws.status()["fast_uses_ws"] == ["d=64 causal=False N>=8192"]
    monkeypatch.setenv(ws.PIN_TL_ENV, "1")
    assert not ws.fast_should_use(q, q, False) and ws.status()["fast_uses_ws"] == []
    monkeypatch.setenv(ws.PIN_TL_ENV, "0")
    assert ws.fast_should_use(q, q, False)


def test_dispatch_table_names_only_cells_ws_can_run():
    for (d, causal), least in ws.FAST_USES_WS.items():
        assert d in ws.HEAD_DIMS and isinstance(causal, bool) and isinstance(least, int) and least >= 1
        assert (d, causal) in ws.CONFIGS


def test_dispatch_table_agrees_with_the_recorded_h200_run():
    """ws.FAST_USES_WS is read off assets/benchmarks/ws/: every (d, causal, N >= its threshold) it names was
    measured faster than the tl kernel, and each (d, causal) left out was measured slower at some N."""
    from pathlib import Path

    from flashviz.bench.dataset import load_dataset
    data = load_dataset(Path(__file__).parents[1] / "assets/benchmarks/ws/nvidia-h200-ws-2026-11-30.json")
    assert data["provenance"]["ws_status"] == "active" and data["provenance"]["triton"].startswith("3.6.")
    ms = {(c["impl"], c["d"], c["causal"], c["n"]): c["ms"] for c in data["cells"] if c["status"] == "ok"}
    cells = {(d, causal, n) for _, d, causal, n in ms}
    for d, causal, n in cells:
        least = ws.FAST_USES_WS.get((d, causal))
        faster = ms[("ws", d, causal, n)] < ms[("fast", d, causal, n)]
        if least is not None and n >= least:
            assert faster, (d, causal, n)
    for d, causal in {(d, c) for d, c, _ in cells} - set(ws.FAST_USES_WS):
        assert any(ms[("ws", d, causal, n)] > ms[("fast", d, causal, n)] for dd, cc, n in cells
                   if (dd, cc) == (d, causal))


def test_dispatch_below_4096_agrees_with_the_forward_recording():
    """Below N = 4096 (launch-bound calls) the table follows the CUDA-graph column of the forward recording in which
    fast still ran the tl kernel there (its provenance says so): d=128 from N = 1024 because ws's graph time was
    lower in every d=128 cell at N = 1024 and 2048, d=64 not because it was not."""
    from pathlib import Path

    from flashviz.bench.dataset import load_dataset
    data = load_dataset(Path(__file__).parents[1] / "assets/benchmarks/nvidia-h200-fwd-2026-11-30.json")
    assert "d=128 causal=False N>=4096" in data["provenance"]["fast_uses_ws"]      # fast = tl below 4096 there
    g = {(c["impl"], c["d"], c["causal"], c["n"]): c["graph_ms"] for c in data["cells"]
         if c["status"] == "ok" and c["dtype"] == "float16" and c.get("graph_ms") and c["n"] < 4096}
    for causal in (False, True):
        assert ws.FAST_USES_WS[(128, causal)] == 1024
        assert all(g[("ws", 128, causal, n)] < g[("fast", 128, causal, n)] for n in (1024, 2048))
        assert ws.FAST_USES_WS[(64, causal)] >= 4096
    assert any(g[("ws", 64, c, n)] > g[("fast", 64, c, n)] for c in (False, True) for n in (1024, 2048))
