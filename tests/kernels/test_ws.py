"""impl="ws" (the Gluon kernel) without a GPU: the version/capability gate, fast's fallback to the tl kernel (warned
once, reported by ws.status() and the bench provenance) and the forward table's dispatch; the schedule switches'
overrides are in test_ws_switch_env.py. Its sm_90 builds are in test_ws_build.py, its tile order run on the host in
test_ws_host.py, tune_ws's summary in tests/tools/test_tune_ws.py, the GPU tests in test_ws_gpu.py."""
import warnings

import pytest
import torch

import flashviz_kernels as fk
from helpers.attn_ref import attention_rows
from helpers.dispatch import fast_routes
from flashviz_kernels import _env, forward_table, ws

pytestmark = pytest.mark.usefixtures("fresh_ws_state")     # each test as a fresh process (conftest.py here)


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


@pytest.mark.parametrize("version", ["3.7.0", "3.10.0", "3.5.1", "3.60.0", "not installed"])
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
    monkeypatch.setattr(ws, "triton_version", lambda: "3.10.0")
    q, k, v = _qkv()
    with pytest.raises(fk.KernelUnavailable, match="3.10.0"):
        fk.attention(q, k, v, impl="ws")
    with pytest.raises(fk.KernelUnavailable, match="3.10.0"):
        fk.attention_with_lse(q, k, v, impl="ws")


def test_ws_refuses_other_dtypes_and_head_dims(monkeypatch):
    _pretend_hopper(monkeypatch)
    monkeypatch.setattr(ws, "_gluon_import_error", lambda: None)
    q = torch.empty((1, 1, 8, 64), dtype=torch.float16, device="meta")
    assert "CUDA" in ws.unsupported(q)
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda")), raising=False)
    assert "float32" in ws.unsupported(torch.empty((1, 1, 8, 64), dtype=torch.float32, device="meta"))
    assert "96" in ws.unsupported(torch.empty((1, 1, 8, 96), dtype=torch.float16, device="meta"))
    assert ws.unsupported(torch.empty((1, 1, 8, 128), dtype=torch.bfloat16, device="meta")) is None
    with pytest.raises(fk.KernelInputError, match="block_m = 128 or 192"):
        ws.pick_config(q, q, causal=False, block_m=64)


def test_fast_without_ws_runs_the_tl_kernel_silently_on_cpu(monkeypatch):
    """In the dispatch table but not runnable here: fast is the tl kernel; no warning for CPU tensors."""
    fast_routes(monkeypatch, {(64, False): 1})
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

    fast_routes(monkeypatch, {(64, True): 1})
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
    monkeypatch.setattr(ws, "triton_version", lambda: "3.10.0")
    f = provenance.ws_fields()
    assert f["ws_status"].startswith("inactive: triton 3.10.0")
    from flashviz_kernels import gates
    assert f["ws_verified_triton"] == ", ".join(map(gates.version_label, gates.versions("ws-forward")))
    assert f["ws_verified_triton"].startswith("3.6.x") and f["fast_uses_ws"]
    assert "d=64 causal=False: 3" in f["ws_schedule"] and f["ws_schedule"].startswith("persistent: ")
    assert f["ws_schedule"].endswith("; overlap: every (d, causal) but d=64 ALiBi (CONFIGS)")     # not cut at 300
    assert (f["ws_pingpong"], f["ws_half"]) == (ws.status()["pingpong"], ws.status()["half"])
    assert f["ws_p_pack"] == ws.status()["p_pack"] and f["ws_early_rescale"] == ws.status()["early_rescale"]
    assert f["ws_local_sum"] == ws.status()["local_sum"] and f["ws_local_sum"].startswith("none")     # 3.10: untimed
    assert f["ws_split_bars"] == ws.status()["split_bars"] and f["ws_pair_max"] == ws.status()["pair_max"]
    assert f["ws_lpt"] == ws.status()["lpt"] and "16-32 tiles per SM (forward)" in f["ws_lpt"]
    assert f["ws_skip"] == ws.status()["skip"] == "none (CONFIGS)"                              # off everywhere
    assert f["ws_thread_arrive"] == ws.status()["thread_arrive"] == "none (CONFIGS)"            # off: not faster
    assert f["ws_bwd_thread_arrive"] == ws.status()["bwd_thread_arrive"] == "none (CONFIGS)"
    assert f["ws_half_tail"] == ws.status()["half_tail"] == "none (CONFIGS)"                    # 3.10: untimed
    assert f["ws_q_ahead"] == ws.status()["q_ahead"] == "none (CONFIGS)"
    assert f["ws_walk"] == ws.status()["walk"] == "none (CONFIGS)"
    assert f["ws_fresh"] == ws.status()["fresh"] == "none (CONFIGS)"
    assert f["ws_named"] == ws.status()["named"] == "none (CONFIGS)"
    assert f["ws_poly"] == ws.status()["poly"] == "none (CONFIGS)"
    assert f["ws_mma_sum"] == ws.status()["mma_sum"] == "none (CONFIGS)"
    assert "d=128 causal=True" in f["ws_pingpong"] and f["ws_half"].startswith("none here")    # 3.10: not verified
    assert all(isinstance(x, str) and len(x) <= 300 for x in f.values())
    p = provenance.collect("cpu", "python -m flashviz.bench", "test")
    assert p["ws_status"] == f["ws_status"]


def test_fast_dispatch_follows_the_table_per_d_causal_and_n(monkeypatch):
    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    fast_routes(monkeypatch, {(64, False): 8192})
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
    fast_routes(monkeypatch, {(64, False): 8192})
    q = torch.empty((1, 1, 8192, 64), dtype=torch.float16, device="meta")
    assert ws.fast_should_use(q, q, False) and ws.status()["fast_uses_ws"] == ["d=64 causal=False N>=8192"]
    monkeypatch.setenv(ws.PIN_TL_ENV, "1")
    assert not ws.fast_should_use(q, q, False) and ws.status()["fast_uses_ws"] == []
    monkeypatch.setenv(ws.PIN_TL_ENV, "0")
    assert ws.fast_should_use(q, q, False)


def test_dispatch_table_names_only_cells_ws_can_run():
    """Every row sending calls to ws names a head dim the kernel takes and has a launch row for it."""
    for r in forward_table.ROUTES:
        assert r.kernel in ("ws", "tl") and r.n[0] >= 1 and (r.n[1] is None or r.n[1] >= r.n[0])
        if r.kernel == "ws":
            assert r.d[0] == r.d[1] and r.d[0] in ws.HEAD_DIMS
            for c in ((False, True) if r.causal is None else (r.causal,)):
                assert (r.d[0], c) in ws.CONFIGS
                assert r.variant == "dense" or forward_table.ws_rows(r.variant, r.d[0], c) is not None
