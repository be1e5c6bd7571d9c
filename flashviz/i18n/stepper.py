"""Strings of the page "Online softmax, tile by tile" and its charts (flashviz/ui/stepper.py, charts/stepper.py)."""

STRINGS = {
    "stepper.title": {"en": "Online softmax, tile by tile", "zh": "在线 softmax，逐块推进"},
    "stepper.intro": {
        "en": "Softmax over a row of scores can be computed one tile of keys at a time: keep a running max **m** and "
              "a running sum **ℓ**, and when a tile brings a larger score, multiply what was summed so far by "
              "**α** = exp(m_old − m_new). Only one tile of scores is ever on chip, and the answer is exact.",
        "zh": "一行分数的 softmax 可以按 key 的 tile 逐块计算：维护滚动最大值 **m** 和滚动求和 **ℓ**；某个 tile "
              "带来更大的分数时，把此前累积的量乘上修正系数 **α** = exp(m_old − m_new)。片上始终只有一个 tile 的"
              "分数，而结果是精确的。"},
    "stepper.fix_input": {"en": "Correct the value in the sidebar and the page comes back.",
                          "zh": "在侧边栏改正这个值，页面就会恢复。"},
    "stepper.describe": {
        "en": "Query row {row} · N = {n} keys · d = {d} · tile Bc = {tile} → Tc = {tc} steps · q, K, V from seed "
              "{seed}, rounded to {dtype}; the recurrence itself runs in float64.",
        "zh": "查询行 {row} · N = {n} 个 key · d = {d} · tile 大小 Bc = {tile} → 共 Tc = {tc} 步 · q、K、V 由种子 "
              "{seed} 生成并舍入到 {dtype}；递推本身用 float64 计算。"},
    "stepper.describe_typed": {
        "en": "Your typed scores (query row {row} is used only by the causal mask) · N = {n} keys · d = {d} · "
              "tile Bc = {tile} → Tc = {tc} steps · values V from seed {seed}, rounded to {dtype}.",
        "zh": "你输入的分数（查询行 {row} 只用于因果掩码）· N = {n} 个 key · d = {d} · tile 大小 Bc = {tile} → "
              "共 Tc = {tc} 步 · value 由种子 {seed} 生成并舍入到 {dtype}。"},
    "stepper.step_label": {"en": "**Step {i} of {n}** · keys {lo}–{hi} are in SRAM",
                           "zh": "**第 {i} / {n} 步** · key {lo}–{hi} 位于 SRAM"},

    # score strip
    "stepper.strip_title": {"en": "Scores q·k/√d · {n} keys, tile = {tile}", "zh": "分数 q·k/√d · {n} 个 key，tile = {tile}"},
    "stepper.strip_tile": {"en": "tile {t}: keys {lo}–{hi}", "zh": "tile {t}：key {lo}–{hi}"},
    "stepper.state_not_loaded": {"en": "not loaded yet", "zh": "尚未载入"},
    "stepper.state_on_chip": {"en": "current tile (on-chip SRAM)", "zh": "当前 tile（位于片上 SRAM）"},
    "stepper.state_discarded": {"en": "processed and discarded", "zh": "已处理并丢弃"},
    "stepper.state_masked": {"en": "masked (score −∞)", "zh": "被掩掉（分数 −∞）"},
    "stepper.hover_key": {"en": "key", "zh": "key 序号"},
    "stepper.hover_score": {"en": "score", "zh": "分数"},
    "stepper.axis_key": {"en": "key index j", "zh": "key 序号 j"},

    # recurrence
    "stepper.rec_header": {"en": "The online softmax recurrence", "zh": "在线 softmax 的递推"},
    "stepper.rec_title": {"en": "Running max m · rescale α · running sum ℓ",
                          "zh": "滚动最大值 m · 修正系数 α · 滚动求和 ℓ"},
    "stepper.axis_tile": {"en": "tile (step)", "zh": "tile（步骤）"},
    "stepper.col_tile": {"en": "tile", "zh": "tile"},
    "stepper.col_keys": {"en": "keys", "zh": "key 范围"},
    "stepper.col_tile_max": {"en": "tile max", "zh": "块内最大值"},
    "stepper.col_m": {"en": "m (running max)", "zh": "m（滚动最大值）"},
    "stepper.col_alpha": {"en": "α (rescale factor)", "zh": "α（修正系数）"},
    "stepper.col_l": {"en": "ℓ (running sum)", "zh": "ℓ（滚动求和）"},
    "stepper.col_rescale": {"en": "rescale", "zh": "重缩放"},
    "stepper.yes": {"en": "yes", "zh": "是"},
    "stepper.rescale": {"en": "rescale (the max moved)", "zh": "重缩放（最大值移动）"},
    "stepper.table_window": {"en": "Showing the last {k} of {n} tiles; the chart shows all of them.",
                             "zh": "只列出 {n} 个 tile 中的最后 {k} 个；右图显示全部。"},

    # accumulator and error
    "stepper.acc_header": {"en": "The output accumulator o / ℓ", "zh": "输出累加器 o / ℓ"},
    "stepper.acc_title": {"en": "Accumulator o/ℓ after tile {t} of {tc} vs the exact answer (green)",
                          "zh": "第 {t} / {tc} 个 tile 之后的累加器 o/ℓ 与精确答案（绿色）"},
    "stepper.acc_now": {"en": "o/ℓ after tile {t}", "zh": "tile {t} 之后的 o/ℓ"},
    "stepper.acc_exact": {"en": "exact answer", "zh": "精确答案"},
    "stepper.axis_dim": {"en": "output dimension", "zh": "输出维度"},
    "stepper.axis_value": {"en": "value", "zh": "数值"},
    "stepper.err_title": {"en": "Distance from the exact answer after each tile",
                          "zh": "每个 tile 之后与精确答案的距离"},
    "stepper.err_name": {"en": "max |o/ℓ − exact|", "zh": "最大 |o/ℓ − 精确值|"},
    "stepper.err_axis": {"en": "max abs error (log scale)", "zh": "最大绝对误差（对数坐标）"},
    "stepper.err_eps": {"en": "float64 rounding ≈ 2.2e-16", "zh": "float64 舍入误差 ≈ 2.2e-16"},

    # counters
    "stepper.ctr_resident": {"en": "Scores in SRAM now (of N)", "zh": "此刻 SRAM 中的分数（共 N 个）"},
    "stepper.ctr_resident_help": {
        "en": "Only the current tile's scores exist at this moment; the others are never held together.",
        "zh": "此刻只存在当前 tile 的分数；其余分数从不会同时待在内存里。"},
    "stepper.ctr_naive": {"en": "Naive keeps (row / N×N)", "zh": "朴素实现要保存（本行 / N×N）"},
    "stepper.ctr_naive_help": {
        "en": "Textbook attention materialises the whole row of N scores — for all queries the N×N matrix — "
              "writes it to HBM, reads it back for the softmax and again for the product with V.",
        "zh": "教科书式的注意力会把整行 N 个分数——对全部 query 而言就是 N×N 矩阵——写进 HBM，为 softmax "
              "读回一次，为乘以 V 再读一次。"},
    "stepper.ctr_rescales": {"en": "Rescales so far", "zh": "目前的重缩放次数"},
    "stepper.ctr_rescales_help": {
        "en": "Tiles that moved the running max, so that everything accumulated before was multiplied by α < 1.",
        "zh": "让滚动最大值发生移动的 tile 数；每次移动，此前累积的一切都要乘上小于 1 的修正系数 α。"},
    "stepper.ctr_error": {"en": "Max error vs exact", "zh": "与精确解的最大误差"},
    "stepper.ctr_error_help": {
        "en": "max |o/ℓ − softmax(s)·V| over the output dimensions. Before the last tile the accumulator is a "
              "softmax over the keys seen so far, so there is nothing fair to compare yet.",
        "zh": "各输出维度上的 max |o/ℓ − softmax(s)·V|。最后一个 tile 之前，累加器只是「目前见过的 key」上的 "
              "softmax，拿它和最终答案比较并不公平。"},
    "stepper.ctr_err_pending": {
        "en": "The error vs the exact answer is only comparable after the last tile: until then o/ℓ is a softmax "
              "over the keys seen so far (the chart below shows how far off it is).",
        "zh": "与精确解的误差要跑完最后一个 tile 才能对比：在那之前，o/ℓ 只是「目前见过的 key」上的 softmax"
              "（下方的图显示了它还差多远）。"},

    # explanations
    "stepper.explain_io": {
        "en": "At any moment only the orange tile's scores sit on chip; the grey ones are never held in memory "
              "together, and that is the whole memory saving. The arithmetic is the same as naive attention's — "
              "FlashAttention is *IO-aware*: it cuts the N×N matrix's round trips between HBM and on-chip SRAM, not the FLOPs.",
        "zh": "同一时刻，片上只放着橙色这一个 tile 的分数；灰色的分数从来不会同时待在内存里——省下的显存正是这部分。"
              "它的算术量与朴素注意力一样多：FlashAttention 之所以叫「IO 感知」，是因为它减少的是 N×N 矩阵在 HBM "
              "与片上 SRAM 之间的往返搬运，而不是 FLOPs。"},
    "stepper.explain_alpha": {
        "en": "**Why streaming is exact.** Everything accumulated so far (ℓ and o) was weighted by exp(s − m) "
              "with the *old* max. When a tile brings a larger score the max moves, and a single multiplication "
              "by α = exp(m_old − m_new) < 1 puts all of it on the new footing at once (the highlighted rows). "
              "No tile is visited twice, and the final o/ℓ equals softmax(s)·V up to floating-point rounding: "
              "this is not an approximation.",
        "zh": "**为什么流式计算是精确的。** 此前累积的 ℓ 和 o 都是以*旧的*最大值为基准、用 exp(s − m) 加权的。"
              "某个 tile 带来更大的分数时，滚动最大值随之移动，只需乘一次修正系数 α = exp(m_old − m_new) < 1，"
              "就能把之前的累积量一次性换到新的基准上（表中高亮的行）。没有哪个 tile 需要回头再读，最终的 o/ℓ "
              "与 softmax(s)·V 只差浮点舍入：这不是近似。"},
    "stepper.explain_no_early_exit": {
        "en": "**Why the loop can never stop early.** After each tile, o/ℓ is a perfectly correct softmax — over "
              "the keys seen so far. That is not the answer you asked for: a key still to come may hold the "
              "largest score and take most of the weight. Only after the last tile do the bars sit on the green "
              "ticks.",
        "zh": "**为什么循环永远不能提前退出。** 每个 tile 之后，o/ℓ 都是一个完全正确的 softmax——只不过是在"
              "「目前见过的 key」上。那不是你要的答案：还没轮到的 key 可能带着最大的分数，拿走大部分权重。"
              "只有在最后一个 tile 之后，柱子才会落到绿色刻度上。"},
    "stepper.tile_header": {"en": "What the tile size decides", "zh": "tile 大小决定了什么"},
    "stepper.explain_tile": {
        "en": "The tile size only decides how many scores have to fit in on-chip SRAM at once. Set it to 1: the "
              "algorithm still works, with the same arithmetic and the same answer — the max simply moves more "
              "often, so there are more rescales. Real kernels pick their tiles for the hardware, not for the "
              "softmax: the registers each thread has, how many thread blocks fit on a multiprocessor at once, and "
              "how many tiles are loaded ahead while another is computed (FlashAttention-3 at d = 128 uses "
              "128 × 176 tiles without a mask).",
        "zh": "tile 大小决定的只是「片上 SRAM 一次要装下多少个分数」。把它设成 1：算法照样成立，算术和答案都不变，"
              "只是滚动最大值移动得更频繁，重缩放次数更多。真实 kernel 的 tile 是为硬件选的，而不是为 softmax 选的："
              "每个线程可用的寄存器、一个多处理器上能同时驻留多少个线程块，以及计算一个 tile 时提前载入多少个 tile"
              "（FlashAttention-3 在 d = 128、无掩码时用 128 × 176 的 tile）。"},
    "stepper.try_tile1": {"en": "Try tile = 1", "zh": "试试 tile = 1"},
    "stepper.explain_nan": {
        "en": "**The exp(−∞ − (−∞)) pitfall.** Masked keys have score −∞. If a whole tile is masked before any "
              "visible key has arrived, the new max is still −∞, and exp(s − m) becomes exp(−∞ − (−∞)) = exp(NaN) "
              "= NaN, which then poisons every later tile. A causal mask alone never does this (every row sees "
              "key 0); padding keys in ragged batches, sliding windows and queries placed before all keys do. So "
              "real kernels guard against it: while the running max is still −∞ they use 0 in its place inside "
              "the exponentials, so exp(−∞ − 0) = 0, or they start the max at a finite negative number of large "
              "magnitude instead of −∞.",
        "zh": "**exp(−∞ − (−∞)) 陷阱。** 被掩掉的 key 分数为 −∞。如果在任何可见 key 到来之前，一整个 tile 都被"
              "掩掉，新的最大值仍是 −∞，exp(s − m) 就成了 exp(−∞ − (−∞)) = exp(NaN) = NaN，并污染之后的每一个 "
              "tile。单靠因果掩码不会出现这种情况（每一行都能看到 key 0）；不规则 batch 里的 padding key、滑动窗口、"
              "以及位于所有 key 之前的 query 则会。所以真实 kernel 都会设防：滚动最大值还是 −∞ 时，指数里用 0 代替它，"
              "于是 exp(−∞ − 0) = 0；或者把最大值的初值设成一个绝对值很大的有限负数，而不是 −∞。"},
    "stepper.try_pitfall": {"en": "Show the NaN pitfall (first tile masked, guard off)",
                            "zh": "演示 NaN 陷阱（首个 tile 被掩掉，关闭防护）"},
    "stepper.nan_now": {
        "en": "**NaN.** The first tile was fully masked and the guard is off: the running max is still −∞, so "
              "α = exp(−∞ − (−∞)) = NaN and p = exp(s − m) = NaN. NaN then spreads into ℓ and o at every later "
              "tile; no later tile can repair it. Turn the guard back on in the sidebar.",
        "zh": "**出现 NaN。** 第一个 tile 被整块掩掉，而防护已关闭：滚动最大值仍是 −∞，于是 "
              "α = exp(−∞ − (−∞)) = NaN，p = exp(s − m) = NaN。此后每个 tile 的 ℓ 和 o 都被 NaN 传染，"
              "后面的 tile 再也救不回来。请在侧边栏重新打开防护。"},
    "stepper.guard_saved": {
        "en": "The first tile is fully masked (every score −∞). The guard handles it: while nothing visible has "
              "been seen, 0 stands in for the −∞ max inside the exponentials, so the tile adds nothing. Switch the "
              "guard off in the sidebar to see what happens without it.",
        "zh": "第一个 tile 被整块掩掉（分数全是 −∞）。防护处理了它：在还没见到任何可见 key 时，指数里用 0 代替 "
              "−∞ 的最大值，因此这个 tile 什么也不贡献。在侧边栏关闭防护，看看没有它会怎样。"},

    # the client-side stepper (flashviz/client/player.js)
    "stepper.key_first": {"en": "First step (Home)", "zh": "第一步（Home 键）"},
    "stepper.key_prev": {"en": "Previous step (←)", "zh": "上一步（← 键）"},
    "stepper.key_next": {"en": "Next step (→)", "zh": "下一步（→ 键）"},
    "stepper.key_last": {"en": "Last step (End)", "zh": "最后一步（End 键）"},
    "stepper.pause": {"en": "Pause", "zh": "暂停"},
    "stepper.acc_dims": {"en": "At this size the chart shows the first {k} of the d = {d} dimensions of o; the error "
                               "chart and the counters use all of them.",
                         "zh": "在这个规模下，图中只画出 o 的 d = {d} 个维度中的前 {k} 个；误差图和计数器用的是全部维度。"},
    "stepper.no_plotly": {"en": "The charts could not be drawn: this browser could not load plotly.js from the server. "
                                "The numbers above are still right; reload the page to try again.",
                          "zh": "图表无法绘制：浏览器没能从服务器载入 plotly.js。上面的数字依然正确；刷新页面可重试。"},
    "stepper.keys_hint": {"en": "Keys: ← / → step, Home / End first / last. Stepping runs in your browser.",
                          "zh": "按键：← / → 逐步，Home / End 跳到第一步 / 最后一步。逐步演示在浏览器里运行。"},

    # why ℓ can fall, why α = 0 on the first tile (computed from this configuration's trace)
    "stepper.alpha_first": {
        "en": "On tile 1, α = 0: before it nothing was seen (m = −∞, ℓ = 0, o = 0), so α = exp(−∞ − m) = 0 "
              "multiplies nothing and loses nothing.",
        "zh": "第 1 个 tile 的 α = 0：在它之前什么也没见过（m = −∞，ℓ = 0，o = 0），所以 α = exp(−∞ − m) = 0 "
              "乘的是零，什么也不丢。"},
    "stepper.l_fell": {
        "en": "ℓ fell at tile {k} ({a} → {b}): ℓ sums exp(s − m) against the current max, so when the max rose the "
              "old sum was multiplied by α = {alpha}, and this tile added only {add}.",
        "zh": "ℓ 在第 {k} 个 tile 变小了（{a} → {b}）：ℓ 累加的是相对于当前最大值的 exp(s − m)，最大值上升时，"
              "旧的和要乘上 α = {alpha}，而这个 tile 只加了 {add}。"},
    "stepper.l_never_fell": {
        "en": "Here ℓ never fell. It can, at a rescale: when α·ℓ + this tile's sum < ℓ (try tile = 1 or another seed).",
        "zh": "这里 ℓ 从未变小。它在重缩放时可能变小：当 α·ℓ + 本 tile 的和 < ℓ 时（试试 tile = 1 或换个种子）。"},
    "stepper.row_moved": {
        "en": "Query row {old} does not exist at N = {n}, so the stepper now follows row {row}, the last one.",
        "zh": "N = {n} 时不存在查询行 {old}，所以逐块演示改为跟踪最后一行，即第 {row} 行。"},

    # depth, behind expanders
    "stepper.exp_formula": {"en": "The recurrence with this step's numbers (FA2 and the first paper's Algorithm 1)",
                            "zh": "代入本步数值的递推式（FA2 与第一篇论文的算法 1）"},
    "stepper.exp_acc": {"en": "The output accumulator o/ℓ and why the loop cannot stop early",
                        "zh": "输出累加器 o/ℓ，以及循环为何不能提前退出"},
    "stepper.exp_code": {"en": "The whole algorithm in a dozen lines of Python", "zh": "十几行 Python 写出整个算法"},
    "stepper.exp_why": {"en": "Why this saves memory, and why it is exact", "zh": "为什么省显存，又为什么是精确的"},
    "stepper.exp_tile": {"en": "What the tile size decides", "zh": "tile 大小决定了什么"},
    "stepper.exp_nan": {"en": "The exp(−∞ − (−∞)) pitfall of masked tiles", "zh": "被掩掉的 tile 与 exp(−∞ − (−∞)) 陷阱"},
    "stepper.exp_kernel": {"en": "For kernel engineers: the Triton kernel's own m, ℓ, α", "zh": "写 kernel 的人看：Triton kernel 自己的 m、ℓ、α"},
    "stepper.code_intro": {
        "en": "The recurrence the page animates, for one query row. It has no guard, so a fully masked first tile "
              "gives NaN (see the pitfall below).",
        "zh": "页面演示的递推，针对一个查询行。它没有防护，所以首个 tile 被整块掩掉时会得到 NaN（见下方的陷阱）。"},
    "stepper.code_result": {
        "en": "This code on the row above: `{got}`; the engine: `{want}`; largest difference {diff}.",
        "zh": "这段代码在上面这一行上的结果：`{got}`；引擎的结果：`{want}`；最大差异 {diff}。"},
    "stepper.code_nan": {
        "en": "This code on the row above gives NaN: its first tile is fully masked and the loop has no guard. The "
              "engine, guarded, gives `{want}`.",
        "zh": "这段代码在上面这一行上得到 NaN：首个 tile 被整块掩掉，而循环没有防护。带防护的引擎给出 `{want}`。"},

    # the kernel panel's Br
    "stepper.br_label": {"en": "Query block Br of the kernel", "zh": "kernel 的 query 块大小 Br"},
    "stepper.br_help": {
        "en": "The kernel gives each program Br query rows; the simulator above follows one row, so it has no Br.",
        "zh": "kernel 让每个 program 负责 Br 个查询行；上面的模拟器只跟踪一行，所以没有 Br。"},
    "stepper.br_explain": {
        "en": "Br = {br}: the kernel splits the N = {n} queries into {tr} programs of Br rows; row {row} is computed "
              "by program {i} (rows {lo}–{hi}), together with the other rows of its block, which share every K, V "
              "tile it loads. Br decides which program computes the row and how many rows share a load; the row's "
              "own recurrence over the tiles of Bc = {bc} keys is the same for every Br.",
        "zh": "Br = {br}：kernel 把 N = {n} 个查询分成 {tr} 个 program，每个负责 Br 行；第 {row} 行由第 {i} 个 "
              "program（第 {lo}–{hi} 行）计算，它与同块的其他行共享每一个载入的 K、V tile。Br 决定由哪个 program "
              "计算这一行、多少行共享一次载入；这一行自己在 Bc = {bc} 个 key 的 tile 上的递推，对任何 Br 都一样。"},

    # the stepper's exports
    "stepper.export": {"en": "Export the stepper", "zh": "导出逐块演示"},
    "stepper.export_html": {"en": "Offline stepper (one HTML file, every step)", "zh": "离线逐块演示（单个 HTML 文件，包含每一步）"},
    "stepper.export_html_help": {
        "en": "This configuration's whole run in one file (~5 MB, plotly.js inside): buttons, slider and keys step it "
              "in any browser with no server and no network — for slides or a course site.",
        "zh": "把这个配置的完整过程放进一个文件（约 5 MB，内含 plotly.js）：在任何浏览器里无需服务器、无需网络，"
              "用按钮、滑块和按键逐步播放——适合放进幻灯片或课程网站。"},
    "stepper.chart_strip": {"en": "Scores", "zh": "分数"},
    "stepper.chart_recurrence": {"en": "m, α, ℓ", "zh": "m、α、ℓ"},
    "stepper.chart_accumulator": {"en": "o/ℓ", "zh": "o/ℓ"},
    "stepper.chart_error": {"en": "Error", "zh": "误差"},
    "stepper.export_charts": {
        "en": "The four charts below are exported at the last step (the complete run). Each chart's camera button "
              "saves the step on screen, made in your browser.",
        "zh": "下面四张图按最后一步（完整过程）导出。每张图工具栏上的相机按钮保存屏幕上的这一步，在你的浏览器里生成。"},
    "stepper.offline_note": {
        "en": "Made by flashviz {version} from this configuration; it runs with no server.",
        "zh": "由 flashviz {version} 根据此配置生成；无需服务器即可运行。"},
}
