#!/usr/bin/env bash
# POLY (ws_switches.poly_default: at d = 64 one exponential in eight of an unmasked tile on the FMA pipe) on a lent
# GPU, carrying .whl/t38 (tools/device/pack.sh triton 3.8.0):
#   export FLASHVIZ_GIT_COMMIT=<full hash>; bash tools/device/poly_check.sh [ab] [suite]
# ab (~6 min): its A/B in alternating processes against cuDNN (fv_ab: a build switch, read at the kernel import),
#    d = 64 dense and causal at N 4096 and 16384, POLY_PAIRS pairs (2), each process cut at POLY_AB_S s (85);
# suite (~3 min): the ws forward's GPU files with it forced (dense and variants), cut at POLY_SUITE_S s (170).
# Parts run in the order given (none: both). Files land in $OUT (ab-poly.tgz, poly-ws-gpu.*); name them
# assets/benchmarks/tune/<gpu>-fwd-poly-... when committed.
set -u
parts=" ${*:-ab suite} "
for p in $parts; do
    case $p in ab|suite) ;; *) echo "poly_check.sh: unknown part $p (ab, suite)"; exit 2;; esac
done
. tools/device/env.sh
fv_start .whl/t38 || exit 1
for p in $parts; do
    case $p in
    ab)
        FV_AB_S=${POLY_AB_S:-85} FV_AB_ARGS="--rounds 3 --rep-ms 60 --mode fwd --d 64 --causal 0 1 --n 4096 16384" \
            fv_ab FLASHVIZ_WS_POLY poly "${POLY_PAIRS:-2}" > "$OUT/poly-ab.txt" 2>&1
        cat "$OUT/poly-ab.txt"
        ;;
    suite)
        FLASHVIZ_WS_POLY=1 FV_SUITE_S=${POLY_SUITE_S:-170} fv_suite poly-ws-gpu tests/kernels/test_ws_poly.py \
            tests/kernels/test_ws_gpu.py tests/kernels/test_ws_variants_gpu.py
        ;;
    esac
done
