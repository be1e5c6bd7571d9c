"""Strings of the blocks page's connecting lessons (flashviz/ui/blocks_lessons.py, charts/lessons.py)."""

STRINGS = {
    # kernel fusion and dropout
    "lessons.fusion_header": {"en": "Kernel fusion: one kernel instead of a chain", "zh": "核融合：一个 kernel 代替一串"},
    "lessons.fusion_intro": {
        "en": "Written as separate GPU kernels, attention is a chain: scale Q, S = QKᵀ, mask, softmax, dropout, "
              "O = PV. Each kernel reads its input from HBM and writes its output back, so every N×N intermediate "
              "makes a round trip. The flash kernel fuses all of it (scale, mask, softmax, dropout and the P·V "
              "product) into one kernel: S and P live only in registers and shared memory, tile by tile.",
        "zh": "如果写成独立的 GPU kernel，注意力就是一串操作：缩放 Q、S = QKᵀ、掩码、softmax、dropout、O = PV。每个 "
              "kernel 都从 HBM 读输入、再把输出写回去，所以每个 N×N 的中间结果都要往返一次。flash kernel 把这些"
              "（缩放、掩码、softmax、dropout 和 P·V 乘积）全部融合进一个 kernel：S 和 P 只以 tile 的形式存在于寄存器"
              "和共享内存里。"},
    "lessons.with_dropout": {"en": "with dropout", "zh": "包含 dropout"},
    "lessons.fusion_explain": {
        "en": "Per (batch, head) at this N and d, the {k} separate kernels move **{total}** through HBM; the fused FA2 "
              "kernel at Br = {br}, Bc = {bc} moves **{fused}** (1/{ratio} of that), and no kernel can move less than "
              "{least} (Q, K, V read once, O and the log-sum-exp written once).",
        "zh": "在当前 N 和 d 下，每个 (batch, 头) 的 {k} 个独立 kernel 要在 HBM 上搬运 **{total}**；Br = {br}、"
              "Bc = {bc} 的融合 FA2 kernel 只搬运 **{fused}**（只有前者的 1/{ratio}），而任何 kernel 都不可能少于 {least}"
              "（Q、K、V 各读一次，O 和 log-sum-exp 各写一次）。"},
    "lessons.dropout_explain": {
        "en": "**Why dropout's mask is not stored.** The backward pass must drop exactly the same elements as the "
              "forward. Storing the keep-mask at N = {n}, B = {b}, H = {h} means {cells} elements: **{bool_b}** as a "
              "bool tensor (1 byte each, as PyTorch's dropout saves it), {bit_b} even packed at 1 bit, an N² "
              "buffer again. The flash kernel instead draws its random numbers from Philox, a counter-based "
              "generator: the number for each element is a pure function of (seed, offset + the element's "
              "index). The backward keeps just the seed and offset, **{philox} bytes**, and regenerates each "
              "tile's mask on chip, in any order, exactly as the forward drew it.",
        "zh": "**为什么不存 dropout 的掩码。** 反向传播必须丢弃与前向完全相同的元素。在 N = {n}、B = {b}、H = {h} "
              "时存下保留掩码意味着 {cells} 个元素：作为 bool 张量是 **{bool_b}**（每个 1 字节，PyTorch 的 dropout "
              "就这样保存），即便压缩到 1 比特也要 {bit_b}，又是一个 N² 的缓冲区。flash kernel 则用 Philox 这种基于"
              "计数器的随机数生成器：每个元素的随机数是 (seed, offset + 元素下标) 的纯函数。反向只需保存 seed 和 "
              "offset，共 **{philox} 字节**，然后在片上按任意顺序重新生成每个 tile 的掩码，与前向完全一致。"},
    "lessons.stage_scale": {"en": "scale Q", "zh": "缩放 Q"},
    "lessons.stage_qk": {"en": "S = QKᵀ", "zh": "S = QKᵀ"},
    "lessons.stage_mask": {"en": "causal mask", "zh": "因果掩码"},
    "lessons.stage_softmax": {"en": "softmax", "zh": "softmax"},
    "lessons.stage_dropout": {"en": "dropout", "zh": "dropout"},
    "lessons.stage_pv": {"en": "O = PV", "zh": "O = PV"},
    "lessons.stage_fused": {"en": "fused (FA2)", "zh": "融合（FA2）"},
    "lessons.reads": {"en": "reads", "zh": "读取"},
    "lessons.writes": {"en": "writes", "zh": "写入"},
    "lessons.fused": {"en": "the fused kernel, reads + writes", "zh": "融合 kernel，读 + 写"},
    "lessons.fusion_title": {"en": "HBM traffic per head: separate kernels {total} MB vs fused {fused} MB",
                             "zh": "每个头的 HBM 流量：独立 kernel {total} MB，融合 {fused} MB"},
    "lessons.axis_mb_head": {"en": "MB per (batch, head)", "zh": "每个 (batch, 头) 的 MB"},

    # causal alignment
    "lessons.align_header": {"en": "Causal masks when Nq ≠ Nk: top-left or bottom-right",
                             "zh": "Nq ≠ Nk 时的因果掩码：左上对齐还是右下对齐"},
    "lessons.align_intro": {
        "en": "With as many queries as keys the causal mask is one triangle. With fewer queries than keys (a new "
              "chunk of queries against a KV cache) it must be aligned somewhere. **Top-left**: query i sees keys "
              "j ≤ i. **Bottom-right**: query i sees keys j ≤ i + Nk − Nq, so the last query sees every key, as "
              "the last token of a sequence should. This app's kernels and FlashAttention-2 use bottom-right; "
              "PyTorch SDPA's is_causal is top-left, so the app passes it an explicit bottom-right mask.",
        "zh": "查询与 key 一样多时，因果掩码就是一个三角形。查询比 key 少时（一段新查询对着 KV 缓存），掩码必须选一个"
              "对齐方式。**左上对齐**：查询 i 看见 j ≤ i 的 key。**右下对齐**：查询 i 看见 j ≤ i + Nk − Nq 的 key，"
              "所以最后一个查询看见全部 key，正如序列最后一个 token 应该的那样。本应用的 kernel 和 FlashAttention-2 "
              "用右下对齐；PyTorch SDPA 的 is_causal 是左上对齐，所以本应用给它传入显式的右下对齐掩码。"},
    "lessons.nq": {"en": "queries Nq", "zh": "查询数 Nq"},
    "lessons.nk": {"en": "keys Nk", "zh": "key 数 Nk"},
    "lessons.align_too_big": {"en": "The grid would have {tr} × {tc} blocks, more than the {cap} drawn here; the counts "
                                    "below are still exact.",
                              "zh": "网格会有 {tr} × {tc} 个块，超过这里绘制的上限 {cap}；下面的计数仍然精确。"},
    "lessons.align_way_too_big": {
        "en": "With these blocks the grid has {tr} × {tc} blocks, too many to classify here: choose larger blocks "
              "(Br, Bc in the sidebar) or smaller Nq, Nk.",
        "zh": "按这样的块大小，网格有 {tr} × {tc} 个块，太多了，这里无法逐块分类：请在侧边栏选更大的块（Br、Bc），"
              "或更小的 Nq、Nk。"},
    "lessons.align_explain": {
        "en": "Nq = {nq}, Nk = {nk}, offset Nk − Nq = {off}, blocks Br = {br}, Bc = {bc}. **Top-left**: {tl_full} full "
              "blocks, {tl_part} partial (computed with a mask), {tl_empty} empty (skipped); {tl_pairs} visible "
              "(query, key) pairs. **Bottom-right**: {br_full} full, {br_part} partial, {br_empty} empty; "
              "{br_pairs} visible pairs. A kernel computes the full and partial blocks and skips the empty ones, "
              "so the alignment changes the work, not just the answer.",
        "zh": "Nq = {nq}，Nk = {nk}，偏移 Nk − Nq = {off}，分块 Br = {br}、Bc = {bc}。**左上对齐**：{tl_full} 个完整块、"
              "{tl_part} 个部分块（需要掩码计算）、{tl_empty} 个空块（跳过）；可见的 (查询, key) 对共 {tl_pairs} 个。"
              "**右下对齐**：{br_full} 个完整块、{br_part} 个部分块、{br_empty} 个空块；可见对 {br_pairs} 个。kernel "
              "计算完整块和部分块、跳过空块，所以对齐方式改变的不只是答案，还有工作量。"},
    "lessons.align_dead": {
        "en": "Bottom-right with Nq > Nk: the first {k} queries see no key at all; the kernels return zeros for them "
              "(a guarded softmax over nothing), not NaN.",
        "zh": "右下对齐且 Nq > Nk：前 {k} 个查询一个 key 也看不见；kernel 对它们返回 0（有防护的空 softmax），而不是 NaN。"},
    "lessons.align_hidden": {
        "en": "Top-left with Nq < Nk: the last {k} keys are seen by no query, which is wrong for a query chunk at the "
              "end of a sequence.",
        "zh": "左上对齐且 Nq < Nk：最后 {k} 个 key 没有任何查询看得见，这对位于序列末尾的一段查询是错误的。"},
    "lessons.kind_full": {"en": "full block (no mask needed)", "zh": "完整块（无需掩码）"},
    "lessons.kind_partial": {"en": "partial block (computed with a mask)", "zh": "部分块（带掩码计算）"},
    "lessons.kind_empty": {"en": "empty block (skipped)", "zh": "空块（跳过）"},
    "lessons.align_top_left": {"en": "top-left: j ≤ i", "zh": "左上对齐：j ≤ i"},
    "lessons.align_bottom_right": {"en": "bottom-right: j ≤ i + Nk − Nq", "zh": "右下对齐：j ≤ i + Nk − Nq"},
    "lessons.hover_block": {"en": "Q block %{y}, K/V block %{x}: %{customdata}",
                            "zh": "Q 块 %{y}，K/V 块 %{x}：%{customdata}"},
    "lessons.diag": {"en": "boundary j = i + offset", "zh": "边界 j = i + 偏移"},
    "lessons.align_title": {"en": "Causal blocks, Nq = {nq}, Nk = {nk}, Br = {br}, Bc = {bc}",
                            "zh": "因果分块，Nq = {nq}，Nk = {nk}，Br = {br}，Bc = {bc}"},
    "lessons.axis_kv": {"en": "K/V block j (Bc = {bc} keys)", "zh": "K/V 块 j（Bc = {bc} 个 key）"},
    "lessons.axis_q": {"en": "Q block i (Br = {br} queries)", "zh": "Q 块 i（Br = {br} 个查询）"},

    # sizes
    "lessons.size_header": {"en": "How big is the N×N score matrix?", "zh": "N×N 分数矩阵有多大？"},
    "lessons.col_case": {"en": "case", "zh": "情形"},
    "lessons.case_example": {"en": "N = {n}, {h} head(s), d = 128, fp16", "zh": "N = {n}，{h} 个头，d = 128，fp16"},
    "lessons.case_current": {"en": "this page: N = {n}, B = {b}, H = {h}, d = {d}, {dtype}",
                             "zh": "本页：N = {n}，B = {b}，H = {h}，d = {d}，{dtype}"},
    "lessons.col_scores": {"en": "scores S (N² per head)", "zh": "分数矩阵 S（每个头 N²）"},
    "lessons.col_kept": {"en": "flash keeps: O + LSE", "zh": "flash 保留：O + LSE"},
    "lessons.col_ratio": {"en": "S / (O + LSE)", "zh": "S / (O + LSE)"},
    "lessons.size_explain": {
        "en": "Compute them yourself: one head at N = 2048 in fp16 is 2048² × 2 bytes = **{s0}**; 32 heads at N = 8192 "
              "are **{s1}**; at N = 65536, **{s2}** for one layer's scores, {times}× the {hbm} of the largest GPU "
              "here ({gpu}). The flash kernel never stores S: it keeps the output O and one fp32 log-sum-exp per "
              "row for the backward, {k2} at N = 65536: linear in N, not quadratic.",
        "zh": "自己算一算：N = 2048 时一个头的 fp16 分数矩阵是 2048² × 2 字节 = **{s0}**；N = 8192、32 个头是 **{s1}**；"
              "N = 65536 时一层的分数就有 **{s2}**，是这里最大的 GPU（{gpu}）{hbm} 显存的 {times} 倍。flash kernel 从不"
              "保存 S：它只为反向保留输出 O 和每行一个 fp32 的 log-sum-exp，N = 65536 时为 {k2}：随 N 线性增长，而非平方。"},
    "lessons.size_label": {"en": "N = {n}, {h} head(s)", "zh": "N = {n}，{h} 个头"},
    "lessons.size_scores": {"en": "N×N scores S (fp16)", "zh": "N×N 分数 S（fp16）"},
    "lessons.size_kept": {"en": "O + LSE the flash kernel keeps (d = 128)", "zh": "flash kernel 保留的 O + LSE（d = 128）"},
    "lessons.size_title": {"en": "The score matrix vs what the flash kernel keeps", "zh": "分数矩阵与 flash kernel 保留的数据"},
    "lessons.axis_bytes": {"en": "bytes (log)", "zh": "字节（对数）"},
}
