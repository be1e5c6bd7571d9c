"""tools/window_trace.py's parsing of a persistent ws forward's trace (no GPU: events written out by hand)."""
import pytest

from tools import window_trace


def _tile(t0, q_wait, lead_half, trips, last, top=0, pro=0):
    """One consumer's events for one query tile starting at t0 (the previous pv_last's end): with top, a "top" scope
    (the decode) 7 cycles in, then a q_ready wait, with pro a "pro" scope (attend's set-up), an optional half_lo,
    key tile 0 (K wait, Q·Kᵀ with the previous O's store nested, softmax, release), `trips` loop trips of 300
    cycles, then a pv_last of `last` cycles. Returns (events, end)."""
    ev, t = [], t0 + 7
    if top:
        ev.append(dict(scope="top", start=t, dur=top))
    t += top + 13
    ev.append(dict(scope="q_ready", start=t, dur=q_wait))
    t += q_wait + 10
    if pro:
        ev.append(dict(scope="pro", start=t, dur=pro))
        t += pro + 3
    if lead_half:
        ev.append(dict(scope="half_lo", start=t, dur=lead_half))
        t += lead_half + 10
    ev += [dict(scope="wait_kv", start=t, dur=5), dict(scope="qk", start=t + 10, dur=100),
           dict(scope="store", start=t + 20, dur=60), dict(scope="softmax", start=t + 120, dur=150),
           dict(scope="release", start=t + 280, dur=10)]
    first, t = t, t + 290
    for _ in range(trips):
        ev += [dict(scope="wait_kv", start=t, dur=5), dict(scope="qk", start=t + 10, dur=80),
               dict(scope="softmax", start=t + 100, dur=150), dict(scope="pv", start=t + 260, dur=30)]
        t += 300
    ev.append(dict(scope="pv_last", start=t, dur=last))
    return ev, first, t + last


def test_tiles_of_reads_each_edge():
    ev = [dict(scope="pv_last", start=0, dur=100)]
    a, first_a, end_a = _tile(100, 40, 0, 7, 250)
    b, first_b, end_b = _tile(end_a, 90, 0, 7, 250)
    rows = window_trace.tiles_of(ev + a + b)
    assert len(rows) == 2                             # a tile needs a pv_last on both sides
    r = rows[0]
    assert r["period"] == end_a - 100
    assert r["q_ready"] == 40 and r["half_lo"] == 0
    assert r["lead"] == first_a - 100                 # the previous pv_last's end to the first K wait
    assert r["trip0"] == 290
    assert r["per_trip"] == pytest.approx(300.0)
    assert r["pv_last"] == 250
    assert rows[1]["q_ready"] == 90 and rows[1]["period"] == end_b - end_a
    assert (r["ret"], r["top"], r["pro"]) == (0, 0, 0)  # a trace without the finer scopes


def test_tiles_of_splits_the_lead():
    """ret (pv_last's end to the decode's start), top and pro are parts of the lead, read from their own scopes."""
    ev = [dict(scope="pv_last", start=0, dur=100)]
    a, first_a, end_a = _tile(100, 40, 0, 7, 250, top=300, pro=500)
    b, _, _ = _tile(end_a, 90, 0, 7, 250, top=310, pro=520)
    r, r2 = window_trace.tiles_of(ev + a + b)
    assert (r["ret"], r["top"], r["pro"], r["q_ready"]) == (7, 300, 500, 40)
    assert r["lead"] == first_a - 100 == 7 + 300 + 13 + 40 + 10 + 500 + 3
    assert (r2["top"], r2["pro"]) == (310, 520)


def test_edges_takes_medians_per_consumer_warp():
    events = []
    for cta in range(3):
        ev = [dict(scope="pv_last", start=0, dur=100)]
        end = 100
        for q in (10 * (cta + 1), 500):
            tile, _, end = _tile(end, q, 200 if cta == 0 else 0, 7, 250)
            ev += tile
        for e in ev:
            events.append(dict(e, cta=cta, warp=4))
            events.append(dict(e, cta=cta, warp=0, scope="noise" if e["scope"] == "pv_last" else e["scope"]))
    out = window_trace.edges(events)
    c1 = out["consumer1"]
    assert c1["tiles"] == 6                           # 2 tiles in each of 3 CTAs
    assert c1["q_ready"] == pytest.approx((30 + 500) / 2)   # q waits 10, 20, 30, 500, 500, 500
    assert c1["half_lo"] == 0                         # 200 in two of six tiles
    assert out["consumer0"]["tiles"] == 0 and out["consumer0"]["period"] is None   # no pv_last there
