"""Attention variants (window, causal, packed documents, ALiBi, softcap, GQA/MQA) against an independent float64
reference (tests/helpers/variant_ref.py), on small shapes in Triton's interpreter. Idiom per output and gradient:
max|x - x64| <= 2 * max|naive_same_dtype - x64| + eps. Tile counts against FlexAttention's create_block_mask
and a plain loop over the dense mask. Larger shapes: test_variants_gpu.py (marker `gpu`).
"""
import math

import numpy as np
import pytest
import torch

import flashviz_kernels as fk
from flashviz_kernels import variants
from helpers.attn_ref import check_close
from helpers.variant_ref import block_counts, grads, mask, reference
from flashviz.i18n.errors import message

DEV = "cuda" if torch.cuda.is_available() else "cpu"
EPS = {torch.float32: 1e-5, torch.float16: 2e-3}
GRAD_EPS = {torch.float32: 3e-6, torch.float16: 2e-3}


def docs(b: int, n: int, lengths) -> torch.Tensor:
    """(B, N) non-decreasing ids: documents of the given lengths (the last one takes the rest)."""
    ids = torch.empty(b, n, dtype=torch.int64)
    for bi in range(b):
        start = 0
        for doc, ln in enumerate(lengths[bi] if isinstance(lengths[0], (list, tuple)) else lengths):
            ids[bi, start:start + ln] = doc + 10 * bi
            start += ln
        ids[bi, start:] = ids[bi, start - 1] + 1 if start < n else ids[bi, start:]
    return ids.to(DEV)


