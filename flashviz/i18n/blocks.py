"""Strings of the charts of the page "Blocks and memory traffic" (flashviz/charts/blocks.py).

Terms follow the seeds: 分块, IO 感知, 片上 SRAM, HBM, 访问次数, worker, block table.
"""

STRINGS = {
    # block grid
    "blocks.grid_title": {"en": "Block grid · step {i} of {n} · {order}", "zh": "分块网格 · 第 {i} / {n} 步 · {order}"},
    "blocks.order_fa1": {"en": "Algorithm 1 order: outer loop over K/V blocks, inner over Q blocks",
                         "zh": "算法 1 的顺序：外层循环遍历 K/V 块，内层循环遍历 Q 块"},
    "blocks.order_fa2": {"en": "FlashAttention-2 order: one program per Q block, inner loop over K/V blocks",
                         "zh": "FlashAttention-2 的顺序：每个 Q 块一个 program，内层循环遍历 K/V 块"},
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
    "blocks.bars_title": {"en": "HBM traffic by tensor · so far {sofar} · whole run {total} · standard {std}",
                          "zh": "各张量的 HBM 流量 · 目前 {sofar} · 全程 {total} · 标准注意力 {std}"},
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
}
