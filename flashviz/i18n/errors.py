"""Every error message a user can see, in English and Chinese, and how a typed error becomes one.

flashviz raises `FlashvizError(key="errors.<name>", **params)`: str() is the English text (for API users), a page
shows `localized(err, lang)`. Parameters that name a quantity ("head dim d", "a string") are TERMS and are
translated too. Kernel errors (flashviz_kernels) carry `key` and `params` of their own, named "kernel_<name>"
here; one without a key is described by its class, with the kernel's English text kept as a detail.
"""
from __future__ import annotations

STRINGS = {
    # ---------------------------------------------------------------- integers and choices (engines, pages)
    "errors.not_int": {"en": "{name} must be an integer, got {got}", "zh": "{name} 必须是整数，当前为 {got}"},
    "errors.whole_number": {"en": "{name} must be a whole number, got {got}",
                            "zh": "{name} 必须是整数，当前为 {got}"},
    "errors.int_in": {"en": "{name} must be an integer in {lo}..{hi}, got {got}",
                      "zh": "{name} 必须是 {lo}..{hi} 之间的整数，当前为 {got}"},
    "errors.whole_in": {"en": "{name} must be a whole number in {lo}..{hi}, got {got}",
                        "zh": "{name} 必须是 {lo}..{hi} 之间的整数，当前为 {got}"},
    "errors.head_dim": {"en": "head dim d must be 1..{hi}, got {got}", "zh": "头维度 d 必须在 1..{hi} 之间，当前为 {got}"},
    "errors.seed_min": {"en": "seed must be 0 or more, got {got}", "zh": "随机种子必须不小于 0，当前为 {got}"},
    "errors.int_range": {"en": "{name} must be in {lo}..{hi}, got {got}",
                         "zh": "{name} 必须在 {lo}..{hi} 之间，当前为 {got}"},
    "errors.int_between": {"en": "{name} must be between {lo} and {hi}, got {got}",
                           "zh": "{name} 必须在 {lo} 到 {hi} 之间，当前为 {got}"},
    "errors.int_min": {"en": "{name} must be at least {lo}, got {got}", "zh": "{name} 至少为 {lo}，当前为 {got}"},
    "errors.int_max": {"en": "{name} must be at most {hi}, got {got}", "zh": "{name} 至多为 {hi}，当前为 {got}"},
    "errors.n_page_cap": {"en": "N must be between 1 and {hi} (this app's cap), got {got}",
                          "zh": "N 必须在 1 到 {hi} 之间（本应用的上限），当前为 {got}"},
    "errors.n_live": {"en": "N must be in 1..{hi} for a live run, got {got}",
                      "zh": "实时测量时 N 必须在 1..{hi} 之间，当前为 {got}"},
    "errors.ring_split": {"en": "N = {n} does not split into {parts} equal chunks: the {layout} layout over W = {w} "
                                 "devices needs N divisible by {parts}",
                           "zh": "N = {n} 无法切成 {parts} 个等长的分片：{layout} 布局在 W = {w} 个设备上要求 N 能被 {parts} 整除"},
    "errors.ring_qkv": {"en": "q, k, v must all be (N, d); got {q}, {k}, {v}",
                        "zh": "q、k、v 都必须是 (N, d) 形状；当前为 {q}、{k}、{v}"},
    "errors.one_of": {"en": "{name} must be one of {choices}, got {got}",
                      "zh": "{name} 必须是 {choices} 之一，当前为 {got}"},
    "errors.unknown_preset": {"en": "unknown GPU preset {got}; choose one of {choices}",
                              "zh": "未知的 GPU 预设 {got}；请从 {choices} 中选择"},
    "errors.unknown_config_preset": {"en": "unknown preset {got}", "zh": "未知的预设 {got}"},
    "errors.give_one": {"en": "give at least one {what}", "zh": "请至少给出一个{what}"},

    # ---------------------------------------------------------------- the one-row engine and typed input
    "errors.scores_1d": {"en": "scores must be one row (1-D), got shape {shape}",
                         "zh": "分数必须是一行（一维），当前形状为 {shape}"},
    "errors.no_keys": {"en": "the row has no keys: N must be at least 1", "zh": "这一行没有任何 key：N 至少为 1"},
    "errors.n_cap": {"en": "N = {n} is above the cap of {cap} keys", "zh": "N = {n} 超过了 {cap} 个 key 的上限"},
    "errors.scores_nan": {"en": "scores contain NaN at key {k}", "zh": "分数在 key {k} 处是 NaN"},
    "errors.scores_posinf": {"en": "scores contain +inf; use -inf to mask a key",
                             "zh": "分数里有 +inf；要掩掉某个 key，请用 -inf"},
    "errors.values_shape": {"en": "values must be shaped (N, d) = ({n}, d), got {shape}",
                            "zh": "value 的形状必须是 (N, d) = ({n}, d)，当前为 {shape}"},
    "errors.values_finite": {"en": "values must be finite", "zh": "value 必须都是有限数"},
    "errors.tile_range": {"en": "tile size must be between 1 and N = {n}, got {got}",
                          "zh": "tile 大小必须在 1 到 N = {n} 之间，当前为 {got}"},
    "errors.row_range": {"en": "query row must be in 0..{hi}, got {got}",
                         "zh": "查询行必须在 0..{hi} 之间，当前为 {got}"},
    "errors.masked_outside": {"en": "masked position {pos} is outside 0..{hi}",
                              "zh": "被掩掉的位置 {pos} 不在 0..{hi} 之内"},
    "errors.no_scores": {"en": "no scores typed: enter numbers separated by commas or spaces",
                         "zh": "没有输入分数：请输入用逗号或空格分隔的数字"},
    "errors.too_many_scores": {"en": "{count} scores typed; the cap is {cap}",
                               "zh": "输入了 {count} 个分数；上限是 {cap} 个"},
    "errors.score_not_number": {"en": "score {i} ('{tok}') is not a number", "zh": "第 {i} 个分数（'{tok}'）不是数字"},
    "errors.score_nan": {"en": "score {i} is NaN; type -inf to mask a key",
                         "zh": "第 {i} 个分数是 NaN；要掩掉某个 key，请输入 -inf"},
    "errors.score_inf": {"en": "score {i} is infinite; only -inf (a masked key) is allowed",
                         "zh": "第 {i} 个分数是无穷大；只允许 -inf（表示被掩掉的 key）"},
    "errors.bad_position": {"en": "'{tok}' is not a position or a range like 0-3",
                            "zh": "'{tok}' 既不是位置，也不是 0-3 这样的区间"},

    # ---------------------------------------------------------------- blocks, SRAM, traffic
    "errors.sram_too_small": {
        "en": "SRAM of M = {m} elements is too small for d = {d}: one row each of Q, K, V and O needs "
              "4d = {need} elements",
        "zh": "M = {m} 个元素的 SRAM 对 d = {d} 来说太小：Q、K、V、O 各放一行就需要 4d = {need} 个元素"},
    "errors.sram_twice": {"en": "give the SRAM size either in bytes or in elements, not both",
                          "zh": "SRAM 大小请只按字节或只按元素个数给出，不要同时给"},
    "errors.m_and_blocks": {"en": "give either the SRAM size M or pinned block sizes Br and Bc, not both",
                            "zh": "请只给 SRAM 大小 M，或只给固定的块大小 Br 和 Bc，不要同时给"},
    "errors.m_or_blocks": {"en": "give the SRAM size M or both block sizes Br and Bc",
                           "zh": "请给出 SRAM 大小 M，或同时给出块大小 Br 和 Bc"},
    "errors.m_or_blocks_named": {
        "en": "give the SRAM size M (sram_bytes or sram_elems) or both block sizes Br and Bc",
        "zh": "请给出 SRAM 大小 M（sram_bytes 或 sram_elems），或同时给出块大小 Br 和 Bc"},
    "errors.grid_cap": {
        "en": "the block grid has {tr} x {tc} cells, above the cap of {cap}; choose larger blocks or a shorter "
              "sequence",
        "zh": "块网格有 {tr} × {tc} 个格子，超过了 {cap} 的上限；请选更大的块或更短的序列"},
    "errors.causal_closed_form": {"en": "the causal closed form needs Br = Bc dividing N; use Schedule.totals()",
                                  "zh": "因果掩码的闭式公式要求 Br = Bc 且能整除 N；请改用 Schedule.totals()"},
    "errors.needs_sweep": {"en": "{what} needs a sweep over {over}", "zh": "{what} 需要一次沿 {over} 的扫描"},

    # ---------------------------------------------------------------- flash-decoding and the paged cache
    "errors.exercise_all_masked": {"en": "Every key of row {row} is masked: there is nothing to attend to.",
                                   "zh": "第 {row} 行的每个 key 都被掩掉了：没有可以关注的 key。"},
    "errors.nothing_to_merge": {"en": "nothing to merge: give at least one state",
                                "zh": "没有可合并的内容：请至少给出一个状态"},
    "errors.kv_shapes": {"en": "keys and values must both be (N, d), got {k} and {v}",
                         "zh": "key 和 value 的形状都必须是 (N, d)，当前为 {k} 和 {v}"},
    "errors.keys_shape": {"en": "keys must be (N, d) with N in 1..{n} and d in 1..{d}, got {shape}",
                          "zh": "key 的形状必须是 (N, d)，其中 N 在 1..{n}、d 在 1..{d} 之间，当前为 {shape}"},
    "errors.query_shape": {"en": "the query must have shape (d,) = ({d},), got {shape}",
                           "zh": "query 的形状必须是 (d,) = ({d},)，当前为 {shape}"},

    # ---------------------------------------------------------------- backward demo, recorded data
    "errors.demo_impl": {"en": "the demo runs our kernels, 'teaching' or 'fast'; got {got}",
                         "zh": "这个演示只运行我们的 kernel：'teaching' 或 'fast'；当前为 {got}"},
    "errors.no_training": {
        "en": "this dataset has no training cells (mode fwd+bwd): record one with python -m flashviz.bench "
              "--preset h200-train, or pick another dataset",
        "zh": "这个数据集没有训练（fwd+bwd 模式）的测量：用 python -m flashviz.bench --preset h200-train 录制一个，"
              "或换一个数据集"},
    "errors.no_dataset": {"en": "no recorded benchmark dataset was found and there is no GPU here",
                          "zh": "没有找到录制的测量数据集，本机也没有 GPU"},

    # ---------------------------------------------------------------- dataset files (upload, committed)
    "errors.ds_field": {"en": "{where}: {what}", "zh": "{where}：{what}"},
    "errors.ds_type": {"en": "must be {kind}, got {got}", "zh": "必须是{kind}，当前为 {got}"},
    "errors.ds_too_long": {"en": "is longer than {limit} characters", "zh": "超过了 {limit} 个字符"},
    "errors.ds_finite": {"en": "must be finite", "zh": "必须是有限数"},
    "errors.ds_sign": {"en": "must be {sign}, got {got}", "zh": "必须是{sign}，当前为 {got}"},
    "errors.ds_large": {"en": "is implausibly large ({got} > {bound})", "zh": "大得不合理（{got} > {bound}）"},
    "errors.ds_range": {"en": "must lie in [{lo}, {hi}], got {got}", "zh": "必须在 [{lo}, {hi}] 之内，当前为 {got}"},
    "errors.ds_bool": {"en": "must be {kind}", "zh": "必须是{kind}"},
    "errors.ds_object": {"en": "must be an object", "zh": "必须是一个 JSON 对象"},
    "errors.ds_missing_field": {"en": "missing required field {field}", "zh": "缺少必填字段 {field}"},
    "errors.ds_one_of": {"en": "must be one of {choices}, got {got}", "zh": "必须是 {choices} 之一，当前为 {got}"},
    "errors.ds_device": {"en": "must be 'cuda' or 'cpu', got {got}", "zh": "必须是 'cuda' 或 'cpu'，当前为 {got}"},
    "errors.ds_not_iso": {"en": "is not an ISO date-time", "zh": "不是 ISO 格式的日期时间"},
    "errors.ds_grids": {"en": "must be a list of 1 to 64 objects", "zh": "必须是包含 1 到 64 个对象的列表"},
    "errors.ds_list_max": {"en": "must be a list of at most {max} values", "zh": "必须是最多 {max} 个值的列表"},
    "errors.ds_list_items": {"en": "holds something that is not a short string, number or boolean",
                             "zh": "含有既不是短字符串、也不是数字或布尔值的内容"},
    "errors.ds_unknown_field": {"en": "is not a field of the schema", "zh": "不是数据格式里定义的字段"},
    "errors.ds_impl_name": {"en": "{got} is not a plain implementation name", "zh": "{got} 不是一个合法的实现名"},
    "errors.ds_flops": {"en": "{got} is not 4*B*H*N^2*d (halved when causal, x2.5 for bwd, x3.5 for fwd+bwd)",
                        "zh": "{got} 不等于 4*B*H*N^2*d（因果掩码时减半，bwd 乘 2.5，fwd+bwd 乘 3.5）"},
    "errors.ds_ideal": {"en": "is not output + log-sum-exp bytes", "zh": "不等于输出 + log-sum-exp 的字节数"},
    "errors.ds_required_ok": {"en": "is required when status is 'ok'", "zh": "status 为 'ok' 时必须给出"},
    "errors.ds_tflops": {"en": "does not equal flops / time", "zh": "不等于 flops / 时间"},
    "errors.ds_graph_pair": {"en": "graph_ms and graph_tflops must both be numbers or both be null",
                             "zh": "graph_ms 与 graph_tflops 必须同为数值或同为 null"},
    "errors.ds_null_when": {"en": "must be null when status is {status}", "zh": "status 为 {status} 时必须为 null"},
    "errors.ds_schema_missing": {"en": "missing (is this a flashviz.bench dataset?)",
                                 "zh": "缺失（这是 flashviz.bench 生成的数据集吗？）"},
    "errors.ds_schema_version": {"en": "{got} is not supported (this version reads {version})",
                                 "zh": "不支持 {got}（当前版本只读取 {version}）"},
    "errors.ds_kind": {"en": "must be {kind}", "zh": "必须是 {kind}"},
    "errors.ds_missing": {"en": "missing", "zh": "缺失"},
    "errors.ds_cells": {"en": "must be a list of at most {max} cells", "zh": "必须是最多 {max} 条测量的列表"},
    "errors.ds_duplicate": {"en": "duplicates an earlier cell (same configuration and impl)",
                            "zh": "与前面的一条测量重复（配置和实现都相同）"},
    "errors.ds_literal": {"en": "not a valid dataset: the JSON literal {name} is not allowed (numbers must be finite)",
                          "zh": "不是有效的数据集：不允许 JSON 字面量 {name}（数字必须是有限数）"},
    "errors.ds_overflow": {"en": "not a valid dataset: the number {text} overflows",
                           "zh": "不是有效的数据集：数字 {text} 溢出了浮点范围"},
    "errors.ds_int_long": {"en": "not a valid dataset: the integer {text}... is too long",
                           "zh": "不是有效的数据集：整数 {text}... 太长"},
    "errors.ds_dup_key": {"en": "not a valid dataset: key {k} appears twice in one object",
                          "zh": "不是有效的数据集：键 {k} 在同一个对象里出现了两次"},
    "errors.ds_bytes_type": {"en": "a dataset must be given as bytes or a path, not {got}",
                             "zh": "数据集必须以字节或路径的形式给出，而不是 {got}"},
    "errors.ds_file_size": {"en": "the file is {mib} MiB; datasets are limited to {cap} MiB",
                            "zh": "文件大小为 {mib} MiB；数据集最大 {cap} MiB"},
    "errors.ds_path_size": {"en": "{name} is {mib} MiB; datasets are limited to {cap} MiB",
                            "zh": "{name} 大小为 {mib} MiB；数据集最大 {cap} MiB"},
    "errors.ds_not_utf8": {"en": "not a valid dataset: not UTF-8 text ({reason} at byte {pos})",
                           "zh": "不是有效的数据集：不是 UTF-8 文本（第 {pos} 字节：{reason}）"},
    "errors.ds_not_json": {"en": "not a valid dataset: not JSON ({reason} at line {line}, column {col})",
                           "zh": "不是有效的数据集：不是 JSON（第 {line} 行第 {col} 列：{reason}）"},
    "errors.ds_too_deep": {"en": "not a valid dataset: nested deeper than {max} levels",
                           "zh": "不是有效的数据集：嵌套超过 {max} 层"},
    "errors.ds_field_text": {"en": "{where}: {what}", "zh": "{where}：{what}（英文原文：这份记录来自本项目自己的基准测试）"},
    "errors.ds_value": {"en": "not a valid dataset: {detail}", "zh": "不是有效的数据集：{detail}"},
    "errors.ds_top_object": {"en": "not a valid dataset: the top level must be a JSON object",
                             "zh": "不是有效的数据集：最外层必须是一个 JSON 对象"},
    "errors.ds_cannot_read": {"en": "cannot read {name}: {reason}", "zh": "无法读取 {name}：{reason}"},

    # ---------------------------------------------------------------- kernel errors (flashviz_kernels), by key
    "errors.kernel_head_dim": {"en": "head dim d = {d} is not supported (the kernels take d <= {cap})",
                               "zh": "不支持头维度 d = {d}（kernel 只接受 d <= {cap}）"},
    "errors.kernel_block_int": {"en": "{name} must be an integer, got {got}", "zh": "{name} 必须是整数，当前为 {got}"},
    "errors.kernel_block_positive": {"en": "{name} must be positive, got {got}", "zh": "{name} 必须是正数，当前为 {got}"},
    "errors.kernel_block_max": {"en": "{name} = {got} is above the largest tile, {cap}",
                                "zh": "{name} = {got} 超过了最大的 tile 大小 {cap}"},
    "errors.kernel_block_pow2": {
        "en": "on a GPU {name} must be a power of two >= 16 (tl.dot needs 16); got {got}",
        "zh": "在 GPU 上 {name} 必须是不小于 16 的 2 的幂（tl.dot 至少需要 16）；当前为 {got}"},
    "errors.kernel_fast_pow2": {"en": "the fast kernel needs {name} a power of two in 1..256, got {got}",
                                "zh": "快速 kernel 要求 {name} 是 1..256 之间的 2 的幂，当前为 {got}"},
    # attention variants (flashviz_kernels.variants)
    "errors.kernel_gqa_heads": {"en": "q has H = {h} heads and k, v have H_kv = {h_kv}: H must be a multiple of H_kv",
                                "zh": "q 有 H = {h} 个头，k、v 有 H_kv = {h_kv} 个头：H 必须是 H_kv 的整数倍"},
    "errors.kernel_window": {"en": "window must be two integers (left, right) >= -1 (-1 = unbounded); got {value}",
                             "zh": "window 必须是两个不小于 -1 的整数 (left, right)（-1 表示不限）；当前为 {value}"},
    "errors.kernel_softcap": {"en": "softcap must be a finite number > 0; got {value}",
                              "zh": "softcap 必须是大于 0 的有限数；当前为 {value}"},
    "errors.kernel_alibi_type": {"en": "alibi_slopes must be a floating-point tensor; got {got}",
                                 "zh": "alibi_slopes 必须是浮点张量；当前为 {got}"},
    "errors.kernel_alibi_shape": {"en": "alibi_slopes must be shaped ({h},) or ({b}, {h}); got {shape}",
                                  "zh": "alibi_slopes 的形状必须是 ({h},) 或 ({b}, {h})；当前为 {shape}"},
    "errors.kernel_alibi_finite": {"en": "alibi_slopes must be finite", "zh": "alibi_slopes 必须是有限数"},
    "errors.kernel_variant_device": {"en": "{name} must be on the same device as q",
                                     "zh": "{name} 必须与 q 在同一设备上"},
    "errors.kernel_seq_type": {"en": "seq_ids must be an integer tensor; got {got}",
                               "zh": "seq_ids 必须是整数张量；当前为 {got}"},
    "errors.kernel_seq_lengths": {"en": "seq_ids needs Nq == Nk; got Nq = {n_q}, Nk = {n_k}",
                                  "zh": "使用 seq_ids 时需要 Nq == Nk；当前 Nq = {n_q}，Nk = {n_k}"},
    "errors.kernel_seq_shape": {"en": "seq_ids must be shaped ({b}, {n}); got {shape}",
                                "zh": "seq_ids 的形状必须是 ({b}, {n})；当前为 {shape}"},
    "errors.kernel_seq_order": {"en": "seq_ids must be non-decreasing along N (each document one contiguous run)",
                                "zh": "seq_ids 沿 N 必须单调不减（每个文档占一段连续位置）"},
    "errors.kernel_sdpa_softcap": {"en": "SDPA cannot express softcap; use naive, teaching or fast",
                                   "zh": "SDPA 无法表达 softcap；请改用 naive、teaching 或 fast"},
    # ... and by class, for a kernel error without a key (the English detail follows in parentheses)
    "errors.kernel_class_input": {"en": "the kernel cannot run this input", "zh": "kernel 无法处理这组输入"},
    "errors.kernel_class_type": {"en": "the kernel got a wrong data type or device",
                                 "zh": "kernel 收到的数据类型或设备不对"},
    "errors.kernel_class_unavailable": {"en": "this implementation cannot run on this machine",
                                        "zh": "这个实现无法在本机上运行"},
    "errors.kernel_class_resource": {
        "en": "the kernel ran out of on-chip resources (shared memory or registers) for these tiles",
        "zh": "这组 tile 让 kernel 用尽了片上资源（共享内存或寄存器）"},
    "errors.kernel_class_oom": {"en": "the GPU ran out of memory for this configuration",
                                "zh": "这个配置让 GPU 显存不足"},
    "errors.kernel_class_other": {"en": "the kernel failed", "zh": "kernel 运行失败"},
    # ---------------------------------------------------------------- attention variants (flashviz/engine/variants.py)
    "errors.window_side": {"en": "{side} must be −1 (unbounded) or 0 or more, got {got}",
                           "zh": "{side} 只能是 −1（不设限）或不小于 0 的整数，当前为 {got}"},
    "errors.window_pair": {"en": "a window is a pair (left, right), got {got}",
                           "zh": "窗口应当是一对数 (left, right)，当前为 {got}"},
    "errors.softcap_pos": {"en": "softcap must be a number above 0 (or switched off), got {got}",
                           "zh": "softcap 必须是大于 0 的数（或者关闭），当前为 {got}"},
    "errors.gqa_group": {"en": "a GQA group of {g} query heads does not divide the {h} query heads evenly",
                         "zh": "{h} 个 query 头无法平均分成每组 {g} 个（GQA 的组大小必须整除头数）"},
    "errors.doc_lens_sum": {"en": "the document lengths add up to {total}, but N = {n}: they must sum to N",
                            "zh": "各文档长度之和为 {total}，而 N = {n}：两者必须相等"},
    "errors.doc_count": {"en": "give 1 to {hi} document lengths, got {got}",
                         "zh": "请给出 1 到 {hi} 个文档长度，当前为 {got} 个"},
    "errors.doc_lens_text": {"en": "document lengths are whole numbers separated by spaces or commas; "
                                   "{tok!r} is not one",
                             "zh": "文档长度应为用空格或逗号分隔的整数；{tok!r} 不是整数"},
    "errors.seq_ids_shape": {"en": "seq_ids must be (N,) or (B, N) with N = {n}, got shape {shape}",
                             "zh": "seq_ids 的形状必须是 (N,) 或 (B, N)，其中 N = {n}；当前形状为 {shape}"},
    "errors.seq_ids_int": {"en": "seq_ids must be integers, got {got}", "zh": "seq_ids 必须是整数，当前为 {got}"},
    "errors.seq_ids_order": {"en": "seq_ids must not decrease along the sequence (packed documents, one after another)",
                             "zh": "seq_ids 沿序列方向不能减小（打包的文档应一个接一个排列）"},
    "errors.seq_ids_square": {"en": "packed documents need as many queries as keys, got Nq = {nq}, Nk = {nk}",
                              "zh": "打包文档要求 query 数等于 key 数，当前 Nq = {nq}，Nk = {nk}"},
    "errors.variant_unknown": {"en": "unknown variant {got}; choose from {choices}",
                               "zh": "未知的变体 {got}；请从 {choices} 中选择"},
    "errors.kernel_detail": {"en": "{what} ({detail})", "zh": "{what}（原始信息：{detail}）"},
}

