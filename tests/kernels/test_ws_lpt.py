"""LPT order (ws_schedule.lpt_default, FLASHVIZ_WS_LPT): causal ws launches of one tile (forward) or one key block
(backward) per program start a group of heads' longest tiles first. Only the programs' order changes, so every
output must equal the head-by-head order's: the forward's bitwise (each tile is computed alone), the backward's dK
and dV bitwise and dQ up to the order of its fp32 adds; and all of them match float64 (helpers' idioms).
The host's group sizes are checked on CPU against a brute force of their rule."""
import pytest
import torch

import flashviz_kernels as fk
from flashviz_kernels import ws, ws_bwd, ws_schedule
from flashviz_kernels.errors import KernelInputError


def test_lpt_switch_reads_the_environment(monkeypatch):
    """Unset: on within LPT_WAVES[kind] (the grid's tiles per SM); 1 / 0 force it both ways; anything else is refused
    by name."""
    monkeypatch.delenv(ws_schedule.LPT_ENV, raising=False)
    for kind, (lo, hi) in ws_schedule.LPT_WAVES.items():
        assert [ws_schedule.lpt_default(w, kind) for w in (lo - 0.1, lo, (lo + hi) / 2, hi, hi + 0.1)] == \
            [False, True, True, True, False]
    for value, want in (("1", True), ("0", False)):
        monkeypatch.setenv(ws_schedule.LPT_ENV, value)
        assert all(ws_schedule.lpt_default(w, k) is want for w in (1.0, 30.0, 500.0) for k in ws_schedule.LPT_WAVES)
    monkeypatch.setenv(ws_schedule.LPT_ENV, "yes")
    with pytest.raises(KernelInputError, match=ws_schedule.LPT_ENV):
        ws_schedule.lpt_default(20.0)


AB = [f"assets/benchmarks/tune/nvidia-h100-lpt-ab-{t}-2026-12-06.json"
      for t in ("triton36", "run1-triton38", "run2-triton38")]
H100_SMS = 132                                        # the files' GPU, an H100 SXM (80GB HBM3)


def _speedups():
    """{(mode, n, d): [median over rounds of ms(LPT 0) / ms(LPT 1) in the same round, one per file]}, and the
    files' provenance checked: H100, fa4_rounds --switch FLASHVIZ_WS_LPT, causal, B*H = 128."""
    import json
    from pathlib import Path

    from tools import fa4_rounds
    root = Path(__file__).resolve().parents[2]
    out = {}
    for name in AB:
        rec = json.loads((root / name).read_text(encoding="utf-8"))
        assert rec["device"] == "NVIDIA H100 80GB HBM3" and "--switch FLASHVIZ_WS_LPT" in rec["command"]
        assert rec["batch"] * rec["heads"] == 128 and rec["switches"] == {}
        for row in rec["rows"]:
            assert row["causal"] and row["impls"]["fast"].get("maxerr", 1) < 1e-2
            on = fa4_rounds.impls("FLASHVIZ_WS_LPT")[1]
            assert row["impls"][on]["maxerr"] < 1e-2 and len(row["impls"][on]["ms_all"]) == rec["rounds"]
            out.setdefault((row["mode"], row["n"], row["d"]), []).append(fa4_rounds.ratios(row, "fast", on)[0])
    return out


