"""What one iteration of a Hopper attention kernel's main loop issues, from its sm_90 SASS, built without a GPU:
`python -m tools.sass_loops [--fa4-python PY]` (from the repository root).

Why: at d = 64 a 64 x 128 score tile per warpgroup costs about as many SFU cycles (MUFU.EX2) as tensor-core
cycles, so every other instruction a warp issues in the loop competes for the same issue slots; two kernels that
run the same tiles can be compared instruction by instruction. Nsight Compute counts a whole launch; this counts
one trip round each loop, on each path through it (a loop whose body branches, e.g. the ws forward's masked and
unmasked softmax, has two).

Ours: the ws forward (kernels/ws.py) and ws backward (kernels/ws_bwd.py) at their tables' launches, compiled by
tools.compile_check's hooks. FlashAttention-4 (optional, --fa4-python): its sm90 forward and backward built the
way its interface documents for CPU-only compilation (FakeTensorMode, FLASH_ATTENTION_ARCH / CUTE_DSL_ARCH
sm_90a, FLASH_ATTENTION_NUM_SMS), in a child process of an interpreter that imports flash_attn.cute: this machine's
.venv with `tools/device/pack.sh fa4-cpu`'s folder (--fa4-python .venv/bin/python --fa4-path .whl/fa4cpu), or a
Python 3.12 with the device's cp312 tree (pack.sh fa4, PYTHONPATH as tools/device/env.sh's fv_fa4 sets it).
Loops are innermost loops holding HGMMA (a branch back, with no EXIT between); a path follows branches forward
inside the loop and takes none that leaves it (an mbarrier wait's retry, placed after the partition's EXIT).
--bars lists our forward's partition barriers from its PTX (bar_sites): each `bar.sync` / `barrier.sync` with the
source line triton emitted it for and the instruction that follows. Why: a d = 128 trip of ours issues more BAR
than FA4's (assets/benchmarks/tune/cpu-sm90-sass-loops-2026-12-05.txt), and FA4 takes fewer SM cycles a cell at
the same clock (docs/BENCHMARKS.md's clock tables); this names the code each barrier belongs to.
"""
import argparse
import collections
import itertools
import os
import re
import subprocess
import sys
import tempfile

CLASSES = ("HGMMA", "MUFU.EX2", "FFMA", "FMUL", "FADD", "FMNMX", "FSEL", "F2FP", "PRMT", "SHFL", "BAR", "SYNCS",
           "WARPGROUP", "LDS", "STS", "LDL", "STL")     # what the table shows; the rest count as "other"
MAX_PATHS = 64


def parse(sass: str) -> list:
    """[(address, instruction text without the trailing ';'), ...] of cuobjdump -sass output (one kernel)."""
    out = []
    for ln in sass.splitlines():
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", ln)
        if m:
            out.append((int(m.group(1), 16), m.group(2)))
    return out


def opcode(text: str) -> str:
    """The opcode with its modifiers, predicate dropped: '@!P1 BRA 0x10' -> 'BRA'."""
    t = re.sub(r"^@!?U?P[T\d]+\s+", "", text)
    return t.split()[0] if t else ""


def kind(text: str) -> str:
    op = opcode(text)
    return next((c for c in CLASSES if op == c or op.startswith(c + ".")), "other")


def _target(text: str):
    m = re.search(r"\bBRA\b(?:\.\w+)*\s+(?:`\(\.L_x_\d+\)\s*)?0x([0-9a-f]+)", text)
    return int(m.group(1), 16) if m else None


def loops(ins: list) -> list:
    """(first, last) instruction indices of the innermost loops that hold HGMMA: a BRA back to an earlier address
    (predicated, or not where the compiler put the exit test first), with no EXIT between (an mbarrier wait's
    retry stub after a partition's EXIT jumps back into its loop) and no other such loop inside it."""
    at = {a: i for i, (a, _) in enumerate(ins)}
    found = []
    for i, (a, t) in enumerate(ins):
        tgt = _target(t) if opcode(t) == "BRA" else None
        if tgt is not None and tgt < a and tgt in at:
            body = [x for _, x in ins[at[tgt]:i + 1]]
            if any(kind(x) == "HGMMA" for x in body) and not any(opcode(x) == "EXIT" for x in body):
                found.append((at[tgt], i))
    return [(s, e) for s, e in found if not any((s2, e2) != (s, e) and s <= s2 and e2 <= e for s2, e2 in found)]


