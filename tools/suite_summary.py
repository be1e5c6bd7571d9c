"""Run the GPU test suite and keep its summary as evidence for a gate row (kernels/gates.py):

    FLASHVIZ_UNVERIFIED=1 python -m tools.suite_summary                 # = python -m pytest -m gpu, then the file
    FLASHVIZ_UNVERIFIED=1 python -m tools.suite_summary -- -m gpu tests/kernels/test_ws_gpu.py tests/kernels/test_ws_bwd_gpu.py

FLASHVIZ_UNVERIFIED=1 lets the Gluon kernels, the fused backward and the timeline run on a triton no row verifies
yet, so the suite tests them there (without it they fall back and their GPU tests skip or test the fallback). The
summary goes to assets/verified/<gpu>-triton-<version>.json (flashviz.bench.evidence.SUITE_FIELDS: versions, the
suite command, passed / failed / skipped / errors, commit, date); a row
    Verified("ws-forward", "3.10.", (9, 0), Suite("assets/verified/nvidia-h200-triton-3.10.0.json")),
in kernels/gates.py then widens the gate, and tests/kernels/test_dispatch_evidence.py checks the file (nothing failed).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def counts(junit_xml: str) -> dict:
    """passed / failed / skipped / errors of a pytest --junitxml file (its testsuite elements summed)."""
    root = ET.parse(junit_xml).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    total = {k: sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
    return dict(passed=total["tests"] - total["failures"] - total["errors"] - total["skipped"],
                failed=total["failures"], skipped=total["skipped"], errors=total["errors"])


def failures(junit_xml: str, lines: int = 3) -> list[str]:
    """'FAILURE|ERROR test id: first lines of the message' for each test that did not pass."""
    out = []
    for case in ET.parse(junit_xml).getroot().iter("testcase"):
        bad = next((c for c in case if c.tag in ("failure", "error")), None)
        if bad is not None:
            text = (bad.get("message") or bad.text or "").strip().splitlines()[:lines]
            out.append(f"{bad.tag.upper()} {case.get('classname', '')}::{case.get('name', '')}: "
                       f"{' | '.join(text)[:400]}")
    return out


def summary(pytest_args: list[str], result: dict) -> dict:
    """The summary file's fields (flashviz.bench.evidence.SUITE_FIELDS) for a finished run."""
    import torch
    import triton

    from tools.tune_record import commit, switches
    cap = torch.cuda.get_device_capability(0) if torch.cuda.is_available() else None
    return dict(kind="flashviz-gpu-suite", schema_version=1,
                gpu=torch.cuda.get_device_name(0) if cap else "no CUDA device",
                capability=f"{cap[0]}.{cap[1]}" if cap else "0.0",
                versions=dict(triton=triton.__version__, torch=torch.__version__, python=platform.python_version(),
                              cuda=str(torch.version.cuda)),
                command=" ".join(["python -m pytest", *pytest_args]),
                unverified_env=os.environ.get("FLASHVIZ_UNVERIFIED", ""),
                switches=switches(), **result, commit=commit() or "unknown",
                date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def start_pytest(args: list[str]) -> subprocess.Popen:
    """`python -m pytest ARGS` in the checkout's root, started."""
    return subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=ROOT)


def test_file(classname: str, name: str) -> str | None:
    """The test file a junit testcase belongs to ('tests.kernels.test_ws_gpu' -> 'tests/kernels/test_ws_gpu.py'); None
    for a collection error of a module that never ran (its classname is empty)."""
    return classname.replace(".", "/") + ".py" if classname.startswith("tests") else None


