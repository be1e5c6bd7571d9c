"""Where each GPU-only path was verified: one row per (path, triton version, compute capability), with its evidence.

The Gluon kernels (ws forward, ws backward), the fused Triton backward (TMA reductions) and the proton timeline
recording use Triton features that moved between versions (Gluon is experimental; see kernels/gluon_shims.py), so
each runs only on a (triton, GPU) pair a row below names. Elsewhere the callers fall back (impl="fast": the tl
kernel; autograd: the 7-matmul backward; the timeline: refuses) and say why (why_not).

Widening a gate is one row plus its evidence file: run the GPU suite on that setup with FLASHVIZ_UNVERIFIED=1
(which opens the version gate for that run only), summarise it with `python -m tools.suite_summary` into
assets/verified/<gpu>-triton-<version>.json, and add
    Verified("ws-forward", "3.10.", (9, 0), Suite("assets/verified/nvidia-h200-triton-3.10.0.json")),
tests/kernels/test_dispatch_evidence.py checks every row against its file. Most 3.6 rows cite recordings made there
(their provenance names the triton and the GPU, their cells ran and were checked), as no suite summary was kept
then; the ws forward's and backward's cite their suites.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from .claims import Ran, Suite
from .tables import Memo

UNVERIFIED_ENV = "FLASHVIZ_UNVERIFIED"     # "1": run GPU paths on an unverified triton (to verify it; never default)
PATHS = ("ws-forward", "ws-half", "ws-backward", "fused-backward", "timeline")
_NAMES = {"ws-forward": "Gluon kernel", "ws-half": "Gluon kernel's half edge tiles (HALF)",
          "ws-backward": "Gluon backward", "fused-backward": "fused Triton backward",
          "timeline": "proton timeline recording"}

FUSED_RUN = "assets/benchmarks/tune/nvidia-h200-backward-2026-11-30.json"
TIMELINE_RUN = "assets/benchmarks/timeline/nvidia-h200-2026-12-01b.json"
SUITE = "assets/verified/nvidia-h200-triton-{}.json"            # GPU-suite summaries (python -m tools.suite_summary)
H100_SUITE = "assets/verified/nvidia-h100-triton-{}.json"       # the same, from an H100 (sm_90 too)
# the test files that exercise each path on the GPU: a row citing a suite needs all of them whole there (every
# collected test ran, none failed), whatever else the run did; runs from before tests/ had folders match by file name
TESTS = {"ws-forward": ("tests/kernels/test_ws_gpu.py", "tests/kernels/test_ws_variants_gpu.py",
                        "tests/kernels/test_kernels_gpu.py",
                        "tests/kernels/test_variants_gpu.py"),
         "ws-half": ("tests/kernels/test_ws_gpu.py", "tests/kernels/test_ws_variants_gpu.py",
                     "tests/kernels/test_kernels_gpu.py", "tests/kernels/test_variants_gpu.py"),
         "ws-backward": ("tests/kernels/test_ws_bwd_gpu.py", "tests/kernels/test_ws_bwd_masks_gpu.py"),
         "fused-backward": ("tests/kernels/test_backward_fused_gpu.py", "tests/kernels/test_backward.py"),
         "timeline": ("tests/bench/test_timeline_gpu.py",)}


@dataclass(frozen=True)
class Verified:
    path: str                       # one of PATHS
    triton: str                     # a version prefix ("3.6." matches 3.6.0, 3.6.1, ...)
    capability: tuple[int, int]     # compute capability of the GPU it ran on
    evidence: Ran | Suite


VERIFIED = (
    # the ws forward's test files with a tile's last P·V carried into the next tile without PINGPONG: at bff7b58 on
    # 3.7.1, at 01ea696 (the same kernel, comments apart) on 3.8.0, at 4a66295 (HALF closed there) on 3.6.0
    Verified("ws-forward", "3.6.", (9, 0), Suite(SUITE.format("3.6.0-ws-forward"), TESTS["ws-forward"])),
    # the ws backward's test files at f620d35 (the loop trims in, "partial" retired), on each triton it opens on
    Verified("ws-backward", "3.6.", (9, 0), Suite(SUITE.format("3.6.0-ws-backward"), TESTS["ws-backward"])),
    Verified("fused-backward", "3.6.", (9, 0), Ran(FUSED_RUN, dict(name="fused(*"))),
    Verified("timeline", "3.6.", (9, 0), Ran(TIMELINE_RUN, dict(name=("fast", "ws")))),
    # torch 2.12.1 / 2.13 pin triton 3.7.1: the whole suite passed (d973d34); repeated runs of the backward tests
    # failed the fused backward at N = 1 there (assets/verified/repeats/; their N = 4096 failures were the GPU out of
    # memory, as on 3.6), so that one stays closed; the ws backward's files passed whole again at f620d35
    Verified("ws-forward", "3.7.1", (9, 0), Suite(SUITE.format("3.7.1-ws-forward"), TESTS["ws-forward"])),
    Verified("ws-backward", "3.7.1", (9, 0), Suite(SUITE.format("3.7.1-ws-backward"), TESTS["ws-backward"])),
    Verified("timeline", "3.7.1", (9, 0), Suite(SUITE.format("3.7.1"), TESTS["timeline"])),
    # torch 2.14 pins triton ~=3.8.0: the whole suite passed (9a9c4c5; at 38d5109 it failed "partial" with prefetch,
    # a mode since retired: assets/verified/repeats/); a repeated run failed the fused backward at N = 1 (dv wrong),
    # so that one stays on 3.6 while the Gluon kernels open
    Verified("ws-forward", "3.8.", (9, 0), Suite(SUITE.format("3.8.0-ws-forward"), TESTS["ws-forward"])),
    # the same files (and the wide tile's) on an H100 at 5afa322, after d = 128 non-causal took PINGPONG (5e64398)
    Verified("ws-forward", "3.6.", (9, 0), Suite(H100_SUITE.format("3.6.0-ws-forward"), TESTS["ws-forward"])),
    Verified("ws-forward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward"), TESTS["ws-forward"])),
    # the same files with O's rescale right after P·V's wait (FLASHVIZ_WS_EARLY_RESCALE=1; 3.6's default from
    # 2026-12-05, ws_switches.early_rescale_default) on an H200 at 6678dd0
    Verified("ws-forward", "3.6.", (9, 0), Suite(SUITE.format("3.6.0-ws-forward-early-rescale"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_EARLY_RESCALE": "1"})),
    Verified("ws-forward", "3.8.", (9, 0), Suite(SUITE.format("3.8.0-ws-forward-early-rescale"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_EARLY_RESCALE": "1"})),
    # and with each lane's share of a row's sum kept to the tile's end (FLASHVIZ_WS_LOCAL_SUM=1, every d; 3.6's and
    # 3.8's default at d = 64, ws_switches.local_sum_default) on an H100: 3.8 at 0c07b35; 3.6 at 2682996, whose
    # switches also held a row max as a tree of pairs (FLASHVIZ_WS_ROW_TREE=1, since removed: a max is the same in
    # any order)
    Verified("ws-forward", "3.6.", (9, 0), Suite(H100_SUITE.format("3.6.0-ws-forward-local-sum"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_LOCAL_SUM": "1"})),
    Verified("ws-forward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-local-sum"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_LOCAL_SUM": "1"})),
    # and with V's ring barriers and the turn barriers in allocations of their own (FLASHVIZ_WS_SPLIT_BARS=1, off
    # by default: timed even, ws_switches.split_bars_default) on an H100 at 0c07b35
    Verified("ws-forward", "3.6.", (9, 0), Suite(H100_SUITE.format("3.6.0-ws-forward-split-bars"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_SPLIT_BARS": "1"})),
    # and under 3.8 with HALF_TAIL (3.8's default then) at 455382b: still off (the window's A/B)
    Verified("ws-forward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-split-bars"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_SPLIT_BARS": "1"})),
    # and with a thread's two rows' maxima joined before their exponentials (FLASHVIZ_WS_PAIR_MAX, 3.8's default at
    # d = 64, ws_switches.pair_max_default) on an H100: 3.6 forced on at 98bf157 (every launch then); 3.8 with its
    # defaults at fd2176c (every d = 64 launch then; the dense ones only since)
    Verified("ws-forward", "3.6.", (9, 0), Suite(H100_SUITE.format("3.6.0-ws-forward-pair-max"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_PAIR_MAX": "1"})),
    Verified("ws-forward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-pair-max"),
                                                 TESTS["ws-forward"])),
    # HALF (kernels/_ws_half.py): the ws forward's test files with FLASHVIZ_WS_HALF=1 forcing it into every causal
    # launch that can run it: 3.8 at 4a66295; 3.6 and 3.7.1 at 2efc21f, whose build takes ws.half_code's workaround
    # for their ptxas 12.8 (without it, persistent windows were wrong: assets/verified/repeats/README.md)
    Verified("ws-half", "3.6.", (9, 0), Suite(SUITE.format("3.6.0-ws-forward-half"), TESTS["ws-half"],
                                              env={"FLASHVIZ_WS_HALF": "1"})),
    Verified("ws-half", "3.7.1", (9, 0), Suite(SUITE.format("3.7.1-ws-forward-half"), TESTS["ws-half"],
                                               env={"FLASHVIZ_WS_HALF": "1"})),
    Verified("ws-half", "3.8.", (9, 0), Suite(SUITE.format("3.8.0-ws-forward-half"), TESTS["ws-half"],
                                              env={"FLASHVIZ_WS_HALF": "1"})),
    # and 3.6's with its early rescale (its default from b5344e3) under them, on an H100 at f57142d
    Verified("ws-half", "3.6.", (9, 0), Suite(H100_SUITE.format("3.6.0-ws-forward-half-early-rescale"),
                                              TESTS["ws-half"], env={"FLASHVIZ_WS_HALF": "1"})),
    # and with both 3.6 defaults since, early rescale and lane sums (d = 64), on an H100 at a806211
    Verified("ws-half", "3.6.", (9, 0), Suite(H100_SUITE.format("3.6.0-ws-forward-half-local-sum"),
                                              TESTS["ws-half"], env={"FLASHVIZ_WS_HALF": "1"})),
    Verified("ws-backward", "3.8.", (9, 0), Suite(SUITE.format("3.8.0-ws-backward"), TESTS["ws-backward"])),
    # and with the next query block's S^T issued behind this block's dK (FLASHVIZ_WS_BWD_NEXT=1 forcing it into
    # every launch that takes it; 3.8's default at d = 64, ws_bwd.next_default) on an H100 at f0c5def
    Verified("ws-backward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-backward-next"), TESTS["ws-backward"],
                                                  env={"FLASHVIZ_WS_BWD_NEXT": "1"})),
    # and with dP^T's accumulator from zero (FLASHVIZ_WS_BWD_DP_ZERO=1 forcing it into every launch that starts the
    # accumulators; 3.8's default with next_s 1 at d = 64, ws_bwd.dp_zero_default) on an H100 at 846f686
    Verified("ws-backward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-backward-dp-zero"), TESTS["ws-backward"],
                                                  env={"FLASHVIZ_WS_BWD_DP_ZERO": "1"})),
    # and with 3.8's defaults since (next_s 1 and dP^T from zero at d = 64), nothing forced, on an H100 at 4e746bd
    Verified("ws-backward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-backward-defaults"),
                                                  TESTS["ws-backward"])),
    Verified("timeline", "3.8.", (9, 0), Suite(SUITE.format("3.8.0"), TESTS["timeline"])),
    # the ws forward's and backward's test files together with 3.8's defaults (HALF and SKIP on, nothing forced),
    # on an H100 at 432154f: the tree after the input rules, the backward's switches and its producer warp moved
    # into files of their own (same PTX), the first GPU run of those moves
    *(Verified(path, "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-defaults"), TESTS[path]))
      for path in ("ws-forward", "ws-half", "ws-backward")),
    # the ws forward's and backward's test files (and tests/kernels/test_ws_lpt.py) after the causal grids took head
    # groups (grids (G, blocks, B*H / G)), with FLASHVIZ_WS_LPT=1 forcing G > 1 into every causal launch of one tile
    # or key block per program (ws_schedule.lpt_default), on an H100 at 45a02aa under 3.6 and 3.8
    Verified("ws-forward", "3.6.", (9, 0), Suite(H100_SUITE.format("3.6.0-ws-forward-lpt"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_LPT": "1"})),
    Verified("ws-forward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-lpt"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_LPT": "1"})),
    Verified("ws-backward", "3.6.", (9, 0), Suite(H100_SUITE.format("3.6.0-ws-backward-lpt"), TESTS["ws-backward"],
                                                  env={"FLASHVIZ_WS_LPT": "1"})),
    Verified("ws-backward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-backward-lpt"), TESTS["ws-backward"],
                                                  env={"FLASHVIZ_WS_LPT": "1"})),
    # torch 2.15 pins triton ~=3.9.0: the ws forward's and backward's test files passed whole at 99a4182. Not opened
    # there: the timeline (the device's trimmed 3.9 carried no proton, so its tests failed there: 3.9.0-rest) and
    # the fused backward (3.6 only, as on 3.7.1 and 3.8)
    Verified("ws-forward", "3.9.", (9, 0), Suite(SUITE.format("3.9.0-ws-forward"), TESTS["ws-forward"])),
    Verified("ws-backward", "3.9.", (9, 0), Suite(SUITE.format("3.9.0-ws-backward"), TESTS["ws-backward"])),
    # and on an H100 at 846f686: the backward's files with next_s 1 forced, then with next_s 1 and dP^T from zero
    # (3.9's default at d = 64 from then, ws_bwd.next_default and dp_zero_default); the forward's with HALF forced
    # (verified, but off by default there: ws_schedule.HALF_TRITONS says why)
    Verified("ws-backward", "3.9.", (9, 0), Suite(H100_SUITE.format("3.9.0-ws-backward-next"), TESTS["ws-backward"],
                                                  env={"FLASHVIZ_WS_BWD_NEXT": "1"})),
    Verified("ws-backward", "3.9.", (9, 0), Suite(H100_SUITE.format("3.9.0-ws-backward-dp-zero"),
                                                  TESTS["ws-backward"], env={"FLASHVIZ_WS_BWD_NEXT": "1",
                                                                             "FLASHVIZ_WS_BWD_DP_ZERO": "1"})),
    Verified("ws-half", "3.9.", (9, 0), Suite(H100_SUITE.format("3.9.0-ws-forward-half"), TESTS["ws-half"],
                                              env={"FLASHVIZ_WS_HALF": "1"})),
    # and the forward's with joined row maxima and lane sums at d = 64 (3.9's defaults from 2026-12-06,
    # ws_switches.pair_max_default and local_sum_default) on an H100 at ed91ba9
    Verified("ws-forward", "3.9.", (9, 0), Suite(H100_SUITE.format("3.9.0-ws-forward-pair-local"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_PAIR_MAX": "1", "FLASHVIZ_WS_LOCAL_SUM": "1"})),
    # and both files after the causal grids took head groups, LPT forced (as 3.6's and 3.8's above), at 4cf5b92
    Verified("ws-forward", "3.9.", (9, 0), Suite(H100_SUITE.format("3.9.0-ws-forward-lpt"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_LPT": "1"})),
    Verified("ws-backward", "3.9.", (9, 0), Suite(H100_SUITE.format("3.9.0-ws-backward-lpt"), TESTS["ws-backward"],
                                                  env={"FLASHVIZ_WS_LPT": "1"})),
    # the forward's files with HALF and its last half step's Q·Kᵀ behind the last whole tile's P·V forced
    # (FLASHVIZ_WS_HALF_TAIL=1; 3.8's default from then, ws_switches.half_tail_default), on an H100 at a44dfb3
    Verified("ws-half", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-half-tail"), TESTS["ws-half"],
                                              env={"FLASHVIZ_WS_HALF": "1", "FLASHVIZ_WS_HALF_TAIL": "1"})),
    # and those files at 3.8's defaults from then (HALF and HALF_TAIL on, nothing forced) after attend's last P·V
    # moved into one branch (c7cf3a3: the d = 64 causal PTX reordered)
    *(Verified(path, "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-defaults-half-tail"), TESTS[path]))
      for path in ("ws-forward", "ws-half")),
    # the forward's files with the next query tile's Q loaded early in persistent launches forced
    # (FLASHVIZ_WS_Q_AHEAD=1; off by default, ws_switches.q_ahead_default), on an H100 at 19061bd
    Verified("ws-forward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-q-ahead"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_Q_AHEAD": "1"})),
    # the forward's files with the persistent tile order stepped instead of decoded forced (FLASHVIZ_WS_WALK=1; off
    # by default, ws_switches.walk_default), on an H100 at fbd414a
    Verified("ws-forward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-walk"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_WALK": "1"})),
    # the forward's files with every persistent launch reading its sizes and program count afresh forced
    # (FLASHVIZ_WS_FRESH=1; off by default, ws_switches.fresh_default), on an H100 at 4d07e40
    Verified("ws-forward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-fresh"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_FRESH": "1"})),
    # the forward's files (and tests/kernels/test_ws_skip.py) with SKIP forced: a three-consumer launch's consumers
    # walk only the key tiles their own rows see (3.6's and 3.8's default from then, ws_switches.skip_default), on an
    # H100 at 7c1b809
    Verified("ws-forward", "3.6.", (9, 0), Suite(H100_SUITE.format("3.6.0-ws-forward-skip"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_SKIP": "1"})),
    Verified("ws-forward", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-skip"), TESTS["ws-forward"],
                                                 env={"FLASHVIZ_WS_SKIP": "1"})),
    # HALF forced beside 3.8's defaults (SKIP on in three-consumer launches), on an H100 at 596dc4a: the two
    # together in dense causal d = 64 launches (3.8's default from then, ws_schedule.HALF_DENSE_TRITONS)
    Verified("ws-half", "3.8.", (9, 0), Suite(H100_SUITE.format("3.8.0-ws-forward-half-skip"), TESTS["ws-half"],
                                              env={"FLASHVIZ_WS_HALF": "1"})),
)


def version_label(prefix: str) -> str:
    """'3.6.' -> '3.6.x' (any patch release); a full version ('3.7.1') stays as it is."""
    return prefix + "x" if prefix.endswith(".") else prefix


def rows(path: str) -> tuple[Verified, ...]:
    if path not in PATHS:
        raise ValueError(f"unknown GPU path {path!r}; one of {PATHS}")
    return tuple(r for r in VERIFIED if r.path == path)


def versions(path: str) -> tuple[str, ...]:
    """The triton version prefixes `path` was verified on, oldest first."""
    return tuple(dict.fromkeys(r.triton for r in rows(path)))


def capabilities(path: str) -> tuple[tuple[int, int], ...]:
    return tuple(dict.fromkeys(r.capability for r in rows(path)))


def unverified_allowed() -> bool:
    return os.environ.get(UNVERIFIED_ENV, "") not in ("", "0")


def why_not(path: str, triton_version: str, capability, interpret: bool = False) -> str | None:
    """Why `path` may not run with this triton on a GPU of this capability (None: a row verifies the pair, or
    UNVERIFIED_ENV opens the version check for a verification run; the device checks stay). interpret: Triton
    interprets on CPU here. Remembered per (arguments, UNVERIFIED_ENV) while VERIFIED is the same table: every
    launch asks."""
    cap = None if capability is None else tuple(capability)
    return _why_not_memo(path, triton_version, cap, bool(interpret), unverified_allowed())


def _why_not(path: str, triton_version: str, capability, interpret: bool, unverified: bool) -> str | None:
    mine = rows(path)
    if not any(triton_version.startswith(r.triton) for r in mine) and not unverified:
        known = ", ".join(map(version_label, versions(path)))
        return (f"triton {triton_version} is not a version the {_NAMES[path]} was verified on ({known}; "
                f"{UNVERIFIED_ENV}=1 runs it anyway, to verify it)")
    if interpret:
        return f"Triton runs in interpreter mode here, which cannot run the {_NAMES[path]}"
    if capability is None:
        return "no CUDA device"
    cap = tuple(capability)
    if not any(r.capability == cap for r in mine):
        names = " or ".join(f"sm_{a}{b}" for a, b in capabilities(path))
        return (f"compute capability {cap[0]}.{cap[1]} is not {names} (Hopper), the only one the {_NAMES[path]} was "
                f"verified on")
    if not any(r.capability == cap and triton_version.startswith(r.triton) for r in mine) and not unverified:
        return f"triton {triton_version} was not verified with the {_NAMES[path]} on sm_{cap[0]}{cap[1]}"
    return None


def describe(path: str) -> list[str]:
    """One line per row: 'triton 3.6.x on sm_90 (FILE)'."""
    return [f"triton {version_label(r.triton)} on sm_{r.capability[0]}{r.capability[1]} ({r.evidence.file})"
            for r in rows(path)]


_why_not_memo = Memo(_why_not, ((sys.modules[__name__], "VERIFIED"),))