# Quantities named in messages: English label -> Chinese. A parameter whose value is one of these is translated.
TERMS = {
    "N": "N", "head dim d": "头维度 d", "query block Br": "Query 块大小 Br", "tile size Bc": "tile 大小 Bc",
    "tile size": "tile 大小", "seed": "随机种子", "query row": "查询行", "block size Br": "块大小 Br",
    "block size Bc": "块大小 Bc", "block size": "块大小", "SRAM size M (KiB)": "SRAM 大小 M（KiB）",
    "SRAM size (bytes)": "SRAM 大小（字节）", "SRAM size M (elements)": "SRAM 大小 M（元素个数）",
    "element size (bytes)": "元素大小（字节）", "statistics element size (bytes)": "统计量元素大小（字节）",
    "batch B": "批大小 B", "heads H": "头数 H", "step": "步骤", "number of workers W": "worker 数 W",
    "physical blocks": "物理块数", "free physical blocks": "空闲物理块数", "dtype": "数据类型",
    "loop order": "循环顺序", "block rule": "块大小规则", "unit": "单位", "nothing": "空",
    "SRAM size": "SRAM 大小", "sequence length": "序列长度",
    "Nq": "Nq", "Nk": "Nk", "element size": "元素大小", "devices W": "设备数 W", "W": "W",
    "query row (local)": "查询行（本地编号）", "chunk length": "分片长度", "GPU": "GPU", "alignment": "对齐方式",
    "accumulator form": "累加器形式", "layout": "布局", "chunks S": "子分块数 S",
    "window left": "窗口左宽 left", "window right": "窗口右宽 right", "GQA group size": "GQA 组大小",
    "document length": "文档长度", "head": "注意力头", "softcap": "softcap", "impl": "实现",
    "the demo's N on CPU (Triton's interpreter)": "演示的 N（CPU 上，Triton 解释器）",
    "the demo's head dim d on CPU (Triton's interpreter)": "演示的头维度 d（CPU 上，Triton 解释器）",
    "the demo's N on the GPU": "演示的 N（GPU 上）", "the demo's head dim d on the GPU": "演示的头维度 d（GPU 上）",
    "block_m": "block_m（Br）", "block_n": "block_n（Bc）",
    # dataset kinds
    "a string": "字符串", "a string or null": "字符串或 null", "a number": "数字", "a number or null": "数字或 null",
    "an integer": "整数", "an integer or null": "整数或 null", "true or false": "true 或 false",
    "true or false or null": "true、false 或 null", "positive": "正数", "non-negative": "非负数",
    # what Python's json and UTF-8 decoders and the OS say (dataset files)
    "Expecting value": "此处应当是一个值", "Expecting property name enclosed in double quotes": "此处应当是带双引号的键名",
    "Expecting ',' delimiter": "此处缺少逗号", "Expecting ':' delimiter": "此处缺少冒号", "Extra data": "多余的内容",
    "Unterminated string starting at": "字符串没有结束", "Invalid control character at": "非法的控制字符",
    "Invalid \\escape": "非法的转义", "Invalid \\uXXXX escape": "非法的 \\uXXXX 转义",
    "invalid start byte": "非法的起始字节", "invalid continuation byte": "非法的后续字节",
    "unexpected end of data": "数据意外结束", "No such file or directory": "文件或目录不存在",
    "Permission denied": "没有权限", "Is a directory": "这是一个目录",
}

