"""Concurrent browser sessions against one `streamlit run app.py` on loopback (tests/load/loadtest.py; by hand:
`python -m tests.load.loadtest`). Each session steps the stepper, changes its seed and tile and runs the Triton kernel
trace (the steps in the browser, sending the server nothing); every state it sees is checked against the numpy
engine. The number of sessions follows the machine (4 per core) and no action has a time limit: the test fails on
wrong numbers, an error on a page, a dead or hung server, never on a slow or busy machine. Timings and the
server's CPU cost per action are printed, never asserted.
"""
from __future__ import annotations

import pytest

import loadtest
from helpers.browser import streamlit_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


# The harness decides when a run has failed (a page error, a dead server, STALL_S with no script run for anyone)
# and caps the concurrent phase at BUDGET_S; pytest's default 900 s must not cut a slow but correct run short
# (it did, with two full suites sharing 2 cores). Allowance past the cap: server start, solo sessions, shutdown.
@pytest.mark.timeout(loadtest.BUDGET_S + 900)
def test_concurrent_sessions_each_see_their_own_correct_numbers(tmp_path, capsys):
    log, runs = tmp_path / "streamlit.log", tmp_path / "runs.jsonl"
    sessions = loadtest.default_sessions()
    with streamlit_server(log=log, env={"FLASHVIZ_RUN_LOG": str(runs)}) as server:
        report = loadtest.run(server, sessions, solo=2, run_log=runs)
    with capsys.disabled():                            # the figures belong in the CI log, pass or fail
        print("\n" + report.text())
    assert report.succeeded == sessions, report.failures
    assert not report.failures
    assert report.requests == sessions * 9             # load, seed, tile, 5 steps, kernel run: each one checked
    assert report.max_diff_max is not None and report.max_diff_max < loadtest.KERNEL_TOL
    assert report.health_after, "GET /_stcore/health failed after the load"
    assert report.solo_ok, report.solo_sessions
    assert set(report.solo_cpu_ms) == set(loadtest.KINDS)   # the server's cost of every kind of action was measured
    assert report.step_requests == 0                       # the steps ran in the browsers: not one request
    assert report.run_ms["config change"]["n"] >= 2 * sessions and report.run_ms["load"]["n"] >= sessions
    assert report.run_ms["step"]["n"] == 0                  # ... and the server ran no script for them
    server_log = log.read_text(errors="replace")
    assert "Traceback" not in server_log, server_log[-3000:]
