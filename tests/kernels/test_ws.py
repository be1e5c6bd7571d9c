"""impl="ws" (the Gluon kernel) without a GPU: the version/capability gate, fast's fallback to the tl kernel
(warned once, reported by ws.status() and the bench provenance), the forward table's dispatch and the schedule
switches. Its sm_90 builds are in test_ws_build.py, its tile order run on the host in test_ws_host.py, tune_ws's
summary in tests/tools/test_tune_ws.py, the GPU tests in test_ws_gpu.py."""
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


def _refused_before_launch(monkeypatch, env):
    """With env set to a bad value, ws.forward raises KernelInputError naming it before any launch (host checks
    only: ws.unsupported is stubbed); returns the (q, keywords) it called with."""
    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    q = torch.empty((1, 2, 300, 128), dtype=torch.float16)
    kw = dict(causal=True, sm_scale=0.1, block_m=128, block_n=128, num_warps=4, num_stages=2)
    with pytest.raises(fk.KernelInputError, match=env):
        ws.forward(q, q, q, **kw)
    return q, kw


def test_overlap_switch_env(monkeypatch):
    """OVERLAP_ENV overrides CONFIGS' OVERLAP for launches that do not pass overlap; a bad value is a typed error."""
    monkeypatch.delenv(ws.OVERLAP_ENV, raising=False)
    for (d, causal), cfg in ws.CONFIGS.items():
        assert ws.overlap_default(d, causal) is cfg[3]
    assert [ws.overlap_default(d, True, alibi=True) for d in (64, 128)] == \
        [forward_table.ws_rows("alibi", d, True).fields["overlap"] for d in (64, 128)]
    for pers, window in ((True, False), (False, True)):           # three consumers' 160 registers spill with it
        assert ws.overlap_default(64, True, consumers=3, persistent=pers, window=window) is False
    assert ws.overlap_default(64, True, consumers=2, persistent=True, window=True) is ws.CONFIGS[(64, True)][3]
    monkeypatch.setenv(ws.OVERLAP_ENV, "0")
    assert not any(ws.overlap_default(d, c) for d, c in ws.CONFIGS)
    monkeypatch.setenv(ws.OVERLAP_ENV, "1")
    assert all(ws.overlap_default(d, c) for d, c in ws.CONFIGS)
    assert ws.status()["overlap"] == f"every (d, causal) ({ws.OVERLAP_ENV}=1)"
    monkeypatch.delenv(ws.OVERLAP_ENV)
    assert ws.status()["overlap"] == "every (d, causal) but d=64 ALiBi (CONFIGS)"      # the tables as measured
    monkeypatch.setenv(ws.OVERLAP_ENV, "on")
    assert "must be 1" in ws.status()["overlap"]
    _refused_before_launch(monkeypatch, ws.OVERLAP_ENV)


def test_pingpong_switch_env(monkeypatch):
    """PINGPONG_ENV overrides the forward table's PINGPONG for launches that do not pass pingpong (windows take their
    band row's, else their (d, causal) row's); a bad value is a typed error before any launch."""
    monkeypatch.delenv(ws.PINGPONG_ENV, raising=False)
    for (d, causal), cfg in ws.CONFIGS.items():
        assert ws.pingpong_default(d, causal) is cfg[4]
        assert ws.pingpong_default(d, True, window=True) is ws.schedule(d, True, window=True)["pingpong"]
    assert ws.status()["pingpong"].endswith("(CONFIGS)") and "d=128 causal=True" in ws.status()["pingpong"]
    for env, want in (("0", False), ("1", True)):
        monkeypatch.setenv(ws.PINGPONG_ENV, env)
        assert all(ws.pingpong_default(d, c, w) is want for d, c in ws.CONFIGS for w in (False, c))
        assert ws.status()["pingpong"].endswith(f"({ws.PINGPONG_ENV}={env})")
    monkeypatch.setenv(ws.PINGPONG_ENV, "yes")
    assert "must be 1" in ws.status()["pingpong"]
    _refused_before_launch(monkeypatch, ws.PINGPONG_ENV)


