"""Summarise a pytest junit file from a GPU run: counts, then each failure and error with its first lines.

    python tools/device/junit_summary.py RUN.xml [--json]
"""
import json
import sys
import xml.etree.ElementTree as ET


def summary(path: str) -> dict:
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    out = dict(tests=0, passed=0, failed=0, errors=0, skipped=0, time_s=0.0, problems=[])
    for s in suites:
        out["time_s"] += float(s.get("time", 0))
        for case in s.iter("testcase"):
            out["tests"] += 1
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            bad = [c for c in case if c.tag in ("failure", "error")]
            if bad:
                out["failed" if bad[0].tag == "failure" else "errors"] += 1
                text = (bad[0].get("message") or bad[0].text or "").strip().splitlines()
                out["problems"].append(f"{bad[0].tag.upper()} {name}: {' | '.join(text[:3])[:400]}")
            elif any(c.tag == "skipped" for c in case):
                out["skipped"] += 1
            else:
                out["passed"] += 1
    return out


if __name__ == "__main__":
    s = summary(sys.argv[1])
    if "--json" in sys.argv:
        print(json.dumps(s, indent=1))
    else:
        print(f"{s['tests']} tests: {s['passed']} passed, {s['failed']} failed, {s['errors']} errors, "
              f"{s['skipped']} skipped, {s['time_s']:.0f} s")
        print("\n".join(s["problems"]))
