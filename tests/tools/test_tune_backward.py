"""tools/tune_backward.py without a GPU: its ws candidates (each mode and switch beside the table's launch, names
as the recorded files spell them), --only, and the rotated rounds."""
import pytest

from flashviz_kernels import backward_table, ws_bwd


def test_tune_candidates_take_both_modes():
    """tune_backward's ws candidates: CONFIGS first (its no-dQ-adds row times the default), "split" among them, all
    valid; names say the mode ("partial", retired, was named without it in the recorded files)."""
    from tools import tune_backward as tb
    for d, cands in tb.WS_CANDIDATES.items():
        assert cands[0][:5] == ws_bwd.CONFIGS[d] and {c[4] for c in cands} >= {"split", "tma"}
        assert tb.switches(cands[0]) in ({}, dict(stats_acc=True, early_dq=ws_bwd.EARLY_DQ[d],
                                                   dq_first=ws_bwd.DQ_FIRST[d], prefetch=ws_bwd.PREFETCH[d],
                                                   next_s=0))
        assert tb.candidate_name("ws", cands[0]) == backward_table.tune_name(backward_table.WS_BWD[d])
        assert any(tb.switches(c) == dict(stats_acc=False, early_dq=False, dq_first=False, prefetch=0, next_s=0)
                   for c in cands)                     # the old schedule, with nothing newer switched on
        for c in cands:
            ws_bwd.check_tiles(d, c[0], c[1], c[2], c[4])
        assert len({tb.candidate_name("ws", c) for c in cands}) == len(cands)
    assert tb.candidate_name("ws", (64, 2, 1, True, "tma2", True, False)) == "ws(64, 2, 1, True) tma2 acc=1 early=0"
    assert tb.candidate_name("ws", (64, 2, 1, True, "split")) == "ws(64, 2, 1, True) split"
    assert tb.switches((64, 2, 1, True, "tma2", True, False)) == dict(stats_acc=True, early_dq=False, dq_first=False,
                                                                      prefetch=0, next_s=0)   # not the table's
    poly = (64, 3, 1, True, "frag", True, False, False, 2, "poly")
    assert tb.candidate_name("ws", poly) == "ws(64, 3, 1, True) frag acc=1 early=0 pre=2 exp=poly"
    assert tb.switches(poly)["exp_mode"] == "poly" and "exp_mode" not in tb.switches(poly[:9])
    for d, cands in tb.WS_CANDIDATES.items():          # each exp and mask mode beside the table's launch, at its
        assert {c[9] for c in cands if len(c) > 9} == set(ws_bwd.EXP_MODES)     # switches ("asm" with "mufu")
        assert all(c[:9] == cands[0] for c in cands if len(c) > 9)
        assert {c[10] for c in cands if len(c) == 11} == set(ws_bwd.MASK_MODES) - {ws_bwd.MASK_DEFAULT}
        # next_s 1 and 2 at the launch's switches (1 at d = 64 also with two other exp modes), the launch without ROTATE
        nxt = [c for c in cands if len(c) > 11]
        assert {c[11] for c in nxt} == {1, 2} and all(c[:9] == cands[0] and c[10] == ws_bwd.MASK_DEFAULT for c in nxt)
        assert all(c[9] == "mufu" for c in nxt if c[11] == 2)
        assert any(c[:5] == (*cands[0][:3], False, cands[0][4]) and c[5:] == cands[0][5:] for c in cands)
    asm = (64, 3, 1, True, "frag", True, False, False, 2, "mufu", "asm")
    assert tb.candidate_name("ws", asm) == "ws(64, 3, 1, True) frag acc=1 early=0 pre=2 mask=asm"
    assert tb.switches(asm)["mask_mode"] == "asm" and "mask_mode" not in tb.switches(asm[:10])
    nxt = (*asm[:10], "where", 1)
    assert tb.candidate_name("ws", nxt) == "ws(64, 3, 1, True) frag acc=1 early=0 pre=2 mask=where next=1"
    assert tb.switches(nxt)["next_s"] == 1 and tb.switches(asm)["next_s"] == 0


def test_tune_only_times_the_candidates_named():
    """--only keeps the named candidates in the list's order (the table's launch first when named), and a name no
    candidate has stops the run with the names it knows, instead of timing nothing."""
    from tools import tune_backward as tb
    cands = tb.WS_CANDIDATES[128]
    names = [tb.candidate_name("ws", c) for c in cands]
    assert tb.pick("ws", cands, []) == cands
    assert tb.pick("ws", cands, [names[3], names[0]]) == [cands[0], cands[3]]
    with pytest.raises(SystemExit, match="no ws candidate named"):
        tb.pick("ws", cands, [names[0], "ws(64, 9, 1, True) tma2"])
    assert tb.pick("fused", tb.FUSED_CANDIDATES[64], ["fused(128, 64, 8, 3, True)"]) == [(128, 64, 8, 3, True)]


def test_tune_rounds_rotate_the_order_and_keep_every_time():
    """tune_backward.time_rounds: each round times every run once, starting one run later each round; a run that
    raises keeps its error and is not timed again while the others go on; --rounds below 1 is a usage error."""
    from tools import tune_backward as tb
    calls = []

    def bench(fn):
        calls.append(fn())
        if calls[-1] == "c" and calls.count("c") == 2:
            raise RuntimeError("out of resources\nmore")
        return float(len(calls))
    got = tb.time_rounds({n: (lambda n=n: n) for n in "abc"}, 3, bench)
    # round 2 starts at b, round 3 at c, which raised in round 2 and is skipped
    assert calls == ["a", "b", "c", "b", "c", "a", "a", "b"]
    assert got == {"a": [1.0, 6.0, 7.0], "b": [2.0, 4.0, 8.0], "c": "RuntimeError: out of resources"}
    assert tb.time_rounds({}, 2, bench) == {}
    with pytest.raises(SystemExit):
        tb.main(["--kind", "ws", "--rounds", "0"])
