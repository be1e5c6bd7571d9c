"""The developer tools (tools/) on this machine: the GPU-suite summary's counting and schema, the count of
`_`-names crossing module boundaries (it stays at the few left in files other rooms own), and the compile-side checks
(ptx_same, compile_check, the HALF check). The timing tools' tests are in test_timing_tools.py."""
import json
import os

from flashviz.bench import evidence
from helpers.ws import needs_verified_triton
from tools import private_names, suite_summary

JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="2"
skipped="5" tests="40" time="12.0"></testsuite></testsuites>"""


def test_the_suite_summary_counts_what_pytest_reported(tmp_path):
    xml = tmp_path / "j.xml"
    xml.write_text(JUNIT)
    got = suite_summary.counts(str(xml))
    assert got == dict(passed=32, failed=2, skipped=5, errors=1)
    data = suite_summary.summary(["-m", "gpu"], got)
    assert evidence.suite_problems(json.loads(json.dumps(data))) == []
    assert data["command"] == "python -m pytest -m gpu" and data["versions"]["triton"]


def test_the_suite_summary_writes_a_file_the_evidence_check_reads(tmp_path, monkeypatch):
    """main() with a fake pytest run: the file it writes is a Suite claim's file; failures make it refuse."""
    class FakePytest:                                  # writes its report and exits 0, as a passing run would
        def __init__(self, args):
            path = next(a.split("=", 1)[1] for a in args if a.startswith("--junitxml="))
            open(path, "w").write(JUNIT.replace('failures="2"', 'failures="0"').replace('errors="1"', 'errors="0"'))

        def wait(self, timeout=None):
            return 0
    monkeypatch.setattr(suite_summary, "start_pytest", FakePytest)
    monkeypatch.setattr(suite_summary, "collect", lambda args: [])
    out, junit = tmp_path / "s.json", tmp_path / "kept.xml"
    assert suite_summary.main(["--out", str(out), "--junit", str(junit), "--", "-m", "gpu", "-q"]) == 0
    assert suite_summary.counts(str(junit))["passed"] == 35                  # the report kept beside it
    from flashviz_kernels.claims import Suite
    verdict = evidence.check(Suite(str(out)))
    assert verdict.ok and "35 passed, 0 failed" in verdict.text


ALLOWED: set = set()         # no private name crosses a module boundary in the library


def test_no_private_name_crosses_a_module_boundary_in_the_library():
    rows = private_names.scan(["flashviz", "kernels", "tools"])
    names = {(f, n) for kind, f, _, n, _ in rows if kind == "name"}
    assert names <= ALLOWED, sorted(names - ALLOWED)


def test_the_scan_sees_a_crossing(tmp_path, monkeypatch):
    pkg = tmp_path / "kernels"
    pkg.mkdir()
    (pkg / "a.py").write_text("def _hidden():\n    pass\n")
    (pkg / "b.py").write_text("from .a import _hidden\nfrom . import a\nx = a._hidden\n")
    monkeypatch.setattr(private_names, "ROOT", tmp_path)
    monkeypatch.setitem(private_names.PACKAGES, "flashviz_kernels", pkg)
    rows = private_names.scan([str(pkg)])
    assert sorted((k, t, n) for k, _, t, n, _ in rows) == [("name", "flashviz_kernels.a", "_hidden")] * 2


