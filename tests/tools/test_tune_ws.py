"""tools/tune_ws.py's summary without a GPU: each persistent schedule over its one-tile twin, three consumers
over the fastest two, and its three-consumer candidates fit sm_90's shared memory."""
import pytest

from flashviz_kernels import ws


def test_tune_summary_compares_each_schedule_with_its_one_tile_twin(capsys):
    """tune_ws's summary: persistent / one-tile of the same switches and N, the spread over rounds."""
    pytest.importorskip("triton")
    from tools import tune_ws
    base = dict(n=8192, d=128, causal=True, block_n=128, stages=2, overlap=False, pingpong=False, cudnn_ms=4.0,
                fast_ms=4.4, groups=None)
    tune_ws.report([dict(base, persistent=False, ms=4.0, ms_all=[4.0, 4.2]),
                     dict(base, persistent=True, ms=3.6, ms_all=[3.5, 3.6, 3.7]),
                     dict(base, pingpong=True, persistent=True, ms=3.0, ms_all=[3.0])])
    out = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert "pers/one 0.900" in out[2] and "grp=auto" in out[2] and "[3.500-3.700]" in out[2]
    assert "x1.111 cudnn" in out[2]
    assert "pers/one" not in out[1] and "[4.000-4.200]" in out[1] and "grp" not in out[1]
    assert "pers/one" not in out[3]                      # no one-tile run with pingpong on to compare with


def test_tune_summary_compares_three_consumers_with_the_fastest_two(capsys):
    """tune_ws --variants consumers: each NC=3 row over the fastest NC=2 row of its cell and schedule."""
    pytest.importorskip("triton")
    from tools import tune_ws
    base = dict(n=8192, d=64, causal=False, block_n=128, stages=2, overlap=False, pingpong=False, cudnn_ms=4.8,
                fast_ms=5.2, groups=None, persistent=False)
    tune_ws.report([dict(base, consumers=2, ms=5.0, ms_all=[5.0]),
                     dict(base, consumers=2, stages=3, ms=4.0, ms_all=[4.0]),
                     dict(base, consumers=3, ms=4.4, ms_all=[4.4]),
                     dict(base, consumers=3, persistent=True, ms=4.2, ms_all=[4.2])])
    out = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert "NC=2" in out[1] and "nc3/nc2" not in out[1] and "nc3/nc2" not in out[2]
    assert "NC=3" in out[3] and "nc3/nc2 1.100" in out[3] and "x1.091 cudnn" in out[3]
    assert "nc3/nc2" not in out[4] and "pers/one 0.955" in out[4]    # no persistent NC=2 run to compare with
    for d, cands in tune_ws.NC3_CANDIDATES.items():                  # each fits sm_90's shared memory
        assert all(ws.smem_bytes(d, bn, st, True, 2, 3) <= ws.SMEM_BYTES for bn, st, _, _ in cands)
        assert not any(ov and bn > 64 for bn, _, ov, _ in cands)      # OVERLAP at bn=128 spills at 160 registers
