"""Which kernel ran and why (issue 30, item 3): launch_plan(...).reason and backward_plan(...) say it for a call's
arguments, and where the tables name a GPU kernel this setup cannot run, the library logs the reason once per
distinct reason per process on the logger "flashviz_kernels" (never for CPU tensors: there the tl kernel in the
interpreter is the design)."""
import logging
import pickle

import pytest
import torch

import flashviz_kernels as fk
from helpers.dispatch import pretend_hopper
from flashviz_kernels import api, fallback, ws, ws_bwd


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.setattr(ws, "_state", {"failed": None, "warned": False})
    monkeypatch.setitem(ws_bwd._failed, "reason", None)
    fallback.forget()


def _cuda(monkeypatch):
    """meta tensors that report a CUDA device (nothing launches in these tests)."""
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda")))


def _logged(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "flashviz_kernels" and r.levelno == logging.WARNING]


def test_an_unverified_triton_is_said_once_per_reason(monkeypatch, caplog):
    caplog.set_level(logging.WARNING, logger="flashviz_kernels")
    pretend_hopper(monkeypatch, version="3.10.0")
    _cuda(monkeypatch)
    q = torch.empty((1, 2, 8192, 128), dtype=torch.float16, device="meta")
    for _ in range(3):
        assert ws.fast_should_use(q, q, True) is False           # the table says ws; this triton is not verified
    assert len(_logged(caplog)) == 1 and "3.10.0" in _logged(caplog)[0] and "tl kernel" in _logged(caplog)[0]
    pretend_hopper(monkeypatch, version="3.6.0", cap=(8, 0))
    for _ in range(2):
        assert ws.fast_should_use(q, q, True) is False
    assert len(_logged(caplog)) == 2 and "8.0 is not sm_90" in _logged(caplog)[1]
    small = torch.empty((1, 2, 512, 128), dtype=torch.float16, device="meta")
    assert ws.fast_should_use(small, small, True) is False     # the table says tl here: nothing to say
    assert len(_logged(caplog)) == 2


def test_cpu_tensors_are_not_a_fallback(caplog):
    caplog.set_level(logging.WARNING, logger="flashviz_kernels")
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn((1, 2, 64, 64), generator=g) for _ in range(3))
    fk.attention(q, k, v, causal=True, impl="fast")
    assert _logged(caplog) == []


def test_launch_plan_keeps_its_tuple_and_says_why(monkeypatch):
    q = torch.zeros((1, 2, 64, 64))
    plan = fk.launch_plan(q, q, q, causal=True)
    kernel, bm, bn = plan                                     # callers unpack three values, as before
    assert (kernel, bm, bn) == plan == tuple(plan) and plan.kernel == "tl" and (plan.block_m, plan.block_n) == (bm, bn)
    assert "float16 or bfloat16" in plan.reason                # fp32: the ws kernel does not take it
    assert pickle.loads(pickle.dumps(plan)).reason == plan.reason
    assert "softcap" in fk.launch_plan(q, q, q, causal=True, softcap=5.0).reason
    assert fk.launch_plan(q, q, q, impl="teaching").reason == "impl='teaching' asked for"
    h = torch.zeros((1, 2, 64, 64), dtype=torch.float16)
    assert "table" in fk.launch_plan(h, h, h, causal=True).reason   # d=64, N=64: the table keeps tl
    pretend_hopper(monkeypatch, version="3.10.0")              # a Hopper with an unverified triton
    _cuda(monkeypatch)
    big = torch.empty((1, 2, 4096, 64), dtype=torch.float16, device="meta")
    plan = fk.launch_plan(big, big, big, causal=True)
    assert plan.kernel == "tl" and "names ws" in plan.reason and "3.10.0" in plan.reason
    pretend_hopper(monkeypatch)                               # verified: the table's choice runs
    plan = fk.launch_plan(big, big, big, causal=True)
    assert plan.kernel == "ws" and plan.block_m == 64 * ws.CONFIGS[(64, True)][6] and "table" in plan.reason


