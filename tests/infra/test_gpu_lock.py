"""tests/helpers/gpu.one_at_a_time: the GPU tests with ~20 GB float64 references hold it, so pytest-xdist workers run
them one after another (14 at once ran the H200 out of memory). Checked here with processes, no GPU needed."""
import multiprocessing as mp

from helpers.gpu import big_reference, one_at_a_time


def _hold(directory, log, me):
    with one_at_a_time("lock", directory):
        with open(log, "a") as f:
            f.write(f"in {me}\n")
            f.flush()
        for _ in range(200_000):                     # work while holding it (no clock: order is what is checked)
            pass
        with open(log, "a") as f:
            f.write(f"out {me}\n")


def test_workers_take_turns(tmp_path):
    log = tmp_path / "log"
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_hold, args=(str(tmp_path), str(log), i)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()                                     # no deadline: a hang is pytest-timeout's to report
        assert p.exitcode == 0
    lines = log.read_text().split("\n")[:-1]
    assert len(lines) == 8
    for i in range(0, 8, 2):                         # each "in" is followed by the same worker's "out"
        kind, who = lines[i].split()
        assert kind == "in" and lines[i + 1] == f"out {who}"
    assert sorted(line.split()[1] for line in lines[::2]) == ["0", "1", "2", "3"]


def test_only_big_references_wait():
    """Small references take no lock (a null context); on a CPU-only machine nothing does."""
    import contextlib
    assert isinstance(big_reference(1, 4, 1000, 1000), contextlib.nullcontext)
    import torch
    big = big_reference(2, 16, 4096, 4096)
    assert isinstance(big, contextlib.nullcontext) != torch.cuda.is_available()
