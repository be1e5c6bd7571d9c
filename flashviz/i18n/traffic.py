"""Strings of the sections on how much traffic FlashAttention saves (flashviz/ui/blocks_ratio.py, charts/blocks_ratio.py):
standard ÷ flash vs N and vs M, the on-chip budget per buffer, and the worked example of Theorem 2.

Every number is a placeholder filled from the engine at render time. Terms: see glossary.py.
"""

STRINGS = {
    # ------------------------------------------------------------------ ratio charts
    "traffic.ratio_header": {"en": "How much does FlashAttention save? Standard ÷ flash as N and M grow",
                             "zh": "FlashAttention 能省多少？标准 ÷ flash 随 N 和 M 的变化"},
    "traffic.series_fa1": {"en": "standard ÷ FlashAttention, Algorithm 1 (exact)",
                           "zh": "标准 ÷ FlashAttention 算法 1（精确计数）"},
    "traffic.series_fa2": {"en": "standard ÷ FA2 order (exact)", "zh": "标准 ÷ FA2 顺序（精确计数）"},
    "traffic.series_theta": {"en": "Θ(Nd + N²) ÷ Θ(N²d²/M), constant 1", "zh": "Θ(Nd + N²) ÷ Θ(N²d²/M)，常数取 1"},
    "traffic.limit": {"en": "→ {v}×", "zh": "→ {v}×"},
    "traffic.vs_n_title": {"en": "Standard ÷ flash vs sequence length N · d = {d} · {blocks}",
                           "zh": "标准 ÷ flash 随序列长度 N 的变化 · d = {d} · {blocks}"},
    "traffic.vs_m_title": {"en": "Standard ÷ flash vs SRAM size M · N = {n}, d = {d}",
                           "zh": "标准 ÷ flash 随 SRAM 大小 M 的变化 · N = {n}，d = {d}"},
    "traffic.axis_ratio": {"en": "HBM accesses, standard ÷ flash", "zh": "HBM 访问次数之比，标准 ÷ flash"},
    "traffic.valid": {"en": "Theorem 2: d ≤ M ≤ N·d", "zh": "定理 2：d ≤ M ≤ N·d"},
    "traffic.whole": {"en": "Bc = N", "zh": "Bc = N"},
    "traffic.ratio_n_explain": {
        "en": "At N = {n}: {r1:.2f}× (FA1), {r2:.2f}× (FA2). The saving does **not** keep growing with N: with "
              "the blocks fixed, standard attention (4N² + 4Nd) and FlashAttention (one pass over N·d for every "
              "block of the other side) are both quadratic in N, so their ratio levels off. At N = {nmax}: "
              "{r1max:.2f}× and {r2max:.2f}×. The limits (dashed) are 4·Bc/(3d + 4) = {l1:.2f}× for Algorithm 1 "
              "(Bc = {bc1}) and 2·Br/d = {l2:.2f}× for the FA2 order (Br = {br2}). All without a mask.",
        "zh": "N = {n} 时：{r1:.2f}×（FA1），{r2:.2f}×（FA2）。节省的倍数**不会**随 N 一直增长：块大小固定时，标准"
              "注意力（4N² + 4Nd）和 FlashAttention（对另一侧的每个块都要扫一遍 N·d）都随 N 平方增长，所以二者之比"
              "会趋于平稳。N = {nmax} 时为 {r1max:.2f}× 和 {r2max:.2f}×。极限（虚线）是算法 1 的 4·Bc/(3d + 4) = "
              "{l1:.2f}×（Bc = {bc1}）和 FA2 顺序的 2·Br/d = {l2:.2f}×（Br = {br2}）。以上均不加掩码。"},
    "traffic.ratio_theta_explain": {
        "en": "Θ with constant 1 (dotted) tends to M/d² = {theta:.2f}× (M = {m:,} elements, d = {d}). The exact "
              "counts carry different constants: standard moves 4 × (N² + Nd), Algorithm 1 about 12·N²d²/M (it "
              "reads Q_i, reads O_i and writes O_i on each of about 4Nd/M passes). So its plateau is about a third "
              "of M/d²: {third:.2f}×, against the exact {l1:.2f}×.",
        "zh": "常数取 1 的 Θ（点线）趋于 M/d² = {theta:.2f}×（M = {m:,} 个元素，d = {d}）。精确计数的常数不一样："
              "标准注意力搬运 4 × (N² + Nd)，算法 1 约为 12·N²d²/M（在约 4Nd/M 趟中每趟读 Q_i、读 O_i、写 O_i）。"
              "所以它的平台约为 M/d² 的三分之一：{third:.2f}×，精确值为 {l1:.2f}×。"},
    "traffic.ratio_m_explain": {
        "en": "At N = {n}: more SRAM means larger K/V blocks and fewer passes, so Algorithm 1's saving grows with "
              "M (about in proportion while it needs many passes); the FA2 order's tiles do not depend on M, so "
              "its line is flat. Theorem 2 is "
              "stated for d ≤ M ≤ N·d, here {lo} to {hi} elements (up to {hi_kib} at {eb} bytes each, shaded). "
              "From M = 4·N·d ({whole}) one K/V block holds the whole sequence (Bc = N, Tc = 1): more SRAM changes "
              "nothing, and the exact ratio stays at {top:.2f}× while Θ with constant 1 keeps climbing.",
        "zh": "N = {n} 时：SRAM 越大，K/V 块越大、趟数越少，所以算法 1 的节省随 M 增长（趟数还多时大致与 M 成正比）；"
              "FA2 顺序的 tile 与 M 无关，所以它是一条平线。定理 2 的适用范围是 d ≤ M ≤ N·d，这里是 {lo} 到 {hi} 个元素（每个元素 {eb} "
              "字节时最多 {hi_kib}，阴影部分）。从 M = 4·N·d（{whole}）起，一个 K/V 块就装得下整条序列（Bc = N，"
              "Tc = 1）：再增加 SRAM 也没有变化，精确比值停在 {top:.2f}×，而常数取 1 的 Θ 仍在上升。"},
    "traffic.ratio_l2": {
        "en": "These counts are the traffic between HBM and on-chip SRAM as each algorithm is written, for one "
              "(batch, head) pair. In the FA2 order every program re-reads K and V; on a real GPU many of those "
              "reads are served by the L2 cache (the programs of one head run at the same time and share K and V), "
              "so the HBM traffic a profiler measures is lower: read the FA2 numbers as an upper bound.",
        "zh": "这些计数是按各算法的写法统计的 HBM 与片上 SRAM 之间的流量，针对一个（batch, 头）组合。FA2 顺序中"
              "每个 program 都要重新读一遍 K 和 V；在真实 GPU 上，其中很多读取由 L2 缓存提供（同一个头的各个 "
              "program 同时运行、共用 K 和 V），所以性能分析工具测到的 HBM 流量更低：FA2 的数字应理解为上限。"},

    # ------------------------------------------------------------------ on-chip budget
    "traffic.budget_header": {"en": "On-chip budget of one step: {pct}% of M, buffer by buffer",
                              "zh": "一步的片上预算：占 M 的 {pct}%，逐个缓冲区列出"},
    "traffic.budget_short": {"en": "{pct}% of M = {m}; the budget per buffer is below",
                             "zh": "占 M = {m} 的 {pct}%；各缓冲区的预算见下方"},
    "traffic.col_buffer": {"en": "buffer", "zh": "缓冲区"},
    "traffic.col_shape": {"en": "shape", "zh": "形状"},
    "traffic.col_elems": {"en": "elements", "zh": "元素个数"},
    "traffic.col_bytes": {"en": "size", "zh": "大小"},
    "traffic.col_share": {"en": "share of M", "zh": "占 M 的比例"},
    "traffic.row_total": {"en": "all together", "zh": "合计"},
    "traffic.budget_paper": {
        "en": "The paper's rule, Bc = ⌈M/4d⌉ = {bc} and Br = min(Bc, d) = {br}, gives each of Q_i, K_j, V_j and "
              "O_i at most ⌈M/4d⌉·d = {quarter} elements: about a quarter of M = {m}. S_ij = Br × Bc needs room "
              "too; since Br ≤ d it is at most another quarter, and ℓ_i, m_i add 2·Br. So one step holds {foot} "
              "elements, {pct}% of M, and never more than {bound} ({bound_pct}% of M) with this rule: O(M), which "
              "is all the paper claims. Real kernels keep S_ij and the O_i accumulator in registers, not in "
              "shared memory.",
        "zh": "论文的规则 Bc = ⌈M/4d⌉ = {bc}、Br = min(Bc, d) = {br}，让 Q_i、K_j、V_j、O_i 每个最多 ⌈M/4d⌉·d = "
              "{quarter} 个元素：约为 M = {m} 的四分之一。S_ij = Br × Bc 也需要片上空间；由于 Br ≤ d，它最多再占"
              "四分之一，ℓ_i、m_i 再加 2·Br。所以一步要放 {foot} 个元素，占 M 的 {pct}%，按这个规则永远不超过 "
              "{bound}（M 的 {bound_pct}%）：即 O(M)，论文声称的也只是这个量级。真实 kernel 把 S_ij 和累加器 O_i "
              "放在寄存器里，而不是共享内存里。"},
    "traffic.budget_fa2": {
        "en": "The FA2 order runs with the kernel's own tiles, Br × Bc = {br} × {bc}, not derived from M. Counted as "
              "Algorithm 1 would hold them, they come to {pct}% of M; a FlashAttention-2 kernel keeps S_ij, the O_i "
              "accumulator and m_i, ℓ_i in registers, so far less of it sits in shared memory.",
        "zh": "FA2 顺序使用 kernel 自己的 tile：Br × Bc = {br} × {bc}，不是由 M 推出来的。若像算法 1 那样全部算在"
              "片上，合计占 M 的 {pct}%；FlashAttention-2 的 kernel 把 S_ij、累加器 O_i 以及 m_i、ℓ_i 放在寄存器"
              "里，所以放在共享内存里的要少得多。"},
    "traffic.budget_pinned": {
        "en": "Your pinned blocks hold {pct}% of M in one step. Above 100%, a kernel given this M keeps part of it "
              "in registers (as real kernels do with S_ij and O_i) or needs smaller blocks.",
        "zh": "你固定的块在一步里要占 M 的 {pct}%。超过 100% 时，只有这么大 M 的 kernel 要么把一部分放进寄存器"
              "（真实 kernel 对 S_ij 和 O_i 就是这样做的），要么需要更小的块。"},
    "traffic.budget_regs": {"en": "(Besides its shared memory, the {gpu} has {kib} KiB of registers per SM.)",
                            "zh": "（除共享内存外，{gpu} 的每个 SM 还有 {kib} KiB 寄存器。）"},

    # ------------------------------------------------------------------ the worked example
    "traffic.seed_header": {"en": "A worked example of Theorem 2: N = {n}, d = {d}, M = {kib} KiB",
                            "zh": "定理 2 的算例：N = {n}，d = {d}，M = {kib} KiB"},
    "traffic.seed_setup": {
        "en": "M = {kib} KiB = {b} bytes = {m:,} fp32 elements → Algorithm 1: Bc = ⌈M/4d⌉ = {bc}, Br = min(Bc, d) "
              "= {br}, Tc = {tc}, Tr = {tr}. FA2 order: the kernel's Br = {br2}, so Tr = {tr2}.",
        "zh": "M = {kib} KiB = {b} 字节 = {m:,} 个 fp32 元素 → 算法 1：Bc = ⌈M/4d⌉ = {bc}，Br = min(Bc, d) = {br}，"
              "Tc = {tc}，Tr = {tr}。FA2 顺序：kernel 的 Br = {br2}，所以 Tr = {tr2}。"},
    "traffic.seed_col_what": {"en": "algorithm", "zh": "算法"},
    "traffic.seed_col_theta": {"en": "Θ with constant 1", "zh": "Θ，常数取 1"},
    "traffic.seed_col_exact": {"en": "our exact count", "zh": "我们的精确计数"},
    "traffic.seed_col_factor": {"en": "exact ÷ Θ", "zh": "精确 ÷ Θ"},
    "traffic.seed_row_std": {"en": "standard attention, Θ(Nd + N²)", "zh": "标准注意力，Θ(Nd + N²)"},
    "traffic.seed_row_fa1": {"en": "FlashAttention, Algorithm 1, Θ(N²d²/M)", "zh": "FlashAttention 算法 1，Θ(N²d²/M)"},
    "traffic.seed_row_fa2": {"en": "FlashAttention-2 order, Θ(N²d²/M)", "zh": "FlashAttention-2 顺序，Θ(N²d²/M)"},
    "traffic.seed_row_ratio": {"en": "standard ÷ flash", "zh": "标准 ÷ flash"},
    "traffic.seed_explain": {
        "en": "Put into Theorem 2 with constant 1, these numbers give about {th_ratio:.1f}× fewer accesses. Θ drops "
              "constants, and they differ: standard attention moves exactly 4 × (N² + Nd) (S and P are each written "
              "once and read once). Algorithm 1 reads Q_i, reads O_i and writes O_i on every one of Tc passes: "
              "3·Tc·N·d with Tc = ⌈N/Bc⌉ = {tc} (not 4Nd/M = {tc_real:.2f}), plus K, V, ℓ, m and the initial writes: "
              "{fa1_f:.1f} × Θ. The FA2 order streams K and V Tr = {tr2} times (Br = {br2}): {fa2_f:.1f} × Θ. So the "
              "exact reduction here is {r1:.2f}× (FA1) and {r2:.2f}× (FA2), not {th_ratio:.1f}×. It grows with M "
              "(fewer passes for FA1) but not without end in N: at this M it levels off at {l1:.2f}× (FA1) and "
              "{l2:.2f}× (FA2) as N grows, while Θ with constant 1 tends to M/d² = {theta:.2f}×.",
        "zh": "把这些数代入常数取 1 的定理 2，访问次数约减少到原来的 1/{th_ratio:.1f}。Θ 省略了常数，而两边的常数"
              "并不相同：标准注意力恰好搬运 4 × (N² + Nd) 个元素（S 和 P 各写一次、读一次）。算法 1 在 Tc 趟中的每"
              "一趟都要读 Q_i、读 O_i、写 O_i：共 3·Tc·N·d，其中 Tc = ⌈N/Bc⌉ = {tc}（而不是 4Nd/M = {tc_real:.2f}），"
              "再加上 K、V、ℓ、m 和初始化写入：{fa1_f:.1f} × Θ。FA2 顺序把 K、V 流式读取 Tr = {tr2} 次（Br = {br2}）："
              "{fa2_f:.1f} × Θ。所以这里精确的流量是标准注意力的 1/{r1:.2f}（FA1）和 1/{r2:.2f}（FA2），而不是 "
              "1/{th_ratio:.1f}。M 越大节省越多（FA1 的趟数更少）；但随 N 增长不会无限变大：在这个 M 下，N 越来越大时"
              "比值趋于 {l1:.2f}×（FA1）和 {l2:.2f}×（FA2），而常数取 1 的 Θ 趋于 M/d² = {theta:.2f}×。"},
    "traffic.seed_paper": {
        "en": "The paper measured {std} GB against {flash} GB of HBM reads and writes ({ratio:.1f}× fewer) for "
              "attention in GPT-2 medium (N = 1024, d = 64, forward and backward, on an A100; its Figure 2). There, "
              "standard attention also ran masking and dropout as separate kernels, each reading and writing an "
              "N × N matrix again; the count above has S and P only.",
        "zh": "论文实测了 GPT-2 medium 中注意力的 HBM 读写量（N = 1024，d = 64，前向加反向，A100；论文图 2）："
              "标准注意力 {std} GB，FlashAttention {flash} GB，只有前者的 1/{ratio:.1f}。那里的标准注意力还把掩码和 "
              "dropout 作为单独的 kernel 运行，每个都要再读写一遍 N × N 矩阵；上面的计数只包含 S 和 P。"},
    "traffic.seed_load": {"en": "Load this example into the page", "zh": "把这个算例载入页面"},

    # ui/blocks_traffic.py: what the counts model, next to what was measured
    "traffic.model_label": {
        "en": "These counts model on-chip SRAM only: every load they count goes to HBM, none is served by the L2 "
              "cache. They are exact for that model; a real GPU moves fewer bytes.",
        "zh": "这些计数只建模了片上 SRAM：它们计入的每一次加载都算作访问 HBM，没有一次由 L2 缓存提供。对这个模型"
              "而言它们是精确的；真实 GPU 搬运的字节更少。"},
    "traffic.fa1_loses": {
        "en": "Here Algorithm 1 (FA1 order) moves {ratio}× the bytes of standard attention: it re-reads and rewrites "
              "O once per K/V block, so it saves traffic only when Bc is above about 3d/4 = {q} (here Bc = {bc}).",
        "zh": "在这里，算法 1（FA1 顺序）搬运的字节是标准注意力的 {ratio} 倍：它每处理一个 K/V 块就要重读并重写一遍 "
              "O，所以只有 Bc 大于约 3d/4 = {q} 时它才省流量（这里 Bc = {bc}）。"},
    "traffic.measured_beside": {
        "en": "**Measured** (Nsight Compute on the {device}, {date}, N = {n}, d = {d}, per head): naive attention "
              "moved {naive} MB (model: {naive_model} MB); the fast flash kernel moved {fast} MB, though the model "
              "counts {fast_model} MB at its {br} × {bc} tiles: the L2 served the K/V re-reads. Measured, flash "
              "moves **{x}× fewer bytes** than naive.",
        "zh": "**实测**（{device} 上的 Nsight Compute，{date}，N = {n}，d = {d}，按每个头计）：朴素注意力搬运了 "
              "{naive} MB（模型：{naive_model} MB）；我们的 `fast` flash kernel 搬运了 {fast} MB，而模型在它的 {br} × {bc} tile "
              "下算出 {fast_model} MB：K、V 的重读由 L2 提供了。实测下，flash 搬运的字节**只有朴素实现的 1/{x}**。"},
    "traffic.measured_none": {
        "en": "No Nsight recording at this N and d; the {device} recording has {have}.",
        "zh": "这个 N、d 没有 Nsight 记录；{device} 的记录只有 {have}。"},
    "traffic.to_hardware": {"en": "Measured bytes, the roofline and the memory hierarchy: {page}",
                            "zh": "实测字节、屋顶线与存储层次：{page}"},
}