def trips(ins: list, s: int, e: int) -> list:
    """The instruction indices of each acyclic path from s to e (the back branch), in issue order; at most
    MAX_PATHS. A conditional branch inside the loop forks the path; an unconditional one out of it drops the path."""
    at = {a: i for i, (a, _) in enumerate(ins)}
    done, todo = [], [(s, [])]
    while todo and len(done) < MAX_PATHS:
        i, seq = todo.pop()
        while i <= e:
            t = ins[i][1]
            seq.append(i)
            tgt = _target(t) if opcode(t) == "BRA" else None
            if i == e or tgt is None:
                i += 1
                continue
            j = at.get(tgt)
            inside = j is not None and i < j <= e
            if not t.startswith("@"):              # unconditional: go there, or the path leaves the loop
                if not inside:
                    seq = None
                    break
                i = j
            else:
                if inside:
                    todo.append((j, list(seq)))
                i += 1
        if seq is not None:
            done.append(seq)
    return done


def paths(ins: list, s: int, e: int) -> list:
    """Counter of instruction kinds per acyclic path from s to e (trips), with "all" their total."""
    return [collections.Counter([kind(ins[i][1]) for i in seq] + ["all"] * len(seq)) for seq in trips(ins, s, e)]


SYNC_KINDS = ("HGMMA", "WARPGROUP", "BAR", "SYNCS", "SHFL")     # shown by opcode in a skeleton; the rest by kind


def skeleton(ins: list, seq: list) -> str:
    """One trip as runs, in issue order: synchronisation and MMA instructions by opcode (two modifiers kept:
    'SYNCS.PHASECHK', 'WARPGROUP.DEPBAR'), the arithmetic by kind, everything else as '.'; a run of n equal ones
    is 'name*n'. Two compilers' trips of the same loop, side by side, show where each put its waits."""
    names = []
    for i in seq:
        k = kind(ins[i][1])
        names.append(".".join(opcode(ins[i][1]).split(".")[:2]) if k in SYNC_KINDS else "." if k == "other" else k)
    runs = ((name, len(list(run))) for name, run in itertools.groupby(names))
    return " ".join(name if n == 1 else f"{name}*{n}" for name, n in runs)


def hgmma_gaps(ins: list, s: int, e: int) -> list:
    """Instructions from each HGMMA of the loop s..e to the next, in address order: where a warpgroup's GEMM is
    issued as one run (gaps of a few uniform-register instructions) or split by other work the compiler put there."""
    at = [i for i in range(s, e + 1) if kind(ins[i][1]) == "HGMMA"]
    return [b - a for a, b in zip(at, at[1:])]


def mma_kflop(text: str) -> float:
    """kFLOP of one HGMMA.MxNxK instruction (2 M N K)."""
    m = re.search(r"HGMMA\.(\d+)x(\d+)x(\d+)", text)
    return 2 * int(m.group(1)) * int(m.group(2)) * int(m.group(3)) / 1000 if m else 0.0


def shortest(sass: str) -> list:
    """Per loop (in address order), the instruction count of its shortest path: the unmasked trip where a loop
    holds a masked one too, what a steady-state key (or query) block costs one warp."""
    ins = parse(sass)
    return [min(c["all"] for c in paths(ins, s, e)) for s, e in loops(ins)]


def report(name: str, sass: str) -> list:
    """Lines for each loop of the kernel: per path, instructions, MMA kFLOP per warpgroup, and the kinds; then the
    shortest path of each loop on one line."""
    ins = parse(sass)
    lines = []
    for s, e in loops(ins):
        kflop = sum(mma_kflop(t) for _, t in ins[s:e + 1])
        for n, c in enumerate(sorted(paths(ins, s, e), key=lambda c: c["all"])):
            mix = " ".join(f"{k} {c[k]}" for k in CLASSES + ("other",) if c[k])
            lines.append(f"{name} loop@{ins[s][0]:#x} path {n}: {c['all']} instructions, "
                         f"{c['all'] / kflop * 1000 if kflop else 0:.1f} per MMA MFLOP ({kflop:.0f} kFLOP): {mix}")
    if not lines:
        return [f"{name}: no loop with HGMMA"]
    return lines + [f"{name}: shortest path per loop {shortest(sass)}"]


def skeletons(name: str, sass: str) -> list:
    """Per loop, the skeleton of its shortest trip (the unmasked one where a loop holds a masked one too)."""
    ins = parse(sass)
    return [f"{name} loop@{ins[s][0]:#x} trip: " + skeleton(ins, min(trips(ins, s, e), key=len)) for s, e in loops(ins)]


