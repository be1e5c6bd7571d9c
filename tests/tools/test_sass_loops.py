"""tools/sass_loops.py: which loops and paths it counts in SASS, on a hand-made listing whose answer is known, and
on the ws forward's real sm_90 build, whose per-iteration work follows from the tile (no GPU needed)."""
import ast
import re
from pathlib import Path

import pytest
from helpers.ws import compile_report, needs_verified_triton

from tools import sass_loops

# A kernel in cuobjdump's layout: a loop at 0x20-0x90 whose body branches (two paths: 8 and 6 instructions),
# an mbarrier wait whose retry stub sits after EXIT and jumps back into the loop, and a second loop without HGMMA.
LISTING = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;                 /* 0x0 */
        /*0010*/                   MOV R2, RZ ;                           /* 0x0 */
        /*0020*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R2 ;   /* 0x0 */
        /*0030*/              @!P0 BRA 0xd0 ;                             /* 0x0 */
        /*0040*/                   HGMMA.64x128x16.F32 R24, gdesc[UR8], RZ, !UPT, gsb0 ;   /* 0x0 */
        /*0050*/               @P1 BRA 0x80 ;                             /* 0x0 */
        /*0060*/                   FSEL R3, R3, RZ, P2 ;                  /* 0x0 */
        /*0070*/                   MUFU.EX2 R3, R3 ;                      /* 0x0 */
        /*0080*/                   IADD3 R2, R2, 0x1, RZ ;                /* 0x0 */
        /*0090*/               @P3 BRA 0x20 ;                             /* 0x0 */
        /*00a0*/                   IADD3 R5, R5, 0x1, RZ ;                /* 0x0 */
        /*00b0*/               @P4 BRA 0xa0 ;                             /* 0x0 */
        /*00c0*/                   EXIT ;                                 /* 0x0 */
        /*00d0*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R2 ;   /* 0x0 */
        /*00e0*/              @!P0 BRA 0xd0 ;                             /* 0x0 */
        /*00f0*/                   BRA 0x40 ;                             /* 0x0 */
"""


def test_loops_and_paths_of_a_listing_whose_answer_is_known():
    ins = sass_loops.parse(LISTING)
    assert len(ins) == 16 and ins[4] == (0x40, "HGMMA.64x128x16.F32 R24, gdesc[UR8], RZ, !UPT, gsb0")
    assert sass_loops.loops(ins) == [(2, 9)]         # not the stub's jump back (it crosses EXIT), not 0xa0 (no MMA)
    counts = sorted(c["all"] for c in sass_loops.paths(ins, 2, 9))
    assert counts == [6, 8]                          # @P1 BRA 0x80 taken (skips FSEL, MUFU) or not
    longest = max(sass_loops.paths(ins, 2, 9), key=lambda c: c["all"])
    assert (longest["HGMMA"], longest["MUFU.EX2"], longest["FSEL"], longest["SYNCS"], longest["BAR"]) == \
        (1, 1, 1, 1, 0)
    assert sass_loops.mma_kflop(ins[4][1]) == 2 * 64 * 128 * 16 / 1000
    assert sass_loops.shortest(LISTING) == [6]
    assert sass_loops.opcode("@!UP2 BRA 0x10") == "BRA" and sass_loops.kind("MUFU.EX2 R3, R3") == "MUFU.EX2"
    trips = sorted(sass_loops.trips(ins, 2, 9), key=len)    # the same two paths, as instruction indices
    assert trips == [[2, 3, 4, 5, 8, 9], [2, 3, 4, 5, 6, 7, 8, 9]]
    assert sass_loops.skeleton(ins, trips[0]) == "SYNCS.PHASECHK . HGMMA.64x128x16 .*3"
    assert sass_loops.skeleton(ins, trips[1]) == "SYNCS.PHASECHK . HGMMA.64x128x16 . FSEL MUFU.EX2 .*2"


def test_the_ws_forward_loop_holds_one_key_tile_of_work():
    """d = 64, the table's three consumers: one loop per consumer, and on its unmasked path one 64 x 128 key tile
    per warpgroup: Q K^T (4 HGMMA 64x128x16) and P V (8 HGMMA 64x64x16) = 2 * 64 * 128 * 64 * 2 FLOP, 64 scores and
    2 row rescales per thread through MUFU.EX2 (2 rows of 32 scores in the wgmma layout), 32 fp16 pairs packed."""
    ws = needs_verified_triton()
    got = compile_report(
        "import json\nfrom tools import sass_loops as s\nins = s.parse(s.ours('fwd', 64, False))\n"
        "ls = s.loops(ins)\np = [min(s.paths(ins, a, b), key=lambda c: c['all']) for a, b in ls]\n"
        "print(json.dumps(dict(n=len(ls), mix=[[c['HGMMA'], c['MUFU.EX2'], c['F2FP']] for c in p],\n"
        "                      kflop=sum(s.mma_kflop(t) for _, t in ins[ls[0][0]:ls[0][1] + 1]))))\n")
    nc = ws.CONFIGS[(64, False)][6]
    assert got["n"] == nc and got["mix"] == [[12, 66, 32]] * nc, got
    assert got["kflop"] == pytest.approx(2 * 64 * 128 * 64 * 2 / 1000)


PACK_LOOPS = """
import json, os
os.environ["FLASHVIZ_WS_PPACK"] = "{pack}"      # read once, when the kernel module is imported
from tools import sass_loops as s
from tools.compile_check import compile_sm90
out = {{}}
for causal in (False, True):
    ins = s.parse(s.ours("fwd", 64, causal))
    p = [min(s.paths(ins, a, b), key=lambda c: c["all"]) for a, b in s.loops(ins)]
    out[str(causal)] = [[c["all"], c["PRMT"], c["F2FP"]] for c in p]
