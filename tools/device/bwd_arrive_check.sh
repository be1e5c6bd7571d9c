#!/usr/bin/env bash
# The ws backward's FLASHVIZ_WS_BWD_THREAD_ARRIVE (kernels/ws_switches.py; off: its 2026-12-07 timing is
# tests/kernels/test_ws_bwd_arrive_timed.py's) on a lent H100 under the carried triton 3.8 (.whl/t38:
# tools/device/pack.sh triton 3.8.0); cuDNN is the A/B's peer, FA4 is not needed:
#   export FLASHVIZ_GIT_COMMIT=<full hash of the committed tree>
#   bash tools/device/bwd_arrive_check.sh time [PAIRS] [S] [LABEL]
#   export FLASHVIZ_GIT_COMMIT=<...>; bash tools/device/bwd_arrive_check.sh suite
# "time": fv_ab in alternating processes (the switch is read at the kernel's import), backward at N = 16384, d 64 /
# 128, causal 0 / 1, PAIRS pairs (2) of processes cut at S seconds (110; a cut process keeps the cells it finished);
# first the switch's gradients against float64 autograd, four repeats a shape (tools.ws_bwd_errors: a race shows as
# errors that change between repeats) in the default launches (d 64 rows-frag, d 128 frag, prefetch 2), ragged and
# windowed; each A/B process then checks ours against cuDNN's gradients (maxerr) before timing. "suite": the ws
# backward's GPU tests with the switch forced on (float64 references): what must pass before it becomes a default.
# Files land in $OUT (the A/B's in $OUT/ab-LABEL.tgz; LABEL bwd-arrive, another for a second call's pairs);
# commit them as assets/benchmarks/tune/nvidia-h100-... (or -h200-: the script runs on either)
set -u
stage=${1:?time or suite} label=${4:-bwd-arrive}
. tools/device/env.sh
fv_start .whl/t38 || exit 1
case "$stage" in
time)
    printf '%s\n' rows-frag,2,0,64,1000,128 rows-frag,2,1,64,4173,128 frag,2,1,128,3000,64 frag,2,0,128,4096,64 \
        frag,2,1,128,5000,64,256/0 rows-frag,2,1,64,4096,128,512/0 | FLASHVIZ_WS_BWD_THREAD_ARRIVE=1 timeout 120 \
        xargs -P 6 -n 1 python3 -m tools.ws_bwd_errors > "$OUT/bwd-arrive-sanity.txt" 2>&1
    echo "sanity rc $?"; cat "$OUT/bwd-arrive-sanity.txt"
    FV_AB_S=${3:-110} FV_AB_ARGS="--clocks --rounds 3 --rep-ms 60 --mode bwd --n 16384" \
        fv_ab FLASHVIZ_WS_BWD_THREAD_ARRIVE "$label" "${2:-2}" > "$OUT/bwd-arrive-ab.txt" 2>&1
    cat "$OUT/bwd-arrive-ab.txt"
    (cd "$OUT" && tar xzf "ab-$label.tgz" -O --wildcards '*.log' 2>/dev/null |
        grep -E "^bwd |Error|error" | head -40)
    ;;
suite)
    FLASHVIZ_WS_BWD_THREAD_ARRIVE=1 FV_SUITE_S=${FV_SUITE_S:-480} fv_suite ws-bwd-arrive1-t38 \
        tests/kernels/test_ws_bwd_gpu.py tests/kernels/test_backward_fused_gpu.py
    ;;
*) echo "stage is time or suite, not $stage"; exit 1 ;;
esac
