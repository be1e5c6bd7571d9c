"""One Chinese term for each recurring English term, and the spellings the Chinese strings must not use.

tests/infra/test_i18n.py scans every zh string for the `avoid` patterns (regular expressions). Terms not listed follow
the seeds (在线 softmax, 分块 for the technique of tiling, 重缩放, IO 感知, 片上 SRAM, HBM, 滚动最大值, 滚动求和,
修正系数).

  English   中文       use it for
  tile      tile       the keys (or queries) one step loads: "每个 tile", "tile 大小", "Br × Bc 的 tile"
  tiling    分块       the technique only: "分块网格", "分块实现", "二维分块"; never one tile
  block     块         Q 块, K/V 块, 块 S_ij, 块大小, 线程块
  head      头         注意力头, 头数 H, 每个头
  program   program    one instance of a Triton kernel (a thread block): "每个 Q 块一个 program"
  spill     溢出到本地内存   registers spilled to local memory; bare 溢出 reads as overflow
  ratio     只有…的 1/x, 是…的 x 倍   never "少 x 倍" (ambiguous in Chinese)
  shard     分片       one rank's part of the sequence in ring attention (sharding = 分片); never a tile
  running max / sum   滚动最大值 / 滚动求和   never 运行最大值, 运行和
  kernel    kernel     a GPU kernel; never 内核 (which reads as an OS kernel)
  warp, warpgroup   warp, warpgroup   kept in Latin; never 线程束 or warp 组
  tensor core   张量核心   never 张量核 alone
  alpha (α) 修正系数   one word for the rescale factor α
  ratios    是…的 x 倍, 只有…的 1/x   never 差 x 倍 (whose direction is ambiguous)

STYLE (below) holds what every zh string must not contain whatever its term: a space between two Chinese characters
or punctuation marks (a stray space), and English prose words (code in backticks is left out, and so are strings
whose key ends in "_code": a code listing).
tests/infra/test_i18n.py checks every i18n module's zh strings against GLOSSARY and STYLE, one test case per module.
"""

GLOSSARY = {
    "tile": {"zh": "tile", "avoid": (r"瓦片", r"(个|些|每个|的)分块(?!网格|实现|技术|与)", r"分块(大小|数)")},
    "tiling": {"zh": "分块", "avoid": ()},
    "shard": {"zh": "分片", "avoid": ()},
    "block": {"zh": "块", "avoid": (r"区块", r"分区")},
    "head": {"zh": "头", "avoid": (r"(?<![A-Za-z_])head(?![A-Za-z_])",)},
    "program": {"zh": "program", "avoid": (r"程序",)},
    "spill": {"zh": "溢出到本地内存", "avoid": (r"溢出(?!到本地内存|了浮点范围)",)},
    "ratio": {"zh": "只有…的 1/x", "avoid": (r"[少多]了?\s*(\{[^}]*\}|[\d.]+)\s*倍", r"认真的 kernel", r"很小的负数",
                                          r"差\s*(\{[^}]*\}|[\d.]+)\s*倍")},
    "running max": {"zh": "滚动最大值 / 滚动求和", "avoid": (r"运行最大值", r"运行(总)?和", r"运行求和")},
    "kernel": {"zh": "kernel", "avoid": (r"内核",)},
    "warp": {"zh": "warp / warpgroup", "avoid": (r"线程束", r"warp\s*组")},
    "tensor core": {"zh": "张量核心", "avoid": (r"张量核(?!心)",)},
    "alpha": {"zh": "修正系数", "avoid": (r"重缩放系数", r"缩放因子", r"校正系数", r"修正因子")},
}

STYLE = {
    "stray space": r"[\u4e00-\u9fff，。：；、（）！？] +[\u4e00-\u9fff，。：；、（）！？]",
    "English prose": r"(?<![A-Za-z_{.])(the|and|of|is|are|with|for|not|this|that)(?![A-Za-z_}(])",
}


def zh_problems(text: str) -> list[str]:
    """Every GLOSSARY and STYLE violation in one zh string (code spans and fenced code left out)."""
    import re
    prose = re.sub(r"```.*?```|`[^`\n]*`", "CODE", text, flags=re.DOTALL)
    out = []
    for term, g in GLOSSARY.items():
        for pat in g["avoid"]:
            m = re.search(pat, prose)
            if m:
                out.append(f"{term} spelled {m.group(0)!r}")
    for name, pat in STYLE.items():
        m = re.search(pat, prose)
        if m:
            out.append(f"{name}: {m.group(0)!r}")
    return out
