"""Server-side time of every script run, written by the server itself (for the load test; off unless asked).

    FLASHVIZ_RUN_LOG=/tmp/runs.jsonl streamlit run app.py

app.py's run brackets the page: ui/common.begin_run calls `begin(page)` before the page and ui/common.export_sidebar
calls `end()` after it. Each run appends one JSON line: process id, the session's `lt` query parameter (the load
test tags each browser session with one), the page, when the run started (time.time()), its wall time and the CPU
time of its thread in ms. The wall time includes waiting for the GIL and the CPU while other sessions run: what a
student waits for on the server, measured where it happens, whatever the load on the machine's browsers.
"""
from __future__ import annotations

import json
import os
import threading
import time

PATH = os.environ.get("FLASHVIZ_RUN_LOG")
_lock = threading.Lock()
_local = threading.local()


def begin(page: str) -> None:
    if PATH:
        _local.run = (page, time.time(), time.perf_counter(), time.thread_time())


def end() -> None:
    run = getattr(_local, "run", None)
    if not PATH or run is None:
        return
    _local.run = None
    page, started, wall0, cpu0 = run
    try:
        import streamlit as st
        tag = st.query_params.get("lt", "")
    except Exception:
        tag = ""
    line = json.dumps(dict(pid=os.getpid(), tag=tag, page=page, start=started,
                           wall_ms=1e3 * (time.perf_counter() - wall0), cpu_ms=1e3 * (time.thread_time() - cpu0)))
    with _lock, open(PATH, "a", encoding="utf-8") as f:
        f.write(line + "\n")
