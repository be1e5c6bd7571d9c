"""FlashAttention-4 as a benchmark peer (flashviz/bench/peers.py): off a Hopper GPU it is recorded "unavailable"
with the reason, never a crash; on one (the `gpu` tests, where flash-attn-4 is installed: `.[fa4]`) its output and
gradients, handed back in our (B, H, N, d) layout, match float64 attention."""
import math

import pytest
import torch

from flashviz.bench import measure, peers, spec, variants_bench
from flashviz.bench.dataset import validate_dataset
from flashviz.bench.variants_dataset import validate_variants_dataset


def test_fa4_on_cpu_is_unavailable_with_a_reason():
    q = torch.randn(1, 2, 8, 16)
    assert peers.fa4_unavailable(q) == "FlashAttention-4 runs on NVIDIA GPUs only"
    cfg = dict(n=64, d=32, causal=True, dtype="float32", batch=1, heads=2, mode="fwd")
    cells = measure.measure_config(("naive", "fa4"), **cfg, device="cpu", warmup_ms=0.0, rep_ms=1.0, min_reps=2)
    fa4 = next(c for c in cells if c["impl"] == "fa4")
    assert fa4["status"] == "unavailable" and "NVIDIA GPUs" in fa4["message"] and fa4["ms"] is None
    naive = next(c for c in cells if c["impl"] == "naive")
    assert naive["status"] == "ok" and naive["speedup_vs_fa4"] is None


def test_a_sweep_with_fa4_makes_a_valid_dataset():
    s = spec.SweepSpec(grids=(spec.Grid(n=(32,), d=(16,), causal=(True,), dtype=("float32",), batch=(1,),
                                        heads=(1,), impls=("naive", "fa4"), mode=("fwd", "bwd")),),
                       warmup_ms=0.0, rep_ms=1.0, min_reps=2)
    data = measure.run_sweep(s, command="test")
    validate_dataset(data)
    assert {c["status"] for c in data["cells"] if c["impl"] == "fa4"} == {"unavailable"}
    assert "fa4" in spec.ALL_IMPLS and "fa4" in spec.PRESETS["h200-fa4"]["grids"][0].impls


def test_the_variants_bench_records_fa4_unavailable_on_cpu():
    data = variants_bench.run("cpu-variants", variants=("dense-causal", "alibi"))
    data["config"]["impls"] = list(data["config"]["impls"])
    validate_variants_dataset(data)
    cells = [c for c in data["cells"] if c["impl"] == "fa4"]
    assert cells == [] or all(c["status"] == "unavailable" for c in cells)


def _ref(q, k, v, causal, window=None, softcap=None):
    """float64 attention of (B, H, N, d) tensors, K/V heads repeated for GQA, bottom-right causal."""
    q, k, v = (t.double() for t in (q, k, v))
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    n = q.shape[2]
    i, j = torch.arange(n, device=q.device)[:, None], torch.arange(n, device=q.device)[None]
    mask = torch.ones(n, n, dtype=torch.bool, device=q.device)
    if causal:
        mask &= j <= i
    if window:
        mask &= j >= i - window[0]
    return torch.softmax(s.masked_fill(~mask, -math.inf), -1) @ v


def _fa4_here():
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    why = peers.fa4_unavailable(torch.empty(1, device="cuda", dtype=torch.float16))
    if why:
        pytest.skip(why)


@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
def test_fa4_runner_matches_float64(causal, d):
    _fa4_here()
    cfg = dict(n=1000, d=d, causal=causal, dtype="float16", batch=2, heads=4, mode="fwd+bwd")
    x = measure.make_inputs(cfg, seed=3, device="cuda")
    out, dq, dk, dv = peers.fa4_runner(x, cfg)()
    q, k, v = (x[n].detach().double().requires_grad_() for n in ("q", "k", "v"))
    ref = _ref(q, k, v, causal)
    want = torch.autograd.grad(ref, (q, k, v), x["dout"].double())
    assert out.shape == ref.shape and (out.double() - ref).abs().max() < 2e-2
    for got, w in zip((dq, dk, dv), want):
        assert got.shape == w.shape and (got.double() - w).norm() / w.norm() < 2e-2


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["window", "softcap", "gqa", "docs", "alibi"])
def test_fa4_variants_match_float64_rows(variant):
    _fa4_here()
    cfg = dict(batch=2, heads=4, d=128, dtype="float16", window=256, softcap=20.0, kv_heads=2)
    x = dict(variants_bench.make_inputs(variant, 2048, cfg, 0, "cuda"), variant=variant)
    if variant == "alibi":
        with pytest.raises(peers.Unavailable, match="ALiBi"):
            peers.fa4_variant_runner(x)
        return
    out = peers.fa4_variant_runner(x)()
    assert out.shape == x["q"].shape
    for hq, (rows, want) in variants_bench.reference(x).items():            # float64 rows of two heads
        got = out[0, hq, rows.to(out.device)].double().cpu()
        assert (got - want).norm() / want.norm() < 5e-3, (variant, hq)
