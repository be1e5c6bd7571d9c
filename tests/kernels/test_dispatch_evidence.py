"""Every row of the dispatch tables against its evidence file (issue 29, item 1; issue 30, item 2): where a row says a
kernel or launch is faster, the file it names shows it (flashviz.bench.evidence parses the file and compares the
figures); where it keeps another kernel, the file shows why; a gate row's file ran on that (triton, GPU) pair. Rows
without a file say so in their reason. The checker itself is tested on small files made here, true and false."""
import json

import pytest

from flashviz.bench import evidence
from flashviz_kernels import backward_table, claims, forward_table, gates
from flashviz_kernels.tables import Launch, Route

ROWS = [*forward_table.all_rows(), *backward_table.all_rows()]


def _id(r) -> str:
    kind = r.kernel if isinstance(r, (Route, Launch)) else "?"
    return f"{type(r).__name__}-{kind}-{r.variant}-d{r.d[0]}-{r.d[1]}-{r.causal}" + \
        (f"-n{r.n[0]}" if isinstance(r, Route) else f"-{dict(r.key)}" if r.key else "")


@pytest.mark.parametrize("row", ROWS, ids=[_id(r) for r in ROWS])
def test_each_row_is_what_its_file_shows(row):
    if not row.evidence:
        assert "untuned" in row.why or "not recorded" in row.why, row
        return
    for claim in row.evidence:
        verdict = evidence.check(claim)
        assert verdict.ok, (row.why, type(claim).__name__, claim.file, verdict.text)


@pytest.mark.parametrize("row", gates.VERIFIED, ids=[f"{r.path}-{r.triton}-{r.capability}" for r in gates.VERIFIED])
def test_each_gate_row_ran_on_its_pair(row):
    """A (path, triton, GPU) row's file ran with that triton on that GPU, and what it ran worked."""
    assert isinstance(row.evidence, (claims.Ran, claims.Suite))
    assert evidence.verified_on(row.evidence, row.triton, row.capability) is None
    verdict = evidence.check(row.evidence)
    assert verdict.ok, verdict.text


def test_every_file_a_row_names_is_a_recording_here():
    files = {c.file for r in ROWS for c in r.evidence} | {r.evidence.file for r in gates.VERIFIED}
    assert files and all(f.startswith("assets/") for f in files)
    for f in files:
        assert evidence.load(f).records or evidence.load(f).kind == "suite", f


def test_routes_do_not_overlap():
    """For one kernel family, two rows of one kernel never cover the same (variant, d, causal, N)."""
    for rows in (forward_table.ROUTES, backward_table.ROUTES):
        for i, a in enumerate(rows):
            for b in rows[i + 1:]:
                if (a.variant, a.kernel) != (b.variant, b.kernel):
                    continue
                same_c = a.causal is None or b.causal is None or a.causal == b.causal
                d_meet = a.d[0] <= b.d[1] and b.d[0] <= a.d[1]
                n_meet = a.n[0] <= (b.n[1] or 1 << 40) and b.n[0] <= (a.n[1] or 1 << 40)
                assert not (same_c and d_meet and n_meet), (a, b)


# ----------------------------------------------------------------------------- the checker, on files made here

def _tune(tmp_path, rows, name="t.json", **top):
    p = tmp_path / name
    p.write_text(json.dumps(dict(command="x", device="NVIDIA H200", triton="3.6.0", git_commit="abcdef1",
                                 rows=rows, **top)))
    return str(p)


