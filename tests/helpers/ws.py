"""The Gluon ws kernels' pieces a CPU can check: their scalar helpers run on the host as plain Python (Gluon has no
interpreter), and the lines of a compile script that report ptxas's register use and spills."""


# The lines of a COMPILE script after `k = compile_...`: ptxas -v on k's PTX (spills), with the ptxas triton runs
PTXAS = """from tools.compile_check import ptxas_sm90
ptx = k.asm["ptx"]
bindir = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
with tempfile.TemporaryDirectory() as tmp:
    open(os.path.join(tmp, "k.ptx"), "w").write(ptx)
    v = subprocess.run([ptxas_sm90(bindir), "-v", "--gpu-name", "sm_90a", os.path.join(tmp, "k.ptx"),
                        "-o", os.path.join(tmp, "k.cubin")], capture_output=True, text=True).stderr
spill = re.search(r"(\\d+) bytes spill stores, (\\d+) bytes spill loads", v)
"""


def compile_report(code: str) -> dict:
    """Run a COMPILE script (it ends by printing one JSON line) in a child process with TRITON_INTERPRET=0 (under the
    interpreter, jit functions cannot be compiled) and this process's sys.path; the script must succeed."""
    import json
    import os
    import subprocess
    import sys
    env = dict(os.environ, TRITON_INTERPRET="0", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def needs_verified_triton():
    """The ws module, or skip the calling test where the installed triton is not one the ws kernels were verified
    on (ws.VERIFIED_TRITON: their builds, and so their SASS, differ elsewhere)."""
    import pytest
    from flashviz_kernels import ws
    if not any(ws.triton_version().startswith(p) for p in ws.VERIFIED_TRITON):
        pytest.skip(f"installed triton {ws.triton_version()} is not a verified {ws.VERIFIED_TRITON}")
    return ws


def per_triton(table: dict, default):
    """table's value for the installed triton (keys are version prefixes such as "3.9."), else default."""
    from flashviz_kernels import ws
    return next((b for v, b in table.items() if ws.triton_version().startswith(v)), default)


class Ptr:
    """A pointer into a tensor's flat storage, for running a Gluon helper's scalar loads on the host (host)."""
    def __init__(self, t, i=0):
        self.t, self.i = t, i

    def __add__(self, off):
        return Ptr(self.t, self.i + int(off))


def host(jit_fn):
    """A Gluon helper of scalar integer arithmetic run as plain Python (Gluon has no interpreter): its own source
    with gl's minimum / maximum / cdiv / where as Python's (every value here is >= 0, where // and % agree with C),
    gl.load reading a Ptr and gl.int32 as int; the jit helpers it calls run on the host too."""
    import types
    shim = types.SimpleNamespace(minimum=min, maximum=max, cdiv=lambda a, b: -(-a // b),
                                 load=lambda p: int(p.t.reshape(-1)[p.i]), int32=int,
                                 where=lambda c, a, b: a if c else b)
    glob = dict(jit_fn.fn.__globals__, gl=shim)
    for name in jit_fn.fn.__code__.co_names:       # helpers it calls (jit functions: they have .fn)
        fn = glob.get(name)
        if fn is not jit_fn and callable(getattr(fn, "fn", None)) and hasattr(fn.fn, "__code__"):
            glob[name] = host(fn)
    return types.FunctionType(jit_fn.fn.__code__, glob)


def gluon_on_host(module: str, name: str):
    """flashviz_kernels.<module>.<name> run on the host (host), or the test skipped where Gluon cannot be imported."""
    import importlib

    import pytest
    try:
        mod = importlib.import_module(f"flashviz_kernels.{module}")
    except Exception as e:  # noqa: BLE001 - a triton without Gluon
        pytest.skip(f"Gluon cannot be imported here: {e}")
    return host(getattr(mod, name))


def forced_suite(env: str) -> dict:
    """The GPU-suite summary of kernels/gates.py's one triton-3.8 "ws-forward" row run with the switch env forced to
    1 (an off switch's evidence that its path passed); the test fails unless there is exactly one such row."""
    import json
    from pathlib import Path

    from flashviz_kernels import gates
    rows = [v for v in gates.VERIFIED if v.path == "ws-forward" and v.triton == "3.8."
            and getattr(v.evidence, "env", {}).get(env) == "1"]
    assert len(rows) == 1, rows
    return json.loads((Path(__file__).resolve().parents[2] / rows[0].evidence.file).read_text(encoding="utf-8"))
