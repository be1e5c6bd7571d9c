"""impl="ws" variants without a GPU: the kernel's own key-tile range for a causal sliding window against the mask
built from the definition, which calls impl="fast" sends to ws (causal windows at WINDOW_WS_DIMS, GQA/MQA) and which
stay on the tl kernel, and ws.forward's typed errors for windows and head counts. On the GPU:
tests/test_ws_variants_gpu.py."""
import sys
import types

import pytest
import torch

import flashviz_kernels as fk
from flashviz_kernels import ws
from test_ws import _fresh_state, _host  # noqa: F401  (_fresh_state: autouse, each test as a fresh process)


@pytest.fixture(scope="module")
def key_range():
    try:
        from flashviz_kernels import _ws_tile
    except Exception as e:  # noqa: BLE001 - a triton without Gluon
        pytest.skip(f"Gluon cannot be imported here: {e}")
    return _host(_ws_tile.key_range)


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
    """impl="fast" hands a causal window (left, 0) at a head dim in WINDOW_WS_DIMS, causal ALiBi and GQA/MQA to ws
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
    monkeypatch.setattr(ws, "FAST_USES_WS", {(64, True): 1, (64, False): 1, (128, True): 1})
    monkeypatch.setattr(ws, "WINDOW_WS_DIMS", (128,))
    monkeypatch.setattr(ws, "ALIBI_WS_DIMS", (128,))
    monkeypatch.setattr(ws, "forward", spy)
    g = torch.Generator().manual_seed(1)
    q, q128 = torch.randn((1, 4, 64, 64), generator=g).half(), torch.randn((1, 4, 64, 128), generator=g).half()
    kv = [torch.randn((1, 2, 64, 64), generator=g).half() for _ in range(2)]
    kv128 = [torch.randn((1, 2, 64, 128), generator=g).half() for _ in range(2)]
    fk.attention(q128, *kv128, impl="fast", causal=True, window=(10, 0))
    fk.attention(q128, *kv128, impl="fast", window=(10, 0))            # right side 0: a causal window, no flag
    fk.attention(q, *kv, impl="fast")                                    # GQA, no mask
    fk.attention(q, *kv, impl="fast", causal=True, window=(10, 0))      # d = 64: not in WINDOW_WS_DIMS
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
               dict(seq_ids=torch.zeros((1, 64), dtype=torch.int64), causal=True)):
        fk.attention(q128, *kv128, impl="fast", **kw)
        assert fk.launch_plan(q128, *kv128, **kw)[0] == "tl"
        with pytest.raises(fk.KernelUnavailable, match="causal ALiBi and GQA"):
            fk.attention(q128, *kv128, impl="ws", **kw)
    assert len(seen) == 5


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
    """A causal window's ws launch runs WINDOW_SCHEDULE (persistent, NC), not the plain causal CONFIGS entry: in the
    tiles impl="fast" picks (launch_plan), in what ws.forward launches, and in status(); the env switches still
    override both."""
    from flashviz_kernels import api
    launched = []

    class FakeKernel:
        def __getitem__(self, grid):
            return lambda *a, **kw: launched.append((grid, kw["NC"], kw["PERSISTENT"], kw["WINDOW"]))

    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    monkeypatch.setattr(ws, "_sm_count", lambda index: 132)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.delenv(ws.PERSISTENT_ENV, raising=False)
    monkeypatch.delenv(ws.CONSUMERS_ENV, raising=False)
    monkeypatch.setattr(ws, "WINDOW_SCHEDULE", {64: (True, 2), 128: (True, 2)})
    monkeypatch.setattr(ws, "WINDOW_WS_DIMS", (64, 128))
    monkeypatch.setattr(ws, "FAST_USES_WS", {(64, True): 1, (128, True): 1})
    assert ws.CONFIGS[(64, True)][6] == 3 and ws.CONFIGS[(64, True)][5] is False     # what a window must not take
    for d in (64, 128):
        q = torch.zeros((1, 2, 512, d), dtype=torch.float16)
        assert ws.pick_config(q, q, causal=True, window=True)[0] == 128
        assert ws.pick_config(q, q, causal=True)[0] == 64 * ws.CONFIGS[(d, True)][6]
        assert ws.persistent_default(d, True, window=True) is True
        assert fk.launch_plan(q, q, q, causal=True, window=(100, 0)) == ("ws", 128, ws.CONFIGS[(d, True)][1])
    assert "d=64 window: 2" in ws.status()["consumers"] and "d=64 window" in ws.status()["persistent"]
    monkeypatch.setitem(sys.modules, "flashviz_kernels._ws_gluon", types.SimpleNamespace(ws_fwd=FakeKernel()))
    monkeypatch.setattr("flashviz_kernels.fast.tma_ready", lambda x: x)
    monkeypatch.setattr(ws, "_descs", lambda *a: (None,) * 4)
    q = torch.zeros((1, 2, 512, 64), dtype=torch.float16)
    ws.forward(q, q, q, causal=True, window_left=100, sm_scale=0.1, block_m=128, block_n=128, num_warps=4,
               num_stages=3)
    ws.forward(q, q, q, causal=True, sm_scale=0.1, block_m=192, block_n=128, num_warps=4, num_stages=3)
    assert launched == [((min(132, 4 * 2),), 2, True, True), ((3, 2), 3, False, False)]
    monkeypatch.setenv(ws.PERSISTENT_ENV, "0")
    monkeypatch.setenv(ws.CONSUMERS_ENV, "3")
    assert ws.persistent_default(64, True, window=True) is False
    assert ws.pick_config(q, q, causal=True, window=True)[0] == 192
    assert api._ws_tiles(q, q, fk.variants.parse(q, q, causal=True, window=(100, 0)))[0] == 192