def test_half_runs_where_the_table_and_the_gate_say(monkeypatch):
    """HALF (kernels/_ws_half.py): the table's rows set it (the d = 128 window; the dense causal rows under 3.8
    only; not d = 64's band rows nor ALiBi's), HALF_ENV overrides them, and it runs only in causal launches without
    CARRY or documents; where kernels/gates.py's "ws-half" rows do not verify this triton, status says none runs and
    why, and half=True raises KernelUnavailable before any launch."""
    from helpers.dispatch import pretend_hopper
    monkeypatch.delenv(ws.HALF_ENV, raising=False)
    monkeypatch.delenv(ws.PINGPONG_ENV, raising=False)
    monkeypatch.delenv(ws.PERSISTENT_ENV, raising=False)
    monkeypatch.delenv(ws.OVERLAP_ENV, raising=False)
    assert ws.half_default(128, True, window=True) is True
    assert [ws.half_default(d, c, version="3.6.0") for d, c in sorted(ws.CONFIGS)] == [False] * len(ws.CONFIGS)
    assert [ws.half_default(d, c, version="3.8.0") for d, c in sorted(ws.CONFIGS)] == [c for _, c in sorted(ws.CONFIGS)]
    for v in ("3.6.0", "3.8.0"):                        # whole tiles where no timing asked for halves
        assert not ws.half_default(64, True, window=True, version=v)
        assert not any(ws.half_default(d, True, alibi=True, version=v) for d in (64, 128))
        assert not ws.half_runs(128, True, alibi=True, version=v)
    assert ws.half_runs(128, True, window=True) and not ws.half_runs(128, False)
    monkeypatch.setenv(ws.HALF_ENV, "1")
    assert not ws.half_runs(128, True, docs=True) and not ws.half_runs(64, False)
    assert ws.half_runs(128, True) and ws.half_runs(128, True, window=True)      # PINGPONG: no CARRY
    assert not ws.half_runs(64, True, window=True)      # d = 64's window: persistent, OVERLAP, no PINGPONG: CARRY
    assert ws.half_runs(64, True)                       # d = 64 causal: one tile per program
    monkeypatch.setenv(ws.PINGPONG_ENV, "0")            # persistent with OVERLAP and no PINGPONG: CARRY, no HALF
    monkeypatch.setenv(ws.PERSISTENT_ENV, "1")
    monkeypatch.setenv(ws.OVERLAP_ENV, "1")
    assert not ws.half_runs(128, True) and not ws.half_runs(128, True, window=True)
    for env in (ws.PINGPONG_ENV, ws.PERSISTENT_ENV, ws.OVERLAP_ENV):
        monkeypatch.delenv(env)
    monkeypatch.setenv(ws.HALF_ENV, "0")
    assert not ws.half_runs(128, True, window=True) and ws.status()["half"] == f"none ({ws.HALF_ENV}=0)"
    monkeypatch.delenv(ws.HALF_ENV)
    pretend_hopper(monkeypatch, version="3.8.0")
    assert ws.status()["half"] == "d=64 causal=True, d=128 causal=True, d=128 window (CONFIGS)"
    pretend_hopper(monkeypatch, version="3.6.0")
    assert ws.status()["half"] == "d=128 window (CONFIGS)"
    pretend_hopper(monkeypatch, version="3.6.0")
    assert ws.status()["half"] == "d=128 window (CONFIGS)"            # 3.6 runs it with half_code's workaround
    from flashviz_kernels import gates                                   # a version whose ws-half row is gone
    monkeypatch.setattr(gates, "VERIFIED", tuple(r for r in gates.VERIFIED
                                                 if not (r.path == "ws-half" and r.triton == "3.6.")))
    line = ws.status()["half"]
    assert line.startswith("none here (d=128 window where verified): triton 3.6.0 is not a version") and "3.8.x" in line
    q = torch.empty((1, 2, 300, 128), dtype=torch.float16)
    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    monkeypatch.setattr(ws, "_sm_count", lambda i: pytest.fail("launched"))
    with pytest.raises(fk.KernelUnavailable, match="half=True .* cannot run here: triton 3.6.0"):
        ws.forward(q, q, q, causal=True, sm_scale=0.1, block_m=128, block_n=128, num_warps=4, num_stages=2,
                   half=True)
    assert [ws.half_code(v) for v in ("3.6.0", "3.7.1", "3.8.0", "3.9.0")] == [2, 2, True, True]
    monkeypatch.setenv(ws.HALF_ENV, "on")
    assert "must be 1" in ws.status()["half"]
    _refused_before_launch(monkeypatch, ws.HALF_ENV)


