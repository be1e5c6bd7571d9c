"""The Gluon ws kernel on a Hopper GPU (marker `gpu`): against float64, with the idiom of test_kernels_gpu
(max|out - ref64| <= 2 * max|naive_same_dtype - ref64| + eps). Skipped where ws cannot run (the reason shown).
Every test runs twice: one tile per program and PERSISTENT (ws.PERSISTENT_ENV). The tests named nc3 run three
consumer warpgroups (`-k nc3`)."""
import pytest
import torch

import flashviz_kernels as fk
from helpers.attn_ref import attention_rows, check_close, lse_rows
from helpers.gpu import EPS, make, sample_rows

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("needs_ws")]   # skipped, with the reason, where it cannot run


@pytest.fixture(autouse=True, params=[False, True], ids=["one-tile", "persistent"])
def persistent(request, monkeypatch):
    """Every test runs with both schedules: the env switch reaches launches that do not pass persistent."""
    from flashviz_kernels import ws
    monkeypatch.setenv(ws.PERSISTENT_ENV, "1" if request.param else "0")
    return request.param


def _check(q, k, v, causal, what, full=False, **kw):
    n_q = q.shape[2]
    rows = torch.arange(n_q) if full else sample_rows(n_q)
    out, lse = fk.attention_with_lse(q, k, v, causal=causal, impl="ws", **kw)
    assert out.shape == q.shape and out.dtype == q.dtype and lse.shape == q.shape[:3]
    check_close(out[:, :, rows], attention_rows(q, k, v, rows, causal=causal),
                attention_rows(q, k, v, rows, causal=causal, dtype=q.dtype), EPS[q.dtype], what)
    lref = lse_rows(q, k, rows, causal=causal)
    seen = torch.isfinite(lref)
    assert torch.equal(torch.isneginf(lse[:, :, rows]), ~seen), what
    assert torch.allclose(lse[:, :, rows].double()[seen], lref[seen], atol=2e-2, rtol=1e-3), what
    return out, lse


@pytest.mark.parametrize("n", [1, 17, 1000, 4093, 16384])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_square_against_float64(n, d, causal):
    b, h = (1, 4) if n >= 4093 else (2, 3)
    q, k, v = make(b, h, n, n, d, torch.float16, seed=n + d)
    _check(q, k, v, causal, f"ws n={n} d={d} causal={causal}", full=n <= 1000)


