"""Read any recording under assets/ as flat timed records, and check a dispatch row's claims against its file.

The claims (flashviz_kernels.claims: Faster, Fastest, NotFaster, Ran, Suite) are data in the kernels' tables; this
module is the one place that opens their files. records(path) reads:
  - bench datasets (forward / training / ws runs: python -m flashviz.bench): one record per cell, name = impl,
    with ms and graph_ms, dtype, mode, status, correct (fp16 forward cells unless a claim's `where` says otherwise);
  - timeline datasets (proton): one per cell (name = impl, status);
  - variants datasets: one per cell (name = impl, variant, n, ms, correct);
  - tune_ws JSON (rows with consumers / block_n / stages / overlap / pingpong / persistent): one per row (name
    "ws" and those fields), plus "sdpa-cudnn" and "tl" per cell from the row's cudnn_ms and fast_ms;
  - tune_backward JSON (rows of impls): one per impl and row (its name as the file spells it, ms, maxerr, error);
  - tune_fast / tune_backward text outputs (`# ...` header, then blocks "d=128 N=16384 window (1024, 0) ..." or
    "d=128 N=8192 causal=False" and lines "  NAME: 3.142 ms" / "  NAME   3.142 ms"): one per line; the older name
    "ws CONFIGS" reads as "ws as picked" (tune_fast's docstring);
  - GPU-suite summaries (assets/verified/*.json, SUITE_FIELDS); tools.half_check's JSON: its provenance, no records;
  - tools.window_trace's JSON (a persistent window's query-tile edges, in cycles): its provenance, no records;
  - server measurements (assets/load/: load test, CPU profile, memory curve): their provenance, no records.
A cell is one (n, d, causal, variant) of the records kept; check() compares the selected records cell by cell.
"""
from __future__ import annotations

import fnmatch
import functools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from flashviz_kernels.claims import Fastest, Faster, NotFaster, Ran, Suite

ROOT = Path(__file__).resolve().parents[2]
CELL = ("n", "d", "causal", "variant")
# device name -> compute capability, for files whose provenance names only the device (tune runs)
CAPABILITY = {"NVIDIA H200": (9, 0), "NVIDIA H100 80GB HBM3": (9, 0), "NVIDIA H100": (9, 0)}
SUITE_KIND = "flashviz-gpu-suite"
NCU_KIND = "ncu-pair"                 # tools/ncu_pair.py's records (assets/benchmarks/ncu/)
SUITE_FIELDS = {"kind": str, "schema_version": int, "gpu": str, "capability": str, "versions": dict, "command": str,
                "passed": int, "failed": int, "skipped": int, "errors": int, "commit": str, "date": str}
# optional: "interrupted" (bool: the run hit its time limit), "files" ({test file: FILE_COUNTS}), "failures" ([str]),
# "switches" ({FLASHVIZ_WS_* variable: value} set for the run)
FILE_COUNTS = ("collected", "passed", "failed", "skipped", "errors")


class EvidenceError(ValueError):
    """A file a claim names is missing or has no records the claim can use."""


@dataclass(frozen=True)
class Source:
    path: str
    kind: str
    triton: str | None
    capability: tuple | None
    commit: str | None
    records: tuple
    raw: object


def _cap(text) -> tuple | None:
    if isinstance(text, str) and re.fullmatch(r"\d+\.\d+", text):
        return tuple(int(x) for x in text.split("."))
    return None


