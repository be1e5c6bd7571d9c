"""Strings of the page "Speed and memory" (flashviz/ui/speed.py, ui/speed_live.py) and its charts (charts/speed.py).

Terms follow the seeds: IO 感知, HBM, 片上 SRAM, 显存峰值, 解释器, 分块, 在线 softmax, 重计算.
"""

STRINGS = {
    "speed.title": {"en": "Speed and memory", "zh": "速度与显存"},
    "speed.intro": {
        "en": "The stepper shows *how* FlashAttention computes; this page shows what it buys, measured. Naive "
              "attention writes the whole N × N score matrix to HBM and reads it back; the flash kernels keep one "
              "tile at a time in on-chip SRAM. Without a mask both do the same arithmetic; the flash kernels move "
              "far less data: faster, and memory that grows like N instead of N².",
        "zh": "逐块演示页展示 FlashAttention *如何* 计算；本页用实测数据展示它带来了什么。朴素注意力把整个 N × N "
              "分数矩阵写进 HBM 再读回来；flash kernel 每次只把一个 tile 放在片上 SRAM 里。不加掩码时两者的算术相同，"
              "但 flash kernel 搬运的数据少得多：更快，而且显存随 N 线性增长，而不是随 N² 增长。"},
    "speed.batch": {"en": "Batch B", "zh": "批大小 B"},
    "speed.heads": {"en": "Heads H", "zh": "头数 H"},
    "speed.bh_help": {"en": "This page's own batch and head count (the recorded H200 sweep used B = 4, H = 32). "
                            "Every (batch, head) is an independent attention of N × d.",
                      "zh": "本页自己的批大小和头数（录制的 H200 数据用的是 B = 4，H = 32）。每个 (batch, 头) "
                            "都是一个独立的 N × d 注意力。"},
    "speed.mode": {"en": "Pass", "zh": "计算阶段"},
    "speed.mode_help": {"en": "Forward only, the backward pass alone, or both (training). Recorded datasets "
                              "list only the passes they measured.",
                        "zh": "只算前向、只算反向，或两者都算（训练）。录制的数据集只列出它测过的阶段。"},
    "speed.mode_fwd": {"en": "forward", "zh": "前向"},
    "speed.mode_bwd": {"en": "backward", "zh": "反向"},
    "speed.mode_fwd+bwd": {"en": "forward + backward", "zh": "前向 + 反向"},
    "speed.fix_input": {"en": "Fix the configuration in the sidebar (or B, H above) to see measurements.",
                        "zh": "请先修正侧栏里的配置（或上方的 B、H），才能看到测量结果。"},
    "speed.no_gpu": {
        "en": "**No CUDA GPU on this machine**, so nothing is timed live here. Below: GPU measurements recorded with "
              "`python -m flashviz.bench` (where they come from is shown beside every chart), and memory measured "
              "honestly on this CPU (at the bottom of this page). The kernel panel on the stepper page still runs "
              "the real Triton kernel, in Triton's interpreter.",
        "zh": "**本机没有 CUDA GPU**，所以这里不做实时计时。下面是用 `python -m flashviz.bench` 录制的 GPU 测量数据"
              "（每张图旁边都注明了数据来源），以及在本机 CPU 上如实测得的内存（在本页底部）。逐块演示页上的 kernel "
              "面板仍然会在 Triton 解释器里运行真正的 Triton kernel。"},
    "speed.family": {"en": "N = {n}, d = {d}, {causal}, {dtype}, B = {b}, H = {h}, {mode}",
                     "zh": "N = {n}，d = {d}，{causal}，{dtype}，B = {b}，H = {h}，{mode}"},
    "speed.family_sweep": {"en": "d = {d}, {causal}, {dtype}, B = {b}, H = {h}, {mode}",
                           "zh": "d = {d}，{causal}，{dtype}，B = {b}，H = {h}，{mode}"},
    "speed.causal": {"en": "causal", "zh": "因果掩码"},
    "speed.full": {"en": "no mask", "zh": "无掩码"},

    # live (CUDA)
    "speed.live_header": {"en": "Measured live on this GPU", "zh": "在本机 GPU 上实时测量"},
    "speed.live_intro": {
        "en": "GPU: **{gpu}**. “Run on GPU” measures naive attention, PyTorch SDPA (flash and cuDNN backends) and "
              "the project's teaching and fast Triton kernels on the current configuration: median time of repeated "
              "runs after warm-up, TFLOP/s and peak extra memory. Runs from all browsers queue for the GPU one at a "
              "time; results are kept per configuration.",
        "zh": "GPU：**{gpu}**。“在 GPU 上运行”会在当前配置下测量朴素注意力、PyTorch SDPA（flash 与 cuDNN 后端）以及"
              "本项目的教学版和快速版 Triton kernel：预热后多次运行的中位时间、TFLOP/s 和额外显存峰值。"
              "所有浏览器发起的运行会排队依次使用 GPU；结果按配置保存。"},
    "speed.live_tiles_yours": {"en": "The teaching kernel runs with your tiles Br = {br}, Bc = {bc}.",
                               "zh": "教学 kernel 使用你选的 tile 大小 Br = {br}，Bc = {bc}。"},
    "speed.live_tiles_default": {
        "en": "The teaching kernel runs with its own tiles (Br = 128, or 64 when d > 128; Bc = 64): your Br = {br}, "
              "Bc = {bc} are not powers of two from 16 to 256, which the compiled kernel needs.",
        "zh": "教学 kernel 使用它自己的默认 tile 大小（Br = 128，d > 128 时为 64；Bc = 64）：你选的 Br = {br}、"
              "Bc = {bc} 不是 16 到 256 之间的 2 的幂，而编译后的 kernel 需要这样的 tile 大小。"},
    "speed.live_run": {"en": "Run on GPU", "zh": "在 GPU 上运行"},
    "speed.live_sweep": {"en": "Sweep N = {lo} … {hi}", "zh": "扫描 N = {lo} … {hi}"},
    "speed.live_queued": {"en": "Another session is using the GPU; this run starts as soon as it is done.",
                          "zh": "另一个会话正在使用 GPU；它一结束，这次运行就会开始。"},
    "speed.live_running": {"en": "Measuring…", "zh": "正在测量……"},
    "speed.live_progress": {"en": "{done} / {total}: {impl} at N = {n}: {status}",
                            "zh": "{done} / {total}：{impl}，N = {n}：{status}"},
    "speed.live_result": {"en": "This configuration: {what}", "zh": "当前配置：{what}"},
    "speed.live_when": {"en": "Measured on {gpu} at {when} (server time).", "zh": "于 {when}（服务器时间）在 {gpu} 上测得。"},
    "speed.live_sweeping": {"en": "Sweeping N on the GPU…", "zh": "正在 GPU 上扫描 N……"},
    "speed.live_swept": {"en": "Sweep finished", "zh": "扫描完成"},

    # recorded datasets
    "speed.rec_header": {"en": "Recorded on a GPU", "zh": "在 GPU 上录制的数据"},
    "speed.dataset": {"en": "Dataset", "zh": "数据集"},
    "speed.dataset_help": {"en": "Measurements recorded by `python -m flashviz.bench`, committed with the app or "
                                 "uploaded by you (this session only).",
                           "zh": "由 `python -m flashviz.bench` 录制的测量数据：随应用提交的，或你上传的（仅本次会话可见）。"},
    "speed.uploaded": {"en": "uploaded", "zh": "已上传"},
    "speed.no_dataset": {"en": "No dataset here measured the {mode} pass. Pick another pass above, or upload one.",
                         "zh": "这里没有测过{mode}阶段的数据集。请在上方选择其他阶段，或上传一个。"},
    "speed.bad_committed": {"en": "The committed dataset {name} is not valid and is left out: {msg}",
                            "zh": "随应用提交的数据集 {name} 无效，已略过：{msg}"},
    "speed.upload": {"en": "Upload your own dataset (JSON)", "zh": "上传你自己的数据集（JSON）"},
    "speed.upload_help": {
        "en": "Made on your GPU with `python -m flashviz.bench --preset gpu-small --out my-gpu.json`. The file is "
              "only read and checked (size, JSON, schema, finite numbers), never executed; it stays in your session.",
        "zh": "在你的 GPU 上用 `python -m flashviz.bench --preset gpu-small --out my-gpu.json` 生成。文件只会被读取和"
              "检查（大小、JSON 格式、字段结构、数字有限），绝不会被执行；它只保存在你的会话里。"},
    "speed.upload_rejected": {"en": "{name} was not accepted: {msg}", "zh": "{name} 未被接受：{msg}"},
    "speed.upload_accepted": {"en": "{name} accepted ({label}); it is in the dataset list for this session.",
                              "zh": "已接受 {name}（{label}）；本次会话中它会出现在数据集列表里。"},
    "speed.metric": {"en": "Speed shown as", "zh": "速度显示为"},
    "speed.metric_tflops": {"en": "useful TFLOP/s", "zh": "有效 TFLOP/s"},
    "speed.metric_ms": {"en": "time (ms)", "zh": "时间（ms）"},
    "speed.rec_same": {"en": "Recorded at exactly your configuration: {cfg}.", "zh": "录制数据正好包含你的配置：{cfg}。"},
    "speed.rec_nearest": {
        "en": "No recorded cell has your configuration ({mine}). Shown instead: the nearest recorded one, "
              "**{near}** — nearest, not the same.",
        "zh": "录制数据里没有你的配置（{mine}）。下面显示的是最接近的录制配置 **{near}**——只是最接近，并不相同。"},
    "speed.use_recorded": {"en": "Use the recorded configuration", "zh": "改用这个录制配置"},
    "speed.title_time": {"en": "Time vs N", "zh": "时间随 N 的变化"},
    "speed.title_tflops": {"en": "Useful TFLOP/s vs N", "zh": "有效 TFLOP/s 随 N 的变化"},
    "speed.title_memory": {"en": "Peak extra memory vs N", "zh": "额外显存峰值随 N 的变化"},
    "speed.legend_hint": {"en": "Click a name in a legend to show or hide it; greyed names (other SDPA backends) "
                                "are hidden to start with.",
                          "zh": "点击图例中的名称可显示或隐藏该曲线；灰色名称（其他 SDPA 后端）一开始是隐藏的。"},
    "speed.table_header": {"en": "At {cfg}", "zh": "配置 {cfg} 下"},
    "speed.source": {"en": "Source: {gpu} · driver {driver} · CUDA {cuda} · torch {torch} · triton {triton} · "
                           "{date} · commit {commit}",
                     "zh": "来源：{gpu} · 驱动 {driver} · CUDA {cuda} · torch {torch} · triton {triton} · "
                           "{date} · 提交 {commit}"},
    "speed.prov_header": {"en": "**Where these numbers come from**", "zh": "**这些数字从哪里来**"},
    "speed.prov_device": {"en": "GPU", "zh": "GPU"},
    "speed.prov_driver": {"en": "Driver", "zh": "驱动"},
    "speed.prov_cuda": {"en": "CUDA", "zh": "CUDA"},
    "speed.prov_torch": {"en": "torch", "zh": "torch"},
    "speed.prov_triton": {"en": "triton", "zh": "triton"},
    "speed.prov_numpy": {"en": "numpy", "zh": "numpy"},
    "speed.prov_python": {"en": "Python", "zh": "Python"},
    "speed.prov_platform": {"en": "Platform", "zh": "平台"},
    "speed.prov_date": {"en": "Date (UTC)", "zh": "日期（UTC）"},
    "speed.prov_commit": {"en": "Commit", "zh": "提交"},
    "speed.prov_command": {"en": "Command", "zh": "命令"},
    "speed.prov_timer": {"en": "Timer", "zh": "计时方式"},
    "speed.prov_incomplete": {"en": "Incomplete", "zh": "未完成"},
    # measure.TIMER_*, said in the page's language (the panel shows another file's own words as they are)
    "speed.timer_cuda": {"en": "triton.testing.do_bench median (CUDA events, L2 cleared per run)",
                         "zh": "`triton.testing.do_bench` 的中位数（CUDA 事件计时，每次运行前清空 L2）"},
    "speed.timer_cuda_graph": {
        "en": "triton.testing.do_bench median (CUDA events, L2 cleared per run); graph_ms: "
              "triton.testing.do_bench_cudagraph median (replays, L2 warm)",
        "zh": "`triton.testing.do_bench` 的中位数（CUDA 事件计时，每次运行前清空 L2）；graph_ms："
              "`triton.testing.do_bench_cudagraph` 的中位数（CUDA Graph 重放，L2 保持热）"},
    "speed.timer_cpu": {"en": "time.perf_counter median (CPU)", "zh": "`time.perf_counter` 的中位数（CPU）"},
    "speed.timer_rep": {"en": "; warm-up {warmup} ms, rep {rep} ms", "zh": "；预热 {warmup} ms，重复 {rep} ms"},
    "speed.timer_rounds": {"en": "; the implementations take turns in {rounds} rounds, each a full rep budget",
                           "zh": "；各实现轮流计时 {rounds} 轮，每轮一个完整的重复预算"},

    # tables and notes
    "speed.col_impl": {"en": "implementation", "zh": "实现"},
    "speed.col_status": {"en": "status", "zh": "状态"},
    "speed.col_ms": {"en": "time (ms)", "zh": "时间（ms）"},
    "speed.col_tflops": {"en": "useful TFLOP/s", "zh": "有效 TFLOP/s"},
    "speed.col_peak": {"en": "peak extra (MiB)", "zh": "额外峰值（MiB）"},
    "speed.col_speedup_naive": {"en": "speed-up vs naive", "zh": "相对 naive 加速"},
    "speed.col_speedup_cudnn": {"en": "speed-up vs cuDNN", "zh": "相对 cuDNN 加速"},
    "speed.col_mem_naive": {"en": "memory vs naive", "zh": "显存 / naive"},
    "speed.col_mem_cudnn": {"en": "memory vs cuDNN", "zh": "显存 / cuDNN"},
    "speed.col_spread": {"en": "spread (p20–p80)", "zh": "波动（p20–p80）"},
    "speed.noisy": {
        "en": "The per-call times of {impls} spread more than {pct} of their median between runs (p20–p80 in the "
              "spread column): a difference in time smaller than that spread is not a measured difference.",
        "zh": "{impls} 的单次调用时间在多次运行之间的波动超过中位数的 {pct}（见“波动”列的 p20–p80）：小于这个波动的时间差，"
              "不算测出来的差别。"},
    "speed.noisy_graph": {
        "en": "The per-call times of {impls} spread more than {pct} of their median between runs (p20–p80 in the "
              "spread column): a difference in time smaller than that spread is not a measured difference; compare "
              "the CUDA-graph columns, which time the same calls as replays.",
        "zh": "{impls} 的单次调用时间在多次运行之间的波动超过中位数的 {pct}（见“波动”列的 p20–p80）：小于这个波动的时间差，"
              "不算测出来的差别；请对照 CUDA graph 两列，它们以重放的方式为同样的调用计时。"},
    "speed.col_graph_ms": {"en": "GPU time, CUDA graph (ms)", "zh": "GPU 时间，CUDA graph（ms）"},
    "speed.col_graph_cudnn": {"en": "speed-up vs cuDNN, CUDA graph", "zh": "相对 cuDNN 加速，CUDA graph"},
    "speed.graph_note": {
        "en": "Time (ms) is one call as a program makes it, Python's launch work included; the CUDA-graph columns "
              "replay the same calls with that work removed, so they time the GPU alone. Where the two differ "
              "most (small N), the host's launch path, not the kernel, sets the speed of a single call.",
        "zh": "时间（ms）是用户发起一次调用的耗时，包含 Python 的启动开销；CUDA graph 两列重放同样的调用、去掉了这部分开销，"
              "只计 GPU 时间。两者相差最大的地方（N 较小时），决定单次调用快慢的是主机端的启动路径，而不是 kernel。"},
    "speed.status_ok": {"en": "ok", "zh": "正常"},
    "speed.status_oom": {"en": "OOM", "zh": "显存不足（OOM）"},
    "speed.status_error": {"en": "error", "zh": "出错"},
    "speed.status_unavailable": {"en": "not available", "zh": "不可用"},
    "speed.note_oom": {"en": "{impl} at N = {n} ran out of GPU memory (OOM): {msg}",
                       "zh": "{impl} 在 N = {n} 时显存不足（OOM）。测量时记录的原始英文信息：{msg}"},
    "speed.note_error": {"en": "{impl} at N = {n} failed: {msg}", "zh": "{impl} 在 N = {n} 时失败。测量时记录的原始英文信息：{msg}"},
    "speed.note_unavailable": {"en": "{impl} at N = {n} cannot run here: {msg}",
                               "zh": "{impl} 在 N = {n} 时无法在此运行。测量时记录的原始英文信息：{msg}"},

    # explanations
    "speed.explain_header": {"en": "What these numbers mean", "zh": "这些数字是什么意思"},
    "speed.explain": {
        "en": "**Time first, and what the FLOP counts mean.** The time is what was measured. TFLOP/s here is *useful* "
              "FLOPs ÷ time: 4·B·H·N²·d for a forward pass (Q·Kᵀ and P·V, 2·N²·d multiply-adds per head), half of "
              "it under the causal mask, the work the answer needs. Without a mask every implementation does that "
              "arithmetic, and FlashAttention skips none of it. Under the causal mask they differ: the flash "
              "kernels skip the blocks above the diagonal (about the useful half, plus the diagonal blocks), while "
              "naive attention computes all N² scores and masks them afterwards, twice the useful FLOPs. So naive's "
              "causal TFLOP/s is half the rate its GPU actually ran at; compare times. The saving FlashAttention "
              "makes is *IO-aware*: naive attention writes S = QKᵀ to HBM, reads it back for the softmax, writes P "
              "and reads P again for P·V, B·H·N² numbers each way; a flash kernel creates each tile of S and P in "
              "on-chip SRAM, uses it and drops it.\n\n"
              "**Why naive's memory is N² and flash's is output + LSE.** Naive holds S and P at the same moment: "
              "2·B·H·N² elements, 128 GiB at N = 16384 in fp16 with B = 4, H = 32. A flash kernel needs, beyond its "
              "inputs, only what it returns: the output O (B·H·N·d) and one log-sum-exp per row (B·H·N fp32 values, "
              "kept so the backward pass can recompute P instead of storing it). That is linear in N: the dashed "
              "green line on the memory chart; naive follows the N² slope.\n\n"
              "**Reading the ratios.** Speed-up vs X = X's time ÷ this time (2× is twice as fast). Memory vs X = "
              "this peak ÷ X's peak (0.01 is a hundredth). Peak extra memory is measured above the inputs q, K, V, "
              "which every implementation needs. sdpa-cudnn (NVIDIA cuDNN's attention, through PyTorch) is the "
              "fastest built-in on Hopper GPUs: the bar a high-performance kernel must meet. Naive is the textbook "
              "formula.\n\n"
              "**The interpreter.** Without a GPU, Triton's interpreter executes the kernels' same source on the CPU, "
              "tile by tile in Python: right numbers, meaningless time. So no CPU timing is shown as speed; the GPU "
              "numbers here were recorded on a GPU, with their provenance.",
        "zh": "**先看时间，再弄清 FLOPs 数的是什么。** 时间是实测值。这里的 TFLOP/s 是*有效* FLOPs ÷ 时间：前向一次 "
              "4·B·H·N²·d（Q·Kᵀ 和 P·V，每个头 2·N²·d 次乘加），因果掩码下减半，即得到答案所需的运算量。不加掩码时，"
              "所有实现做的都是这些运算，FlashAttention 一次也没省。加因果掩码时就不同了：flash kernel 跳过对角线上方的块"
              "（约为有效的一半，再加上对角线上的块），而朴素注意力先算出全部 N² 个分数再做掩码，运算量是有效 FLOPs 的两倍。"
              "所以朴素实现在因果掩码下的 TFLOP/s 只有它的 GPU 实际运行速率的一半；请比较时间。FlashAttention 省下的是 "
              "*IO*（这就是 IO 感知）：朴素注意力把 S = QKᵀ 写进 HBM，为 softmax 读回来，写出 P，为 P·V 再读一遍 P，"
              "每一趟都是 B·H·N² 个数；flash kernel 则在片上 SRAM 里创建 S 和 P 的每个 tile，用完即丢弃。\n\n"
              "**为什么朴素实现的显存是 N²，而 flash 只需输出 + LSE。** 朴素实现要同时保存 S 和 P：2·B·H·N² 个元素，"
              "fp16、B = 4、H = 32、N = 16384 时就是 128 GiB。flash kernel 除了输入之外，只需要它要返回的东西："
              "输出 O（B·H·N·d）和每行一个 log-sum-exp（B·H·N 个 fp32 值，留给反向传播用来重计算 P，而不是把 P 存下来）。"
              "这随 N 线性增长：即显存图中的绿色虚线；朴素实现则沿 N² 斜率上升。\n\n"
              "**怎么读这些比值。** 相对 X 的加速 = X 的时间 ÷ 本实现的时间（2× 表示快一倍）。显存 / X = 本实现的峰值 ÷ X 的"
              "峰值（0.01 表示只有百分之一）。额外显存峰值是在输入 q、K、V 之外测量的，因为任何实现都需要这些输入。"
              "sdpa-cudnn（经由 PyTorch 调用的 NVIDIA cuDNN 注意力）是 Hopper GPU 上最快的内置实现，是高性能 kernel "
              "必须达到的标杆；naive 就是教科书上的公式。\n\n"
              "**解释器。** 没有 GPU 时，Triton 解释器在 CPU 上用 Python 逐个 tile 执行 kernel 的同一份源码：数值是对的，"
              "时间却毫无意义。所以这里不把任何 CPU 计时当作速度展示；本页的 GPU 数据都是在 GPU 上录制的，并附有来源。"},
    "speed.naive_causal": {
        "en": "Naive attention at N = {n} with the causal mask: {ms} ms. It computed all N² scores before masking, "
              "so in that time it executed {done} TFLOP/s, twice the {useful} useful TFLOP/s in the table.",
        "zh": "因果掩码下 N = {n} 的朴素注意力：{ms} ms。它在掩码之前算出了全部 N² 个分数，所以这段时间里它实际执行了 "
              "{done} TFLOP/s，是表中有效 TFLOP/s（{useful}）的两倍。"},

    # memory measured on this CPU
    "speed.cpu_header": {"en": "Memory on this CPU: naive vs tiled", "zh": "本机 CPU 上的内存：朴素实现与分块实现"},
    "speed.cpu_intro": {
        "en": "Memory can be measured honestly on any machine. This runs one head of attention in numpy (float64) "
              "and records, with Python's tracemalloc, the peak memory allocated while computing, beyond q, K, V. "
              "Naive materialises the N × N score matrix. Tiled walks Br × Bc tiles with the online-softmax "
              "recurrence (running max m, running sum ℓ, rescale α) and keeps one tile plus the output.",
        "zh": "内存在任何机器上都可以如实测量。这里用 numpy（float64）计算一个头的注意力，并用 Python 的 tracemalloc "
              "记录计算过程中在 q、K、V 之外分配的内存峰值。朴素实现会物化 N × N 分数矩阵；分块实现用在线 softmax "
              "递推式（滚动最大值 m、滚动求和 ℓ、修正系数 α）逐个处理 Br × Bc 的 tile，只保留一个 tile 和输出。"},
    "speed.cpu_run": {"en": "Measure on this CPU (N = {ns})", "zh": "在本机 CPU 上测量（N = {ns}）"},
    "speed.cpu_running": {"en": "Measuring peak memory on the CPU…", "zh": "正在 CPU 上测量内存峰值……"},
    "speed.cpu_explain": {
        "en": "From N = {n0} to N = {n1}, naive's peak grew {grow:.0f}× while N² grew {sq:.0f}×: it is the N × N "
              "matrix, O(N²). Tiled's peak is the output (O(N·d), which any method must return) plus about "
              "{kib:.0f} KiB of scratch for {br} × {bc} tiles, the same at every N: O(tile). At N = {n1} naive needs "
              "{ratio:.0f}× as much.",
        "zh": "从 N = {n0} 到 N = {n1}，朴素实现的峰值变为原来的 {grow:.0f} 倍，而 N² 变为原来的 {sq:.0f} 倍：它就是"
              "那个 N × N 矩阵，O(N²)。分块实现的峰值是输出（O(N·d)，任何方法都必须返回它）加上约 {kib:.0f} KiB 的 "
              "{br} × {bc} tile 临时空间，在任何 N 下都一样：O(tile)。N = {n1} 时朴素实现所需内存是分块实现的 "
              "{ratio:.0f} 倍。"},
    "speed.cpu_col_naive": {"en": "naive peak (MiB)", "zh": "朴素峰值（MiB）"},
    "speed.cpu_col_theory": {"en": "N × N matrix (MiB)", "zh": "N × N 矩阵（MiB）"},
    "speed.cpu_col_tiled": {"en": "tiled peak (MiB)", "zh": "分块峰值（MiB）"},
    "speed.cpu_col_output": {"en": "output (MiB)", "zh": "输出（MiB）"},
    "speed.cpu_col_scratch": {"en": "tiled scratch (KiB)", "zh": "tile 临时空间（KiB）"},
    "speed.cpu_col_ratio": {"en": "naive / tiled", "zh": "朴素 / 分块"},
    "speed.cpu_col_diff": {"en": "max |Δ output|", "zh": "输出最大 |Δ|"},
    "speed.cpu_title": {"en": "Peak memory while computing, on this CPU", "zh": "计算时的内存峰值（本机 CPU）"},
    "speed.cpu_subtitle": {"en": "one head, d = {d}, tiles {br} × {bc}, {dtype}, measured with tracemalloc",
                           "zh": "单个头，d = {d}，tile {br} × {bc}，{dtype}，用 tracemalloc 测量"},
    "speed.cpu_naive": {"en": "naive, measured", "zh": "朴素实现（实测）"},
    "speed.cpu_theory": {"en": "N × N matrix (N² theory)", "zh": "N × N 矩阵（N² 理论值）"},
    "speed.cpu_tiled": {"en": "tiled, measured", "zh": "分块实现（实测）"},
    "speed.cpu_output": {"en": "the output alone", "zh": "仅输出"},
    "speed.cpu_tile": {"en": "one score tile", "zh": "一个分数 tile"},
    "speed.axis_cpu_peak": {"en": "peak memory beyond q, K, V (MiB)", "zh": "q、K、V 之外的内存峰值（MiB）"},

    # charts
    "speed.impl_naive": {"en": "naive (PyTorch)", "zh": "朴素实现（PyTorch）"},
    "speed.impl_sdpa": {"en": "SDPA (auto)", "zh": "SDPA（自动选择）"},
    "speed.impl_sdpa-math": {"en": "SDPA math", "zh": "SDPA math 后端"},
    "speed.impl_sdpa-efficient": {"en": "SDPA mem-efficient", "zh": "SDPA 省显存后端"},
    "speed.impl_sdpa-flash": {"en": "SDPA flash (FA2)", "zh": "SDPA flash 后端（FA2）"},
    "speed.impl_sdpa-cudnn": {"en": "SDPA cuDNN", "zh": "SDPA cuDNN 后端"},
    "speed.impl_teaching": {"en": "teaching kernel (Triton)", "zh": "教学 kernel（Triton）"},
    "speed.impl_fast": {"en": "fast kernel (Triton)", "zh": "快速 kernel（Triton）"},
    "speed.impl_ws": {"en": "ws kernel (Gluon, Hopper)", "zh": "ws kernel（Gluon，Hopper）"},
    "speed.impl_fa4": {"en": "FlashAttention-4 (CuTe DSL)", "zh": "FlashAttention-4（CuTe DSL）"},
    "speed.mark_oom": {"en": "OOM", "zh": "OOM"},
    "speed.mark_error": {"en": "error", "zh": "出错"},
    "speed.mark_your_n": {"en": "N = {n}", "zh": "N = {n}"},
    "speed.slope_n2": {"en": "∝ N² (reference)", "zh": "∝ N²（参考斜率）"},
    "speed.slope_n": {"en": "∝ N (reference)", "zh": "∝ N（参考斜率）"},
    "speed.series_ideal": {"en": "output + LSE (flash's least)", "zh": "输出 + LSE（flash 的下限）"},
    "speed.axis_n": {"en": "sequence length N", "zh": "序列长度 N"},
    "speed.axis_ms": {"en": "median time (ms)", "zh": "中位时间（ms）"},
    "speed.axis_tflops": {"en": "TFLOP/s: useful FLOPs ÷ time", "zh": "TFLOP/s：有效 FLOPs ÷ 时间"},
    "speed.axis_peak": {"en": "peak extra memory (MiB)", "zh": "额外显存峰值（MiB）"},
    "speed.no_memory": {"en": "no GPU memory recorded (a CPU run)", "zh": "没有记录显存（CPU 上的运行）"},
    "speed.to_hardware": {
        "en": "Where these speeds sit against the GPU's roofs, with the HBM bytes measured: {page}",
        "zh": "这些速度相对于 GPU 屋顶的位置，以及实测的 HBM 字节数：{page}"},
    "speed.kernel_line": {
        "en": "impl=\"fast\" ran the **{kernel}** kernel with {bm} × {bn} tiles here; the warp-specialised kernel (ws): "
              "{why}.",
        "zh": "在这里，impl=\"fast\" 运行的是 **{kernel}** kernel，tile 为 {bm} × {bn}；warp 特化 kernel（ws）：{why}。"},
    "speed.ws_used": {"en": "used", "zh": "已使用"},
    "speed.ws_not_here": {"en": "active, but not chosen at this d, causal and N ({rules})",
                          "zh": "可用，但在这个 d、因果设置和 N 下未被选用（{rules}）"},
    "speed.ws_off": {"en": "not used: {reason}", "zh": "未使用：{reason}"},          # reason: a code span
    "speed.upload_too_big": {"en": "Over the limit: datasets are at most {cap} MiB.",
                             "zh": "超出上限：数据集最大 {cap} MiB。"},
    # Streamlit's own words in the upload box, said again in the page's language (ui/speed.upload_css)
    "speed.upload_button": {"en": "Upload", "zh": "上传"},
    "speed.upload_limit": {"en": "{cap} MiB per file · JSON", "zh": "每个文件最大 {cap} MiB · JSON"},
}
