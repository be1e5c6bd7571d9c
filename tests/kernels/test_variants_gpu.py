"""The variants' matrix compiled on a GPU at larger N (ragged 1000 and 4093, and 4096), fp16 and bf16, the kernels'
own tile picks: outputs, LSE and gradients against the float64 reference (tests/helpers/variant_ref.py) with the usual
idiom max|x - x64| <= 2 * max|naive_same_dtype - x64| + eps; tiles run against FlexAttention's block mask.
Marker `gpu`: skipped without CUDA. The same checks at small N run in the interpreter (test_variants.py).
"""
import math

import pytest
import torch

import flashviz_kernels as fk
from helpers.attn_ref import check_close
from helpers.variant_inputs import DEV, EPS, GRAD_EPS, docs, make, slopes
from helpers.variant_ref import grads, mask, reference

pytestmark = pytest.mark.gpu


# name -> (b, h, h_kv, nq, nk, d, dtype, keywords builder)
CASES = {
    "window 4096": (1, 8, 8, 4096, 4096, 128, torch.float16, lambda b, n: dict(window=(256, 128))),
    "window+causal Nq<Nk": (1, 8, 8, 1000, 4093, 64, torch.bfloat16, lambda b, n: dict(window=(300, 0), causal=True)),
    "window dead rows Nq>Nk": (1, 8, 8, 4093, 1000, 64, torch.float16, lambda b, n: dict(window=(64, 0))),
    "docs+window+causal": (2, 8, 8, 4093, 4093, 64, torch.float16,
                           lambda b, n: dict(seq_ids=docs(b, n, 1), window=(512, -1), causal=True)),
    "docs": (2, 8, 8, 1000, 1000, 128, torch.bfloat16, lambda b, n: dict(seq_ids=docs(b, n, 2))),
    "softcap+alibi+GQA": (1, 16, 4, 4096, 4096, 128, torch.float16,
                          lambda b, n: dict(softcap=30.0, alibi_slopes=slopes(16))),
    "MQA causal alibi(B,H)": (2, 8, 1, 1000, 1000, 64, torch.bfloat16,
                              lambda b, n: dict(causal=True, alibi_slopes=slopes(8, b))),
    "softcap causal fp32": (1, 4, 2, 1000, 1000, 64, torch.float32, lambda b, n: dict(softcap=5.0, causal=True)),
}


@pytest.mark.parametrize("impl", ["teaching", "fast"])
@pytest.mark.parametrize("name", list(CASES))
def test_forward_gpu(name, impl):
    b, h, h_kv, nq, nk, d, dtype, build = CASES[name]
    q, k, v, _ = make(b, h, h_kv, nq, nk, d, dtype, seed=len(name))
    kw = build(b, nq)
    out64, lse64 = reference(q, k, v, **kw)
    naive = fk.attention(q, k, v, impl="naive", **kw)
    out, lse = fk.attention_with_lse(q, k, v, impl=impl, **kw)
    check_close(out, out64, naive, EPS[dtype], f"{impl} {name}")
    dead = torch.isneginf(lse64)
    assert torch.equal(torch.isneginf(lse), dead)
    assert torch.all(out[dead] == 0)
    assert torch.allclose(lse.double()[~dead], lse64[~dead], atol=2e-2 if dtype != torch.float32 else 1e-4)


@pytest.mark.parametrize("impl", ["teaching", "fast"])
@pytest.mark.parametrize("name", ["window+causal Nq<Nk", "docs+window+causal", "softcap+alibi+GQA",
                                  "MQA causal alibi(B,H)", "softcap causal fp32"])
