"""POLY (ws_switches.poly_default): at d = 64 one exponential in eight of an unmasked score tile by a cubic on the FMA
pipe. Its PTX (kernels/_ws_softmax.py POLY_ASM) executed instruction by instruction on numpy float32 against float64
2^x; the switch's default; the GPU files run with it forced (tests/kernels/test_ws_gpu.py under FLASHVIZ_WS_POLY=1)."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from flashviz_kernels import ws_switches

TUNE = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "tune"


def _run_ptx(asm: str, inputs: np.ndarray) -> np.ndarray:
    """POLY_ASM on rows of 8 float32 inputs ($8..$15) -> the 8 outputs ($0..$7): each statement of the opcodes it
    uses, in order, with float32 rounding (fma in float64 first: a float32 product is exact there)."""
    f32, u32 = np.float32, np.uint32
    regs = {f"${8 + i}": inputs[:, i].astype(f32) for i in range(8)}

    def val(tok):
        if tok.isdigit():
            return int(tok)
        if tok.startswith("0f"):
            return np.full(len(inputs), np.frombuffer(bytes.fromhex(tok[2:])[::-1], f32)[0], f32)
        return regs[tok]

    for stmt in filter(None, (t.strip() for t in re.split(r"[;{}]", asm))):
        op, rest = stmt.split(None, 1)
        if op == ".reg":
            continue
        args = [a.strip() for a in rest.split(",")]
        d, src = args[0], [val(a) for a in args[1:]]
        if op == "ex2.approx.ftz.f32":
            out = np.exp2(src[0].astype(np.float64)).astype(f32)
        elif op == "max.NaN.f32":
            out = np.where(np.isnan(src[0]) | np.isnan(src[1]), np.nan, np.maximum(src[0], src[1])).astype(f32)
        elif op == "add.rn.f32":
            out = (src[0] + src[1]).astype(f32)
        elif op == "sub.rn.f32":
            out = (src[0] - src[1]).astype(f32)
        elif op == "fma.rn.f32":
            out = (src[0].astype(np.float64) * src[1] + src[2]).astype(f32)
        elif op == "mov.b32":
            out = src[0]
        elif op == "shl.b32":
            out = (src[0].view(u32) << u32(src[1])).view(f32)
        elif op == "add.s32":
            out = (src[0].view(u32) + src[1].view(u32)).view(f32)
        else:
            raise AssertionError(f"an opcode this test does not run: {op}")
        regs[d] = out
    return np.stack([regs[f"${i}"] for i in range(8)], 1)


def test_poly_asm_matches_float64_on_an_unmasked_tiles_range():
    """Every value an unmasked score tile feeds it (x = s * scale - m <= 0; NaN where a score is NaN): the seven
    MUFU lanes as ex2, the eighth within 7.5e-5 relative of 2^x (the fit's bound, below fp16's 4.9e-4 rounding of
    P) down to -126, a positive value at most 2^-126 below (the clamp's), NaN for NaN."""
    sm = pytest.importorskip("flashviz_kernels._ws_softmax", reason="Gluon cannot be imported here")
    asm = sm.POLY_ASM.value
    assert sm.POLY_CONS.value.count("=f") == 8 and sm.POLY_CONS.value.count(",f") == 8
    rng = np.random.default_rng(0)
    x = np.concatenate([-rng.exponential(4.0, 4000), rng.uniform(-126, 0, 4000), np.linspace(-3, 0, 4001),
                        [0.0, -0.5, 0.5 - 1, -125.99, -126.0]]).astype(np.float32)
    x = x[: len(x) // 8 * 8].reshape(-1, 8)
    got = _run_ptx(asm, x).astype(np.float64)
    want = np.exp2(x.astype(np.float64))
    assert np.array_equal(got[:, :7], np.exp2(x[:, :7].astype(np.float64)).astype(np.float32))
    rel = np.abs(got[:, 7] - want[:, 7]) / want[:, 7]
    assert rel.max() < 7.5e-5 and rel.max() > 1e-6            # the cubic's error, not ex2's
    low = _run_ptx(asm, np.array([[-1.0] * 7 + [-300.0], [-1.0] * 7 + [np.nan]], np.float32))
    assert 0 < low[0, 7] <= 2.0 ** -126 and np.isnan(low[1, 7]) and np.all(low[:, :7] == 0.5)


def test_poly_timed_slower_on_an_h100_in_every_d64_cell_so_it_stays_off():
    """tools/device/d64_check.sh FLASHVIZ_WS_POLY ab (then named poly_check.sh) on an H100 under 3.8: two pairs of
    alternating processes, cuDNN in each; with POLY on ours ran slower against cuDNN in all four d = 64 cells of
    both pairs (ratios below 1, geometric means near 0.96); errors against the reference within 2e-3 on both sides
    (one cell's 6.1e-5 became 1.2e-4): the cubic's extra instructions cost more than the SFU cycles they free, so
    the SFU's cycles alone do not bound the trip."""
    from tools.fa4_rounds import ab
    rec = {(e, r): json.loads((TUNE / f"nvidia-h100-fwd-poly{e}-run{r}-triton38-2026-12-08.json").read_text())
           for e in (0, 1) for r in (1, 2)}
    assert all(v["device"].startswith("NVIDIA H100") and v["triton"] == "3.8.0" for v in rec.values())
    assert all(v["switches"] == {"FLASHVIZ_WS_POLY": str(e)} for (e, _), v in rec.items())
    for r in (1, 2):
        got = dict(ab(rec[0, r], rec[1, r], "sdpa-cudnn"))
        assert len(got) == 4 and all(0.9 < x < 0.98 for x in got.values()), got
        assert 0.94 < float(np.exp(np.mean(np.log(list(got.values()))))) < 0.97
        errs = [{(row["n"], row["causal"]): row["impls"]["fast"]["maxerr"] for row in rec[e, r]["rows"]}
                for e in (0, 1)]
        assert all(v < 2e-3 for e in errs for v in e.values()) and errs[0].keys() == errs[1].keys()


def test_poly_is_off_by_default_and_its_switch_reads_1_or_0(monkeypatch):
    """Timed slower, so on for no triton; FLASHVIZ_WS_POLY=1 turns it on, anything but 1 / 0 is a typed error."""
    monkeypatch.delenv(ws_switches.POLY_ENV, raising=False)
    assert ws_switches.POLY_TRITONS == () and not ws_switches.poly_default("3.8.0")
    monkeypatch.setenv(ws_switches.POLY_ENV, "1")
    assert ws_switches.poly_default("3.6.0") and ws_switches.poly_default("3.8.0")
    monkeypatch.setenv(ws_switches.POLY_ENV, "8")
    with pytest.raises(ws_switches.KernelInputError, match="FLASHVIZ_WS_POLY"):
        ws_switches.poly_default("3.8.0")


@pytest.mark.gpu
@pytest.mark.usefixtures("needs_ws")
@pytest.mark.parametrize("causal", [False, True])
def test_poly_forward_matches_float64_where_scores_span_past_2_to_the_126(causal):
    """With POLY on (tools/device/d64_check.sh FLASHVIZ_WS_POLY suite forces it for the process; skipped
    otherwise) the d = 64 forward against float64 on scores whose rows span more than 126 in log2 units (so the
    cubic's clamp is reached), and NaN-free output; test_ws_gpu.py's files run beside it under the same switch."""
    import torch

    import flashviz_kernels as fk
    from flashviz_kernels import _ws_softmax
    from helpers.attn_ref import attention_rows, check_close
    from helpers.gpu import EPS, make
    if not _ws_softmax.POLY.value:
        pytest.skip("POLY is off in this process (FLASHVIZ_WS_POLY=1 turns it on at import)")
    q, k, v = make(2, 3, 1500, 1500, 64, torch.float16, seed=50)
    q = q * 15.0                       # scores' sd about 15, so a row spans over 126 / log2(e) = 87 (the clamp)
    rows = torch.arange(1500)
    out, _ = fk.attention_with_lse(q, k, v, causal=causal, impl="ws")
    assert torch.isfinite(out).all()
    check_close(out[:, :, rows], attention_rows(q, k, v, rows, causal=causal),
                attention_rows(q, k, v, rows, causal=causal, dtype=q.dtype), EPS[q.dtype], f"poly causal={causal}")
