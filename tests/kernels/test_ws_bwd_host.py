"""The Gluon ws backward's device code run on the host (Gluon has no interpreter): the "poly" exponential against
float64, each key block's query range and the mask tables' walk as plain Python, and the frag order of the dQ
pieces that the cast pass undoes. test_ws_bwd.py has the dispatch, test_ws_bwd_build.py the sm_90 builds."""
import re

import numpy as np
import pytest
import torch

from flashviz_kernels import ws_bwd
from helpers.ws import Ptr, gluon_on_host


def _exp2_fma_on_host():
    """_ws_bwd_exp.exp2_fma's own source run on numpy float32 (Gluon has no interpreter): bitcasts as views."""
    import types
    mod = pytest.importorskip("flashviz_kernels._ws_bwd_exp", reason="Gluon cannot be imported here")

    class F(np.ndarray):
        def to(self, dtype, bitcast=False):
            assert bitcast
            return np.asarray(self).view(dtype).view(F)
    shim = types.SimpleNamespace(int32=np.int32, float32=np.float32, where=np.where)
    consts = {n: np.float32(getattr(mod, n).value) for n in ("ROUND", "C0", "C1", "C2", "C3")}
    fn = types.FunctionType(mod.exp2_fma.fn.__code__, {**mod.exp2_fma.fn.__globals__, **consts, "gl": shim})
    return lambda x: fn(np.asarray(x, np.float32).view(F))


def test_exp2_fma_matches_float64_where_p_lives():
    """The "poly" exponentials (ws_bwd.EXP_MODES): 2^x as round(x) in the exponent bits times a cubic, in float32
    as written, within 8e-5 of float64's 2^x relatively over [-125.5, 1] (P = 2^x <= 1 up to rounding; fp16's
    rounding of P is 4.9e-4) and within 2^-126 absolutely below (where the result is subnormal), exactly 0 below -126
    and at -inf (masked scores, rows that see no key), NaN for NaN."""
    f = _exp2_fma_on_host()
    x = np.concatenate([np.linspace(-126, 1, 2_000_001, dtype=np.float32),
                        np.float32(-126) + np.float32(2 ** -17) * np.arange(1, 2000, dtype=np.float32),
                        np.arange(-126, 2, dtype=np.float32) + np.float32(0.5)])
    y, ref = f(x).astype(np.float64), np.exp2(x.astype(np.float64))
    assert np.isfinite(y).all() and (y > 0).all()
    normal = x >= -125.5
    assert np.abs(y / ref - 1)[normal].max() < 8e-5
    assert np.abs(y - ref)[~normal].max() < 2.0 ** -126
    with np.errstate(invalid="ignore"):
        z = f(np.array([-126.01, -127, -150, -1e30, -np.inf, np.nan], np.float32))
    assert (z[:5] == 0).all() and not np.signbit(z[:5]).any() and np.isnan(z[5])


@pytest.fixture(scope="module")
def query_range():
    return gluon_on_host("_ws_bwd_walk", "query_range")


