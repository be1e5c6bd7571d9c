"""Dataset validation (committed files and uploads) and the page's lookup helpers; no torch needed."""
import copy
import json

import pytest

from flashviz.bench import dataset as ds
from flashviz.bench.spec import SCHEMA_VERSION, flops, ideal_bytes
from flashviz.infra.errors import DatasetError

PROV = dict(device="cuda", device_name="NVIDIA H200", sm_count=132, total_memory_bytes=150_000_000_000,
            compute_capability="9.0", driver_version="570.1", cuda_version="13.0", cudnn_version=91000,
            torch="2.11.0+cu130", triton="3.6.0", numpy="2.5.0", python="3.12.3", platform="Linux-x86_64",
            created_utc="2026-11-30T10:00:00+00:00", git_commit="abc123", git_dirty=False,
            command="python -m flashviz.bench --preset h200", timer="do_bench median", cpu_threads=16,
            flashviz="0.1.0")
SWEEP = dict(grids=[dict(n=[1024], d=[64], causal=[False, True], dtype=["float16"], batch=[4], heads=[32],
                         impls=["naive"], mode=["fwd"])], warmup_ms=25.0, rep_ms=100.0, min_reps=5, seed=0,
             check=True, budget_s=None, preset="h200")


def cell(impl, n, d=64, causal=False, dtype="float16", batch=4, heads=32, ms=1.0, status="ok", mode="fwd"):
    f = flops(n, d, causal, batch, heads, mode)
    ok = status == "ok"
    return dict(impl=impl, n=n, d=d, causal=causal, dtype=dtype, batch=batch, heads=heads, mode=mode,
                status=status, message=None if ok else "CUDA out of memory", ms=ms if ok else None,
                ms_p20=ms * 0.99 if ok else None, ms_p80=ms * 1.01 if ok else None, reps=10 if ok else None,
                tflops=f / (ms * 1e9) if ok else None, flops=f, peak_extra_bytes=1 << 20 if ok else None,
                ideal_bytes=ideal_bytes(n, d, dtype, batch, heads, mode), peak_over_ideal=None, max_abs_err=1e-3,
                rel_err=1e-4, correct=True, speedup_vs_cudnn=None, speedup_vs_flash=None, speedup_vs_naive=None, memory_vs_naive=None)


def make(cells):
    return dict(schema_version=SCHEMA_VERSION, kind="flashviz-bench", complete=True, elapsed_s=1.0,
                provenance=dict(PROV), sweep=copy.deepcopy(SWEEP), cells=cells)


@pytest.fixture
def good():
    cells = []
    for n in (1024, 4096, 16384):
        for d in (64, 128):
            for causal in (False, True):
                cells.append(cell("sdpa-flash", n, d, causal, ms=n / 1000))
                cells.append(cell("naive", n, d, causal, ms=n / 100, status="oom" if n == 16384 else "ok"))
    return make(cells)


def raw(obj) -> bytes:
    return json.dumps(obj).encode()


def test_good_dataset_round_trips(good, tmp_path):
    assert ds.parse_dataset(raw(good)) == good
    (tmp_path / "a.json").write_bytes(raw(good))
    assert ds.load_dataset(tmp_path / "a.json") == good
    assert ds.load_dataset(str(tmp_path / "a.json")) == good


def mutate(good, path, value):
    obj = copy.deepcopy(good)
    *head, last = path
    target = obj
    for p in head:
        target = target[p]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return obj


