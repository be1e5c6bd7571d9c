#!/bin/bash
# Test and time the Gluon ws backward (kernels/ws_bwd.py) on one H200, in one batched run of at most ~8 minutes:
#   the sm_90 compile report of both dQ modes (registers per setmaxnreg budget, spills, shared memory, atomics) and
#   GPU tests of the ws backward, every dQ mode (4 processes, while 4 more fill triton's cache with the tune
#   runs), then backward alone, fp16, B=4,
#   H=32, N 4096/8192/16384, d 64/128, causal off/on: every ws candidate (tune_backward.WS_CANDIDATES), the fused
#   backward's pick, the 7-matmul reference, SDPA cuDNN and SDPA flash in the same run (bwd_ws.json, bwd_ws.txt).
# Run from the repository root on the GPU machine with OUT set to a folder for the logs and JSON:
#   FLASHVIZ_GIT_COMMIT=<commit> bash tests/kernels/device_verify_ws_bwd.sh
export PYTHONPATH="$PWD:/tmp/fv" PYTHONUNBUFFERED=1 FLASHVIZ_GIT_DIRTY=${FLASHVIZ_GIT_DIRTY:-0}
OUT=${OUT:-/tmp/ws-bwd-out}; mkdir -p "$OUT" /tmp/fv && ln -sfn "$PWD/kernels" /tmp/fv/flashviz_kernels
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name(0))"
python3 -c "from flashviz_kernels import ws_bwd, ws; import torch; print('ws status:', ws.status()['reason'], '| ws_bwd:', ws_bwd.supported(torch.empty(1, 1, 1, 64, dtype=torch.float16, device='cuda')) or 'ok')"
timeout 200 python3 -m tools.compile_check --ws-bwd --dtype both > $OUT/compile.txt 2>&1 &
for d in 64 128; do for c in 0 1; do
  timeout 180 python3 -m tools.tune_backward --kind ws --warm-only --d $d --n 256 --causal $c > $OUT/warm_${d}_${c}.txt 2>&1 &
done; done
P="timeout 240 python3 -m pytest -m gpu -q -p no:cacheprovider -rs"
# "split" (and "split-scalar") in processes of their own: should they hang, the other modes' results still come back
$P tests/kernels/test_ws_bwd_gpu.py -k "full_size and not split" > $OUT/tests_a.txt 2>&1 &
$P tests/kernels/test_ws_bwd_gpu.py -k "not full_size and not split" > $OUT/tests_b.txt 2>&1 &
$P tests/kernels/test_ws_bwd_gpu.py -k "full_size and split" > $OUT/tests_c.txt 2>&1 &
$P tests/kernels/test_ws_bwd_gpu.py -k "not full_size and split" > $OUT/tests_d.txt 2>&1 &
wait
t compile+warm+tests done; tail -5 $OUT/tests_*.txt; tail -2 $OUT/warm_*.txt; cat $OUT/compile.txt
timeout 230 python3 -m tools.tune_backward --kind ws --d 64 128 --n 4096 8192 16384 --rep 60 --out $OUT/bwd_ws.json > $OUT/bwd_ws.txt 2>&1
t bwd done; grep -A11 "ratio to SDPA" $OUT/bwd_ws.txt | tail -26
