"""The persistent ws forward's tile order: which (head, query block) each program takes next. Imported by
_ws_gluon.py only.

A program walks tiles t = p, p + G, p + 2G, ... (G programs). persistent_tile decodes a t with two integer
divisions by run-time values, which ptxas builds as long dependent chains (I2F, MUFU.RCP, F2I, then about twenty
uniform-datapath steps each: sm_90a SASS of the window launch, tools.compile_check). They run between a query tile's
last P·V and the next tile's first Q·Kᵀ, where tools/window_trace.py found a consumer's own code costing about as
much as a key-loop trip. WALK (ws_switches.walk_default; off, it timed no faster) steps a decoded state to t + G
instead: inside a head group h and q move by G's own quotient and remainder with one carry, no division;
walk_start's divisions run once a group (and once per program).
"""
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from .ws_switches import walk_default

# step the persistent order's state from tile to tile instead of decoding each t (ws_switches.walk_default)
WALK = gl.constexpr(walk_default(triton.__version__))


@gluon.jit
def persistent_tile(t, n_qblk, n_bh, head_group, BM: gl.constexpr):
    """Tile t of the persistent order -> (bh, start_q). Heads go in groups of head_group (the host sizes a group
    so its K/V fit in L2); inside a group query blocks run from the last (longest when causal) to the first,
    all heads of the group at each block. head_group = 1 is head-major."""
    per_group = head_group * n_qblk
    grp = t // per_group
    h0 = grp * head_group
    heads = gl.minimum(head_group, n_bh - h0)        # the last group may be short
    r = t - grp * per_group
    return h0 + r % heads, (n_qblk - 1 - r // heads) * BM


@gluon.jit
def walk_start(t, n_qblk, n_bh, head_group, step):
    """persistent_tile's decode of tile t as a walk state (grp, r, h, q, heads, step_h, step_q): head group grp, t's
    place r in it, h = r % heads and q = r // heads (bh = grp * head_group + h, query block n_qblk - 1 - q), the
    group's heads, and step % heads, step // heads. Past the last group (t beyond the order) heads is kept >= 1."""
    per_group = head_group * n_qblk
    grp = t // per_group
    r = t - grp * per_group
    heads = gl.maximum(gl.minimum(head_group, n_bh - grp * head_group), 1)
    return grp, r, r % heads, r // heads, heads, step % heads, step // heads


@gluon.jit
def walk_next(grp, r, h, q, heads, step_h, step_q, n_qblk, n_bh, head_group, step):
    """The walk state of tile t + step from that of tile t: inside one head group (r + step, h + step_h) with
    h < heads and step_h < heads carries at most once into q; into a later group, walk_start's decode."""
    r = r + step
    if r < head_group * n_qblk:
        h = h + step_h
        q = q + step_q
        if h >= heads:
            h = h - heads
            q = q + 1
    else:
        grp, r, h, q, heads, step_h, step_q = walk_start(grp * head_group * n_qblk + r, n_qblk, n_bh, head_group,
                                                         step)
    return grp, r, h, q, heads, step_h, step_q


@gluon.jit
def walk_tile(grp, h, q, n_qblk, head_group, BM: gl.constexpr):
    """(bh, start_q) of a walk state: persistent_tile's result for its t."""
    return grp * head_group + h, (n_qblk - 1 - q) * BM