def test_gradients_gpu(name, impl):
    b, h, h_kv, nq, nk, d, dtype, build = CASES[name]
    q, k, v, do = make(b, h, h_kv, nq, nk, d, dtype, seed=len(name) + 1)
    kw = build(b, nq)

    g64 = grads(lambda *xs: reference(*xs, **kw)[0], torch.float64, q, k, v, do)
    low = grads(lambda *xs: fk.attention(*xs, impl="naive", **kw), dtype, q, k, v, do)
    got = grads(lambda *xs: fk.attention(*xs, impl=impl, **kw), dtype, q, k, v, do)
    for name_, a, n_, r in zip("qkv", got, low, g64):
        assert a.dtype == dtype and a.shape == r.shape
        assert torch.isfinite(a).all(), f"d{name_} not finite"
        err, base = (a.double() - r).abs().max().item(), (n_.double() - r).abs().max().item()
        assert err <= 2 * base + GRAD_EPS[dtype], f"{impl} {name} d{name_}: {err:.3g} > 2 * {base:.3g}"


@pytest.mark.parametrize("bm,bn", [(64, 64), (128, 32)])
@pytest.mark.parametrize("name", ["window+causal Nq<Nk", "docs+window+causal", "window dead rows Nq>Nk"])
def test_tiles_run_gpu(name, bm, bn):
    from torch.nn.attention.flex_attention import create_block_mask
    b, h, h_kv, nq, nk, d, dtype, build = CASES[name]
    q, k, v, _ = make(b, 2, 2, nq, nk, 64, torch.float16, seed=3)
    kw = build(b, nq)
    ok = mask(b, nq, nk, causal=kw.get("causal", False), window=kw.get("window"), seq_ids=kw.get("seq_ids"),
              device=DEV)
    padded = torch.zeros(b, -(-nq // bm) * bm, -(-nk // bn) * bn, dtype=torch.bool, device=DEV)
    padded[:, :nq, :nk] = ok[:, 0]
    blocks = create_block_mask(lambda b_, h_, q_, k_: padded[b_, q_, k_], B=b, H=None, Q_LEN=nq, KV_LEN=nk,
                               device=DEV, BLOCK_SIZE=(bm, bn))
    want = (blocks.kv_num_blocks + blocks.full_kv_num_blocks)[:, 0].long()
    out, tr = fk.attention_trace(q, k, v, block_m=bm, block_n=bn, **kw)
    assert tr.tiles_run.shape == (b, 2, math.ceil(nq / bm))
    assert torch.equal(tr.tiles_run.long(), want[:, None].expand(b, 2, -1))
    check_close(out, reference(q, k, v, **kw)[0], fk.attention(q, k, v, impl="naive", **kw), EPS[torch.float16],
                f"trace {name}")


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("impl", ["teaching", "fast"])
def test_non_finite_kv_head_gpu(impl):
    q, k, v, _ = make(2, 8, 2, 4093, 4093, 64, torch.float16, seed=5)
    k[0, 1], v[0, 1] = float("inf"), float("nan")                              # kv head 1 of batch 0
    kw = dict(window=(200, 50), alibi_slopes=slopes(8), softcap=20.0)
    out = fk.attention(q, k, v, impl=impl, **kw)
    ref, _ = reference(q[:1, :4], k[:1, :1], v[:1, :1], window=(200, 50), alibi_slopes=slopes(8)[:4], softcap=20.0)
    naive = fk.attention(q[:1, :4], k[:1, :1], v[:1, :1], impl="naive", window=(200, 50),
                         alibi_slopes=slopes(8)[:4], softcap=20.0)
    assert torch.isfinite(out[:1, :4]).all() and torch.isfinite(out[1]).all()
    check_close(out[:1, :4], ref, naive, EPS[torch.float16], impl)


def test_sdpa_variants_gpu():
    """SDPA takes window / documents / ALiBi as attn_mask and GQA through enable_gqa; softcap it cannot."""
    b, h, h_kv, nq, nk, d, dtype, build = CASES["MQA causal alibi(B,H)"]
    q, k, v, _ = make(b, h, h_kv, nq, nk, d, dtype, seed=4)
    kw = build(b, nq)
    check_close(fk.attention(q, k, v, impl="sdpa", **kw), reference(q, k, v, **kw)[0],
                fk.attention(q, k, v, impl="naive", **kw), EPS[dtype], "sdpa")
    with pytest.raises(fk.KernelUnavailable):
        fk.attention(q, k, v, impl="sdpa", softcap=10.0)
