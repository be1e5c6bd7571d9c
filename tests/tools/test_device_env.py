"""tools/device/env.sh, the shell every device call sources: a full triton build carried in two parts (pack.sh
triton X full) is joined from the first part, kept by fv_stash in one call, and the second carried by the next."""
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_fv_triton_parts_joins_the_stashed_part_and_the_carried_one(tmp_path):
    import lzma
    version = f"0.0.{os.getpid()}"                                   # a name no real build and no other run uses
    src = tmp_path / "src"
    (src / "triton").mkdir(parents=True)
    (src / "triton" / "__init__.py").write_text(f"__version__ = '{version}'\n")
    (src / "triton" / "blob.bin").write_bytes(os.urandom(300_000))   # incompressible: both parts hold data
    (src / f"triton-{version}.dist-info").mkdir()
    raw = tmp_path / "t.tar"
    with tarfile.open(raw, "w") as tar:
        tar.add(src / "triton", "triton")
        tar.add(src / f"triton-{version}.dist-info", f"triton-{version}.dist-info")
    data = lzma.compress(raw.read_bytes())
    half = len(data) // 2
    first, second = tmp_path / "f1", tmp_path / "f2"
    first.mkdir()
    second.mkdir()
    (first / f"triton-{version}.tar.xz.aa").write_bytes(data[:half])
    (second / f"triton-{version}.tar.xz.ab").write_bytes(data[half:])
    script = (f"source tools/device/env.sh >/dev/null && fv_stash {first} && rm -rf {first} && "
              f"fv_triton_parts {second} && python3 -c 'import triton; print(triton.__version__, triton.__file__)'")
    try:
        r = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, OUT=str(tmp_path / "out")))
        assert r.returncode == 0, r.stderr
        got_version, got_file = r.stdout.split()
        assert got_version == version and got_file == f"/tmp/triton-{version}/triton/__init__.py"
        blob = Path(f"/tmp/triton-{version}/triton/blob.bin").read_bytes()
        assert blob == (src / "triton" / "blob.bin").read_bytes()
    finally:
        subprocess.run(["rm", "-rf", f"/tmp/triton-{version}", f"/tmp/stash/triton-{version}.tar.xz.aa"])