def test_backward_plan_names_the_kernel_and_why(monkeypatch):
    x = torch.zeros((1, 2, 64, 64), dtype=torch.float16)
    plan = api.backward_plan(x, x, x, causal=True)
    assert plan == ("reference", plan.reason) and "off CUDA" in plan.reason
    pretend_hopper(monkeypatch)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (9, 0))
    _cuda(monkeypatch)
    m = torch.empty((1, 2, 64, 64), dtype=torch.float16, device="meta")
    assert api.backward_plan(m, m, m, causal=True).kernel == "ws"
    capped = api.backward_plan(m, m, m, causal=True, softcap=5.0)
    assert capped.kernel == "reference" and "softcap" in capped.reason
    m32 = torch.empty((1, 2, 64, 32), dtype=torch.float16, device="meta")
    assert api.backward_plan(m32, m32, m32).kernel == "fused"     # d = 32: no ws row; fused at d <= 64
    pretend_hopper(monkeypatch, version="3.10.0")
    plan = api.backward_plan(m32, m32, m32)
    assert plan.kernel == "reference" and "3.10.0" in plan.reason  # the fused backward's gate: 3.6, 3.8


def test_the_unverified_switch_opens_the_version_gate_only(monkeypatch):
    """FLASHVIZ_UNVERIFIED=1 (a verification run on the GPU) lets every gated path run on a triton no row names; the
    device checks stay (another GPU, the interpreter)."""
    from flashviz_kernels import gates
    pretend_hopper(monkeypatch, version="3.10.0")
    assert not ws.status()["active"] and gates.why_not("fused-backward", "3.10.0", (9, 0))
    monkeypatch.setenv(gates.UNVERIFIED_ENV, "1")
    assert ws.status()["active"] and ws_bwd.unavailable() is None
    assert all(gates.why_not(p, "3.10.0", (9, 0)) is None for p in gates.PATHS)
    assert "8.0 is not sm_90" in gates.why_not("ws-forward", "3.10.0", (8, 0))
    assert "interpreter" in gates.why_not("timeline", "3.10.0", (9, 0), interpret=True)
    monkeypatch.setenv(gates.UNVERIFIED_ENV, "0")
    assert not ws.status()["active"]


def test_triton_39_opens_the_gluon_kernels_only(monkeypatch):
    """torch 2.15's triton 3.9: the ws forward's and backward's suites passed there, HALF's too (kernels/gates.py),
    though HALF is not its default there (ws_schedule.HALF_TRITONS); the timeline and the fused backward were not
    verified on it, so they stay shut and say which versions they ran on."""
    from flashviz_kernels import gates
    monkeypatch.delenv(gates.UNVERIFIED_ENV, raising=False)
    monkeypatch.delenv(ws.HALF_ENV, raising=False)
    for v in ("3.9.0", "3.9.1"):
        assert gates.why_not("ws-forward", v, (9, 0)) is None and gates.why_not("ws-backward", v, (9, 0)) is None
        assert gates.why_not("ws-half", v, (9, 0)) is None
        for path in ("timeline", "fused-backward"):
            why = gates.why_not(path, v, (9, 0))
            assert why and v in why and "3.6.x" in why, (path, why)
    pretend_hopper(monkeypatch, version="3.9.0")
    st = ws.status()
    assert st["active"] and st["half"].startswith("none under triton 3.9.0") and ws_bwd.unavailable() is None
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (9, 0))
    _cuda(monkeypatch)
    big = torch.empty((1, 2, 4096, 64), dtype=torch.float16, device="meta")
    assert fk.launch_plan(big, big, big, causal=True).kernel == "ws"
    m = torch.empty((1, 2, 64, 128), dtype=torch.float16, device="meta")
    assert api.backward_plan(m, m, m, causal=True).kernel == "ws"
