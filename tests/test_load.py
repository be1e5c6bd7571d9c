"""20 concurrent browser sessions against one `streamlit run app.py` on loopback, each stepping
the stepper, changing its tile and seed, and running the Triton kernel trace (interpreter, serialised by the
launch lock); every session must see its own configuration's numbers (checked against the numpy engine), the
kernel within 1e-5, and the server must stay up. The design and the report: tests/loadtest.py
(`python -m tests.loadtest` runs the same thing by hand). Timings are printed, never asserted.
"""
from __future__ import annotations

import pytest

import loadtest
from browser_util import streamlit_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SESSIONS = 20
BUDGET_S = 600          # hard cap of the concurrent phase: ~2.5 min here, room for a slower CI machine


def test_twenty_concurrent_sessions(tmp_path, capsys):
    log = tmp_path / "streamlit.log"
    with streamlit_server(log=log) as server:
        report = loadtest.run(server, sessions=SESSIONS, budget_s=BUDGET_S)
    with capsys.disabled():                            # the figures belong in the CI log, pass or fail
        print("\n" + report.text())
    assert report.succeeded == SESSIONS, report.failures
    assert not report.failures
    assert report.requests == SESSIONS * 9             # load, seed, tile, 5 steps, kernel run: each one checked
    assert report.max_diff_max is not None and report.max_diff_max < loadtest.KERNEL_TOL
    assert report.health_after, "GET /_stcore/health failed after the load"
    assert report.fresh_session_ok, report.fresh_session
    server_log = log.read_text(errors="replace")
    assert "Traceback" not in server_log, server_log[-3000:]