@pytest.mark.parametrize("n_q,n_k", [(300, 1000), (1000, 300), (17, 4093), (4093, 129)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
def test_ragged_nq_ne_nk(n_q, n_k, causal, d):
    q, k, v = make(2, 2, n_q, n_k, d, torch.float16, seed=n_q * 7 + n_k)
    _check(q, k, v, causal, f"ws {n_q}x{n_k} d={d} causal={causal}", full=True)


@pytest.mark.parametrize("d", [64, 128])
def test_bfloat16(d):
    for causal in (False, True):
        q, k, v = make(2, 4, 2049, 2049, d, torch.bfloat16, seed=d)
        _check(q, k, v, causal, f"ws bf16 d={d} causal={causal}")


@pytest.mark.parametrize("overlap,pingpong", [(False, False), (True, False), (False, True), (True, True)])
def test_every_schedule_variant(overlap, pingpong):
    """All four OVERLAP x PINGPONG schedules compute the same attention (ragged Nq != Nk, causal and not), with
    2 and 3 ring stages (K and V each have their own barriers: a stage's K is freed before its V)."""
    from flashviz_kernels import ws
    q, k, v = make(1, 4, 1500, 1700, 128, torch.float16, seed=3)
    for causal, stages in ((True, 2), (False, 2), (True, 3), (False, 3)):
        o, lse = ws.forward(q, k, v, causal=causal, sm_scale=0.088, block_m=128, block_n=128, num_warps=4,
                            num_stages=stages, overlap=overlap, pingpong=pingpong,
                            persistent=False if stages == 3 else None)      # 3 stages + 2 Q buffers: 256 KB
        rows = torch.arange(1500)
        check_close(o[:, :, rows], attention_rows(q, k, v, rows, causal=causal, scale=0.088),
                    attention_rows(q, k, v, rows, causal=causal, dtype=q.dtype, scale=0.088), EPS[q.dtype],
                    f"overlap={overlap} pingpong={pingpong} causal={causal}")


@pytest.mark.parametrize("overlap,pingpong", [(False, False), (True, False), (False, True), (True, True)])
def test_half_edges_every_schedule(overlap, pingpong):
    """HALF (kernels/_ws_half.py) under all four OVERLAP x PINGPONG schedules, causal, ragged Nq != Nk both ways and
    a window: the rows a half step covers (each tile's diagonal for the first consumer, a window's first tile for
    the second) match the float64 reference as the whole-tile kernel's do."""
    from flashviz_kernels import ws
    from helpers.variant_ref import reference
    if ws.gate_reason(ws.HALF_GATE):
        pytest.skip(f"HALF does not run here: {ws.gate_reason(ws.HALF_GATE)}")
    for nq, nk, left in ((1500, 1700, -1), (1700, 1500, -1), (1500, 1500, 700)):
        q, k, v = make(1, 4, nq, nk, 128, torch.float16, seed=nq + left)
        o, lse = ws.forward(q, k, v, causal=True, sm_scale=0.088, block_m=128, block_n=128, num_warps=4,
                            num_stages=2, overlap=overlap, pingpong=pingpong, window_left=left, half=True)
        kw = dict(causal=True, scale=0.088, window=None if left < 0 else (left, 0))
        check_close(o, reference(q, k, v, **kw)[0], reference(q, k, v, **kw, dtype=q.dtype)[0], EPS[q.dtype],
                    f"HALF overlap={overlap} pingpong={pingpong} {nq}x{nk} window {left}")


def test_fully_masked_rows_are_zero():
    q, k, v = make(2, 16, 300, 100, 64, torch.float16, seed=1)
    out, lse = _check(q, k, v, True, "ws masked rows", full=True)
    assert torch.all(out[:, :, :200] == 0) and torch.all(torch.isneginf(lse[:, :, :200]))
    assert torch.all(torch.isfinite(lse[:, :, 200:]))


@pytest.mark.parametrize("poisoned", [0, 1])
def test_non_finite_head_does_not_leak(poisoned):
    """A ragged last key tile ends where the next head's keys begin in memory: inf/NaN there must not reach
    the other head (TMA clips each head at n_k)."""
    _clean_head_stays_clean(128, poisoned, "clean head")


def _clean_head_stays_clean(d: int, poisoned: int, label: str, poison_q: bool = False) -> None:
    """Two heads of N = 1000: inf keys and NaN values (and NaN queries with poison_q) in head `poisoned`; the other
    head's output and LSE are finite and match float64."""
    q, k, v = make(1, 2, 1000, 1000, d, torch.float16, seed=5)
    k[:, poisoned] = float("inf")
    v[:, poisoned] = float("nan")
    if poison_q:
        q[:, poisoned] = float("nan")
    clean = 1 - poisoned
    out, lse = fk.attention_with_lse(q, k, v, causal=False, impl="ws")
    rows = torch.arange(1000)
    sl = slice(clean, clean + 1)
    assert torch.isfinite(out[:, sl]).all() and torch.isfinite(lse[:, sl]).all()
    check_close(out[:, sl], attention_rows(q[:, sl], k[:, sl], v[:, sl], rows, causal=False),
                attention_rows(q[:, sl], k[:, sl], v[:, sl], rows, causal=False, dtype=q.dtype), EPS[q.dtype],
                label)


def test_fast_dispatches_to_ws_and_pinned_tiles_do_not(monkeypatch):
    from helpers.dispatch import fast_routes
    fast_routes(monkeypatch, {(128, False): 1})
    q, k, v = make(2, 4, 1024, 1024, 128, torch.float16, seed=9)
    o_ws, _ = fk.attention_with_lse(q, k, v, impl="ws")
    o_tl, _ = fk.attention_with_lse(q, k, v, impl="fast", block_m=128, block_n=64)
    assert torch.equal(fk.attention(q, k, v, impl="fast"), o_ws)
    assert torch.equal(fk.attention(q, k, v, impl="fast", block_m=128, block_n=64), o_tl)
    assert not torch.equal(o_ws, o_tl)                   # two kernels: they round differently somewhere


def test_gradients_flow_through_ws():
    """impl='ws' saves (out, lse) like fast, so the Triton backward gives the same gradients."""
    q, k, v = make(1, 4, 512, 512, 64, torch.float16, seed=11)
    grads = []
    for impl in ("ws", "fast"):
        x = [t.clone().requires_grad_() for t in (q, k, v)]
        fk.attention(*x, causal=True, impl=impl).float().square().sum().backward()
        grads.append([t.grad.float() for t in x])
    for a, b in zip(*grads):
        assert torch.allclose(a, b, atol=2e-2, rtol=2e-2)


def _poisoned_alloc(*shapes_dtypes):
    """Leave NaN in the caching allocator's free blocks, so an output row the kernel never writes shows up."""
    junk = [torch.full(s, float("nan"), dtype=dt, device="cuda") for s, dt in shapes_dtypes]
    del junk


@pytest.mark.parametrize("programs,groups", [(1, None), (3, 2), (7, 1), (None, None)])
@pytest.mark.parametrize("d,overlap,pingpong", [(64, False, False), (128, False, False), (128, True, True),
                                                (128, False, True)])
def test_persistent_walks_many_tiles(persistent, programs, groups, overlap, pingpong, d):
    """Few programs, each walking many tiles of different lengths (ring and turn phases carried across tiles,
    both Q buffers reused, fully masked tiles with no key tile at all, a ragged last head group): every row
    written and right, causal and not, Nq > Nk and Nq < Nk."""
    if not persistent:
        pytest.skip("programs / groups are persistent launch parameters")
    from flashviz_kernels import ws
    for n_q, n_k, causal in ((1000, 300, True), (300, 1000, True), (777, 1029, False), (1, 17, True)):
        q, k, v = make(2, 5, n_q, n_k, d, torch.float16, seed=n_q + n_k + d)
        _poisoned_alloc(((2, 5, n_q, d), torch.float16), ((2, 5, n_q), torch.float32))
        o, lse = ws.forward(q, k, v, causal=causal, sm_scale=0.07, block_m=128, block_n=128, num_warps=4,
                            num_stages=2, overlap=overlap, pingpong=pingpong, persistent=True, programs=programs,
                            groups=groups)
        rows = torch.arange(n_q)
        what = f"persistent programs={programs} groups={groups} {n_q}x{n_k} causal={causal}"
        check_close(o, attention_rows(q, k, v, rows, causal=causal, scale=0.07),
                    attention_rows(q, k, v, rows, causal=causal, dtype=q.dtype, scale=0.07), EPS[q.dtype], what)
        lref = lse_rows(q, k, rows, causal=causal, scale=0.07)
        seen = torch.isfinite(lref)
        assert torch.equal(torch.isneginf(lse), ~seen) and not torch.isnan(lse).any(), what
        assert torch.allclose(lse.double()[seen], lref[seen], atol=2e-2, rtol=1e-3), what
        if causal and n_q > n_k:
            assert torch.all(o[:, :, :n_q - n_k] == 0), what


def test_persistent_matches_one_tile_per_program(persistent):
    """Both schedules run the same per-tile code: the same answers to rounding (here at a size with many
    tiles per program, B*H = 64, N = 2000, causal and not, three stages)."""
    if not persistent:
        pytest.skip("compares both schedules itself: once is enough")
    from flashviz_kernels import ws
    q, k, v = make(4, 16, 2000, 2000, 64, torch.float16, seed=21)
    for causal in (False, True):
        outs = [ws.forward(q, k, v, causal=causal, sm_scale=0.125, block_m=128, block_n=64, num_warps=4,
                           num_stages=3, persistent=p) for p in (False, True)]
        (o1, l1), (o2, l2) = outs
        assert (o1.float() - o2.float()).abs().max().item() <= 2e-3
        assert torch.allclose(l1, l2, atol=1e-4, rtol=1e-5)


# ----------------------------------------------------------------------------- three consumer warpgroups (NC = 3)
# A 192-row query tile (block_m = 192): three consumers share the K/V ring (empty[s] takes three arrives), the Q/O
# buffers hold three 64-row slices, PINGPONG passes the turn round 0 -> 1 -> 2 -> 0. All selected by `-k nc3`.

@pytest.fixture
def nc3(monkeypatch):
    """Launches that do not pass block_m run three consumers (ws.CONSUMERS_ENV), as the timing runs do."""
    from flashviz_kernels import ws
    monkeypatch.setenv(ws.CONSUMERS_ENV, "3")
    assert ws.pick_config(torch.empty((1, 1, 8, 64), device="meta"), None, causal=False)[0] == 192


def _ws3(q, k, v, causal, scale, **kw):
    from flashviz_kernels import ws
    kw = dict(dict(block_n=128, num_stages=2), **kw)
    return ws.forward(q, k, v, causal=causal, sm_scale=scale, block_m=192, num_warps=4, **kw)


def _check_all_rows(o, lse, q, k, v, causal, scale, what):
    """Every row against float64, LSE -inf exactly where a row sees no key, no NaN anywhere."""
    rows = torch.arange(q.shape[2])
    check_close(o, attention_rows(q, k, v, rows, causal=causal, scale=scale),
                attention_rows(q, k, v, rows, causal=causal, dtype=q.dtype, scale=scale), EPS[q.dtype], what)
    lref = lse_rows(q, k, rows, causal=causal, scale=scale)
    seen = torch.isfinite(lref)
    assert torch.equal(torch.isneginf(lse), ~seen) and not torch.isnan(lse).any(), what
    assert torch.allclose(lse.double()[seen], lref[seen], atol=2e-2, rtol=1e-3), what


@pytest.mark.parametrize("n", [1, 17, 191, 193, 1000, 4093])
@pytest.mark.parametrize("causal", [False, True])
def test_nc3_square_against_float64(nc3, n, causal):
    """Ragged N around the 192-row tile (one short tile, one row past it, a third consumer with no rows)."""
    b, h = (1, 4) if n >= 4093 else (2, 3)
    q, k, v = make(b, h, n, n, 64, torch.float16, seed=n + 3)
    _check(q, k, v, causal, f"ws nc3 n={n} causal={causal}", full=n <= 1000)


@pytest.mark.parametrize("n_q,n_k", [(300, 1000), (1000, 300), (17, 4093), (4093, 129), (193, 191)])
@pytest.mark.parametrize("causal", [False, True])
def test_nc3_ragged_nq_ne_nk(nc3, n_q, n_k, causal):
    q, k, v = make(2, 2, n_q, n_k, 64, torch.float16, seed=n_q * 7 + n_k + 3)
    _check(q, k, v, causal, f"ws nc3 {n_q}x{n_k} causal={causal}", full=True)


def test_nc3_bfloat16(nc3):
    for n_q, n_k, causal in ((2049, 2049, False), (2049, 2049, True), (385, 1000, True)):
        q, k, v = make(2, 4, n_q, n_k, 64, torch.bfloat16, seed=n_q + n_k)
        _check(q, k, v, causal, f"ws nc3 bf16 {n_q}x{n_k} causal={causal}")


def test_nc3_fully_masked_rows_are_zero(nc3):
    """Nq = 300 > Nk = 100, causal: rows < 200 see no key. The first 192-row tile reads no key tile at all (the
    consumers store zeros and -inf without touching the ring); the second's first consumer has 8 such rows."""
    q, k, v = make(2, 16, 300, 100, 64, torch.float16, seed=1)
    _poisoned_alloc(((2, 16, 300, 64), torch.float16), ((2, 16, 300), torch.float32))
    out, lse = _check(q, k, v, True, "ws nc3 masked rows", full=True)
    assert torch.all(out[:, :, :200] == 0) and torch.all(torch.isneginf(lse[:, :, :200]))
    assert torch.all(torch.isfinite(lse[:, :, 200:]))


@pytest.mark.parametrize("poisoned", [0, 1])
def test_nc3_non_finite_head_does_not_leak(nc3, poisoned):
    """Ragged last key and query tiles (1000 = 5 x 192 + 40) end where the other head's rows begin in memory."""
    _clean_head_stays_clean(64, poisoned, "nc3 clean head", poison_q=True)


@pytest.mark.parametrize("overlap,pingpong,bn,stages", [(False, True, 128, 2), (True, True, 64, 3)])
def test_nc3_every_schedule_variant(persistent, overlap, pingpong, bn, stages):
    """The three-way PINGPONG turn ring, alone and with OVERLAP (at bn=64, where it fits 160 registers), both
    schedules via the fixture, causal and not, ragged."""
    q, k, v = make(1, 4, 1500, 1700, 64, torch.float16, seed=3)
    for causal in (True, False):
        o, lse = _ws3(q, k, v, causal, 0.088, block_n=bn, num_stages=stages, overlap=overlap, pingpong=pingpong,
                      persistent=persistent)
        _check_all_rows(o, lse, q, k, v, causal, 0.088, f"nc3 overlap={overlap} pingpong={pingpong} causal={causal}")


@pytest.mark.parametrize("programs,groups,pingpong", [(1, None, True), (3, 2, False), (7, 1, True)])
def test_nc3_persistent_walks_many_tiles(persistent, programs, groups, pingpong):
    """Few programs walking many 192-row tiles of different lengths: ring, turn and Q-buffer phases carried
    across tiles (tiles with no key tile among them), a ragged last head group; every row written and right."""
    if not persistent:
        pytest.skip("programs / groups are persistent launch parameters")
    for n_q, n_k, causal, stages, bn in ((1000, 300, True, 2, 128), (300, 1000, True, 3, 64),
                                        (777, 1029, False, 2, 128), (1, 17, True, 2, 128)):
        q, k, v = make(2, 5, n_q, n_k, 64, torch.float16, seed=n_q + n_k + 3)
        _poisoned_alloc(((2, 5, n_q, 64), torch.float16), ((2, 5, n_q), torch.float32))
        o, lse = _ws3(q, k, v, causal, 0.07, block_n=bn, num_stages=stages, pingpong=pingpong, persistent=True,
                      programs=programs, groups=groups)
        _check_all_rows(o, lse, q, k, v, causal, 0.07, f"nc3 persistent programs={programs} {n_q}x{n_k}")
        if causal and n_q > n_k:
            assert torch.all(o[:, :, :n_q - n_k] == 0)


@pytest.mark.parametrize("causal", [False, True])
def test_nc3_d128_block_n_64(persistent, causal):
    """d=128 with three consumers fits 160 registers only with 64-key tiles (bn=128 spills): ragged, Nq != Nk."""
    for n_q, n_k in ((1000, 1000), (193, 4093), (4093, 191)):
        q, k, v = make(1, 3, n_q, n_k, 128, torch.float16, seed=n_q + n_k + 128)
        o, lse = _ws3(q, k, v, causal, 0.088, block_n=64, num_stages=2, persistent=persistent)
        _check_all_rows(o, lse, q, k, v, causal, 0.088, f"nc3 d=128 bn=64 {n_q}x{n_k} causal={causal}")


def test_nc3_matches_two_consumers(persistent):
    """Each row's online softmax walks the same key tiles either way: NC = 3 and NC = 2 agree to rounding."""
    from flashviz_kernels import ws
    q, k, v = make(4, 16, 2000, 2000, 64, torch.float16, seed=21)
    for causal in (False, True):
        o3, l3 = _ws3(q, k, v, causal, 0.125, block_n=64, num_stages=3, persistent=persistent)
        o2, l2 = ws.forward(q, k, v, causal=causal, sm_scale=0.125, block_m=128, block_n=64, num_warps=4,
                            num_stages=3, persistent=persistent)
        assert (o3.float() - o2.float()).abs().max().item() <= 2e-3
        assert torch.allclose(l3, l2, atol=1e-4, rtol=1e-5)
