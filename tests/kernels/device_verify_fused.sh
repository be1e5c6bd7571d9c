#!/bin/bash
# Test and time the fused (5-matmul) backward on one H200, in one batched run of about 4-5 minutes:
#   GPU tests of the fused backward (4 processes, while 4 more fill triton's cache with the tune candidates),
#   then backward alone, fp16, B=4, H=32, N 4096/8192/16384, d 64/128, causal off/on: every fused candidate,
#   the 7-matmul reference, SDPA cuDNN and SDPA flash in the same run (bwd.json), then the N=1024 forward
#   with per-call and CUDA-graph times, fast vs sdpa-cudnn (n1024.json), then launch_overhead at N=1024.
# Run from the repository root on the GPU machine with OUT set to a folder for the logs and JSON:
#   FLASHVIZ_GIT_COMMIT=<commit> bash tests/kernels/device_verify_fused.sh
export PYTHONPATH="$PWD:/tmp/fv" PYTHONUNBUFFERED=1 FLASHVIZ_GIT_DIRTY=${FLASHVIZ_GIT_DIRTY:-0}
OUT=${OUT:-/tmp/fused-out}; mkdir -p "$OUT" /tmp/fv && ln -sfn "$PWD/kernels" /tmp/fv/flashviz_kernels
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name(0))"
for d in 64 128; do for c in 0 1; do
  timeout 130 python3 -m tools.tune_backward --kind fused --warm-only --d $d --n 256 --causal $c > $OUT/warm_${d}_${c}.txt 2>&1 &
done; done
P="timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider"
$P tests/kernels/test_backward_fused_gpu.py -k "full_size and 64" > $OUT/tests_a.txt 2>&1 &
$P tests/kernels/test_backward_fused_gpu.py -k "full_size and 128" > $OUT/tests_b.txt 2>&1 &
$P tests/kernels/test_backward_fused_gpu.py -k "not full_size" > $OUT/tests_c.txt 2>&1 &
${P/ -m gpu/} tests/kernels/test_fast_descriptors.py "tests/bench/test_bench.py::test_gpu_cells_record_graph_and_per_call_times" tests/kernels/test_backward.py -k "fully_masked or descriptor or graph or reused or rebuilt or freed" > $OUT/tests_d.txt 2>&1 &
wait
t warm+tests done; tail -4 $OUT/tests_*.txt; tail -2 $OUT/warm_*.txt
timeout 120 python3 -m tools.tune_backward --kind fused --d 64 128 --n 4096 8192 16384 --rep 60 --out $OUT/bwd.json > $OUT/bwd.txt 2>&1
t bwd done; grep -A8 "geomean\|ratio to SDPA" $OUT/bwd.txt | tail -24
timeout 60 python3 -m flashviz.bench --n 1024 --d 64 128 --causal both --impls fast sdpa-cudnn --batch 4 --heads 32 --dtype float16 --out $OUT/n1024.json --quiet > $OUT/n1024.txt 2>&1
t n1024 done; grep -B2 -A8 "graph_speedup_vs_cudnn by" $OUT/n1024.txt
timeout 40 python3 -m tools.launch_overhead --n 1024 > $OUT/overhead.txt 2>&1
t overhead done
