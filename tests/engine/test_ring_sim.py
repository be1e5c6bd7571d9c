"""The numpy ring simulation (flashviz.engine.ring) against brute force, the single pass, and the kernels' own plan."""
import math

import numpy as np
import pytest

from flashviz.engine import ring
from flashviz.infra.errors import InputError
from flashviz.engine.online_softmax import make_qkv
from flashviz_kernels import ring as kring

LAYOUTS = ("contiguous", "zigzag")


@pytest.mark.parametrize("world", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("causal", [False, True])
def test_merged_rows_equal_the_single_pass(world, layout, causal):
    n = 4 * world * 2
    q, k, v = make_qkv(n, 8, seed=world)
    for row in (0, n // world - 1, n // (2 * world)):
        sim = ring.simulate(q, k, v, world, layout, causal, row)
        single = np.stack([s.output for s in sim.single])
        assert np.abs(sim.outputs - single).max() < 1e-12
        assert sim.max_error() < 1e-12
        for r, state in enumerate(sim.final):                # lse of the merged state = logsumexp of the row
            i = sim.tracked[r]
            s = (k @ q[i]) / math.sqrt(8)
            s = s[: i + 1] if causal else s
            assert abs(state.m + math.log(state.l) - (s.max() + math.log(np.exp(s - s.max()).sum()))) < 1e-12
        assert np.array_equal(sim.tracked, [ring.positions(r, world, n, layout)[row] for r in range(world)])
        # keys seen per step: brute force from the global mask
        for s_ in range(world):
            for r in range(world):
                keys = ring.positions(int(sim.held[s_, r]), world, n, layout)
                want = int((keys <= sim.tracked[r]).sum()) if causal else len(keys)
                assert sim.seen[s_, r] == want
        assert np.array_equal(sim.seen.sum(0), sim.tracked + 1 if causal else np.full(world, n))


@pytest.mark.parametrize("world", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("causal", [False, True])
def test_work_table_vs_brute_force_and_the_kernels_plan(world, layout, causal):
    n = 2 * world * 3
    work = ring.work_table(world, n, layout, causal)
    held = ring.held(world)
    for s in range(world):
        for r in range(world):
            qpos = ring.positions(r, world, n, layout)
            kpos = ring.positions(int(held[s, r]), world, n, layout)
            brute = int((kpos[None, :] <= qpos[:, None]).sum()) if causal else qpos.size * kpos.size
            assert work[s, r] == brute
            pieces = kring.plan(r, int(held[s, r]), world, layout, causal, n // world)   # what the GPU runs
            assert work[s, r] == sum((p.q_hi - p.q_lo) * (p.q_hi - p.q_lo + 1) // 2 if p.causal
                                     else (p.q_hi - p.q_lo) * (p.k_hi - p.k_lo) for p in pieces)
    assert work.sum() == (n * (n + 1) // 2 if causal else n * n)


@pytest.mark.parametrize("world", [2, 3, 4, 8])
def test_held_blocks_and_imbalance(world):
    held = ring.held(world)
    assert np.array_equal(held[0], np.arange(world))                         # step 0: own block
    assert all(sorted(held[:, r]) == list(range(world)) for r in range(world))   # every block once
    assert np.array_equal(held[1], np.roll(np.arange(world), 1))             # passed on to r + 1
    n = 2 * world * 4
    c = ring.imbalance(ring.work_table(world, n, "contiguous", True))
    z = ring.imbalance(ring.work_table(world, n, "zigzag", True))
    assert c["idle"] == world * (world - 1) // 2 and z["idle"] == 0
    assert len(set(z["per_device"].tolist())) == 1 and z["busiest_over_mean"] == 1.0
    chunk = n // world                                                      # device r: r full blocks + a diagonal
    assert np.array_equal(c["per_device"], [r * chunk * chunk + chunk * (chunk + 1) // 2 for r in range(world)])
    assert c["busiest_over_mean"] == pytest.approx(c["per_device"][-1] / (n * (n + 1) / 2 / world))
    # the contiguous critical path: the last device does every step
    assert c["critical"] == c["per_device"][-1]


def test_timeline_exact_cases():
    model = ring.CostModel(1e12, 1e9, 1e30, {})            # HBM so fast that the merge costs nothing
    kw = dict(batch=1, heads=1, d=64, elem_bytes=2)
    w, n = 4, 4096
    step_c = (n // w) ** 2 * 4 * 64 / 1e12                 # one full block
    t_x = 2 * (n // w) * 64 * 2 / 1e9
    assert t_x < step_c
    on = ring.timeline(w, n, "contiguous", False, model=model, **kw)
    off = ring.timeline(w, n, "contiguous", False, model=model, overlap=False, **kw)
    assert on.total_s == pytest.approx(w * step_c) and on.hidden == pytest.approx(1.0)
    assert off.total_s == pytest.approx(w * step_c + (w - 1) * t_x) and off.hidden == pytest.approx(0.0)
    assert on.comm_only_s == pytest.approx((w - 1) * t_x) and on.transfer_s == pytest.approx(t_x)
    slow = ring.CostModel(1e12, 1e6, 1e30, {})              # transfers far longer than the compute
    t = ring.timeline(w, n, "contiguous", False, model=slow, **kw)
    assert t.total_s == pytest.approx(step_c + (w - 1) * (t.transfer_s))
    assert t.hidden == pytest.approx(1 - step_c * 0 - (t.total_s - t.compute_only_s) / t.comm_only_s)
    assert 0 < t.hidden < 0.1
    one = ring.timeline(1, n, "zigzag", True, model=model, **kw)
    assert one.comm_only_s == 0 and one.hidden is None and one.total_s == pytest.approx(n * (n + 1) / 2 * 256 / 1e12)


def test_timeline_zigzag_beats_contiguous_when_causal():
    kw = dict(batch=1, heads=32, d=128, elem_bytes=2)
    for w in (2, 4, 8):
        c = ring.timeline(w, 131072, "contiguous", True, **kw)
        z = ring.timeline(w, 131072, "zigzag", True, **kw)
        assert z.total_s < c.total_s
        assert z.compute_only_s == pytest.approx(c.compute_only_s * z.compute.sum(0).max() / c.compute.sum(0).max())


def test_model_from_recording():
    cells = [dict(status="ok", mode="fwd", world=1, causal=False, n=1024, flops=4e12, ms=10.0),
             dict(status="ok", mode="fwd", world=1, causal=False, n=2048, flops=16e12, ms=32.0),
             dict(status="ok", mode="fwd", world=2, causal=True, n=2048, flops=8e12, ms=9.0, ms_comm=2.0,
                  step_bytes=4_000_000)]
    m = ring.model_from_recording(dict(cells=cells))
    assert m.flops_per_s == pytest.approx(16e12 / 32e-3)
    assert m.link_bytes_per_s == pytest.approx(4e6 / 2e-3)
    assert m.source == dict(compute=dict(kind="ring", n=2048), link=dict(kind="ring", n=2048, w=2),
                            hbm=dict(kind="assumed"))
    causal_only = ring.model_from_recording(dict(cells=[dict(cells[2], world=1, ms_comm=None)]))
    assert causal_only.flops_per_s == pytest.approx(8e12 / 9e-3) and causal_only.source["link"] == {"kind": "assumed"}
    d = ring.model_from_recording(None)
    assert d == ring.DEFAULT_MODEL and all(v["kind"] == "assumed" for v in d.source.values())
    s = ring.model_from_recording(None, dict(status="ok", flops=2e12, ms=4.0, impl="fast", n=16384, d=128))
    assert s.flops_per_s == pytest.approx(5e14) and s.source["compute"] == dict(kind="speed", impl="fast", n=16384,
                                                                                 d=128)
    # a chunked forward (S = 4) sends each block once per query slab: 4 blocks per step's worth of transfers
    chunked = dict(cells[2], n=8192, ms_comm=10.0, chunks=4, world=3)
    c = ring.model_from_recording(dict(cells=[chunked]))
    assert c.link_bytes_per_s == pytest.approx(4 * 2 * 4e6 / 10e-3) and c.source["link"]["n"] == 8192
    both = ring.model_from_recording(dict(cells=[chunked, dict(cells[2], chunks=1)]))
    assert both.link_bytes_per_s == pytest.approx(4e6 / 2e-3) and both.source["link"]["n"] == 2048  # plain first


@pytest.mark.parametrize("args,match", [((3, 10, "contiguous"), "divisible by 3"), ((2, 6, "zigzag"), "divisible by 4"),
                                        ((0, 8, "zigzag"), "devices W"), ((2, 8, "spiral"), "layout")])
def test_bad_input_is_typed(args, match):
    with pytest.raises(InputError, match=match):
        ring.check(*args)
    q, k, v = make_qkv(12, 4, 0)
    with pytest.raises(InputError, match="query row"):
        ring.simulate(q, k, v, 2, "zigzag", True, row=6)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("causal", [False, True])
def test_matrix_states_count_the_work(layout, causal):
    world, n = 4, 32
    work = ring.work_table(world, n, layout, causal)
    own = ring.owner(world, n, layout)
    for step in range(world):
        m = ring.matrix_states(world, n, layout, causal, step)
        assert (m == ring.CELL_CURRENT).sum() == work[step].sum()
        assert (m == ring.CELL_DONE).sum() == work[:step].sum()
        assert (m == ring.CELL_MASKED).sum() == (n * (n - 1) // 2 if causal else 0)
        for r in range(world):                                   # device r's rows, this step's cells
            rows = own == r
            assert (m[rows] == ring.CELL_CURRENT).sum() == work[step, r]
            cur = np.nonzero((m[rows] == ring.CELL_CURRENT).any(0))[0]
            assert set(own[cur]) <= {int(ring.held(world)[step, r])}
