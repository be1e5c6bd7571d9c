"""Compile the fused backward (or with --ws the Gluon ws forward, --ws-bwd the Gluon ws backward) for a Hopper GPU
without one: `python -m tools.compile_check [--ws | --ws-bwd]` (from the repository root).

For each tile config (BLOCK_N, BLOCK_M, num_warps, num_stages, rotate) and causal off/on, triton.compile builds
the sm_90 cubin of the fused backward (backward_fused.compile_spec) on this machine (CPU only is fine: no kernel
runs) and prints what ptxas made of it: registers, stack (spilled registers land there), shared memory, the
number of wgmma instructions and whether the dQ reduce-add became a TMA reduction (cp.reduce.async.bulk.tensor).
Use the triton version of the GPU machine to see what it will compile (a venv per version; PLATFORM.md). It
catches compile errors and the worst-spilling tiles before any device time is spent.
--ws: every (consumers, d, causal, causal window, causal ALiBi, packed documents, persistent) of the ws kernel at
the forward table's switches (or --block-n, --stages, --overlap): ptxas -v's spill bytes, the launch registers, and
per setmaxnreg budget the registers the SASS uses under it; a tile ws.forward refuses (ws.tile_problem) is compiled
all the same and marked, so its spills show why.
--ws-bwd: the Gluon ws backward (kernels/ws_bwd.py) at d in --ws-d, causal off/on, --dtype (both: fp16 and bf16) at
the backward table's launch (or --block-m / --stages / --dq-split; "rows": block_m 128), per --dq-mode (default:
"split", "tma", "tma2"), with the prefetch a launch in that mode runs (or --prefetch); a combination the backward
refuses (ws_bwd.check_tiles) is skipped with its reason. The same report plus the number of dQ atomic adds in the
PTX (scalar atom.global and red.global.add.v2.f32 column pairs) and TMA reduce-adds.
Only public hooks of the kernels are used (ws.compile_spec, ws_bwd.compile_spec, backward_fused.compile_spec).
"""
import argparse
import os
import re
import subprocess
import tempfile


def _usage(cubin: bytes, cuobjdump: str) -> str:
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([cuobjdump, "-res-usage", f.name], capture_output=True, text=True).stdout
    m = re.search(r"REG:(\d+) STACK:(\d+) SHARED:(\d+)", out)
    return f"regs {m.group(1)} stack {m.group(2)} B" if m else "usage unknown"


def triton_bin() -> str:
    """The folder of the CUDA tools the installed triton ships (ptxas, cuobjdump)."""
    import triton
    return os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")


def cubin_sass(cubin: str, bindir: str, check: bool = False) -> str:
    """cuobjdump -sass of a cubin file (check: raise where cuobjdump fails)."""
    return subprocess.run([os.path.join(bindir, "cuobjdump"), "-sass", cubin], capture_output=True, text=True,
                          check=check).stdout


def ptxas_sm90(bindir: str) -> str:
    """The ptxas triton itself runs for sm_90: from 3.9 its CUDA 13 one (bin/ptxas-blackwell; the legacy bin/ptxas,
    CUDA 12.9, refuses 3.9's PTX 9.4), before that bin/ptxas."""
    try:
        from triton.backends.nvidia.compiler import get_ptxas
        return get_ptxas(90).path
    except (ImportError, AttributeError, TypeError):
        return os.path.join(bindir, "ptxas")


def ptxas_sass(k, bindir: str) -> tuple[str, str]:
    """(ptxas -v's report, cuobjdump -sass) of a CompiledKernel's PTX built by the ptxas triton runs for sm_90a."""
    with tempfile.TemporaryDirectory() as tmp:
        ptx, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(ptx, "w") as f:
            f.write(k.asm["ptx"])
        v = subprocess.run([ptxas_sm90(bindir), "-v", "--gpu-name", "sm_90a", ptx, "-o", cubin],
                           capture_output=True, text=True)
        sass = cubin_sass(cubin, bindir)
    return v.stderr, sass