KERNEL_CLASSES = (("KernelOutOfMemory", "oom"), ("KernelResourceError", "resource"), ("KernelUnavailable", "unavailable"),
                  ("KernelTypeError", "type"), ("KernelInputError", "input"))


def _term(v, lang: str):
    if isinstance(v, str) and lang != "en" and v in TERMS:
        return TERMS[v]
    return v


def localize(key: str, params: dict, lang: str) -> str:
    """The message `key` in `lang`, its term parameters translated. Nested messages (a parameter that is a
    (key, params) pair, as dataset fields use) are localized first."""
    from . import t
    args = {}
    for k, v in params.items():
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], dict):
            v = localize(v[0], v[1], lang)
        args[k] = _term(v, lang)
    return t(key, lang, **args)


def kernel_message(e: BaseException, lang: str) -> str:
    """A flashviz_kernels error in `lang`: by its key if it has one, else by its class plus the English detail."""
    key = getattr(e, "key", None)
    if key:
        return localize(f"errors.{key}", dict(getattr(e, "params", {}) or {}), lang)
    names = {c.__name__ for c in type(e).__mro__}
    kind = next((k for name, k in KERNEL_CLASSES if name in names), "other")
    from . import t
    what = t(f"errors.kernel_class_{kind}", lang)
    detail = str(e).splitlines()[0][:300] if str(e) else ""
    return t("errors.kernel_detail", lang, what=what, detail=detail) if detail else what


def message(e: BaseException, lang: str) -> str:
    """What a page shows for an error it caught: flashviz errors and kernel errors in `lang`."""
    loc = getattr(e, "localized", None)
    if callable(loc):
        return loc(lang)
    return kernel_message(e, lang)
