"""Which kernel and which launch every call gets, pinned on a grid of (variant, d, N, causal, dtype) and setups
(a verified Hopper, an unverified triton, another GPU, the CPU interpreter), so moving the dispatch policy into
data (kernels/forward_table.py, kernels/backward_table.py) cannot change a choice unnoticed.

The expected choices live in tests/data/dispatch_pins.json, written once from the code before the tables existed
(`FLASHVIZ_REPIN=1 python -m pytest tests/kernels/test_dispatch_pins.py` rewrites it; a diff of that file is the behaviour
change, to be explained in the commit). No kernel runs: the Gluon launch and the tl kernel's forward are replaced
by recorders of their arguments, and a fake CUDA view of the inputs opens the device checks."""
import json
import os
import sys
import types
from pathlib import Path

import pytest
import torch

import flashviz_kernels as fk
from flashviz_kernels import _env, api, backward, backward_fused, fast, ws

PINS = Path(__file__).resolve().parents[1] / "data" / "dispatch_pins.json"
REPIN = os.environ.get("FLASHVIZ_REPIN") == "1"

# name -> (attention keywords, H_kv): causal and not for each, as each applies
VARIANTS = {
    "plain": (dict(causal=False), 2), "causal": (dict(causal=True), 2),
    "window-causal": (dict(causal=True, window=(256, 0)), 2), "window-two-sided": (dict(window=(256, 256)), 2),
    "window-right": (dict(window=(-1, 64)), 2),
    "alibi-causal": (dict(causal=True, alibi=True), 2), "alibi": (dict(alibi=True), 2),
    "softcap-causal": (dict(causal=True, softcap=30.0), 2),
    "docs-causal": (dict(causal=True, docs=True), 2), "docs": (dict(docs=True), 2),
    "gqa-causal": (dict(causal=True), 1), "gqa": (dict(), 1), "gqa-window": (dict(causal=True, window=(256, 0)), 1),
    "alibi-window": (dict(causal=True, window=(256, 0), alibi=True), 2),
    "docs-alibi": (dict(causal=True, docs=True, alibi=True), 2),
}
DIMS = (32, 64, 96, 128, 256)
NS = ((1000, 1000), (1024, 1024), (2048, 2048), (4095, 4095), (4096, 4096), (8192, 8192), (16384, 16384),
      (4096, 1024), (1024, 4096))
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
SETUPS = {"hopper-3.6": ("3.6.0", (9, 0), False), "hopper-3.7": ("3.7.1", (9, 0), False),
          "hopper-3.8": ("3.8.0", (9, 0), False),
          "ampere-3.6": ("3.6.0", (8, 0), False), "interpreter": ("3.6.0", None, True)}