def _ws_report(k, bindir: str) -> str:
    """ptxas -v on the kernel's PTX (spills), the launch registers, the highest register in the SASS, and the
    warpgroup waits ptxas added (SASS WARPGROUP.DEPBAR beyond the PTX's wgmma.wait_group: a wait the source did not
    ask for, e.g. before an MMA chain whose registers it must first settle)."""
    report, sass = ptxas_sass(k, bindir)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    used = re.search(r"Used (\d+) registers", report)
    added = sass.count("WARPGROUP.DEPBAR") - k.asm["ptx"].count("wgmma.wait_group")
    return (f"regs {used.group(1) if used else '?'} (launch), used per setmaxnreg budget {_per_budget(sass)}, "
            f"spill stores {spill.group(1) if spill else '?'} B loads {spill.group(2) if spill else '?'} B, "
            f"shared {k.metadata.shared} B, {k.asm['ptx'].count('wgmma.mma_async')} wgmma, {_sass_mix(sass)}, "
            f"waits ptxas added {added}")


def _sass_mix(sass: str) -> str:
    """MUFU.EX2 and local-memory (LDL/STL: spill) instructions in the SASS, and the mean distance in instructions
    between one MUFU.EX2 and the next within a run of them (gaps over 64 instructions: another loop, not counted)."""
    lines = [ln for ln in sass.splitlines() if re.match(r"\s+/\*[0-9a-f]{4,}\*/", ln)]
    at = [i for i, ln in enumerate(lines) if "MUFU.EX2" in ln]
    gaps = [b - a for a, b in zip(at, at[1:]) if b - a <= 64]
    local = sum(1 for ln in lines if re.search(r"\b(LDL|STL)\b", ln))
    spacing = f"{sum(gaps) / len(gaps):.2f}" if gaps else "-"
    return f"MUFU.EX2 {len(at)} (mean spacing {spacing}), local-memory lines {local}"


def _per_budget(sass: str) -> dict:
    """Budget -> registers the SASS uses while it is in force (code laid out after a USETMAXREG to that budget,
    up to the next one): shows how close each partition comes to its setmaxnreg."""
    out, budget = {}, None
    for line in sass.splitlines():
        m = re.search(r"USETMAXREG\S*\s+(?:\w+,\s*)?0x([0-9a-f]+)", line)
        if m:
            budget = int(m.group(1), 16)
            out.setdefault(budget, 0)
        elif budget is not None:
            out[budget] = max([out[budget]] + [int(r) + 1 for r in re.findall(r"\bR(\d+)\b", line)])
    return dict(sorted(out.items()))


def _compile(spec, gluon: bool, warp_size: int = 32):
    """triton.compile of a kernel's (fn, signature, constexprs, options) for sm_90, without a GPU."""
    import triton
    from triton.backends.compiler import GPUTarget
    fn, sig, consts, options = spec
    if gluon:
        from triton.experimental.gluon._runtime import GluonASTSource
        src = GluonASTSource(fn, sig, constexprs=consts)
    else:
        from triton.compiler import ASTSource
        src = ASTSource(fn, sig, consts)
    return triton.compile(src, target=GPUTarget("cuda", 90, warp_size), options=options)


def compile_sm90(d: int, causal: bool, dtype: str = "fp16", overlap: bool = True, pingpong: bool = True,
                 block_n: int = 128, stages: int = 2, persistent: bool = False, consumers: int = 2,
                 window: bool = False, alibi: bool = False, docs: bool = False, half: bool = False):
    """Compile the Gluon forward for sm_90 without a GPU: the CompiledKernel (asm["ptx"], metadata.shared). Run it in
    a process with TRITON_INTERPRET=0: jit functions (Gluon's own included) made under the interpreter cannot be
    compiled."""
    from flashviz_kernels import ws
    return _compile(ws.compile_spec(d, causal, dtype, overlap=overlap, pingpong=pingpong, block_n=block_n,
                                    stages=stages, persistent=persistent, consumers=consumers, window=window,
                                    alibi=alibi, docs=docs, half=half), gluon=True)


