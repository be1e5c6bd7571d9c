"""What a Chinese page must not show: English prose (three English words in a row outside code spans) and the
spellings the issue named (内核 for kernel, 运行最大值 / 运行求和 for the running max and sum, 差 alone for a
difference). Used by tests/pages/test_pages.py on every page as it opens, and by the page tests of inside, ring,
variants, decoding and quiz on their other states."""
from __future__ import annotations

import re

LATIN_RUN = re.compile(r"(?<![`\w])[A-Za-z][a-z'-]*(?: [a-z][a-z'-]*){2,}")
AVOID = ("内核", "运行最大值", "运行求和")
BARE_DIFF = re.compile(r"(?<![相误大])差 ")       # 差 alone for "difference"; 相差, 误差 and 最大差 are words


def page_texts(at) -> list[str]:
    """Every text of the main area a reader sees: Markdown, captions, alerts, expander labels, radio labels and
    options, metric labels, code spans removed."""
    texts = [x.value for kind in ("markdown", "caption", "success", "info", "warning", "error") for x in getattr(at, kind)]
    texts += [e.label for e in at.main.expander] + [m.label for m in at.metric]
    texts += [r.label for r in at.radio] + [o for r in at.radio for o in r.options] + [at.title[0].value]
    return [re.sub(r"`[^`]*`", "", x) for x in texts]


def english_on_a_chinese_page(at) -> list[str]:
    out = [m.group(0) for x in page_texts(at) for m in LATIN_RUN.finditer(x)]
    out += [f"{w!r} in {x[:40]!r}" for x in page_texts(at) for w in AVOID if w in x]
    out += [f"bare 差 in {x[:40]!r}" for x in page_texts(at) if BARE_DIFF.search(x)]
    return out
