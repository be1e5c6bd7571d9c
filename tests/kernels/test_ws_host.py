"""The Gluon forward's tile order run on the host (Gluon has no interpreter): the persistent decode visits every
(head, query block) once, longest first inside a head group, balances 132 programs, and each query tile walks the
key tiles bottom-right causal attention gives it. test_ws.py has the gate and the dispatch."""
import pytest

from flashviz_kernels import ws
from helpers.ws import gluon_on_host


@pytest.fixture(scope="module")
def tile_fns():
    key_range = gluon_on_host("_ws_range", "key_range")
    return (gluon_on_host("_ws_order", "persistent_tile"),
            lambda s, nq, nk, bm, bn, c: key_range(s, nq, nk, -1, bm, bn, c, False)[1])


@pytest.mark.parametrize("bm", [128, 192])
@pytest.mark.parametrize("n_qblk,n_bh,group", [(8, 10, 3), (8, 10, 1), (5, 7, 7), (5, 7, 100), (1, 3, 2), (64, 128, 8)])
def test_persistent_order_visits_every_tile_once_longest_first(tile_fns, n_qblk, n_bh, group, bm):
    """The kernel's own tile decode: a permutation of all (head, query block) tiles; inside each head group the
    query blocks go from the last to the first (a ragged last group included); bm-row tiles (2 or 3 consumers)."""
    tile, _ = tile_fns
    order = [tile(t, n_qblk, n_bh, group, bm) for t in range(n_qblk * n_bh)]
    assert sorted(order) == sorted((bh, blk * bm) for bh in range(n_bh) for blk in range(n_qblk))
    g = min(group, n_bh)
    for grp in range(-(-n_bh // g)):
        starts = [sq for bh, sq in order if bh // g == grp]
        assert starts == sorted(starts, reverse=True)
        assert {bh for bh, _ in order[grp * g * n_qblk:(grp + 1) * g * n_qblk]} == \
            set(range(grp * g, min(n_bh, (grp + 1) * g)))


@pytest.mark.parametrize("b,h,n,d", [(4, 32, 8192, 128), (4, 32, 8192, 64), (4, 32, 16384, 128), (1, 4, 8192, 128)])
def test_persistent_causal_order_balances_132_programs(tile_fns, b, h, n, d):
    """Programs p, p+132, ... of the causal order (head groups from ws.head_group): the busiest program does at
    most one longest tile more than the mean, and no more than with head-major order."""
    tile, key_tiles = tile_fns
    n_qblk, n_bh = -(-n // 128), b * h
    total = n_qblk * n_bh

    def busiest(group):
        work = [0] * min(132, total)
        for t in range(total):
            work[t % len(work)] += key_tiles(tile(t, n_qblk, n_bh, group, 128)[1], n, n, 128, 128, True)
        return max(work), sum(work) / len(work)

    group = ws.head_group(n_bh, n, d, 2, True)
    assert group == min(n_bh, ws.L2_KV_BYTES // (2 * n * d * 2)) > 1
    most, mean = busiest(group)
    longest = key_tiles((n_qblk - 1) * 128, n, n, 128, 128, True)
    assert most - mean <= longest and most <= busiest(1)[0]


@pytest.mark.parametrize("n_qblk,n_bh,group,programs", [(8, 10, 3, 7), (8, 10, 1, 132), (5, 7, 7, 3),
                                                         (5, 7, 100, 132), (1, 3, 2, 2), (64, 128, 8, 132),
                                                         (128, 8, 8, 132), (3, 5, 2, 4), (1, 1, 1, 1)])
def test_walked_order_is_the_decoded_order(n_qblk, n_bh, group, programs):
    """WALK (kernels/_ws_order.py): each program's tiles stepped from walk_start by walk_next, without division
    inside a head group, are the tiles persistent_tile decodes for t = p, p + G, ... (short last groups, a step
    larger than a group, one tile per program)."""
    tile = gluon_on_host("_ws_order", "persistent_tile")
    start, step, at = (gluon_on_host("_ws_order", n) for n in ("walk_start", "walk_next", "walk_tile"))
    for p in range(min(programs, n_qblk * n_bh)):       # (a group above n_bh too: the decode caps it)
        w = start(p, n_qblk, n_bh, group, programs)
        for t in range(p, n_qblk * n_bh, programs):
            grp, _, h, q = w[:4]
            assert at(grp, h, q, n_qblk, group, 128) == tile(t, n_qblk, n_bh, group, 128), (p, t)
            w = step(*w, n_qblk, n_bh, group, programs)


@pytest.mark.parametrize("bm", [128, 192])
def test_key_tiles_follow_bottom_right_causal(tile_fns, bm):
    _, key_tiles = tile_fns
    for n_q, n_k in ((1000, 1000), (300, 1000), (1000, 300), (17, 4093), (4093, 129), (193, 191)):
        for start in range(0, n_q, bm):
            last_row = min(start + bm - 1, n_q - 1)
            seen = min(max(last_row + n_k - n_q + 1, 0), n_k)       # keys the block's last row sees
            assert key_tiles(start, n_q, n_k, bm, 128, True) == -(-seen // 128)
            assert key_tiles(start, n_q, n_k, bm, 64, False) == -(-n_k // 64)