def compile_sm90_bwd(d: int, causal: bool, dtype: str = "fp16", block_m: int = 64, stages: int = 2,
                     dq_split: int = 1, rotate: bool = True, dq_mode: str = "tma2", stats_acc: bool = True,
                     early_dq: bool = False, table: bool = False, gqa: bool = False, dq_first: bool = False,
                     prefetch: int = 0, exp_mode: str = "mufu", mask_mode: str | None = None, next_s: int = 0,
                     dp_zero: bool = False):
    """The ws backward compiled for sm_90 without a GPU, like compile_sm90; table: a window's or packed documents'
    launch (the host's by-key tables)."""
    from flashviz_kernels import ws_bwd
    return _compile(ws_bwd.compile_spec(d, causal, dtype, block_m, stages, dq_split, rotate, dq_mode, stats_acc,
                                        early_dq, table, gqa, dq_first, prefetch, exp_mode, mask_mode, next_s,
                                        dp_zero),
                    gluon=True)


def ws_bwd_main(args):
    import itertools

    import triton
    from flashviz_kernels import ws_bwd
    bindir = triton_bin()
    print(f"triton {triton.__version__}, sm_90, ws backward; REGS (consumer, producer, launch) {ws_bwd.REGS}")
    dtypes = ["fp16", "bf16"] if args.dtype == "both" else [args.dtype]
    modes = args.dq_mode or ["split", "tma", "tma2"]
    for mode, d, causal, dt, acc, early, table, exp, mask, nxt, dpz in itertools.product(
            modes, args.ws_d, (False, True), dtypes, args.stats_acc, args.early_dq, args.table, args.exp, args.mask,
            args.next, args.dp_zero):
        bm, stages, split, _ = ws_bwd.CONFIGS[d][:4]
        bm, stages, split = args.block_m or bm, args.stages or stages, args.dq_split or split
        if mode == "rows" and not args.block_m:
            bm = 128                                   # "rows" splits block_m's rows: it runs block_m 128 only
        name = f"  {mode} d={d} causal={int(causal)} {dt} bm={bm} stages={stages} dq_split={split} "
        try:                                           # what ws_bwd.backward would refuse is not compiled
            prefetch = ws_bwd.prefetch_for(d, mode, args.prefetch)     # None: what a launch in this mode runs
            ws_bwd.check_tiles(d, bm, stages, split, mode, prefetch=prefetch)
            ws_bwd.next_code(nxt or None, mode, early == 1, early == 2, prefetch, bool(acc), stages)
        except ws_bwd.KernelInputError as e:
            print(f"{name.rstrip()}: skipped, {e}", flush=True)
            continue
        name += (f"stats_acc={acc} early_dq={early} table={table} prefetch={prefetch} exp={exp} mask={mask} "
                 f"next={nxt} dp_zero={dpz}:")
        try:
            k = compile_sm90_bwd(d, causal, dt, bm, stages, split, dq_mode=mode, stats_acc=bool(acc),
                                 early_dq=early == 1, table=bool(table), dq_first=early == 2, prefetch=prefetch,
                                 exp_mode=exp, mask_mode=mask, next_s=nxt, dp_zero=bool(dpz))
        except Exception as e:  # noqa: BLE001
            print(f"{name} FAILED {type(e).__name__}: {_first_error(e)[:300]}", flush=True)
            continue
        ptx = k.asm["ptx"]
        print(f"{name} {_ws_report(k, bindir)}, atomics {ptx.count('atom.global')} scalar + "
              f"{ptx.count('red.relaxed.gpu.global.add.v2.f32')} v2 + {ptx.count('cp.reduce.async.bulk.tensor')} TMA",
              flush=True)


