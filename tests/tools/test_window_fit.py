"""tools/window_fit.py's arithmetic: the key tiles a causal window walks, against a float64 brute force of which
(row, key) pairs are visible, and the fit that splits a run's time."""
import numpy as np
import pytest

from tools.window_fit import fit, key_tiles


@pytest.mark.parametrize("n,bm,bn,window", [(1024, 128, 128, None), (1024, 128, 128, 256), (1000, 128, 64, 100),
                                            (777, 192, 128, 300), (640, 64, 128, 64), (512, 128, 128, 5000),
                                            (130, 128, 128, 1)])
def test_key_tiles_are_the_tiles_holding_a_visible_pair(n, bm, bn, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    seen = (j <= i) & ((j >= i - window) if window is not None else True)
    want = sum(int(seen[s:s + bm, t:t + bn].any()) for s in range(0, n, bm) for t in range(0, n, bn))
    assert key_tiles(n, bm, bn, window) == (want, -(-n // bm))


def test_fit_recovers_the_per_tile_and_per_query_tile_costs():
    rng = np.random.default_rng(0)
    rows = [dict(tiles=t, qtiles=q, ms=14.5e-6 * t + 26e-6 * q) for t, q in rng.integers(1000, 100000, (6, 2))]
    a, b = fit(rows)
    assert a == pytest.approx(14.5e-6, rel=1e-9) and b == pytest.approx(26e-6, rel=1e-9)
