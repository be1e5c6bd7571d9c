"""The teacher's command: `flashviz-serve` (pyproject's console script) is flashviz.infra.serve's main."""
import importlib.metadata as md
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_console_script_names_the_serve_main():
    tomllib = pytest.importorskip("tomllib")                      # Python 3.11+
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    from flashviz.infra import serve
    module, func = scripts["flashviz-serve"].split(":")
    assert module == serve.__name__ and getattr(serve, func) is serve.main


def test_installed_entry_point_runs_help():
    """After `pip install -e .` the script exists; --help exits 0 and lists the options the README uses."""
    eps = [e for e in md.entry_points(group="console_scripts") if e.name == "flashviz-serve"]
    if not eps:
        pytest.skip("flashviz is not installed in this environment (pip install -e .)")
    exe = Path(sys.executable).with_name("flashviz-serve")
    r = subprocess.run([str(exe) if exe.exists() else "flashviz-serve", "--help"], check=False, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "--procs" in r.stdout and "--port" in r.stdout
