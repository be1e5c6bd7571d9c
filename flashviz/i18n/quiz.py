"""Strings of the quiz page: eight multiple-choice questions, their options, and why the right one is right.

Keys: quiz.<id>_q (question), quiz.<id>_<a|b|c|d> (options), quiz.<id>_why (explanation, shown after answering).
"""

STRINGS = {
    "quiz.title": {"en": "Quiz: check what stuck", "zh": "自测：检验一下学到了什么"},
    "quiz.intro": {
        "en": "Eight questions on what the other pages show. Pick an answer to see at once whether it is right, "
              "why, and which page shows it. Change your answer as often as you like; the score counts the "
              "answers that are right now.",
        "zh": "八道题，内容都来自其他页面。选一个答案，立刻就能看到对错、原因，以及哪个页面演示了它。"
              "答案可以随时修改；得分按当前答对的题数计算。"},
    "quiz.score": {"en": "Score: {right} / {total} · answered {answered}",
                   "zh": "得分：{right} / {total} · 已作答 {answered} 题"},
    "quiz.all_right": {"en": "All {total} right. You could teach this.", "zh": "{total} 题全对，你已经可以讲授这部分内容了。"},
    "quiz.reset": {"en": "Start over", "zh": "重新作答"},
    "quiz.number": {"en": "Question {i} of {n}", "zh": "第 {i} 题 / 共 {n} 题"},
    "quiz.right": {"en": "Right.", "zh": "正确。"},
    "quiz.wrong": {"en": "Not quite.", "zh": "不对。"},
    "quiz.see_page": {"en": "See it on “{page}”", "zh": "到“{page}”页面看演示"},

    # 1. what FlashAttention reduces
    "quiz.reduces_q": {"en": "Compared with standard attention, what does FlashAttention's forward pass cut down?",
                       "zh": "与标准注意力相比，FlashAttention 的前向计算主要减少了什么？"},
    "quiz.reduces_a": {"en": "The number of floating-point operations", "zh": "浮点运算次数（FLOPs）"},
    "quiz.reduces_b": {"en": "Reads and writes between HBM and on-chip SRAM",
                       "zh": "HBM 与片上 SRAM 之间的读写量"},
    "quiz.reduces_c": {"en": "The precision of the softmax", "zh": "softmax 的计算精度"},
    "quiz.reduces_d": {"en": "The number of keys each query looks at", "zh": "每个 query 关注的 key 的数量"},
    "quiz.reduces_why": {
        "en": "Without a mask the arithmetic is the same: Q·Kᵀ and P·V are 2·N²·d multiply-adds per head, the "
              "4·N²·d FLOPs the speed page counts (plus a few rescales). What disappears is the N×N score matrix "
              "travelling between HBM and on-chip SRAM: each tile's scores are made, used and dropped on chip. That "
              "is what IO-aware means.",
        "zh": "不加掩码时算术完全相同：Q·Kᵀ 和 P·V 每个头共 2·N²·d 次乘加，也就是速度页统计的 4·N²·d 次浮点运算"
              "（另加少量重缩放）。消失的是 N×N 分数矩阵在 HBM 与片上 SRAM 之间的往返：每个 tile 的分数在片上产生、"
              "使用、随即丢弃。这就是“IO 感知”的含义。"},

    # 2. why alpha makes streaming exact
    "quiz.alpha_q": {"en": "A later tile brings a larger score, so the running max m grows. Why is the result "
                           "still exact?",
                     "zh": "后面的某个 tile 带来更大的分数，滚动最大值 m 随之变大。为什么结果仍然是精确的？"},
    "quiz.alpha_a": {"en": "Because the earlier tiles are loaded again and recomputed",
                     "zh": "因为之前的 tile 会被重新载入并重算"},
    "quiz.alpha_b": {"en": "It is not exact, only a close approximation", "zh": "并不精确，只是很接近的近似"},
    "quiz.alpha_c": {"en": "Multiplying ℓ and o by α = exp(m_old − m_new) re-bases everything so far onto the "
                           "new max",
                     "zh": "把 ℓ 和 o 乘以 α = exp(m_old − m_new)，把之前累积的一切换算到新的最大值上"},
    "quiz.alpha_d": {"en": "Because scores are sorted before they are tiled", "zh": "因为分块之前已经把分数排好序了"},
    "quiz.alpha_why": {
        "en": "exp(s − m_new) = exp(s − m_old) · exp(m_old − m_new), so one multiplication by α turns every sum "
              "taken with the old max into the sum with the new one. No tile is ever visited twice.",
        "zh": "exp(s − m_new) = exp(s − m_old) · exp(m_old − m_new)，所以乘一次修正系数 α，"
              "就把按旧最大值求得的和换算成按新最大值的和，这就是重缩放。任何 tile 都不必再访问第二次。"},

    # 3. no early exit
    "quiz.early_q": {"en": "After a few tiles the accumulator o/ℓ barely moves. Why must the loop still visit "
                           "every remaining key?",
                     "zh": "处理了几个 tile 之后，累加器 o/ℓ 几乎不再变化。为什么循环仍然必须访问剩下的每一个 key？"},
    "quiz.early_a": {"en": "Any unseen key may hold a large score that changes m, ℓ and the whole output",
                     "zh": "任何还没看到的 key 都可能有很大的分数，从而改变 m、ℓ 乃至整个输出"},
    "quiz.early_b": {"en": "The GPU requires a fixed number of iterations", "zh": "GPU 要求固定的迭代次数"},
    "quiz.early_c": {"en": "It need not: stopping early is a standard FlashAttention option",
                     "zh": "不必如此：提前退出是 FlashAttention 的标准选项"},
    "quiz.early_d": {"en": "To write the score matrix back to HBM", "zh": "为了把分数矩阵写回 HBM"},
    "quiz.early_why": {
        "en": "Until the last tile, o/ℓ is a softmax over the keys seen so far, not over all of them. A single "
              "later key with a big score can take most of the weight. The error chart drops to zero only at the "
              "last step.",
        "zh": "在最后一个 tile 之前，o/ℓ 只是对已见过的 key 的 softmax，而不是对全部 key。后面只要出现一个分数很大的 key，"
              "就可能拿走大部分权重。误差图只有在最后一步才降到零。"},

    # 4. recomputation
    "quiz.recompute_q": {"en": "The backward pass recomputes the attention scores instead of loading them. What is "
                               "traded for what?",
                         "zh": "反向传播时重新计算注意力分数，而不是把它们读回来。这是用什么换什么？"},
    "quiz.recompute_a": {"en": "Less accuracy for more speed", "zh": "用精度换速度"},
    "quiz.recompute_b": {"en": "More HBM memory for fewer FLOPs", "zh": "用更多 HBM 显存换更少的 FLOPs"},
    "quiz.recompute_c": {"en": "Nothing: the backward pass never needs the scores", "zh": "没有交换：反向传播根本不需要分数"},
    "quiz.recompute_d": {"en": "Extra FLOPs for not storing, and not reading back, an N×N matrix",
                         "zh": "用额外的 FLOPs，换取不存储、也不读回一个 N×N 矩阵"},
    "quiz.recompute_why": {
        "en": "Only O and one log-sum-exp per row (L = m + log ℓ) are kept. Each tile's scores are rebuilt on chip "
              "from Q and K: more arithmetic, far less HBM traffic and memory, and usually faster.",
        "zh": "只保留 O 和每行一个 log-sum-exp（L = m + log ℓ）。每个 tile 的分数在片上由 Q、K 重新算出："
              "算术更多，但 HBM 流量和显存少得多，通常整体更快。"},

    # 5. O(N) memory
    "quiz.memory_q": {"en": "Besides Q, K, V and O, how much extra memory does the FlashAttention forward pass "
                            "keep per head?",
                      "zh": "除 Q、K、V 和 O 之外，FlashAttention 前向计算每个头还需要多少额外显存？"},
    "quiz.memory_a": {"en": "O(N²): the full score matrix, like standard attention",
                      "zh": "O(N²)：完整的分数矩阵，与标准注意力相同"},
    "quiz.memory_b": {"en": "O(N): one log-sum-exp per query row", "zh": "O(N)：每个 query 行一个 log-sum-exp"},
    "quiz.memory_c": {"en": "O(N·d²)", "zh": "O(N·d²)"},
    "quiz.memory_d": {"en": "None at all, not even per row", "zh": "完全不需要，连每行的统计量都不需要"},
    "quiz.memory_why": {
        "en": "While it runs, each query row keeps its running max m and running sum ℓ on chip. At the end the "
              "kernel writes one number per row to HBM, the log-sum-exp L = m + log ℓ, which the backward pass uses "
              "to rebuild P: O(N). The tiles themselves live in SRAM only while they are used.",
        "zh": "计算过程中，每个 query 行把自己的滚动最大值 m 和滚动求和 ℓ 留在片上。结束时 kernel 只为每行向 HBM "
              "写一个数，即 log-sum-exp L = m + log ℓ，反向传播用它重建 P：O(N)。tile 本身只在使用时短暂停留在 "
              "SRAM 中。"},

    # 6. fully masked tile
    "quiz.masked_q": {"en": "A query row's first key tile is fully masked (every score −∞): the row has not seen any "
                            "visible key yet. When does that happen, and what goes wrong without a guard?",
                      "zh": "某个查询行的第一个 key tile 被整块掩掉（分数全是 −∞）：这一行还没见过任何可见的 key。"
                            "什么情况下会这样？没有防护会出什么问题？"},
    "quiz.masked_a": {"en": "Never: every row sees key 0, so no first tile can be fully masked",
                      "zh": "从不会：每一行都能看到 key 0，所以第一个 tile 不可能被整块掩掉"},
    "quiz.masked_b": {"en": "When the tile is the row's own diagonal tile; the output becomes zero",
                      "zh": "当该 tile 正好是这一行所在的对角块时；输出会变成零"},
    "quiz.masked_c": {"en": "Under a padding mask (or a sliding window, or a query placed before all keys); m stays −∞ "
                            "and exp(−∞ − (−∞)) = NaN spreads",
                      "zh": "在 padding 掩码下（或滑动窗口下，或 query 位于所有 key 之前时）；m 仍为 −∞，"
                            "exp(−∞ − (−∞)) = NaN 会扩散开"},
    "quiz.masked_d": {"en": "When the tile is larger than SRAM; the kernel crashes",
                      "zh": "当 tile 大于 SRAM 时；kernel 会崩溃"},
    "quiz.masked_why": {
        "en": "A causal mask alone cannot do it when queries and keys are aligned: every row sees key 0, so its "
              "first tile always holds a real score. Padding keys in a ragged batch can, and so can a sliding "
              "window or a query placed before every key (Nq ≠ Nk with the mask aligned top-left). Then the tile "
              "max and the running max are both −∞, and α = exp(−∞ − (−∞)) is NaN, which poisons ℓ and o for good. "
              "Real kernels skip such tiles or guard the exponent: while the running max is −∞ they use 0 in its "
              "place, so exp(−∞ − 0) = 0 and the tile adds nothing.",
        "zh": "当 query 与 key 对齐时，单靠因果掩码做不到：每一行都能看到 key 0，所以第一个 tile 里总有真实分数。"
              "不规则 batch 里的 padding key 可以做到，滑动窗口、或者 query 位于所有 key 之前（Nq ≠ Nk 且掩码左上角"
              "对齐）也可以。这时 tile 最大值和滚动最大值都是 −∞，α = exp(−∞ − (−∞)) 就成了 NaN，从此污染 ℓ 和 o。"
              "真实的 kernel 会跳过这种 tile，或者给指数设防：滚动最大值还是 −∞ 时用 0 代替它，于是 "
              "exp(−∞ − 0) = 0，这个 tile 什么也不贡献。"},

    # 7. tile size
    "quiz.tile_q": {"en": "What does the tile size decide?", "zh": "tile 的大小决定了什么？"},
    "quiz.tile_a": {"en": "The final output: smaller tiles give a more accurate answer",
                    "zh": "最终输出：tile 越小，答案越准确"},
    "quiz.tile_b": {"en": "How much sits on chip at once and how often Q, K, V pass through HBM; the result does "
                          "not change",
                    "zh": "一次有多少数据放在片上，以及 Q、K、V 要经过 HBM 多少趟；结果本身不变"},
    "quiz.tile_c": {"en": "Only how the charts are drawn", "zh": "只影响图表怎么画"},
    "quiz.tile_d": {"en": "The number of attention heads", "zh": "注意力头的数量"},
    "quiz.tile_why": {
        "en": "Tiles must fit in SRAM together with their partial results. Larger tiles mean fewer passes over the "
              "other operand, so less HBM traffic; tile = 1 is still exact, only with more rescales.",
        "zh": "tile 连同其中间结果必须能放进 SRAM。tile 越大，对另一个操作数的遍历次数越少，HBM 流量也越少；"
              "tile = 1 依然精确，只是重缩放更多。"},

    # 8. FA2 loop order
    "quiz.order_q": {"en": "Why does FlashAttention-2's loop order (query blocks outside, key/value blocks inside) "
                           "parallelise better than FlashAttention-1's?",
                     "zh": "为什么 FlashAttention-2 的循环顺序（外层 query 块，内层 key/value 块）比 FlashAttention-1 "
                           "更容易并行？"},
    "quiz.order_a": {"en": "It does fewer FLOPs", "zh": "它的 FLOPs 更少"},
    "quiz.order_b": {"en": "It keeps the whole K and V in SRAM", "zh": "它把整个 K 和 V 都放在 SRAM 中"},
    "quiz.order_c": {"en": "It skips the online softmax", "zh": "它不需要在线 softmax"},
    "quiz.order_d": {"en": "Each program owns its query rows, so programs never write the same output and O is "
                           "written once",
                     "zh": "每个 program 独占自己的 query 行，program 之间从不写同一块输出，O 也只写一次"},
    "quiz.order_why": {
        "en": "With key/value blocks outside, every pass touches all output rows, so O, m and ℓ go back to HBM "
              "after each block and the passes cannot run side by side. With query blocks outside, each block of "
              "rows is an independent program (times batch × heads) that streams all keys and stores its output "
              "once.",
        "zh": "若外层是 key/value 块，每一趟都要更新所有输出行，O、m、ℓ 每处理一块就要写回 HBM，各趟之间也无法并行。"
              "若外层是 query 块，每组行都是一个独立的 program（再乘以 batch × 头数），它流式读完所有 key，"
              "最后只写一次输出。"},
}