def ws_main(args):
    import itertools

    import triton
    from flashviz_kernels import ws
    bindir = triton_bin()
    print(f"triton {triton.__version__}, sm_90, ws kernel, {args.dtype}; REGS (consumer, producer, launch) "
          f"{ws.REGS}")
    # (causal, window, ALiBi, documents): windows and ALiBi are causal only
    shapes = [(False, False, False, False), (True, False, False, False), (True, True, False, False),
              (True, False, True, False), (False, False, False, True), (True, False, False, True),
              (True, True, True, True)]
    if args.window_only:
        shapes = [(True, True, False, False)]
    for nc, d, (causal, window, alibi, docs), pers, half in itertools.product(args.consumers, args.ws_d, shapes,
                                                                              (False, True), args.half):
        if half and not causal:
            continue
        bn, stages, _, pp = ws.CONFIGS[(d, causal)][1:5]                  # the forward table's dense row
        bn, stages = args.block_n or bn, args.stages or stages
        ov = ws.overlap_default(d, causal, alibi, consumers=nc, persistent=pers, window=window or docs,  # as forward
                                block_n=bn) if args.overlap is None else bool(args.overlap)
        name = f"  NC={nc} d={d} causal={int(causal)} window={int(window)} alibi={int(alibi)} docs={int(docs)} " \
               f"persistent={int(pers)} bn={bn} stages={stages} ov={int(ov)} pp={int(pp)}{' half=1' * half}:"
        if ws.tile_problem(64 * nc, bn, d):             # compiled all the same: the spills say why it is refused
            name += " (ws.forward refuses this tile)"
        need = ws.smem_bytes(d, bn, stages, pers, 2, nc)
        if need > ws.SMEM_BYTES:
            print(f"{name} skipped: needs {need} B of shared memory", flush=True)
            continue
        try:
            k = compile_sm90(d, causal, args.dtype, overlap=ov, pingpong=pp, block_n=bn, stages=stages,
                             persistent=pers, consumers=nc, window=window, alibi=alibi, docs=docs,
                             half=ws.half_code() if half else False)
        except Exception as e:  # noqa: BLE001
            print(f"{name} FAILED {type(e).__name__}: {_first_error(e)[:200]}", flush=True)
            continue
        print(f"{name} {_ws_report(k, bindir)}", flush=True)


def _first_error(e: Exception) -> str:
    """The line that says why a compile failed: ptxas's first fatal line where there is one (triton's own first
    line only says "Internal Triton PTX codegen error"), else the exception's first line."""
    lines = str(e).splitlines()
    return next((ln.strip() for ln in lines if ln.startswith("ptxas fatal")), lines[0] if lines else "")


