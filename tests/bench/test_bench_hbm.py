"""The measured-HBM data path on CPU: ncu's CSV parsed into per-kernel bytes, cut into calls at the probe's flush
kernels, stored as a validated dataset with provenance, and the whole `python -m flashviz.bench --preset ...`
command run against a stand-in `ncu`. tests/data/ncu_sample.csv is written by hand in ncu's CSV layout (numbers
made up) as a parser fixture only; it is not a measurement."""
from __future__ import annotations

import copy
import json
import os
import stat
import sys

import pytest

from flashviz.bench import hbm, hbm_dataset
from flashviz.bench.__main__ import main as bench_main
from flashviz.infra.errors import DatasetError
from helpers.hbm import MANIFEST, SAMPLE, sample_cells, sample_dataset


# ----------------------------------------------------------------------------- the CSV

def test_parse_reads_every_kernel_in_order_with_thousands_separators():
    ks = hbm.parse_ncu_csv(SAMPLE.read_text())
    assert [k["id"] for k in ks] == [0, 1, 2, 3, 4, 5]
    assert ks[1]["name"] == "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_TNT"
    assert (ks[0]["read_bytes"], ks[0]["write_bytes"]) == (1_000_000, 2_048)
    assert (ks[2]["read_bytes"], ks[2]["write_bytes"]) == (12_500_000, 33_000_000)
    assert ks[5]["name"] == "flashviz_l2_flush" and ks[5]["write_bytes"] == 2_200_000


@pytest.mark.parametrize("unit, value, want", [("byte", "1,234", 1234), ("Kbyte", "1.5", 1500),
                                               ("Mbyte", "2", 2_000_000), ("Gbyte", "0.25", 250_000_000),
                                               ("KiByte", "2", 2048)])
def test_units(unit, value, want):
    text = SAMPLE.read_text().replace('"byte","1,000,000"', f'"{unit}","{value}"', 1)
    assert hbm.parse_ncu_csv(text)[0]["read_bytes"] == want


@pytest.mark.parametrize("edit, words", [
    (lambda s: "==PROF== nothing profiled\n", "no CSV rows"),
    (lambda s: s.replace('"Metric Value"', '"Value"'), "no header"),
    (lambda s: s.replace('"byte","2,048"', '"furlong","2"'), "unknown unit"),
    (lambda s: s.replace('"byte","2,048"', '"byte","n/a"'), "not a number"),
    (lambda s: "\n".join(ln for ln in s.splitlines() if not ('"2","4242"' in ln and "write" in ln)), "no write bytes"),
])
def test_parse_errors_say_what_is_wrong(edit, words):
    with pytest.raises(hbm.NcuError, match=words) as e:
        hbm.parse_ncu_csv(edit(SAMPLE.read_text()))
    assert isinstance(e.value, DatasetError)


def test_split_cells_sums_the_call_and_keeps_the_flush_apart():
    naive, fast = sample_cells()
    assert [k["name"][:6] for k in naive["kernels"]] == ["void a", "nvjet_", "void <"]
    assert naive["read_bytes"] == 1_000_000 + 2_000_512 + 12_500_000
    assert naive["write_bytes"] == 2_048 + 30_000_000 + 33_000_000
    assert (naive["flush_write_bytes"], naive["flush_read_bytes"]) == (4_100_000, 251_660_000)
    assert (fast["read_bytes"], fast["write_bytes"], fast["flush_write_bytes"]) == (6_300_000, 1_024, 2_200_000)
    assert fast["block_m"] == 128 and len(fast["kernels"]) == 1


def test_split_cells_refuses_what_it_cannot_attribute():
    ks = hbm.parse_ncu_csv(SAMPLE.read_text())
    with pytest.raises(hbm.NcuError, match="2 measured calls but the probe ran 1"):
        hbm.split_cells(ks, {**MANIFEST, "cells": MANIFEST["cells"][:1]})
    with pytest.raises(hbm.NcuError, match="after the last flush"):
        hbm.split_cells(ks[:-1], MANIFEST)
    clean = [dict(ks[0], name="flashviz_l2_clean"), *ks[1:]]
    with pytest.raises(hbm.NcuError, match="filter did not apply"):
        hbm.split_cells(clean, MANIFEST)
    with pytest.raises(hbm.NcuError, match="no attention kernel"):
        hbm.split_cells([ks[3], ks[5]], MANIFEST)


def test_ncu_command_profiles_only_the_range_without_cache_flushes():
    cmd = hbm.ncu_command("ncu", ["--n", "64"], "/tmp/x.csv", python="python3")
    s = " ".join(cmd)
    for part in ("--nvtx --nvtx-include flashviz-measured/", "--cache-control none", "--clock-control none",
                 "--metrics dram__bytes_read.sum,dram__bytes_write.sum", "--csv", "--print-units base",
                 "--target-processes all", "--log-file /tmp/x.csv", "python3 -m flashviz.bench.hbm_probe --n 64"):
        assert part in s


# ----------------------------------------------------------------------------- the dataset

