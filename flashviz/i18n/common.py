"""Strings shared by several pages: navigation, the shared configuration, step controls, errors."""

STRINGS = {
    "common.app_title": {"en": "flashviz: FlashAttention, step by step", "zh": "flashviz：一步一步看懂 FlashAttention"},
    "common.language": {"en": "Language", "zh": "语言"},

    # navigation (later pages: one line in app.py each; their titles are already here)
    "common.nav_stepper": {"en": "Online softmax, tile by tile", "zh": "在线 softmax，逐块推进"},
    "common.nav_speed": {"en": "Speed and memory", "zh": "速度与显存"},
    "common.nav_blocks": {"en": "Blocks and memory traffic", "zh": "分块与访存流量"},
    "common.nav_backward": {"en": "Backward", "zh": "反向传播"},
    "common.nav_quiz": {"en": "Quiz", "zh": "自测"},
    "common.nav_hardware": {"en": "Hardware: why bytes matter", "zh": "硬件：为什么字节数要紧"},
    "common.nav_exercises": {"en": "Exercises", "zh": "动手练习"},
    "common.not_found_title": {"en": "No such page", "zh": "没有这个页面"},
    "common.not_found_body": {
        "en": "There is no page at **{path}**. These are the lessons, in the order of the course:",
        "zh": "地址 **{path}** 上没有页面。下面是全部课程，按学习顺序排列："},
    "common.shows_kernel": {
        "en": "This page shows N = {n}, d = {d}, {dtype}, Br = {br}, Bc = {bc}, {causal}: {why} Change them in the "
              "sidebar; the pages about traffic, speed, backward and hardware share them, and the stepper keeps its "
              "own small example (N = {n_row}).",
        "zh": "本页展示 N = {n}、d = {d}、{dtype}、Br = {br}、Bc = {bc}、{causal}：{why}可在侧边栏修改；访存流量、"
              "速度、反向传播和硬件这几页共用这组数值，逐块演示页保留它自己的小例子（N = {n_row}）。"},
    "common.shows_recorded": {"en": "a size the H200 recordings measured.", "zh": "H200 实测记录中的一组规模。"},
    "common.shows_yours": {"en": "your choice.", "zh": "你选择的规模。"},
    "common.causal_on": {"en": "causal", "zh": "因果掩码"},
    "common.causal_off": {"en": "no mask", "zh": "无掩码"},

    # chart export
    "common.export_format": {"en": "Chart download format", "zh": "图表下载格式"},
    "common.export_format_help": {
        "en": "What the camera button in each chart's toolbar saves: PNG (for slides) or SVG (scalable). "
              "The file name carries the configuration.",
        "zh": "每张图工具栏里相机按钮保存的格式：PNG（适合幻灯片）或 SVG（矢量，可任意缩放）。文件名里带有当前配置。"},

    # errors
    "common.input_error": {"en": "Cannot use this input: {msg}", "zh": "这个输入无法使用：{msg}"},
    "common.unexpected_error": {
        "en": "Something went wrong in “{where}” ({kind}: {msg}). The rest of the page still works; "
              "please report this.",
        "zh": "“{where}”部分出错了（{kind}：{msg}）。页面其余部分仍可使用，请反馈这个问题。"},

    # the shared configuration (sidebar)
    "common.cfg_header": {"en": "Configuration", "zh": "配置"},
    "common.cfg_advanced": {"en": "Row, masks and typed scores", "zh": "查询行、掩码与手动输入分数"},
    "common.preset": {"en": "Preset", "zh": "预设"},
    "common.preset_placeholder": {"en": "Choose a preset…", "zh": "选择一个预设……"},
    "common.preset_help": {"en": "Sets the configuration below in one go; you can change anything afterwards.",
                           "zh": "一次性设置下面的配置；之后仍可随意修改。"},
    "common.preset_lesson": {"en": "Small example: 16 keys, tile 4", "zh": "小例子：16 个 key，tile = 4"},
    "common.preset_tile1": {"en": "Tile = 1 (still exact, more rescales)", "zh": "tile = 1（依然精确，重缩放更多）"},
    "common.preset_masked_tile": {"en": "Padding on keys 0–3 + causal: a fully masked first tile",
                                  "zh": "key 0–3 为 padding，外加因果掩码：第一个 tile 被整块掩掉"},
    "common.preset_long": {"en": "Long sequence: 4096 keys, tile 64", "zh": "长序列：4096 个 key，tile = 64"},
    "common.preset_h200": {"en": "H200 sweep: N = 8192, d = 128, fp16", "zh": "H200 实测：N = 8192，d = 128，fp16"},

    "common.cfg_n": {"en": "Sequence length N", "zh": "序列长度 N"},
    "common.cfg_n_help": {"en": "Number of keys (and queries). 1 to 16384 in this app.",
                          "zh": "key（以及 query）的个数。本应用允许 1 到 16384。"},
    "common.cfg_d": {"en": "Head dim d", "zh": "头维度 d"},
    "common.cfg_d_help": {"en": "Length of each q, k, v vector (1 to 256). Scores are q·k/√d.",
                          "zh": "每个 q、k、v 向量的长度（1 到 256）。分数为 q·k/√d。"},
    "common.cfg_block_m": {"en": "Query block Br", "zh": "Query 块大小 Br"},
    "common.cfg_block_m_help": {"en": "Query rows per block in the 2-D tiling and the kernels.",
                                "zh": "二维分块和 kernel 中每个 query 块包含的行数。"},
    "common.cfg_block_n": {"en": "Key tile Bc (tile size)", "zh": "Key 块大小 Bc（tile 大小）"},
    "common.cfg_block_n_help": {"en": "Keys loaded into on-chip SRAM per step (1 to N). Tc = ⌈N / Bc⌉ steps.",
                                "zh": "每一步载入片上 SRAM 的 key 个数（1 到 N）。共 Tc = ⌈N / Bc⌉ 步。"},
    "common.cfg_causal": {"en": "Causal mask", "zh": "因果掩码"},
    "common.cfg_causal_help": {"en": "The query row sees only keys at or before its own position; later keys get "
                                     "score −∞.",
                               "zh": "查询行只能看到位置不晚于自己的 key；之后的 key 分数记为 −∞。"},
    "common.cfg_dtype": {"en": "Data type", "zh": "数据类型"},
    "common.cfg_dtype_help": {"en": "What the kernels compute in. The simulator rounds q, K, V to this type, then "
                                    "does its arithmetic in float64.",
                              "zh": "kernel 使用的计算精度。模拟器先把 q、K、V 舍入到该类型，再用 float64 计算。"},
    "common.cfg_seed": {"en": "Random seed", "zh": "随机种子"},
    "common.cfg_seed_help": {"en": "Seed of the random q, K, V. Same seed, same numbers, on every page.",
                             "zh": "随机 q、K、V 的种子。种子相同，各页面上的数字就相同。"},
    "common.cfg_row": {"en": "Query row", "zh": "查询行"},
    "common.cfg_row_help": {"en": "Which query (0 to N−1) the stepper follows. With the causal mask, row i sees "
                                  "keys 0…i.",
                            "zh": "逐块演示跟踪哪一个 query（0 到 N−1）。开启因果掩码时，第 i 行只看到 key 0…i。"},
    "common.cfg_masked": {"en": "Masked key positions", "zh": "被掩掉的 key 位置"},
    "common.cfg_masked_help": {"en": "Positions or ranges such as 0-3, 9. Their scores become −∞.",
                               "zh": "位置或区间，例如 0-3, 9。这些位置的分数变为 −∞。"},
    "common.cfg_masked_placeholder": {"en": "e.g. 0-3, 9", "zh": "例如 0-3, 9"},
    "common.cfg_scores": {"en": "Type your own scores", "zh": "手动输入分数"},
    "common.cfg_scores_help": {"en": "Numbers separated by commas or spaces; -inf masks a key. Replaces the random "
                                     "row (N becomes the count); values stay seeded. Leave empty for random.",
                               "zh": "用逗号或空格分隔的数字；-inf 表示掩掉该 key。它会替换随机生成的一行"
                                     "（N 变为输入的个数），value 仍由种子生成。留空则使用随机分数。"},
    "common.cfg_scores_placeholder": {"en": "e.g. 0.86, 0.45, 1.45, 0.10, -inf", "zh": "例如 0.86, 0.45, 1.45, 0.10, -inf"},
    "common.cfg_guard": {"en": "Guard against exp(−∞ − (−∞))", "zh": "防护 exp(−∞ − (−∞))"},
    "common.cfg_guard_help": {"en": "On: a fully masked tile contributes nothing (what real kernels do). Off: "
                                    "reproduces the NaN pitfall.",
                              "zh": "开启：整块被掩掉的 tile 不贡献任何值（真实 kernel 的做法）。关闭：重现 NaN 陷阱。"},

    # step controls
    "common.step_first": {"en": "First", "zh": "第一步"},
    "common.step_prev": {"en": "Previous", "zh": "上一步"},
    "common.step_next": {"en": "Next", "zh": "下一步"},
    "common.step_last": {"en": "Last", "zh": "最后一步"},
    "common.step_slider": {"en": "Step", "zh": "步骤"},
    "common.step_slider_help": {"en": "Drag to any step; going back is instant (nothing is recomputed).",
                                "zh": "拖动到任意一步；回退是即时的（不会重新计算）。"},
    "common.autoplay": {"en": "Autoplay", "zh": "自动播放"},
    "common.autoplay_help": {"en": "Advance one step at the chosen pace; stops at the last step.",
                             "zh": "按所选速度逐步前进，到最后一步自动停止。"},
    "common.speed": {"en": "Speed", "zh": "速度"},
    "common.speed_value": {"en": "{s} s / step", "zh": "每步 {s} 秒"},
}
