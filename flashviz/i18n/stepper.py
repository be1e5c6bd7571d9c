"""Strings of the page "Online softmax, tile by tile" and its charts (flashviz/ui/stepper.py, charts/stepper.py)."""

STRINGS = {
    "stepper.title": {"en": "Online softmax, tile by tile", "zh": "在线 softmax，逐块推进"},
    "stepper.intro": {
        "en": "Follow one query row while its attention is computed the FlashAttention way. Keys arrive in tiles; "
              "each tile is scored inside on-chip SRAM, folded into a running max **m**, a running sum **ℓ** and an "
              "output accumulator **o**, and then thrown away. Step through it and watch the result land exactly "
              "on the textbook answer.",
        "zh": "跟着一个查询行，看它的注意力如何按 FlashAttention 的方式算出来。key 按 tile 分批到来；每个 tile 在"
              "片上 SRAM 里算出分数，并入滚动最大值 **m**、滚动求和 **ℓ** 和输出累加器 **o**，随后就被丢弃。"
              "一步一步往前走，看结果如何精确地落在教科书答案上。"},
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
              "often, so there are more rescales. Real kernels take the largest tile that fits (64 or 128 keys) "
              "to keep the hardware busy.",
        "zh": "tile 大小决定的只是「片上 SRAM 一次要装下多少个分数」。把它设成 1：算法照样成立，算术和答案都不变，"
              "只是滚动最大值移动得更频繁，重缩放次数更多。真实 kernel 会选能装下的最大 tile（64 或 128 个 key），"
              "让硬件保持忙碌。"},
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
}
