"""Strings of the hardware page (flashviz/ui/hardware.py, ui/hardware_more.py, charts/roofline.py)."""

STRINGS = {
    "hardware.title": {"en": "Hardware: why bytes matter", "zh": "硬件：为什么字节数要紧"},
    "hardware.intro": {
        "en": "A GPU computes far faster than it reads its HBM, so what limits a kernel is either its arithmetic or "
              "its bytes, whichever takes longer. The roofline shows which: naive attention waits on memory; "
              "FlashAttention reads Q, K and V about once and waits on arithmetic instead.",
        "zh": "GPU 的计算速度远快于它读取 HBM 的速度，所以限制一个 kernel 的要么是运算、要么是字节，看哪个耗时更长。"
              "屋顶线模型回答是哪一个：朴素注意力在等内存；FlashAttention 只把 Q、K、V 读大约一遍，等的变成了运算。"},
    "hardware.fix_input": {"en": "Fix the configuration in the sidebar to see the roofline.",
                           "zh": "请先在侧边栏修正配置，才能看到屋顶线。"},
    "hardware.pick_gpu": {"en": "GPU", "zh": "GPU"},
    "hardware.takeaway": {
        "en": "**With the bytes Nsight Compute measured, the fast kernel does {i} FLOP per HBM byte** (about N / e = "
              "{ne}: Q, K and V are read about once), right of the {gpu}'s ridge at {ridge}: it is **compute-bound**. "
              "It reaches {tf} TFLOP/s, {pct}% of the {peak} TFLOP/s tensor-core peak; its gap is to that roof (the "
              "next expanders say where it goes). Naive attention, at {i0} FLOP per byte, is memory-bound.",
        "zh": "**按 Nsight Compute 实测的字节数，fast kernel 每个 HBM 字节做 {i} FLOP**（约为 N / e = {ne}：Q、K、V "
              "大约只读一遍），在 {gpu} 的屋脊点 {ridge} 右侧：它**受算力限制**。它达到 {tf} TFLOP/s，是 {peak} "
              "TFLOP/s 张量核心峰值的 {pct}%；它与屋顶的距离是到这个算力屋顶的距离（下面的展开栏说明差在哪里）。"
              "朴素注意力每字节 {i0} FLOP，受内存限制。"},
    "hardware.takeaway_source": {
        "en": "Filled markers: forward speeds recorded on the H200 ({date}, B = {b}, H = {h}) at the intensity of "
              "the HBM bytes Nsight Compute measured for the same kernel and size ({hdate}; bytes per head). Open "
              "markers: the SRAM-only model, drawn on the roof.",
        "zh": "实心点：H200 上记录的前向速度（{date}，B = {b}，H = {h}），横坐标是 Nsight Compute 对同一 kernel、"
              "同一规模实测的 HBM 字节所对应的强度（{hdate}；按每个头计）。空心点：只建模 SRAM 的模型，画在屋顶上。"},
    "hardware.takeaway_model": {
        "en": "Open markers: the SRAM-only model of the bytes each algorithm moves (no L2), drawn on the roof. Naive "
              "attention does {i0} FLOP per byte, left of the {gpu}'s ridge at {ridge}: memory-bound.",
        "zh": "空心点：只建模 SRAM 的字节数模型（不含 L2），画在屋顶上。朴素注意力每字节 {i0} FLOP，在 {gpu} 的"
              "屋脊点 {ridge} 左侧：受内存限制。"},
    "hardware.no_measured": {
        "en": "No measured bytes on the {gpu} at this size: the Nsight recording ({where}) has {have}.",
        "zh": "{gpu} 上没有这个规模的实测字节：Nsight 记录（{where}）只有 {have}。"},
    "hardware.use_recorded": {"en": "Show N = 4096, d = 128, fp16 (recorded)", "zh": "显示 N = 4096、d = 128、fp16（有实测记录）"},
    "hardware.x_hierarchy": {"en": "The memory hierarchy of the {gpu}, level by level",
                             "zh": "{gpu} 的存储层次，逐级来看"},
    "hardware.x_memory_bound": {"en": "Why naive attention is memory-bound: the numbers",
                                "zh": "为什么朴素注意力受内存限制：算一算"},
    "hardware.x_bytes": {"en": "The SRAM-only model next to the measured bytes (for kernel engineers)",
                         "zh": "只建模 SRAM 的字节数与实测字节数对照（写给 kernel 工程师）"},
    "hardware.x_gap": {"en": "Where the gap to the tensor-core roof goes (for kernel engineers)",
                       "zh": "与张量核心屋顶的差距去了哪里（写给 kernel 工程师）"},
    "hardware.model_note": {
        "en": "The exact counts of the blocks page model SRAM only: every re-read of K and V (once per Q block, "
              "Tr = {tr} times at Br = {br}) goes to HBM. That puts FA2 at {i2} FLOP per byte and its roof at "
              "{ceiling} TFLOP/s. A real GPU serves most of those re-reads from its L2, so the measured bytes below "
              "are far fewer, and a recorded flash kernel can run above that model ceiling (the ridge is {ridge}).",
        "zh": "分块页上的精确计数只建模了 SRAM：K、V 的每一次重读（每个 Q 块一次，Br = {br} 时共 Tr = {tr} 次）"
              "都算作访问 HBM。按这个模型，FA2 每字节 {i2} FLOP，屋顶在 {ceiling} TFLOP/s。真实 GPU 的大部分重读由 "
              "L2 提供，所以下面的实测字节数要少得多，记录到的 flash kernel 也就可以跑到这个模型上限之上（屋脊点是 "
              "{ridge}）。"},
    "hardware.gap": {
        "en": "Once the bytes are gone, what is left is arithmetic that the tensor cores do not do. Each score needs "
              "an exponential, and exponentials run on the special-function unit (SFU), whose throughput is a small "
              "fraction of the tensor cores'. While a warp computes its softmax, its matmuls wait unless another "
              "warp's matmuls fill the gap: that is why FlashAttention-3 ping-pongs two warpgroups and overlaps "
              "softmax with the matmuls inside one. The rest goes to pipeline bubbles and loads not yet "
              "hidden.",
        "zh": "字节省下之后，剩下的是张量核心不做的运算。每个分数都要算一次指数，而指数运算在特殊函数单元（SFU）上"
              "执行，它的吞吐只有张量核心的一小部分。一个 warp 算 softmax 时，它的矩阵乘只能等着，除非另一个 warp "
              "的矩阵乘填上这段空档：这就是 FlashAttention-3 让两个 warpgroup 乒乓交替、并在一个 warpgroup 内部让 "
              "softmax 与矩阵乘重叠的原因。其余的损失来自流水线气泡和尚未被掩盖的加载。"},
    "hardware.next": {"en": "Next: {page}", "zh": "下一课：{page}"},
    "hardware.hier_lead": {
        "en": "The {gpu}, fastest and smallest level first. A kernel's working set sits as high as it fits.",
        "zh": "{gpu} 的各级存储，由最快、最小的一级开始。kernel 的工作数据放得越靠上越好，只要放得下。"},
    "hardware.col_per_sm": {"en": "one SM", "zh": "单个 SM"},
    "hardware.col_total": {"en": "whole GPU ({sms} SMs)", "zh": "整块 GPU（{sms} 个 SM）"},
    "hardware.col_holds": {"en": "what FlashAttention keeps there", "zh": "FlashAttention 在这里放什么"},
    "hardware.level_registers": {"en": "register file", "zh": "寄存器堆"},
    "hardware.level_sram": {"en": "shared memory (SRAM)", "zh": "共享内存（SRAM）"},
    "hardware.holds_registers": {"en": "S, P, the running O, m and ℓ of its rows (FA2, FA3)",
                                 "zh": "本行块的 S、P、滚动的 O、m 和 ℓ（FA2、FA3）"},
    "hardware.holds_sram": {"en": "the Q, K, V tiles being loaded and read", "zh": "正在载入和读取的 Q、K、V tile"},
    "hardware.holds_l2": {"en": "K and V tiles that other Q blocks read again", "zh": "被其他 Q 块再次读取的 K、V tile"},
    "hardware.holds_hbm": {"en": "Q, K, V, O and one log-sum-exp per row", "zh": "Q、K、V、O，以及每行一个 log-sum-exp"},
    "hardware.col_level": {"en": "level", "zh": "层级"},
    "hardware.col_bandwidth": {"en": "bandwidth", "zh": "带宽"},
    "hardware.level_l2": {"en": "L2 cache", "zh": "L2 缓存"},
    "hardware.level_hbm": {"en": "HBM (device memory)", "zh": "HBM（显存）"},
    "hardware.explain": {
        "en": "The register file ({regs} KiB per SM) is larger than shared memory ({smem} KiB): it is where FA2 and "
              "FA3 keep S, P and O, so the N×N scores never leave the SM. The HBM ({hbm}) is **{ratio}×** one SM's "
              "shared memory, and far slower to reach.",
        "zh": "寄存器堆（每个 SM {regs} KiB）比共享内存（{smem} KiB）还大：FA2 和 FA3 把 S、P、O 放在这里，所以 N×N "
              "的分数从不离开 SM。HBM（{hbm}）的容量是单个 SM 共享内存的 **{ratio} 倍**，访问却慢得多。"},
    "hardware.explain_bw": {
        "en": "The FlashAttention paper estimates the SRAM's bandwidth at about {sram} against the HBM's {hbm}: "
              "**{x}×**, roughly an order of magnitude.",
        "zh": "FlashAttention 论文估计 SRAM 带宽约为 {sram}，HBM 为 {hbm}：前者约是后者的 **{x} 倍**，大约一个数量级。"},
    "hardware.sources": {"en": "Sources: {src}. SMs and shared memory: {tuning}.",
                         "zh": "来源（原文）：`{src}`。SM 数量与共享内存：`{tuning}`。"},

    "hardware.mb_explain": {
        "en": "Naive attention at N = {n}, d = {d}, {dtype}, B×H = {bh} executes {flops} of matmuls and moves "
              "**{bytes}** through HBM; the N×N matrices S and P, each written once and read back once, are {share}% "
              "of those bytes. Its arithmetic intensity is **{i} FLOP/byte** (about d divided by the element size), "
              "far below the {gpu}'s ridge point of {ridge} FLOP/byte. At full bandwidth the bytes alone take "
              "**{tm}**; at peak the FLOPs take {tc}. The {bound} roof binds, by {ratio}×: faster arithmetic would "
              "not help, fewer bytes would. FA2 at these blocks does {i2} FLOP per byte even in the SRAM-only model (no L2).",
        "zh": "在 N = {n}、d = {d}、{dtype}、B×H = {bh} 时，朴素注意力执行 {flops} 的矩阵乘运算，却要在 HBM 上搬运 "
              "**{bytes}**；其中 N×N 的 S 和 P 各写一次、读回一次，占了这些字节的 {share}%。它的算术强度只有 "
              "**{i} FLOP/字节**（约等于 d 除以元素字节数），远低于 {gpu} 的屋脊点 {ridge} FLOP/字节。即使带宽"
              "跑满，光搬运字节就要 **{tm}**；而按峰值算，FLOP 只需 {tc}。起作用的是{bound}，前者是后者的 {ratio} 倍："
              "更快的算术单元帮不上忙，更少的字节才行。即使在只建模 SRAM（不含 L2）的模型里，FA2 在当前分块下每字节也有 {i2} FLOP。"},
    "hardware.mb_causal": {
        "en": "Under the causal mask naive attention still executes all 4·N²·d FLOPs per head ({flops} here): it "
              "computes every score and masks afterwards. Only {useful} of them are useful; FA2 skips the blocks "
              "above the diagonal.",
        "zh": "在因果掩码下，朴素注意力仍要执行每个头全部 4·N²·d 个 FLOP（这里共 {flops}）：它先算出所有分数，再做"
              "掩码。其中只有 {useful} 是有用的；FA2 会跳过对角线以上的块。"},
    "hardware.bound_memory": {"en": "memory (bandwidth)", "zh": "内存（带宽）上限"},
    "hardware.bound_compute": {"en": "compute", "zh": "算力上限"},
    "hardware.fp32_note": {
        "en": "The dtype is float32 here (4-byte elements); the compute roof is still the fp16/bf16 tensor-core "
              "peak, which fp32 work does not reach. Set dtype to float16 for the usual case.",
        "zh": "这里的 dtype 是 float32（每个元素 4 字节）；算力上限仍按 fp16/bf16 张量核心峰值画，而 fp32 运算达不到"
              "这个峰值。把 dtype 设为 float16 即是常见情形。"},

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
    "hardware.roof": {"en": "roof of the {gpu} (fp16 tensor-core peak, HBM bandwidth)",
                      "zh": "{gpu} 的屋顶（fp16 张量核心峰值、HBM 带宽）"},
    "hardware.algo_standard": {"en": "naive (SRAM-only model)", "zh": "朴素实现（只建模 SRAM）"},
    "hardware.algo_fa1": {"en": "FA1 (SRAM-only model)", "zh": "FA1（只建模 SRAM）"},
    "hardware.algo_fa2": {"en": "FA2 (SRAM-only model)", "zh": "FA2（只建模 SRAM）"},
    "hardware.hover_model": {
        "en": "I = %{x:.3g} FLOP/byte<br>the model's ceiling %{y:.4g} TFLOP/s (no L2)<br>%{customdata[0]:.4s} FLOP, "
              "%{customdata[1]:.4s} B per head",
        "zh": "I = %{x:.3g} FLOP/字节<br>模型上限 %{y:.4g} TFLOP/s（不含 L2）<br>每个头 %{customdata[0]:.4s} FLOP、"
              "%{customdata[1]:.4s} 字节"},
    "hardware.measured": {"en": "{impl}: recorded speed at measured bytes", "zh": "{impl}：实测字节下的记录速度"},
    "hardware.hover_measured": {
        "en": "recorded %{y:.4g} TFLOP/s at I = %{x:.4g} FLOP/byte (measured bytes)<br>%{customdata[0]}, "
              "B = %{customdata[1]}, H = %{customdata[2]}, %{customdata[3]:.3g} ms; %{customdata[4]:.4s} B per head",
        "zh": "记录 %{y:.4g} TFLOP/s，I = %{x:.4g} FLOP/字节（实测字节）<br>%{customdata[0]}，B = %{customdata[1]}，"
              "H = %{customdata[2]}，%{customdata[3]:.3g} ms；每个头 %{customdata[4]:.4s} 字节"},
    "hardware.roofline_title": {"en": "Roofline of the {gpu}: attention at this N and d",
                                "zh": "{gpu} 的屋顶线：当前 N、d 下的注意力"},
    "hardware.ridge": {"en": "ridge point: {x:.0f} FLOP/byte", "zh": "屋脊点：{x:.0f} FLOP/字节"},
    "hardware.ridge_short": {"en": "ridge {x:.0f}", "zh": "屋脊 {x:.0f}"},
    "hardware.axis_intensity": {"en": "arithmetic intensity (FLOP per HBM byte, log)",
                                "zh": "算术强度（每个 HBM 字节的 FLOP，对数）"},
    "hardware.axis_flops": {"en": "TFLOP/s (log)", "zh": "TFLOP/s（对数）"},
    "hardware.bytes_formula": {"en": "formula (SRAM-only model: no L2)", "zh": "公式（只建模 SRAM：不含 L2）"},
    "hardware.bytes_measured": {"en": "measured by Nsight Compute (reads + writes)",
                                "zh": "Nsight Compute 实测（读 + 写）"},
    "hardware.hover_bytes": {"en": "%{x}: %{y:,.2f} MB<br>reads %{customdata[0]:,.2f} MB, writes %{customdata[1]:,.2f} MB",
                             "zh": "%{x}：%{y:,.2f} MB<br>读 %{customdata[0]:,.2f} MB，写 %{customdata[1]:,.2f} MB"},
    "hardware.bytes_title": {"en": "HBM bytes of one call: formula vs measured", "zh": "一次调用的 HBM 字节数：公式与实测"},
    "hardware.axis_mb": {"en": "MB (10⁶ bytes, log)", "zh": "MB（10⁶ 字节，对数）"},
}
