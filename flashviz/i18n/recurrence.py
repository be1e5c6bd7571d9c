"""Strings of the stepper's recurrence section (flashviz/ui/stepper_formula.py)."""

STRINGS = {
    "recurrence.header": {"en": "**This step's recurrence, with its numbers** (the tile S_j is the current tile's scores "
                           "for this query row; m, ℓ, o on the right of each line are the values before the tile)",
                     "zh": "**本步的递推式，代入本步数值**（S_j 是当前 tile 中这一查询行的分数；每行等号右边的 "
                           "m、ℓ、o 是处理该 tile 之前的值）"},
    "recurrence.form": {"en": "Accumulator form", "zh": "累加器的形式"},
    "recurrence.form_fa2": {"en": "FA2: o unnormalised, divide once", "zh": "FA2：o 不归一化，最后除一次"},
    "recurrence.form_fa1": {"en": "FA1 paper, Algorithm 1: normalise every step", "zh": "FA1 论文算法 1：每步都归一化"},
    "recurrence.form_help": {
        "en": "FlashAttention-2 and this app's kernels keep o = Σ e^(s − m)·v unnormalised and divide by ℓ once "
              "after the last tile. The first paper's Algorithm 1 rescales o to a normalised average after every "
              "tile with diag(ℓ_new)⁻¹. Same m, α and ℓ; the same answer up to rounding.",
        "zh": "FlashAttention-2 和本应用的 kernel 都让 o = Σ e^(s − m)·v 保持不归一化，在最后一个 tile 之后"
              "才除以 ℓ 一次。第一篇论文的算法 1 在每个 tile 之后都用 diag(ℓ_new)⁻¹ 把 o 重新缩放成归一化的"
              "加权平均。m、α、ℓ 完全相同，答案只差浮点舍入。"},
    "recurrence.dims": {"en": "o is a vector of d = {d} numbers; the first {k} are written out.",
                   "zh": "o 是 d = {d} 维向量；这里只写出前 {k} 个分量。"},
    "recurrence.guarded": {
        "en": "Every key so far is masked, so m_new = −∞; the guard puts 0 in its place inside the exponentials, "
              "so this tile adds nothing (without it e^(−∞ − (−∞)) = NaN).",
        "zh": "到目前为止的 key 全被掩掉，m_new = −∞；防护在指数里用 0 代替它，所以这个 tile 什么也不贡献"
              "（没有防护时 e^(−∞ − (−∞)) = NaN）。"},
    "recurrence.explain_fa2": {
        "en": "**FA2 form.** o is the unnormalised sum Σ e^(s − m)·v. A moved maximum costs one multiplication "
              "by α; the division by ℓ happens once, at the end: fewer non-matmul operations per tile, which is "
              "one of the changes FlashAttention-2 made.",
        "zh": "**FA2 形式。** o 是未归一化的和 Σ e^(s − m)·v。最大值移动时只需乘一次 α；除以 ℓ 只在最后做"
              "一次：每个 tile 的非矩阵乘运算更少，这正是 FlashAttention-2 的改动之一。"},
    "recurrence.explain_fa1": {
        "en": "**Algorithm 1 form (the first paper).** o is kept as a normalised average after every tile: the old "
              "o is un-normalised with ℓ and rescaled with α, the new tile is added, and diag(ℓ_new)⁻¹ "
              "normalises again. The paper writes the tile's weights as e^(m̃ − m_new)·P̃ with P̃ = e^(S_j − m̃); "
              "that product is the e^(S_j − m_new) shown here.",
        "zh": "**算法 1 形式（第一篇论文）。** 每个 tile 之后 o 都保持为归一化的加权平均：旧的 o 先乘 ℓ "
              "还原、再乘 α 修正，加上新 tile 的贡献，然后用 diag(ℓ_new)⁻¹ 重新归一化。论文把本 tile 的权重"
              "写成 e^(m̃ − m_new)·P̃，其中 P̃ = e^(S_j − m̃)；二者相乘就是这里的 e^(S_j − m_new)。"},
    "recurrence.agree": {
        "en": "After this tile the two forms' outputs so far (FA2's o/ℓ, Algorithm 1's o) differ by at most {gap}.",
        "zh": "这个 tile 之后，两种形式目前的输出（FA2 的 o/ℓ 与算法 1 的 o）最多相差 {gap}。"},
    "recurrence.agree_last": {
        "en": "Last tile: the two forms' answers differ by at most {gap}; against softmax(s)·V computed the textbook "
              "way the error is {e2} (FA2) and {e1} (Algorithm 1).",
        "zh": "最后一个 tile：两种形式的答案最多相差 {gap}；与按教科书方式算出的 softmax(s)·V 相比，误差分别为 "
              "{e2}（FA2）和 {e1}（算法 1）。"},
}
