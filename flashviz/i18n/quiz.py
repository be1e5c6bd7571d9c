"""Strings of the quiz page: multiple-choice questions, their options, and why the right one is right.

Keys: quiz.<id>_q (question), quiz.<id>_<a|b|c|d> (options), quiz.<id>_why (explanation, shown after answering).
Numbers in braces are the engines' (flashviz/engine/quiz_facts.py), filled in when the page draws them. The right option is
rarely the longest (tests/pages/test_quiz_page.py measures it in both languages), and the page shuffles the options.
"""

STRINGS = {
    "quiz.title": {"en": "Quiz: check what stuck", "zh": "自测：检验一下学到了什么"},
    "quiz.intro": {
        "en": "Questions on what the other pages show, from the online softmax to the hardware: pick an answer to "
              "see at once whether it is right, why, and which page shows it. Change your answer as often as you "
              "like; the score counts the answers that are right now.",
        "zh": "题目都来自其他页面，从在线 softmax 一直到硬件：选一个答案，立刻就能看到对错、原因，以及哪个页面演示了它。"
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
    "quiz.reduces_a": {"en": "The floating-point operations, by skipping the parts of the softmax that barely matter",
                       "zh": "浮点运算次数，因为它跳过了 softmax 中几乎不起作用的那部分"},
    "quiz.reduces_b": {"en": "Reads and writes between HBM and on-chip SRAM",
                       "zh": "HBM 与片上 SRAM 之间的读写量"},
    "quiz.reduces_c": {"en": "The precision of the softmax, which runs in fp16", "zh": "softmax 的精度，改用 fp16 计算"},
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
    "quiz.alpha_a": {"en": "The earlier tiles are loaded again and recomputed", "zh": "之前的 tile 会重新载入并重算"},
    "quiz.alpha_b": {"en": "It is not exact, only a close approximation", "zh": "并不精确，只是很接近的近似"},
    "quiz.alpha_c": {"en": "ℓ and o are multiplied by α = exp(m_old − m_new), re-basing them on the new max",
                     "zh": "ℓ 和 o 乘以修正系数 α = exp(m_old − m_new)，换算到新的最大值上"},
    "quiz.alpha_d": {"en": "Scores are sorted before tiling, so the max never grows", "zh": "分块之前已把分数排好序，最大值不会再变"},
    "quiz.alpha_why": {
        "en": "exp(s − m_new) = exp(s − m_old) · exp(m_old − m_new), so one multiplication by α turns every sum "
              "taken with the old max into the sum with the new one. No tile is ever visited twice.",
        "zh": "exp(s − m_new) = exp(s − m_old) · exp(m_old − m_new)，所以乘一次修正系数 α，"
              "就把按旧最大值求得的和换算成按新最大值的和，这就是重缩放。任何 tile 都不必再访问第二次。"},

    # 3. no early exit
    "quiz.early_q": {"en": "After a few tiles the accumulator o/ℓ barely moves. Why must the loop still visit "
                           "every remaining key?",
                     "zh": "处理了几个 tile 之后，累加器 o/ℓ 几乎不再变化。为什么循环仍然必须访问剩下的每一个 key？"},
    "quiz.early_a": {"en": "Any unseen key may hold a large score that changes m, ℓ and the output",
                     "zh": "任何没看到的 key 都可能有很大的分数，改变 m、ℓ 和输出"},
    "quiz.early_b": {"en": "The GPU needs the same number of iterations in every program, so no loop can stop early",
                     "zh": "GPU 要求每个 program 的迭代次数都相同，所以任何循环都不能提前结束"},
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
    "quiz.recompute_a": {"en": "Accuracy for speed: the recomputed scores are rounded", "zh": "用精度换速度：重算的分数被舍入了"},
    "quiz.recompute_b": {"en": "More HBM memory for fewer FLOPs, since the forward caches the scores for the backward",
                         "zh": "用更多 HBM 显存换更少的 FLOPs，因为前向把分数缓存下来留给反向"},
    "quiz.recompute_c": {"en": "Nothing: the backward pass never needs the scores", "zh": "没有交换：反向传播根本不需要分数"},
    "quiz.recompute_d": {"en": "Extra FLOPs for not storing, nor reading back, an N×N matrix",
                         "zh": "用额外的 FLOPs，换取不存储、也不读回 N×N 矩阵"},
    "quiz.recompute_why": {
        "en": "Only O and a few numbers per row are kept (one log-sum-exp L = m + log ℓ in FlashAttention-2). Each "
              "tile's scores are rebuilt on chip from Q and K: more arithmetic, far less HBM traffic and memory, "
              "and usually faster.",
        "zh": "只保留 O 和每行少量几个数（FlashAttention-2 中是一个 log-sum-exp L = m + log ℓ）。每个 tile 的分数在片上"
              "由 Q、K 重新算出：算术更多，但 HBM 流量和显存少得多，通常整体更快。"},

    # 5. O(N) memory
    "quiz.memory_q": {"en": "Besides O, how much does the FlashAttention forward pass write to HBM for the backward, "
                            "per head?",
                      "zh": "除 O 之外，FlashAttention 的前向计算每个头还要为反向传播向 HBM 写多少数据？"},
    "quiz.memory_a": {"en": "O(N²): the full score matrix, as standard attention keeps, for the backward to reuse",
                      "zh": "O(N²)：像标准注意力那样保留完整的分数矩阵，留给反向传播复用"},
    "quiz.memory_b": {"en": "O(N): a few numbers per query row", "zh": "O(N)：每个 query 行几个数"},
    "quiz.memory_c": {"en": "O(N·d²)", "zh": "O(N·d²)"},
    "quiz.memory_d": {"en": "Nothing at all, not even per row", "zh": "什么都不写，连每行的统计量都不写"},
    "quiz.memory_why": {
        "en": "While it runs, each query row keeps its running max m and running sum ℓ on chip. At the end "
              "FlashAttention-1 writes both to HBM, two numbers per row; FlashAttention-2 writes one, the "
              "log-sum-exp L = m + log ℓ, from which the backward rebuilds P. Either way O(N). The tiles "
              "themselves live in SRAM only while they are used.",
        "zh": "计算过程中，每个 query 行把滚动最大值 m 和滚动求和 ℓ 留在片上。结束时 FlashAttention-1 把两者都写回 HBM，"
              "每行两个数；FlashAttention-2 只写一个，即 log-sum-exp L = m + log ℓ，反向传播用它重建 P。两种做法都是 "
              "O(N)。tile 本身只在使用时短暂停留在 SRAM 中。"},

    # 6. fully masked tile
    "quiz.masked_q": {"en": "A query row's first key tile is fully masked (every score −∞): the row has not seen any "
                            "visible key yet. When does that happen, and what goes wrong without a guard?",
                      "zh": "某个查询行的第一个 key tile 被整块掩掉（分数全是 −∞）：这一行还没见过任何可见的 key。"
                            "什么情况下会这样？没有防护会出什么问题？"},
    "quiz.masked_a": {"en": "Never: every row sees key 0, so whatever the mask or the padding, no first tile is empty",
                      "zh": "从不会：每一行都能看到 key 0，所以无论什么掩码或 padding，第一个 tile 都不会是空的"},
    "quiz.masked_b": {"en": "At the row's own diagonal tile; the output becomes zero",
                      "zh": "在这一行所在的对角块上；输出会变成零"},
    "quiz.masked_c": {"en": "Under padding or a sliding window; m stays −∞ and NaN spreads",
                      "zh": "在 padding 或滑动窗口下；m 仍为 −∞，NaN 会扩散开"},
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
              "对齐）也可以。这时 tile 最大值和滚动最大值都是 −∞，修正系数 α = exp(−∞ − (−∞)) 就成了 NaN，从此污染 ℓ 和 o。"
              "真实的 kernel 会跳过这种 tile，或者给指数设防：滚动最大值还是 −∞ 时用 0 代替它，于是 "
              "exp(−∞ − 0) = 0，这个 tile 什么也不贡献。"},

    # 7. tile size
    "quiz.tile_q": {"en": "What does the tile size decide?", "zh": "tile 的大小决定了什么？"},
    "quiz.tile_a": {"en": "The output: smaller tiles give a more accurate answer, as fewer scores share a maximum",
                    "zh": "输出本身：tile 越小答案越准确，因为共享一个最大值的分数更少"},
    "quiz.tile_b": {"en": "What sits on chip at once and how often data crosses HBM; not the result",
                    "zh": "一次放在片上的数据量、以及数据经过 HBM 的趟数；不影响结果"},
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
    "quiz.order_b": {"en": "It keeps all of K and V in SRAM", "zh": "它把全部 K 和 V 都放在 SRAM 里"},
    "quiz.order_c": {"en": "It skips the online softmax", "zh": "它不需要在线 softmax"},
    "quiz.order_d": {"en": "Each program owns its query rows, so O is written once, by one program",
                     "zh": "每个 program 独占自己的 query 行，O 只由一个 program 写一次"},
    "quiz.order_why": {
        "en": "With key/value blocks outside, every pass touches all output rows, so O, m and ℓ go back to HBM "
              "after each block and the passes cannot run side by side. With query blocks outside, each block of "
              "rows is an independent program (times batch × heads) that streams all keys and stores its output "
              "once.",
        "zh": "若外层是 key/value 块，每一趟都要更新所有输出行，O、m、ℓ 每处理一块就要写回 HBM，各趟之间也无法并行。"
              "若外层是 query 块，每组行都是一个独立的 program（再乘以 batch × 头数），它流式读完所有 key，"
              "最后只写一次输出。"},

    # 9. flash-decoding
    "quiz.decode_q": {"en": "Decoding one token with B = {dec_b} and H = {dec_h} heads on an {gpu}: why does "
                            "FlashAttention-2's kernel leave most of the GPU idle?",
                      "zh": "在 {gpu} 上以 B = {dec_b}、H = {dec_h} 个头解码一个 token：为什么 FlashAttention-2 的 kernel "
                            "让 GPU 大部分闲着？"},
    "quiz.decode_a": {"en": "It launches one program per query block and head: {dec_p} for {sms} SMs",
                      "zh": "它每个 query 块、每个头启动一个 program：{sms} 个 SM 只有 {dec_p} 个"},
    "quiz.decode_b": {"en": "The one query's scores no longer fit in shared memory, so every tile goes through HBM",
                      "zh": "这一个 query 的分数放不进共享内存了，所以每个 tile 都要经过 HBM"},
    "quiz.decode_c": {"en": "A single row's softmax cannot be tiled", "zh": "单独一行的 softmax 无法分块计算"},
    "quiz.decode_d": {"en": "The K/V cache must be read in fp32", "zh": "K/V 缓存必须以 fp32 读取"},
    "quiz.decode_why": {
        "en": "With one query per sequence, FlashAttention-2's grid (query blocks × batch × heads) has B·H = "
              "{dec_p} programs, and each runs on one SM: {dec_pct} % of the {sms}. Flash-decoding also splits the "
              "keys over W workers ({dec_pw} programs at W = {dec_w}, {dec_pwpct} %) and merges their (m, ℓ, o) "
              "with the online softmax's own rescale, so the answer is unchanged.",
        "zh": "每条序列只有一个 query 时，FlashAttention-2 的网格（query 块 × batch × 头）只有 B·H = {dec_p} 个 program，"
              "每个占一个 SM：{sms} 个中的 {dec_pct} %。Flash-decoding 再把 key 切给 W 个 worker（W = {dec_w} 时 "
              "{dec_pw} 个 program，{dec_pwpct} %），并用在线 softmax 自己的重缩放合并它们的 (m, ℓ, o)，答案不变。"},

    # 10. paging
    "quiz.paged_q": {"en": "With a paged KV cache, keys and values sit in fixed-size blocks anywhere in memory. What "
                           "changes in the attention loop?",
                     "zh": "使用分页 KV 缓存时，key 和 value 存放在显存各处的固定大小的块里。注意力循环要改什么？"},
    "quiz.paged_a": {"en": "The blocks are first copied into one contiguous buffer",
                     "zh": "先把这些块拷回一块连续的缓冲区"},
    "quiz.paged_b": {"en": "The softmax is computed twice, once per page", "zh": "softmax 要算两遍，每页一遍"},
    "quiz.paged_c": {"en": "A tile looks up its block in a block table; the rest is unchanged",
                     "zh": "每个 tile 先在 block table 里查到它的块，其余不变"},
    "quiz.paged_d": {"en": "It cannot work: attention needs contiguous keys", "zh": "行不通：注意力需要连续存放的 key"},
    "quiz.paged_why": {
        "en": "The loop already visits the keys one tile at a time, so a tile need not sit next to the previous "
              "one: look up block_table[b], load that physical block, run the recurrence. The paged answer equals "
              "the contiguous one up to rounding, which the decoding page checks.",
        "zh": "循环本来就是一个 tile 一个 tile 地访问 key，所以一个 tile 不必紧挨着上一个：查 block_table[b]，载入那个物理"
              "块，执行递推。分页的结果与连续存放的结果在舍入误差内一致，解码页会检查这一点。"},

    # 11. which variants skip blocks
    "quiz.skip_q": {"en": "Which of these variants lets a kernel skip whole Br × Bc blocks of work?",
                    "zh": "下面哪种变体能让 kernel 跳过整块 Br × Bc 的计算？"},
    "quiz.skip_a": {"en": "A softcap, because it bounds every score to (−c, c), so that small scores can be dropped",
                    "zh": "softcap，因为它把每个分数限制在 (−c, c) 之内，小分数就可以丢掉"},
    "quiz.skip_b": {"en": "A sliding window or packed documents", "zh": "滑动窗口或打包文档"},
    "quiz.skip_c": {"en": "ALiBi, because distant keys score lower", "zh": "ALiBi，因为远处的 key 分数更低"},
    "quiz.skip_d": {"en": "Grouped-query attention", "zh": "分组查询注意力 GQA"},
    "quiz.skip_why": {
        "en": "Only visibility skips work: a block without a single visible (query, key) pair is never loaded, "
              "and a window or document boundaries leave many such blocks. A softcap and ALiBi change the scores "
              "inside a block and GQA shares K/V heads; none of them changes which blocks run.",
        "zh": "只有“可见性”能省掉计算：一个块里若没有任何可见的 (query, key) 对，就根本不会被加载，而窗口或文档边界会"
              "留下很多这样的块。softcap 和 ALiBi 改的是块内的分数，GQA 是共享 K/V 头；它们都不改变哪些块要算。"},

    # 12. GQA
    "quiz.gqa_q": {"en": "Grouped-query attention with {gqa_h} query heads sharing {gqa_hkv} K/V heads: what gets "
                         "smaller?",
                   "zh": "分组查询注意力中 {gqa_h} 个 query 头共享 {gqa_hkv} 个 K/V 头：什么变小了？"},
    "quiz.gqa_a": {"en": "The scores each query head computes, as the query heads of a group are merged into one",
                   "zh": "每个 query 头要算的分数，因为一组里的 query 头被合并成了一个"},
    "quiz.gqa_b": {"en": "The head dimension d", "zh": "头维度 d"},
    "quiz.gqa_c": {"en": "Nothing: it only renames the heads", "zh": "什么都没变：只是给头换了个名字"},
    "quiz.gqa_d": {"en": "The K/V cache, {gqa_ratio}× smaller", "zh": "K/V 缓存，只有原来的 1/{gqa_ratio}"},
    "quiz.gqa_why": {
        "en": "Every query head still computes its own scores against the keys, so the FLOPs do not change; what "
              "shrinks is what is stored and read for K and V: {gqa_hkv} heads instead of {gqa_h}, a K/V cache "
              "{gqa_ratio}× smaller, which is what decoding reads for every new token.",
        "zh": "每个 query 头仍然要和 key 算自己的分数，所以 FLOPs 不变；变小的是 K、V 要存和要读的量：{gqa_hkv} 个头而不是 "
              "{gqa_h} 个，K/V 缓存只有原来的 1/{gqa_ratio}，而解码时每生成一个 token 都要读一遍它。"},

    # 13. ring: zigzag
    "quiz.zigzag_q": {"en": "Ring attention over {ring_w} GPUs with a causal mask: why give GPU r the chunks r and "
                            "{ring_last} − r (zigzag) rather than chunk r alone?",
                      "zh": "在 {ring_w} 块 GPU 上做带因果掩码的环形注意力：为什么让 GPU r 拿第 r 段和第 {ring_last} − r 段"
                            "（之字形），而不是只拿第 r 段？"},
    "quiz.zigzag_a": {"en": "So that every GPU works at every step", "zh": "让每块 GPU 每一步都有活干"},
    "quiz.zigzag_b": {"en": "Zigzag sends fewer bytes over the links, since late chunks need no K/V from early GPUs",
                      "zh": "之字形在链路上传的字节更少，因为后面的段不需要前面 GPU 的 K/V"},
    "quiz.zigzag_c": {"en": "Without it the result would not be exact", "zh": "不这样切，结果就不精确"},
    "quiz.zigzag_d": {"en": "It halves the memory each GPU needs", "zh": "它让每块 GPU 需要的显存减半"},
    "quiz.zigzag_why": {
        "en": "With a causal mask a key chunk later than a query chunk is skipped. Cut contiguously, GPU 0 owns "
              "the earliest queries and has nothing to do once later blocks arrive: {idle_c} of the {ring_slots} "
              "(GPU, step) slots are idle at W = {ring_w}. One early and one late chunk per GPU evens the work out: "
              "{idle_z} idle slots. The bytes sent and the result are the same either way.",
        "zh": "加上因果掩码后，晚于 query 段的 key 段会被跳过。连续切分时，GPU 0 拿的是最早的 query，后来的块一到就无事"
              "可做：W = {ring_w} 时 {ring_slots} 个（GPU，步）中有 {idle_c} 个空闲。每块 GPU 一早一晚各拿一段，工作量就"
              "均衡了：{idle_z} 个空闲。两种切法传的字节和结果都一样。"},

    # 14. ring: memory
    "quiz.ringmem_q": {"en": "A plain ring over 2 GPUs: how much memory does each GPU need, against one GPU running "
                             "the whole forward?",
                       "zh": "两块 GPU 上的普通环：每块 GPU 需要的显存，与一块 GPU 跑完整个前向相比是多少？"},
    "quiz.ringmem_a": {"en": "Exactly half, since each GPU holds half of q, k, v and the output and nothing else",
                       "zh": "正好一半，因为每块 GPU 只持有一半的 q、k、v 和输出，别的什么都没有"},
    "quiz.ringmem_b": {"en": "A quarter, because K and V are passed on", "zh": "四分之一，因为 K 和 V 被传走了"},
    "quiz.ringmem_c": {"en": "More than half: {ring_frac}× at least", "zh": "多于一半：不低于单 GPU 的 {ring_frac} 倍"},
    "quiz.ringmem_d": {"en": "Twice as much", "zh": "两倍"},
    "quiz.ringmem_why": {
        "en": "One GPU holds q, k, v and the output. A ring GPU holds its half of q, k, v, and also the K/V block "
              "arriving while it computes on the one it has, an output accumulator and one block's output: "
              "{ring_frac}× one GPU's bytes, or {ring_frac_z}× with the zigzag layout and a causal mask (it copies "
              "half-shard slices). Sending each block in sub-chunks keeps the block in flight small.",
        "zh": "一块 GPU 持有 q、k、v 和输出。环中一块 GPU 除了自己那一半 q、k、v，还持有计算手上这块时正在到达的 K/V 块、"
              "一个输出累加器和一个块的输出：是单 GPU 的 {ring_frac} 倍；之字形加因果掩码时是 {ring_frac_z} 倍（它还要复制"
              "半个分片的切片）。把每个块分成子块发送，可以让在途的块保持很小。"},

    # 15. hardware: the register file
    "quiz.regs_q": {"en": "On an {gpu} SM, which on-chip storage is the largest, and holds S, P and the output "
                          "accumulator in FlashAttention-2 and -3?",
                    "zh": "在 {gpu} 的一个 SM 上，哪种片上存储最大，并在 FlashAttention-2 和 -3 中存放 S、P 和输出累加器？"},
    "quiz.regs_a": {"en": "Shared memory: registers are too small for the tiles", "zh": "共享内存：寄存器放不下这些 tile"},
    "quiz.regs_b": {"en": "The register file: {regs} KiB, against {smem} KiB of shared memory",
                    "zh": "寄存器文件：{regs} KiB，而共享内存是 {smem} KiB"},
    "quiz.regs_c": {"en": "The L2 cache, which all SMs share", "zh": "所有 SM 共享的 L2 缓存"},
    "quiz.regs_d": {"en": "HBM: nothing fits on the chip", "zh": "HBM：片上什么都放不下"},
    "quiz.regs_why": {
        "en": "An {gpu} SM has {regs} KiB of registers and at most {smem} KiB of shared memory. FlashAttention-2 "
              "and -3 keep each warp's share of S, P and the running output in registers; shared memory holds the "
              "Q, K and V tiles the tensor cores read. The linked page draws the memory hierarchy.",
        "zh": "{gpu} 的一个 SM 有 {regs} KiB 寄存器，共享内存最多 {smem} KiB。FlashAttention-2 和 -3 把每个 warp 负责的 S、P "
              "和累积中的输出放在寄存器里；共享内存存放张量核心要读的 Q、K、V 的 tile。链接的页面画出了存储层次。"},

    # 16. hardware: memory-bound
    "quiz.membound_q": {"en": "Why is standard attention memory-bound on an {gpu} (N = {naive_n}, d = {naive_d}, "
                              "fp16)?",
                        "zh": "为什么标准注意力在 {gpu} 上（N = {naive_n}、d = {naive_d}、fp16）受显存带宽限制？"},
    "quiz.membound_a": {"en": "Its matrix multiplies cannot use the tensor cores, so they run on the ordinary ALUs",
                        "zh": "它的矩阵乘法用不上张量核心，只能在普通的运算单元上执行"},
    "quiz.membound_b": {"en": "Because the softmax needs fp32", "zh": "因为 softmax 需要 fp32"},
    "quiz.membound_c": {"en": "Its N×N matrices cross HBM: {naive_int} FLOP per byte", "zh": "N×N 矩阵要经过 HBM：每字节 {naive_int} FLOP"},
    "quiz.membound_d": {"en": "It is not: it is compute-bound", "zh": "并不是：它受计算能力限制"},
    "quiz.membound_why": {
        "en": "It writes the scores S and the probabilities P to HBM and reads them back: 4·N²·d FLOPs over about "
              "4·N² elements of traffic, {naive_int} FLOP per byte in fp16, while the {gpu} needs {ridge} FLOP per "
              "byte (its peak FLOP/s over its HBM bandwidth) to keep the tensor cores busy.",
        "zh": "它把分数 S 和概率 P 写入 HBM 再读回来：4·N²·d 次 FLOP 对应约 4·N² 个元素的读写，fp16 下每字节 {naive_int} "
              "FLOP，而 {gpu} 要每字节 {ridge} FLOP（峰值 FLOP/s 除以 HBM 带宽）才能让张量核心忙起来。"},

    # 17. hardware: the roofline
    "quiz.roofline_q": {"en": "On a roofline plot, what decides whether a kernel is memory-bound or compute-bound?",
                        "zh": "在 roofline 图上，什么决定一个 kernel 受显存带宽限制还是受计算能力限制？"},
    "quiz.roofline_a": {"en": "Its FLOP per HBM byte against the ridge point", "zh": "它每字节 HBM 的 FLOP 数与脊点的比较"},
    "quiz.roofline_b": {"en": "Its run time: a kernel that finishes within a millisecond is memory-bound by definition",
                        "zh": "它的运行时间：一毫秒内跑完的 kernel 按定义就受显存带宽限制"},
    "quiz.roofline_c": {"en": "The number of SMs it uses", "zh": "它用到的 SM 数"},
    "quiz.roofline_d": {"en": "Whether it is written in Triton or CUDA", "zh": "它是用 Triton 还是 CUDA 写的"},
    "quiz.roofline_why": {
        "en": "A kernel cannot run faster than min(peak FLOP/s, bandwidth × FLOP per byte). Below the ridge point, "
              "peak ÷ bandwidth ({ridge} FLOP per byte on the {gpu}), the bandwidth roof binds; above it the "
              "compute roof does.",
        "zh": "一个 kernel 的速度不会超过 min(峰值 FLOP/s, 带宽 × 每字节 FLOP 数)。低于脊点（峰值 ÷ 带宽，{gpu} 上为每字节 "
              "{ridge} FLOP）时带宽是上限；高于它时计算能力是上限。"},

    # 18. inside: why ping-pong
    "quiz.pingpong_q": {"en": "Why does FlashAttention-3 let two consumer warpgroups take turns (ping-pong) on a "
                              "Hopper GPU?",
                        "zh": "为什么 FlashAttention-3 在 Hopper GPU 上让两个消费者 warpgroup 轮流工作（乒乓调度）？"},
    "quiz.pingpong_a": {"en": "To halve the shared memory, since only one of the two warpgroups holds a tile at a time",
                        "zh": "为了把共享内存减半，因为两个 warpgroup 同一时刻只有一个持有 tile"},
    "quiz.pingpong_b": {"en": "An SM runs one warpgroup's matmul per kernel", "zh": "一个 SM 每个 kernel 只能跑一个 warpgroup 的矩阵乘法"},
    "quiz.pingpong_c": {"en": "To avoid rescaling by α", "zh": "为了避免用修正系数 α 重缩放"},
    "quiz.pingpong_d": {"en": "Exponentials run on the slow SFU", "zh": "指数运算在慢速的 SFU 上执行"},
    "quiz.pingpong_why": {
        "en": "An SM does {tc} dense fp16 FLOP per clock on its tensor cores but only {sfu} exponentials per clock "
              "on its special-function unit (SFU). One (query, key) pair costs 4·d FLOP and one exponential, so a "
              "tile's exponentials take {r128}× the cycles of its matmuls at d = 128 ({r64}× at d = 64). While one "
              "warpgroup computes its softmax, the other's matmuls keep the tensor cores busy.",
        "zh": "一个 SM 的张量核心每个时钟周期能做 {tc} 次稠密 fp16 FLOP，而特殊函数单元（SFU）每个时钟周期只能算 {sfu} 次"
              "指数。一个 (query, key) 对需要 4·d 次 FLOP 和一次指数，所以 d = 128 时一个 tile 的指数运算所需周期是其矩阵乘法"
              "的 {r128} 倍（d = 64 时是 {r64} 倍）。一个 warpgroup 算 softmax 时，另一个的矩阵乘法让张量核心保持忙碌。"},
}
