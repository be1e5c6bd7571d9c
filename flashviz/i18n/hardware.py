"""Strings of the blocks page's hardware sections (flashviz/ui/blocks_hw.py, charts/roofline.py)."""

STRINGS = {
    "hardware.pick_gpu": {"en": "GPU for the numbers below (a custom M has no vendor figures)",
                          "zh": "下面这些数字所用的 GPU（自定义的 M 没有厂商数据）"},
    "hardware.header": {"en": "The memory hierarchy of the {gpu}", "zh": "{gpu} 的存储层次"},
    "hardware.col_level": {"en": "level", "zh": "层级"},
    "hardware.col_capacity": {"en": "capacity", "zh": "容量"},
    "hardware.col_bandwidth": {"en": "bandwidth", "zh": "带宽"},
    "hardware.level_sram": {"en": "shared memory (SRAM), one SM", "zh": "共享内存（SRAM），单个 SM"},
    "hardware.level_sram_all": {"en": "shared memory, all {sms} SMs", "zh": "共享内存，全部 {sms} 个 SM"},
    "hardware.level_l2": {"en": "L2 cache", "zh": "L2 缓存"},
    "hardware.level_hbm": {"en": "HBM (device memory)", "zh": "HBM（显存）"},
    "hardware.m_sms": {"en": "SMs", "zh": "SM 数量"},
    "hardware.m_peak": {"en": "Peak dense fp16 tensor", "zh": "稠密 fp16 张量核峰值"},
    "hardware.m_bw": {"en": "HBM bandwidth", "zh": "HBM 带宽"},
    "hardware.m_ridge": {"en": "Ridge point", "zh": "屋脊点"},
    "hardware.m_ridge_help": {
        "en": "Peak FLOP/s divided by HBM bytes/s: a kernel doing fewer FLOPs per byte it moves cannot reach the "
              "peak, whatever its code: it is memory-bound.",
        "zh": "峰值 FLOP/s 除以 HBM 字节/秒：每搬运一个字节做的 FLOP 少于这个数的 kernel，无论代码怎么写都到不了"
              "峰值：它受内存限制（memory-bound）。"},
    "hardware.explain": {
        "en": "Each SM has up to {smem} KiB of shared memory: the on-chip SRAM where a thread block keeps its tiles. "
              "The HBM ({hbm}) is **{ratio}×** larger than one SM's SRAM, and far slower to reach: "
              "a warehouse and a workbench. Everything FlashAttention does is about doing the work at the workbench.",
        "zh": "每个 SM 最多有 {smem} KiB 共享内存：线程块存放 tile 的片上 SRAM。HBM（{hbm}）的容量是单个 SM 的 "
              "SRAM 的 **{ratio} 倍**，访问却慢得多：一个是仓库，一个是工位旁的料架。FlashAttention 做的"
              "一切，都是为了把活留在工位上干完。"},
    "hardware.explain_bw": {
        "en": "The FlashAttention paper estimates the SRAM's bandwidth at about {sram} against the HBM's {hbm}: "
              "**{x}×**, roughly an order of magnitude.",
        "zh": "FlashAttention 论文估计 SRAM 带宽约为 {sram}，HBM 为 {hbm}：相差 **{x} 倍**，大约一个数量级。"},
    "hardware.sources": {"en": "Sources: {src}. SMs and shared memory: {tuning}.",
                         "zh": "来源：{src}。SM 数量与共享内存：{tuning}。"},

    "hardware.mb_header": {"en": "Why naive attention is memory-bound", "zh": "为什么朴素注意力受内存限制"},
    "hardware.mb_explain": {
        "en": "Naive attention at N = {n}, d = {d}, {dtype}, B×H = {bh} does {flops} of matmul work and moves "
              "**{bytes}** through HBM; the N×N matrices S and P, each written once and read back once, are {share}% "
              "of those bytes. Its arithmetic intensity is **{i} FLOP/byte** (about d divided by the element size), "
              "far below the {gpu}'s ridge point of {ridge} FLOP/byte. At full bandwidth the bytes alone take "
              "**{tm}**; at peak the FLOPs take {tc}. The {bound} roof binds, by {ratio}×: faster arithmetic would "
              "not help, fewer bytes would. FA2 at these blocks does the same FLOPs at {i2} FLOP/byte.",
        "zh": "在 N = {n}、d = {d}、{dtype}、B×H = {bh} 时，朴素注意力做 {flops} 的矩阵乘运算，却要在 HBM 上搬运 "
              "**{bytes}**；其中 N×N 的 S 和 P 各写一次、读回一次，占了这些字节的 {share}%。它的算术强度只有 "
              "**{i} FLOP/字节**（约等于 d 除以元素字节数），远低于 {gpu} 的屋脊点 {ridge} FLOP/字节。即使带宽"
              "跑满，光搬运字节就要 **{tm}**；而按峰值算，FLOP 只需 {tc}。起作用的是{bound}，差 {ratio} 倍："
              "更快的算术单元帮不上忙，更少的字节才行。同样的 FLOP，FA2 在当前分块下的强度是 {i2} FLOP/字节。"},
    "hardware.bound_memory": {"en": "memory (bandwidth)", "zh": "内存（带宽）上限"},
    "hardware.bound_compute": {"en": "compute", "zh": "算力上限"},
    "hardware.fp32_note": {
        "en": "The dtype is float32 here (4-byte elements); the compute roof is still the fp16/bf16 tensor-core "
              "peak, which fp32 work does not reach. Set dtype to float16 for the usual case.",
        "zh": "这里的 dtype 是 float32（每个元素 4 字节）；算力上限仍按 fp16/bf16 张量核峰值画，而 fp32 运算达不到"
              "这个峰值。把 dtype 设为 float16 即是常见情形。"},

    "hardware.roof_header": {"en": "The roofline: FLOPs per HBM byte", "zh": "屋顶线模型：每个 HBM 字节对应的 FLOP"},
    "hardware.roof_explain": {
        "en": "Each filled dot sits on the roof at its algorithm's intensity: the best speed that algorithm could "
              "reach with the bytes it moves. Naive attention: **{i0}** FLOP/byte; FA1: **{i1}**; FA2: **{i2}** "
              "(Br = {br}, Bc = {bc}); the ridge is at {ridge}. Change N, d, M or the blocks and the dots move: FA2 "
              "re-reads K and V once per Q block, so a larger Br raises its intensity; FA1 re-reads and rewrites O "
              "once per K/V block, so it gains with Bc. FLOPs are 4N²d per head (halved when causal), bytes the "
              "exact counts of the charts above.",
        "zh": "每个实心点都落在屋顶上、对应其算法的算术强度：这是该算法在它所搬运的字节下最多能达到的速度。朴素"
              "注意力：**{i0}** FLOP/字节；FA1：**{i1}**；FA2：**{i2}**（Br = {br}，Bc = {bc}）；屋脊点在 {ridge}。"
              "改变 N、d、M 或分块，点就会移动：FA2 每个 Q 块都要重读一遍 K 和 V，所以 Br 越大强度越高；FA1 每个 "
              "K/V 块都要重读并重写 O，所以它随 Bc 增大而受益。FLOP 按每个头 4N²d 计（因果时减半），字节数是上面"
              "图表的精确计数。"},
    "hardware.roof_measured": {
        "en": "Open markers: {k} recorded forward timings at exactly this N, d and causal setting (achieved TFLOP/s "
              "as y), placed at the intensity of the algorithm each runs (naive → naive, the flash kernels → FA2 at "
              "the blocks above; their own tiles differ). The distance below the roof is what the kernel loses to "
              "latency, occupancy and softmax work.",
        "zh": "空心点：{k} 个在完全相同的 N、d 和因果设置下记录的前向计时（y 为实测 TFLOP/s），放在它们所运行算法"
              "的强度处（朴素 → 朴素，flash kernel → 上面分块下的 FA2；它们自己的 tile 不同）。点与屋顶之间的"
              "距离，就是 kernel 因延迟、占用率和 softmax 运算而损失的部分。"},
    "hardware.roof_above": {
        "en": "Above the roof: {impls}. A measured point cannot beat the true roof, so these kernels moved fewer "
              "HBM bytes than the model counts at Br = {br}: their own tiles are larger, and the L2 cache serves "
              "many of the K and V re-reads the model sends to HBM (see the measured bytes below).",
        "zh": "高于屋顶的点：{impls}。实测点不可能超过真实的屋顶，所以这些 kernel 实际搬运的 HBM 字节比模型在 "
              "Br = {br} 时计算的少：它们自己的 tile 更大，而且模型算作 HBM 读取的许多 K、V 重读其实由 L2 缓存提供"
              "（见下面的实测字节数）。"},
    "hardware.roof_none": {
        "en": "No recorded forward timing at N = {n}, d = {d}, {causal}. Recorded: N in {ns}, d in {ds}; set N and "
              "d to one of those to see measured points here.",
        "zh": "没有 N = {n}、d = {d}、{causal} 的前向计时记录。已记录：N ∈ {ns}，d ∈ {ds}；把 N 和 d 设成其中之一，"
              "这里就会出现实测点。"},
    "hardware.roof_other_gpu": {
        "en": "Timings at this N, d and causal setting were recorded on {where}, not on this GPU: choose that GPU "
              "above to see them against its own roofs.",
        "zh": "这个 N、d 和因果设置的计时记录来自 {where}，不是这块 GPU：在上面选择那块 GPU，才能对照它自己的屋顶看到这些点。"},
    "hardware.causal_on": {"en": "causal", "zh": "因果"},
    "hardware.causal_off": {"en": "not causal", "zh": "非因果"},
    "hardware.to_speed": {"en": "Measured speeds and memory: {page}", "zh": "实测速度与显存：{page}"},

    "hardware.to_roofline": {
        "en": "Where these speeds sit against the GPU's roofs (FLOPs per HBM byte), and the HBM bytes measured: {page}",
        "zh": "这些速度相对于 GPU 屋顶的位置（每个 HBM 字节的 FLOP），以及实测的 HBM 字节数：{page}"},
    "hardware.hbm_header": {"en": "Measured HBM bytes next to the formula", "zh": "实测 HBM 字节数与公式对照"},
    "hardware.f_naive": {"en": "Formula: naive chain", "zh": "公式：朴素实现的 kernel 链"},
    "hardware.f_naive_help": {
        "en": "Scale Q, S = QKᵀ, the causal mask when on, softmax, O = PV: each kernel reads its inputs from HBM and "
              "writes its output back (the kernel-fusion lesson below lists them).",
        "zh": "缩放 Q、S = QKᵀ、（开启时的）因果掩码、softmax、O = PV：每个 kernel 都从 HBM 读输入、再把输出写回"
              "（下面的核融合一节逐个列出）。"},
    "hardware.f_fa2": {"en": "Formula: FA2, Br = {br}, Bc = {bc}", "zh": "公式：FA2，Br = {br}，Bc = {bc}"},
    "hardware.f_least": {"en": "Least possible", "zh": "理论最少"},
    "hardware.f_per_call": {"en": "Bytes of one call over B×H = {bh} heads (decimal units, kB = 10³ bytes).",
                            "zh": "一次调用、共 B×H = {bh} 个头的字节数（十进制单位，kB = 10³ 字节）。"},
    "hardware.hbm_none": {
        "en": "No measured recording is available yet. The formula counts above are exact for the algorithms; what "
              "a real GPU moves (L2 hits, masking kernels, write-back of dirty cache lines) is read by Nsight Compute "
              "with this command on the GPU machine, and appears here once the recording is committed:",
        "zh": "目前还没有实测记录。上面的公式计数对算法本身是精确的；真实 GPU 实际搬运多少字节（L2 命中、掩码 "
              "kernel、脏缓存行的写回）要在 GPU 机器上用下面的命令通过 Nsight Compute 读出，记录提交后会显示在这里："},
    "hardware.hbm_source": {
        "en": "Recorded on {device} on {date} (commit {commit}, Nsight Compute {ncu}): `{cmd}`",
        "zh": "记录于 {device}，{date}（提交 {commit}，Nsight Compute {ncu}）：`{cmd}`"},
    "hardware.hbm_other": {
        "en": "The recording has no cell at this N, d and causal setting. Recorded: {have} (float16). Set N, d and "
              "causal to one of them.",
        "zh": "记录中没有这个 N、d 和因果设置的数据。已记录：{have}（float16）。把 N、d 和因果设置成其中之一即可。"},
    "hardware.col_impl": {"en": "kernel", "zh": "kernel"},
    "hardware.col_kernels": {"en": "launches", "zh": "启动次数"},
    "hardware.col_formula": {"en": "formula", "zh": "公式"},
    "hardware.col_reads": {"en": "measured reads", "zh": "实测读取"},
    "hardware.col_writes": {"en": "measured writes", "zh": "实测写入"},
    "hardware.col_ratio": {"en": "measured / formula", "zh": "实测 / 公式"},
    "hardware.col_least": {"en": "least possible (Q, K, V once; O + LSE once)", "zh": "理论最少（Q、K、V 各读一次；O + LSE 写一次）"},
    "hardware.hbm_explain": {
        "en": "**Why they differ.** *L2 hits*: the FA2 formula counts every re-read of K and V (once per Q block); "
              "one head's K and V are {kv} and the L2 holds {l2}. Here the flash kernels read {once} the bytes of "
              "Q, K and V read once; every load the formula counts beyond the measured reads was served by the L2. "
              "*Masking*: the naive chain builds an N×N boolean mask (not in the formula) and rewrites S with it (in "
              "the formula); a fused kernel masks in registers. *Tile order*: programs of the same head that run at "
              "the same time share their K/V tiles in L2, so the order of the launch grid changes the hit rate. "
              "*Dirty lines*: bytes still in L2 when a kernel ends reach DRAM later; the probe reads a {flush} "
              "buffer after the call and counts those write-backs as the call's writes. Each call computes "
              "B×H = {bh} heads; bytes are per call (MB = 10⁶ bytes).",
        "zh": "**为什么两者不同。** *L2 命中*：FA2 公式把 K、V 的每一次重读都算上（每个 Q 块一次）；一个头的 K 和 V "
              "共 {kv}，L2 能装 {l2}。这里 flash kernel 的实测读取是「Q、K、V 各读一次」字节数的 {once}；公式计入而"
              "实测读取之外的每一次加载，都由 L2 提供了。*掩码*：朴素实现会构造 N×N 的布尔掩码（公式未计入）并用它"
              "重写 S（公式已计入）；融合 kernel 在寄存器里完成掩码。*tile 顺序*：同一个头、同时运行的 program 在 L2 中"
              "共享 K/V tile，所以启动网格的顺序会改变命中率。*脏缓存行*：kernel 结束时仍在 L2 里的字节稍后才写回 "
              "DRAM；探针在调用之后读一个 {flush} 的缓冲区，把这些写回计入这次调用的写入。每次调用计算 "
              "B×H = {bh} 个头；字节数按每次调用计（MB = 10⁶ 字节）。"},

    # charts/roofline.py
    "hardware.roof": {"en": "roof of the {gpu} (fp16 tensor peak, HBM bandwidth)",
                      "zh": "{gpu} 的屋顶（fp16 张量核峰值、HBM 带宽）"},
    "hardware.ridge": {"en": "ridge point: {x:.0f} FLOP/byte", "zh": "屋脊点：{x:.0f} FLOP/字节"},
    "hardware.ridge_short": {"en": "ridge {x:.0f}", "zh": "屋脊 {x:.0f}"},
    "hardware.algo_standard": {"en": "naive attention (model)", "zh": "朴素注意力（模型）"},
    "hardware.algo_fa1": {"en": "FA1 (model)", "zh": "FA1（模型）"},
    "hardware.algo_fa2": {"en": "FA2 (model)", "zh": "FA2（模型）"},
    "hardware.hover_model": {
        "en": "I = %{x:.3g} FLOP/byte<br>best possible %{y:.4g} TFLOP/s<br>%{customdata[0]:.4s} FLOP, "
              "%{customdata[1]:.4s} B per head",
        "zh": "I = %{x:.3g} FLOP/字节<br>最多 %{y:.4g} TFLOP/s<br>每个头 %{customdata[0]:.4s} FLOP、"
              "%{customdata[1]:.4s} 字节"},
    "hardware.measured": {"en": "{impl} (measured)", "zh": "{impl}（实测）"},
    "hardware.hover_measured": {
        "en": "measured %{y:.4g} TFLOP/s at I = %{x:.3g}<br>%{customdata[0]}, B = %{customdata[1]}, "
              "H = %{customdata[2]}, %{customdata[3]:.3g} ms",
        "zh": "实测 %{y:.4g} TFLOP/s，I = %{x:.3g}<br>%{customdata[0]}，B = %{customdata[1]}，"
              "H = %{customdata[2]}，%{customdata[3]:.3g} ms"},
    "hardware.roofline_title": {"en": "Roofline of the {gpu}: attention at this N, d, M",
                                "zh": "{gpu} 的屋顶线：当前 N、d、M 下的注意力"},
    "hardware.axis_intensity": {"en": "arithmetic intensity (FLOP per HBM byte, log)",
                                "zh": "算术强度（每个 HBM 字节的 FLOP，对数）"},
    "hardware.axis_flops": {"en": "TFLOP/s (log)", "zh": "TFLOP/s（对数）"},
    "hardware.bytes_formula": {"en": "formula (engine's exact count)", "zh": "公式（引擎的精确计数）"},
    "hardware.bytes_measured": {"en": "measured by Nsight Compute (reads + writes)",
                                "zh": "Nsight Compute 实测（读 + 写）"},
    "hardware.hover_bytes": {"en": "%{x}: %{y:,.2f} MB<br>reads %{customdata[0]:,.2f} MB, writes %{customdata[1]:,.2f} MB",
                             "zh": "%{x}：%{y:,.2f} MB<br>读 %{customdata[0]:,.2f} MB，写 %{customdata[1]:,.2f} MB"},
    "hardware.bytes_title": {"en": "HBM bytes of one call: formula vs measured", "zh": "一次调用的 HBM 字节数：公式与实测"},
    "hardware.axis_mb": {"en": "MB (10⁶ bytes, log)", "zh": "MB（10⁶ 字节，对数）"},
}
