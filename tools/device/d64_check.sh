#!/usr/bin/env bash
# A d = 64 build switch of the ws forward (read at the kernel import: POLY, MMA_SUM in kernels/ws_switches.py) on a
# lent GPU, carrying .whl/t38 (tools/device/pack.sh triton 3.8.0):
#   export FLASHVIZ_GIT_COMMIT=<full hash>; bash tools/device/d64_check.sh VAR [ab] [suite]
# ab (~3 min a pair with start-up): VAR's A/B in alternating processes against cuDNN (fv_ab), d = 64 dense and
#    causal at N 4096 and 16384, D64_PAIRS pairs (2), each process cut at D64_AB_S s (85);
# suite (~2 min): the ws forward's GPU files with VAR=1, cut at D64_SUITE_S s (170).
# Parts run in the order given (none: both). Files land in $OUT (ab-NAME.tgz, NAME-ws-gpu.*, NAME from VAR:
# FLASHVIZ_WS_MMA_SUM -> mma-sum); name them assets/benchmarks/tune/<gpu>-fwd-NAME-... when committed.
set -u
var=${1:?VAR [ab] [suite]}; shift
name=$(echo "${var#FLASHVIZ_WS_}" | tr 'A-Z_' 'a-z-')
. tools/device/env.sh
fv_parts "ab suite" "$@" || exit 2
fv_start .whl/t38 || exit 1
for p in $FV_PARTS; do
    case $p in
    ab)
        FV_AB_S=${D64_AB_S:-85} FV_AB_ARGS="--rounds 3 --rep-ms 60 --mode fwd --d 64 --causal 0 1 --n 4096 16384" \
            fv_ab "$var" "$name" "${D64_PAIRS:-2}" > "$OUT/$name-ab.txt" 2>&1
        cat "$OUT/$name-ab.txt"
        ;;
    suite)
        (export "$var=1"; FV_SUITE_S=${D64_SUITE_S:-170} fv_suite "$name-ws-gpu" tests/kernels/test_ws_poly.py \
            tests/kernels/test_ws_mma_sum.py tests/kernels/test_ws_gpu.py tests/kernels/test_ws_variants_gpu.py)
        ;;
    esac
done