def main(argv=None):
    # compile for real even without a GPU, in the command's own process (set at import time, it switched every later
    # test of a pytest process that imported this module off Triton's interpreter, as tools/ptx_same.py did)
    os.environ["TRITON_INTERPRET"] = "0"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ws", action="store_true", help="the Gluon ws forward instead of the fused backward")
    ap.add_argument("--ws-bwd", action="store_true", help="the Gluon ws backward instead of the fused backward")
    ap.add_argument("--block-m", type=int, default=None, help="--ws-bwd: query rows per step instead of CONFIGS'")
    ap.add_argument("--dq-split", type=int, default=None, help="--ws-bwd: dQ MMAs per query block (d pieces)")
    ap.add_argument("--dq-mode", nargs="+", default=None,
                    choices=["split", "split-scalar", "tma", "tma2", "tma3", "rows", "frag", "rows-frag"],
                    help="--ws-bwd: dQ modes to compile (default: split, tma, tma2)")
    ap.add_argument("--stats-acc", type=int, nargs="+", default=[1], choices=[0, 1],
                    help="--ws-bwd: 1 = lse/delta start the S^T/dP^T accumulators (the default), 0 = held in registers")
    ap.add_argument("--early-dq", type=int, nargs="+", default=[0], choices=[0, 1, 2],
                    help="--ws-bwd tma modes: 1 = dQ's MMAs issued behind dV's and dK's without waiting for them, "
                         "2 = dQ's before dK's, its piece sent while dK's runs (dq_first)")
    ap.add_argument("--prefetch", type=int, default=None, choices=[0, 1, 2],
                    help="--ws-bwd: lse and delta loaded a query block ahead (1: registers, 2: by the producer); "
                         "default: what a launch in each mode runs (the table's in the TMA modes, else 0)")
    ap.add_argument("--table", type=int, nargs="+", default=[0], choices=[0, 1],
                    help="--ws-bwd: 1 = a window's / packed documents' launch (the host's by-key tables)")
    ap.add_argument("--exp", nargs="+", default=["mufu"], choices=["mufu", "late", "poly", "late-poly"],
                    help="--ws-bwd: how P^T's exponentials issue (ws_bwd.EXP_MODES)")
    ap.add_argument("--mask", nargs="+", default=["where"], choices=["where", "asm"],
                    help="--ws-bwd: how masked blocks zero P^T (ws_bwd.MASK_MODES)")
    ap.add_argument("--next", type=int, nargs="+", default=[0], choices=[0, 1, 2],
                    help="--ws-bwd: where the next query block's S^T is issued (ws_bwd.NEXT_MODES)")
    ap.add_argument("--dp-zero", type=int, nargs="+", default=[0], choices=[0, 1],
                    help="--ws-bwd: 1 = dP^T's accumulator starts at zero, delta subtracted in dS (ws_bwd.stats_code)")
    ap.add_argument("--consumers", type=int, nargs="+", default=[2, 3], help="--ws: consumer warpgroups")
    ap.add_argument("--ws-d", type=int, nargs="+", default=[64, 128], help="--ws: head dims")
    ap.add_argument("--half", type=int, nargs="+", default=[0], choices=[0, 1],
                    help="--ws: HALF (half edge tiles, ws.half_code's value) off / on, causal shapes only")
    ap.add_argument("--window-only", action="store_true", help="--ws: the causal window shape alone")
    ap.add_argument("--block-n", type=int, default=None, help="--ws: instead of CONFIGS' block_n")
    ap.add_argument("--stages", type=int, default=None, help="--ws: instead of CONFIGS' stages")
    ap.add_argument("--overlap", type=int, default=None, choices=[0, 1],
                    help="--ws: OVERLAP off / on instead of the launch's default (ws.overlap_default)")
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16", "fp32", "both"],
                    help="--ws-bwd: both = fp16 and bf16")
    ap.add_argument("--config", nargs="+", default=None, help="BLOCK_N,BLOCK_M,warps,stages,rotate (rotate 0/1)")
    args = ap.parse_args(argv)
    if args.ws:
        return ws_main(args)
    if args.ws_bwd:
        return ws_bwd_main(args)
    import triton
    from flashviz_kernels import backward_fused as bf
    from tools.tune_backward import FUSED_CANDIDATES
    configs = ([tuple(int(x) for x in c.split(",")) for c in args.config] if args.config
               else FUSED_CANDIDATES.get(args.d, [bf.CONFIGS[128]]))
    cuobjdump = os.path.join(triton_bin(), "cuobjdump")
    print(f"triton {triton.__version__}, sm_90, d={args.d}, {args.dtype}")
    for config in configs:
        for causal in (False, True):
            name = f"  {(*config[:4], bool(config[4]))} causal={causal}:"
            try:
                k = _compile(bf.compile_spec(args.d, causal, config, args.dtype), gluon=False, warp_size=128)
            except Exception as e:  # noqa: BLE001
                print(f"{name} FAILED {type(e).__name__}: {_first_error(e)[:200]}", flush=True)
                continue
            ptx = k.asm["ptx"]
            print(f"{name} {_usage(k.asm['cubin'], cuobjdump)}, shared {k.metadata.shared} B, "
                  f"{ptx.count('wgmma.mma_async')} wgmma, TMA reduce {'cp.reduce.async.bulk.tensor' in ptx}",
                  flush=True)


if __name__ == "__main__":
    main()