compile_sm90(64, True, "bf16")                  # p_operand's bf16 cvt builds too
print(json.dumps(out))
"""


def test_packed_p_carries_no_prmt_and_shortens_3_8s_default_consumer():
    """FLASHVIZ_WS_PPACK (ws_switches.p_pack_default): with key tile 0's P converted by inline asm, no consumer's
    unmasked trip at d = 64 swaps fp16 halves (PRMT) and each still packs its 64 scores as 32 pairs (F2FP). Under
    triton 3.8, without it, the default partition's consumer carries fp32 P and spends 32 PRMT a trip: packing
    shortens that trip by at least 30 instructions (3.6 and 3.9 carry no fp32 P: tools.sass_loops' recording)."""
    ws = needs_verified_triton()
    on, off = (compile_report(PACK_LOOPS.format(pack=p)) for p in ("1", "0"))
    three_eight = ws.triton_version().startswith("3.8.")
    for causal in ("False", "True"):
        assert len(on[causal]) == len(off[causal]) == ws.CONFIGS[(64, causal == "True")][6], (on, off)
        assert all(prmt == 0 and f2fp == 32 for _, prmt, f2fp in on[causal]), on
        if three_eight:
            assert off[causal][0][1] == 32 and on[causal][0][0] <= off[causal][0][0] - 30, (on, off)


RESCALE_LOOPS = """
import json, os
os.environ["FLASHVIZ_WS_EARLY_RESCALE"] = "{early}"   # read once, when the kernel module is imported
os.environ["FLASHVIZ_WS_SKIP"] = "0"                  # the loops early rescale was timed on (SKIP: its own test)
from tools import sass_loops as s
out = {{}}
for causal in (False, True):
    ins = s.parse(s.ours("fwd", 64, causal))
    out[str(causal)] = [max(s.hgmma_gaps(ins, a, b)[:3]) for a, b in s.loops(ins)]
print(json.dumps(out))
"""


def test_early_rescale_issues_each_consumers_q_k_gemm_as_one_run():
    """FLASHVIZ_WS_EARLY_RESCALE (ws_switches.early_rescale_default): with O rescaled right after P·V's wait, every
    consumer issues its Q·Kᵀ's four HGMMA (d = 64) back to back, a few uniform-register instructions apart (at most
    16: since the causal grid's head groups, 3.8's ptxas moves the ring slot's phase arithmetic, 6 uniform
    instructions, between the first two in two of the three causal consumers, 15 apart; 12 before). Late,
    3.6's and 3.8's ptxas put the 32 FMULs of the rescale between the first and second HGMMA in at least one
    consumer (tools.sass_loops; which one and how far is the compiler's choice). Both built without SKIP, as when
    early rescale was timed: with it (3.6's and 3.8's default since) 3.8's late build keeps the four together too."""
    ws = needs_verified_triton()
    early, late = (compile_report(RESCALE_LOOPS.format(early=e)) for e in ("1", "0"))
    for causal in ("False", "True"):
        assert len(early[causal]) == len(late[causal]) == ws.CONFIGS[(64, causal == "True")][6], (early, late)
        assert max(early[causal]) <= 16, early
        if ws.triton_version().startswith(("3.6.", "3.8.")):
            assert max(late[causal]) >= 30, late


SUM_LOOPS = """
import json, os
os.environ["FLASHVIZ_WS_LOCAL_SUM"] = "{local}"       # read once, when the kernel module is imported
os.environ["FLASHVIZ_WS_PAIR_MAX"] = "0"              # (3.8's default: its own test below; it moves the count)
os.environ["FLASHVIZ_WS_SKIP"] = "0"                  # (3.6's and 3.8's default since: the third consumer's loop
                                                      # then drops 24, ptxas's choice; lane sums were timed without)
from tools import sass_loops as s
out = {{}}
for d in (64, 128):
    ins = s.parse(s.ours("fwd", d, False))
    out[str(d)] = [[sum(s.opcode(t).split(".")[0] == op for _, t in ins[a:b + 1]) for op in ("SHFL", "FADD")]
                   + [b - a + 1]
                   for a, b in s.loops(ins)]
print(json.dumps(out))
"""


def test_lane_shares_of_the_row_sum_drop_its_shuffles_at_d64_only():
    """FLASHVIZ_WS_LOCAL_SUM (ws_switches.local_sum_default): at d = 64 each lane keeps its share of a row's sum,
    so a consumer loop (unmasked and masked path, 2 rows a thread) holds 8 SHFL and 8 FADD fewer and is shorter by
    about those 16 (by 16 under 3.6, 15 or 16 under 3.8: ptxas's choice); the d = 128 loops do not change."""
    ws = needs_verified_triton()
    on, off = (compile_report(SUM_LOOPS.format(local=v)) for v in ("1", "0"))
    assert len(on["64"]) == len(off["64"]) == ws.CONFIGS[(64, False)][6] and on["128"] == off["128"]
    for (shfl1, fadd1, n1), (shfl0, fadd0, n0) in zip(on["64"], off["64"]):
        assert (shfl0 - shfl1, fadd0 - fadd1) == (8, 8) and 14 <= n0 - n1 <= 16, (on, off)


BAR_LOOPS = """
import json, os
os.environ["FLASHVIZ_WS_SPLIT_BARS"] = "{split}"     # read once, when the kernel module is imported
from tools import sass_loops as s
out = {{}}
for d in (64, 128):
    ins = s.parse(s.ours("fwd", d, False))
    out[str(d)] = [[sum(s.opcode(t).startswith("BAR.SYNC") for _, t in ins[a:b + 1]), b - a + 1]
                   for a, b in s.loops(ins)]
print(json.dumps(out))
"""


def test_split_barriers_drop_a_warpgroup_bar_sync_from_each_trip():
    """FLASHVIZ_WS_SPLIT_BARS (ws_switches.split_bars_default): with V's ring barriers and each consumer's turn
    barrier in allocations of their own, Triton's barrier pass no longer puts a BAR.SYNC between a consumer's waits
    on K's and V's barriers. That wait comes before the loop's masked / unmasked branch, so each loop holds one
    BAR.SYNC fewer, and about one instruction less, whichever path a trip takes (3.6 keeps one at the loop's top,
    between two trips' waits on K's array, which 3.8 leaves out; the others order the arrives, which Triton's
    lowering always precedes with one)."""
    needs_verified_triton()
    on, off = (compile_report(BAR_LOOPS.format(split=v)) for v in ("1", "0"))
    for d in ("64", "128"):
        assert len(on[d]) == len(off[d]) > 0, (on, off)
        for (bar1, n1), (bar0, n0) in zip(on[d], off[d]):
            assert bar0 - bar1 == 1 and 0 <= n0 - n1 <= 2, (d, on, off)


ARRIVE_LOOPS = """
import json, os
os.environ["FLASHVIZ_WS_{bwd}THREAD_ARRIVE"] = "{on}"     # read once, when the kernel module is imported
from tools import sass_loops as s
out = {{}}
for d in (64, 128):
    ins = s.parse(s.ours("{what}", d, False))
    out[str(d)] = [[sum(s.opcode(t).startswith(op) for _, t in ins[a:b + 1])
                    for op in ("BAR.SYNC", "SYNCS.ARRIVE", "ARRIVES.LDGSTSBAR")] for a, b in s.loops(ins)]
print(json.dumps(out))
"""


TWO_ARRIVES = """
import json, re, triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon.language.nvidia.ampere import async_copy
from triton.experimental.gluon.language.nvidia.hopper import mbarrier


@gluon.jit
def k(n, MODE: gl.constexpr):        # 0: mbarrier.arrive, 1: each thread's arrive, 2: mbarrier.expect of 0 bytes
    a = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
    b = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
    c = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
    mbarrier.init(a.index(0), count=1)
    mbarrier.init(b.index(0), count=128 if MODE == 1 else 1)
    mbarrier.init(c.index(0), count=128 if MODE == 1 else 1)
    for j in range(n):                      # a wait on one allocation, then an arrive on each of two others
        mbarrier.wait(a.index(0), j & 1)
        if MODE == 1:
            async_copy.mbarrier_arrive(b.index(0), increment_count=False)
            async_copy.mbarrier_arrive(c.index(0), increment_count=False)
        elif MODE == 2:
            mbarrier.expect(b.index(0), 0)
            mbarrier.expect(c.index(0), 0)
        else:
            mbarrier.arrive(b.index(0))
            mbarrier.arrive(c.index(0))


out = {}
for mode in (0, 1, 2):
    src = GluonASTSource(k, {"n": "i32", "MODE": "constexpr"}, constexprs={"MODE": mode})
    ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4}).asm["ptx"]
    pat = r"(?m)^\\s*(@%p\\d+ )?(bar\\.sync|\\S*mbarrier\\.(?:arrive|try_wait)\\S*)"
    ops = [m.group(2) for m in re.finditer(pat, ptx)]
    out[str(mode)] = ops[len(ops) - ops[::-1].index(next(o for o in ops if "try_wait" in o)):]   # after the wait
print(json.dumps(out))
"""


def test_triton_puts_a_bar_sync_before_each_one_thread_arrive(tmp_path):
    """Why THREAD_ARRIVE exists: Triton lowers Gluon's mbarrier.arrive to thread 0's arrive and puts a BAR.SYNC of
    the warps before each one, even on barriers in allocations no other operation touches; each thread's own
    cp.async.mbarrier.arrive gets none; an arrive that expects 0 bytes (mbarrier.expect) is no way round it. A tiny
    kernel's sm_90 PTX, built on a CPU."""
    needs_verified_triton()
    script = tmp_path / "two_arrives.py"                  # a jit function's source must live in a file
    script.write_text(TWO_ARRIVES, encoding="utf-8")
    out = compile_report(f"import runpy; runpy.run_path({str(script)!r})")
    assert out["0"] == ["bar.sync", "mbarrier.arrive.shared::cta.b64"] * 2, out
    assert out["1"] == ["cp.async.mbarrier.arrive.noinc.shared.b64"] * 2, out
    assert out["2"] == ["bar.sync", "mbarrier.arrive.expect_tx.shared::cta.b64"] * 2, out


def test_thread_arrives_drop_the_bar_sync_before_each_arrive():
    """FLASHVIZ_WS_THREAD_ARRIVE (ws_switches.thread_arrive_default): Triton lowers Gluon's mbarrier.arrive to one
    thread's SYNCS.ARRIVE after a warpgroup BAR.SYNC; each thread's cp.async.mbarrier.arrive.noinc is an ARRIVES with
    none before it. Every loop of the d = 64 and d = 128 forward trades its SYNCS.ARRIVE (turn, K's slot, V's slot,
    on either path) for as many ARRIVES and holds fewer BAR.SYNC: what is left orders the mbarrier waits."""
    needs_verified_triton()
    on, off = (compile_report(ARRIVE_LOOPS.format(on=v, what="fwd", bwd="")) for v in ("1", "0"))
    for d in ("64", "128"):
        assert len(on[d]) == len(off[d]) > 0, (on, off)
        for (bar1, syncs1, arrives1), (bar0, syncs0, arrives0) in zip(on[d], off[d]):
            assert (syncs1, arrives0) == (0, 0) and arrives1 == syncs0 >= 3, (d, on, off)
            assert bar1 < bar0, (d, on, off)


CARRY_ARRIVES = """
import json, os
os.environ["FLASHVIZ_WS_THREAD_ARRIVE"] = "1"
from tools.compile_check import compile_sm90
out = {}
for d in (64, 128):       # persistent without PINGPONG: CARRY, whose V release is predicated (a branch round it)
    ptx = compile_sm90(d, False, "fp16", overlap=True, pingpong=False, persistent=True).asm["ptx"]
    out[str(d)] = [ptx.count("cp.async.mbarrier.arrive.noinc"), ptx.count("mbarrier.arrive.shared")]
print(json.dumps(out))
"""


def test_thread_arrives_build_the_carry_schedule_too():
    """THREAD_ARRIVE in the persistent CARRY schedule, whose first V release is predicated: it builds, with the
    every-thread arrives the ring and turn sites make and thread 0's only where they stay (the Q slot's release,
    the first turn)."""
    needs_verified_triton()
    out = compile_report(CARRY_ARRIVES)
    for d in ("64", "128"):
        every, one = out[d]
        assert every >= 10 and 1 <= one <= 6, out


def test_backward_thread_arrives_keep_only_ds_ready_on_thread_0():
    """FLASHVIZ_WS_BWD_THREAD_ARRIVE (ws_switches.bwd_thread_arrive_default): each loop of the d = 64 and d = 128
    backward trades the SYNCS.ARRIVE of its ring stage's empty and its dS^T slot's free barrier for two ARRIVES, keeps
    the one on dS^T's ready barrier (it publishes the consumers' stores of dS^T), and holds fewer BAR.SYNC."""
    needs_verified_triton()
    on, off = (compile_report(ARRIVE_LOOPS.format(on=v, what="bwd", bwd="BWD_")) for v in ("1", "0"))
    for d in ("64", "128"):
        assert len(on[d]) == len(off[d]) > 0, (on, off)
        for (bar1, syncs1, arrives1), (bar0, syncs0, arrives0) in zip(on[d], off[d]):
            assert arrives0 == 0 and arrives1 == syncs0 - syncs1 == 2 and syncs1 >= 1, (d, on, off)
            assert bar1 < bar0, (d, on, off)


PAIR_LOOPS = """
import json, os
os.environ["FLASHVIZ_WS_PAIR_MAX"] = "{pair}"     # read once, when the kernel module is imported
from tools import sass_loops as s
out = {{}}
for d in (64, 128):
    ins = s.parse(s.ours("fwd", d, False))
    rows = []
    for a, b in s.loops(ins):
        trip = [s.kind(ins[i][1]) for i in min(s.trips(ins, a, b), key=len)]
        first = trip.index("MUFU.EX2")
        rows.append([trip[:first].count("SHFL"), trip.count("FMNMX"), len(trip)])
    out[str(d)] = rows
from hashlib import sha256
from tools.compile_check import compile_sm90
for name, kw in (("window", dict(window=True, persistent=True, pingpong=False, stages=3)),
                 ("alibi", dict(alibi=True, consumers=3, overlap=False, stages=3, pingpong=False))):
    out[name] = sha256(compile_sm90(64, True, **kw).asm["ptx"].encode()).hexdigest()
print(json.dumps(out))
"""


def test_joined_row_maxima_issue_both_rows_shuffles_before_any_exponential():
    """FLASHVIZ_WS_PAIR_MAX (ws_switches.pair_max_default): with a thread's two rows' maxima joined (3 FMNMX a trip
    more, m unchanged), each d = 64 consumer loop's unmasked trip issues both rows' quad shuffles (2 a row) before
    its first MUFU.EX2; without it, under 3.6 and 3.8, only the first row's two (tools.sass_loops --skeleton shows
    where the second row's go). d = 128, and d = 64's window and ALiBi launches, build as without it (slower with
    it, or untimed)."""
    ws = needs_verified_triton()
    on, off = (compile_report(PAIR_LOOPS.format(pair=v)) for v in ("1", "0"))
    assert (on["128"], on["window"], on["alibi"]) == (off["128"], off["window"], off["alibi"]), (on, off)
    assert len(on["64"]) == len(off["64"]) == ws.CONFIGS[(64, False)][6], (on, off)
    for (shfl1, fmnmx1, n1), (shfl0, fmnmx0, n0) in zip(on["64"], off["64"]):
        assert shfl1 == 4 and fmnmx1 - fmnmx0 == 3 and 0 <= n1 - n0 <= 5, (on, off)
        if ws.triton_version().startswith(("3.6.", "3.8.")):
            assert shfl0 == 2, off


TUNE = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "tune"
SKIP_RECORD = "cpu-sm90-sass-loops-fwd-skip-triton38-2026-12-06.txt"


def _shortest(name: str) -> dict:
    """{(what, d, causal, kernel): [shortest path per loop]} of a committed tools.sass_loops record."""
    out = {}
    for m in re.finditer(r"^(fwd|bwd) d=(\d+) causal=(\d) (ours|fa4): shortest path per loop (\[.*\])$",
                         (TUNE / name).read_text(encoding="utf-8"), re.M):
        out.setdefault((m[1], int(m[2]), int(m[3]), m[4]), ast.literal_eval(m[5]))
    return out


def test_with_skip_the_d64_unmasked_trips_match_fa4s_but_the_default_consumers_prmt():
    """Under 3.8 with its defaults since SKIP (ce1bdd1's record) against FA4's sm90 forward (the 2026-12-05 record,
    FA4 unchanged since): at d = 64 the two worker consumers' unmasked trips are at most 6 instructions longer than
    FA4's unmasked loop (non-causal: 5 more; causal: 12 fewer), and the default partition's is longer by about its
    32 PRMT (fp32 P carried round the loop under 3.8). Those PRMT are what is left of the length gap; P_PACK removes
    them and timed no faster before SKIP (ws_switches.p_pack_default)."""
    ours, fa4 = _shortest(SKIP_RECORD), _shortest("cpu-sm90-sass-loops-2026-12-05.txt")
    text = (TUNE / SKIP_RECORD).read_text(encoding="utf-8")
    assert "triton 3.8.0" in text.splitlines()[0]
    for causal in (0, 1):
        first, *workers = ours[("fwd", 64, causal, "ours")]
        fa4_unmasked = fa4[("fwd", 64, causal, "fa4")][-1]             # causal: [masked, unmasked] loops
        assert len(workers) == 2 and all(w - fa4_unmasked <= 6 for w in workers), (workers, fa4_unmasked)
        assert 28 <= first - max(workers) <= 36, (first, workers)
    first_loop = re.search(r"^fwd d=64 causal=1 ours loop@\w+ path 0: .*$", text, re.M)[0]     # the default's
    assert " PRMT 32 " in first_loop


PTX = """
\t.loc\t4 321 13, function_name $L__info_string0, inlined_at 1 119 47 // _ws_tile.py:321:13
\tbar.sync \t2, 128;
\t// begin inline asm
\t@%p324 mbarrier.arrive.shared::cta.b64 _, [%r1781];
\t// end inline asm
$L__tmp134:
\t.loc\t5 43 5, function_name $L__info_string0, inlined_at 5 16 9 // _ws_out.py:43:5
\tbar.sync \t2, 128;
\telect.sync \t%r1899|%p121, -1;
\t.loc\t4 321 13, function_name $L__info_string0, inlined_at 1 119 47 // _ws_tile.py:321:13
\tbar.sync \t2, 128;
\t// begin inline asm
\t@!%p7 mbarrier.arrive.shared::cta.b64 _, [%r53];
\tbarrier.sync \t1;
"""


def test_bar_sites_names_each_barriers_source_line_and_what_follows():
    """bar_sites counts each partition barrier by (barrier, the .loc line before it, the next opcode): inline-asm
    markers, labels and predicates are skipped, so the two arrives at _ws_tile.py:321 count as one site of 2."""
    assert sass_loops.bar_sites(PTX) == [
        ("bar.sync 2, 128", "_ws_tile.py:321", "mbarrier.arrive.shared::cta.b64", 2),
        ("bar.sync 2, 128", "_ws_out.py:43", "elect.sync", 1),
        ("barrier.sync 1", "_ws_tile.py:321", "?", 1)]


def test_the_arrive_recordings_count_one_bar_a_forward_trip_with_split_barriers():
    """The CPU recordings thread_arrive_default names (assets/benchmarks/tune/cpu-sm90-sass-loops-*arrive*): with
    THREAD_ARRIVE and SPLIT_BARS every path of every forward loop of ours holds one BAR (FA4's two: the 2026-12-05
    loops file) and 3 SYNCS; with THREAD_ARRIVE alone 2 or 3; the backward's paths one fewer than its default
    build's, path by path (3 or 4). Each file's header names the switches it was built with."""
    tune = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "tune"

    def counts(name):                                 # (command line, [BAR per path], [SYNCS per path])
        text = (tune / f"cpu-sm90-sass-loops-{name}-triton38-2026-12-06.txt").read_text(encoding="utf-8")
        per = [re.findall(rf" ours loop@\w+ path \d+: .* {op} (\d+) ", text) for op in ("BAR", "SYNCS")]
        return (text.splitlines()[1], *([int(x) for x in xs] for xs in per))
    head, both, syncs = counts("fwd-arrive-split")
    assert "FLASHVIZ_WS_SPLIT_BARS=1 FLASHVIZ_WS_THREAD_ARRIVE=1 python" in head and set(both) == {1}, both
    assert set(syncs) == {3} and len(both) == 20
    head, alone, _ = counts("fwd-arrive")
    assert "FLASHVIZ_WS_THREAD_ARRIVE=1 python" in head and set(alone) == {2, 3} and len(alone) == len(both)
    head, bwd, _ = counts("bwd-arrive")
    assert "FLASHVIZ_WS_BWD_THREAD_ARRIVE=1 python" in head and set(bwd) == {3, 4}, bwd
    head, bwd0, _ = counts("bwd")                     # the default build, counted the same day
    assert head.startswith("# $ python") and [b - 1 for b in bwd0] == bwd, (bwd0, bwd)