def test_persistent_switch_env_and_checks(monkeypatch):
    """PERSISTENT_ENV overrides CONFIGS (a bad value is a typed error); programs / groups only with persistent;
    a ring plus Q buffers larger than sm_90's shared memory is refused before any launch."""
    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    monkeypatch.delenv(ws.PERSISTENT_ENV, raising=False)
    assert ws.persistent_default(128, True) is ws.CONFIGS[(128, True)][5]
    monkeypatch.setenv(ws.PERSISTENT_ENV, "1")
    assert ws.persistent_default(64, False) is True
    monkeypatch.setenv(ws.PERSISTENT_ENV, "0")
    assert ws.persistent_default(64, False) is False
    monkeypatch.setenv(ws.PERSISTENT_ENV, "yes")
    q, kw = _refused_before_launch(monkeypatch, ws.PERSISTENT_ENV)
    monkeypatch.setenv(ws.PERSISTENT_ENV, "0")
    with pytest.raises(fk.KernelInputError, match="persistent launch only"):
        ws.forward(q, q, q, programs=4, **kw)
    with pytest.raises(fk.KernelInputError, match="positive int"):
        ws.forward(q, q, q, persistent=True, groups=0, **kw)
    with pytest.raises(fk.KernelInputError, match="shared memory"):
        ws.forward(q, q, q, persistent=True, **dict(kw, num_stages=3))
    assert ws.smem_bytes(128, 128, 3, False) <= ws.SMEM_BYTES < ws.smem_bytes(128, 128, 3, True)
    assert ws.head_group(128, 8192, 128, 2, False) == 1 and ws.head_group(3, 64, 64, 2, True) == 3


def test_band_and_alibi_rows_set_their_own_stages_and_pingpong(monkeypatch):
    """A window's, documents' or ALiBi's row that names stages or pingpong launches with them (pick_config's stages,
    pingpong_default), not with its dense row's: d = 64's dense row moved to FA4's mix (2 stages, PINGPONG), its band
    and ALiBi rows keep the schedule they were timed with."""
    for name in (ws.PINGPONG_ENV, ws.CONSUMERS_ENV):
        monkeypatch.delenv(name, raising=False)
    dense64 = forward_table.ws_dense(64, True)
    assert (dense64["stages"], dense64["pingpong"]) == (2, True)
    seen = 0
    for row in forward_table.WS_LAUNCHES:
        if row.variant == "dense" or not {"stages", "pingpong"} & set(row.fields):
            continue
        kw = dict(window=row.variant == "window", docs=row.variant == "docs", alibi=row.variant == "alibi")
        for d in range(row.d[0], row.d[1] + 1):
            if d not in ws.HEAD_DIMS:
                continue
            q = torch.empty((1, 1, 8, d), dtype=torch.float16, device="meta")
            if "stages" in row.fields:
                assert ws.pick_config(q, q, causal=True, **kw)[3] == row.fields["stages"], row
            if "pingpong" in row.fields:
                assert ws.pingpong_default(d, True, kw["window"], docs=kw["docs"], alibi=kw["alibi"]) \
                    is row.fields["pingpong"], row
            seen += 1
    assert seen >= 3                                   # d = 64's window, documents and ALiBi rows
    q = torch.empty((1, 1, 8, 64), dtype=torch.float16, device="meta")
    assert ws.pick_config(q, q, causal=True)[3] == 2 and ws.pick_config(q, q, causal=True, alibi=True)[3] == 3


def test_consumers_switch_env_config_and_shared_memory(monkeypatch):
    """NC (consumer warpgroups) lives in CONFIGS as block_m = 64 * NC; CONSUMERS_ENV overrides it for launches that
    do not pass block_m (a bad value is a typed error); the register budgets fit 64K per SM; three 64-row Q/O
    slices cost one more slice of shared memory per buffer."""
    monkeypatch.delenv(ws.CONSUMERS_ENV, raising=False)
    for key, cfg in ws.CONFIGS.items():
        assert len(cfg) == 7 and cfg[6] in (2, 3) and cfg[0] == 64 * cfg[6], key
        assert cfg[6] == (3 if key[0] == 64 else 2), key  # measured: three at d=64 (tune/...-nc3-...json), two at 128
    q = torch.empty((1, 1, 8, 128), dtype=torch.float16, device="meta")
    assert ws.pick_config(q, q, causal=True)[0] == 128 and ws.consumers_default(128, True) == 2
    monkeypatch.setenv(ws.CONSUMERS_ENV, "3")
    assert ws.pick_config(q, q, causal=True) == (192, ws.CONFIGS[(128, True)][1], 4, ws.CONFIGS[(128, True)][2])
    assert ws.pick_config(q, q, causal=True, block_m=128)[0] == 128            # an explicit block_m wins
    monkeypatch.setenv(ws.CONSUMERS_ENV, "2")
    q = torch.empty((1, 1, 8, 64), dtype=torch.float16, device="meta")
    assert ws.pick_config(q, q, causal=False)[0] == 128 and ws.consumers_default(64, False) == 2
    monkeypatch.delenv(ws.CONSUMERS_ENV)
    assert ws.pick_config(q, q, causal=False)[0] == 192
    monkeypatch.setenv(ws.CONSUMERS_ENV, "3")
    assert "d=64 causal=True: 3" in ws.status()["consumers"] and ws.CONSUMERS_ENV in ws.status()["consumers"]
    monkeypatch.setenv(ws.CONSUMERS_ENV, "4")
    with pytest.raises(fk.KernelInputError, match=ws.CONSUMERS_ENV):
        ws.pick_config(q, q, causal=True)
    assert "must be 2 or 3" in ws.status()["consumers"]
    with pytest.raises(fk.KernelInputError, match="block_m = 128 or 192"):
        ws.pick_config(q, q, causal=True, block_m=256)
    for nc, (creg, preg, maxnreg) in ws.REGS.items():
        for r in (creg, preg, maxnreg):
            assert r % 8 == 0 and 24 <= r <= 256
        assert 128 * (nc * creg + preg) <= 128 * (nc + 1) * maxnreg <= 65536
    assert ws.smem_bytes(64, 128, 2, True, 2, 3) - ws.smem_bytes(64, 128, 2, True, 2, 2) == 2 * 64 * 64 * 2
    assert ws.smem_bytes(128, 128, 2, False, 2, 3) <= ws.SMEM_BYTES


