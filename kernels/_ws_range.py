"""Which key tiles the ws forward's query tile walks, and which of them a consumer's own rows see (kernels/_ws_tile.py's
attend, kernels/_ws_gluon.py's schedules). Integer arithmetic only, so tests run it on the host
(tests/helpers/ws.py gluon_on_host)."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def key_range(start_q, n_q, n_k, left, BM: gl.constexpr, BN: gl.constexpr, CAUSAL: gl.constexpr,
              WINDOW: gl.constexpr):
    """(t_lo, n_tiles): the BN-key tiles [t_lo, t_lo + n_tiles) some row of the BM-row query tile at start_q sees.
    Bottom-right causal: row r sees keys j <= r + n_k - n_q (fewer tiles for early rows); WINDOW (causal only):
    also j >= r + n_k - n_q - left, so tiles left of the band are never loaded. Every consumer walks them all
    (its rows outside the band mask them): the ring is shared; with HALF a consumer runs an edge tile it sees
    half of as that half (kernels/_ws_half.py)."""
    if CAUSAL:
        hi = gl.minimum(gl.maximum(start_q + BM + n_k - n_q, 0), n_k)     # keys any row of the tile sees
    else:
        hi = n_k
    t_lo = 0
    if WINDOW:
        t_lo = gl.maximum(start_q + n_k - n_q - left, 0) // BN        # the first row's first key
    return t_lo, gl.maximum(gl.cdiv(hi, BN) - t_lo, 0)


@gluon.jit
def own_tiles(t_lo, n_tiles, r0, n_q, n_k, M_WG: gl.constexpr, BN: gl.constexpr, CAUSAL: gl.constexpr):
    """SKIP: how many of the query tile's key tiles [t_lo, t_lo + n_tiles) come first that some row of this
    consumer's [r0, r0 + M_WG) below n_q sees: causal, up to the tile of its last real row's last key; none for a
    ragged last query tile's consumer past n_q (ws_switches.skipped_share counts the rest)."""
    end = gl.minimum(r0 + M_WG, n_q)                  # past this consumer's last real row
    hi = n_k
    if CAUSAL:
        hi = gl.minimum(gl.maximum(end + n_k - n_q, 0), n_k)
    own = gl.minimum(gl.maximum(gl.cdiv(hi, BN) - t_lo, 0), n_tiles)
    if end <= r0:
        own = 0
    return own


@gluon.jit
def block_tiles(bh, start_q, n_q, n_k, left, tiles, tiles_b, n_heads, BM: gl.constexpr, BN: gl.constexpr,
                CAUSAL: gl.constexpr, WINDOW: gl.constexpr, SEQ: gl.constexpr):
    """(t_lo, n_tiles) of the query tile at start_q of head bh: key_range's arithmetic, or with packed documents
    (SEQ) the host's table (variants.tile_ranges for Br = BM, Bc = BN: (t_lo, f_lo, f_hi, t_hi) per query block,
    batch stride tiles_b), which holds the causal side and a window's left side too."""
    if SEQ:
        p = tiles + (bh // n_heads) * tiles_b + (start_q // BM) * 4
        t_lo = gl.load(p)
        n_tiles = gl.load(p + 3) - t_lo
    else:
        t_lo, n_tiles = key_range(start_q, n_q, n_k, left, BM, BN, CAUSAL, WINDOW)
    return t_lo, n_tiles
