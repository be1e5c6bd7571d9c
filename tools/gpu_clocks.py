"""The GPU's SM clock, power draw and temperature while timed code runs, from nvidia-smi's loop mode in a child
process (no Python NVML binding needed; the lent machines have nvidia-smi):

    with Sampler() as s:
        with s.window("fast"):
            bench(fast)
    s.summary()["fast"]    # {"sm_mhz": [median per window], "power_w": [...], "temp_c": [...], "reasons": [...]}

Why: in the h200-fa4 preset at N = 16384 our per-call times spread bimodally, fast and ws (one kernel) apart, while
FA4's stayed tight (assets/benchmarks/nvidia-h100-fa4-2026-12-06f-triton38.json); whether ours ran at a lower SM
clock (a power cap) or did more work is a question of clocks, which these samples answer per implementation and
round (the first runs: docs/BENCHMARKS.md's clock tables). Each sample carries nvidia-smi's own timestamp
(milliseconds), so a buffered pipe does not shift it; a window is the host's wall time around the timed call, which
synchronises with the GPU before it returns. `reasons` is the OR of the NVML clock event reasons seen in a window
(flashviz.bench.rounds_tables.reason_names names the bits; 0 when the GPU ran at its full clock).
"""
from __future__ import annotations

import contextlib
import datetime
import statistics
import subprocess
import threading
import time

FIELDS = ("timestamp", "clocks.sm", "power.draw", "temperature.gpu", "clocks_event_reasons.active")


def command(gpu: int = 0, period_ms: int = 20) -> list[str]:
    return ["nvidia-smi", f"--id={gpu}", "--query-gpu=" + ",".join(FIELDS), "--format=csv,noheader,nounits",
            f"--loop-ms={period_ms}"]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:                              # "[N/A]", "[Not Supported]"
        return None


def parse(line: str) -> tuple | None:
    """One loop line -> (unix time, sm MHz, power W, temperature C, reasons bits), None for what is not a sample
    (a header, an error line); a field the GPU does not report is None."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != len(FIELDS):
        return None
    try:
        t = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
    except ValueError:
        return None
    try:
        reasons = int(parts[4], 16)
    except ValueError:
        reasons = None
    return (t, _number(parts[1]), _number(parts[2]), _number(parts[3]), reasons)


class Sampler:
    """Samples in a child nvidia-smi from __enter__ to __exit__; window(name) marks one timed call."""

    def __init__(self, gpu: int = 0, period_ms: int = 20, cmd: list[str] | None = None):
        self.cmd = cmd or command(gpu, period_ms)
        self.samples: list[tuple] = []
        self.windows: list[tuple[str, float, float]] = []
        self.error = ""
        self._proc = self._thread = None

    def __enter__(self) -> Sampler:
        try:
            self._proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        except OSError as e:                         # no nvidia-smi: the timings go on without clocks
            self.error = f"{self.cmd[0]}: {e}"
            return self
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        return self

    def _read(self) -> None:
        for line in self._proc.stdout:
            s = parse(line)
            if s is not None:
                self.samples.append(s)
            elif line.strip() and not self.error:
                self.error = line.strip()[:200]    # e.g. a field this driver does not know

    def __exit__(self, *exc) -> None:
        if self._proc is not None:
            time.sleep(0.1)                         # the last window's closing samples
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            self._thread.join(timeout=5)

    @contextlib.contextmanager
    def window(self, name: str):
        t0 = time.time()
        try:
            yield
        finally:
            self.windows.append((name, t0, time.time()))

    def summary(self) -> dict:
        """{name: {"sm_mhz", "power_w", "temp_c": [median of the window's samples or None, per window],
        "reasons": [OR of its reason bits], "samples": [count]}} in window order."""
        out: dict = {}
        for name, t0, t1 in self.windows:
            inside = [s for s in self.samples if t0 <= s[0] <= t1]
            row = out.setdefault(name, dict(sm_mhz=[], power_w=[], temp_c=[], reasons=[], samples=[]))
            for key, k in (("sm_mhz", 1), ("power_w", 2), ("temp_c", 3)):
                vals = [s[k] for s in inside if s[k] is not None]
                row[key].append(statistics.median(vals) if vals else None)
            bits = 0
            for s in inside:
                bits |= s[4] or 0
            row["reasons"].append(bits)
            row["samples"].append(len(inside))
        return out
