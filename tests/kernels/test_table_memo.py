"""tables.Memo: the host side of a launch remembers its table lookups, and a patched table is never answered from
the old one (tests and tools rebind tables; a class's server shares one process)."""
import types

import torch

from flashviz_kernels import backward_pick, backward_table, forward_table, gates, tables, ws, ws_bwd


def test_memo_remembers_until_a_source_is_rebound_and_bounds_its_size():
    mod = types.SimpleNamespace(rows=[1, 2, 3])
    calls = []

    def total(scale):
        calls.append(scale)
        return sum(mod.rows) * scale

    memo = tables.Memo(total, ((mod, "rows"),), size=2)
    assert memo(2) == 12 and memo(2) == 12 and calls == [2]
    mod.rows = [1, 2, 3]                               # equal but another object: a fresh cache
    assert memo(2) == 12 and calls == [2, 2]
    mod.rows = [10]
    assert memo(2) == 20 and memo(3) == 30 and memo(4) == 40 and calls == [2, 2, 2, 3, 4]
    assert memo(2) == 20 and calls[-1] == 2            # the third key started it over (size 2)
    memo.clear()
    assert memo(3) == 30 and calls[-1] == 3


def test_schedule_hands_out_fresh_dicts():
    """A caller changing the dict schedule() returned cannot change the next caller's."""
    first = ws.schedule(64, True)
    first["stages"] = 99
    assert ws.schedule(64, True)["stages"] == forward_table.ws_dense(64, True)["stages"] != 99
    assert ws_bwd.CONFIGS[64] == ws_bwd.CONFIGS[64]


def test_patched_tables_are_read_live(monkeypatch):
    """Every memoised lookup follows a rebound table: the forward's schedule and routes, the gates, the backward's
    launch and routes."""
    d64 = forward_table.ws_dense(64, False)
    rows = tuple(r.but(stages=4) if r.variant == "dense" and r.d == (64, 64) else r for r in forward_table.WS_LAUNCHES)
    monkeypatch.setattr(forward_table, "WS_LAUNCHES", rows)
    assert ws.schedule(64, False)["stages"] == 4 and ws.pingpong_default(64, False) is d64["pingpong"]
    monkeypatch.undo()
    assert ws.schedule(64, False)["stages"] == d64["stages"]

    q = torch.empty((1, 1, 8192, 128), dtype=torch.float16, device="meta")
    assert ws.fast_route(q, q, False)[0] == "ws"
    monkeypatch.setattr(forward_table, "ROUTES", tuple(r.__class__(**{**r.__dict__, "kernel": "tl"})
                                                       for r in forward_table.ROUTES))
    assert ws.fast_route(q, q, False)[0] == "tl"
    monkeypatch.undo()

    assert gates.why_not("ws-forward", "3.8.0", (9, 0)) is None
    monkeypatch.setattr(gates, "VERIFIED", tuple(r for r in gates.VERIFIED if r.path != "ws-forward"))
    assert "not a version" in gates.why_not("ws-forward", "3.8.0", (9, 0))
    monkeypatch.setenv(gates.UNVERIFIED_ENV, "1")      # the switch is part of the key: the version check opens
    assert "not a version" not in gates.why_not("ws-forward", "3.8.0", (9, 0))    # (no row left for sm_90)
    monkeypatch.undo()
    assert gates.why_not("ws-forward", "3.8.0", [9, 0]) is None          # a list capability is the same key

    bm = ws_bwd.CONFIGS[128][0]
    rows = tuple(r.but(block_m=bm * 2) if r.d == (128, 128) else r for r in backward_table.WS_BWD_LAUNCHES)
    monkeypatch.setattr(backward_table, "WS_BWD_LAUNCHES", rows)
    assert ws_bwd.CONFIGS[128][0] == bm * 2
    monkeypatch.undo()
    assert ws_bwd.CONFIGS[128][0] == bm

    assert backward_pick.table_says("ws", 128)[0]
    monkeypatch.setattr(backward_table, "ROUTES", tuple(r for r in backward_table.ROUTES if r.kernel != "ws"))
    assert not backward_pick.table_says("ws", 128)[0]
