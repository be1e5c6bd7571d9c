"""Strings of the page "Variants" (flashviz/ui/variants.py) and its charts (charts/variants.py).
Terms: 滑动窗口 (sliding window), 软上限 softcap, 分组查询注意力 GQA, 打包文档 (packed documents), 块 (block)."""

STRINGS = {
    "variants.nav": {"en": "Variants", "zh": "注意力变体"},
    "variants.title": {"en": "Attention variants: which keys, what scores",
                       "zh": "注意力变体：看哪些 key，怎么打分"},
    "variants.intro": {
        "en": "A variant either limits which keys a query may see (a causal bound, a sliding window as in Mistral 7B "
              "and Gemma 2 and 3, packed documents), so that whole Br × Bc blocks are skipped, or changes the score "
              "itself (a softcap as in Gemma 2, ALiBi as in BLOOM and MPT, grouped-query attention as in Llama 2 70B "
              "and Llama 3), which skips no block. The same online softmax runs on the blocks that remain, and a "
              "kernel saves time only in whole blocks.",
        "zh": "一种变体要么限制 query 能看到哪些 key（因果约束；滑动窗口，如 Mistral 7B 和 Gemma 2、3；打包文档），"
              "于是整块 Br × Bc 可以跳过；要么改变分数本身（softcap，如 Gemma 2；ALiBi，如 BLOOM 和 MPT；分组查询注意力"
              " GQA，如 Llama 2 70B 和 Llama 3），这类变体不跳过任何块。剩下的块上跑的是同一个在线 softmax，而 kernel 只能"
              "按整块省时间。"},
    "variants.shown": {
        "en": "Shown: {label}, N = {n} in blocks of Br × Bc = {br} × {bc} (change the variant below).",
        "zh": "图中：{label}，N = {n}，块大小 Br × Bc = {br} × {bc}（可在下方修改变体）。"},
    "variants.fix_input": {"en": "Correct the value and the page comes back.", "zh": "改正这个值，页面就会恢复。"},
    "variants.bad_file": {"en": "{name} is not a valid variants recording and is skipped: {msg}",
                          "zh": "{name} 不是有效的变体测量文件，已跳过：{msg}"},

    # controls
    "variants.cfg_header": {"en": "Change the variant: mask, window, documents, softcap, ALiBi, GQA, sizes",
                            "zh": "修改变体：掩码、窗口、文档、softcap、ALiBi、GQA、尺寸"},
    "variants.n_help": {"en": "Sequence length, 16 to {hi} (queries = keys).", "zh": "序列长度，16 到 {hi}（query 数等于 key 数）。"},
    "variants.br_help": {"en": "Query rows per block (1 to N).", "zh": "每个块的 query 行数（1 到 N）。"},
    "variants.bc_help": {"en": "Keys per block, also the tile of the row below (1 to N).",
                         "zh": "每个块的 key 数，也是下面单行演示的 tile 大小（1 到 N）。"},
    "variants.causal": {"en": "Causal", "zh": "因果掩码"},
    "variants.causal_help": {"en": "Window (−1, 0): a query sees no later key. Combines with a window by intersection.",
                             "zh": "相当于窗口 (−1, 0)：query 看不到后面的 key。与窗口同时开启时取交集。"},
    "variants.use_window": {"en": "Sliding window", "zh": "滑动窗口"},
    "variants.left": {"en": "left", "zh": "左宽 left"},
    "variants.right": {"en": "right", "zh": "右宽 right"},
    "variants.lr_help": {"en": "Query i sees key j iff i − left ≤ j ≤ i + right; −1 means unbounded.",
                         "zh": "query i 能看到 key j 当且仅当 i − left ≤ j ≤ i + right；−1 表示这一侧不设限。"},
    "variants.alibi": {"en": "ALiBi", "zh": "ALiBi"},
    "variants.alibi_help": {"en": "Adds −slope_h·|i − j| to every score, with the standard geometric slopes for H heads.",
                            "zh": "给每个分数加上 −slope_h·|i − j|，斜率取 H 个头的标准几何序列。"},
    "variants.use_softcap": {"en": "Softcap", "zh": "softcap"},
    "variants.softcap": {"en": "cap c", "zh": "上限 c"},
    "variants.softcap_help": {"en": "s → c·tanh(s / c), before ALiBi and the mask; c must be above 0.",
                              "zh": "s → c·tanh(s / c)，在 ALiBi 和掩码之前执行；c 必须大于 0。"},
    "variants.heads": {"en": "query heads H", "zh": "query 头数 H"},
    "variants.heads_help": {"en": "Query heads: ALiBi's slopes and the K/V bytes depend on it.",
                            "zh": "query 头的数量：ALiBi 斜率和 K/V 字节数都与它有关。"},
    "variants.group": {"en": "GQA group size", "zh": "GQA 组大小"},
    "variants.group_help": {"en": "Query heads per K/V head: 1 = MHA, H = MQA; it must divide H.",
                            "zh": "每个 K/V 头服务的 query 头数：1 即 MHA，等于 H 即 MQA；必须整除 H。"},
    "variants.use_docs": {"en": "Packed documents", "zh": "打包文档"},
    "variants.docs": {"en": "document lengths", "zh": "各文档长度"},
    "variants.docs_help": {"en": "Whole numbers that sum to N, e.g. 96 64 96; attention stays inside each document.",
                           "zh": "几个整数，和必须等于 N，例如 96 64 96；注意力只在同一文档内部进行。"},
    "variants.l_causal": {"en": "causal", "zh": "因果"},
    "variants.l_window": {"en": "window ({left}, {right})", "zh": "窗口 ({left}, {right})"},
    "variants.l_softcap": {"en": "softcap {c}", "zh": "softcap {c}"},
    "variants.l_gqa": {"en": "GQA H_kv = {hkv}", "zh": "GQA H_kv = {hkv}"},
    "variants.l_docs": {"en": "{k} documents", "zh": "{k} 个文档"},
    "variants.l_dense": {"en": "dense", "zh": "稠密"},

    # blocks and savings
    "variants.save_header": {"en": "For students: the work and the HBM traffic this variant saves",
                             "zh": "给学生：这个变体省下的计算量与 HBM 读写"},
    "variants.batch": {"en": "batch B (for the byte and FLOP counts)", "zh": "批大小 B（用于字节数和 FLOPs）"},
    "variants.batch_help": {"en": "1 to 1024.", "zh": "1 到 1024。"},
    "variants.map_text": {
        "en": "**{run} of {total} blocks run** ({partial} partial, {full} full); {skipped} are skipped without loading "
              "anything. A program (one Q block) runs {lo} to {hi} of its {tc} K/V blocks.",
        "zh": "**{total} 个块中有 {run} 个需要计算**（{partial} 个部分可见，{full} 个完全可见）；其余 {skipped} 个块"
              "连数据都不用加载。每个 program（一个 Q 块）要处理的 K/V 块在 {lo} 到 {hi} 个之间（共 {tc} 个）。"},
    "variants.met_flops": {"en": "Executed FLOPs vs dense", "zh": "实际 FLOPs 占稠密"},
    "variants.met_bytes": {"en": "HBM bytes vs dense", "zh": "HBM 字节占稠密"},
    "variants.met_bytes_help": {"en": "Reads and writes of Q, K, V and O in FlashAttention-2's loop order.",
                                "zh": "按 FlashAttention-2 的循环顺序读写 Q、K、V 和 O 的字节数。"},
    "variants.cost_text": {
        "en": "B = {b}, H = {h}, d = {d}, {dtype}: dense {dense} GFLOP, executed (whole run blocks) {exec} GFLOP, useful "
              "(visible pairs only) {useful} GFLOP; HBM {dbytes} dense vs {vbytes}.",
        "zh": "B = {b}，H = {h}，d = {d}，{dtype}：稠密 {dense} GFLOP，实际执行（整块计算）{exec} GFLOP，有用部分（只算可见的"
              "位置对）{useful} GFLOP；HBM 读写稠密为 {dbytes}，本变体为 {vbytes}。"},
    "variants.same_blocks": {
        "en": "Softcap, ALiBi and GQA leave this map unchanged: they change the numbers inside a block, not which "
              "blocks run. Only the window, the causal bound and the documents skip blocks.",
        "zh": "softcap、ALiBi 和 GQA 不会改变这张块图：它们改的是块内部的数值，而不是哪些块要算。能跳过块的只有窗口、"
              "因果约束和文档边界。"},
    "variants.from_blocks": {"en": "Sliding windows and packed documents skip more blocks than causal: the Variants page",
                             "zh": "滑动窗口和打包文档能比因果掩码跳过更多的块：见“注意力变体”页"},
    "variants.link_blocks": {"en": "The block schedule and its HBM traffic, step by step",
                             "zh": "逐步查看块调度及其 HBM 读写"},

    # one row
    "variants.row_header": {"en": "For students: one query row under the variant, tile by tile",
                            "zh": "给学生：变体下的一行 query，逐个 tile 看"},
    "variants.row": {"en": "query row i", "zh": "query 行 i"},
    "variants.head": {"en": "head h (ALiBi slope)", "zh": "头 h（决定 ALiBi 斜率）"},
    "variants.row_tiles": {
        "en": "Row {row} streams {tc} tiles; {empty} of them hold no visible key (the first visible key is {lo}; "
              "{vis} keys are visible). After its first visible tile the running max m moves up at {resc} of its "
              "tiles ({resc0} in plain attention); each move multiplies ℓ and o by α = exp(m_old − m_new).",
        "zh": "第 {row} 行依次处理 {tc} 个 tile，其中 {empty} 个 tile 里没有任何可见的 key（第一个可见的 key 是 {lo}，"
              "共 {vis} 个可见）。在第一个有可见 key 的 tile 之后，滚动最大值 m 在其中 {resc} 个 tile 上变大（普通注意力中为 "
              "{resc0} 个）；每变一次，ℓ 和 o 都要乘以修正系数 α = exp(m_old − m_new)。"},
    "variants.row_softcap": {"en": "Softcap c = {c}: the largest m of this row is {m} and can never exceed c; "
                                   "without the cap it reaches {m0}.",
                             "zh": "softcap c = {c}：这一行的 m 最大为 {m}，永远不会超过 c；不加上限时 m 可以达到 {m0}。"},
    "variants.row_alibi": {"en": "ALiBi, head {h}: slope {s}; the farthest visible key is {dist} positions away, so "
                                 "its score is lowered by {drop}.",
                           "zh": "ALiBi，第 {h} 个头：斜率 {s}；最远的可见 key 相距 {dist} 个位置，它的分数因此被降低 {drop}。"},
    "variants.row_gqa": {"en": "GQA changes no score: query head {h} reads K/V head {kv} (= h // {g}).",
                         "zh": "GQA 不改变任何分数：第 {h} 个 query 头读取第 {kv} 个 K/V 头（= h // {g}）。"},
    "variants.row_err": {"en": "After the last tile, o/ℓ equals the textbook softmax of the modified row "
                               "(max difference {err}).",
                         "zh": "处理完最后一个 tile 后，o/ℓ 与对修改后的整行直接做 softmax 的结果一致（最大差 {err}）。"},
    "variants.step_text": {
        "en": "**Tile {s} of {tc}** · keys {a}–{b} · tile max {tmax} · m = {m} · α = {alpha} · ℓ = {l}",
        "zh": "**第 {s} / {tc} 个 tile** · key {a}–{b} · tile 内最大值 {tmax} · m = {m} · α = {alpha} · ℓ = {l}"},
    "variants.col_tile": {"en": "tile", "zh": "tile"},
    "variants.col_keys": {"en": "keys", "zh": "key 范围"},
    "variants.col_tmax": {"en": "tile max", "zh": "tile 内最大值"},
    "variants.link_stepper": {"en": "The online softmax of one row, tile by tile", "zh": "逐个 tile 查看单行的在线 softmax"},

    # GQA
    "variants.gqa_header": {"en": "For model builders: GQA's K/V bytes against MHA",
                            "zh": "给模型设计者：GQA 与 MHA 相比的 K/V 字节数"},
    "variants.met_cache_mha": {"en": "K/V cache, MHA", "zh": "K/V 缓存（MHA）"},
    "variants.met_cache_gqa": {"en": "K/V cache, H_kv = {hkv}", "zh": "K/V 缓存（H_kv = {hkv}）"},
    "variants.met_reads": {"en": "K/V reads, one program per group", "zh": "K/V 读取（每组一个 program）"},
    "variants.gqa_text": {
        "en": "{h} query heads share {hkv} K/V heads ({g} per group): the cache is {ratio}× smaller. In the FA2 order "
              "each program streams its K/V blocks; if every query head's program loads them itself, the K/V reads "
              "stay {per} as in MHA; a program that serves its whole group reads {shared}.",
        "zh": "{h} 个 query 头共享 {hkv} 个 K/V 头（每组 {g} 个）：缓存缩小为原来的 1/{ratio}。在 FA2 顺序下每个 program 依次读入"
              "它的 K/V 块；如果每个 query 头的 program 各读各的，K/V 读取量仍是 {per}，与 MHA 相同；如果一个 program 负责整组，"
              "读取量降为 {shared}。"},
    "variants.gqa_none": {"en": "Group size 1 is MHA: each of the {h} query heads has its own K/V head, and the FA2 "
                                "order streams {per} of K/V. Set a group size above 1 to share K/V heads.",
                          "zh": "组大小为 1 就是 MHA：{h} 个 query 头各有自己的 K/V 头，FA2 顺序下 K/V 读取量为 {per}。"
                                "把组大小设为大于 1，即可让多个头共享 K/V。"},
    "variants.link_decoding": {"en": "Decoding reads the K/V cache once per token", "zh": "解码时每个 token 都要读一遍 K/V 缓存"},

    # the recording
    "variants.rec_header": {"en": "For kernel engineers: ours against FlexAttention and SDPA, measured on an H200",
                            "zh": "给 kernel 工程师：我们的 kernel 与 FlexAttention、SDPA 在 H200 上的实测对比"},
    "variants.no_recording": {
        "en": "No recorded measurement yet: this app has no variants dataset. One is recorded on a GPU machine with:",
        "zh": "还没有实测数据：本应用中还没有变体的测量数据集。可以在 GPU 机器上用下面的命令录制："},
    "variants.dataset": {"en": "Recording", "zh": "测量文件"},
    "variants.rec_shape": {"en": "B = {b}, H = {h}, d = {d}, {dtype}; every variant causal; window left {w}, softcap {c}, "
                                 "GQA H_kv = {hkv}. Flex compile time is kept out of the timing, and so is the "
                                 "block-level table each side builds once from the document ids (flex's block mask, "
                                 "our kernels' tile tables); the column 'new seq_ids each call' times ours rebuilding "
                                 "it every call.",
                           "zh": "B = {b}，H = {h}，d = {d}，{dtype}；所有变体都带因果掩码；窗口左宽 {w}，softcap {c}，"
                                 "GQA H_kv = {hkv}。flex 的编译时间不计入计时；双方根据文档 id 只建一次的块级表"
                                 "（flex 的 block mask、我们 kernel 的 tile 表）也不计入；“每次新 seq_ids”一列是我们每次"
                                 "调用都重建该表时的耗时。"},
    "variants.prov": {"en": "Device {device} · torch {torch} · triton {triton} · {date} · commit {commit} · timer {timer}",
                      "zh": "设备 {device} · torch {torch} · triton {triton} · {date} · 提交 {commit} · 计时 {timer}"},
    "variants.col_variant": {"en": "variant", "zh": "变体"},
    "variants.col_status": {"en": "status", "zh": "状态"},
    "variants.col_tf_useful": {"en": "TFLOP/s (useful)", "zh": "TFLOP/s（有用部分）"},
    "variants.col_tf_exec": {"en": "TFLOP/s (executed)", "zh": "TFLOP/s（实际执行）"},
    "variants.col_tiles": {"en": "tiles Br × Bc (executed FLOPs)", "zh": "分块 Br × Bc（实际执行 FLOPs 按此计）"},
    "variants.col_vs_flex": {"en": "speed-up vs flex", "zh": "相对 flex 的加速比"},
    "variants.col_vs_fa4": {"en": "speed-up vs FA4", "zh": "相对 FA4 的加速比"},
    "variants.col_compile": {"en": "compile s", "zh": "编译秒数"},
    "variants.col_new_ids": {"en": "ms, new seq_ids each call", "zh": "每次新 seq_ids 的毫秒"},
    "variants.col_err": {"en": "rel. error", "zh": "相对误差"},
    "variants.col_msg": {"en": "message", "zh": "说明"},
    "variants.window_account": {
        "en": "**Window {w} against dense causal at N = {n}**: ours ran **{speed}×** faster. Dense causal has "
              "{useful}× the visible (query, key) pairs, but a kernel works in tiles: at the {br} × {bc} tiles it "
              "ran, it has {exec}× the tiles (each query block still runs the partly visible tiles at both edges of "
              "its band), and the band's short loops reached {eff} of dense causal's executed TFLOP/s. A mask saves "
              "whole tiles, not pairs.",
        "zh": "**窗口 {w} 与稠密因果在 N = {n} 时对比**：我们的 kernel 速度是稠密因果的 **{speed} 倍**。稠密因果可见的 "
              "(query, key) 对是窗口的 {useful} 倍，但 kernel 按块计算：按它实际使用的 {br} × {bc} 分块，稠密因果要算的块"
              "是窗口的 {exec} 倍（每个 query 块仍要计算带状区域两端只部分可见的块），而带状区域里较短的循环只达到稠密因果"
              "实际执行 TFLOP/s 的 {eff}。掩码省下的是整块，而不是单个的对。"},
    "variants.link_speed": {"en": "Dense timings of every kernel", "zh": "各 kernel 在稠密注意力下的计时"},

    # charts
    "variants.kind_full": {"en": "full (no mask needed)", "zh": "完全可见（无需掩码）"},
    "variants.kind_partial": {"en": "partial (masked inside)", "zh": "部分可见（块内需掩码）"},
    "variants.kind_skipped": {"en": "skipped", "zh": "跳过"},
    "variants.hover_block": {"en": "Q block %{y}, K/V block %{x}", "zh": "Q 块 %{y}，K/V 块 %{x}"},
    "variants.map_title": {"en": "{label}: {run} of {total} blocks run ({partial} partial, {full} full)",
                           "zh": "{label}：{total} 个块中计算 {run} 个（部分可见 {partial}，完全可见 {full}）"},
    "variants.axis_kv": {"en": "K/V block j (Bc = {bc} keys)", "zh": "K/V 块 j（Bc = {bc} 个 key）"},
    "variants.axis_q": {"en": "Q block i (Br = {br} rows)", "zh": "Q 块 i（Br = {br} 行）"},
    "variants.bar_exec": {"en": "executed FLOPs", "zh": "实际执行的 FLOPs"},
    "variants.bar_useful": {"en": "useful FLOPs", "zh": "有用的 FLOPs"},
    "variants.bar_hbm": {"en": "HBM bytes", "zh": "HBM 字节数"},
    "variants.save_title": {"en": "Work and traffic as % of dense attention", "zh": "计算量与读写量占稠密注意力的百分比"},
    "variants.axis_pct": {"en": "% of dense", "zh": "占稠密的 %"},
    "variants.raw": {"en": "score q·k/√d", "zh": "原始分数 q·k/√d"},
    "variants.modified": {"en": "score under the variant", "zh": "变体处理后的分数"},
    "variants.masked": {"en": "masked key (−∞)", "zh": "被掩掉的 key（−∞）"},
    "variants.m_variant": {"en": "running max m (variant)", "zh": "滚动最大值 m（变体）"},
    "variants.m_plain": {"en": "running max m (plain)", "zh": "滚动最大值 m（普通注意力）"},
    "variants.row_title": {"en": "One row, key by key, in tiles of Bc = {bc}", "zh": "单行逐个 key 查看，每个 tile 有 Bc = {bc} 个 key"},
    "variants.axis_key": {"en": "key j", "zh": "key j"},
    "variants.axis_score": {"en": "score", "zh": "分数"},
    "variants.gqa_cache": {"en": "K/V cache", "zh": "K/V 缓存"},
    "variants.gqa_reads": {"en": "K/V reads (FA2 order)", "zh": "K/V 读取（FA2 顺序）"},
    "variants.gqa_mha": {"en": "MHA / each head loads its own", "zh": "MHA / 每个头各自读取"},
    "variants.gqa_gqa": {"en": "GQA, query heads per K/V head: {g}", "zh": "GQA，每个 K/V 头对应 {g} 个 query 头"},
    "variants.gqa_title": {"en": "K/V bytes: MHA vs GQA", "zh": "K/V 字节数：MHA 与 GQA"},
    "variants.axis_mib": {"en": "MiB", "zh": "MiB"},
    "variants.m_title": {"en": "Recorded forward time per variant, N = {n}", "zh": "各变体的实测前向时间，N = {n}"},
    "variants.axis_ms": {"en": "ms (median)", "zh": "毫秒（中位数）"},
    "variants.v_dense-causal": {"en": "dense causal", "zh": "稠密因果"},
    "variants.v_window": {"en": "window", "zh": "滑动窗口"},
    "variants.v_softcap": {"en": "softcap", "zh": "softcap"},
    "variants.v_alibi": {"en": "ALiBi", "zh": "ALiBi"},
    "variants.v_gqa": {"en": "GQA", "zh": "GQA"},
    "variants.v_docs": {"en": "packed docs", "zh": "打包文档"},
}