@pytest.mark.parametrize("path, value, needle", [
    (("schema_version",), 2, "schema_version"),
    (("schema_version",), "1", "schema_version"),
    (("schema_version",), True, "schema_version"),
    (("schema_version",), KeyError, "schema_version"),
    (("provenance",), KeyError, "provenance"),
    (("provenance", "git_commit"), KeyError, "git_commit"),
    (("provenance", "device"), "tpu", "provenance.device"),
    (("provenance", "created_utc"), "yesterday", "created_utc"),
    (("provenance", "sm_count"), "132", "provenance.sm_count"),
    (("provenance", "extra"), [[["deep"]]], "provenance.extra"),
    (("cells", 0, "ms"), -1.0, "cells[0].ms"),
    (("cells", 0, "ms"), 0, "cells[0].ms"),
    (("cells", 0, "ms"), "fast", "cells[0].ms"),
    (("cells", 0, "ms"), True, "cells[0].ms"),
    (("cells", 0, "n"), "1024", "cells[0].n"),
    (("cells", 0, "n"), 0, "cells[0].n"),
    (("cells", 0, "causal"), 1, "cells[0].causal"),
    (("cells", 0, "status"), "fine", "cells[0].status"),
    (("cells", 0, "dtype"), "int8", "cells[0].dtype"),
    (("cells", 0, "mode"), "train", "cells[0].mode"),
    (("cells", 0, "impl"), "x" * 100, "cells[0].impl"),
    (("cells", 0, "impl"), "<script>", "cells[0].impl"),
    (("cells", 0, "tflops"), 123.0, "cells[0].tflops"),
    (("cells", 0, "flops"), 1.0, "cells[0].flops"),
    (("cells", 0, "ideal_bytes"), 7, "cells[0].ideal_bytes"),
    (("cells", 0, "peak_extra_bytes"), -5, "cells[0].peak_extra_bytes"),
    (("cells", 0, "speedup_vs_naive"), 1e300, "cells[0].speedup_vs_naive"),
    (("cells", 0, "message"), "m" * 5000, "cells[0].message"),
    (("cells", 0, "surprise"), 1, "cells[0].surprise"),
    (("cells", 1, "ms"), 2.0, "cells[1].ms"),        # an oom cell with a time
    (("cells", 0), "not a cell", "cells[0]"),
    (("cells",), {"a": 1}, "cells"),
    (("sweep", "grids"), [], "sweep.grids"),
    (("sweep", "grids", 0, "n"), [{"x": 1}], "sweep.grids[0].n"),
    (("junk",), {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}, "nested"),
])
def test_malformed_fields_are_rejected_by_name(good, path, value, needle):
    bad = mutate(good, path, value)
    if path == ("cells", 1, "ms"):
        bad["cells"][1]["status"] = "oom"
    with pytest.raises(DatasetError, match=None) as e:
        ds.parse_dataset(raw(bad))
    assert needle in str(e.value)


@pytest.mark.parametrize("text, needle", [
    (b"not json at all", "not JSON"),
    (b"\xff\xfe\x00garbage", "UTF-8"),
    (b'{"schema_version": NaN}', "NaN"),
    (b'{"schema_version": Infinity}', "Infinity"),
    (b'{"schema_version": -Infinity}', "Infinity"),
    (b'{"schema_version": 1e400}', "overflows"),
    (b'{"schema_version": ' + b"9" * 5000 + b"}", "too long"),
    (b'{"schema_version": 1, "schema_version": 1}', "twice"),
    (b"[" * 100_000 + b"]" * 100_000, "nested"),
    (b"[1, 2, 3]", "top level"),
    (b"", "not JSON"),
])
def test_malformed_bytes_are_rejected(text, needle):
    with pytest.raises(DatasetError) as e:
        ds.parse_dataset(text)
    assert needle in str(e.value)


@pytest.mark.parametrize("text", [b'{"schema_version": NaN}', b'{"schema_version": 1e400}',
                                  b'{"schema_version": ' + b"9" * 5000 + b"}",
                                  b'{"schema_version": 1, "schema_version": 1}', b"[1]", b"not json"])
def test_a_rejection_says_not_a_valid_dataset_once(text):
    """The parser's hooks raise DatasetError (a ValueError) from inside json.loads: it must reach the reader as
    it is, not wrapped a second time in the same prefix."""
    with pytest.raises(DatasetError) as e:
        ds.parse_dataset(text)
    msg = str(e.value)
    assert msg.startswith("not a valid dataset: ") and msg.count("not a valid dataset") == 1, msg


