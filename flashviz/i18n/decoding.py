"""Strings of the page "Flash-decoding and paging" (flashviz/ui/decoding.py); its charts' strings are blocks.dec_*
and blocks.paged_* (charts/blocks.py). Terms follow the seeds: flash-decoding, 分页, block table, 重缩放, worker."""

STRINGS = {
    "decoding.nav": {"en": "Flash-decoding and paging", "zh": "Flash-decoding 与分页"},
    "decoding.title": {"en": "Flash-decoding and paging", "zh": "Flash-decoding 与分页"},
    "decoding.intro": {
        "en": "At decode time each sequence brings one new query, so FlashAttention-2's grid, one program per "
              "query block and head, launches only B·H programs: far fewer than a GPU's SMs. Flash-decoding also "
              "splits the keys over W workers, each running the online softmax on its chunk, and merges their "
              "(m, ℓ, o) with the recurrence's own rescale: more programs, the same answer.",
        "zh": "解码时每条序列只带来一个新 query，所以 FlashAttention-2 的网格（每个 query 块、每个头一个 program）只启动 "
              "B·H 个 program，远少于 GPU 的 SM 数。Flash-decoding 再把 key 切给 W 个 worker，每个 worker 在自己那段上跑"
              "在线 softmax，最后用递推本身的重缩放合并它们的 (m, ℓ, o)：program 更多，答案不变。"},
    "decoding.grid": {
        "en": "**B = {b}, H = {h} on an {gpu} ({sms} SMs): {p1} programs, {s1} % of the SMs given work.** Split over "
              "W = {w} workers: {pw} programs, {sw} %{more}.",
        "zh": "**{gpu}（{sms} 个 SM）上 B = {b}、H = {h}：{p1} 个 program，只有 {s1} % 的 SM 有活干**。切给 W = {w} 个 "
              "worker：{pw} 个 program，{sw} %{more}。"},
    "decoding.grid_more": {"en": " (more programs than SMs: they run in {waves} waves)",
                           "zh": "（program 多于 SM，分 {waves} 轮执行）"},
    "decoding.merge_header": {"en": "For students: the merge, worker by worker", "zh": "给学生：逐个 worker 看合并"},
    "decoding.grid_header": {"en": "For kernel engineers: programs against SMs at other batch sizes",
                             "zh": "给 kernel 工程师：其他批大小下 program 数与 SM 数的对比"},
    "decoding.grid_text": {
        "en": "A decode step with H = {h} heads on an {gpu} ({sms} SMs), one query per sequence: FlashAttention-2 "
              "launches B·H programs, flash-decoding B·H·W (plus a small merge). Larger batches fill the GPU by "
              "themselves, and a split that makes more programs than SMs only adds waves.",
        "zh": "在 {gpu}（{sms} 个 SM）上、H = {h} 个头、每条序列一个 query 的解码步：FlashAttention-2 启动 B·H 个 "
              "program，flash-decoding 启动 B·H·W 个（外加一次很小的合并）。批更大时 GPU 自然会被填满；切分得到的 program "
              "多于 SM 时只会多出几轮。"},
    "decoding.col_programs": {"en": "programs", "zh": "program 数"},
    "decoding.col_busy": {"en": "SMs given work", "zh": "有活干的 SM"},
    "decoding.col_waves": {"en": "waves", "zh": "轮数"},
    "decoding.fix_input": {"en": "Correct the value and this section comes back.", "zh": "改正这个值，这一部分就会恢复。"},
    "decoding.describe": {
        "en": "Query row {row} · N = {n} keys · d = {d} · each worker streams its keys in tiles of up to {tile} · "
              "q, K, V from seed {seed}, rounded to {dtype}.",
        "zh": "查询行 {row} · N = {n} 个 key · d = {d} · 每个 worker 以最多 {tile} 个 key 为一个 tile 流式处理 · "
              "q、K、V 由种子 {seed} 生成并舍入到 {dtype}。"},
    "decoding.describe_typed": {
        "en": "Your typed scores · N = {n} keys · d = {d} · each worker streams its keys in tiles of up to {tile} · "
              "values V from seed {seed}, rounded to {dtype}.",
        "zh": "你输入的分数 · N = {n} 个 key · d = {d} · 每个 worker 以最多 {tile} 个 key 为一个 tile 流式处理 · "
              "value 由种子 {seed} 生成并舍入到 {dtype}。"},

    # flash-decoding
    "decoding.workers": {"en": "Workers W", "zh": "worker 数 W"},
    "decoding.workers_help": {"en": "Contiguous chunks of keys, sizes differing by at most one (the split takes at most N workers).",
                              "zh": "把 key 切成连续的若干段，各段长度最多相差 1（切分最多用 N 个 worker）。"},
    "decoding.workers_capped": {
        "en": "The H200 count above uses W = {w}; this row has only N = {n} keys, so the split below uses W = {n} "
              "workers of one key each.",
        "zh": "上面 H200 的计数用的是 W = {w}；这一行只有 N = {n} 个 key，所以下面的切分用 W = {n} 个 worker，"
              "每个只分到一个 key。"},
    "decoding.tree": {"en": "Merge as a tree", "zh": "按树形合并"},
    "decoding.tree_help": {"en": "Off: merge worker by worker, left to right. On: pairwise, as a GPU reduction would. Same answer up to "
                                 "rounding: the merge is associative and commutative.",
                           "zh": "关闭：从左到右逐个合并。开启：两两合并（像 GPU 归约那样）。结果在舍入误差内相同：合并满足结合律和交换律。"},
    "decoding.merge_rule": {
        "en": "Merging two states is the recurrence's rescale: m = max(m_a, m_b), ℓ = e^(m_a − m)·ℓ_a + "
              "e^(m_b − m)·ℓ_b, o = e^(m_a − m)·o_a + e^(m_b − m)·o_b; the answer is o / ℓ.",
        "zh": "合并两个状态用的就是递推里的重缩放：m = max(m_a, m_b)，ℓ = e^(m_a − m)·ℓ_a + e^(m_b − m)·ℓ_b，"
              "o = e^(m_a − m)·o_a + e^(m_b − m)·o_b；答案是 o / ℓ。"},
    "decoding.col_worker": {"en": "worker", "zh": "worker"},
    "decoding.col_keys": {"en": "keys", "zh": "key 范围"},
    "decoding.col_m": {"en": "m_w (its max)", "zh": "m_w（该段最大值）"},
    "decoding.col_l": {"en": "ℓ_w (its sum)", "zh": "ℓ_w（该段求和）"},
    "decoding.col_alpha": {"en": "rescale e^(m_w − m)", "zh": "修正系数 e^(m_w − m)"},
    "decoding.col_share": {"en": "share of the mass", "zh": "所占份额"},
    "decoding.col_m_run": {"en": "m after merging 0…w", "zh": "合并 0…w 后的 m"},
    "decoding.col_l_run": {"en": "ℓ after merging 0…w", "zh": "合并 0…w 后的 ℓ"},
    "decoding.ctr_workers": {"en": "Workers", "zh": "worker 数"},
    "decoding.ctr_diff": {"en": "Merged vs single pass", "zh": "合并结果 vs 单趟计算"},
    "decoding.ctr_diff_help": {"en": "max |o/ℓ merged − o/ℓ of one pass over all keys| over the d outputs.",
                               "zh": "d 个输出上 |合并后的 o/ℓ − 一趟遍历全部 key 的 o/ℓ| 的最大值。"},
    "decoding.ctr_exact": {"en": "Merged vs exact", "zh": "合并结果 vs 精确解"},
    "decoding.ctr_exact_help": {"en": "max |o/ℓ merged − softmax(s)·V computed the textbook way|.",
                                "zh": "|合并后的 o/ℓ − 按教科书方式算出的 softmax(s)·V| 的最大值。"},
    "decoding.same": {"en": "Merged == single pass: max difference {diff} (floating-point rounding only); against the "
                            "textbook softmax: {exact}.",
                      "zh": "合并结果 == 单趟计算：最大差 {diff}（只来自浮点舍入）；与教科书式 softmax 相比：{exact}。"},
    "decoding.differ": {"en": "Merged and single pass differ (max difference {diff}): look for NaN from a fully "
                              "masked worker with the guard off.",
                        "zh": "合并结果与单趟计算不一致（最大差 {diff}）：检查防护关闭时是否有整段被掩掉的 worker 产生了 NaN。"},

    # paged
    "decoding.paged_header": {"en": "For inference engineers: a paged KV cache, the same loop with one indirection",
                              "zh": "给推理工程师：分页 KV 缓存，同一个循环多一次间接寻址"},
    "decoding.paged_intro": {
        "en": "The keys and values live in fixed-size physical blocks scattered anywhere in memory (as vLLM "
              "allocates them); a block table maps each logical block to its physical block. Since the loop "
              "visits keys tile by tile anyway, the tiles need not be contiguous: look up block_table[b], load "
              "that block, run the recurrence. Free slots and the tail of the last block hold NaN, so touching "
              "one by mistake would show.",
        "zh": "key 和 value 存放在固定大小的物理块里，散落在显存各处（vLLM 就是这样分配的）；block table 把每个逻辑块"
              "映射到它的物理块。既然循环本来就是一个 tile 一个 tile 地访问 key，这些 tile 就不必连续：查 "
              "block_table[b]，载入那个块，执行递推。空闲的物理块和最后一块的尾部都填成 NaN，误读了就会露馅。"},
    "decoding.paged_code": {
        "en": "for b, p in enumerate(block_table):      # logical block b lives in physical block p\n"
              "    k_blk = k_cache[p, :n_b]             # the one indirection\n"
              "    v_blk = v_cache[p, :n_b]\n"
              "    s = k_blk @ q / sqrt(d)\n"
              "    m_new = max(m, s.max())              # ...inside the same recurrence\n"
              "    alpha = exp(m - m_new)\n"
              "    p_ = exp(s - m_new)\n"
              "    l, o, m = alpha * l + p_.sum(), alpha * o + p_ @ v_blk, m_new\n"
              "return o / l",
        "zh": "for b, p in enumerate(block_table):      # 逻辑块 b 存放在物理块 p\n"
              "    k_blk = k_cache[p, :n_b]             # 唯一的一次间接寻址\n"
              "    v_blk = v_cache[p, :n_b]\n"
              "    s = k_blk @ q / sqrt(d)\n"
              "    m_new = max(m, s.max())              # ……之后就是同一个递推\n"
              "    alpha = exp(m - m_new)\n"
              "    p_ = exp(s - m_new)\n"
              "    l, o, m = alpha * l + p_.sum(), alpha * o + p_ @ v_blk, m_new\n"
              "return o / l"},
    "decoding.block_size": {"en": "Block size (keys per block)", "zh": "块大小（每块的 key 数）"},
    "decoding.free": {"en": "Free physical blocks", "zh": "空闲物理块数"},
    "decoding.free_help": {"en": "Extra physical slots that hold no key (other sequences' blocks, in a real cache).",
                           "zh": "不存放本序列 key 的额外物理块（在真实缓存里属于其他序列）。"},
    "decoding.shuffle_seed": {"en": "Shuffle seed", "zh": "打乱种子"},
    "decoding.shuffle_seed_help": {"en": "Where each logical block lands among the physical blocks.",
                                   "zh": "决定每个逻辑块落在哪个物理块。"},
    "decoding.paged_seeded": {"en": "The paged cache stores the seeded K and V (typed scores have no keys to page).",
                              "zh": "分页缓存里存的是由种子生成的 K 和 V（手动输入的分数没有可分页的 key）。"},
    "decoding.paged_step": {
        "en": "**Step {i} of {n}** · logical block {b} → block_table[{b}] = {p} · keys {lo}–{hi} · after it: "
              "m = {m}, ℓ = {l}",
        "zh": "**第 {i} / {n} 步** · 逻辑块 {b} → block_table[{b}] = {p} · key {lo}–{hi} · 之后：m = {m}，ℓ = {l}"},
    "decoding.col_logical": {"en": "logical block b", "zh": "逻辑块 b"},
    "decoding.col_physical": {"en": "physical block p = block_table[b]", "zh": "物理块 p = block_table[b]"},
    "decoding.col_m_after": {"en": "m after", "zh": "之后的 m"},
    "decoding.col_l_after": {"en": "ℓ after", "zh": "之后的 ℓ"},
    "decoding.table_window": {"en": "Showing the first {k} of {n} blocks.", "zh": "只列出 {n} 个块中的前 {k} 个。"},
    "decoding.ctr_paged": {"en": "Paged vs contiguous", "zh": "分页 vs 连续存放"},
    "decoding.ctr_paged_help": {"en": "max |paged o/ℓ − the contiguous loop's o/ℓ| with the same tile size.",
                                "zh": "同样 tile 大小下 |分页 o/ℓ − 连续存放循环的 o/ℓ| 的最大值。"},
    "decoding.paged_same": {"en": "Paged == contiguous: max difference {diff}.", "zh": "分页 == 连续存放：最大差 {diff}。"},
    "decoding.paged_differ": {"en": "Paged and contiguous differ (max difference {diff}).",
                              "zh": "分页与连续存放的结果不一致（最大差 {diff}）。"},
}
