"""flashviz.engine.recompute: the closed forms, the matmul counts, the recorded-cell views and the demo (interpreter)."""
from pathlib import Path

import pytest

from flashviz.engine import recompute as rc
from flashviz.bench import load_dataset
from flashviz.infra.errors import InputError

DATA = Path(__file__).resolve().parents[1] / "assets" / "benchmarks"
TRAIN, FWD = DATA / "nvidia-h200-train-2026-11-29.json", DATA / "nvidia-h200-fwd-2026-11-29.json"


def test_stored_closed_forms():
    rows = {r.name: r for r in rc.stored_tensors(8192, 128, "bfloat16", 4, 32)}
    assert rows["S"].bytes == rows["P"].bytes == 4 * 32 * 8192 ** 2 * 2 == 16 * 2 ** 30
    assert rows["O"].bytes == 4 * 32 * 8192 * 128 * 2 and rows["LSE"].bytes == 4 * 32 * 8192 * 4
    naive, flash, ratio = rc.stored_totals(list(rows.values()))
    assert (naive, flash) == (32 * 2 ** 30, 4 * 32 * 8192 * (128 * 2 + 4)) and ratio == pytest.approx(
        2 * 8192 * 2 / 260)
    # the seed's numbers: S and P in float32, one head: N = 8K -> 512 MB, N = 64K -> 32 GB
    assert rc.stored_totals(rc.stored_tensors(8192, 64, "float32", 1, 1))[0] == 512 * 2 ** 20
    assert rc.stored_totals(rc.stored_tensors(65536, 64, "float32", 1, 1))[0] == 32 * 2 ** 30


@pytest.mark.parametrize("args, msg", [((0, 64, "float16", 1, 1), "N must be in"),
                                       ((16, 300, "float16", 1, 1), "head dim d must be in"),
                                       ((16, 64, "int8", 1, 1), "dtype must be one of"),
                                       ((16, 64, "float16", 0, 1), "batch B"), ((16, 64, "float16", 1, 1.5), "heads H")])
def test_stored_bad_input(args, msg):
    with pytest.raises(InputError, match=msg):
        rc.stored_tensors(*args)


def test_matmuls_and_the_trade():
    rows = {r["key"]: r for r in rc.matmul_rows(4096, 64, False, 4, 32)}
    one = 2 * 4 * 32 * 4096 ** 2 * 64
    assert [rows[k]["flops"] for k in ("fwd", "bwd_stored", "bwd_recompute", "bwd_ours")] == [2 * one, 4 * one,
                                                                                              5 * one, 7 * one]
    tr = rc.trade(4096, 64, "float16", False, 4, 32)
    assert tr["extra_flops"] == one and tr["io_bytes"] == 2 * 4 * 32 * 4096 ** 2 * 2
    assert tr["flops_per_byte"] == 32 and tr["bwd_extra"] == pytest.approx(0.25)
    assert tr["step_extra"] == pytest.approx(1 / 6)
    assert tr["extra_ms"] < tr["io_ms"]                      # recomputing is cheaper than the IO it avoids


def test_training_view_nearest_and_same():
    ds = load_dataset(TRAIN)
    v = rc.training_view(ds, n=16, d=4, causal=False, dtype="float32", batch=4, heads=32)
    assert (v["config"]["n"], v["config"]["d"], v["config"]["dtype"], v["same"]) == (4096, 64, "float16", False)
    assert {c["mode"] for c in v["bwd"]} == {"bwd"} and {c["mode"] for c in v["step"]} == {"fwd+bwd"}
    assert sorted({c["n"] for c in v["curve"]}) == [4096, 8192, 16384] and len(v["curve"]) == 15
    assert rc.training_view(ds, n=16384, d=128, causal=True, dtype="float16", batch=4, heads=32)["same"]
    with pytest.raises(InputError, match="no training cells"):
        rc.training_view(load_dataset(FWD), n=4096, d=64, causal=False, dtype="float16", batch=4, heads=32)


def test_times_rows_and_summary():
    ds = load_dataset(TRAIN)
    v = rc.training_view(ds, n=16384, d=64, causal=False, dtype="float16", batch=4, heads=32)
    rows = {r["impl"]: r for r in rc.times_rows(v["bwd"], v["step"])}
    assert rows["naive"]["status"] == "oom" and rows["naive"]["bwd_ms"] is None and rows["naive"]["ref_vs_bwd"] is None
    fast = next(c for c in v["bwd"] if c["impl"] == "fast")
    assert rows["sdpa-flash"]["ref_vs_bwd"] == pytest.approx(fast["speedup_vs_flash"])
    s = rc.speed_summary(ds)
    assert set(s) == {64, 128}
    assert s[64]["flash"][0] > 1.0 and s[128]["flash"][0] > 1.0          # the data as recorded on the H200


def test_demo_checks_its_caps():
    with pytest.raises(InputError, match="the demo's N on CPU"):
        rc.check_demo(129, 16, "float32", "cpu")
    with pytest.raises(InputError, match="the demo's head dim d"):
        rc.check_demo(64, 65, "float32", "cpu")
    assert rc.check_demo(4096, 256, "float16", "cuda") == (4096, 256)
    with pytest.raises(InputError, match="'teaching' or 'fast'"):
        rc.run_demo(16, 4, False, "float32", 0, impl="naive")
    with pytest.raises(InputError, match="multiple of 16 bytes"):            # the kernel's own message
        rc.run_demo(16, 4, False, "float16", 0, impl="fast")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_demo_gradients_and_saved_tensors(dtype):
    r = rc.run_demo(48, 16, True, dtype, 3, "teaching")
    assert all(r.within(k) for k in ("dQ", "dK", "dV"))
    e = rc.ELEM_BYTES[dtype]
    ours = [s for s in r.saved if s.path == "ours"]
    assert [s.role for s in ours] == ["input"] * 3 + ["output", "new"]
    assert ours[-1].kind == "N" and ours[-1].bytes == 48 * 4 and r.new_bytes("ours") == 48 * 4
    naive_new = [s for s in r.saved if s.path == "naive" and s.role == "new"]
    assert {s.kind for s in naive_new} == {"N×N", "N×d", "mask N×N"}           # P, q·scale, the causal mask
    assert r.new_bytes("naive") == 48 * 48 * e + 48 * 16 * e + 48 * 48


def test_which_backward_kernel_a_recording_ran():
    """Read from the recording's provenance rule (flashviz.bench writes it); teaching and fast share it."""
    from flashviz.engine import recompute as rc
    new = ("auto: ws (Gluon, 5 matmuls, TMA dQ) for plain/causal d in (64, 128), else fused (5 matmuls) for "
           "d <= 64, reference (7 matmuls) above, on sm_90")
    old = "auto: fused (5 matmuls) for d <= 64, reference (7 matmuls) above, on sm_90"
    assert [rc.backward_kernel(new, d) for d in (32, 64, 96, 128, 256)] == ["fused", "ws", "reference", "ws",
                                                                           "reference"]
    assert [rc.backward_kernel(old, d) for d in (64, 128)] == ["fused", "reference"]
    assert rc.backward_kernel(None, 64) is None and rc.backward_kernel("", 64) is None
    cells = [dict(impl="teaching", status="ok", ms=5.78), dict(impl="fast", status="ok", ms=5.777)]
    assert rc.same_backward_noise(cells) == pytest.approx(0.003 / 5.777)
    assert rc.same_backward_noise(cells[:1]) is None
