"""Fixtures of the kernel tests: the Gluon ws kernels' module state reset, and skips where ws cannot run."""
import pytest
import torch


@pytest.fixture
def fresh_ws_state(monkeypatch):
    """The ws kernel's module state as a fresh process has it: no recorded failure, nothing warned yet."""
    from flashviz_kernels import fallback, ws
    monkeypatch.setattr(ws, "_state", {"failed": None, "warned": False})
    fallback.forget()


@pytest.fixture
def needs_ws():
    """Skip, with the reason, where the ws forward cannot run (no Hopper, not the verified triton)."""
    from flashviz_kernels import ws
    st = ws.status()
    if not st["active"]:
        pytest.skip(f"ws cannot run here: {st['reason']}")


@pytest.fixture
def needs_ws_bwd():
    """Skip, with the reason, where the ws backward cannot run."""
    from flashviz_kernels import ws_bwd
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    why = ws_bwd.supported(torch.empty((1, 1, 1, 64), dtype=torch.float16, device="cuda"))
    if why:
        pytest.skip(f"the ws backward cannot run here: {why}")
