"""docs/BENCHMARKS.md is the report of the committed recordings and dispatch tables, generated, never hand-edited:
it must equal what `python -m flashviz.bench.report --benchmarks` prints from the files now (rerun it and commit
after adding a recording or changing a table row), and its tables are the files' own numbers."""
from flashviz.bench import benchmarks_doc, report
from flashviz.bench.dataset import load_dataset


def test_the_document_is_in_step_with_the_files():
    assert benchmarks_doc.DOC.read_text(encoding="utf-8") == benchmarks_doc.render(), \
        "docs/BENCHMARKS.md is out of step: run `python -m flashviz.bench.report --benchmarks` and commit it"


def test_check_mode_says_so(monkeypatch, tmp_path, capsys):
    assert report.main(["--benchmarks", "--check"]) == 0
    stale = tmp_path / "BENCHMARKS.md"
    stale.write_text(benchmarks_doc.render().replace("| 4096 |", "| 4097 |", 1), encoding="utf-8")
    monkeypatch.setattr(benchmarks_doc, "DOC", stale)
    assert report.main(["--benchmarks", "--check"]) == 1 and "OUT OF STEP" in capsys.readouterr().out


def test_its_forward_table_is_the_newest_forward_recording():
    """Each row of the forward table: fast's TFLOP/s and its ratio to cuDNN are the cells' own."""
    text = benchmarks_doc.render()
    path = benchmarks_doc._newest("nvidia-h200-fwd-*.json")
    data = load_dataset(path)
    assert str(path.relative_to(benchmarks_doc.ROOT)) in text
    for c in data["cells"]:
        if c["impl"] == "fast" and c["mode"] == "fwd" and c["dtype"] == "float16" and c["status"] == "ok":
            cu = next(x for x in data["cells"] if (x["impl"], x["n"], x["d"], x["causal"], x["mode"], x["dtype"]) ==
                      ("sdpa-cudnn", c["n"], c["d"], c["causal"], "fwd", "float16"))
            row = f"| {c['n']} | {c['d']} | {'yes' if c['causal'] else 'no'} |"
            line = next(x for x in text.splitlines() if x.startswith(row) and f"{cu['ms'] / c['ms']:.2f}x" in x)
            assert f" {c['tflops']:.0f} " in line