def test_faster_holds_only_when_every_cell_shows_it(tmp_path):
    rows = [dict(d=64, n=n, causal=c, impls={"ws": dict(ms=ws), "reference": dict(ms=ref)})
            for n, c, ws, ref in ((4096, False, 1.0, 1.5), (8192, False, 3.0, 4.0), (4096, True, 0.9, 0.8))]
    f = _tune(tmp_path, rows)
    a, b = dict(name="ws"), dict(name="reference")
    assert not evidence.check(claims.Faster(f, a, b)).ok                       # causal: ws slower
    assert evidence.check(claims.Faster(f, a, b, dict(causal=False))).ok
    assert evidence.check(claims.NotFaster(f, a, b)).ok and not evidence.check(claims.NotFaster(f, a, b,
                                                                                              dict(causal=False))).ok
    assert evidence.check(claims.Faster(f, a, b, geomean=True)).ok             # 0.67, 0.75, 1.125: geomean < 1
    assert not evidence.check(claims.Faster(f, a, b, within=1.1)).ok          # 1.125 is past 10 %
    with pytest.raises(evidence.EvidenceError, match="no cell"):
        evidence.check(claims.Faster(f, a, dict(name="flex")))


def test_fastest_and_ran(tmp_path):
    rows = [dict(d=64, n=4096, causal=False, impls={"ws(1)": dict(ms=1.0, maxerr=1e-3), "ws(2)": dict(ms=1.2,
                                                    maxerr=1e-3), "ws(3)": dict(ms=0.99, maxerr=0.5)})]
    f = _tune(tmp_path, rows)
    assert not evidence.check(claims.Fastest(f, dict(name="ws(1)"), dict(name="ws(*"))).ok
    assert evidence.check(claims.Fastest(f, dict(name="ws(1)"), dict(name="ws(*"), within=1.02)).ok
    assert evidence.check(claims.Ran(f, dict(name="ws(1)"))).ok
    assert not evidence.check(claims.Ran(f, dict(name="ws(*"))).ok            # ws(3)'s gradient was wrong
    assert evidence.verified_on(claims.Ran(f, dict(name="ws(1)")), "3.6.", (9, 0)) is None
    assert "3.8" in evidence.verified_on(claims.Ran(f, dict(name="ws(1)")), "3.8.", (9, 0))


def test_text_outputs_parse_their_blocks(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("# NVIDIA H200 (driver 1, CUDA 13.0), torch 2.11, triton 3.6.0, commit 1234567, 2026-12-01;\n"
                 "# python -m tools.tune_fast --window 8\n\n"
                 "d=64 N=1024 window (8, 0) B=4 H=32 float16: dense causal 2.0 ms (impl fast as dispatched)\n"
                 "  tl (128, 64, 4, 2): 1.500 ms  dense causal / variant x1\n"
                 "  ws CONFIGS: 1.200 ms  dense\n")
    src = evidence.load(str(p))
    assert (src.triton, src.capability, src.commit) == ("3.6.0", (9, 0), "1234567")
    assert [(r["name"], r["ms"], r["variant"], r["causal"]) for r in src.records] == \
        [("tl (128, 64, 4, 2)", 1.5, "window", True), ("ws as picked", 1.2, "window", True)]


SUITE = dict(kind=evidence.SUITE_KIND, schema_version=1, gpu="NVIDIA H200", capability="9.0",
             versions=dict(triton="3.8.0", torch="2.11.0+cu130", python="3.12.3"),
             command="FLASHVIZ_UNVERIFIED=1 python -m pytest -m gpu", passed=310, failed=0, skipped=4, errors=0,
             commit="0123456789abcdef0123456789abcdef01234567", date="2026-12-02T10:00:00Z")


def test_a_suite_summary_verifies_its_pair_only_when_nothing_failed(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps(SUITE))
    claim = claims.Suite(str(p))
    assert evidence.check(claim).ok and evidence.verified_on(claim, "3.8.", (9, 0)) is None
    assert evidence.verified_on(claim, "3.6.", (9, 0)) and evidence.verified_on(claim, "3.8.", (10, 0))
    p2 = tmp_path / "s2.json"
    p2.write_text(json.dumps(dict(SUITE, failed=1)))
    assert not evidence.check(claims.Suite(str(p2))).ok


@pytest.mark.parametrize("change,needle", [(dict(passed=-1), "counts"), (dict(capability="sm90"), "capability"),
                                           (dict(versions=dict(torch="2.11")), "triton"), (dict(commit="main"), "hash"),
                                           (dict(failed=True), "failed must be int"), (dict(kind="x"), "kind"),
                                           (dict(date="yesterday"), "date")])
def test_the_suite_schema_refuses_malformed_summaries(change, needle):
    problems = evidence.suite_problems(dict(SUITE, **change))
    assert any(needle in p for p in problems), problems
    assert evidence.suite_problems(SUITE) == []


def test_a_suite_claim_with_files_needs_each_file_whole_by_path_or_by_name(tmp_path):
    """A claim names today's paths (tests/kernels/...); a run recorded before tests/ had folders named the same files
    at tests/<name>: matched by file name. A file cut short, failing, or absent fails the claim."""
    whole = dict(collected=5, passed=5, failed=0, skipped=0, errors=0)
    runs = {"old": {"tests/test_ws_gpu.py": whole}, "new": {"tests/kernels/test_ws_gpu.py": whole},
            "cut": {"tests/test_ws_gpu.py": dict(whole, passed=3)},
            "failed": {"tests/kernels/test_ws_gpu.py": dict(whole, passed=4, failed=1)},
            "absent": {"tests/kernels/test_kernels_gpu.py": whole}}
    for name, per in runs.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(dict(SUITE, files=per)))
        verdict = evidence.check(claims.Suite(str(p), files=("tests/kernels/test_ws_gpu.py",)))
        assert verdict.ok == (name in ("old", "new")), (name, verdict)