def _kw(spec: dict, b: int, h: int, n: int) -> dict:
    kw = dict(causal=False) | {k: v for k, v in spec.items() if k not in ("alibi", "docs")}
    if spec.get("alibi"):
        kw["alibi_slopes"] = 2.0 ** (-8.0 * torch.arange(1, h + 1, dtype=torch.float32) / h)
    if spec.get("docs"):
        cut = [n // 4, n // 4 + n // 8, n // 2 + n // 4]
        kw["seq_ids"] = torch.bucketize(torch.arange(n), torch.tensor(cut), right=True)[None].expand(b, n)
    return kw


class _Recorder:
    """Stands in for a launched kernel: `kernel[grid](*args, **kw)` records the call."""

    def __init__(self):
        self.calls = []

    def __getitem__(self, grid):
        def launch(*args, **kw):
            self.calls.append(dict(grid=list(grid), args=[_plain(a) for a in args],
                                   kw={k: _plain(v) for k, v in sorted(kw.items())}))
        return launch


def _plain(x):
    if isinstance(x, (bool, int, str)) or x is None:
        return x
    if isinstance(x, float):
        return round(x, 9)
    if isinstance(x, torch.Tensor):
        return f"tensor{tuple(x.shape)}"
    return type(x).__name__


@pytest.fixture
def setup(monkeypatch):
    """A function that makes this process look like one of SETUPS and returns the recorders of the launches."""
    def apply(name):
        version, cap, interpret = SETUPS[name]
        monkeypatch.setattr(ws, "_state", {"failed": None, "warned": False})
        monkeypatch.setattr(ws, "triton_version", lambda: version)
        monkeypatch.setattr(ws, "_capability", lambda: cap)
        monkeypatch.setattr(_env, "INTERPRET", interpret)
        monkeypatch.setattr(ws, "_gluon_import_error", lambda: None)
        real_unsupported = ws.unsupported

        def unsupported(q, what="kernel"):              # CPU tensors stand for CUDA ones here
            return real_unsupported(types.SimpleNamespace(device=torch.device("cuda"), dtype=q.dtype, shape=q.shape),
                                    what)
        monkeypatch.setattr(ws, "unsupported", unsupported)
        real_validate = api.validate

        def validate(*a, **kw):                         # the input checks accept CPU tensors as CUDA ones here
            saved, _env.INTERPRET = _env.INTERPRET, True
            try:
                return real_validate(*a, **kw)
            finally:
                _env.INTERPRET = saved
        monkeypatch.setattr(api, "validate", validate)
        rec = _Recorder()
        monkeypatch.setitem(sys.modules, f"{ws.__package__}._ws_gluon", types.SimpleNamespace(ws_fwd=rec))
        monkeypatch.setattr(ws, "descriptors", lambda *a: ("dq", "dk", "dv", "do"))
        monkeypatch.setattr(ws, "_sm_count", lambda index: 132)
        monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
        tl_calls = []

        def tl_forward(q, k, v, **kw):
            var = kw.pop("variant")
            tl_calls.append(dict(kw={k: _plain(x) for k, x in sorted(kw.items())}, variant=_plain_var(var)))
            return torch.empty_like(q), torch.empty(q.shape[:3], dtype=torch.float32)
        monkeypatch.setattr(fast, "forward", tl_forward)
        return rec, tl_calls
    return apply


def _plain_var(var) -> dict:
    return {k: _plain(v) if not isinstance(v, tuple) else list(v) for k, v in sorted(var.describe().items())}


def _forward_choice(rec, tl_calls, q, k, v, kw) -> dict:
    """The launch one impl="fast" call (nothing pinned) makes: the Gluon kernel's arguments or the tl kernel's."""
    import warnings
    before_ws, before_tl = len(rec.calls), len(tl_calls)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fk.attention(q, k, v, impl="fast", **kw)
        plan = list(api.launch_plan(q, k, v, impl="fast", **kw))
    out = dict(plan=plan, warned=[str(w.message)[:160] for w in caught if "flashviz_kernels" in str(w.message)])
    if len(rec.calls) > before_ws:
        out["ws"] = rec.calls[-1]
    if len(tl_calls) > before_tl:
        out["tl"] = tl_calls[-1]
    return out


def _forward_grid(setup_name: str, dims=DIMS, ns=NS, dtypes=DTYPES, variants=VARIANTS):
    out = {}
    for vname, (spec, h_kv) in variants.items():
        for d in dims:
            for nq, nk in ns:
                if spec.get("docs") and nq != nk:
                    continue
                for dname, dt in dtypes.items():
                    q = torch.zeros((1, 2, nq, d), dtype=dt)
                    k = torch.zeros((1, h_kv, nk, d), dtype=dt)
                    kw = _kw(spec, 1, 2, nq)
                    out[f"{setup_name} {vname} d={d} N={nq}x{nk} {dname}"] = (q, k, kw)
    return out


def _forward_pins(setup, names=SETUPS):
    got = {}
    for name in names:
        rec, tl_calls = setup(name)
        small = name != "hopper-3.6"                    # the other setups: a smaller grid says enough
        grid = _forward_grid(name, dims=(64, 128) if small else DIMS,
                             ns=((1024, 1024), (8192, 8192)) if small else NS,
                             dtypes={"fp16": torch.float16} if small else DTYPES)
        for key, (q, k, kw) in grid.items():
            got[key] = _forward_choice(rec, tl_calls, q, k, k, kw)
    return got


def _backward_pins(monkeypatch, setup):
    """backward_kind under each setup (meta tensors seen as CUDA ones) and the launch its kind takes."""
    from flashviz_kernels import backward_pick, variants, ws_bwd
    got = {}
    for name, (version, cap, interpret) in SETUPS.items():
        setup(name)
        monkeypatch.setitem(ws_bwd._failed, "reason", None)
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, cap=cap: cap or (0, 0))
        for vname, (spec, h_kv) in VARIANTS.items():
            for d in DIMS:
                for dname, dt in DTYPES.items():
                    x = torch.zeros((1, 2, 256, d), dtype=dt)
                    kv = torch.zeros((1, h_kv, 256, d), dtype=dt)
                    var = variants.parse(x, kv, **_kw(spec, 1, 2, 256))
                    with monkeypatch.context() as m:
                        m.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda")))
                        meta = torch.empty((1, 2, 256, d), dtype=dt, device="meta")
                        try:
                            kind = backward_pick.backward_kind(meta, None, None, var)
                        except Exception as e:  # noqa: BLE001 - a refusal is a choice too
                            kind = f"{type(e).__name__}: {e}"
                        launch = None
                        if kind == "ws":
                            launch = dict(config=list(ws_bwd.CONFIGS[d]), early_dq=ws_bwd.EARLY_DQ[d],
                                          dq_first=ws_bwd.DQ_FIRST[d], prefetch=ws_bwd.PREFETCH[d])
                        elif kind == "fused":
                            launch = list(backward_fused.pick_config(meta))
                        elif kind == "reference":
                            launch = list(backward.pick_config(meta))
                    got[f"{name} {vname} d={d} {dname}"] = dict(kind=kind, launch=launch)
    return got


