"""tools/device/env.sh, the shell every device call sources: a full triton build carried in two parts (pack.sh
triton X full) is joined from the first part, kept by fv_stash in one call, and the second carried by the next;
fv_ab's and window_check.sh's alternating A/B processes, with a python3 stub in place of the timing."""
import itertools
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


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_fv_ab_alternates_the_switch_and_hands_the_pairs_to_fa4_rounds_ab(tmp_path):
    """fv_ab VAR LABEL PAIRS runs tools.fa4_rounds with VAR=0 and VAR=1, PAIRS times, each into a file of its own,
    0 first in odd pairs and 1 first in even ones, and passes the files to `fa4_rounds --ab` as (off, on) pairs. A
    python3 stub first on PATH records each call instead of timing anything."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "python3"
    stub.write_text('#!/bin/bash\nif [[ " $* " == *" --ab "* ]]; then echo "AB $*"; exit 0; fi\n'
                    'for ((i=1; i<=$#; i++)); do if [ "${!i}" = --out ]; then j=$((i+1)); out=${!j}; fi; done\n'
                    'echo "{}" > "$out"; echo "RUN X=$FLASHVIZ_WS_X $*"\n')
    stub.chmod(0o755)
    out = tmp_path / "out"
    script = "source tools/device/env.sh >/dev/null && FV_AB_ARGS='--mode fwd --n 4096' fv_ab FLASHVIZ_WS_X lbl 2"
    r = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, OUT=str(out), PATH=f"{bin_dir}:{os.environ['PATH']}"))
    assert r.returncode == 0, r.stderr
    assert not list((out / "ab").iterdir())                                       # all packed into one file
    with tarfile.open(out / "ab-lbl.tgz") as tar:
        names = tar.getnames()
        runs = [t for n in names if n.endswith(".log") for t in tar.extractfile(n).read().decode().splitlines()]
    assert sorted(names) == sorted(f"lbl-FLASHVIZ_WS_X{e}-run{k}.{x}" for k in (1, 2) for e in (0, 1)
                                   for x in ("json", "log"))
    assert sorted(runs) == sorted(f"RUN X={e} -m tools.fa4_rounds --mode fwd --n 4096 --out {out}/ab/lbl-"
                                  f"FLASHVIZ_WS_X{e}-run{k}.json" for k in (1, 2) for e in (0, 1))
    ab = [line for line in r.stdout.splitlines() if line.startswith("AB ")]
    assert ab == ["AB -m tools.fa4_rounds --ab " + " ".join(f"{out}/ab/lbl-FLASHVIZ_WS_X{e}-run{k}.json"
                                                             for k in (1, 2) for e in (0, 1))]
    assert r.stdout.index("== lbl FLASHVIZ_WS_X=0 run 1") < r.stdout.index("== lbl FLASHVIZ_WS_X=1 run 1") \
        < r.stdout.index("== lbl FLASHVIZ_WS_X=1 run 2") < r.stdout.index("== lbl FLASHVIZ_WS_X=0 run 2")


def _device_copy(tmp_path, version: str, stub: str) -> tuple:
    """(work, bin dir): a copy of tools/device under tmp_path/work with a stand-in triton build `version` in
    .whl/t38 (what fv_start unpacks into /tmp/triton-<version>: the caller removes it) and a python3 stub whose
    bash body is `stub`, first on the PATH the caller passes."""
    import lzma
    work = tmp_path / "work"
    (work / "tools").mkdir(parents=True)
    subprocess.run(["cp", "-r", str(ROOT / "tools" / "device"), str(work / "tools" / "device")], check=True)
    (tmp_path / "src" / "triton").mkdir(parents=True)
    raw = tmp_path / "t.tar"
    with tarfile.open(raw, "w") as tar:
        tar.add(tmp_path / "src" / "triton", "triton")
    (work / ".whl" / "t38").mkdir(parents=True)
    (work / ".whl" / "t38" / f"triton-{version}.tar.xz").write_bytes(lzma.compress(raw.read_bytes()))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text("#!/bin/bash\n" + stub)
    (bin_dir / "python3").chmod(0o755)
    return work, bin_dir


_COPIES = itertools.count()


@pytest.fixture
def device_copy(tmp_path):
    """stub -> (work, bin dir) of _device_copy, with a stand-in triton version of this copy's own, whose unpacked
    /tmp/triton-<version> is removed when the test ends."""
    versions = []

    def make(stub: str) -> tuple:
        versions.append(f"0.0.{os.getpid()}{next(_COPIES)}")
        return _device_copy(tmp_path, versions[-1], stub)
    yield make
    for version in versions:
        subprocess.run(["rm", "-rf", f"/tmp/triton-{version}"])


def _run_parts(tmp_path, work, key: str, argv: list, env: dict) -> tuple:
    """(result, RUN lines): `bash argv...` in work with OUT=tmp_path/out-<key>, and the lines the python3 stub
    wrote (starting RUN) in the logs and texts it left there, tarballs included."""
    out = tmp_path / f"out-{key}"
    out.mkdir()
    r = subprocess.run(["bash", *argv], cwd=work, capture_output=True, text=True, timeout=60,
                       env=dict(env, OUT=str(out)))
    texts = [f.read_text(errors="replace") for f in sorted(out.rglob("*"))
             if f.is_file() and f.suffix in (".log", ".txt")]
    for t in sorted(out.rglob("*.tgz")):
        with tarfile.open(t) as tar:
            texts += [tar.extractfile(m).read().decode() for m in tar.getmembers() if m.isfile()]
    return r, [line for text in texts for line in text.splitlines() if line.startswith("RUN")]


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_window_check_ab_alternates_the_switch_and_packs_the_pairs(tmp_path, device_copy):
    """tools/device/window_check.sh ab VAR PAIRS: after fv_start (the commit named, the carried triton unpacked),
    tools.window_fit on the d = 128 windows with VAR=0 and VAR=1, PAIRS times, 0 first in odd pairs and 1 first in
    even ones, each into a file of its own; the files go to `window_fit --shares` and are packed into one tarball.
    Run from a copy of tools/device with a stand-in triton build and a python3 stub that records each call."""
    work, bin_dir = device_copy((
        'if [[ " $* " == *" --shares "* ]]; then echo "SHARES $*"; exit 0; fi\n'
        'out=; for ((i=1; i<=$#; i++)); do if [ "${!i}" = --out ]; then j=$((i+1)); out=${!j}; fi; done\n'
        '[ -n "$out" ] && { echo "{}" > "$out"; echo "RUN X=$FLASHVIZ_WS_X $*"; }; exit 0\n'))
    out = tmp_path / "out"
    r = subprocess.run(["bash", "tools/device/window_check.sh", "ab", "FLASHVIZ_WS_X", "2"], cwd=work,
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, OUT=str(out), FLASHVIZ_GIT_COMMIT="abc",
                                PATH=f"{bin_dir}:{os.environ['PATH']}"))
    assert r.returncode == 0, r.stdout + r.stderr
    order = [line for line in r.stdout.splitlines() if line.startswith("== pair")]
    assert order == ["== pair 1 FLASHVIZ_WS_X=0", "== pair 1 FLASHVIZ_WS_X=1", "== pair 2 FLASHVIZ_WS_X=1",
                     "== pair 2 FLASHVIZ_WS_X=0"]
    names = [f"window-fit-d128-x{e}-pair{p}-t38" for p, e in ((1, 0), (1, 1), (2, 1), (2, 0))]
    shares = [line for line in r.stdout.splitlines() if line.startswith("SHARES")]
    assert shares == ["SHARES -m tools.window_fit --shares " + " ".join(f"{out}/win/{n}.json" for n in names)]
    with tarfile.open(out / "win-ab-x.tgz") as tar:
        packed = {Path(n).name for n in tar.getnames()}
        runs = [t for n in tar.getnames() if n.endswith(".log") for t in tar.extractfile(n).read().decode().split("\n")
                if t]
    assert packed >= {f"{n}.{x}" for n in names for x in ("json", "log")} and not (out / "win").exists()
    assert sorted(runs) == sorted(f"RUN X={e} -m tools.window_fit --d 128 --windows 512 1024 2048 --rounds 4 "
                                  f"--no-fa4 --out {out}/win/window-fit-d128-x{e}-pair{p}-t38.json"
                                  for p in (1, 2) for e in (0, 1))


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_named_check_times_both_sides_then_runs_the_forced_gpu_file(tmp_path, device_copy):
    """tools/device/named_check.sh: after fv_start, fa4_rounds --switch FLASHVIZ_WS_NAMED=0,1 over the dense cells,
    window_fit --switch over the d = 128 windows (both with their sides in one process: the variable unset), then the
    ws forward's GPU files (dense and variants) through tools.suite_summary with FLASHVIZ_WS_NAMED=1; rounds and
    seconds from NAMED_*.
    Run from a copy of tools/device with a stand-in triton build and a python3 stub that records each call."""
    work, bin_dir = device_copy('[ "$1" = -m ] && echo "RUN N=${FLASHVIZ_WS_NAMED:-unset} $*"\nexit 0\n')
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run(["bash", "tools/device/named_check.sh"], cwd=work, capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, OUT=str(out), FLASHVIZ_GIT_COMMIT="abc", NAMED_ROUNDS="3",
                                            NAMED_SUITE_S="90", PATH=f"{bin_dir}:{os.environ['PATH']}"))
    assert r.returncode == 0, r.stdout + r.stderr
    runs = [line for f in ("named-switch.log", "wf-named.log", "named-ws-gpu.log")
            for line in (out / f).read_text().splitlines() if line.startswith("RUN")]
    assert runs == [
        "RUN N=unset -m tools.fa4_rounds --switch FLASHVIZ_WS_NAMED=0,1 --mode fwd --d 64 128 --causal 0 1 "
        f"--n 4096 16384 --rounds 3 --out {out}/named-switch.json",
        "RUN N=unset -m tools.window_fit --switch FLASHVIZ_WS_NAMED --d 128 --windows 512 1024 2048 --rounds 6 "
        f"--out {out}/wf-named-0.json {out}/wf-named-1.json",
        f"RUN N=1 -m tools.suite_summary --out {out}/named-ws-gpu.json --junit {out}/named-ws-gpu.xml --timeout-s 90 "
        "-- -m gpu -p no:cacheprovider -q -n 12 --dist load --continue-on-collection-errors "
        "tests/kernels/test_ws_gpu.py tests/kernels/test_ws_variants_gpu.py"]


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_named_check_runs_only_the_parts_named(tmp_path, device_copy):
    """named_check.sh windows suite: the dense A/B is left out (a late machine with little device time finishes the
    parts it is given); an unknown part stops the script before any run."""
    work, bin_dir = device_copy('[ "$1" = -m ] && echo "RUN $*"\nexit 0\n')
    env = dict(os.environ, FLASHVIZ_GIT_COMMIT="abc", PATH=f"{bin_dir}:{os.environ['PATH']}")
    (r, _), (bad, _) = (_run_parts(tmp_path, work, str(k), ["tools/device/named_check.sh", *parts], env)
                        for k, parts in enumerate((["windows", "suite"], ["window"])))
    out, bad_out = tmp_path / "out-0", tmp_path / "out-1"
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(f.name for f in out.iterdir() if f.suffix == ".log") == ["named-ws-gpu.log", "wf-named.log"]
    assert "-m tools.window_fit" in (out / "wf-named.log").read_text()
    assert bad.returncode == 2 and "unknown part window" in bad.stdout and not any(bad_out.iterdir())


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_h200_check_runs_the_parts_named_and_only_on_an_h200(tmp_path, device_copy):
    """tools/device/h200_check.sh PART...: "half suite" runs HALF's same-process rounds and the GPU files but not
    SKIP's A/B; "time" is half and skip; another GPU runs nothing; an unknown part stops it before fv_start."""
    work, bin_dir = device_copy((
        'if [ "$1" = -c ]; then [[ "$2" == *get_device_name* ]] && echo "${FAKE_GPU}"; exit 0; fi\n'
        'echo "RUN $*"; exit 0\n'))
    env = dict(os.environ, FLASHVIZ_GIT_COMMIT="abc", PATH=f"{bin_dir}:{os.environ['PATH']}", FV_AB_S="5")
    got = {key: _run_parts(tmp_path, work, key, ["tools/device/h200_check.sh", *parts], dict(env, FAKE_GPU=gpu))
           for key, gpu, parts in (("hs", "NVIDIA H200", ["half", "suite"]), ("time", "NVIDIA H200", ["time"]),
                                   ("h100", "NVIDIA H100 80GB HBM3", ["half"]), ("bad", "NVIDIA H200", ["halve"]))}
    r, runs = got["hs"]
    assert r.returncode == 0, r.stdout + r.stderr
    assert any("-m tools.fa4_rounds --switch FLASHVIZ_WS_HALF=0,1" in x for x in runs)
    assert any("-m tools.suite_summary" in x and "tests/kernels/test_ws_half.py" in x for x in runs)
    assert not any("FLASHVIZ_WS_SKIP" in x or "skip38" in x for x in runs) and "skip-ab" not in r.stdout
    r, runs = got["time"]
    assert r.returncode == 0, r.stdout + r.stderr
    assert any("FLASHVIZ_WS_HALF=0,1" in x for x in runs) and "skip-ab.txt" in {
        f.name for f in (tmp_path / "out-time").iterdir()}
    assert not any("suite_summary" in x for x in runs)
    r, runs = got["h100"]
    assert r.returncode == 0 and "not an H200" in r.stdout and runs == []
    r, runs = got["bad"]
    assert r.returncode == 2 and "unknown part halve" in r.stdout and not any((tmp_path / "out-bad").iterdir())


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_d64_check_alternates_the_switch_then_runs_the_forced_gpu_files(tmp_path, device_copy):
    """tools/device/d64_check.sh FLASHVIZ_WS_POLY: "ab" runs fa4_rounds on the d = 64 cells with the switch 0 and 1
    in alternating processes (fv_ab), "suite" the ws forward's GPU files with it forced; "suite" alone leaves the
    A/B out; an unknown part stops it before fv_start."""
    work, bin_dir = device_copy((
        'if [[ " $* " == *" --ab "* ]]; then echo "AB"; exit 0; fi\n'
        '[ "$1" = -m ] && echo "RUN P=${FLASHVIZ_WS_POLY:-unset} $*"; exit 0\n'))
    env = dict(os.environ, FLASHVIZ_GIT_COMMIT="abc", PATH=f"{bin_dir}:{os.environ['PATH']}", D64_PAIRS="1")
    got = {key: _run_parts(tmp_path, work, key, ["tools/device/d64_check.sh", "FLASHVIZ_WS_POLY", *parts], env)
           for key, parts in (("all", []), ("suite", ["suite"]), ("bad", ["abb"]))}
    r, runs = got["all"]
    assert r.returncode == 0, r.stdout + r.stderr
    cells = "--rounds 3 --rep-ms 60 --mode fwd --d 64 --causal 0 1 --n 4096 16384"
    assert sorted(x.split(" --out ")[0] for x in runs if "fa4_rounds" in x) == [
        f"RUN P=0 -m tools.fa4_rounds {cells}", f"RUN P=1 -m tools.fa4_rounds {cells}"]
    assert [x.split(" -- ")[1] for x in runs if "suite_summary" in x and x.startswith("RUN P=1 ")] == [
        "-m gpu -p no:cacheprovider -q -n 12 --dist load --continue-on-collection-errors "
        "tests/kernels/test_ws_poly.py tests/kernels/test_ws_mma_sum.py tests/kernels/test_ws_gpu.py "
        "tests/kernels/test_ws_variants_gpu.py"]
    r, runs = got["suite"]
    assert r.returncode == 0 and not any("fa4_rounds" in x for x in runs) and any("suite_summary" in x for x in runs)
    r, runs = got["bad"]
    assert r.returncode == 2 and "unknown part abb" in r.stdout and runs == []
