"""Developer tools, run from a checkout (`python -m tools.NAME` in the repository root); not part of the installed
library (kernels/ as flashviz_kernels) nor of the app's measurement room (flashviz/bench), and they call only
public hooks of the kernels.

  compile_check         compile the Gluon and fused kernels for sm_90 on a machine without a GPU; ptxas's report
  tune_fast, tune_ws    time the forward kernels' tiles and schedules on a GPU (outputs kept in assets/benchmarks/tune/)
  tune_backward         the same for the backwards (tune_backward_masks: the ws backward on windows, documents, GQA)
  launch_overhead       per-call, CUDA-graph and enqueue times of short calls
  tune_record           the provenance header every tune output starts with
  suite_summary         run the GPU test suite and write assets/verified/<gpu>-triton-<version>.json
  private_names         list imports of `_`-names across modules (the count the issue tracks)
A tool's output becomes evidence when a dispatch-table row names the file it wrote (kernels/claims.py).
"""