def test_nan_inside_a_cell_is_rejected(good):
    text = raw(good).replace(b'"ms": 1.024', b'"ms": NaN', 1)
    assert b"NaN" in text
    with pytest.raises(DatasetError, match="NaN"):
        ds.parse_dataset(text)


def test_duplicate_cells_are_rejected(good):
    good["cells"].append(copy.deepcopy(good["cells"][0]))
    with pytest.raises(DatasetError, match="duplicates"):
        ds.validate_dataset(good)


def test_oversized_upload_and_file_are_rejected(good, tmp_path):
    big = raw(good) + b" " * (ds.MAX_BYTES + 1)
    with pytest.raises(DatasetError, match="limited"):
        ds.parse_dataset(big)
    (tmp_path / "big.json").write_bytes(big)
    with pytest.raises(DatasetError, match="limited"):
        ds.load_dataset(tmp_path / "big.json")
    with pytest.raises(DatasetError, match="cannot read"):
        ds.load_dataset(tmp_path / "missing.json")
    with pytest.raises(DatasetError):
        ds.parse_dataset("a str is not bytes")


def test_nearest_config_and_cell(good):
    near = ds.nearest_config(good, n=5000, d=128, causal=True, dtype="float16", batch=4, heads=32)
    assert (near["n"], near["d"], near["causal"]) == (4096, 128, True)
    tie = ds.nearest_config(good, n=2048, d=64, causal=False, dtype="float16")
    assert tie["n"] == 4096                          # log2-equidistant from 1024 and 4096: the larger wins
    assert ds.nearest_config(good, n=100_000, d=64, causal=False, dtype="bfloat16")["n"] == 16384
    assert ds.nearest_config(good, n=1024, d=64, causal=False, dtype="fp16")["dtype"] == "float16"
    assert ds.nearest_config(good, n=1024, d=96, causal=True, dtype="float16")["causal"] is True
    assert ds.nearest_config(good, n=1024, d=64, causal=False, dtype="float16", mode="fwd+bwd") is None
    c = ds.nearest_cell(good, "naive", n=20000, d=64, causal=False, dtype="float16")
    assert c["n"] == 16384 and c["status"] == "oom"
    cfg = ds.nearest_config(good, n=20000, d=64, causal=False, dtype="float16", impl="naive")
    assert cfg["n"] == 4096                          # naive measured ok only up to 4096
    assert {c["impl"] for c in ds.cells_for(good, cfg)} == {"naive", "sdpa-flash"}
    assert ds.nearest_cell(good, "fast", n=1024, d=64, causal=False, dtype="float16") is None


def test_tidy_rows_and_provenance(good):
    rows = ds.tidy_rows(good)
    assert len(rows) == len(good["cells"])
    assert rows[0]["peak_extra_mib"] == 1.0 and rows[0]["label"].startswith("N=1024 d=64 full float16")
    ok = ds.tidy_rows(good, status="ok", impls=["naive"])
    assert {r["impl"] for r in ok} == {"naive"} and all(r["status"] == "ok" for r in ok)
    fields = {f["key"]: f["value"] for f in ds.provenance_fields(good)}
    assert fields["device"] == "NVIDIA H200 (132 SMs, 140 GiB)"
    for key in ("driver", "cuda", "torch", "triton", "date", "commit", "command", "timer"):
        assert fields[key] and fields[key] != "unknown"
    assert "NVIDIA H200" in ds.dataset_label(good)


def test_list_datasets(tmp_path, good):
    for name in ("a-2026-01-01.json", "b-2026-02-01.json", "notes.txt"):
        (tmp_path / name).write_bytes(raw(good))
    assert [p.name for p in ds.list_datasets(tmp_path)] == ["b-2026-02-01.json", "a-2026-01-01.json"]
    assert ds.list_datasets(tmp_path / "absent") == []


@pytest.mark.parametrize("path", ds.list_datasets(), ids=lambda p: p.name)
def test_committed_datasets_are_valid(path):
    data = ds.load_dataset(path)
    assert data["cells"]
