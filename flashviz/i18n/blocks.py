"""Strings of the page "Blocks and memory traffic" (flashviz/ui/blocks.py) and of its charts (charts/blocks.py).

Terms follow the seeds: 分块, IO 感知, 片上 SRAM, HBM, 访问次数, worker, block table.
"""

STRINGS = {
    # block grid
    "blocks.grid_title": {"en": "Block grid · step {i} of {n} · {order}", "zh": "分块网格 · 第 {i} / {n} 步 · {order}"},
    "blocks.order_fa1": {"en": "Algorithm 1 (outer K/V, inner Q)", "zh": "算法 1（外层 K/V，内层 Q）"},
    "blocks.order_fa2": {"en": "FA2 order (one program per Q block)", "zh": "FA2 顺序（每个 Q 块一个 program）"},
    "blocks.axis_kv": {"en": "K/V block j (Bc = {bc} keys)", "zh": "K/V 块 j（Bc = {bc} 个 key）"},
    "blocks.axis_q": {"en": "Q block i (Br = {br} queries)", "zh": "Q 块 i（Br = {br} 个 query）"},
    "blocks.state_pending": {"en": "not computed yet", "zh": "尚未计算"},
    "blocks.state_done": {"en": "computed and discarded (S, P never reach HBM)",
                          "zh": "已计算并丢弃（S、P 从不写入 HBM）"},
    "blocks.state_current": {"en": "S_ij on chip now (SRAM)", "zh": "S_ij 此刻在片上 SRAM 中"},
    "blocks.state_skipped": {"en": "skipped (entirely above the diagonal)", "zh": "跳过（整块位于对角线上方）"},
    "blocks.state_masked": {"en": "masked block (the diagonal crosses it)", "zh": "带掩码的块（对角线穿过该块）"},
    "blocks.onchip_q": {"en": "on chip: Q_{i}, O_{i}, ℓ_{i}, m_{i}", "zh": "片上：Q_{i}、O_{i}、ℓ_{i}、m_{i}"},
    "blocks.onchip_kv": {"en": "on chip: K_{j}, V_{j}", "zh": "片上：K_{j}、V_{j}"},
    "blocks.hover_block": {"en": "block S_%{y},%{x}", "zh": "块 S_%{y},%{x}"},   # a plotly hovertemplate

    # traffic by tensor
    "blocks.bars_title": {"en": "HBM traffic per tensor · so far {sofar} · run {total} · standard {std}",
                          "zh": "各张量的 HBM 流量 · 目前 {sofar} · 全程 {total} · 标准 {std}"},
    "blocks.bars_sofar": {"en": "so far (this step)", "zh": "到当前这一步"},
    "blocks.bars_total": {"en": "whole run", "zh": "全程"},
    "blocks.bars_standard": {"en": "standard attention", "zh": "标准注意力"},
    "blocks.axis_tensor": {"en": "tensor", "zh": "张量"},

    # traffic vs M and vs N
    "blocks.vs_m_title": {"en": "HBM accesses vs on-chip SRAM size M · N = {n}, d = {d}",
                          "zh": "HBM 访问次数 vs 片上 SRAM 大小 M · N = {n}，d = {d}"},
    "blocks.vs_n_title": {"en": "HBM accesses vs sequence length N · d = {d} · {blocks}",
                          "zh": "HBM 访问次数 vs 序列长度 N · d = {d} · {blocks}"},
    "blocks.blocks_from_m": {"en": "blocks from M = {m} KiB", "zh": "块大小由 M = {m} KiB 决定"},
    "blocks.blocks_pinned": {"en": "Br = {br}, Bc = {bc}", "zh": "Br = {br}，Bc = {bc}"},
    "blocks.axis_m": {"en": "SRAM size M (KiB)", "zh": "SRAM 大小 M（KiB）"},
    "blocks.axis_n": {"en": "sequence length N", "zh": "序列长度 N"},
    "blocks.axis_elements": {"en": "HBM accesses (elements)", "zh": "HBM 访问次数（元素个数）"},
    "blocks.axis_bytes": {"en": "HBM traffic (bytes)", "zh": "HBM 流量（字节）"},
    "blocks.series_standard": {"en": "standard attention (exact)", "zh": "标准注意力（精确计数）"},
    "blocks.series_fa1": {"en": "FlashAttention, Algorithm 1 (exact)", "zh": "FlashAttention 算法 1（精确计数）"},
    "blocks.series_fa2": {"en": "FlashAttention-2 order (exact)", "zh": "FlashAttention-2 顺序（精确计数）"},
    "blocks.series_theta_std": {"en": "Θ(Nd + N²) × {c}", "zh": "Θ(Nd + N²) × {c}"},
    "blocks.series_theta_flash": {"en": "Θ(N²d²/M) × {c}", "zh": "Θ(N²d²/M) × {c}"},
    "blocks.this_m": {"en": "this M", "zh": "当前 M"},

    # flash-decoding
    "blocks.dec_title": {"en": "Flash-decoding · {w} workers · merged vs single pass: max diff {diff}",
                         "zh": "Flash-decoding · {w} 个 worker · 合并结果 vs 单趟计算：最大差 {diff}"},
    "blocks.dec_share": {"en": "share of the softmax mass", "zh": "占 softmax 总量的份额"},
    "blocks.dec_worker": {"en": "worker", "zh": "worker"},
    "blocks.dec_worker_hover": {"en": "worker {w}: keys {lo}–{hi}", "zh": "worker {w}：key {lo}–{hi}"},
    "blocks.dec_partial": {"en": "each worker's o/ℓ", "zh": "各 worker 的 o/ℓ"},
    "blocks.dec_merged": {"en": "merged (m, ℓ, o) → o/ℓ", "zh": "合并后的 (m, ℓ, o) → o/ℓ"},
    "blocks.dec_single": {"en": "single pass", "zh": "单趟计算"},
    "blocks.dec_exact": {"en": "exact answer", "zh": "精确答案"},
    "blocks.dec_dim": {"en": "output dimension", "zh": "输出维度"},

    # paged
    "blocks.paged_title": {"en": "Paged KV cache · block table · block size {bs} · {n} keys",
                           "zh": "分页 KV 缓存 · block table · 块大小 {bs} · {n} 个 key"},
    "blocks.paged_logical": {"en": "logical block (visit order)", "zh": "逻辑块（访问顺序）"},
    "blocks.paged_physical": {"en": "physical block (memory)", "zh": "物理块（显存中的位置）"},
    "blocks.paged_free": {"en": "free", "zh": "空闲"},
    "blocks.paged_lookup": {"en": "block_table[b] = p", "zh": "block_table[b] = p"},
    "blocks.paged_now": {"en": "this step", "zh": "当前这一步"},

    # ------------------------------------------------------------------ the page (flashviz/ui/blocks.py)
    "blocks.title": {"en": "Blocks and memory traffic", "zh": "分块与访存流量"},
    "blocks.intro": {
        "en": "The stepper follows one row; here is the whole N × N score matrix, cut into Br × Bc blocks S_ij. "
              "Each step brings one Q block and one K/V block into on-chip SRAM, computes S_ij there and throws it "
              "away: S and P never travel to HBM. Count what does travel, and compare with standard attention. "
              "That count, not the FLOPs, is what FlashAttention reduces (IO-aware).",
        "zh": "逐块演示跟踪的是一行；这里看的是整个 N × N 分数矩阵，它被切成 Br × Bc 的块 S_ij。每一步把一个 Q 块和"
              "一个 K/V 块搬进片上 SRAM，在那里算出 S_ij 后就丢弃：S 和 P 从不进出 HBM。数一数真正进出 HBM 的数据，"
              "再和标准注意力比一比。FlashAttention 减少的正是这个访问次数，而不是 FLOPs（这就是 IO 感知）。"},
    "blocks.fix_input": {"en": "Correct the value and the grid comes back; the worked example below still works.",
                         "zh": "改正这个值，网格就会恢复；下面的论文示例照常可用。"},

    # page controls
    "blocks.ctl_header": {"en": "On-chip memory, block sizes, loop order, launch", "zh": "片上内存、块大小、循环顺序与启动配置"},
    "blocks.ctl_gpu": {"en": "On-chip SRAM size M", "zh": "片上 SRAM 大小 M"},
    "blocks.ctl_gpu_help": {
        "en": "M is the shared memory one thread block (one program) may use: the budget Algorithm 1 sizes its "
              "blocks for. Presets: the per-thread-block maximum from NVIDIA's tuning guides (an SM has slightly "
              "more, shared by the thread blocks running on it); or type your own.",
        "zh": "M 指一个线程块（一个 program）最多能用的共享内存：算法 1 正是按这个预算确定块大小的。预设取自 NVIDIA "
              "调优指南中每个线程块的上限（一个 SM 略多一些，由在它上面运行的各个线程块共用）；也可以自己输入。"},
    "blocks.gpu_custom": {"en": "custom", "zh": "自定义"},
    "blocks.ctl_sram_kib": {"en": "M in KiB (1 KiB = 1024 bytes)", "zh": "M，单位 KiB（1 KiB = 1024 字节）"},
    "blocks.gpu_doc": {
        "en": "{name}: {sms} SMs · {l1} KiB L1 + shared memory per SM · shared memory up to {smem} KiB per SM, up "
              "to {blk} KiB per thread block · {regs} KiB of registers per SM → M = {blk} KiB (one thread block) = "
              "{m_elems:,} {dtype} elements. Source: {src}",
        "zh": "{name}：{sms} 个 SM · 每个 SM 有 {l1} KiB 的 L1 + 共享内存 · 每个 SM 最多 {smem} KiB 共享内存，每个"
              "线程块最多 {blk} KiB · 每个 SM 有 {regs} KiB 寄存器 → M = {blk} KiB（一个线程块）= {m_elems:,} 个 "
              "{dtype} 元素。来源（原文）：`{src}`"},
    "blocks.custom_doc": {"en": "M = {kib} KiB = {m_elems:,} {dtype} elements.",
                          "zh": "M = {kib} KiB = {m_elems:,} 个 {dtype} 元素。"},
    "blocks.ctl_mode": {"en": "Block sizes", "zh": "块大小"},
    "blocks.mode_sram": {"en": "from M (paper: Bc = ⌈M/4d⌉, Br = min(Bc, d))",
                         "zh": "由 M 决定（论文：Bc = ⌈M/4d⌉，Br = min(Bc, d)）"},
    "blocks.mode_pinned": {"en": "pinned Br, Bc (sidebar)", "zh": "固定 Br、Bc（侧边栏）"},
    "blocks.ctl_mode_help": {
        "en": "From M: Algorithm 1 uses the paper's rule, sized so that each of the Q, K, V and O blocks takes at "
              "most about M/4; the FA2 order uses the tiles of an FA2 kernel (128 × 64, or 64 × 64 when d > 128). "
              "Both clamped to N. Pinned: the shared Br and Bc of the sidebar, the same the kernels use.",
        "zh": "由 M 决定：算法 1 使用论文的规则，使 Q、K、V、O 每个块最多约占 M/4；FA2 顺序使用 FA2 kernel 的 tile"
              "（128 × 64，d > 128 时为 64 × 64）。两者都不超过 N。固定：使用侧边栏里共享的 Br 和 Bc，与 kernel "
              "所用的一致。"},
    "blocks.ctl_order": {"en": "Loop order", "zh": "循环顺序"},
    "blocks.order_fa1_short": {"en": "FA1: Algorithm 1 (outer K/V, inner Q)", "zh": "FA1：算法 1（外层 K/V，内层 Q）"},
    "blocks.order_fa2_short": {"en": "FA2: one program per Q block (our Triton kernel)",
                               "zh": "FA2：每个 Q 块一个 program（我们的 Triton kernel）"},
    "blocks.ctl_batch": {"en": "Batch B", "zh": "批大小 B"},
    "blocks.ctl_heads": {"en": "Heads H", "zh": "头数 H"},
    "blocks.ctl_bh_help": {"en": "Only for the launch-grid readout: the grid below is one (batch, head) slice.",
                           "zh": "只用于下面的启动网格说明：网格图画的是其中一个（batch, 头）切片。"},
    "blocks.ctl_unit": {"en": "Chart unit", "zh": "图表单位"},
    "blocks.unit_elements": {"en": "elements", "zh": "元素个数"},
    "blocks.unit_bytes": {"en": "bytes", "zh": "字节"},

    "blocks.describe": {
        "en": "N = {n}, d = {d}, {dtype} · Br = {br}, Bc = {bc} ({how}) → Tr = {tr} Q blocks × Tc = {tc} K/V "
              "blocks{causal} → {steps:,} steps. On chip per step: Q_i, O_i, K_j, V_j, ℓ_i, m_i and S_ij = "
              "{foot:,} elements = {foot_b} ({fits}).",
        "zh": "N = {n}，d = {d}，{dtype} · Br = {br}，Bc = {bc}（{how}）→ Tr = {tr} 个 Q 块 × Tc = {tc} 个 K/V 块"
              "{causal} → 共 {steps:,} 步。每一步的片上数据：Q_i、O_i、K_j、V_j、ℓ_i、m_i 和 S_ij，共 {foot:,} 个元素"
              " = {foot_b}（{fits}）。"},
    "blocks.how_sram": {"en": "from M = {kib} KiB", "zh": "由 M = {kib} KiB 决定"},
    "blocks.how_pinned": {"en": "pinned", "zh": "固定值"},
    "blocks.causal_note": {"en": ", causal: {skipped:,} blocks skipped, {masked} masked",
                           "zh": "，因果掩码：跳过 {skipped:,} 块，{masked} 块带掩码"},
    "blocks.how_fa2": {"en": "the FA2 kernel's own tiles, not derived from M", "zh": "FA2 kernel 自己的 tile，不由 M 决定"},
    "blocks.pin_these": {"en": "Pin these blocks (copy Br = {br}, Bc = {bc} to the sidebar)",
                         "zh": "固定这组块大小（把 Br = {br}、Bc = {bc} 写入侧边栏）"},

    # step view
    "blocks.step_label": {
        "en": "**Step {t} of {n}** · block S_{i},{j}: queries {q0}–{q1}, keys {k0}–{k1}{masked}",
        "zh": "**第 {t} / {n} 步** · 块 S_{i},{j}：query {q0}–{q1}，key {k0}–{k1}{masked}"},
    "blocks.step_masked": {"en": " · masked (the diagonal crosses it)", "zh": " · 带掩码（对角线穿过此块）"},
    "blocks.grid_too_big": {
        "en": "The grid has {tr} × {tc} = {cells:,} blocks, too many to draw at every step (at most {cap:,}). "
              "The counters below still follow every step; choose larger blocks to see the grid.",
        "zh": "网格共有 {tr} × {tc} = {cells:,} 块，太多了，无法每一步都画出来（上限 {cap:,}）。下面的计数照常逐步"
              "更新；把块调大就能看到网格。"},
    "blocks.ctr_sofar": {"en": "HBM accesses so far", "zh": "目前的 HBM 访问次数"},
    "blocks.ctr_sofar_help": {"en": "Elements read from plus written to HBM up to and including this step.",
                              "zh": "截至这一步（含）从 HBM 读取与写入 HBM 的元素个数之和。"},
    "blocks.ctr_total": {"en": "FlashAttention total (model)", "zh": "FlashAttention 全程（模型）"},
    "blocks.ctr_total_help": {"en": "The same count after the last step, in this loop order.",
                              "zh": "按当前循环顺序，最后一步之后的同一计数。"},
    "blocks.ctr_standard": {"en": "Standard attention (model)", "zh": "标准注意力（模型）"},
    "blocks.ctr_standard_help": {
        "en": "Read Q, K, write S; read S, write P; read P, V, write O: 4N² + 4Nd elements. A causal mask does "
              "not help it: S is still N × N.",
        "zh": "读 Q、K，写 S；读 S，写 P；读 P、V，写 O：共 4N² + 4Nd 个元素。因果掩码对它没有帮助：S 仍是 N × N。"},
    "blocks.ctr_ratio": {"en": "Standard ÷ flash (model)", "zh": "标准 ÷ flash（模型）"},
    "blocks.ctr_ratio_help": {"en": "How many times more HBM traffic standard attention needs than this run, in the "
                                    "SRAM-only model (no L2 cache); the measured ratio is below the grid.",
                              "zh": "在只建模 SRAM（不含 L2 缓存）的模型里，标准注意力的 HBM 流量是本次 FlashAttention 的"
                                    "多少倍；实测的比值在网格下方。"},
    "blocks.ctr_bytes": {
        "en": "In bytes: so far {sofar} · whole run {total} · standard {std} ({eb} B per element of Q, K, V, O, S, "
              "P; ℓ, m, L in fp32).",
        "zh": "按字节计：目前 {sofar} · 全程 {total} · 标准注意力 {std}（Q、K、V、O、S、P 每个元素 {eb} 字节；"
              "ℓ、m、L 为 fp32）。"},
    "blocks.ctr_moved": {"en": "This step reads {loaded} and writes {stored} (elements).",
                         "zh": "这一步读取 {loaded}，写入 {stored}（元素个数）。"},
    "blocks.nothing": {"en": "nothing", "zh": "无"},
    "blocks.explain_orders": {
        "en": "**FA1 (Algorithm 1)** loads K_j, V_j once per column, but re-reads and re-writes O_i, ℓ_i, m_i on "
              "every pass: its traffic grows with Tc. **FA2** (one program per Q block, the order of our Triton "
              "kernel) keeps O_i, ℓ_i, m_i on chip for the whole row of blocks and streams K/V instead: it writes "
              "O once, and its traffic grows with Tr. Neither ever writes S or P.",
        "zh": "**FA1（算法 1）** 每一列只载入一次 K_j、V_j，但每一趟都要重新读写 O_i、ℓ_i、m_i：它的流量随 Tc 增长。"
              "**FA2**（每个 Q 块一个 program，也就是我们 Triton kernel 的顺序）让 O_i、ℓ_i、m_i 在整行块的计算中"
              "始终留在片上，改为流式读取 K/V：O 只写一次，流量随 Tr 增长。两者都从不写 S 或 P。"},

    # launch grid
    "blocks.launch_header": {"en": "From the grid to the Triton launch grid", "zh": "从分块网格到 Triton 启动网格"},
    "blocks.launch_fa2": {
        "en": "`grid = (cdiv(N, Br), B·H) = ({tr}, {bh})` → **{programs:,} programs** (Tr × B × H = {tr} × {b} × "
              "{h}). Program (i, b·H + h) is one row of the grid above for one batch item and head: it loads Q_i "
              "({br} × {d}) once, streams K_j, V_j for j = 0 … {jmax} ({causal}), keeps m_i, ℓ_i and the O_i "
              "accumulator on chip, and at the end writes O_i and L_i = m_i + log ℓ_i. Programs never talk to "
              "each other: every row of blocks is independent.",
        "zh": "`grid = (cdiv(N, Br), B·H) = ({tr}, {bh})` → **{programs:,} 个 program**（Tr × B × H = {tr} × {b} × "
              "{h}）。program (i, b·H + h) 就是上面网格中的一行块（对应一个 batch 元素、一个头）：它只载入一次 Q_i"
              "（{br} × {d}），流式读取 j = 0 … {jmax} 的 K_j、V_j（{causal}），把 m_i、ℓ_i 和累加器 O_i 留在片上，"
              "最后写出 O_i 和 L_i = m_i + log ℓ_i。program 之间互不通信：每一行块彼此独立。"},
    "blocks.launch_all": {"en": "all K/V blocks", "zh": "全部 K/V 块"},
    "blocks.launch_causal": {"en": "causal: only up to the diagonal block, the last one masked",
                             "zh": "因果掩码：只到对角线所在的块为止，最后一块带掩码"},
    "blocks.launch_jdiag": {"en": "⌊(min((i + 1)·Br, N) − 1) / Bc⌋", "zh": "⌊(min((i + 1)·Br, N) − 1) / Bc⌋"},
    "blocks.launch_waves": {
        "en": "On the {gpu} ({sms} SMs) that is {programs} programs, {per_sm:.1f} per SM. How many of them an SM "
              "runs at the same time depends on each program's shared memory and registers: programs with small "
              "blocks share an SM, so the launch takes fewer than {per_sm:.1f} rounds.",
        "zh": "在 {gpu} 上（{sms} 个 SM），这是 {programs} 个 program，平均每个 SM {per_sm:.1f} 个。一个 SM 同时能运行"
              "其中几个，取决于每个 program 占用的共享内存和寄存器：块较小的 program 会共用一个 SM，所以整个启动需要"
              "的轮数少于 {per_sm:.1f}。"},
    "blocks.launch_fa1": {
        "en": "Algorithm 1's order (outer K/V, inner Q) is sequential over j for a given Q block, so the original "
              "FlashAttention kernel ran one thread block per (batch, head): only B·H = {bh} programs. Running "
              "the Q blocks as separate programs (FA2) multiplies the parallelism by Tr = {tr}.",
        "zh": "算法 1 的顺序（外层 K/V，内层 Q）对同一个 Q 块而言必须沿 j 依次进行，所以最初的 FlashAttention kernel "
              "每个（batch, 头）只用一个线程块：只有 B·H = {bh} 个 program。把各个 Q 块拆成独立的 program（FA2）"
              "让并行度再乘上 Tr = {tr}。"},

    # charts vs M and N
    "blocks.charts_header": {"en": "HBM accesses vs SRAM size and sequence length", "zh": "HBM 访问次数随 SRAM 大小与序列长度的变化"},
    "blocks.theta_note": {
        "en": "Dotted and dashed lines are the Θ expressions of Theorem 2 with the constants our exact counts "
              "have: standard = 4 × (Nd + N²) exactly; Algorithm 1's leading term is 3·Tc·N·d ≈ 12·N²d²/M (read "
              "Q_i, read O_i, write O_i on each of Tc ≈ 4Nd/M passes). The FA2 order moves about 2·N²·d/Br with the "
              "kernel's own Br, whatever M is. Vertical lines: the GPU presets and this M.",
        "zh": "点线和虚线是定理 2 的 Θ 表达式，乘上了我们精确计数里的常数：标准注意力恰好是 4 × (N² + Nd)；算法 1 的"
              "主项是 3·Tc·N·d ≈ 12·N²d²/M（在 Tc ≈ 4Nd/M 趟中每趟读 Q_i、读 O_i、写 O_i）。FA2 顺序约搬运 "
              "2·N²·d/Br 个元素，Br 是 kernel 自己的，与 M 无关。竖线标出各 GPU 预设和当前的 M。"},

    # causal + the NaN pitfall
    "blocks.pit_header": {"en": "Causal masks and the NaN pitfall", "zh": "因果掩码与 NaN 陷阱"},
    "blocks.pit_explain": {
        "en": "With the causal mask, blocks entirely above the diagonal are skipped (white: no loads, no FLOPs) and "
              "blocks the diagonal crosses are computed with a mask (hatched). The causal mask alone never leaves a "
              "row without a visible key in its first tile: every row sees key 0. A row meets a fully masked tile "
              "before any visible key only through another mask: padding keys in a ragged batch (typed below as "
              "masked positions), a sliding window, or a query placed before every key when Nq ≠ Nk and the mask "
              "is aligned top-left. Then m is still −∞ and exp(m_old − m_new) = exp(−∞ − (−∞)) = NaN, unless the "
              "kernel guards it. Below: query row {row}, which lies in Q block {qi}, through the one-row engine "
              "with tile Bc = {bc}.",
        "zh": "开启因果掩码时，整块位于对角线上方的块被跳过（白色：不载入、不计算），对角线穿过的块带掩码计算（斜线）。"
              "单靠因果掩码，任何一行的第一个 tile 都不会全被掩掉：每一行都能看到 key 0。只有别的掩码才会让某一行在"
              "见到可见 key 之前遇到整块被掩掉的 tile：不规则 batch 里的 padding key（下面用“被掩掉的 key 位置”输入）、"
              "滑动窗口，或者在 Nq ≠ Nk 且掩码左上角对齐时，query 位于所有 key 之前。这时 m 仍是 −∞，"
              "exp(m_old − m_new) = exp(−∞ − (−∞)) = NaN，除非 kernel 做了防护。下面用单行引擎演示查询行 {row}"
              "（位于 Q 块 {qi}），tile 大小 Bc = {bc}。"},
    "blocks.pit_preset": {"en": "Preset: padding on keys 0–3 under a causal mask (guard off)",
                          "zh": "预设：因果掩码加上 key 0–3 的 padding（关闭防护）"},
    "blocks.pit_guard_on": {"en": "Turn the guard on", "zh": "开启防护"},
    "blocks.pit_guard_off": {"en": "Turn the guard off", "zh": "关闭防护"},
    "blocks.pit_masked_tiles": {"en": "Tiles fully masked for this row: {tiles}.", "zh": "对这一行整块被掩掉的 tile：{tiles}。"},
    "blocks.pit_none": {"en": "none (try the preset)", "zh": "没有（试试上面的预设）"},
    "blocks.pit_nan": {
        "en": "Guard off: the fully masked tile gives exp(−∞ − (−∞)) = NaN, and the NaN spreads to every later "
              "tile and to the output (max error vs exact: NaN).",
        "zh": "防护关闭：整块被掩掉的 tile 得到 exp(−∞ − (−∞)) = NaN，这个 NaN 会传给之后的每个 tile 以及输出"
              "（与精确解的最大误差：NaN）。"},
    "blocks.pit_ok": {"en": "Row output vs the exact answer: max error {err}.", "zh": "该行输出与精确解的最大误差：{err}。"},
    "blocks.pit_saved": {
        "en": "Guard on: an infinite running max is replaced by 0 inside the exponentials, so the masked tile "
              "contributes nothing and the result is right (max error vs exact {err}).",
        "zh": "防护开启：指数运算里把无穷大的滚动最大值换成 0，被掩掉的 tile 什么也不贡献，结果正确（与精确解的最大误差 {err}）。"},
    "blocks.pit_window": {"en": "Showing the first {k} of {n} tiles.", "zh": "只列出 {n} 个 tile 中的前 {k} 个。"},
    "blocks.decoding_link": {"en": "Flash-decoding and the paged KV cache have their own page: **{page}**.",
                             "zh": "Flash-decoding 与分页 KV 缓存在单独的页面：**{page}**。"},
    "blocks.orders_header": {"en": "Two loop orders: FA1 (Algorithm 1) and FA2", "zh": "两种循环顺序：FA1（算法 1）与 FA2"},
}