def test_a_suite_claim_with_env_needs_the_run_to_have_set_it(tmp_path):
    """Suite(env=...): the summary's switches hold each variable at that value (HALF's rows need runs that forced
    it into every launch); a run without them, or with another value, fails the claim."""
    for name, switches, ok in (("none", None, False), ("off", {"FLASHVIZ_WS_HALF": "0"}, False),
                               ("on", {"FLASHVIZ_WS_HALF": "1"}, True)):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(SUITE if switches is None else dict(SUITE, switches=switches)))
        verdict = evidence.check(claims.Suite(str(p), env={"FLASHVIZ_WS_HALF": "1"}))
        assert verdict.ok is ok, (name, verdict)
        assert evidence.check(claims.Suite(str(p))).ok
    assert "had not set FLASHVIZ_WS_HALF=1" in evidence.check(
        claims.Suite(str(tmp_path / "none.json"), env={"FLASHVIZ_WS_HALF": "1"})).text


def test_every_test_file_a_gate_needs_exists():
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    for path, names in gates.TESTS.items():
        for f in names:
            assert (root / f).is_file(), (path, f)


def test_the_readmes_install_table_is_the_gates(monkeypatch):
    """README, "What a GPU install gets": each install's row names exactly the paths kernels/gates.py opens for its
    triton on sm_90 (H100 and H200); "the same" repeats the row above."""
    import re
    from pathlib import Path
    monkeypatch.delenv(gates.UNVERIFIED_ENV, raising=False)
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    table = readme.split("| install | triton | fast paths that run |", 1)[1].split("\n\n", 1)[0]
    words = {"Gluon forward and backward": {"ws-forward", "ws-half", "ws-backward"}, "timeline": {"timeline"},
             "all four": set(gates.PATHS)}
    said, last = {}, None
    for line in table.strip().splitlines()[1:]:
        _, version, runs = (c.strip() for c in line.strip("|").split("|"))
        paths = last if runs == "the same" else set().union(*(v for k, v in words.items() if k in runs))
        said[{"3.8": "3.8.0", "3.7.1": "3.7.1", "3.6": "3.6.0"}[version]] = last = paths
    assert set(said) == {"3.6.0", "3.7.1", "3.8.0"}
    for version, paths in said.items():
        assert paths == {p for p in gates.PATHS if gates.why_not(p, version, (9, 0)) is None}, version
    pins = re.search(r'"(triton[<>=.,0-9]+);', (root / "pyproject.toml").read_text(encoding="utf-8"))
    assert pins and f"`{pins[1]}`" in readme, pins           # the range the README quotes is the project's
