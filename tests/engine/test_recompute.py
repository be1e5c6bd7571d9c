"""flashviz.engine.recompute: the closed forms, the matmul counts and the demo (interpreter)."""
import pytest

from flashviz.engine import recompute as rc
from flashviz.infra.errors import InputError


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