@functools.lru_cache(maxsize=64)
def load(path: str) -> Source:
    """The file at `path` (relative to the repository root) as a Source; cached (records are tuples of read-only
    dicts' copies: callers get fresh dicts from records())."""
    p = ROOT / path
    if not p.is_file():
        raise EvidenceError(f"{path}: no such file")
    if p.suffix == ".txt":
        return _text(path, p.read_text(encoding="utf-8"))
    obj = json.loads(p.read_text(encoding="utf-8"))
    if obj.get("kind") == SUITE_KIND:
        problems = suite_problems(obj)
        if problems:
            raise EvidenceError(f"{path}: not a valid GPU-suite summary: {'; '.join(problems)}")
        return Source(path, "suite", obj["versions"].get("triton"), _cap(obj["capability"]), obj["commit"], (), obj)
    if obj.get("kind") == NCU_KIND:                          # tools/ncu_pair.py: profiler metrics, no timings
        prov = obj["provenance"]
        return Source(path, "ncu", prov.get("triton"), _cap(prov.get("compute_capability")), prov.get("git_commit"),
                      (), obj)
    if str(obj.get("command", "")).startswith("python -m tools.window_trace"):   # a proton trace's medians (cycles)
        return Source(path, "trace", obj.get("triton"), CAPABILITY.get(obj.get("device")), obj.get("git_commit"), (),
                      obj)
    if "cells" in obj and "provenance" in obj:
        prov = obj["provenance"]
        recs = []
        for c in obj["cells"]:
            r = dict(name=c.get("impl"), n=c.get("n"), d=c.get("d", (obj.get("config") or {}).get("d")),
                     causal=c.get("causal", True if "variant" in c else None), variant=c.get("variant"),
                     dtype=c.get("dtype"), mode=c.get("mode"), status=c.get("status"), correct=c.get("correct"),
                     ms=c.get("ms") if c.get("status") == "ok" else None,
                     graph_ms=c.get("graph_ms") if c.get("status") == "ok" else None)
            recs.append(r)
        return Source(path, obj.get("kind", "dataset"), prov.get("triton"), _cap(prov.get("compute_capability")),
                      prov.get("git_commit"), tuple(recs), obj)
    if isinstance(obj.get("provenance"), dict):              # a server measurement (assets/load/): no kernel cells
        prov = obj["provenance"]
        return Source(path, "server", prov.get("triton"), None, prov.get("git_commit"), (), obj)
    if isinstance(obj.get("rows"), list):
        triton = obj.get("triton") or (obj.get("status") or {}).get("triton")
        cap = CAPABILITY.get(obj.get("device", "NVIDIA H200" if "status" in obj else None))
        if str(obj.get("command", "")).startswith("python -m tools.half_check"):    # a correctness check: no times
            return Source(path, "check", triton, cap, obj.get("git_commit"), (), obj)
        if str(obj.get("command", "")).startswith("python -m tools.window_fit"):    # impl="fast" as dispatched,
            recs = tuple(dict(n=row["n"], d=row["d"], causal=True, window=row["window"], name=row["kernel"],  # causal
                              variant=None if row["window"] is None else "window", block_m=row["block_m"],
                              block_n=row["block_n"], ms=row["ms"], status="ok") for row in obj["rows"])
            return Source(path, "tune", triton, cap, obj.get("git_commit"), recs, obj)
        recs = []
        for row in obj["rows"]:
            cell = dict(n=row["n"], d=row["d"], causal=row.get("causal", True if obj.get("variant") else None),
                        variant=obj.get("variant"))
            if "impls" in row:
                for name, x in row["impls"].items():
                    recs.append(dict(cell, name=name, ms=x.get("ms"), maxerr=x.get("maxerr"), error=x.get("error"),
                                     status="ok" if "ms" in x else "error", dq_adds="no dQ adds" not in name))
            else:
                recs.append(dict(cell, name="ws", ms=row["ms"], consumers=row.get("consumers", 2),
                                 **{k: row.get(k) for k in ("block_n", "stages", "overlap", "pingpong", "persistent",
                                                            "groups")}, status="ok"))
                for name, key in (("sdpa-cudnn", "cudnn_ms"), ("tl", "fast_ms")):
                    if not any(r["name"] == name and all(r[k] == cell[k] for k in cell) for r in recs):
                        recs.append(dict(cell, name=name, ms=row[key], status="ok"))
        return Source(path, "tune", triton, cap, obj.get("git_commit"), tuple(recs), obj)
    raise EvidenceError(f"{path}: not a recording this module reads")


_HEAD = re.compile(r"^# (?P<device>.+?) \(driver .*?triton (?P<triton>[\w.+]+), commit (?P<commit>\w+)")
_BLOCK = re.compile(r"^d=(?P<d>\d+) N=(?P<n>\d+)(?: causal=(?P<causal>True|False))?(?P<rest>.*)$")
_LINE = re.compile(r"^  (?P<name>\S.*?)(?::\s+|\s{2,})(?P<ms>[\d.]+) ms\b")


def _text(path: str, text: str) -> Source:
    """A tune_fast / tune_backward text output: its '#' header (device, triton, commit) and its timed lines."""
    head = _HEAD.match(text.splitlines()[0]) if text else None
    recs, cell = [], None
    for line in text.splitlines():
        m = _BLOCK.match(line)
        if m:
            rest = m["rest"]
            variant = next((v for v in ("window", "alibi", "docs") if f" {v}" in rest), None)
            cell = dict(n=int(m["n"]), d=int(m["d"]), causal=(m["causal"] == "True") if m["causal"] else True,
                        variant=variant)
            continue
        m = _LINE.match(line)
        if m and cell is not None:
            name = "ws as picked" if m["name"] == "ws CONFIGS" else m["name"]
            recs.append(dict(cell, name=name, ms=float(m["ms"]), status="ok"))
    return Source(path, "text", head["triton"] if head else None,
                  CAPABILITY.get(head["device"]) if head else None, head["commit"] if head else None, tuple(recs), text)