def test_status_says_which_launches_run_persistent(monkeypatch):
    monkeypatch.delenv(ws.PERSISTENT_ENV, raising=False)
    on = [k for k, c in ws.CONFIGS.items() if c[5]]
    assert ws.status()["persistent"].endswith("(CONFIGS)") and (bool(on) != ws.status()["persistent"].startswith("none"))
    monkeypatch.setenv(ws.PERSISTENT_ENV, "1")
    assert ws.status()["persistent"] == ("d=64 causal=False, d=64 causal=True, d=128 causal=False, d=128 causal=True, "
                                         f"d=64 window, d=128 window ({ws.PERSISTENT_ENV}=1)")
    monkeypatch.setenv(ws.PERSISTENT_ENV, "2")
    assert "must be 1" in ws.status()["persistent"]


# the ws forward's version-gated 1 / 0 switches (kernels/ws_schedule.py): (env constant, default function,
# ws.status() key, what status names when on, the tritons where on by default). P_PACK never (3.6's and 3.9's sm_90
# builds grew with it, tests/tools/test_sass_loops.py); early rescale 3.6 only (3.8 slower), lane sums 3.6, 3.8 and
# 3.9 (timed faster there; 3.7 untimed); split barriers nowhere (timed even); joined row maxima 3.8 and 3.9 (3.6: even);
# own key tiles only (SKIP) 3.6 and 3.8 (timed faster and its suite passed there; 3.7 and 3.9 not run)
SWITCHES = {"p_pack": ("P_PACK_ENV", "p_pack_default", "d=64", ()),
            "early_rescale": ("EARLY_RESCALE_ENV", "early_rescale_default", "every OVERLAP launch", ("3.6.0", "3.6.1")),
            "local_sum": ("LOCAL_SUM_ENV", "local_sum_default", "d=64", ("3.6.0", "3.6.1", "3.8.0", "3.9.0")),
            "split_bars": ("SPLIT_BARS_ENV", "split_bars_default", "every launch", ()),
            "pair_max": ("PAIR_MAX_ENV", "pair_max_default", "d=64 dense", ("3.8.0", "3.9.0")),
            "skip": ("SKIP_ENV", "skip_default", "three-consumer launches without a window or documents",
                     ("3.6.0", "3.6.1", "3.8.0"))}


@pytest.mark.parametrize("key", list(SWITCHES))
def test_version_gated_switch(monkeypatch, key):
    """Each switch's environment variable decides where set (1 on, 0 off, anything else a KernelInputError that
    ws.status() reports); unset, the tritons the switch lists; ws.status() (and so provenance) says which."""
    from flashviz_kernels import ws_switches as sch
    env_name, fn_name, on_text, on_tritons = SWITCHES[key]
    env, default = getattr(sch, env_name), getattr(sch, fn_name)
    versions = ("3.6.0", "3.6.1", "3.7.1", "3.8.0", "3.9.0", "3.10.0")
    monkeypatch.delenv(env, raising=False)
    assert [default(v) for v in versions] == [v in on_tritons for v in versions]
    here = on_text if default(ws.triton_version()) else "none"
    assert ws.status()[key] == f"{here} (CONFIGS)"
    monkeypatch.setenv(env, "1")
    assert all(default(v) for v in versions) and ws.status()[key] == f"{on_text} ({env}=1)"
    monkeypatch.setenv(env, "0")
    assert not any(default(v) for v in versions) and ws.status()[key] == f"none ({env}=0)"
    monkeypatch.setenv(env, "on")
    with pytest.raises(fk.KernelInputError, match="must be 1"):
        default("3.6.0")
    assert "must be 1" in ws.status()[key]
