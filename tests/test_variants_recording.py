"""The committed H200 variants recording against the README: its table is the file's (markdown_table), and every
number the paragraph under it states (ranges against FlexAttention, the window's speedup over dense causal and
the bounds that explain it, GQA against MHA, the document tables' cost, which kernel ran) is computed here from
the same file."""
import re
from pathlib import Path

from flashviz.bench.variants_dataset import load_variants_dataset, markdown_table

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "assets" / "benchmarks" / "variants" / "nvidia-h200-2026-12-01c.json"
COMMIT = "620aa1a"


def _readme_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("Attention variants against FlexAttention")
    return " ".join(text[start:text.index("The proton timelines", start)].split())


def _fast():
    data = load_variants_dataset(FILE)
    assert data["complete"] and data["provenance"]["git_commit"].startswith(COMMIT)
    return data, {(c["variant"], c["n"]): c for c in data["cells"] if c["impl"] == "fast"}


def test_readme_table_is_the_files():
    data, _ = _fast()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert markdown_table(data) in readme
    assert FILE.name in _readme_section() and f"commit {COMMIT}" in _readme_section()


def test_readme_paragraph_numbers_are_the_files():
    data, fast = _fast()
    text = _readme_section()
    ratios = [c["speedup_vs_flex"] for c in fast.values()]
    assert all(r >= 1.0 for r in ratios)
    assert f"{min(ratios):.2f}–{max(ratios):.2f}x FlexAttention in every cell" in text
    low = min(fast.values(), key=lambda c: c["speedup_vs_flex"])
    names = dict(alibi="ALiBi", docs="packed documents", window="the sliding window", softcap="softcap", gqa="GQA")
    assert f"{names[low['variant']]} the closest ({low['speedup_vs_flex']:.2f}x at N = {low['n']})" in text

    dense, window = fast[("dense-causal", 16384)], fast[("window", 16384)]
    assert f"window at N = 16384 is {dense['ms'] / window['ms']:.2f}x faster than dense causal" in text
    assert f"visible pairs differ {dense['flops_useful'] / window['flops_useful']:.2f}x" in text
    assert f"tiles run differ {dense['flops_executed'] / window['flops_executed']:.2f}x" in text
    eff = window["tflops_executed"] / dense["tflops_executed"]
    assert f"reach {eff:.0%} of dense causal's executed TFLOP/s" in text.replace(" %", "%")
    assert f"({window['tflops_executed']:.0f} vs {dense['tflops_executed']:.0f})" in text

    for n, phrase in ((4096, "of MHA at N = 4096"), (16384, "at 16384")):
        g = fast[("gqa", n)]["ms"] / fast[("dense-causal", n)]["ms"]
        assert re.search(rf"{g:.2f}x (the time )?{phrase}", text), (n, g)
    g, m = fast[("gqa", 16384)], fast[("dense-causal", 16384)]
    assert f"MHA's 20th–80th percentile {m['ms_p20']:.2f}–{m['ms_p80']:.2f} ms" in text
    assert f"GQA's {g['ms_p20']:.2f}–{g['ms_p80']:.2f} ms" in text
    assert g["ms_p20"] <= m["ms"] <= g["ms_p80"] or m["ms_p20"] <= g["ms"] <= m["ms_p80"]   # inside the spread

    docs = fast[("docs", 4096)]
    assert f"({docs['ms_new_ids'] - docs['ms']:.2f} ms of host-side work at N = 4096" in text


def test_the_kernel_the_readme_names_ran():
    """ws's tiles are 128 x 128 at d = 128, the tl fast kernel's 128 x 64 (each cell records what it launched); the
    ALiBi and documents times the README gives for ws against tl are the committed tune runs'."""
    _, fast = _fast()
    for (variant, n), c in fast.items():
        want = [128, 128] if variant in ("dense-causal", "window", "alibi", "gqa", "docs") else [128, 64]
        assert c["tiles"] == want, (variant, n, c["tiles"])
    text = _readme_section()
    assert ("Dense causal, the sliding window, ALiBi, GQA and packed documents run the warp-specialised ws kernel"
            in text and "softcap runs the tl fast kernel" in text)
    docs = (ROOT / "assets/benchmarks/tune/nvidia-h200-docs-2026-12-01.txt").read_text()
    got = {}
    for n in (16384, 4096):
        block = docs[docs.index(f"d=128 N={n} docs"):]
        block = block[:block.index("\n\n")]
        got[n] = (float(re.search(r"^  ws persistent=1 NC=2: ([\d.]+) ms", block, re.M).group(1)),
                  float(re.search(r"^  fast dispatched: ([\d.]+) ms", block, re.M).group(1)))
    assert (f"timed it at {got[16384][0]:.2f} / {got[4096][0]:.2f} ms against the tl kernel's {got[16384][1]:.2f} / "
            f"{got[4096][1]:.2f} ms") in text
    tune = (ROOT / "assets/benchmarks/tune/nvidia-h200-alibi-2026-12-01.txt").read_text()
    assert "triton 3.6.0" in tune.splitlines()[0]
    for d, phrase in ((128, "ALiBi took {ws:.1f} ms against the tl kernel's best tile's {tl:.1f} ms"),
                      (64, "{ws:.1f} vs {tl:.1f} ms at d = 64")):
        block = tune[tune.index(f"d={d} N=16384 alibi"):]
        block = block[:block.index("\n\n")] if "\n\n" in block else block
        tl = min(float(x) for x in re.findall(r"^  tl \([^)]*\): ([\d.]+) ms", block, re.M))
        [ws] = [float(x) for x in re.findall(r"^  ws (?:CONFIGS|as picked): ([\d.]+) ms", block, re.M)]
        assert ws < tl and phrase.format(ws=ws, tl=tl) in text, (d, ws, tl)


def test_window_account_is_what_the_readme_says():
    """flashviz.bench.variants_dataset.window_account (the Variants page's sentence) on the committed file: the same
    four numbers as the README's paragraph, each from the cells by its definition."""
    from flashviz.bench.variants_dataset import window_account
    data, fast = _fast()
    acc = window_account(data, 16384)
    dense, window = fast[("dense-causal", 16384)], fast[("window", 16384)]
    assert acc["speedup"] == dense["ms"] / window["ms"] and acc["tiles"] == window["tiles"] == [128, 128]
    assert acc["useful"] == dense["flops_useful"] / window["flops_useful"]
    assert acc["executed"] == dense["flops_executed"] / window["flops_executed"]
    text = _readme_section()
    for x in (f"{acc['speedup']:.2f}x faster", f"differ {acc['useful']:.2f}x", f"differ {acc['executed']:.2f}x",
              f"reach {acc['efficiency']:.0%}".replace("%", " %")):
        assert x in text, x
    assert 7.5 < acc["useful"] < 8.5 and acc["executed"] < acc["useful"] and acc["speedup"] < acc["executed"]