RUN = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="5">
<testcase classname="tests.test_a_gpu" name="test_x[1]"/><testcase classname="tests.test_a_gpu" name="test_x[2]"/>
<testcase classname="tests.kernels.test_b_gpu" name="test_y"><failure message="dv wrong"/></testcase>
<testcase classname="tests.test_c" name="test_z"><skipped message="needs a CUDA GPU"/></testcase>
<testcase classname="" name="tests.test_pages"><error message="collection failure"/></testcase>
</testsuite></testsuites>"""


def test_per_file_counts_say_which_files_ran_whole(tmp_path, monkeypatch):
    """An interrupted run (test_a_gpu collected 3, ran 2) and a failure elsewhere (test_b_gpu): a Suite claim on
    test_c holds, on test_a_gpu it does not (not whole), on test_b_gpu it does not (failed); a whole-run claim
    does not (interrupted). A collection error of a module that never ran counts for no file."""
    xml = tmp_path / "run.xml"
    xml.write_text(RUN)
    ids = ["tests/test_a_gpu.py::test_x[1]", "tests/test_a_gpu.py::test_x[2]", "tests/test_a_gpu.py::test_x[3]",
           "tests/kernels/test_b_gpu.py::test_y", "tests/test_c.py::test_z"]
    files = suite_summary.file_counts(str(xml), ids)
    assert files == {"tests/test_a_gpu.py": dict(collected=3, passed=2, failed=0, skipped=0, errors=0),
                     "tests/kernels/test_b_gpu.py": dict(collected=1, passed=0, failed=1, skipped=0, errors=0),
                     "tests/test_c.py": dict(collected=1, passed=0, failed=0, skipped=1, errors=0)}
    base = suite_summary.summary(["-m", "gpu"], dict(passed=2, failed=1, skipped=1, errors=1))
    data = suite_summary.enrich(base, str(xml), ids, interrupted=True)
    assert evidence.suite_problems(json.loads(json.dumps(data))) == []
    assert any("dv wrong" in f for f in data["failures"])
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    from flashviz_kernels.claims import Suite
    assert not evidence.check(Suite(str(path))).ok                                  # interrupted, failed
    assert not evidence.check(Suite(str(path), ("tests/test_a_gpu.py",))).ok       # 2 of 3 ran
    assert not evidence.check(Suite(str(path), ("tests/kernels/test_b_gpu.py",))).ok
    assert not evidence.check(Suite(str(path), ("tests/test_c.py",))).ok           # nothing passed (all skipped)
    ids[2:3] = []                                                                   # had test_a_gpu collected 2
    data = suite_summary.enrich(base, str(xml), ids, interrupted=True)
    path = tmp_path / "s2.json"                                                     # (files are read once)
    path.write_text(json.dumps(data))
    assert evidence.check(Suite(str(path), ("tests/test_a_gpu.py",))).ok
    assert not evidence.check(Suite(str(path), ("tests/test_missing.py",))).ok


PTX = """//
.version 8.7
.visible .entry k(
{
\t.loc\t1 10 5
$L__tmp1:
\tmax.f32 \t%r1, %r2, %r3;   // inlined at 12
$L__func_end0:
\tret;
}
\t.section\t.debug_info
\t.b8 1
"""


def test_ptx_same_ignores_debug_information_and_sees_an_instruction_change(tmp_path):
    import os
    before = os.environ.get("TRITON_INTERPRET")
    from tools import ptx_same
    assert os.environ.get("TRITON_INTERPRET") == before       # importing it leaves later tests on the interpreter
    moved = PTX.replace("\t.loc\t1 10 5\n$L__tmp1:\n", "$L__tmp7:\n\t.loc\t2 3 1\n").replace("12", "40")
    moved = moved.replace("\t.b8 1", "\t.b8 2")
    assert ptx_same.body(moved) == ptx_same.body(PTX) and "max.f32" in "".join(ptx_same.body(PTX))
    assert ptx_same.body(PTX.replace("max.f32", "min.f32")) != ptx_same.body(PTX)
    assert ptx_same.body(PTX.replace("$L__func_end0:", "$L__BB0_2:")) != ptx_same.body(PTX)   # a real label
    for name, text in (("a", PTX), ("b", moved), ("c", PTX.replace("%r3", "%r4"))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "k.ptx").write_text(text)
    assert ptx_same.compare(tmp_path / "a", tmp_path / "b") == 0
    assert ptx_same.compare(tmp_path / "a", tmp_path / "c") == 1


def test_ptx_same_backward_cases_are_distinct_launches_the_backward_accepts():
    """ptx_same dump --bwd: each case has its own file name, the table's launch is among them at both head dims,
    and every case is one ws_bwd.check_tiles, prefetch_for and next_code accept (a refused one would fail the
    dump); next_s 1 (3.8's default at d = 64) is among them."""
    from flashviz_kernels import backward_table, ws_bwd
    from tools import ptx_same
    cases = ptx_same.bwd_cases()
    assert len({name for name, _ in cases}) == len(cases) == 32
    assert sum(kw.get("next_s") == 1 for _, kw in cases) == 4
    for d in (64, 128):
        f = backward_table.ws_launch(d)
        assert any(kw["d"] == d and kw["dq_mode"] == f["dq_mode"] and kw["block_m"] == f["block_m"] and
                   kw.get("table") is None for _, kw in cases)
    for _, kw in cases:
        prefetch = ws_bwd.prefetch_for(kw["d"], kw["dq_mode"], kw["prefetch"])
        ws_bwd.check_tiles(kw["d"], kw["block_m"], kw["stages"], kw["dq_split"], kw["dq_mode"], 2, prefetch)
        if kw.get("next_s"):
            assert ws_bwd.next_code(kw["next_s"], kw["dq_mode"], bool(kw["early_dq"]), False, prefetch, True,
                                    kw["stages"]) == kw["next_s"]


def test_compile_check_skips_what_the_ws_backward_refuses():
    """`python -m tools.compile_check --ws-bwd` names and skips a combination ws_bwd.check_tiles refuses ("rows" at
    d = 128: its 128-row blocks do not fit), with the refusal, instead of compiling it into an MLIR error; a retired
    mode is refused by argparse. Importing the module leaves TRITON_INTERPRET alone. main() runs in a process of its
    own: it sets TRITON_INTERPRET=0, so kernel modules it imported first would be made for the compiler, not the
    interpreter, and every later CPU kernel test of this process would fail ("Cannot call @triton.jit'd outside of
    the scope of a kernel": seen when this test ran first on a worker)."""
    import subprocess
    import sys
    from pathlib import Path

    before = os.environ.get("TRITON_INTERPRET")
    from tools import compile_check  # noqa: F401
    assert os.environ.get("TRITON_INTERPRET") == before       # importing it leaves later tests on the interpreter
    root = Path(__file__).resolve().parents[2]
    run = lambda *a: subprocess.run([sys.executable, "-m", "tools.compile_check", "--ws-bwd", *a],  # noqa: E731
                                    cwd=root, capture_output=True, text=True, timeout=300,
                                    env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    done = run("--dq-mode", "rows", "--ws-d", "128")
    lines = [line for line in done.stdout.splitlines() if line.startswith("  rows")]
    assert done.returncode == 0 and len(lines) == 2, done.stdout + done.stderr
    assert all("bm=128" in line and ": skipped, the ws backward runs" in line for line in lines)
    refused = run("--dq-mode", "partial")
    assert refused.returncode == 2 and "invalid choice: 'partial'" in refused.stderr


def test_compile_check_marks_a_tile_the_ws_forward_refuses():
    """`python -m tools.compile_check --ws --block-n 256`: a tile ws.forward refuses (ws.tile_problem) is still
    reported, marked as refused, so the file that says why (ws_schedule.WIDE_BN's) can show it: at d = 128 every
    launch's K/V ring outgrows shared memory, which the report says before compiling anything."""
    import subprocess
    import sys
    from pathlib import Path

    needs_verified_triton()
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "tools.compile_check", "--ws", "--ws-d", "128", "--consumers", "2",
                           "--block-n", "256"], cwd=root, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    lines = [line for line in done.stdout.splitlines() if line.startswith("  NC=2 d=128")]
    assert done.returncode == 0 and len(lines) == 14, done.stdout + done.stderr
    assert all("bn=256" in line and "(ws.forward refuses this tile) skipped: needs" in line for line in lines)


def test_compile_check_names_ptxas_fatal_line():
    """A failed compile is reported by ptxas's own reason (triton's first line says only that ptxas failed)."""
    from tools.compile_check import _first_error
    e = RuntimeError("PTXAS error: Internal Triton PTX codegen error\n`ptxas` stderr:\nptxas fatal   : (C7602) "
                     "Insufficient registers (128) to compile instruction\nptxas fatal   : Ptx assembly aborted")
    assert _first_error(e) == "ptxas fatal   : (C7602) Insufficient registers (128) to compile instruction"
    assert _first_error(ValueError("one line\ntwo")) == "one line" and _first_error(ValueError("")) == ""


def test_half_check_names_the_slices_off_and_their_place_in_the_walk():
    """tools.half_check: a 64-row slice over 0.02 is named by head, query block (last to first per head), consumer
    and its place in its program's walk; the reference is float64 causal attention with the window's left side."""
    import torch

    from tools.half_check import bad_slices, reference
    err = torch.zeros(1, 2, 300)
    err[0, 1, 130] = 0.5                                  # head 1, block 1 (rows 128..255), consumer 0
    err[0, 0, 299] = 0.03                                 # head 0, block 2 (rows 256..299), consumer 0
    got = bad_slices(err, 300, 2, programs=2)
    # walk: t = 0..5 is (h0 b2), (h0 b1), (h0 b0), (h1 b2), (h1 b1), (h1 b0); program p runs t = p, p + 2, ..
    assert got == [dict(head=0, block=2, consumer=0, err=0.03, i=0), dict(head=1, block=1, consumer=0, err=0.5, i=2)]
    assert [s["i"] for s in bad_slices(err, 300, 2, programs=None)] == [None, None]
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, n, 16, generator=g) for n in (5, 7, 7))
    s = (q.double() @ k.double().transpose(-1, -2)) * 0.088
    r = torch.arange(5)[:, None] + 2
    j = torch.arange(7)[None, :]
    want = torch.softmax(s.masked_fill((j > r) | (j < r - 1), float("-inf")), -1) @ v.double()
    assert torch.allclose(reference(q, k, v, 1), want)