def _compare(section: str, got: dict):
    pins = json.loads(PINS.read_text()) if PINS.exists() else {}
    if REPIN:
        pins[section] = got
        PINS.write_text("{\n" + ",\n".join(                  # one line per choice: a diff shows each change
            f"{json.dumps(s)}: {{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}"
                                                for k, v in sorted(pins[s].items())) + "\n}" for s in sorted(pins))
            + "\n}\n")
        return
    want = pins[section]
    assert set(got) == set(want)
    changed = [k for k in want if json.loads(json.dumps(got[k])) != want[k]]
    assert not changed, f"{len(changed)} choices changed, e.g. {changed[:3]}: {[got[k] for k in changed[:3]]}"


def test_forward_choices_are_pinned(setup):
    """impl="fast" with nothing pinned: the same kernel and the same launch arguments as before the tables."""
    _compare("forward", _forward_pins(setup))


def test_backward_choices_are_pinned(monkeypatch, setup):
    """autograd's backward ("auto"): the same kind and launch as before the tables."""
    _compare("backward", _backward_pins(monkeypatch, setup))


def test_fresh_reaches_persistent_launches_only(monkeypatch, setup):
    """FLASHVIZ_WS_FRESH=1 (read at each launch, ws_switches.fresh_default): a persistent launch (a causal window)
    passes FRESH=True, a launch of one tile per program (dense causal at d = 128) no FRESH; unset, neither does, so
    the pins above hold the launches FRESH leaves alone."""
    rec, tl_calls = setup("hopper-3.8")
    q = k = v = torch.zeros(1, 2, 4096, 128, dtype=torch.float16)
    for env in ("1", None):
        if env:
            monkeypatch.setenv("FLASHVIZ_WS_FRESH", env)
        else:
            monkeypatch.delenv("FLASHVIZ_WS_FRESH")
        win = _forward_choice(rec, tl_calls, q, k, v, dict(causal=True, window=(1024, 0)))["ws"]
        dense = _forward_choice(rec, tl_calls, q, k, v, dict(causal=True))["ws"]
        assert win["kw"]["PERSISTENT"] and not dense["kw"]["PERSISTENT"]
        assert win["kw"].get("FRESH") is (True if env else None) and "FRESH" not in dense["kw"]


def test_named_turns_reach_pingpong_launches_only(monkeypatch, setup):
    """FLASHVIZ_WS_NAMED=1 (read at each launch, ws_switches.named_turn_default): a PINGPONG launch passes
    PINGPONG=2 (kernels/_ws_ring.py's named-barrier turns), one without PINGPONG keeps False; unset, PINGPONG stays
    the bool the pins above hold."""
    rec, tl_calls = setup("hopper-3.8")
    q = k = v = torch.zeros(1, 2, 4096, 128, dtype=torch.float16)
    for env, pp in (("1", 2), (None, True)):
        if env:
            monkeypatch.setenv("FLASHVIZ_WS_NAMED", env)
        else:
            monkeypatch.delenv("FLASHVIZ_WS_NAMED")
        on = _forward_choice(rec, tl_calls, q, k, v, dict(causal=True, window=(1024, 0)))["ws"]
        assert type(on["kw"]["PINGPONG"]) is type(pp) and on["kw"]["PINGPONG"] == pp     # 2, or True itself
        monkeypatch.setenv("FLASHVIZ_WS_PINGPONG", "0")
        off = _forward_choice(rec, tl_calls, q, k, v, dict(causal=True))["ws"]
        assert off["kw"]["PINGPONG"] is False
        monkeypatch.delenv("FLASHVIZ_WS_PINGPONG")
