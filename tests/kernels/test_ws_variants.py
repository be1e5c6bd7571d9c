"""impl="ws" variants without a GPU: the kernel's own key-tile range for a causal sliding window and for packed
documents (read from the host's table) against the mask built from the definition, which calls impl="fast" sends to
ws (the forward table's window, documents and dense rows; GQA/MQA) and which stay on the tl kernel, and
ws.forward's typed errors for windows, document tables and head counts. On the GPU: tests/kernels/test_ws_variants_gpu.py."""
import sys
import types

import pytest
import torch

import flashviz_kernels as fk
from helpers.dispatch import fast_routes, ws_launch
from flashviz_kernels import ws
from helpers.ws import Ptr, gluon_on_host

pytestmark = pytest.mark.usefixtures("fresh_ws_state")     # each test as a fresh process (conftest.py here)


@pytest.fixture(scope="module")
def key_range():
    return gluon_on_host("_ws_range", "key_range")


@pytest.mark.parametrize("bm,bn", [(128, 128), (128, 64), (192, 128)])
@pytest.mark.parametrize("left", [0, 1, 63, 64, 127, 300, 1024, 5000])
def test_window_key_range_is_exactly_the_tiles_some_row_sees(key_range, bm, bn, left):
    """The ws kernel's own tile range for a causal window (left, 0), bottom-right aligned, against the mask built
    from the definition: the key tiles holding a visible pair of the query tile's real rows, no more, no less."""
    for n_q, n_k in ((1000, 1000), (300, 1000), (1000, 300), (17, 4093), (4093, 129), (193, 191)):
        i = torch.arange(n_q)[:, None]
        j = torch.arange(n_k)[None, :]
        diag = i + n_k - n_q
        ok = (j <= diag) & (j >= diag - left)
        for start in range(0, n_q, bm):
            cols = ok[start:start + bm].any(0).nonzero().flatten()
            want = sorted({int(c) // bn for c in cols})
            t_lo, n = key_range(start, n_q, n_k, left, bm, bn, True, True)
            assert n >= 0
            assert list(range(t_lo, t_lo + n)) == want, (n_q, n_k, start, left)
            no_window = key_range(start, n_q, n_k, -1, bm, bn, True, False)
            assert no_window[0] == 0 and t_lo + n == no_window[1]      # same right end as plain causal


def test_ws_takes_causal_windows_alibi_and_gqa_only(monkeypatch):
    """impl="fast" hands a causal window (left, 0) at a head dim a window row names, causal ALiBi and GQA/MQA to ws
    (with the window's left side, the slopes as float32 (1 or B, H) and k's heads); windows at other head dims,
    softcap, ALiBi without causal, documents and windows with a right side stay on the tl kernel; impl="ws" refuses
    those variants."""
    from flashviz_kernels import api
    seen = []

    def spy(q, k, v, **kw):
        sl = kw["alibi_slopes"]
        seen.append((q.shape[3], k.shape[1], kw["causal"], kw["window_left"],
                     None if sl is None else (tuple(sl.shape), sl.dtype, sl.is_contiguous())))
        return api._kernel("fast").forward(q, k, v, variant=fk.variants.parse(q, k, causal=kw["causal"]),
                                           sm_scale=kw["sm_scale"], block_m=64, block_n=64, num_warps=4,
                                           num_stages=2)

    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    fast_routes(monkeypatch, {(64, True): 1, (64, False): 1, (128, True): 1}, window=(128,), alibi=(128,))
    monkeypatch.setattr(ws, "forward", spy)
    g = torch.Generator().manual_seed(1)
    q, q128 = torch.randn((1, 4, 64, 64), generator=g).half(), torch.randn((1, 4, 64, 128), generator=g).half()
    kv = [torch.randn((1, 2, 64, 64), generator=g).half() for _ in range(2)]
    kv128 = [torch.randn((1, 2, 64, 128), generator=g).half() for _ in range(2)]
    fk.attention(q128, *kv128, impl="fast", causal=True, window=(10, 0))
    fk.attention(q128, *kv128, impl="fast", window=(10, 0))            # right side 0: a causal window, no flag
    fk.attention(q, *kv, impl="fast")                                    # GQA, no mask
    fk.attention(q, *kv, impl="fast", causal=True, window=(10, 0))      # d = 64: no window row
    fk.attention(q128, *kv128, impl="fast", causal=True, alibi_slopes=torch.ones(4, dtype=torch.float64))
    fk.attention(q128, *kv128, impl="fast", window=(7, 0), alibi_slopes=torch.ones((1, 4)))
    assert seen == [(128, 2, True, 10, None), (128, 2, True, 10, None), (64, 2, False, -1, None),
                    (128, 2, True, -1, ((1, 4), torch.float32, True)), (128, 2, True, 7, ((1, 4), torch.float32, True))]
    assert fk.launch_plan(q128, *kv128, causal=True, window=(10, 0)) == ("ws", 128, 128)
    assert fk.launch_plan(q128, *kv128, causal=True, alibi_slopes=torch.ones(4))[0] == "ws"
    assert fk.launch_plan(q, *kv, causal=True, window=(10, 0))[0] == "tl"
    assert fk.launch_plan(q, *kv, causal=True, alibi_slopes=torch.ones(4))[0] == "tl"      # d = 64: not in the list
    for kw in (dict(window=(10, 5)), dict(window=(10, -1)), dict(softcap=5.0, causal=True),
               dict(alibi_slopes=torch.ones(4)), dict(alibi_slopes=torch.ones(4), softcap=5.0, causal=True),
               dict(seq_ids=torch.zeros((1, 64), dtype=torch.int64), window=(10, 5))):
        fk.attention(q128, *kv128, impl="fast", **kw)
        assert fk.launch_plan(q128, *kv128, **kw)[0] == "tl"
        with pytest.raises(fk.KernelUnavailable, match="packed documents and GQA/MQA only"):
            fk.attention(q128, *kv128, impl="ws", **kw)
    assert len(seen) == 5


def test_documents_go_to_ws_with_their_tables(monkeypatch):
    """Packed documents: impl="ws" takes them (causal or not, with a causal window, causal ALiBi, GQA) and passes
    the tables of variants.tables for its own tiles; impl="fast" sends them there only where a docs row says so."""
    got = []

    def spy(q, k, v, **kw):
        got.append((kw["block_m"], kw["block_n"], kw["causal"], kw["window_left"], kw["docs"]))
        return torch.zeros_like(q), torch.zeros(q.shape[:3])

    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    monkeypatch.setattr(ws, "forward", spy)
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn((2, 4, 300, 128), generator=g).half() for _ in range(3))
    ids = torch.tensor([0] * 100 + [1] * 5 + [2] * 195)[None].repeat(2, 1)
    ids[1, 250:] = 3
    fast_routes(monkeypatch, {(128, True): 1, (128, False): 1})
    fk.attention(q, k, v, impl="fast", causal=True, seq_ids=ids)
    assert got == [] and fk.launch_plan(q, k, v, causal=True, seq_ids=ids)[0] == "tl"
    fast_routes(monkeypatch, {(128, True): 1, (128, False): 1}, docs=(128,), window=(128,), alibi=(128,))
    assert fk.launch_plan(q, k, v, causal=True, seq_ids=ids)[0] == "ws"
    for kw in (dict(causal=True), dict(), dict(causal=True, window=(40, 0)),
               dict(causal=True, alibi_slopes=torch.ones(4))):
        for impl in ("fast", "ws"):
            got.clear()
            fk.attention(q, k, v, impl=impl, seq_ids=ids, **kw)
            (bm, bn, causal, left, docs), = got
            var = fk.variants.parse(q, k, seq_ids=ids, **{"causal": False, **kw})
            want = fk.variants.tables(var, 300, 300, q.device, bm, bn)
            assert (causal, left) == (kw.get("causal", False), kw.get("window", (-1, 0))[0])
            assert docs[0].dtype == docs[1].dtype == torch.int32 and docs[1].shape == (2, -(-300 // bm), 4)
            assert torch.equal(docs[0], want[0]) and torch.equal(docs[1], want[1])
    with pytest.raises(fk.KernelUnavailable, match="packed documents"):     # a window with a right side: tl only
        fk.attention(q, k, v, impl="ws", seq_ids=ids, window=(40, 3))


@pytest.mark.parametrize("bm,bn", [(128, 128), (192, 128), (128, 64)])
def test_document_tiles_come_from_the_table(bm, bn):
    """block_tiles with SEQ reads (t_lo, t_hi) of its (batch entry, query block) from variants.tables' ranges
    (head bh of H belongs to batch entry bh // H); those are exactly the key tiles holding a visible pair."""
    block_tiles = gluon_on_host("_ws_range", "block_tiles")
    n, h = 1000, 3
    ids = torch.tensor([0] * 130 + [1] * 1 + [2] * 400 + [3] * 469)[None].repeat(2, 1)
    ids[1, 700:] = 4
    for kw in (dict(causal=True), dict(), dict(causal=True, window=(200, 0))):
        x = torch.empty((2, h, n, 64))
        var = fk.variants.parse(x, x, seq_ids=ids, **{"causal": False, **kw})
        rowb, tiles = fk.variants.tables(var, n, n, "cpu", bm, bn)
        ok = fk.variants.visible_mask(var, n, n, "cpu")[:, 0]
        for bh in range(2 * h):
            for start in range(0, n, bm):
                t_lo, n_tiles = block_tiles(bh, start, n, n, 0, Ptr(tiles), tiles.stride(0), h, bm, bn,
                                            False, False, True)
                cols = ok[bh // h, start:start + bm].any(0).nonzero().flatten()
                assert list(range(t_lo, t_lo + n_tiles)) == sorted({int(c) // bn for c in cols}), (kw, bh, start)


def test_ws_forward_checks_document_tables(monkeypatch):
    """ws.forward takes the tables built for its own block_m only (int32, contiguous, (1 or B, ...)), Nq == Nk."""
    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    q = torch.empty((2, 4, 300, 128), dtype=torch.float16)
    ids = torch.zeros((2, 300), dtype=torch.int64)
    var = fk.variants.parse(q, q, causal=True, seq_ids=ids)
    kw = dict(causal=True, sm_scale=0.1, block_m=128, block_n=128, num_warps=4, num_stages=2)
    rowb, tiles = fk.variants.tables(var, 300, 300, "cpu", 128, 128)
    wrong = fk.variants.tables(var, 300, 300, "cpu", 192, 128)[1]
    for bad in ((rowb, wrong), (rowb.long(), tiles), (rowb, tiles.transpose(1, 2).contiguous()),
                (rowb[:, :, :1].contiguous(), tiles), (rowb.repeat(3, 1, 1), tiles), (rowb, None)):
        with pytest.raises(fk.KernelInputError, match="document tables"):
            ws.forward(q, q, q, docs=bad, **kw)
    k = torch.empty((2, 4, 301, 128), dtype=torch.float16)
    with pytest.raises(fk.KernelInputError, match="Nq == Nk"):
        ws.forward(q, k, k, docs=(rowb, tiles), **kw)


def test_ws_forward_checks_window_and_heads(monkeypatch):
    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    q = torch.empty((1, 4, 300, 128), dtype=torch.float16)
    kw = dict(sm_scale=0.1, block_m=128, block_n=128, num_warps=4, num_stages=2)
    with pytest.raises(fk.KernelInputError, match="causal=True only"):
        ws.forward(q, q, q, causal=False, window_left=5, **kw)
    with pytest.raises(fk.KernelInputError, match="window_left"):
        ws.forward(q, q, q, causal=True, window_left=-2, **kw)
    kv3 = torch.empty((1, 3, 300, 128), dtype=torch.float16)
    with pytest.raises(fk.KernelInputError, match="dividing H"):
        ws.forward(q, kv3, kv3, causal=True, **kw)
    for causal, sl in ((False, torch.ones((1, 4))), (True, torch.ones(4)), (True, torch.ones((1, 4)).double()),
                       (True, torch.ones((4, 2)).t()), (True, torch.ones((2, 4)))):
        with pytest.raises(fk.KernelInputError, match="ALiBi with causal=True only"):
            ws.forward(q, q, q, causal=causal, alibi_slopes=sl, **kw)


def test_window_launch_takes_its_own_schedule(monkeypatch):
    """A causal window's (and packed documents') ws launch runs its own row's schedule (persistent, NC), not the
    dense (d, causal) row's: in the tiles impl="fast" picks (launch_plan), in what ws.forward launches, in
    status(); the env switches still override both."""
    launched = []

    class FakeKernel:
        def __getitem__(self, grid):
            return lambda *a, **kw: launched.append((grid, kw["NC"], kw["PERSISTENT"], kw["WINDOW"]))

    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    monkeypatch.setattr(ws, "_sm_count", lambda index: 132)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.delenv(ws.PERSISTENT_ENV, raising=False)
    monkeypatch.delenv(ws.CONSUMERS_ENV, raising=False)
    for variant in ("window", "docs"):
        for d in (64, 128):
            ws_launch(monkeypatch, variant, d, persistent=True, consumers=2)
    fast_routes(monkeypatch, {(64, True): 1, (128, True): 1}, window=(64, 128))
    assert ws.CONFIGS[(64, True)][6] == 3 and ws.CONFIGS[(64, True)][5] is False     # what a window must not take
    for d in (64, 128):
        q = torch.zeros((1, 2, 512, d), dtype=torch.float16)
        assert ws.pick_config(q, q, causal=True, window=True)[0] == 128
        assert ws.pick_config(q, q, causal=True)[0] == 64 * ws.CONFIGS[(d, True)][6]
        assert ws.persistent_default(d, True, window=True) is True
        assert fk.launch_plan(q, q, q, causal=True, window=(100, 0)) == ("ws", 128, ws.CONFIGS[(d, True)][1])
        ids = torch.zeros((1, 512), dtype=torch.int64)                # packed documents take the same schedule
        for causal in (True, False):
            assert fk.launch_plan(q, q, q, causal=causal, seq_ids=ids, impl="ws")[:2] == ("ws", 128)
    assert "d=64 window: 2" in ws.status()["consumers"] and "d=64 window" in ws.status()["persistent"]
    monkeypatch.setitem(sys.modules, "flashviz_kernels._ws_gluon", types.SimpleNamespace(ws_fwd=FakeKernel()))
    monkeypatch.setattr("flashviz_kernels.fast.tma_ready", lambda x: x)
    monkeypatch.setattr(ws, "descriptors", lambda *a: (None,) * 4)
    q = torch.zeros((1, 2, 512, 64), dtype=torch.float16)
    ws.forward(q, q, q, causal=True, window_left=100, sm_scale=0.1, block_m=128, block_n=128, num_warps=4,
               num_stages=3)
    ws.forward(q, q, q, causal=True, sm_scale=0.1, block_m=192, block_n=128, num_warps=4, num_stages=3)
    var = fk.variants.parse(q, q, causal=False, seq_ids=torch.zeros((1, 512), dtype=torch.int64))
    ws.forward(q, q, q, causal=False, docs=fk.variants.tables(var, 512, 512, "cpu", 128, 128), sm_scale=0.1,
               block_m=128, block_n=128, num_warps=4, num_stages=3)
    assert launched == [((min(132, 4 * 2),), 2, True, True), ((1, 3, 2), 3, False, False),   # (G, blocks, B*H / G)
                        ((min(132, 4 * 2),), 2, True, False)]              # documents: persistent (their row)
    monkeypatch.setenv(ws.PERSISTENT_ENV, "0")
    monkeypatch.setenv(ws.CONSUMERS_ENV, "3")
    assert ws.persistent_default(64, True, window=True) is False
    assert ws.pick_config(q, q, causal=True, window=True)[0] == 192
    assert fk.launch_plan(q, q, q, causal=True, window=(100, 0)).block_m == 192


def test_document_launch_passes_its_tables(monkeypatch):
    """With docs, ws.forward launches SEQ with the tables' pointers and batch strides (0 for a (1, ...) table);
    without, SEQ is off and the strides 0."""
    launched = []

    class FakeKernel:
        def __getitem__(self, grid):
            return lambda *a, **kw: launched.append((a[6], a[7], a[17], a[18], kw["SEQ"]))

    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    monkeypatch.setattr(ws, "_sm_count", lambda index: 132)          # a causal one-tile launch sizes its head groups
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setitem(sys.modules, "flashviz_kernels._ws_gluon", types.SimpleNamespace(ws_fwd=FakeKernel()))
    monkeypatch.setattr("flashviz_kernels.fast.tma_ready", lambda x: x)
    monkeypatch.setattr(ws, "descriptors", lambda *a: (None,) * 4)
    q = torch.zeros((2, 2, 512, 64), dtype=torch.float16)
    var = fk.variants.parse(q, q, causal=True, seq_ids=torch.zeros((2, 512), dtype=torch.int64))
    rowb, tiles = fk.variants.tables(var, 512, 512, "cpu", 128, 128)
    kw = dict(causal=True, sm_scale=0.1, block_m=128, block_n=128, num_warps=4, num_stages=3, persistent=False)
    ws.forward(q, q, q, docs=(rowb, tiles), **kw)
    ws.forward(q, q, q, docs=(rowb[:1].contiguous(), tiles[:1].contiguous()), **kw)
    ws.forward(q, q, q, **kw)
    (r0, t0, rb0, tb0, s0), (_, _, rb1, tb1, s1), (_, _, rb2, tb2, s2) = launched
    assert r0 is rowb and t0 is tiles and (rb0, tb0, s0) == (512 * 2, 4 * 4, True)
    assert (rb1, tb1, s1) == (0, 0, True) and (rb2, tb2, s2) == (0, 0, False)