_LOC = re.compile(r"//\s*(\S+\.py:\d+)")
_BAR = re.compile(r"^\s*(bar\.sync|barrier\.sync)\s+([^;]*);")


def bar_sites(ptx: str) -> list[tuple[str, str, str, int]]:
    """[(barrier, source line, next instruction's opcode, count)] of a PTX listing, in first-seen order: each
    `bar.sync ID, N` / `barrier.sync ID`, the `file.py:line` of the last .loc comment before it, and the opcode
    (predicate and operands dropped) of the first instruction after it (comments, .loc and inline-asm markers
    skipped)."""
    lines = ptx.splitlines()
    counts: dict = collections.Counter()
    loc = "?"
    for i, line in enumerate(lines):
        m = _LOC.search(line) if line.lstrip().startswith(".loc") else None
        if m:
            loc = m.group(1)
            continue
        b = _BAR.match(line)
        if not b:
            continue
        nxt = "?"
        for after in lines[i + 1:]:
            t = after.strip()
            if not t or t.startswith(("//", ".loc", "$L", "{", "}", ".reg")):
                continue
            nxt = re.sub(r"^@!?%\w+\s+", "", t).split()[0].rstrip(";")
            break
        counts[(f"{b.group(1)} {b.group(2).strip()}", loc, nxt)] += 1
    return [(bar, where, nxt, n) for (bar, where, nxt), n in counts.items()]


def fwd_kernel(d: int, causal: bool):
    """Our ws forward compiled for sm_90a at its table's launch (fp16; tools.compile_check): .asm holds its PTX."""
    from tools.compile_check import compile_sm90
    from flashviz_kernels import ws
    bn, stages, _, pp, pers, nc = ws.CONFIGS[(d, causal)][1:7]
    ov = ws.overlap_default(d, causal, False, consumers=nc, persistent=pers, window=False, block_n=bn)
    return compile_sm90(d, causal, "fp16", overlap=ov, pingpong=pp, block_n=bn, stages=stages, persistent=pers,
                        consumers=nc)


def cuobjdump_sass(cubin: bytes) -> str:
    from tools.compile_check import cubin_sass, triton_bin
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        return cubin_sass(f.name, triton_bin(), check=True)


def ours(what: str, d: int, causal: bool, mask_mode: str | None = None) -> str:
    """The SASS of our ws forward / backward at its table's launch (fp16; the backward with mask_mode, None: its
    default, and next_s and dP^T's start as a launch on this triton takes them: ws_bwd.next_default and
    dp_zero_default), built for sm_90a as triton builds it for this GPU."""
    from tools.compile_check import compile_sm90_bwd, ptxas_sass, triton_bin
    if what == "fwd":
        k = fwd_kernel(d, causal)
    else:
        from flashviz_kernels import ws_bwd
        bm, stages, split, rotate, mode = ws_bwd.CONFIGS[d]
        prefetch = ws_bwd.prefetch_for(d, mode, None)
        nxt = ws_bwd.next_code(None, mode, False, False, prefetch, True, stages, ws_bwd.next_default(d))
        k = compile_sm90_bwd(d, causal, "fp16", bm, stages, split, rotate, dq_mode=mode, prefetch=prefetch,
                             mask_mode=mask_mode, next_s=nxt, dp_zero=ws_bwd.dp_zero_default(d, nxt))
    return ptxas_sass(k, triton_bin())[1]


FA4_CHILD = r"""
import glob, os, sys, torch
from torch._subclasses.fake_tensor import FakeTensorMode
from flash_attn.cute.interface import _flash_attn_bwd, flash_attn_func
what, d, causal, out = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
with FakeTensorMode():
    q = torch.empty(4, 4096, 32, d, dtype=torch.float16, device="cuda")
    if what == "fwd":
        flash_attn_func(q, q, q, causal=causal)
    else:
        lse = torch.empty(4, 32, 4096, dtype=torch.float32, device="cuda")
        _flash_attn_bwd(q, q, q, q, q, lse, d ** -0.5, causal)
cubins = [f for f in glob.glob(os.path.join(out, "*.cubin")) if ("Forward" if what == "fwd" else "BackwardSm90") in f]
print(cubins[0])
"""


def _fa4_env(path: str, **more) -> dict:
    """The child's environment: path (an unpacked FA4 tree: pack.sh fa4) and its cutlass DSL packages first."""
    env = dict(os.environ, **more)
    if path:
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.join(path, "nvidia_cutlass_dsl", "dsl_packages"), path, env.get("PYTHONPATH", "")])
    return env


