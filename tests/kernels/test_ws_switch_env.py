"""The Gluon ws forward's schedule switches without a GPU (kernels/ws_switches.py, kernels/ws_schedule.py): each
environment override (OVERLAP, PINGPONG, HALF, persistent, consumers) against CONFIGS and the forward table, a bad
value refused as a KernelInputError before any launch, ws.status() naming which launches take each switch, and the
switches opened per triton version. The gate and fast's dispatch are in test_ws.py."""
import pytest
import torch

import flashviz_kernels as fk
from flashviz_kernels import forward_table, ws

pytestmark = pytest.mark.usefixtures("fresh_ws_state")     # each test as a fresh process (conftest.py here)


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
# own key tiles only (SKIP) 3.6 and 3.8 (timed faster and its suite passed there; 3.7 and 3.9 not run); every
# thread's own arrive nowhere (THREAD_ARRIVE: no faster on the H100 under 3.8; BWD_THREAD_ARRIVE: within the
# A/B's noise there, tests/kernels/test_ws_bwd_arrive_timed.py)
SWITCHES = {"p_pack": ("P_PACK_ENV", "p_pack_default", "d=64", ()),
            "early_rescale": ("EARLY_RESCALE_ENV", "early_rescale_default", "every OVERLAP launch", ("3.6.0", "3.6.1")),
            "local_sum": ("LOCAL_SUM_ENV", "local_sum_default", "d=64", ("3.6.0", "3.6.1", "3.8.0", "3.9.0")),
            "split_bars": ("SPLIT_BARS_ENV", "split_bars_default", "every launch", ()),
            "pair_max": ("PAIR_MAX_ENV", "pair_max_default", "d=64 dense", ("3.8.0", "3.9.0")),
            "skip": ("SKIP_ENV", "skip_default", "three-consumer launches without a window or documents",
                     ("3.6.0", "3.6.1", "3.8.0")),
            "thread_arrive": ("THREAD_ARRIVE_ENV", "thread_arrive_default", "every launch", ()),
            "half_tail": ("HALF_TAIL_ENV", "half_tail_default", "HALF launches with OVERLAP, without CARRY",
                          ("3.8.0",)),
            "q_ahead": ("Q_AHEAD_ENV", "q_ahead_default", "persistent launches", ()),
            "walk": ("WALK_ENV", "walk_default", "persistent launches", ()),
            "fresh": ("FRESH_ENV", "fresh_default", "persistent launches", ()),
            "named": ("NAMED_ENV", "named_turn_default", "PINGPONG launches", ()),
            "poly": ("POLY_ENV", "poly_default", "d=64 unmasked tiles", ()),
            "mma_sum": ("MMA_SUM_ENV", "mma_sum_default", "d=64 OVERLAP launches without HALF, CARRY or ALiBi",
                        ()),
            "bwd_thread_arrive": ("BWD_THREAD_ARRIVE_ENV", "bwd_thread_arrive_default", "every backward launch", ())}


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
