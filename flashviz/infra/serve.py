"""Serve a class from several server processes on one machine, behind HAProxy with sticky sessions.

    flashviz-serve --procs 4 --port 8501      # = python -m flashviz.infra.serve; then open http://<this machine>:8501

Why: a Streamlit session lives in the memory of the one process that serves it, and one Python process computes on
one core at a time (the GIL). So: one `streamlit run app.py` per core (--procs, default: the machine's cores), each
on a loopback port, and HAProxy in front (Debian: `apt-get install haproxy`). HAProxy sends a browser's first
request to the backend with the fewest open connections (every student's websocket is one, so this spreads
sessions, not requests), sets a cookie naming that backend, and sends every later request of that browser there:
the page, its websocket (proxied as is; `timeout tunnel` keeps idle ones open), media and downloads, component
files. It checks /_stcore/health every 2 s and stops sending new sessions to a backend that does not answer.
Every backend shares one cookie secret, so a browser whose backend died can start over on another.

Stop it with Ctrl-C (or SIGTERM): the proxy and every backend are stopped by their own process ids.
Tests and the load test use `Cluster` (a context manager) directly.
"""
from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from .procs import rss_mb, stat_fields

ROOT = Path(__file__).resolve().parents[2]
COOKIE = "FLASHVIZ_BACKEND"
HAPROXY_CFG = """global
    maxconn 4000
defaults
    mode http
    option http-server-close
    option forwardfor
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    timeout tunnel 2h
    timeout http-request 30s
frontend flashviz
    bind {host}:{port}
    default_backend streamlit
backend streamlit
    balance leastconn
    cookie {cookie} insert indirect nocache httponly
    option httpchk GET /_stcore/health
    http-check expect status 200
{servers}
"""


def haproxy_path() -> str | None:
    return shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy")
                                            if os.access(p, os.X_OK)), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as r:
            return r.status == 200
    except OSError:
        return False


def haproxy_config(host: str, port: int, backends: list[int]) -> str:
    servers = "\n".join(f"    server s{i} 127.0.0.1:{p} check inter 2s fall 3 rise 2 cookie s{i} maxconn 2000"
                        for i, p in enumerate(backends))
    return HAPROXY_CFG.format(host=host, port=port, cookie=COOKIE, servers=servers)


class Cluster:
    """N `streamlit run app.py` backends on loopback ports and one HAProxy in front, as a context manager.
    .url is the proxy; .pids the backends'; alive(), cpu_s() and rss_mb() read /proc through flashviz.infra.procs
    (CPU summed over the backends, RSS of the largest one; rss_each() per backend)."""

    def __init__(self, procs: int, *, host: str = "127.0.0.1", port: int | None = None, log_dir: Path | None = None,
                 start_timeout: float = 120.0, env: dict | None = None):
        if procs < 1:
            raise ValueError(f"--procs must be at least 1, got {procs}")
        self.procs, self.host, self.port = procs, host, port or free_port()
        self.log_dir = Path(log_dir) if log_dir else Path(tempfile.mkdtemp(prefix="flashviz-serve-"))
        self.start_timeout, self.env = start_timeout, env or {}
        self.backends: list[subprocess.Popen] = []
        self.ports: list[int] = []
        self.proxy: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        shown = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{shown}:{self.port}"

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.backends]

    def backend_url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i]}"

    # ------------------------------------------------------------------ start and stop

    def start(self) -> "Cluster":
        proxy = haproxy_path()
        if proxy is None:
            raise RuntimeError("haproxy not found (Debian: apt-get install haproxy)")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        secret = secrets.token_hex(16)
        # One core per process: no thread pools fighting over the cores; few malloc arenas: a process serving many
        # sessions' threads keeps less freed memory (flashviz.infra.cache hands it back after large evictions).
        env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2",
               "STREAMLIT_SERVER_COOKIE_SECRET": secret, **self.env}
        try:
            for i in range(self.procs):
                port = free_port()
                cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                       "--server.address", "127.0.0.1", "--server.port", str(port),
                       "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                       "--browser.serverAddress", "localhost"]
                log = open(self.log_dir / f"backend{i}.log", "wb")
                self.backends.append(subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env))
                log.close()
                self.ports.append(port)
            deadline = time.monotonic() + self.start_timeout
            for i, p in enumerate(self.backends):
                while not healthy(self.backend_url(i), timeout=1):
                    if p.poll() is not None:
                        raise RuntimeError(f"backend {i} exited with {p.returncode} (log: {self.log_dir})")
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"backend {i} did not answer within {self.start_timeout:.0f} s")
                    time.sleep(0.25)
            cfg = self.log_dir / "haproxy.cfg"
            cfg.write_text(haproxy_config(self.host, self.port, self.ports))
            log = open(self.log_dir / "haproxy.log", "wb")
            self.proxy = subprocess.Popen([proxy, "-f", str(cfg), "-db"], stdout=log, stderr=subprocess.STDOUT)
            log.close()
            while not healthy(self.url, timeout=1):
                if self.proxy.poll() is not None:
                    raise RuntimeError(f"haproxy exited with {self.proxy.returncode} (log: {self.log_dir})")
                if time.monotonic() > deadline:
                    raise RuntimeError("haproxy did not answer")
                time.sleep(0.2)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """SIGTERM to the proxy and to each backend by its own pid; SIGKILL whatever does not exit."""
        for p in ([self.proxy] if self.proxy else []) + self.backends:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in ([self.proxy] if self.proxy else []) + self.backends:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)

    def __enter__(self) -> "Cluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ watching (the load test)

    def alive(self) -> bool:
        procs = ([self.proxy] if self.proxy else []) + self.backends
        return all(p.poll() is None and (stat_fields(p.pid) or ["?"])[0] != "Z" for p in procs)

    def cpu_s(self) -> float | None:
        total = 0.0
        for pid in self.pids:
            f = stat_fields(pid)
            if f is None:
                return None
            total += (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
        return total

    def rss_each(self) -> list[float | None]:
        return [rss_mb(pid) for pid in self.pids]

    def rss_mb(self) -> float | None:
        got = [x for x in self.rss_each() if x is not None]
        return max(got) if got else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 1, help="server processes (default: CPU cores)")
    ap.add_argument("--port", type=int, default=8501, help="the port students open (default 8501)")
    ap.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    ap.add_argument("--log-dir", type=Path, help="backend and proxy logs (default: a new temporary folder)")
    a = ap.parse_args(argv)
    cluster = Cluster(a.procs, host=a.host, port=a.port, log_dir=a.log_dir)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with cluster:
        print(f"flashviz: {a.procs} server processes behind HAProxy at {cluster.url} "
              f"(listening on {a.host}:{a.port}; logs in {cluster.log_dir}). Ctrl-C stops.", flush=True)
        try:
            while not stop and cluster.alive():
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        if not cluster.alive():
            print("a server process exited; stopping (see the logs)", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
