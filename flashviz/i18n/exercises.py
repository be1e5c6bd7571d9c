"""Strings of the Exercises page (flashviz/ui/exercises.py)."""

STRINGS = {
    "exercises.title": {"en": "Exercises", "zh": "动手练习"},
    "exercises.intro": {
        "en": "Work each one by hand or in a few lines of Python, then let the app check your answer against its "
              "engine. The worked solution waits behind each expander.",
        "zh": "每道题先用手算或几行 Python 求解，再让应用用它的引擎核对你的答案。每道题的解析都收在展开栏里。"},
    "exercises.check": {"en": "Check", "zh": "核对"},
    "exercises.run": {"en": "Run", "zh": "运行"},
    "exercises.measure": {"en": "Measure on this CPU and check", "zh": "在本机 CPU 上测量并核对"},
    "exercises.solution": {"en": "Worked solution", "zh": "解析"},
    "exercises.right": {"en": "{what}: right.", "zh": "{what}：正确。"},
    "exercises.wrong": {"en": "{what}: not quite; the engine gives {want}.", "zh": "{what}：不太对；引擎算出的是 {want}。"},
    "exercises.none": {"en": "none", "zh": "无"},
    "exercises.step": {"en": "step {s}", "zh": "第 {s} 步"},

    "exercises.field_m": {"en": "m", "zh": "m"},
    "exercises.field_l": {"en": "ℓ", "zh": "ℓ"},
    "exercises.field_out0": {"en": "output[0] = o[0] / ℓ", "zh": "输出[0] = o[0] / ℓ"},
    "exercises.field_row": {"en": "Query row", "zh": "查询行"},
    "exercises.field_masked": {"en": "Masked keys (padding)", "zh": "被掩掉的 key（padding）"},
    "exercises.field_naive": {"en": "Naive: peak at 8192 ÷ peak at 512", "zh": "朴素实现：8192 时的峰值 ÷ 512 时的峰值"},
    "exercises.field_tiled": {"en": "Tiled: scratch at 8192 ÷ scratch at 512",
                              "zh": "分块实现：8192 时的额外显存 ÷ 512 时的额外显存"},
    "exercises.field_naive_short": {"en": "naive growth", "zh": "朴素实现的增长"},
    "exercises.field_tiled_short": {"en": "tiled growth", "zh": "分块实现的增长"},
    "exercises.field_intensity": {"en": "Intensity (FLOP per HBM byte)", "zh": "算术强度（每个 HBM 字节的 FLOP）"},
    "exercises.field_bound": {"en": "Which roof binds?", "zh": "哪个屋顶起作用？"},
    "exercises.field_contiguous": {"en": "Speed-up, contiguous", "zh": "加速比，连续切分"},
    "exercises.field_zigzag": {"en": "Speed-up, zigzag", "zh": "加速比，之字形切分"},
    "exercises.bound_memory": {"en": "memory (bandwidth)", "zh": "内存（带宽）"},
    "exercises.bound_compute": {"en": "compute (tensor cores)", "zh": "算力（张量核心）"},
    "exercises.layout_contiguous": {"en": "Contiguous", "zh": "连续切分"},
    "exercises.layout_zigzag": {"en": "Zigzag", "zh": "之字形切分"},

    "exercises.tol_rel": {"en": "Checked to a relative {rel} (or {abs} absolute).",
                          "zh": "核对精度：相对误差 {rel}（或绝对误差 {abs}）。"},
    "exercises.tol_mem": {"en": "Checked against the measured growth to within {rel}%.",
                          "zh": "与实测的增长倍数相差 {rel}% 以内即算正确。"},
    "exercises.tol_roof": {"en": "Intensity checked to within {rel}%.", "zh": "算术强度相差 {rel}% 以内即算正确。"},
    "exercises.tol_ring": {"en": "Speed-ups checked to ±{abs}.", "zh": "加速比误差在 ±{abs} 以内即算正确。"},

    # flash-decoding
    "exercises.dec_header": {"en": "Flash-decoding with four workers", "zh": "四个 worker 的 flash-decoding"},
    "exercises.dec_task": {
        "en": "One query row (N = {n}, d = {d}) is split over {w} workers. Each ran the recurrence on its own keys and "
              "holds (m_w, ℓ_w, o_w) below. Merge them into one (m, ℓ, o) and give the first output component.",
        "zh": "一行 query（N = {n}，d = {d}）被分给 {w} 个 worker。每个 worker 在自己的 key 上跑完递推，持有下表中的 "
              "(m_w, ℓ_w, o_w)。把它们合并成一个 (m, ℓ, o)，并给出输出的第一个分量。"},
    "exercises.col_worker": {"en": "worker", "zh": "worker"},
    "exercises.col_keys": {"en": "keys", "zh": "key"},
    "exercises.dec_solution": {
        "en": "The merge is the recurrence's rescale. m = max_w m_w = {m}. Each worker's sums are rescaled by "
              "e^(m_w − m): ℓ = {terms} = {l}; o[0] = Σ e^(m_w − m)·o_w[0] = {o0}; output[0] = o[0] / ℓ = {out0}. "
              "The merged output matches the one-pass answer to {err}.",
        "zh": "合并就是递推里的那次重缩放。m = max_w m_w = {m}。每个 worker 的累加量乘以 e^(m_w − m)："
              "ℓ = {terms} = {l}；o[0] = Σ e^(m_w − m)·o_w[0] = {o0}；输出[0] = o[0] / ℓ = {out0}。"
              "合并后的输出与一次遍历的结果相差 {err}。"},

    # causal and the NaN
    "exercises.causal_header": {"en": "The causal mask on the tiled version, and its NaN",
                                "zh": "分块版本加上因果掩码，以及它的 NaN"},
    "exercises.causal_task": {
        "en": "First check that the tiled recurrence with the causal mask (N = 16, d = 4, Bc = 4) gives naive causal "
              "attention on every row.",
        "zh": "先验证：带因果掩码、逐个 tile 推进的递推（N = 16，d = 4，Bc = 4）在每一行上都与朴素的因果注意力一致。"},
    "exercises.causal_verify": {"en": "Compare every row with naive causal attention",
                                "zh": "逐行与朴素因果注意力比较"},
    "exercises.causal_verified": {"en": "Largest difference over all 16 rows: {err} (checked to {tol}).",
                                  "zh": "16 行中最大的差异：{err}（核对精度 {tol}）。"},
    "exercises.causal_task2": {
        "en": "Now make one row's **first** tile fully masked (pick the row, Bc and padding keys), and run it without "
              "the guard: reproduce the NaN. The guarded run is shown beside it.",
        "zh": "然后让某一行的**第一个** tile 被整块掩掉（选择行、Bc 和 padding 的 key），在不加防护的情况下运行："
              "复现那个 NaN。加了防护的结果也一并给出。"},
    "exercises.nan_tiles": {"en": "Fully masked tiles of this row: {tiles}.", "zh": "这一行被整块掩掉的 tile：{tiles}。"},
    "exercises.nan_reproduced": {
        "en": "Reproduced: without the guard the output is NaN (exp(−∞ − (−∞))). With the guard it matches the exact "
              "answer to {err}.",
        "zh": "复现成功：不加防护时输出是 NaN（exp(−∞ − (−∞))）。加上防护后，与精确答案相差 {err}。"},
    "exercises.nan_not_yet": {
        "en": "No NaN yet: this row's first tile still has a visible key. Mask all of its keys.",
        "zh": "还没有 NaN：这一行的第一个 tile 里仍有可见的 key。把它的所有 key 都掩掉。"},
    "exercises.causal_solution": {
        "en": "Causal masking alone never empties a first tile (every row sees key 0), so add padding: row 9, "
              "Bc = 4, keys 0–3 masked. Tile 1 is then all −∞: its max m_new is −∞, and α = exp(m_old − m_new) = "
              "exp(−∞ − (−∞)) = NaN, which spreads into ℓ and o. The guard (treat m = −∞ as 0 in the exponent, or "
              "start m at a large finite negative number) makes the empty tile contribute nothing: the output then "
              "matches the exact answer to {err}.",
        "zh": "单靠因果掩码永远不会让第一个 tile 为空（每一行都能看到 key 0），所以要加 padding：第 9 行、Bc = 4、"
              "掩掉 key 0–3。这时 tile 1 全是 −∞：它的最大值 m_new 是 −∞，α = exp(m_old − m_new) = exp(−∞ − (−∞)) "
              "= NaN，并扩散到 ℓ 和 o。防护（在指数里把 m = −∞ 当作 0，或把 m 初始化为一个很大的有限负数）让空 "
              "tile 不贡献任何值：输出与精确答案相差 {err}。"},

    # memory
    "exercises.mem_header": {"en": "Peak memory at N = 512, 2048 and 8192", "zh": "N = 512、2048、8192 时的峰值显存"},
    "exercises.mem_task": {
        "en": "Predict how much the peak intermediate memory grows from N = 512 to N = 8192: for naive attention "
              "(it holds the N × N scores) and for the tiled version (beyond its output). Then measure both on this "
              "CPU (float64, d = 64, 128 × 128 tiles; a few seconds).",
        "zh": "预测从 N = 512 到 N = 8192，峰值中间显存增长多少倍：朴素注意力（它要存下 N × N 的分数）和分块版本"
              "（输出之外的额外显存）各一个。然后在本机 CPU 上实测两者（float64，d = 64，128 × 128 的 tile；需要几秒）。"},
    "exercises.mem_solution": {
        "en": "Naive attention holds the N × N matrix: 16× the N gives 16² = 256× the bytes. The tiled version holds "
              "one Br × Bc tile and its row statistics whatever N is: its scratch stays about the same (growth ≈ 1).",
        "zh": "朴素注意力要存下 N × N 的矩阵：N 变为 16 倍，字节数变为 16² = 256 倍。分块版本无论 N 多大都只存一个 "
              "Br × Bc 的 tile 和它的行统计量：额外显存基本不变（增长约为 1 倍）。"},
    "exercises.mem_measured": {
        "en": "Measured here from N = {n0} to {n1}: naive grew {naive}× ((N₁/N₀)² = {sq}), the tiled scratch {tiled}×.",
        "zh": "本机实测，从 N = {n0} 到 {n1}：朴素实现增长 {naive} 倍（(N₁/N₀)² = {sq}），分块实现的额外显存增长 "
              "{tiled} 倍。"},

    # roofline
    "exercises.roof_header": {"en": "One point of the roofline", "zh": "屋顶线上的一个点"},
    "exercises.roof_task": {
        "en": "The {impl} kernel at N = {n}, d = {d} (fp16, not causal) moved **{bytes} bytes of HBM per head**, "
              "measured with Nsight Compute. It does 4·N²·d FLOPs per head. The H200's tensor cores peak at {peak} "
              "TFLOP/s and its HBM gives {bw} TB/s. Compute its arithmetic intensity, and say which roof binds.",
        "zh": "{impl} kernel 在 N = {n}、d = {d}（fp16，非因果）时，Nsight Compute 实测它**每个头搬运 {bytes} 字节 HBM**。"
              "它每个头做 4·N²·d 个 FLOP。H200 的张量核心峰值是 {peak} TFLOP/s，HBM 带宽 {bw} TB/s。算出它的算术强度，"
              "并判断是哪个屋顶起作用。"},
    "exercises.roof_none": {"en": "The recordings this exercise reads are not available.",
                            "zh": "这道题需要的记录文件不可用。"},
    "exercises.roof_solution": {
        "en": "FLOPs per head: 4 × {n}² × {d} = {flops}. Intensity: {flops} ÷ {bytes} = **{i} FLOP per byte**. The "
              "ridge is peak ÷ bandwidth = {ridge} FLOP per byte; the kernel is far to its right, so the **{bound}** "
              "roof binds. Its recorded speed, {tf} TFLOP/s, is below that roof.",
        "zh": "每个头的 FLOP：4 × {n}² × {d} = {flops}。强度：{flops} ÷ {bytes} = **每字节 {i} FLOP**。屋脊点是"
              "峰值 ÷ 带宽 = 每字节 {ridge} FLOP；这个 kernel 远在它右侧，所以起作用的是**{bound}**屋顶。它记录到的"
              "速度 {tf} TFLOP/s 位于这个屋顶之下。"},

    # ring
    "exercises.ring_header": {"en": "Ring attention under a causal mask", "zh": "因果掩码下的环形注意力"},
    "exercises.ring_task": {
        "en": "{w} GPUs share a sequence of N = {n} under a causal mask. Each step every GPU computes its queries "
              "against the K/V shard it holds, and the step lasts as long as its busiest GPU. Predict the compute "
              "speed-up over one GPU (total work ÷ the sum of the busiest GPU's work per step; transfers left out) "
              "for the contiguous layout and for zigzag.",
        "zh": "{w} 块 GPU 在因果掩码下分担长度 N = {n} 的序列。每一步，每块 GPU 用自己的 query 对手上的 K/V 分片做"
              "计算，一步的时长取决于最忙的那块 GPU。预测相对单块 GPU 的计算加速比（总工作量 ÷ 每一步最忙 GPU 工作量"
              "之和；不计通信），分别针对连续切分和之字形切分。"},
    "exercises.ring_solution": {
        "en": "**{layout}**: total work {total} score pairs; the busiest GPU per step adds up to {critical}: "
              "speed-up {s}×. Work per step and GPU:",
        "zh": "**{layout}**：总工作量 {total} 个分数对；每一步最忙的 GPU 累加起来是 {critical}：加速比 {s} 倍。"
              "每一步、每块 GPU 的工作量："},
}