def suite_problems(obj) -> list[str]:
    """What is wrong with a GPU-suite summary ([] when it follows SUITE_FIELDS: counts >= 0, versions.triton and
    versions.torch strings, a compute capability like "9.0", a date like 2026-12-02)."""
    out = []
    if not isinstance(obj, dict):
        return ["not an object"]
    for k, t in SUITE_FIELDS.items():
        if not isinstance(obj.get(k), t) or isinstance(obj.get(k), bool):
            out.append(f"{k} must be {t.__name__}")
    if out:
        return out
    if obj["kind"] != SUITE_KIND or obj["schema_version"] != 1:
        out.append(f"kind must be {SUITE_KIND!r}, schema_version 1")
    if any(obj[k] < 0 for k in ("passed", "failed", "skipped", "errors")):
        out.append("counts must be >= 0")
    if not all(isinstance(obj["versions"].get(k), str) for k in ("triton", "torch")):
        out.append("versions needs triton and torch strings")
    if _cap(obj["capability"]) is None:
        out.append("capability must look like 9.0")
    if not re.fullmatch(r"\d{4}-\d\d-\d\d.*", obj["date"]):
        out.append("date must start YYYY-MM-DD")
    if not re.fullmatch(r"[0-9a-f]{7,40}", obj["commit"]):
        out.append("commit must be a git hash")
    if "interrupted" in obj and not isinstance(obj["interrupted"], bool):
        out.append("interrupted must be true or false")
    for f, c in (obj.get("files") or {}).items():            # optional: per test file, as the run named them
        if not isinstance(c, dict) or any(not isinstance(c.get(k), int) or c[k] < 0 for k in FILE_COUNTS):
            out.append(f"files[{f!r}] needs counts {', '.join(FILE_COUNTS)} >= 0")
    return out


def _match(value, want) -> bool:
    if isinstance(want, (tuple, list)):
        return any(_match(value, w) for w in want)
    if isinstance(want, str) and "*" in want:
        return isinstance(value, str) and fnmatch.fnmatchcase(value, want)
    return value == want


def select(src: Source, sel, where=()) -> list[dict]:
    """Fresh copies of the records matching every field of `sel` and of `where` (bench datasets: fp16 forward
    cells unless `where` names dtype / mode)."""
    where = dict(where)
    if src.kind not in ("tune", "text", "suite"):
        where.setdefault("dtype", "float16") if any(r.get("dtype") for r in src.records) else None
        where.setdefault("mode", "fwd") if any(r.get("mode") for r in src.records) else None
    both = {**dict(where), **dict(sel)}
    return [dict(r) for r in src.records if all(_match(r.get(k), v) for k, v in both.items())]


def _cells(recs: list[dict], metric: str) -> dict:
    """cell -> least metric over the records (those without the metric left out)."""
    out = {}
    for r in recs:
        x = r.get(metric)
        if isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0:
            key = tuple(r.get(k) for k in CELL)
            out[key] = min(out.get(key, math.inf), x)
    return out


@dataclass(frozen=True)
class Verdict:
    ok: bool
    text: str           # what the file shows, in one line (the figures compared)
    cells: tuple = ()   # (cell, a, b) per compared cell


def _pairs(src, a, b, where, metric):
    """(cell, a's metric, the least metric of b's records that are not a's) per cell with both."""
    others = [r for r in select(src, b, where) if not all(_match(r.get(k), v) for k, v in dict(a).items())]
    ta, tb = _cells(select(src, a, where), metric), _cells(others, metric)
    common = sorted(set(ta) & set(tb), key=lambda k: tuple(str(x) for x in k))
    if not common:
        raise EvidenceError(f"{src.path}: no cell has both {dict(a)} and {dict(b)} ({metric}, where {dict(where)})")
    return [(k, ta[k], tb[k]) for k in common]


def _label(sel) -> str:
    return ", ".join(f"{k}={v}" for k, v in dict(sel).items()) if len(sel) != 1 or "name" not in sel \
        else str(sel["name"])


def _faster(src, a, b, where, metric, within, geomean, overall=True) -> Verdict:
    """overall: with within > 1, a must also be faster in geometric mean (Faster); Fastest asks only "within"."""
    pairs = _pairs(src, a, b, where, metric)
    ratios = [x / y for _, x, y in pairs]
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    if geomean:
        ok = gm < within
    else:
        ok = all(r < within for r in ratios) and (within <= 1.0 or not overall or gm < 1.0)
    text = (f"{_label(a)} / {_label(b)} {metric} {min(ratios):.3f}-{max(ratios):.3f} over {len(ratios)} cells "
            f"(geomean {gm:.3f})")
    return Verdict(ok, text, tuple(pairs))