def make(b, h, h_kv, nq, nk, d, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    mk = lambda *s: torch.randn(s, generator=g).to(DEV, dtype)  # noqa: E731
    return mk(b, h, nq, d), mk(b, h_kv, nk, d), mk(b, h_kv, nk, d), mk(b, h, nq, d)


# (b, h, h_kv, nq, nk, d, dtype, variant keywords): every variant alone and the combinations the brief names
CASES = {
    "window": (1, 2, 2, 130, 130, 16, torch.float32, dict(window=(16, 8))),
    "window+causal Nq<Nk": (1, 2, 2, 64, 100, 16, torch.float16, dict(window=(20, 7), causal=True)),
    "window, dead rows Nq>Nk": (1, 2, 2, 100, 40, 16, torch.float32, dict(window=(8, 0))),
    "docs+window+causal": (2, 2, 2, 130, 130, 16, torch.float32,
                           dict(seq_ids=((40, 1, 60), (100,)), window=(24, -1), causal=True)),
    "softcap+alibi+GQA": (1, 4, 2, 100, 100, 32, torch.float16, dict(softcap=2.0, alibi=(4,))),
    "MQA causal alibi(B,H)": (2, 4, 1, 17, 100, 16, torch.float32, dict(causal=True, alibi=(2, 4))),
    "softcap docs": (1, 2, 2, 17, 17, 16, torch.float32, dict(softcap=0.5, seq_ids=((5, 5),))),
}


def keywords(spec: dict, b: int, nq: int) -> dict:
    kw = dict(spec)
    if "seq_ids" in kw:
        kw["seq_ids"] = docs(b, nq, kw["seq_ids"])
    if "alibi" in kw:
        shape = kw.pop("alibi")
        kw["alibi_slopes"] = (2.0 ** -torch.arange(1, math.prod(shape) + 1, dtype=torch.float32)).view(shape).to(DEV)
    return kw


@pytest.mark.parametrize("name", list(CASES))
def test_forward_matches_float64(name):
    b, h, h_kv, nq, nk, d, dtype, spec = CASES[name]
    q, k, v, _ = make(b, h, h_kv, nq, nk, d, dtype, seed=len(name))
    kw = keywords(spec, b, nq)
    out64, lse64 = reference(q, k, v, **kw)
    naive, naive_lse = fk.attention_with_lse(q, k, v, impl="naive", **kw)
    check_close(naive, out64, naive, EPS[dtype], f"naive {name}")          # naive itself: within eps of float64
    for impl in ("teaching", "fast"):
        out, lse = fk.attention_with_lse(q, k, v, impl=impl, block_m=32, block_n=32, **kw)
        assert out.shape == q.shape and out.dtype == dtype
        check_close(out, out64, naive, EPS[dtype], f"{impl} {name}")
        dead = torch.isneginf(lse64)
        assert torch.equal(torch.isneginf(lse), dead), f"{impl} {name}: -inf lse rows"
        assert torch.all(out[dead] == 0)
        lse_err = (lse.double() - lse64)[~dead].abs().max().item()
        base = (naive_lse.double() - lse64)[~dead].abs().max().item()
        assert lse_err <= 2 * base + EPS[dtype], (impl, name, lse_err, base)
    if "softcap" in kw:
        with pytest.raises(fk.KernelUnavailable, match="softcap"):
            fk.attention(q, k, v, impl="sdpa", **kw)
    else:
        sd = fk.attention(q, k, v, impl="sdpa-math" if dtype == torch.float32 else "sdpa", **kw)
        check_close(sd, out64, naive, EPS[dtype], f"sdpa {name}")


def test_dead_rows_exist_in_the_dead_row_case():
    """The 'dead rows' case really has rows that see no key (else its zero/-inf checks would check nothing)."""
    ok = mask(1, 100, 40, window=(8, 0))
    assert (~ok.any(-1)).sum().item() == 60


GRAD_CASES = ["window+causal Nq<Nk", "docs+window+causal", "softcap+alibi+GQA", "MQA causal alibi(B,H)",
              "window, dead rows Nq>Nk"]


@pytest.mark.parametrize("impl", ["teaching", "fast"])
@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradients_match_float64_autograd(name, impl):
    b, h, h_kv, nq, nk, d, dtype, spec = CASES[name]
    q, k, v, do = make(b, h, h_kv, nq, nk, d, dtype, seed=len(name) + 1)
    kw = keywords(spec, b, nq)

    g64 = grads(lambda *xs: reference(*xs, **kw)[0], torch.float64, q, k, v, do)
    low = grads(lambda *xs: fk.attention(*xs, impl="naive", **kw), dtype, q, k, v, do)
    got = grads(lambda *xs: fk.attention(*xs, impl=impl, block_m=32, block_n=32, **kw), dtype, q, k, v, do)
    for name_, a, n_, r in zip("qkv", got, low, g64):
        assert a.dtype == dtype and a.shape == r.shape, name_
        assert torch.isfinite(a).all(), f"d{name_} not finite"
        err, base = (a.double() - r).abs().max().item(), (n_.double() - r).abs().max().item()
        assert err <= 2 * base + GRAD_EPS[dtype], f"{impl} {name} d{name_}: {err:.3g} > 2 * {base:.3g}"


# ------------------------------------------------------------------------------------------- tile counts

TILE_CASES = [  # (b, nq, nk, br, bc, keywords)
    (1, 130, 130, 32, 32, dict(window=(16, 8))),
    (1, 64, 200, 32, 64, dict(window=(40, 5), causal=True)),
    (1, 100, 40, 32, 32, dict(window=(8, 0))),
    (2, 256, 256, 64, 32, dict(seq_ids=((40, 1, 100), (200,)), window=(50, -1), causal=True)),
    (1, 200, 200, 64, 64, dict(causal=True)),
    (1, 100, 70, 32, 32, dict()),
]


def flex_counts(ok: torch.Tensor, br: int, bc: int) -> torch.Tensor:
    """FlexAttention's non-empty blocks per (B, query block): kv_num_blocks + full_kv_num_blocks."""
    from torch.nn.attention.flex_attention import create_block_mask
    b, _, nq, nk = ok.shape
    padded = torch.zeros(b, -(-nq // br) * br, -(-nk // bc) * bc, dtype=torch.bool)
    padded[:, :nq, :nk] = ok[:, 0].cpu()
    bm = create_block_mask(lambda b_, h_, q_, k_: padded[b_, q_, k_], B=b, H=None, Q_LEN=nq, KV_LEN=nk,
                           device="cpu", BLOCK_SIZE=(br, bc))
    return (bm.kv_num_blocks + bm.full_kv_num_blocks)[:, 0].long(), bm.full_kv_num_blocks[:, 0].long()


@pytest.mark.parametrize("case", range(len(TILE_CASES)))
def test_tiles_run_match_flex_block_mask(case):
    b, nq, nk, br, bc, spec = TILE_CASES[case]
    kw = keywords(spec, b, nq)
    ok = mask(b, nq, nk, causal=kw.get("causal", False), window=kw.get("window"), seq_ids=kw.get("seq_ids"))
    flex_run, flex_full = flex_counts(ok, br, bc)
    run, full = block_counts(ok, br, bc)                                 # the rule, by plain loops
    assert torch.equal(run, flex_run) and torch.equal(full, flex_full)
    h = 2
    q, k, v, _ = make(b, h, h, nq, nk, 16, torch.float32, seed=case)
    out, tr = fk.attention_trace(q, k, v, block_m=br, block_n=bc, **kw)
    assert tr.tiles_run.shape == (b, h, math.ceil(nq / br)) and tr.tiles_run.dtype == torch.int32
    assert torch.equal(tr.tiles_run.long().cpu(), flex_run[:, None].expand(b, h, -1))
    # which tiles ran: the trace of a row is NaN exactly at the tiles its block skipped
    tc = math.ceil(nk / bc)
    blk = ok.cpu()
    for bi in range(b):
        for i in range(math.ceil(nq / br)):
            ran = torch.tensor([bool(blk[bi, 0, i * br:(i + 1) * br, t * bc:(t + 1) * bc].any()) for t in range(tc)])
            row = i * br
            assert torch.equal(~torch.isnan(tr.m[bi, 1, row].cpu()), ran), (bi, i)
    # the host-side classification the kernels use: run and full tiles per block, and the dK/dV (key) view
    var = variants.parse(q, k, causal=kw.get("causal", False), window=kw.get("window"), seq_ids=kw.get("seq_ids"))
    _, rng = variants.tables(var, nq, nk, q.device, br, bc)
    rng = rng.long().cpu().expand(b, -1, -1)
    assert torch.equal(rng[..., 3] - rng[..., 0], flex_run) and torch.equal(rng[..., 2] - rng[..., 1], flex_full)
    _, by_key = variants.tables(var, nq, nk, q.device, br, bc, by_key=True)
    key_run, key_full = flex_counts(ok.transpose(-1, -2), bc, br)
    by_key = by_key.long().cpu().expand(b, -1, -1)
    assert torch.equal(by_key[..., 3] - by_key[..., 0], key_run)
    assert torch.equal(by_key[..., 2] - by_key[..., 1], key_full)
    check_close(out, reference(q, k, v, **kw)[0], fk.attention(q, k, v, impl="naive", **kw), 1e-5, "trace out")


def test_tile_rule_random_configurations():
    """The host-side classification (run / full tiles per query block, and per key block for dK/dV) equals a plain
    loop over the dense mask for random windows, documents, lengths and tiles (odd tiles too: the teaching
    kernel takes any Br, Bc in the interpreter), and each key's rows (key_bounds, the ws backward's mask) are
    exactly the mask's column. No kernel runs here, so many cases are cheap."""
    rng = np.random.default_rng(0)
    for _ in range(60):
        b = int(rng.integers(1, 3))
        nq = int(rng.integers(1, 120))
        nk = nq if rng.random() < 0.5 else int(rng.integers(1, 120))
        br, bc = (int(x) for x in rng.choice([3, 7, 16, 32, 48], 2))
        window = None if rng.random() < 0.3 else tuple(int(x) for x in rng.integers(-1, 40, 2))
        causal = bool(rng.random() < 0.4)
        ids = None
        if nq == nk and rng.random() < 0.5:
            ids = torch.from_numpy(np.sort(rng.integers(0, 5, (b, nq)), axis=1)).to(DEV)
        q = torch.zeros(b, 1, nq, 16, device=DEV)
        k = torch.zeros(b, 1, nk, 16, device=DEV)
        var = variants.parse(q, k, causal=causal, window=window, seq_ids=ids)
        ok = mask(b, nq, nk, causal=causal, window=window, seq_ids=ids)
        what = (b, nq, nk, br, bc, window, causal, ids is not None)
        kb = variants.key_bounds(var, nq, nk, q.device)          # per key, the rows that see it: one interval
        assert kb.dtype == torch.int32 and kb.is_contiguous() and kb.shape[1:] == (nk, 2)
        kb = kb.long().cpu().expand(b, -1, -1)
        i = torch.arange(nq)[None, :, None]
        assert torch.equal((i >= kb[:, None, :, 0]) & (i <= kb[:, None, :, 1]), ok[:, 0].cpu()), what
        for by_key, dense, bm, bn in ((False, ok, br, bc), (True, ok.transpose(-1, -2), bc, br)):
            run, full = block_counts(dense.cpu(), bm, bn)
            _, rng_ = variants.tables(var, nq, nk, q.device, br, bc, by_key=by_key)
            rng_ = rng_.long().cpu().expand(b, -1, -1)
            assert torch.equal(rng_[..., 3] - rng_[..., 0], run), (what, by_key)
            assert torch.equal(rng_[..., 2] - rng_[..., 1], full), (what, by_key)
            lo, f_lo, f_hi, hi = rng_.unbind(-1)
            assert torch.all((lo <= f_lo) & (f_lo <= f_hi) & (f_hi <= hi))
            for bi in range(b):                                     # the run tiles are exactly [lo, hi)
                for i in range(run.shape[1]):
                    for t in range(-(-dense.shape[-1] // bn)):
                        blk = dense[bi, 0, i * bm:(i + 1) * bm, t * bn:(t + 1) * bn].cpu()
                        assert bool(blk.any()) == bool(lo[bi, i] <= t < hi[bi, i]), (what, by_key, i, t)
                        if f_lo[bi, i] <= t < f_hi[bi, i]:
                            assert bool(blk.all()) and blk.shape == (bm, bn), (what, by_key, i, t)


def test_masked_variants_skip_tiles():
    """A window of 16 keys over N = 256 with 32 x 32 tiles runs 2 tiles per block (3 for the ones straddling two
    tiles), not 8: the kernels do skip."""
    q, k, v, _ = make(1, 1, 1, 256, 256, 16, torch.float32, seed=0)
    _, tr = fk.attention_trace(q, k, v, block_m=32, block_n=32, window=(16, 0))
    assert tr.tiles_run[0, 0].tolist() == [1] + [2] * 7


# ------------------------------------------------------------------------------------- heads are independent

@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("impl", ["teaching", "fast"])
def test_non_finite_kv_head_does_not_leak_into_other_groups(impl):
    """GQA: inf/NaN in kv head 1 poisons query heads 2, 3 only; heads 0, 1 (kv head 0) stay exact."""
    q, k, v, _ = make(1, 4, 2, 100, 100, 16, torch.float32, seed=9)
    k[0, 1], v[0, 1] = float("inf"), float("nan")
    kw = dict(window=(30, 10), alibi_slopes=torch.full((4,), 0.1, device=DEV), softcap=5.0)
    out = fk.attention(q, k, v, impl=impl, block_m=32, block_n=32, **kw)
    ref, _ = reference(q[:, :2], k[:, :1], v[:, :1], alibi_slopes=kw["alibi_slopes"][:2], window=kw["window"],
                       softcap=5.0)
    assert torch.isfinite(out[:, :2]).all()
    assert (out[:, :2].double() - ref).abs().max().item() < 1e-5


# ------------------------------------------------------------------------------------------------ errors

def test_bad_variant_inputs_raise_typed_errors():
    q, k, v, _ = make(2, 4, 2, 16, 16, 16, torch.float32, seed=0)
    ids = torch.zeros(2, 16, dtype=torch.int64, device=DEV)
    bad = [
        (fk.KernelInputError, "kernel_window", dict(window=(3,))),
        (fk.KernelInputError, "kernel_window", dict(window=(-2, 0))),
        (fk.KernelInputError, "kernel_window", dict(window=(1.5, 0))),
        (fk.KernelInputError, "kernel_window", dict(window="ab")),
        (fk.KernelInputError, "kernel_alibi_shape", dict(alibi_slopes=torch.ones(3, device=DEV))),
        (fk.KernelInputError, "kernel_alibi_shape", dict(alibi_slopes=torch.ones(4, 2, device=DEV))),
        (fk.KernelTypeError, "kernel_alibi_type", dict(alibi_slopes=torch.ones(4, dtype=torch.int64, device=DEV))),
        (fk.KernelTypeError, "kernel_alibi_type", dict(alibi_slopes=[0.1] * 4)),
        (fk.KernelInputError, "kernel_alibi_finite",
         dict(alibi_slopes=torch.tensor([0.1, math.nan, 0.1, 0.1], device=DEV))),
        (fk.KernelInputError, "kernel_softcap", dict(softcap=0.0)),
        (fk.KernelInputError, "kernel_softcap", dict(softcap=-1.0)),
        (fk.KernelInputError, "kernel_softcap", dict(softcap=math.inf)),
        (fk.KernelTypeError, "kernel_softcap", dict(softcap=True)),
        (fk.KernelTypeError, "kernel_softcap", dict(softcap="1")),
        (fk.KernelTypeError, "kernel_seq_type", dict(seq_ids=ids.float())),
        (fk.KernelTypeError, "kernel_seq_type", dict(seq_ids=ids.bool())),
        (fk.KernelInputError, "kernel_seq_shape", dict(seq_ids=ids[:, :8])),
        (fk.KernelInputError, "kernel_seq_shape", dict(seq_ids=ids[:1])),
        (fk.KernelInputError, "kernel_seq_order", dict(seq_ids=torch.tensor([[0] * 8 + [1] * 8, [1] * 8 + [0] * 8],
                                                                            device=DEV))),
    ]
    for impl in ("naive", "teaching", "fast"):
        for err, key, kw in bad:
            with pytest.raises(err) as info:
                fk.attention(q, k, v, impl=impl, **kw)
            assert info.value.key == key, (impl, kw, info.value.key)
            zh = message(info.value, "zh")                                # translated, every parameter filled
            assert "{" not in zh and zh != message(info.value, "en"), zh
    with pytest.raises(fk.KernelInputError) as info:                                   # H % H_kv != 0
        fk.attention(q[:, :3], k, v, impl="teaching")
    assert info.value.key == "kernel_gqa_heads"
    with pytest.raises(fk.KernelInputError) as info:                                   # seq_ids needs Nq == Nk
        fk.attention(q[:, :, :8], k, v, impl="fast", seq_ids=ids)
    assert info.value.key == "kernel_seq_lengths"
    with pytest.raises(fk.KernelInputError, match="agree in B, H and d"):             # more kv heads than q heads
        fk.attention(k, q, q, impl="fast")
    for call in (lambda: fk.attention_trace(q, k, v, block_m=16, block_n=16, window=(-3, 0)),
                 lambda: fk.attention_with_lse(q, k, v, impl="fast", softcap=-2.0)):
        with pytest.raises(fk.KernelInputError):
            call()
    variant = variants.parse(q, k, causal=True, window=(np.int64(4), 7))               # numpy ints are fine
    assert (variant.left, variant.right, variant.groups) == (4, 0, 2)
    with pytest.raises(AttributeError):                                                # the spec is immutable
        variant.left = 3


def test_variant_owns_its_tensors():
    """Transposed (B, H) slopes count as (B, H), and the variant keeps its own copies: changing the caller's
    slopes or ids after the forward changes neither the output nor the gradients of that call."""
    q, k, v, do = make(2, 2, 2, 17, 17, 16, torch.float32, seed=4)
    slopes_t = torch.tensor([[0.5, 0.1], [0.25, 0.05]], device=DEV).T                  # (B, H), not contiguous
    ids = docs(2, 17, ((5, 5), (9,)))
    kw64 = dict(alibi_slopes=slopes_t.contiguous(), seq_ids=ids.clone(), causal=True)
    xs = [x.detach().clone().requires_grad_() for x in (q, k, v)]
    out = fk.attention(*xs, impl="fast", block_m=32, block_n=32, alibi_slopes=slopes_t, seq_ids=ids, causal=True)
    slopes_t.mul_(10)
    ids.zero_()
    out.backward(do)
    x64 = [x.detach().double().requires_grad_() for x in (q, k, v)]
    ref, _ = reference(*x64, **kw64)
    ref.backward(do.double())
    assert (out.detach().double() - ref.detach()).abs().max().item() < 1e-5
    for a, r in zip(xs, x64):
        assert (a.grad.double() - r.grad).abs().max().item() < 1e-5