@pytest.mark.parametrize("n_q,n_k", [(1, 1), (17, 17), (1000, 1000), (1000, 1500), (1500, 1000), (300, 100),
                                     (4093, 17), (64, 256), (130, 129)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("bm", [64, 128])
def test_query_range_covers_every_visible_pair_and_masks_the_rest(query_range, n_q, n_k, causal, bm):
    """Per 128-key block: the blocks below lo see none of its keys, the unmasked ones [full, hi) see all of them
    (so no mask is needed there), and hi covers every row."""
    bn, off = 128, n_k - n_q
    for start_k in range(0, n_k, bn):
        lo, full, hi = query_range(start_k, n_q, n_k, bm, bn, causal)
        assert lo % bm == 0 and full % bm == 0 and lo <= full <= hi == -(-n_q // bm) * bm
        keys = range(start_k, start_k + bn)
        for r in range(n_q):
            sees = [j for j in keys if j < n_k and (not causal or j <= r + off)]
            if r < lo:
                assert not sees, (start_k, r)
            if r >= full:
                assert len(sees) == bn, (start_k, r)


@pytest.mark.parametrize("bm", [64, 128])
def test_table_walk_visits_each_query_block_once(bm):
    """The TABLE launch's walk as plain Python (query_ranges reading the by-key table, the masked loop over both
    edges with _skip, then the full loop with ROTATE): per key block and batch entry, every query block holding a
    visible pair exactly once, the full ones unmasked and every pair in them visible, nothing else."""
    from flashviz_kernels import variants
    ranges, block_start, skip = (gluon_on_host("_ws_bwd_walk", f) for f in ("query_ranges", "block_start", "skip_gap"))

    class _Bool(int):                                   # (start >= gap_at).to(gl.int32) on the host
        def to(self, _):
            return int(self)

    class _Row(int):
        def __ge__(self, other):
            return _Bool(int(self) >= int(other))
    n, h = 1000, 2
    ids = torch.tensor([0] * 130 + [1] + [2] * 400 + [3] * 469)[None].repeat(2, 1)
    ids[1, 700:] = 4
    for kw in (dict(causal=True, window=(200, 0)), dict(window=(150, 60)), dict(seq_ids=ids, causal=True),
               dict(seq_ids=ids), dict(seq_ids=ids, window=(300, 0), causal=True)):
        x = torch.empty((2, h, n, 64))
        var = variants.parse(x, x, **{"causal": False, **kw})
        tiles = variants.tables(var, n, n, "cpu", bm, 128, by_key=True)[1]
        ok = variants.visible_mask(var, n, n, "cpu")[:, 0].expand(2, -1, -1)
        for bh in range(2 * h):
            for pid, start_k in enumerate(range(0, n, 128)):
                lo, full, hi, end = ranges(bh, start_k, n, n, Ptr(tiles), tiles.stride(0) if tiles.shape[0] > 1
                                           else 0, h, bm, 128, False, True)
                n_masked = (full - lo + end - hi) // bm

                def walk(a, b, gap_at, gap, rotate):
                    count = (b - a) // bm
                    r0 = pid % max(count, 1)                # rotation(count) of program pid
                    return [int(skip(_Row(block_start(a, count, it, r0, bm, rotate)), gap_at, gap, True))
                            for it in range(count)]
                masked = walk(lo, lo + n_masked * bm, full, hi - full, False)
                unmasked = walk(full, hi, hi, 0, True)
                assert skip(5 * bm, full, hi - full, False) == 5 * bm          # not TABLE: never moved
                want = [r for r in range(0, n, bm) if ok[bh // h, r:r + bm, start_k:start_k + 128].any()]
                assert sorted(masked + unmasked) == want, (kw, bh, start_k)
                for r in unmasked:
                    assert ok[bh // h, r:r + bm, start_k:start_k + 128].all() and r + bm <= n


def _spelled(src: str, call: str) -> list:
    """The int list of the first `call(x, [...])` in src."""
    return [int(v) for v in re.search(re.escape(call) + r"\(\w+, \[([\d, ]+)\]\)", src).group(1).split(",")]


@pytest.mark.parametrize("mode", ["frag", "rows-frag"])
def test_frag_order_is_a_relabelling_the_cast_undoes(mode):
    """"frag" (the d = 128 default): the kernel writes each 64 x 64 dQ piece in _ws_bwd_dq.frag_order's order and the
    cast pass reads it back. ws_bwd.frag_index (the map, numpy) is a permutation of the block's stretch; the kernel's
    reshape / permute, as spelled in its source and run in numpy, puts every element where frag_index says; the
    cast kernel (Triton's interpreter here) recovers a float64 dQ from a buffer filled by frag_index, ragged Nq
    included."""
    import numpy as np
    import triton
    from pathlib import Path

    from flashviz_kernels._ws_bwd_cast import dq_cast_frag
    bm, d = ws_bwd.FRAG_TILES[mode]
    rows = mode == "rows-frag"                           # consumer c's piece: half the rows, all columns
    idx = ws_bwd.frag_index(bm, d, rows=rows)
    assert idx.shape == (bm, d) and sorted(idx.ravel().tolist()) == list(range(bm * d))
    src = (Path(ws_bwd.__file__).parent / "_ws_bwd_dq.py").read_text()
    body = src[src.index("def frag_order"):]
    split, perm = _spelled(body, "gl.reshape"), _spelled(body, "gl.permute")
    block = np.random.default_rng(0).standard_normal((bm, d))
    for cid in (0, 1):                                   # each consumer's 64 x 64 piece, laid out as the kernel does
        part = np.s_[cid * 64:(cid + 1) * 64, :] if rows else np.s_[:, cid * 64:(cid + 1) * 64]
        flat = block[part].reshape(split).transpose(perm).reshape(-1)
        assert np.array_equal(flat[idx[part] - cid * bm * d // 2], block[part])
    b, h, n_q = 2, 3, 150                                # ragged: the last block ends inside it
    tq = triton.cdiv(n_q, bm)
    want = torch.randn(b * h, tq * bm, d, dtype=torch.float64)
    acc = torch.empty(b * h, tq * bm * d, dtype=torch.float32)
    flat_idx = torch.from_numpy(idx).reshape(-1)
    for blk in range(tq):
        acc[:, blk * bm * d + flat_idx] = want[:, blk * bm:(blk + 1) * bm].reshape(b * h, -1).float()
    out = torch.full((b, h, n_q, d), float("nan"), dtype=torch.float16)
    dq_cast_frag[(b * h * tq * 2,)](acc, out, n_q, tq, 0.5, BM=bm, D=d, ROWS=rows)
    ref = 0.5 * want[:, :n_q].reshape(b, h, n_q, d)
    assert torch.isfinite(out).all()
    assert (out.double() - ref).abs().max().item() <= 2 ** -10 * ref.abs().max().item()
