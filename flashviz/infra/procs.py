"""Linux /proc reads about helper processes (no streamlit, no browser library): a process's children, its stat fields
and resident memory, whether it is running or stopped, and the profile folders a Chromium leaves in /tmp.
flashviz.infra.images uses them to tell a dead or hung export browser from a working one and to clean up after one it
killed; flashviz.infra.serve to watch a class's server processes. Where there is no /proc they answer None or ""
(unknown), never raise."""
from __future__ import annotations

import os
from pathlib import Path


def children(pid: int) -> list[int] | None:
    """Child process ids from /proc (None where there is no /proc)."""
    tasks = Path(f"/proc/{pid}/task")
    if not tasks.is_dir():
        return None
    out = []
    for task in tasks.iterdir():
        try:
            out += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state first, utime and stime at 11 and 12), or None."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def proc_state(pid: int) -> str:
    """The process's state letter from /proc ("" when it is gone)."""
    return (stat_fields(pid) or [""])[0]


def rss_mb(pid: int) -> float | None:
    """Resident memory of process `pid` in MiB (Linux /proc), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def running(pid: int) -> bool:
    return proc_state(pid) not in ("", "Z", "X")


def stopped(pid: int) -> bool:
    """Stopped (SIGSTOP) or traced: it will not answer until someone continues it."""
    return proc_state(pid) in ("T", "t")


def singleton_dirs(pids: list[int]) -> set[Path]:
    """The /tmp/org.chromium.Chromium.* folders that these Chromium processes' profiles point their SingletonSocket
    at. Chromium removes its folder only when it exits cleanly; a killed one leaves it behind (one per browser)."""
    out = set()
    for pid in pids:
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        for a in args:
            if a.startswith("--user-data-dir="):
                try:
                    sock = Path(os.readlink(Path(a.split("=", 1)[1]) / "SingletonSocket"))
                except OSError:
                    continue
                if sock.parent.name.startswith("org.chromium.Chromium."):
                    out.add(sock.parent)
    return out
