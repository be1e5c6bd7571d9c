"""Recomputation in numbers (no streamlit): what each path keeps for the backward pass, what the backward's
matmuls cost, and a small demo that runs our Triton backward and counts the bytes autograd saved.

stored_tensors(n, d, dtype, batch, heads)   S, P (N x N each) that standard attention keeps (the seed's picture)
                                            vs O (N x d) and the log-sum-exp (N, fp32) that FlashAttention keeps
matmul_rows(n, d, causal, batch, heads)     FLOPs of the forward (2 matmuls per tile), a backward that reads P
                                            back (4), one that recomputes S and P (5: the usual 2.5x), and our teaching
                                            (7: two kernels, no atomics, each recomputing S and dP)
run_demo(...)                               dQ, dK, dV of our kernel and of naive autograd vs float64 autograd,
                                            and every tensor autograd saved (saved_tensors_hooks), per path
torch and the kernels load lazily (only the demo needs them).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..infra.errors import InputError, check_int
from ..infra.units import ELEM_BYTES, KERNEL_DTYPES

LSE_BYTES = 4                              # the log-sum-exp is float32 whatever the inputs
MAX_N, MAX_D, MAX_BH = 1 << 20, 256, 1 << 16
# H200 ceilings measured on the reference H200 on 2026-11-29: dense bf16 matmul, device-to-device copy
H200_FLOPS, H200_BYTES_PER_S = 790e12, 4.3e12


def _check(n, d, dtype, batch, heads) -> tuple[int, int, int, int, int]:
    if dtype not in KERNEL_DTYPES:
        raise InputError(key="errors.one_of", name="dtype", choices=", ".join(KERNEL_DTYPES), got=repr(dtype))
    return (check_int("N", n, 1, MAX_N), check_int("head dim d", d, 1, MAX_D), ELEM_BYTES[dtype],
            check_int("batch B", batch, 1, MAX_BH), check_int("heads H", heads, 1, MAX_BH))


# ----------------------------------------------------------------------------- what is stored

@dataclass(frozen=True)
class Stored:
    """One tensor the backward pass may need, for all B x H heads."""
    name: str                  # "S", "P", "O", "LSE"
    shape: str                 # per head, e.g. "N × N"
    elems: int                 # per head
    bytes: int                 # all heads
    naive: bool                # kept by standard attention for its backward
    flash: bool                # kept by FlashAttention for its backward


def stored_tensors(n, d, dtype, batch, heads) -> list[Stored]:
    n, d, e, b, h = _check(n, d, dtype, batch, heads)
    bh = b * h
    return [Stored("S", "N × N", n * n, bh * n * n * e, True, False),
            Stored("P", "N × N", n * n, bh * n * n * e, True, False),
            Stored("O", "N × d", n * d, bh * n * d * e, False, True),
            Stored("LSE", "N", n, bh * n * LSE_BYTES, False, True)]


def stored_totals(rows: list[Stored]) -> tuple[int, int, float]:
    """(bytes standard keeps, bytes FlashAttention keeps, ratio): 2·B·H·N²·e vs B·H·N·(d·e + 4)."""
    naive = sum(r.bytes for r in rows if r.naive)
    flash = sum(r.bytes for r in rows if r.flash)
    return naive, flash, naive / flash


# ----------------------------------------------------------------------------- what recomputation costs

MATMULS = {"fwd": 2, "bwd_stored": 4, "bwd_recompute": 5, "bwd_ours": 7}
MATMUL_NAMES = {"fwd": "S = QKᵀ, O = PV",
                "bwd_stored": "dV = PᵀdO, dP = dO Vᵀ, dQ = dS K, dK = dSᵀQ",
                "bwd_recompute": "S = QKᵀ (again), dV, dP, dQ, dK",
                "bwd_ours": "dK/dV kernel: S, dV, dPᵀ, dK · dQ kernel: S, dP, dQ"}


def tile_matmul_flops(n, d, causal, batch, heads) -> float:
    """FLOPs of one N x N x d matmul over all heads: 2·B·H·N²·d, halved when causal."""
    n, d, _, b, h = _check(n, d, "float32", batch, heads)
    return 2.0 * b * h * n * n * d / (2 if causal else 1)


def matmul_rows(n, d, causal, batch, heads) -> list[dict]:
    """Per pass: matmuls per tile, FLOPs, FLOPs relative to the forward."""
    one = tile_matmul_flops(n, d, causal, batch, heads)
    return [dict(key=k, matmuls=m, flops=m * one, vs_fwd=m / MATMULS["fwd"], ops=MATMUL_NAMES[k])
            for k, m in MATMULS.items()]


def trade(n, d, dtype, causal, batch, heads) -> dict:
    """Recomputing S costs one extra matmul; not storing P saves writing it in the forward and reading it
    back in the backward (2·B·H·N²·e bytes of HBM traffic at least). Times at the H200's measured ceilings
    are a roofline estimate, not a measurement."""
    n, d, e, b, h = _check(n, d, dtype, batch, heads)
    extra = tile_matmul_flops(n, d, causal, b, h)
    io = 2 * b * h * n * n * e / (2 if causal else 1)
    return dict(extra_flops=extra, io_bytes=io, flops_per_byte=extra / io,
                extra_ms=extra / H200_FLOPS * 1e3, io_ms=io / H200_BYTES_PER_S * 1e3,
                bwd_extra=MATMULS["bwd_recompute"] / MATMULS["bwd_stored"] - 1,
                step_extra=(MATMULS["fwd"] + MATMULS["bwd_recompute"]) / (MATMULS["fwd"] + MATMULS["bwd_stored"]) - 1)


# ----------------------------------------------------------------------------- the demo

DEMO_CAPS = {"cpu": (128, 64), "cuda": (4096, 256)}      # (N, d): the interpreter is slow, a GPU is not
GRAD_EPS = {"float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}   # the idiom's + eps


@dataclass(frozen=True)
class Saved:
    """One distinct storage autograd kept for the backward pass."""
    path: str                  # "naive" or "ours"
    shape: tuple
    dtype: str
    bytes: int
    role: str                  # "input" (q, k, v), "output" (O), "new" (made by the forward)
    kind: str                  # "N×N", "N×d", "N", "mask N×N" or "other"


@dataclass(frozen=True)
class DemoResult:
    n: int
    d: int
    causal: bool
    dtype: str
    impl: str
    device: str
    ours_err: dict             # name -> max |grad - grad64| (dQ, dK, dV)
    naive_err: dict            # the same for naive autograd in the same dtype
    saved: tuple               # Saved, both paths

    def within(self, name: str) -> bool:
        """|ours - ref64| <= 2·|naive in this dtype - ref64| + eps (the tests' idiom)."""
        return self.ours_err[name] <= 2 * self.naive_err[name] + GRAD_EPS[self.dtype]

    def new_bytes(self, path: str) -> int:
        return sum(s.bytes for s in self.saved if s.path == path and s.role == "new")


def check_demo(n, d, dtype, device: str) -> tuple[int, int]:
    cap_n, cap_d = DEMO_CAPS[device]
    where = "on CPU (Triton's interpreter)" if device == "cpu" else "on the GPU"
    if dtype not in KERNEL_DTYPES:
        raise InputError(key="errors.one_of", name="dtype", choices=", ".join(KERNEL_DTYPES), got=repr(dtype))
    return check_int(f"the demo's N {where}", n, 1, cap_n), check_int(f"the demo's head dim d {where}", d, 1, cap_d)


def _kind(x, n: int, d: int) -> str:
    import torch
    per_head = x.numel()                                  # the demo runs B = H = 1
    if x.dtype == torch.bool:
        return "mask N×N" if per_head == n * n else "other"
    if n != d and per_head == n * n:
        return "N×N"
    return {n * d: "N×d", n: "N"}.get(per_head, "N×N" if per_head == n * n else "other")


def _saved(path, fn, known: dict, n: int, d: int) -> tuple[object, list[Saved]]:
    """Run fn() under saved_tensors_hooks; one Saved per distinct storage it kept."""
    import torch
    kept = {}

    def pack(x):
        kept.setdefault(x.untyped_storage().data_ptr(), x)
        return x
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
        out = fn()
    known = dict(known, output=out)
    out_rows = []
    for ptr, x in kept.items():
        role = next((("input" if k != "output" else "output") for k, t in known.items()
                     if t.untyped_storage().data_ptr() == ptr), "new")
        out_rows.append(Saved(path, tuple(x.shape), str(x.dtype).removeprefix("torch."),
                              int(x.untyped_storage().nbytes()), role, _kind(x, n, d)))
    return out, out_rows


def run_demo(n, d, causal: bool, dtype: str, seed: int, impl: str = "teaching", device: str = "cpu") -> DemoResult:
    """B = H = 1; q, k, v, dO ~ N(0, 1) seeded. Kernel errors come back as InputError with their message."""
    import torch
    import flashviz_kernels as fk
    n, d = check_demo(n, d, dtype, device)
    if impl not in ("teaching", "fast"):
        raise InputError(key="errors.demo_impl", got=repr(impl))
    g = torch.Generator().manual_seed(int(seed))
    base = [torch.randn(1, 1, n, d, generator=g, dtype=torch.float64) for _ in range(4)]
    tdt = getattr(torch, dtype)

    def grads(path, dt, **kw):
        q, k, v = (x.to(device=device, dtype=dt).requires_grad_() for x in base[:3])
        fn = (lambda: fk.attention(q, k, v, causal=causal, **kw))
        out, saved = _saved(path, fn, dict(q=q, k=k, v=v), n, d)
        gr = torch.autograd.grad(out, (q, k, v), base[3].to(device=device, dtype=dt))
        return [x.double().cpu() for x in gr], saved
    try:
        ref, _ = grads("ref", torch.float64, impl="naive")
        naive, naive_saved = grads("naive", tdt, impl="naive")
        ours, ours_saved = grads("ours", tdt, impl=impl)
    except fk.KernelError as e:
        raise InputError(str(e)) from e              # the page translates the kernel error itself
    names = ("dQ", "dK", "dV")
    err = lambda gs: {k: float((a - r).abs().max()) for k, a, r in zip(names, gs, ref)}  # noqa: E731
    return DemoResult(n, d, bool(causal), dtype, impl, device, err(ours), err(naive),
                      tuple(naive_saved + ours_saved))
