"""Strings of the page "Backward and recomputation" (flashviz/ui/backward.py, ui/backward_demo.py) and its charts
(charts/backward.py).

Terms follow the seeds: 反向传播, 重计算, 显存, HBM, 片上 SRAM, 统计量 m 和 ℓ, log-sum-exp, 分块.
"""

STRINGS = {
    "backward.nav": {"en": "Backward and recomputation", "zh": "反向传播与重计算"},
    "backward.title": {"en": "Backward and recomputation", "zh": "反向传播与重计算"},
    "backward.intro": {
        "en": "The backward pass of attention needs the probabilities P. Standard attention keeps the N × N matrices "
              "in HBM until then; FlashAttention keeps the output O and a few numbers per query row, and "
              "**recomputes** S and P tile by tile in on-chip SRAM (FlashAttention-1 kept m and ℓ, two numbers per "
              "row; FlashAttention-2 keeps one, the log-sum-exp L = m + log ℓ).",
        "zh": "注意力的反向传播需要概率 P。标准注意力把 N×N 矩阵一直留在 HBM 里等它来读；FlashAttention 只保留输出 O 和每个 "
              "query 行的几个数，在片上 SRAM 中逐块**重计算** S 和 P（FlashAttention-1 保存 m 和 ℓ，每行两个数；"
              "FlashAttention-2 只保存一个，即 log-sum-exp L = m + log ℓ）。"},
    "backward.batch": {"en": "batch B", "zh": "批大小 B"},
    "backward.heads": {"en": "heads H", "zh": "头数 H"},
    "backward.bh_help": {"en": "Memory and FLOPs below count all B × H heads (the recorded GPU datasets use B = 4, "
                               "H = 32).",
                         "zh": "下面的显存和 FLOPs 按全部 B × H 个头计算（录制的 GPU 数据集用 B = 4、H = 32）。"},
    "backward.load_training": {"en": "Use a recorded training size (N = {n}, d = {d}, fp16)",
                               "zh": "使用已录制的训练规模（N = {n}，d = {d}，fp16）"},
    "backward.load_training_help": {"en": "Sets the shared configuration for every page (the 'long' preset, fp16).",
                                    "zh": "修改所有页面共享的配置（“长序列”预设，fp16）。"},
    "backward.fix_input": {"en": "Fix the value above to see the numbers.", "zh": "请先修正上面的输入，再查看数字。"},

    # what is stored
    "backward.stored_header": {"en": "What the backward pass keeps", "zh": "反向传播要保存什么"},
    "backward.stored_explain": {
        "en": "For each head the forward pass produces S = QKᵀ/√d and P = softmax(S), both N × N. The standard way "
              "keeps them in HBM for the backward pass: 2·N² numbers per head, growing with the square of the "
              "sequence length. FlashAttention-2 keeps O (N × d, the layer's output, which exists anyway) and the "
              "log-sum-exp L (N numbers in fp32): O(N) extra memory. FlashAttention-1 kept the row statistics m and "
              "ℓ separately (2N numbers); folding them into one L per row is FlashAttention-2's change. The numbers are for the sidebar's N, d and dtype "
              "and this page's B × H heads.",
        "zh": "对每个头，前向传播会产生 S = QKᵀ/√d 和 P = softmax(S)，两者都是 N×N。标准做法把它们存在 HBM 里留给反向传播："
              "每个头 2·N² 个数，随序列长度的平方增长。FlashAttention-2 只保存 O（N×d，本来就是这一层的输出）和 "
              "log-sum-exp L（N 个 fp32 数）：额外显存只有 O(N)。FlashAttention-1 把行统计量 m 和 ℓ 分开保存（2N 个数）；"
              "把它们合成每行一个 L 是 FlashAttention-2 的改动。下面的数字按侧边栏的 N、d、dtype 和本页的 B × H 个头计算。"},
    "backward.metric_naive": {"en": "standard keeps (S, P)", "zh": "标准注意力保存（S、P）"},
    "backward.metric_naive_help": {"en": "2 · B · H · N² · bytes per element", "zh": "2 · B · H · N² · 每个元素的字节数"},
    "backward.metric_flash": {"en": "FlashAttention-2 keeps (O, L)", "zh": "FlashAttention-2 保存（O、L）"},
    "backward.metric_flash_help": {"en": "B · H · N · (d · bytes per element + 4)",
                                   "zh": "B · H · N · (d · 每个元素的字节数 + 4)"},
    "backward.metric_ratio": {"en": "ratio", "zh": "比值"},
    "backward.metric_ratio_help": {"en": "2 · N · e / (d · e + 4) for e bytes per element: it grows linearly with N.",
                                   "zh": "2 · N · e / (d · e + 4)，e 为每个元素的字节数：随 N 线性增长。"},
    "backward.col_tensor": {"en": "tensor", "zh": "张量"},
    "backward.col_shape": {"en": "shape per head", "zh": "每个头的形状"},
    "backward.col_elems": {"en": "elements per head", "zh": "每个头的元素数"},
    "backward.col_bytes": {"en": "bytes (B = {b}, H = {h}, {dtype})", "zh": "字节数（B = {b}，H = {h}，{dtype}）"},
    "backward.col_size": {"en": "size", "zh": "大小"},
    "backward.col_naive": {"en": "standard keeps", "zh": "标准注意力保存"},
    "backward.col_flash": {"en": "FlashAttention keeps", "zh": "FlashAttention 保存"},
    "backward.stored_note": {
        "en": "L is fp32 whatever the inputs. The picture above keeps S and P; a careful autograd keeps only P "
              "(softmax's backward needs only its output), which halves the standard side but leaves it N² per head. "
              "The demo at the bottom counts what PyTorch autograd really saves.",
        "zh": "无论输入是什么 dtype，L 都是 fp32。上面的描述是保存 S 和 P；细心的 autograd 只保存 P（softmax 的反向只需要它的输出），"
              "标准一侧减半，但每个头仍是 N²。页面底部的演示会统计 PyTorch autograd 实际保存了什么。"},
    "backward.recompute_explain": {
        "en": "**How recomputation works.** In the backward pass each program loads tiles of Q, K, V, dO and the saved "
              "L into on-chip SRAM and rebuilds its tile of probabilities exactly: P_ij = exp(S_ij − L_i) with "
              "S_ij = Q_i K_jᵀ/√d. No running max and no rescaling are needed, because L already holds the final m "
              "and ℓ of row i. Then, tile by tile:\n\n"
              "- δ_i = rowsum(dO_i ∘ O_i), once per row\n"
              "- dV_j += P_ijᵀ dO_i and dP_ij = dO_i V_jᵀ\n"
              "- dS_ij = P_ij ∘ (dP_ij − δ_i)\n"
              "- dQ_i += dS_ij K_j / √d and dK_j += dS_ijᵀ Q_i / √d\n\n"
              "The tiles of S and P live on chip for a moment and are discarded, as in the forward pass: nothing N × N "
              "is ever written to HBM or read back from it. Recomputing costs FLOPs; reading an N × N matrix back "
              "from HBM would cost more time, and the memory to keep it.",
        "zh": "**重计算怎样进行。** 反向传播时，每个 program 把 Q、K、V、dO 的块和保存下来的 L 载入片上 SRAM，精确地重建自己那一块概率："
              "P_ij = exp(S_ij − L_i)，其中 S_ij = Q_i K_jᵀ/√d。这里不需要滚动最大值，也不需要重缩放，因为 L 已经包含了第 i 行最终的 "
              "m 和 ℓ。然后逐块计算：\n\n"
              "- δ_i = rowsum(dO_i ∘ O_i)，每行算一次\n"
              "- dV_j += P_ijᵀ dO_i，dP_ij = dO_i V_jᵀ\n"
              "- dS_ij = P_ij ∘ (dP_ij − δ_i)\n"
              "- dQ_i += dS_ij K_j / √d，dK_j += dS_ijᵀ Q_i / √d\n\n"
              "和前向传播一样，S 和 P 的块只在片上停留片刻就被丢弃：没有任何 N×N 矩阵写入 HBM 或从 HBM 读回。"
              "重计算要多花 FLOPs；而从 HBM 读回一个 N×N 矩阵会花更多时间，还要占用保存它的显存。"},

    # measured
    "backward.measured_header": {"en": "Measured on a GPU", "zh": "在 GPU 上的实测"},
    "backward.src": {"en": "data", "zh": "数据来源"},
    "backward.src_help": {"en": "A dataset recorded with python -m flashviz.bench and shipped with the app, or live runs "
                                "on this machine's GPU.",
                          "zh": "用 python -m flashviz.bench 录制、随应用提供的数据集，或在本机 GPU 上现场测量。"},
    "backward.src_live": {"en": "measure live on this GPU", "zh": "在本机 GPU 上现场测量"},
    "backward.live_run": {"en": "Measure a training step on this GPU", "zh": "在本机 GPU 上测量一个训练步"},
    "backward.live_press": {"en": "Press the button to measure every implementation at several N (takes a minute).",
                            "zh": "点击按钮，在多个 N 上测量每一种实现（约需一分钟）。"},
    "backward.prov_head": {"en": "Measured on", "zh": "测量环境："},
    "backward.prov_line": {"en": "Measured on {line}  \nCommand: `{command}`", "zh": "测量环境：{line}  \n命令：`{command}`"},
    "backward.prov_device_value": {"en": "{name} ({sms} SMs, {gib} GiB)", "zh": "{name}（{sms} 个 SM，{gib} GiB）"},
    "backward.prov_device": {"en": "GPU", "zh": "GPU"},
    "backward.prov_driver": {"en": "driver", "zh": "驱动"},
    "backward.prov_cuda": {"en": "CUDA", "zh": "CUDA"},
    "backward.prov_torch": {"en": "torch", "zh": "torch"},
    "backward.prov_triton": {"en": "triton", "zh": "triton"},
    "backward.prov_date": {"en": "date", "zh": "日期"},
    "backward.prov_commit": {"en": "commit", "zh": "提交"},
    "backward.prov_command": {"en": "Command:", "zh": "命令："},
    "backward.peak_header": {"en": "Peak memory of a training step", "zh": "一个训练步的峰值显存"},
    "backward.peak_explain": {
        "en": "Peak extra memory of one training step measured on the GPU, beyond the inputs, at every recorded N "
              "({config}). Both axes are logarithmic: slope 2 is growth with N², slope 1 with N. Where naive "
              "attention ran out of memory (OOM) it is marked on the device's memory line.",
        "zh": "在 GPU 上测得的一个训练步在输入之外的额外峰值显存，覆盖所有录制的 N（{config}）。两条坐标轴都是对数刻度："
              "斜率 2 表示随 N² 增长，斜率 1 表示随 N 增长。朴素注意力显存不足（OOM）的地方标在设备显存那条线上。"},
    "backward.peak_table": {"en": "The chart's numbers: peak extra memory of a training step, MiB",
                            "zh": "图中的数字：训练步的额外峰值显存，单位 MiB"},

    # cost
    "backward.cost_header": {"en": "What recomputation costs, and what it saves", "zh": "重计算的代价与收益"},
    "backward.cost_explain": {
        "en": "Every matmul over the N × N tiles costs 2·N²·d FLOPs per head (half when causal). The forward pass "
              "does 2 (S = QKᵀ, O = PV). A backward that reads P back from HBM does 4 (dV, dP, dQ, dK); recomputing "
              "S and P adds one more QKᵀ: 5, the usual “backward = 2.5 × forward”. That is {bwd} more backward "
              "FLOPs, {step} more for a whole training step. Our teaching backward computes "
              "dK, dV and dQ in two separate kernels (no atomic adds), so both recompute S and dP: 7 matmuls, 7/5 "
              "of what the usual count credits it with. On Hopper GPUs, for plain or causal attention (and, with "
              "the warp-specialised kernel, sliding windows, packed documents and grouped-query attention) at the "
              "head dims and dtypes where one measured faster, autograd runs a fast backward instead (a fused "
              "Triton kernel, or a warp-specialised one): the 5 in one kernel, one program per block of keys, each adding "
              "its share of dQ into a float32 buffer (atomic or TMA reduce-adds); otherwise it runs the teaching "
              "one. The TFLOP/s below use the usual 2.5× count.",
        "zh": "N×N 块上的每一次矩阵乘法，每个头花 2·N²·d FLOPs（因果掩码时减半）。前向传播做 2 次（S = QKᵀ，O = PV）。"
              "从 HBM 读回 P 的反向传播做 4 次（dV、dP、dQ、dK）；重计算 S 和 P 要再做一次 QKᵀ：共 5 次，即常说的"
              "“反向 = 2.5 × 前向”。反向传播的 FLOPs 多 {bwd}，整个训练步多 {step}。我们的教学版反向"
              "把 dK、dV 和 dQ 放在两个独立的 kernel 里计算（不用原子加），两个 kernel 都要重计算 S 和 dP：共 7 次"
              "矩阵乘法，是通常记账数的 7/5。在 Hopper GPU 上，对普通或因果注意力（warp 特化的 kernel 还包括滑动窗口、"
              "打包文档和分组查询注意力），且在实测更快的头维度和数据类型下，"
              "autograd 改用快速反向（一个融合的 Triton kernel，或一个 warp 特化的 kernel）：5 次都在一个 kernel 里，"
              "每个 key 块一个 program，各自把自己那份 dQ 加进一个 float32 缓冲区（原子加或 TMA 归约加）；"
              "其他情况下运行教学版。下面的 TFLOP/s 按通常的 2.5 倍计数。"},
    "backward.col_pass": {"en": "pass", "zh": "阶段"},
    "backward.col_matmuls": {"en": "matmuls per tile", "zh": "每块的矩阵乘法次数"},
    "backward.col_ops": {"en": "which", "zh": "哪些"},
    "backward.col_flops": {"en": "FLOPs (this configuration)", "zh": "FLOPs（当前配置）"},
    "backward.col_vs_fwd": {"en": "× forward", "zh": "× 前向"},
    "backward.pass_fwd": {"en": "forward", "zh": "前向传播"},
    "backward.pass_bwd_stored": {"en": "backward, P read back", "zh": "反向传播，读回 P"},
    "backward.pass_bwd_recompute": {"en": "backward, recomputing", "zh": "反向传播，重计算"},
    "backward.pass_bwd_ours": {"en": "our teaching backward (2 kernels)", "zh": "我们的教学版反向传播（2 个 kernel）"},
    "backward.trade": {
        "en": "**What it buys.** The extra QKᵀ is {flops} FLOPs at this configuration; not storing P saves at least "
              "{io} of HBM traffic (writing P in the forward pass, reading it back in the backward pass): {fpb} FLOPs "
              "per byte avoided. At the H200's measured ceilings (790 TFLOP/s dense matmul, 4.3 TB/s copy) that is "
              "about {extra_ms} ms of extra compute against {io_ms} ms of memory traffic avoided — a roofline "
              "estimate, not a measurement. The times below are measurements.",
        "zh": "**换来了什么。** 在当前配置下，多出的那次 QKᵀ 是 {flops} FLOPs；不保存 P 至少省下 {io} 的 HBM 流量"
              "（前向传播写入 P、反向传播再读回）：每省下 1 字节只多花 {fpb} FLOPs。按 H200 实测的上限（稠密矩阵乘法 790 "
              "TFLOP/s，拷贝 4.3 TB/s），约是多花 {extra_ms} ms 计算、省下 {io_ms} ms 访存——这是 roofline 估算，不是实测。"
              "下面的时间才是实测。"},
    "backward.times_header": {"en": "Recorded times: backward alone and a training step",
                              "zh": "实测时间：单独的反向传播与一个训练步"},
    "backward.same": {"en": "Recorded at exactly your configuration: {config}.",
                      "zh": "这正是你的配置，已有录制数据：{config}。"},
    "backward.nearest": {"en": "Your configuration ({mine}) was not recorded; these are the numbers at the **nearest "
                               "recorded configuration: {config}**.",
                         "zh": "你的配置（{mine}）没有录制数据；下面是**最接近的已录制配置：{config}** 的数字。"},
    "backward.col_impl": {"en": "implementation", "zh": "实现"},
    "backward.col_bwd_ms": {"en": "backward ms", "zh": "反向 ms"},
    "backward.col_bwd_tflops": {"en": "backward TFLOP/s", "zh": "反向 TFLOP/s"},
    "backward.col_step_ms": {"en": "training step ms", "zh": "训练步 ms"},
    "backward.col_step_tflops": {"en": "step TFLOP/s", "zh": "训练步 TFLOP/s"},
    "backward.col_peak": {"en": "step peak MiB", "zh": "训练步峰值 MiB"},
    "backward.col_ref_bwd": {"en": "ours (fast) faster, backward", "zh": "我们（fast）快几倍，反向"},
    "backward.col_ref_step": {"en": "ours (fast) faster, step", "zh": "我们（fast）快几倍，训练步"},
    "backward.col_bwd_graph_ms": {"en": "backward ms, CUDA graph", "zh": "反向 ms，CUDA graph"},
    "backward.col_ref_bwd_graph": {"en": "ours (fast) faster, backward, CUDA graph",
                                   "zh": "我们（fast）快几倍，反向，CUDA graph"},
    "backward.graph_note": {
        "en": "Backward ms is one call as a training loop makes it, Python's launch work included; the CUDA-graph "
              "columns replay the same backward with that work removed, so they time the GPU alone. Where the two "
              "differ most (small N), the host's launch path, not the kernel, sets the speed of a single call.",
        "zh": "反向 ms 是训练循环发起一次调用的耗时，包含 Python 的启动开销；CUDA graph 两列重放同样的反向、去掉了这部分开销，"
              "只计 GPU 时间。两者相差最大的地方（N 较小时），决定单次调用快慢的是主机端的启动路径，而不是 kernel。"},
    "backward.summary_head": {"en": "**Our backward over every configuration of this recording** ({date}, timed with "
                                    "CUDA events; the other's time ÷ ours: above 1× ours is faster, below 1× slower):",
                              "zh": "**我们的反向传播在这份记录所有配置上的表现**（{date}，用 CUDA 事件计时；对方时间 ÷ 我们的时间："
                                    "大于 1× 表示我们更快，小于 1× 表示更慢）："},
    "backward.summary_line": {"en": "- d = {d}: {flash} vs SDPA flash · {cudnn} vs SDPA cuDNN · {naive} vs naive",
                              "zh": "- d = {d}：对 SDPA flash {flash} · 对 SDPA cuDNN {cudnn} · 对朴素实现 {naive}"},
    "backward.summary_note": {
        "en": "These are the numbers as measured. The backward kernel this recording ran, by head dim: {kernel}. "
              "Recomputation is what makes the memory O(N) whatever the kernel; how fast the recomputing kernel "
              "runs depends on how many matmuls it repeats, its tiles and how it overlaps loads, matmuls and the "
              "dQ sums. The tiles of our backwards were picked by `python -m tools.tune_backward` on "
              "the H200, and which backward autograd runs where follows those measurements.",
        "zh": "以上就是实测数字。这份记录按头维度运行的反向 kernel：{kernel}。无论哪个 kernel，显存降到 O(N) 靠的都是"
              "重计算；重计算的 kernel 跑多快，取决于它重复几次矩阵乘法、tile 大小，以及如何让加载、矩阵乘法和 dQ 的累加"
              "互相重叠。我们各个反向 kernel 的 tile 大小都是在 H200 上用 `python -m tools.tune_backward` "
              "挑出来的，autograd 在哪里用哪个反向 kernel 也依据这些实测结果。"},
    "backward.kernel_unknown": {"en": "not recorded (an older file)", "zh": "未记录（较早的文件）"},
    "backward.kernel_ws": {"en": "ws backward (Gluon, warp-specialised, 5 matmuls)",
                           "zh": "ws 反向（Gluon，warp 特化，5 次矩阵乘法）"},
    "backward.kernel_fused": {"en": "fused backward (Triton, 5 matmuls)", "zh": "融合反向（Triton，5 次矩阵乘法）"},
    "backward.kernel_reference": {"en": "reference backward (Triton, 7 matmuls)",
                                  "zh": "参考反向（Triton，7 次矩阵乘法）"},
    "backward.kernel_autograd": {"en": "autograd's backward for our kernels", "zh": "autograd 为我们的 kernel 调用的反向"},
    "backward.row_teaching": {"en": "ours: teaching forward + {kernel}", "zh": "我们的：教学版前向 + {kernel}"},
    "backward.row_fast": {"en": "ours: fast forward + {kernel}", "zh": "我们的：fast 前向 + {kernel}"},
    "backward.same_kernel": {
        "en": "Both rows of ours ran the same backward kernel ({kernel}); their backward-alone times differ by "
              "{pct}%, which is run-to-run noise, not a difference between kernels. They differ in their forward "
              "pass, which the training-step columns include.",
        "zh": "我们的两行运行的是同一个反向 kernel（{kernel}）；它们单独反向的时间相差 {pct}%，这是多次运行之间的"
              "波动，而不是 kernel 之间的差别。两者的区别在前向传播，训练步那几列包含了它。"},
    "backward.regs_other_run": {
        "en": "This tune file ({date}) is a separate run from the recorded dataset of the times above, with its own "
              "timer: its ratios to cuDNN are measured within this run. Compare ratios within one run, not across.",
        "zh": "这份调优文件（{date}）与上面计时所用的录制数据集是不同的两次运行，计时方式也各自不同：其中相对 cuDNN "
              "的倍数只在这一次运行内部比较。比较倍数时请在同一次运行内部比较，不要跨运行比较。"},

    # inside the ws backward: registers (bench/tune_record.py, charts.registers_figure)
    "backward.regs_header": {"en": "Inside our fast backward: what registers cost",
                             "zh": "深入我们的快速反向：寄存器的代价"},
    "backward.regs_explain": {
        "en": "On Hopper GPUs, with the Triton version it was verified on, autograd runs our warp-specialised "
              "backward: one program per 128 keys, in which two "
              "consumer warpgroups of 64 keys each keep their keys' dK and dV in float32 registers for the whole "
              "walk over the query blocks. That is {acc128} registers per thread at d = 128 ({acc64} at d = 64) of "
              "the {budget} a consumer thread may use. Its first version also held each query row's lse and δ in "
              "registers from before the two matmuls Sᵀ = K Qᵀ and dPᵀ = "
              "V dOᵀ until the softmax and dS used them. At d = 128 that was more than the registers "
              "could hold, and the compiler spilled registers to local memory inside the loop. The fix is "
              "arithmetic, not a new tile: start each matmul's accumulator at −lse / scale and −δ instead of zero. "
              "The matmul then returns Sᵀ − lse / scale and dPᵀ − δ, exactly what the next "
              "step needs, and the row statistics occupy registers only until the matmuls are issued. The same "
              "tiles timed both ways in one run:",
        "zh": "在 Hopper GPU 上（且 Triton 是验证过的版本时），autograd 运行我们的 warp 特化反向 kernel：每 128 个 key 一个 program，其中两个消费者 "
              "warpgroup 各管 64 个 key，在遍历所有 Q 块的整个过程中，把这些 key 的 dK 和 dV 以 float32 存在寄存器里。"
              "d = 128 时这要占每个线程 {acc128} 个寄存器（d = 64 时 {acc64} 个），而一个消费者线程最多只能用 {budget} "
              "个。最初的版本还把每个 query 行的 lse 和 δ 放在寄存器里，从两次矩阵乘法 Sᵀ = K Qᵀ "
              "和 dPᵀ = V dOᵀ 发出之前一直保留到 softmax 和 dS 用到它们为止。d = 128 时寄存器装不下，"
              "编译器在循环里把寄存器溢出到本地内存。解决办法是算术上的，而不是换一种 tile：让每次矩阵乘法的累加器从 "
              "−lse / scale 和 −δ 开始，而不是从零开始。矩阵乘法直接得到 Sᵀ − lse / scale 和 "
              "dPᵀ − δ，正是下一步要用的量，行统计量只在矩阵乘法发出之前占用寄存器。同一组 tile、同一次运行中"
              "两种做法的实测："},
    "backward.regs_summary": {"en": "- d = {d}: {held}× → {started}× the speed of SDPA cuDNN's backward (its time ÷ "
                                    "ours, geometric mean over {cells} cells; above 1× ours is faster)",
                              "zh": "- d = {d}：相对 SDPA cuDNN 反向的速度从 {held}× 变为 {started}×（它的用时 ÷ 我们的用时，"
                                    "{cells} 个配置的几何平均；大于 1× 表示我们更快）"},
    "backward.regs_title": {"en": "Same tiles, lse and δ in registers or in the accumulators · speed vs SDPA cuDNN",
                            "zh": "同一组 tile：lse 和 δ 放在寄存器里或放进累加器 · 相对 SDPA cuDNN 的速度"},
    "backward.regs_held": {"en": "lse, δ held in registers", "zh": "lse、δ 放在寄存器里"},
    "backward.regs_started": {"en": "lse, δ start the accumulators", "zh": "lse、δ 作为累加器的初值"},
    "backward.regs_cell": {"en": "d={d}<br>N={n}<br>{causal}", "zh": "d={d}<br>N={n}<br>{causal}"},
    "backward.regs_cudnn_line": {"en": "SDPA cuDNN = 1×", "zh": "SDPA cuDNN = 1×"},
    "backward.axis_vs_cudnn": {"en": "speed vs SDPA cuDNN (×)", "zh": "相对 SDPA cuDNN 的速度（×）"},
    "backward.regs_source": {"en": "Backward alone, fp16, B = 4, H = 32, from `{file}`:",
                             "zh": "单独的反向传播，fp16，B = 4，H = 32，数据来自 `{file}`："},

    # charts
    "backward.impl_naive": {"en": "naive (autograd)", "zh": "朴素实现（autograd）"},
    "backward.impl_sdpa_flash": {"en": "SDPA flash", "zh": "SDPA flash"},
    "backward.impl_sdpa_cudnn": {"en": "SDPA cuDNN", "zh": "SDPA cuDNN"},
    "backward.impl_fa4": {"en": "FlashAttention-4", "zh": "FlashAttention-4"},
    "backward.impl_teaching": {"en": "ours: teaching", "zh": "我们的：教学版"},
    "backward.impl_fast": {"en": "ours: fast", "zh": "我们的：fast"},
    "backward.keeps_naive": {"en": "standard attention keeps", "zh": "标准注意力保存"},
    "backward.keeps_flash": {"en": "FlashAttention keeps", "zh": "FlashAttention 保存"},
    "backward.stored_title": {"en": "Kept for the backward pass · standard / flash = {ratio}×",
                              "zh": "为反向传播保存的数据 · 标准 / flash = {ratio}×"},
    "backward.axis_tensor": {"en": "tensor (shape per head)", "zh": "张量（每个头的形状）"},
    "backward.axis_bytes": {"en": "bytes, all heads (log)", "zh": "字节数，全部头（对数）"},
    "backward.peak_title": {"en": "Peak extra memory of a training step vs N", "zh": "训练步额外峰值显存 vs N"},
    "backward.axis_n": {"en": "sequence length N (log)", "zh": "序列长度 N（对数）"},
    "backward.axis_mib": {"en": "peak extra memory, MiB (log)", "zh": "额外峰值显存，MiB（对数）"},
    "backward.oom": {"en": "OOM", "zh": "OOM"},
    "backward.oom_name": {"en": "{impl}: out of memory", "zh": "{impl}：显存不足"},
    "backward.oom_hover": {"en": "N = %{x}: out of memory", "zh": "N = %{x}：显存不足"},
    "backward.ideal_name": {"en": "least a flash kernel needs (O, L, dQ, dK, dV)",
                            "zh": "flash kernel 的最低需求（O、L、dQ、dK、dV）"},
    "backward.device_memory": {"en": "device memory {gib} GiB", "zh": "设备显存 {gib} GiB"},
    "backward.flops_title": {"en": "FLOPs per pass, in units of the forward's", "zh": "各阶段的 FLOPs（以前向为单位）"},
    "backward.axis_vs_fwd": {"en": "× forward FLOPs", "zh": "× 前向 FLOPs"},
    "backward.matmuls": {"en": "{m} matmuls · {x}×", "zh": "{m} 次矩阵乘法 · {x}×"},
    "backward.mode_bwd": {"en": "backward alone", "zh": "单独的反向传播"},
    "backward.mode_fwd_bwd": {"en": "training step (forward + backward)", "zh": "训练步（前向 + 反向）"},
    "backward.times_title": {"en": "Recorded time per implementation", "zh": "各实现的实测时间"},
    "backward.axis_ms": {"en": "milliseconds", "zh": "毫秒"},

    # the demo
    "backward.demo_header": {"en": "Run our backward kernel", "zh": "运行我们的反向传播 kernel"},
    "backward.demo_explain_cpu": {
        "en": "This machine has no GPU, so the Triton kernels run in Triton's interpreter on the CPU: the very same "
              "kernel code (the forward saving O and L, the backward recomputing P tile by tile), executed slowly. "
              "So the sizes are tiny and B = H = 1. The demo compares dQ, dK, dV with float64 autograd of the naive "
              "path, next to naive autograd in the same dtype, and counts every tensor autograd keeps for the "
              "backward pass (torch.autograd.graph.saved_tensors_hooks). No time is shown: interpreter time says "
              "nothing about GPU speed.",
        "zh": "本机没有 GPU，Triton kernel 在 CPU 上由 Triton 解释器执行：同一份 kernel 代码（前向传播保存 O 和 L，"
              "反向传播逐块重计算 P），只是执行得很慢。所以规模很小，B = H = 1。演示把 dQ、dK、dV 与朴素实现的 float64 "
              "autograd 结果比较，并列出同一 dtype 下朴素 autograd 的误差，同时统计 autograd 为反向传播保存的每一个张量"
              "（torch.autograd.graph.saved_tensors_hooks）。这里不显示时间：解释器的耗时不代表 GPU 速度。"},
    "backward.demo_explain_cuda": {
        "en": "On this GPU the Triton kernels run compiled (the forward saving O and L, the backward recomputing P "
              "tile by tile), B = H = 1. The demo compares dQ, dK, dV with float64 autograd of the naive path, next "
              "to naive autograd in the same dtype, and counts every tensor autograd keeps for the backward pass "
              "(torch.autograd.graph.saved_tensors_hooks). For timings, see the measured section above.",
        "zh": "在这块 GPU 上 Triton kernel 以编译后的形式运行（前向传播保存 O 和 L，反向传播逐块重计算 P），B = H = 1。"
              "演示把 dQ、dK、dV 与朴素实现的 float64 autograd 结果比较，并列出同一 dtype 下朴素 autograd 的误差，"
              "同时统计 autograd 为反向传播保存的每一个张量（torch.autograd.graph.saved_tensors_hooks）。"
              "时间请看上面的实测部分。"},
    "backward.demo_n": {"en": "demo N", "zh": "演示的 N"},
    "backward.demo_d": {"en": "demo d", "zh": "演示的 d"},
    "backward.demo_cap": {"en": "At most N = {n} and d = {d} here.", "zh": "这里最多 N = {n}、d = {d}。"},
    "backward.demo_impl": {"en": "our kernel", "zh": "我们的 kernel"},
    "backward.demo_from_sidebar": {"en": "dtype {dtype}, {causal} and seed {seed} come from the sidebar; N ≤ {n} and "
                                         "d ≤ {d} here.",
                                   "zh": "dtype {dtype}、{causal}和随机种子 {seed} 取自侧边栏；这里 N ≤ {n}、d ≤ {d}。"},
    "backward.causal_yes": {"en": "causal", "zh": "因果掩码"},
    "backward.causal_no": {"en": "no mask", "zh": "无掩码"},
    "backward.demo_run_cpu": {"en": "Run forward + backward (Triton interpreter, CPU)",
                              "zh": "运行前向 + 反向传播（Triton 解释器，CPU）"},
    "backward.demo_run_cuda": {"en": "Run forward + backward on the GPU", "zh": "在 GPU 上运行前向 + 反向传播"},
    "backward.demo_press": {"en": "Press the button to run the kernels on these sizes.",
                            "zh": "点击按钮，用这些规模运行 kernel。"},
    "backward.demo_running": {"en": "Running the Triton kernels…", "zh": "正在运行 Triton kernel…"},
    "backward.demo_grads": {"en": "Gradients against float64 · N = {n}, d = {d}, {dtype}, {impl}",
                            "zh": "梯度与 float64 的对比 · N = {n}，d = {d}，{dtype}，{impl}"},
    "backward.col_grad": {"en": "gradient", "zh": "梯度"},
    "backward.col_ours_err": {"en": "ours: max |Δ| vs float64", "zh": "我们的：与 float64 的最大 |Δ|"},
    "backward.col_naive_err": {"en": "naive in {dtype}: max |Δ| vs float64",
                               "zh": "{dtype} 朴素实现：与 float64 的最大 |Δ|"},
    "backward.col_bound": {"en": "bound 2·naive + ε", "zh": "上界 2·朴素 + ε"},
    "backward.col_within": {"en": "within", "zh": "达标"},
    "backward.demo_bf16": {"en": "In Triton 3.6's interpreter bf16 matmuls are wrong, so there our kernels compute "
                                 "bf16 inputs in fp32 (the compiled GPU code computes in bf16).",
                           "zh": "Triton 3.6 的解释器里 bf16 矩阵乘法有误，所以在那里我们的 kernel 用 fp32 计算 bf16 输入"
                                 "（编译后的 GPU 代码用 bf16 计算）。"},
    "backward.demo_saved": {"en": "What autograd saved for the backward pass", "zh": "autograd 为反向传播保存了什么"},
    "backward.demo_naive_new": {"en": "naive: new bytes saved", "zh": "朴素实现：新保存的字节"},
    "backward.demo_ours_new": {"en": "ours: new bytes saved", "zh": "我们的：新保存的字节"},
    "backward.demo_nn": {"en": "one N × N matrix in {dtype}", "zh": "一个 {dtype} 的 N×N 矩阵"},
    "backward.path_naive": {"en": "naive", "zh": "朴素实现"},
    "backward.path_ours": {"en": "ours", "zh": "我们的"},
    "backward.col_path": {"en": "path", "zh": "路径"},
    "backward.col_what": {"en": "what", "zh": "内容"},
    "backward.col_saved_shape": {"en": "shape", "zh": "形状"},
    "backward.col_dtype": {"en": "dtype", "zh": "dtype"},
    "backward.col_saved_bytes": {"en": "bytes", "zh": "字节"},
    "backward.col_role": {"en": "memory", "zh": "显存"},
    "backward.role_input": {"en": "an input: in memory anyway", "zh": "输入：本来就在显存里"},
    "backward.role_output": {"en": "the output: in memory anyway", "zh": "输出：本来就在显存里"},
    "backward.role_new": {"en": "new, kept until the backward pass", "zh": "新分配，一直保留到反向传播"},
    "backward.what_input": {"en": "q, k or v (or a view of one)", "zh": "q、k 或 v（或其视图）"},
    "backward.what_output": {"en": "O", "zh": "O"},
    "backward.what_nn": {"en": "P = softmax(S), N × N", "zh": "P = softmax(S)，N×N"},
    "backward.what_mask": {"en": "causal mask, N × N booleans", "zh": "因果掩码，N×N 个布尔值"},
    "backward.what_nd": {"en": "q · scale, N × d", "zh": "q · scale，N×d"},
    "backward.what_n": {"en": "L = m + log ℓ (log-sum-exp), N", "zh": "L = m + log ℓ（log-sum-exp），N"},
    "backward.what_other": {"en": "other", "zh": "其他"},
    "backward.demo_after": {
        "en": "Naive autograd kept {naive} new bytes for the backward pass — the N × N probabilities P (plus a scaled "
              "copy of q, and the mask when causal). Our kernel kept {ours} new bytes: L, one fp32 number per row "
              "(N = {n}). That is {ratio}× less, and the gap grows linearly with N.",
        "zh": "朴素 autograd 为反向传播新保存了 {naive} 字节——N×N 的概率矩阵 P（外加 q 的缩放副本，因果时还有掩码）。"
              "我们的 kernel 只新保存了 {ours} 字节：L，每行一个 fp32 数（N = {n}）。只有前者的 1/{ratio}，而且差距随 N 线性增长。"},
}