def file_counts(junit_xml: str, collected: list[str]) -> dict:
    """Per test file: how many tests the run collected there (`collected`: pytest's node ids) and how each ended."""
    out = {}
    for node in collected:
        f = node.split("::", 1)[0]
        out.setdefault(f, dict(collected=0, passed=0, failed=0, skipped=0, errors=0))["collected"] += 1
    for case in ET.parse(junit_xml).getroot().iter("testcase"):
        f = test_file(case.get("classname", ""), case.get("name", ""))
        if f is None:
            continue
        c = out.setdefault(f, dict(collected=0, passed=0, failed=0, skipped=0, errors=0))
        tags = {x.tag for x in case}
        c["failed" if "failure" in tags else "errors" if "error" in tags else "skipped" if "skipped" in tags
          else "passed"] += 1
    return out


def collect(pytest_args: list[str]) -> list[str]:
    """Node ids `pytest --collect-only` finds with these arguments (xdist and report options left out)."""
    keep, skip = [], False
    for a in pytest_args:
        if skip:
            skip = False
            continue
        if a in ("-n", "--dist", "-p"):
            skip = True
            continue
        if a.startswith(("-n", "--dist=", "--junitxml", "-q")):
            continue
        keep.append(a)
    out = subprocess.run([sys.executable, "-m", "pytest", *keep, "--collect-only", "-q", "-p", "no:cacheprovider"],
                         cwd=ROOT, capture_output=True, text=True)
    return [line.strip() for line in out.stdout.splitlines() if "::" in line]


def enrich(data: dict, junit_xml: str, collected: list[str], interrupted: bool) -> dict:
    """The summary with each test file's counts, the failures and whether the run was cut short."""
    return dict(data, interrupted=interrupted, files=file_counts(junit_xml, collected), failures=failures(junit_xml))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="summary path (default assets/verified/<gpu>-triton-<version>.json)")
    ap.add_argument("--junit", help="also keep pytest's junit report here")
    ap.add_argument("--timeout-s", type=float, help="interrupt pytest after this long (it still writes its report)")
    ap.add_argument("--enrich", nargs=4, metavar=("SUMMARY", "JUNIT", "COLLECTED", "INTERRUPTED"),
                    help="add per-file counts to a summary written earlier: its junit report, a file of the node "
                         "ids that run collected (pytest --collect-only -q at its commit), and yes/no")
    ap.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments (default: -m gpu -q)")
    args = ap.parse_args(argv)
    if args.enrich:
        path, xml, ids, cut = args.enrich
        data = enrich(json.loads(Path(path).read_text()), xml,
                      [x.strip() for x in Path(ids).read_text().splitlines() if "::" in x], cut == "yes")
        Path(args.out or path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        return 0
    pytest_args = args.pytest_args or ["-m", "gpu", "-q"]
    collected = collect(pytest_args)
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "junit.xml")
        proc = start_pytest([*pytest_args, f"--junitxml={xml}"])
        interrupted = False
        try:
            rc = proc.wait(args.timeout_s)
        except subprocess.TimeoutExpired:                # an interrupted run still reports what it ran
            proc.send_signal(signal.SIGINT)
            rc, interrupted = proc.wait(), True
        if not os.path.exists(xml):
            raise SystemExit(f"pytest wrote no report (exit {rc})")
        data = enrich(summary(pytest_args, counts(xml)), xml, collected, interrupted)
        if args.junit:
            shutil.copy(xml, args.junit)
    from flashviz.bench.evidence import suite_problems
    wrong = suite_problems(data)
    if wrong:
        raise SystemExit(f"the summary does not follow its schema: {wrong}")
    slug = "".join(ch if ch.isalnum() else "-" for ch in data["gpu"].lower()).strip("-")
    name = f"{slug}-triton-{data['versions']['triton']}.json"
    out = Path(args.out) if args.out else ROOT / "assets" / "verified" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}: {data['passed']} passed, {data['failed']} failed, {data['errors']} errors, "
          f"{data['skipped']} skipped (pytest exit {rc}{', interrupted' if interrupted else ''})")
    print("\n".join(data["failures"]))
    return 0 if data["failed"] == data["errors"] == 0 and not interrupted else 1


if __name__ == "__main__":
    raise SystemExit(main())