def fa4(python: str, path: str, what: str, d: int, causal: bool) -> bytes:
    """FA4's sm90 cubin for B = 4, N = 4096, H = 32, fp16, compiled on this CPU by python's flash_attn.cute."""
    with tempfile.TemporaryDirectory() as tmp:
        env = _fa4_env(path, FLASH_ATTENTION_ARCH="sm_90a", CUTE_DSL_ARCH="sm_90a", FLASH_ATTENTION_NUM_SMS="132",
                       CUTE_DSL_KEEP_CUBIN="1", CUTE_DSL_DUMP_DIR=tmp)
        r = subprocess.run([python, "-c", FA4_CHILD, what, str(d), str(int(causal)), tmp], capture_output=True,
                           text=True, env=env)
        if r.returncode:
            raise RuntimeError(f"FA4 compile failed: {r.stderr.strip().splitlines()[-1:]}")
        with open(r.stdout.strip().splitlines()[-1], "rb") as f:
            return f.read()


def fa4_versions(python: str, path: str) -> str:
    code = ("import sys; from importlib.metadata import version as v; print('flash-attn-4', v('flash-attn-4'), "
            "'nvidia-cutlass-dsl', v('nvidia-cutlass-dsl'), 'python', sys.version.split()[0])")
    r = subprocess.run([python, "-c", code], capture_output=True, text=True, env=_fa4_env(path))
    return r.stdout.strip() or "versions unknown"


def main(argv=None):
    os.environ["TRITON_INTERPRET"] = "0"             # compile for real (tools.compile_check says why)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--what", nargs="+", default=["fwd", "bwd"], choices=["fwd", "bwd"])
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--causal", type=int, nargs="+", default=[0, 1], choices=[0, 1])
    ap.add_argument("--mask", default=None, choices=["where", "asm"],
                    help="the ws backward's mask_mode (ws_bwd.MASK_MODES; default: its MASK_DEFAULT)")
    ap.add_argument("--fa4-python", default=None, help="an interpreter that imports flash_attn.cute (FA4)")
    ap.add_argument("--fa4-path", default="", help="an unpacked FA4 tree put first on that interpreter's path")
    ap.add_argument("--skeleton", action="store_true", help="also each loop's shortest trip in issue order (skeleton)")
    ap.add_argument("--bars", action="store_true", help="our forward's partition barriers from its PTX (bar_sites)")
    args = ap.parse_args(argv)
    import datetime
    import platform

    import torch
    import triton

    from flashviz.bench.provenance import git_state
    commit, dirty = git_state()                      # what was compiled is not HEAD where the tree is dirty
    print(f"# CPU machine, no GPU (driver none, CUDA none; {platform.platform()}), torch {torch.__version__}, "
          f"triton {triton.__version__}, commit {commit}{'+dirty' if dirty else ''}, "
          f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}; sm_90a SASS of fp16 launches, "
          f"B 4, H 32, N 4096" + (f"; {fa4_versions(args.fa4_python, args.fa4_path)}" if args.fa4_python else ""))
    from tools.tune_record import switches          # FLASHVIZ_WS_* set for this build: they change the kernels
    env = " ".join(f"{k}={v}" for k, v in switches().items())
    print(f"# $ {env + ' ' if env else ''}"
          f"{' '.join(['python -m tools.sass_loops'] + (argv if argv is not None else sys.argv[1:]))}")
    if args.bars:
        for d in args.d:
            for causal in args.causal:
                for bar, where, nxt, n in bar_sites(fwd_kernel(d, bool(causal)).asm["ptx"]):
                    print(f"fwd d={d} causal={causal} ours {bar} x{n} at {where}, before {nxt}")
        return
    for what in args.what:
        for d in args.d:
            for causal in args.causal:
                tag = f"{what} d={d} causal={causal}"
                for name, build in (("ours", lambda: ours(what, d, bool(causal), args.mask)),
                                    ("fa4", lambda: cuobjdump_sass(
                                        fa4(args.fa4_python, args.fa4_path, what, d, bool(causal))))):
                    if name == "fa4" and not args.fa4_python:
                        continue
                    try:
                        sass = build()
                        lines = report(f"{tag} {name}", sass)
                        lines += skeletons(f"{tag} {name}", sass) if args.skeleton else []
                    except Exception as e:  # noqa: BLE001
                        lines = [f"{tag} {name}: FAILED {type(e).__name__}: {str(e)[:200]}"]
                    print("\n".join(lines), flush=True)


if __name__ == "__main__":
    main()