def test_lpt_default_is_on_where_it_timed_faster():
    """The rule against the recordings (tiles per SM of each cell's grid at B*H = 128 on 132 SMs): forward launches
    inside LPT_WAVES["forward"] (N = 4096) were faster with LPT in every file, those outside were not faster by 1 %
    in any; backward bands inside LPT_WAVES["backward"] (N <= 8192) faster in geometric mean, N = 16384 not."""
    import statistics
    from flashviz_kernels import ws_schedule as sch
    got = _speedups()
    for (mode, n, d), ups in got.items():
        per_program = 128 if mode == "bwd" else 64 * ws.CONFIGS[(d, True)][6]   # key block / query tile rows
        waves = -(-n // per_program) * 128 / H100_SMS
        lo, hi = sch.LPT_WAVES["backward" if mode == "bwd" else "forward"]
        if mode == "fwd":
            assert (min(ups) > 1) if lo <= waves <= hi else (max(ups) < 1.01), (mode, n, d, waves, ups)

    def bwd(keep):
        return statistics.geometric_mean([u for (m, n, _), us in got.items() if m == "bwd" and keep(n) for u in us])
    assert bwd(lambda n: n <= 8192) > 1.01 and bwd(lambda n: n == 16384) < 1
    assert -(-8192 // 128) * 128 / H100_SMS <= sch.LPT_WAVES["backward"][1] < -(-16384 // 128) * 128 / H100_SMS


@pytest.mark.parametrize("n_bh,n_q,d,itemsize", [(128, 4096, 128, 2), (128, 16384, 128, 2), (128, 4096, 64, 2),
                                                 (15, 1000, 64, 2), (7, 100, 128, 2), (6, 1 << 20, 128, 2),
                                                 (1, 4096, 64, 2), (96, 8192, 64, 2)])
def test_backward_key_group_is_the_largest_divisor_within_l2(n_bh, n_q, d, itemsize):
    """With LPT: the largest G dividing n_bh whose heads' Q, dO (itemsize each) and fp32 dQ fit ws.L2_KV_BYTES (at
    least 1); without: 1 (the grid's old order)."""
    per_head = n_q * d * (2 * itemsize + 4)
    fits = [g for g in range(1, n_bh + 1) if n_bh % g == 0 and g * per_head <= ws.L2_KV_BYTES]
    assert ws_schedule.key_group(n_bh, n_q, d, itemsize, True) == max(fits, default=1)
    assert ws_schedule.key_group(n_bh, n_q, d, itemsize, False) == 1


@pytest.mark.parametrize("n_bh,most,want", [(128, 32, 32), (15, 4, 3), (7, 6, 1), (6, 0, 1), (12, 100, 12)])
def test_forward_head_group_tiles_b_times_h(n_bh, most, want):
    """The one-tile causal forward's grid (G, query blocks, B*H / G) needs G dividing B*H: the largest divisor not
    above the L2 budget's head count (at least 1)."""
    assert ws.divisor_at_most(n_bh, most) == want


def test_grid_axes_bound_the_inputs_both_kernels_take():
    """Query (forward) blocks and head groups sit on the grids' second and third axes (CUDA: up to 65535 each):
    longer sequences or more heads are declined with the reason, so "fast" runs the tl kernel instead."""
    from types import SimpleNamespace

    def q(b, h, n):
        return SimpleNamespace(device=SimpleNamespace(type="cuda"), dtype=torch.float16, shape=(b, h, n, 64))
    assert ws.input_problem(q(1, 1, ws.GRID_AXIS * 128)) is None
    assert "query rows" in ws.input_problem(q(1, 1, ws.GRID_AXIS * 128 + 1), "backward")
    assert ws.input_problem(q(3, ws.GRID_AXIS // 3, 64)) is None
    assert "heads" in ws.input_problem(q(2, ws.GRID_AXIS // 2 + 1, 64))


@pytest.mark.gpu
@pytest.mark.usefixtures("needs_ws")
@pytest.mark.parametrize("block_m,d", [(192, 64), (128, 128)])
@pytest.mark.parametrize("n_q,n_k", [(1000, 1000), (300, 1000), (1000, 300), (4093, 4093)])
def test_forward_groups_change_no_bit(block_m, d, n_q, n_k):
    """Causal, one tile per program: head groups 1 (head by head), 2, 3 and 6 of B*H = 6 give the same bits, and
    they match float64 on every row."""
    from helpers.attn_ref import attention_rows, check_close
    from helpers.gpu import EPS, make
    q, k, v = make(2, 3, n_q, n_k, d, torch.float16, seed=n_q + n_k + d)
    kw = dict(causal=True, sm_scale=0.09, block_m=block_m, block_n=128, num_warps=4, num_stages=2,
              persistent=False)
    base = ws.forward(q, k, v, groups=1, **kw)
    for g in (2, 3, 6):
        o, lse = ws.forward(q, k, v, groups=g, **kw)
        assert torch.equal(o, base[0]) and torch.equal(lse, base[1]), f"groups={g}"
    rows = torch.arange(n_q)
    check_close(base[0][:, :, rows], attention_rows(q, k, v, rows, causal=True, scale=0.09),
                attention_rows(q, k, v, rows, causal=True, dtype=q.dtype, scale=0.09), EPS[q.dtype],
                f"ws lpt {n_q}x{n_k} d={d}")


@pytest.mark.gpu
@pytest.mark.usefixtures("needs_ws")
def test_forward_groups_are_for_persistent_or_causal_launches():
    from helpers.gpu import make
    q, k, v = make(1, 2, 256, 256, 64, torch.float16, seed=0)
    kw = dict(sm_scale=0.1, block_m=128, block_n=128, num_warps=4, num_stages=2, persistent=False)
    with pytest.raises(KernelInputError, match="groups"):
        ws.forward(q, k, v, causal=False, groups=2, **kw)
    for g in (0, 3):                                 # B*H = 2: 3 does not divide it
        with pytest.raises(KernelInputError, match="groups"):
            ws.forward(q, k, v, causal=True, groups=g, **kw)


@pytest.mark.gpu
@pytest.mark.usefixtures("needs_ws_bwd")
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("n_q,n_k,h_kv", [(1000, 1000, 6), (300, 700, 6), (700, 300, 6), (1000, 1000, 2)])
def test_backward_groups_change_only_dq_add_order(d, n_q, n_k, h_kv):
    """Causal (GQA too): groups 1, 2, 3, 6 of B*H = 6 heads give dK and dV bit for bit and dQ within fp32 rounding
    of the adds' order."""
    from helpers.backward import inputs
    q, _, _, do, _ = inputs(1, 6, n_q, n_k, d, torch.float16, seed=n_q + d)
    _, k, v, _, _ = inputs(1, h_kv, n_q, n_k, d, torch.float16, seed=n_k + d)
    o, lse = fk.attention_with_lse(q, k, v, causal=True, impl="fast")
    base = ws_bwd.backward(q, k, v, o, lse, do, causal=True, sm_scale=d ** -0.5, groups=1)
    for g in (2, 3, 6):
        dq, dk, dv = ws_bwd.backward(q, k, v, o, lse, do, causal=True, sm_scale=d ** -0.5, groups=g)
        assert torch.equal(dk, base[1]) and torch.equal(dv, base[2]), f"groups={g}"
        assert torch.allclose(dq.float(), base[0].float(), atol=2e-3, rtol=1e-3), f"groups={g}"
    with pytest.raises(KernelInputError, match="groups"):
        ws_bwd.backward(q, k, v, o, lse, do, causal=True, sm_scale=d ** -0.5, groups=4)


@pytest.mark.gpu
@pytest.mark.usefixtures("needs_ws_bwd")
@pytest.mark.parametrize("nq,nk,dtype", [(1000, 1000, torch.float16), (4093, 4093, torch.float16),
                                         (300, 1000, torch.float16), (1000, 300, torch.bfloat16)])
@pytest.mark.parametrize("d", [64, 128])
def test_lpt_on_against_float64(monkeypatch, nq, nk, dtype, d):
    """FLASHVIZ_WS_LPT=1: the causal forward and backward as autograd runs them (groups > 1 at these sizes), against
    float64 (helpers.backward.check, rows that see no key included)."""
    from helpers.backward import check
    monkeypatch.setenv(ws_schedule.LPT_ENV, "1")
    assert ws_schedule.key_group(8, nq, d, 2, True) > 1
    check(2, 4, nq, nk, d, dtype, True, seed=nq + d, kind="ws")


def test_head_group_grids_cost_nothing_head_by_head():
    """The grids' new axes (G, blocks, B*H / G) change the kernels' code (the head from two program ids), so
    ebb9f03's kernels (carried to the device and imported instead of the tree's) and e866378's with LPT off were
    timed in alternating processes on an H100 under 3.6, each against cuDNN in its own process (fa4_rounds --ab):
    the geometric mean over the causal forward and backward cells is within 0.5 % in both pairs. The old
    recordings' provenance names the tree's commit: the kernels they ran are in their file names."""
    import json
    import statistics
    from pathlib import Path

    from tools import fa4_rounds
    tune = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "tune"
    for run in (1, 2):
        old, new = (json.loads((tune / f"nvidia-h100-grid-kernels-{k}-run{run}-triton36-2026-12-06.json")
                               .read_text(encoding="utf-8")) for k in ("ebb9f03", "e866378"))
        assert old["triton"] == new["triton"] == "3.6.0" and new["git_commit"].startswith("e866378")
        cells = fa4_rounds.ab(old, new, "sdpa-cudnn")
        assert len(cells) == 8
        assert 0.995 < statistics.geometric_mean([r for _, r in cells]) < 1.005