def check(claim) -> Verdict:
    """Whether the claim's file shows what the claim says, and the figures it compared."""
    src = load(claim.file)
    if isinstance(claim, Faster):
        return _faster(src, claim.a, claim.b, claim.where, claim.metric, claim.within, claim.geomean)
    if isinstance(claim, NotFaster):
        pairs = _pairs(src, claim.a, claim.b, claim.where, claim.metric)
        worst = max(pairs, key=lambda p: p[1] / p[2])
        ok = worst[1] >= worst[2]
        return Verdict(ok, f"{_label(claim.a)} / {_label(claim.b)} {claim.metric} up to {worst[1] / worst[2]:.3f} "
                           f"(n={worst[0][0]}, d={worst[0][1]})", tuple(pairs))
    if isinstance(claim, Fastest):
        others = {}
        for r in select(src, claim.among, claim.where):
            if all(_match(r.get(k), v) for k, v in claim.a.items()):
                continue
            key = tuple(sorted((k, v) for k, v in r.items() if k not in (*CELL, "ms", "graph_ms", "maxerr", "error",
                                                                          "status", "correct", "mode", "dtype")))
            others[key] = dict(key)
        if not others:
            raise EvidenceError(f"{src.path}: nothing besides {dict(claim.a)} matches {dict(claim.among)}")
        verdicts = [_faster(src, claim.a, o, claim.where, claim.metric, claim.within, claim.geomean, overall=False)
                    for o in others.values()]
        bad = [v for v in verdicts if not v.ok]
        worst = max(verdicts, key=lambda v: max(x / y for _, x, y in v.cells))
        return Verdict(not bad, f"{_label(claim.a)} against {len(others)} others; closest: {worst.text}",
                       worst.cells)
    if isinstance(claim, Ran):
        recs = select(src, claim.a, claim.where)
        if not recs:
            raise EvidenceError(f"{src.path}: no record matches {dict(claim.a)}")
        bad = [r for r in recs if r.get("status") != "ok" or r.get("correct") is False
               or (isinstance(r.get("maxerr"), float) and r["maxerr"] > claim.max_err)]
        return Verdict(not bad, f"{len(recs)} records of {_label(claim.a)} ran"
                                f"{', all correct' if not bad else f', {len(bad)} not ok'} (triton {src.triton}, "
                                f"sm_{''.join(map(str, src.capability or ('?',)))}, commit {str(src.commit)[:7]})")
    if isinstance(claim, Suite):
        verdict = _suite(src, claim.files)
        unset = {k: v for k, v in claim.env.items() if (src.raw.get("switches") or {}).get(k) != v}
        if unset:
            return Verdict(False, f"the run had not set {', '.join(f'{k}={v}' for k, v in unset.items())}; "
                                  + verdict.text)
        return verdict
    raise TypeError(f"not a claim: {claim!r}")


def _suite(src: Source, files: tuple) -> Verdict:
    """A Suite claim's verdict: the whole run (complete, nothing failed) or, with files, each named file whole."""
    s, where = src.raw, f"triton {src.triton}, sm_{''.join(map(str, src.capability))}, commit {src.raw['commit'][:7]}"
    if not files:
        ok = s["failed"] == 0 and s["errors"] == 0 and s["passed"] > 0 and not s.get("interrupted", False)
        return Verdict(ok, f"{s['passed']} passed, {s['failed']} failed, {s['errors']} errors, {s['skipped']} skipped"
                           f"{', interrupted' if s.get('interrupted') else ''} ({where})")
    per, bad, text = s.get("files") or {}, [], []
    by_name = {k.rsplit("/", 1)[-1]: v for k, v in per.items()}     # runs before tests/ had folders: by file name
    for f in files:
        c = per.get(f, by_name.get(f.rsplit("/", 1)[-1]))
        if c is None:
            bad.append(f"{f}: not in the summary")
            continue
        ran = c["passed"] + c["failed"] + c["skipped"] + c["errors"]
        text.append(f"{f.rsplit('/', 1)[-1]} {c['passed']}/{c['collected']} passed, {c['skipped']} skipped")
        if c["failed"] or c["errors"] or not c["passed"] or ran != c["collected"]:
            bad.append(f"{f}: {c['passed']} passed, {c['failed']} failed, {c['errors']} errors, ran {ran} of "
                       f"{c['collected']}")
    return Verdict(not bad, "; ".join(bad or text) + f" ({where})")


def verified_on(claim, triton_prefix: str, capability: tuple) -> str | None:
    """Why a Ran / Suite file does not show this (triton, capability) pair (None when it does)."""
    src = load(claim.file)
    if not (src.triton or "").startswith(triton_prefix):
        return f"{claim.file} ran triton {src.triton}, not {triton_prefix}x"
    if src.capability != tuple(capability):
        return f"{claim.file} ran on compute capability {src.capability}, not {tuple(capability)}"
    return None
