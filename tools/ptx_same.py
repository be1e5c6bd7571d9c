"""Whether a change to the Gluon ws forward (or, with --bwd, backward) changes its machine code, without a GPU:
dump the sm_90 PTX of every kernel configuration the compile test covers, before and after the change, and compare
the kernel bodies.

    python -m tools.ptx_same dump /tmp/before          # at the old commit (git stash), then
    python -m tools.ptx_same dump /tmp/after           # at the new one
    python -m tools.ptx_same compare /tmp/before /tmp/after
    python -m tools.ptx_same dump --half 1 /tmp/x     # HALF in the causal cases (kernels/_ws_half.py)
    python -m tools.ptx_same dump --bwd /tmp/before   # the Gluon ws backward instead (BWD_CASES)

Identical bodies mean the GPU runs the same instructions, so the change needs no device run. Only debug
information is left out of the comparison (.loc / .file lines, comments, the `$L__tmpN:` labels of line ranges,
the DWARF sections): it moves when code moves between functions. Another triton: PYTHONPATH=<a folder holding
it> before the command.
"""
import argparse
import itertools
import json
import os
import re
from pathlib import Path

# (d, causal, consumers, window, docs, alibi): tests/kernels/test_ws_build.py's compile cases plus ALiBi (no overlap)
CASES = [(128, True, 2, False, False, False), (128, False, 2, False, False, False), (64, True, 2, False, False, False),
         (64, False, 2, False, False, False), (64, True, 3, False, False, False), (64, False, 3, False, False, False),
         (128, True, 2, True, False, False), (64, True, 3, True, False, False), (128, True, 2, False, True, False),
         (64, False, 3, False, True, False), (64, True, 3, False, False, True), (128, True, 2, False, False, True),
         (64, False, 2, False, False, True)]


def dump(out: Path, half: str = "0") -> int:
    # compile for real, before the kernels are imported (the command runs in its own process); set at import time,
    # it switched every later test of a pytest process that imported this module off Triton's interpreter
    os.environ["TRITON_INTERPRET"] = "0"
    import triton
    from flashviz_kernels import ws

    from tools.compile_check import compile_sm90
    out.mkdir(parents=True, exist_ok=True)
    for (d, causal, nc, window, docs, alibi), persistent in itertools.product(CASES, (False, True)):
        bn, stages, _, pingpong = ws.CONFIGS[(d, causal)][1:5]
        overlap = ws.overlap_default(d, causal, consumers=nc, persistent=persistent, window=window)
        k = compile_sm90(d, causal, overlap=overlap, pingpong=pingpong, block_n=bn, stages=stages,
                         persistent=persistent, consumers=nc, window=window, docs=docs, alibi=alibi,
                         **({} if half == "0" else dict(half={"1": True, "2": 2}[half] and causal)))
        name = (f"d{d}_causal{int(causal)}_nc{nc}_window{int(window)}_docs{int(docs)}_alibi{int(alibi)}"
                f"_p{int(persistent)}")
        (out / f"{name}.ptx").write_text(k.asm["ptx"])
    (out / "triton.json").write_text(json.dumps(dict(triton=triton.__version__)))
    print(f"{len(CASES) * 2} kernels (triton {triton.__version__}) in {out}")
    return 0


def bwd_cases() -> list[tuple[str, dict]]:
    """(name, compile_sm90_bwd keywords) of the ws backward: the table's launch at d 64 and 128, causal or not, and
    with a mask table, GQA, the statistics in registers, prefetch 0, next_s 1 (3.8's default at d = 64); then, not
    causal, dq modes "split" and "tma2", early_dq and dq_first."""
    from flashviz_kernels import backward_table
    out = []
    for d, causal in itertools.product((64, 128), (False, True)):
        f = backward_table.ws_launch(d)
        base = dict(d=d, causal=causal, block_m=f["block_m"], stages=f["stages"], dq_split=f["dq_split"],
                    rotate=f["rotate"], dq_mode=f["dq_mode"], early_dq=f["early_dq"], prefetch=f["prefetch"])
        for tag, extra in (("", {}), ("_table", dict(table=True)), ("_gqa", dict(gqa=True)),
                           ("_regstats", dict(stats_acc=False)), ("_pre0", dict(prefetch=0)),
                           ("_next1", dict(next_s=1))):
            out.append((f"bwd_d{d}_causal{int(causal)}{tag}", dict(base, **extra)))
        if not causal:
            for tag, extra in (("_split", dict(dq_mode="split", prefetch=0)), ("_tma2", dict(dq_mode="tma2")),
                               ("_early", dict(early_dq=True)), ("_first", dict(dq_first=True))):
                out.append((f"bwd_d{d}_causal0{tag}", dict(base, **extra)))
    return out


def dump_bwd(out: Path) -> int:
    os.environ["TRITON_INTERPRET"] = "0"                 # as dump: compile for real, in its own process
    import triton

    from tools.compile_check import compile_sm90_bwd
    out.mkdir(parents=True, exist_ok=True)
    cases = bwd_cases()
    for name, kw in cases:
        (out / f"{name}.ptx").write_text(compile_sm90_bwd(**kw).asm["ptx"])
    (out / "triton.json").write_text(json.dumps(dict(triton=triton.__version__)))
    print(f"{len(cases)} kernels (triton {triton.__version__}) in {out}")
    return 0


def body(ptx: str) -> list[str]:
    """The kernel's instructions: from .entry to the first DWARF data line, without the debug-only labels."""
    lines = ptx.splitlines()
    start = next(i for i, line in enumerate(lines) if ".entry" in line)
    end = next((i for i in range(start, len(lines)) if re.match(r"^\s*\.b(8|16|32|64)\s", lines[i])), len(lines))
    keep = (re.sub(r"\s*//.*", "", line) for line in lines[start:end]                  # comments: debug notes
            if not line.strip().startswith((".loc", ".file")) and not re.match(r"^\$L__tmp\d+:$", line.strip()))
    return [line for line in keep if line.strip()]


def compare(a: Path, b: Path) -> int:
    names = sorted(p.name for p in a.glob("*.ptx"))
    differ = [n for n in names if not (b / n).exists() or body((a / n).read_text()) != body((b / n).read_text())]
    for n in differ:
        print(f"differs: {n}")
    print(f"{len(names) - len(differ)} of {len(names)} kernel bodies identical")
    return 1 if differ or not names else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--half", choices=("0", "1", "2"), default="0",
                   help="HALF in the causal cases: 1 (True, triton 3.8's build), 2 (ptxas 12.8's workaround)")
    d.add_argument("--bwd", action="store_true", help="the Gluon ws backward (bwd_cases) instead of the forward")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "compare":
        return compare(args.a, args.b)
    return dump_bwd(args.out) if args.bwd else dump(args.out, args.half)


if __name__ == "__main__":
    raise SystemExit(main())
