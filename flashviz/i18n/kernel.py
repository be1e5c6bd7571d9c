"""Strings of the panel "The kernel's own numbers" (flashviz/ui/kernel_panel.py, charts/kernel.py).

Terms follow the seeds: 在线 softmax, 分块, 重缩放, 片上 SRAM, 解释器 (Triton's interpreter), kernel.
"""

STRINGS = {
    "kernel.header": {"en": "The kernel's own numbers", "zh": "kernel 自己算出的数"},
    "kernel.intro": {
        "en": "The simulator above is numpy. The same recurrence also runs in a real Triton kernel (the project's "
              "teaching kernel): with its trace switched on it writes the running max m, the running sum ℓ and the "
              "rescale factor α after every key tile, straight from on-chip registers. Here they are, laid over the "
              "simulator's, for the same q, K, V (rounded to the chosen data type), the same query row and the same "
              "tiles.",
        "zh": "上面的模拟器是 numpy 写的。同一条递推式也在一个真实的 Triton kernel（本项目的教学 kernel）里运行："
              "打开 trace 后，它在每个 key tile 之后把滚动最大值 m、滚动求和 ℓ 和修正系数 α 直接从片上寄存器写出来。"
              "下面把它们叠在模拟器的数值上：同样的 q、K、V（已舍入到所选数据类型），同一个查询行，同样的 tile 大小。"},
    "kernel.mode_interpreter": {
        "en": "No CUDA GPU here, so the kernel runs in Triton's **interpreter**: the very same Triton source, executed "
              "on the CPU with numpy, one tile after another (milliseconds per tile). Its numbers are the kernel's "
              "own; its running time says nothing about GPU speed, so none is shown. Interpreter runs are limited to "
              "N ≤ {cap}.",
        "zh": "这里没有 CUDA GPU，所以 kernel 在 Triton 的**解释器**里运行：完全相同的 Triton 源码，在 CPU 上用 numpy "
              "逐个 tile 执行（每个 tile 要几毫秒）。它给出的数就是 kernel 自己的数；但它的运行时间与 GPU 速度毫无关系，"
              "所以这里不显示时间。解释器模式限制 N ≤ {cap}。"},
    "kernel.mode_gpu": {"en": "The compiled Triton kernel runs on this machine's GPU.",
                        "zh": "编译后的 Triton kernel 在本机 GPU 上运行。"},
    "kernel.why_typed": {
        "en": "The kernel computes its scores itself, from q and K; it cannot take scores typed by hand. Clear "
              "“Type your own scores” to compare it with the simulator.",
        "zh": "kernel 的分数是它自己由 q 和 K 算出来的，无法接受手动输入的分数。清空“手动输入分数”即可与模拟器对比。"},
    "kernel.why_masked": {
        "en": "The kernel knows one mask: the causal one. Masking arbitrary key positions would need an extra mask "
              "input it does not have. Clear “Masked key positions” (the causal mask still works) to compare.",
        "zh": "kernel 只认识一种掩码：因果掩码。掩掉任意 key 位置需要额外的掩码输入，而它没有。"
              "清空“被掩掉的 key 位置”（因果掩码仍可使用）即可对比。"},
    "kernel.why_no_triton": {"en": "Triton is not installed here, so the kernel cannot run.",
                             "zh": "这里没有安装 Triton，kernel 无法运行。"},
    "kernel.why_big_tile": {"en": "The kernel takes tiles of at most {cap} (here Br = {br}, Bc = {bc}).",
                            "zh": "kernel 的 tile 最大为 {cap}（当前 Br = {br}，Bc = {bc}）。"},
    "kernel.why_too_big": {
        "en": "N = {n} is too long for Triton's interpreter (it runs every tile step by step in Python; this app "
              "caps it at N ≤ {cap}). On a machine with a CUDA GPU this panel runs the compiled kernel at any N. "
              "Here, choose N ≤ {cap}.",
        "zh": "N = {n} 对 Triton 解释器来说太长了（它在 Python 里逐步执行每个 tile；本应用限制 N ≤ {cap}）。"
              "在有 CUDA GPU 的机器上，这个面板可以在任意 N 下运行编译后的 kernel。在这里请选择 N ≤ {cap}。"},
    "kernel.why_tiles": {
        "en": "On a GPU the compiled kernel needs Br and Bc to be powers of two from 16 to 256 (tl.dot works on "
              "16 × 16 pieces); here Br = {br}, Bc = {bc}. The interpreter on a CPU would take any tile.",
        "zh": "在 GPU 上，编译后的 kernel 要求 Br 和 Bc 是 16 到 256 之间的 2 的幂（tl.dot 以 16 × 16 为单位计算）；"
              "当前 Br = {br}，Bc = {bc}。CPU 上的解释器则接受任意 tile 大小。"},
    "kernel.use_tiles": {"en": "Use Br = {br}, Bc = {bc}", "zh": "改用 Br = {br}，Bc = {bc}"},
    "kernel.run": {"en": "Run the kernel", "zh": "运行 kernel"},
    "kernel.auto": {"en": "Run the kernel on every change", "zh": "每次修改配置都运行 kernel"},
    "kernel.auto_help": {"en": "Off by default: the kernel runs only when you press the button. Results are "
                               "cached per configuration, so going back is instant.",
                         "zh": "默认关闭：只有按下按钮时才运行 kernel。结果按配置缓存，回到之前的配置是即时的。"},
    "kernel.press": {"en": "Press “Run the kernel” to run it on this configuration.",
                     "zh": "按“运行 kernel”，在当前配置上运行它。"},
    "kernel.running_interpreter": {"en": "Running the kernel in Triton's interpreter…",
                                   "zh": "正在 Triton 解释器中运行 kernel……"},
    "kernel.running_gpu": {"en": "Running the kernel on the GPU…", "zh": "正在 GPU 上运行 kernel……"},
    "kernel.queued": {"en": "Waiting for the kernel: {ahead} run(s) of other sessions ahead of yours "
                            "(one kernel runs at a time on this server; the same configuration runs once for all).",
                      "zh": "正在排队等待 kernel：前面还有其他会话的 {ahead} 次运行"
                            "（本服务器一次只运行一个 kernel；相同的配置只运行一次，结果大家共享）。"},
    "kernel.failed": {"en": "The kernel could not run this configuration ({kind}): {msg}",
                      "zh": "kernel 无法运行这个配置（{kind}）：{msg}"},
    "kernel.ctr_diff": {"en": "Max difference", "zh": "最大差异"},
    "kernel.ctr_diff_help": {
        "en": "Largest |kernel − simulator| over m, ℓ and α on every tile the kernel computed; divided by the "
              "simulator's value where that is above 1 (ℓ grows with N).",
        "zh": "在 kernel 计算过的每个 tile 上，m、ℓ、α 的 |kernel − 模拟器| 的最大值；当模拟器的值大于 1 时除以该值"
              "（ℓ 会随 N 增大）。"},
    "kernel.ctr_tol": {"en": "Tolerance ({dtype})", "zh": "容差（{dtype}）"},
    "kernel.ctr_tol_help": {
        "en": "Both read the same q, K, V rounded to the data type. The kernel accumulates in fp32, the simulator "
              "in float64: fp32 agrees to 1e-5; fp16 and bf16 get 1e-4 for the different summation order of GPU "
              "tensor-core dots.",
        "zh": "两者读入的是同样舍入到该数据类型的 q、K、V。kernel 用 fp32 累加，模拟器用 float64："
              "fp32 下两者应相差不到 1e-5；fp16 和 bf16 的容差为 1e-4，留给 GPU 张量核心点积不同的求和顺序。"},
    "kernel.ctr_tiles": {"en": "Tiles compared", "zh": "对比的 tile 数"},
    "kernel.ctr_tiles_help": {"en": "Tiles the kernel computed for this row's query block, of Tc.",
                              "zh": "kernel 为该行所在 query 块计算的 tile 数 / Tc。"},
    "kernel.agree": {"en": "The kernel and the simulator agree: max difference {diff} ≤ {tol}.",
                     "zh": "kernel 与模拟器一致：最大差异 {diff} ≤ {tol}。"},
    "kernel.disagree": {"en": "The kernel and the simulator differ by {diff}, more than the tolerance {tol}.",
                        "zh": "kernel 与模拟器相差 {diff}，超过了容差 {tol}。"},
    "kernel.launched": {
        "en": "Launched: the program of query block {i} (rows {lo}–{hi}), one of Tr = {tr} programs, each "
              "independent; it streams {keys} keys in tiles of Bc = {bc} with Br = {br}, d = {d}, {dtype}, {causal}.",
        "zh": "启动的是 query 块 {i}（第 {lo}–{hi} 行）的 program，它是 Tr = {tr} 个彼此独立的 program 之一；"
              "它以 Bc = {bc} 的 tile 流式读取 {keys} 个 key，Br = {br}，d = {d}，{dtype}，{causal}。"},
    "kernel.causal_on": {"en": "causal mask on", "zh": "开启因果掩码"},
    "kernel.causal_off": {"en": "no mask", "zh": "无掩码"},
    "kernel.skipped_note": {
        "en": "Tiles {first}–{tc} lie entirely after key {last}, the last row of this query block: under the causal "
              "mask the kernel never loads them (grey). The simulator walks them with every key masked, which "
              "changes nothing.",
        "zh": "第 {first}–{tc} 个 tile 整个位于 key {last}（该 query 块最后一行）之后：在因果掩码下 kernel 根本不载入它们"
              "（灰色区域）。模拟器仍会走过这些 tile，但其中所有 key 都被掩掉，什么也不改变。"},
    "kernel.chart_title": {"en": "Kernel (circles) over simulator (line) · row {row} · Bc = {bc} · {dtype}",
                           "zh": "kernel（圆圈）叠在模拟器（折线）上 · 第 {row} 行 · Bc = {bc} · {dtype}"},
    "kernel.series_engine": {"en": "simulator (numpy, float64)", "zh": "模拟器（numpy，float64）"},
    "kernel.series_kernel": {"en": "Triton kernel (trace)", "zh": "Triton kernel（trace）"},
    "kernel.axis_tile": {"en": "tile", "zh": "tile"},
    "kernel.skipped_mark": {"en": "skipped by the kernel", "zh": "kernel 跳过"},
    "kernel.skipped": {"en": "skipped", "zh": "跳过"},
    "kernel.col_tile": {"en": "tile", "zh": "tile"},
    "kernel.col_keys": {"en": "keys", "zh": "key"},
    "kernel.col_engine": {"en": "{q} simulator", "zh": "{q} 模拟器"},
    "kernel.col_kernel": {"en": "{q} kernel", "zh": "{q} kernel"},
    "kernel.col_diff": {"en": "max |Δ|", "zh": "最大 |Δ|"},
}