def test_dataset_round_trips_through_the_strict_loader(tmp_path):
    data = sample_dataset()
    path = tmp_path / "x.json"
    path.write_text(json.dumps(data))
    back = hbm_dataset.load_hbm_dataset(path)
    assert back == data and back["kind"] == "flashviz-hbm" and back["provenance"]["ncu_version"].startswith("Version")
    assert hbm_dataset.list_hbm_datasets(tmp_path) == [path]
    assert hbm_dataset.list_hbm_datasets(tmp_path / "absent") == []
    assert [c["impl"] for c in hbm_dataset.matching_cells(back, n=1024, d=64, causal=False)] == ["naive", "fast"]
    assert hbm_dataset.matching_cells(back, n=1024, d=64, causal=True) == []
    assert hbm_dataset.recorded_configs(back) == [(1024, 64, False)]


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.update(kind="flashviz-bench"), "kind"),
    (lambda d: d["cells"][0].update(read_bytes=1), "not the sum"),
    (lambda d: d["cells"][0].update(impl="sdpa"), "must be one of naive"),
    (lambda d: d["cells"][0].update(block_m=64), "record their Br and Bc"),
    (lambda d: d["cells"][1].update(n=0), r"cells\[1\].n"),
    (lambda d: d["cells"][1].update(extra=1), "not a field"),
    (lambda d: d["cells"].append(copy.deepcopy(d["cells"][0])), "duplicates"),
    (lambda d: d["method"].pop("l2_bytes"), "method.l2_bytes"),
    (lambda d: d["provenance"].pop("command"), "command"),
    (lambda d: d["cells"][0]["kernels"][0].update(read_bytes=-1), "kernels"),
])
def test_validation_names_the_field(edit, words):
    data = sample_dataset()
    edit(data)
    with pytest.raises(DatasetError, match=words):
        hbm_dataset.validate_hbm_dataset(data)


def test_loader_rejects_bad_bytes():
    for raw, words in [(b"\xff", "UTF-8"), (b"{", "not JSON"), (b'{"a": NaN}', "NaN"), (b"[]", "top level")]:
        with pytest.raises(DatasetError, match=words):
            hbm_dataset.parse_hbm_dataset(raw)


# ----------------------------------------------------------------------------- the command, with a stand-in ncu

FAKE_NCU = '''#!{python}
import json, shutil, sys
a = sys.argv[1:]
if a == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 0.0 (stand-in for tests)")
    sys.exit(0)
shutil.copy({sample!r}, a[a.index("--log-file") + 1])
json.dump({manifest!r}, open(a[a.index("--manifest") + 1], "w"))
'''


def test_bench_command_records_a_dataset_through_ncu(tmp_path, capsys):
    fake = tmp_path / "ncu"
    fake.write_text(FAKE_NCU.format(python=sys.executable, sample=str(SAMPLE), manifest=MANIFEST))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "hbm.json"
    assert bench_main(["--preset", "hbm-small", "--ncu", str(fake), "--out", str(out)]) == 0
    data = hbm_dataset.load_hbm_dataset(out)
    assert [c["read_bytes"] for c in data["cells"]] == [c["read_bytes"] for c in sample_cells()]
    p = data["provenance"]
    assert p["command"].startswith("python -m flashviz.bench --preset hbm-small")
    assert p["ncu_version"] == "Version 0.0 (stand-in for tests)" and p["git_commit"]
    assert data["method"]["ncu_command"].startswith(str(fake)) and "--nvtx-include" in data["method"]["ncu_command"]
    printed = capsys.readouterr().out
    assert "naive" in printed and "wrote" in printed


def test_bench_command_without_ncu_says_so(tmp_path):
    with pytest.raises(SystemExit, match="not on PATH"):
        bench_main(["--preset", "hbm-small", "--ncu", str(tmp_path / "no-ncu"), "--out", str(tmp_path / "x.json")])


def test_probe_and_runner_import_without_streamlit_or_plotly():
    code = ("import sys, flashviz.bench.hbm, flashviz.bench.hbm_probe, flashviz.bench.hbm_dataset; "
            "bad = [m for m in ('streamlit', 'plotly') if m in sys.modules]; assert not bad, bad")
    assert os.system(f'{sys.executable} -c "{code}"') == 0


@pytest.mark.gpu
def test_probe_runs_every_impl_on_the_gpu(tmp_path):
    """Without ncu the probe still runs each call between its flush kernels and writes the manifest."""
    from flashviz.bench import hbm_probe
    man = tmp_path / "m.json"
    assert hbm_probe.main(["--impl", "naive", "teaching", "fast", "--n", "256", "--d", "64", "--causal", "both",
                           "--heads", "2", "--manifest", str(man)]) == 0
    m = json.loads(man.read_text())
    assert [(c["impl"], c["causal"]) for c in m["cells"]] == [(i, c) for i in ("naive", "teaching", "fast")
                                                              for c in (False, True)]
    assert all(c["finite"] for c in m["cells"]) and m["l2_bytes"] > 0
    assert m["flush_read_bytes"] == hbm_probe.FLUSH_L2_MULTIPLE * m["l2_bytes"]
    assert [c["block_m"] is None for c in m["cells"]] == [True, True] + [False] * 4
