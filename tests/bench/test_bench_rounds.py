"""Interleaved rounds (SweepSpec.rounds, `--rounds`): every impl of a configuration timed in turn, R times, with its
times pooled; a failure in a later round ends that impl's cell only. CPU paths: naive and SDPA's math kernel against
the bench's float64 reference."""
import pytest

from flashviz.bench import measure
from flashviz.bench.__main__ import _parser, build_spec
from flashviz.bench.dataset import DatasetError, validate_dataset
from flashviz.bench.dataset_query import provenance_fields
from flashviz.bench.spec import Grid, SweepSpec, preset_spec

TINY = dict(warmup_ms=0, rep_ms=0, min_reps=2)
CFG = (40, 16, True, "float64", 2, 3)                    # n, d, causal, dtype, batch, heads


@pytest.fixture
def calls(monkeypatch):
    """The impl order time_calls saw (each call's fn is mapped back to its impl through any_runner)."""
    seen, owner, real_runner, real_time = [], {}, measure.any_runner, measure.time_calls

    def runner(impl, *a, **k):
        fn = real_runner(impl, *a, **k)
        owner[id(fn)] = impl
        return fn

    def timed(fn, *a, **k):
        seen.append(owner[id(fn)])
        return real_time(fn, *a, **k)
    monkeypatch.setattr(measure, "any_runner", runner)
    monkeypatch.setattr(measure, "time_calls", timed)
    return seen


@pytest.mark.parametrize("mode", ["fwd", "fwd+bwd"])
def test_rounds_visit_the_impls_in_turn_and_pool_their_times(calls, mode):
    cells = measure.measure_config(["naive", "sdpa-math"], *CFG, mode=mode, rounds=3, **TINY)
    assert calls == ["naive", "sdpa-math", "sdpa-math", "naive", "naive", "sdpa-math"]   # each round one further on
    assert [c["impl"] for c in cells] == ["naive", "sdpa-math"]
    for c in cells:
        assert c["status"] == "ok" and c["correct"] is True and c["rel_err"] < 1e-12
        assert c["reps"] >= 3 * TINY["min_reps"]          # three rounds' runs, each at least min_reps
        assert c["ms_p20"] <= c["ms"] <= c["ms_p80"]
    assert cells[1]["speedup_vs_naive"] == pytest.approx(cells[0]["ms"] / cells[1]["ms"])


def test_one_round_times_each_impl_once_as_before(calls):
    cells = measure.measure_config(["naive", "sdpa-math"], *CFG, **TINY)
    assert calls == ["naive", "sdpa-math"]
    assert all(c["status"] == "ok" and c["correct"] is True for c in cells)


def test_a_failure_in_a_later_round_ends_that_cell_only(monkeypatch):
    real, count = measure.time_calls, {"n": 0}

    def flaky(fn, *a, **k):
        count["n"] += 1
        if count["n"] == 4:                              # round 2's second visit: naive
            raise MemoryError()
        return real(fn, *a, **k)
    monkeypatch.setattr(measure, "time_calls", flaky)
    naive, sdpa = measure.measure_config(["naive", "sdpa-math"], *CFG, rounds=3, **TINY)
    assert naive["status"] == "oom" and naive["ms"] is None and naive["message"]
    assert sdpa["status"] == "ok" and sdpa["reps"] >= 3 * TINY["min_reps"] and sdpa["speedup_vs_naive"] is None
    assert count["n"] == 5                               # naive is not visited in round 3 after it failed


def test_no_impl_or_one_impl_with_rounds(calls):
    assert measure.measure_config([], *CFG, rounds=3, **TINY) == [] and calls == []
    (cell,) = measure.measure_config(["naive"], *CFG, rounds=3, **TINY)
    assert calls == ["naive"] * 3 and cell["status"] == "ok" and cell["correct"] is True
    assert cell["reps"] >= 3 * TINY["min_reps"]


def test_an_impl_that_cannot_run_is_skipped_by_every_round(calls):
    cells = measure.measure_config(["naive", "fast", "sdpa-math"], *CFG, rounds=3, device="cpu", **TINY)
    assert calls == ["naive", "sdpa-math", "sdpa-math", "naive", "sdpa-math", "naive"]
    assert [c["status"] for c in cells] == ["ok", "unavailable", "ok"]


def test_a_sweep_records_its_rounds_and_says_so_in_the_timer():
    spec = SweepSpec(grids=(Grid(n=(16,), d=(16,), causal=(False,), dtype=("float32",), batch=(1,), heads=(1,),
                                 impls=("naive", "sdpa")),), rounds=2, **TINY)
    data = measure.run_sweep(spec, command="test")
    validate_dataset(data)
    assert data["sweep"]["rounds"] == 2 and all(c["status"] == "ok" for c in data["cells"])
    timer = next(f["value"] for f in provenance_fields(data) if f["key"] == "timer")
    assert timer.endswith("interleaved in 2 rounds, each a full rep budget")
    for bad in (0, -1, 1001, 1.5, "3", True):
        data["sweep"]["rounds"] = bad
        with pytest.raises(DatasetError):
            validate_dataset(data)
    del data["sweep"]["rounds"]                          # files written before rounds existed still load
    validate_dataset(data)


def test_the_fa4_preset_interleaves_and_the_flag_overrides():
    assert preset_spec("h200-fa4").rounds == 3 and preset_spec("h200").rounds == 1
    assert build_spec(_parser().parse_args(["--preset", "h200-fa4", "--rounds", "5"])).rounds == 5
    for flag in ("--rounds", "--min-reps"):
        with pytest.raises(SystemExit, match="at least 1"):
            build_spec(_parser().parse_args(["--preset", "h200-fa4", flag, "0"]))


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["fwd", "bwd"])
def test_rounds_on_a_gpu_keep_every_impls_memory_and_graph(mode):
    """On CUDA every impl's state stays resident through the rounds: each cell still gets its own peak memory, a
    correct result against float64, pooled timed runs and its graph replays."""
    import torch
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    impls = ["sdpa-cudnn", "fast"]
    cells = measure.measure_config(impls, 1024, 64, True, "float16", 2, 4, mode=mode, rounds=2, warmup_ms=5,
                                   rep_ms=20, min_reps=3)
    one = measure.measure_config(impls, 1024, 64, True, "float16", 2, 4, mode=mode, warmup_ms=5, rep_ms=20,
                                 min_reps=3)
    for c, c1 in zip(cells, one):
        if c["status"] == "unavailable":                 # cuDNN's SDPA backend is not in every torch build
            continue
        assert c["status"] == "ok" and c["correct"] is True, c["message"]
        assert c["reps"] >= 2 * 3 and c["graph_ms"] > 0
        assert c["peak_extra_bytes"] == c1["peak_extra_bytes"]   # the other impl's resident state is not counted
