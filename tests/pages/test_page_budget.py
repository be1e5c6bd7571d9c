"""Every page, as a new visitor opens it, in English and Chinese: at most WORD_BUDGET words of prose outside expanders
and export menus (formulas excluded), counted from the rendered page (AppTest's element tree) by tests/helpers/page_budget.py.
The counter itself is tested on strings whose count is known."""
from __future__ import annotations

import pytest

from helpers import page_budget as pb
from helpers.app import clean
from flashviz.i18n import LANGS
from flashviz.ui.pages import PAGES

@pytest.mark.parametrize("slug, lang", [pytest.param(p.slug, lang, id=f"{p.slug}-{lang}")
                                        for p in PAGES for lang in LANGS])
def test_prose_outside_expanders_is_within_budget(slug, lang):
    m, at = pb.measure_app(slug, lang)
    clean(at)
    assert m.words <= pb.WORD_BUDGET, f"{slug} [{lang}]: {m.words} words outside expanders"


# ----------------------------------------------------------------------------- the counter

def test_english_words_are_tokens_of_letters_or_digits():
    assert pb.count_words("The stepper follows one row; here is the whole N × N score matrix.", "en") == 13
    assert pb.count_words("FA2 moves 8,192 bytes, don't it?", "en") == 6


def test_formulas_code_links_and_icons_are_not_prose():
    text = "Scores $S = QK^T / \\sqrt{d}$ and `grid = (cdiv(N, Br), B·H)` [see here](https://x.org) :material/bolt:"
    assert pb.count_words(text, "en") == 4                     # Scores, and, see, here
    assert pb.count_words("$$O = PV$$ done", "en") == 1


def test_chinese_counts_han_characters_as_english_word_equivalents():
    r = pb.zh_chars_per_word()
    assert 1.2 < r < 2.5                                       # the app's own translations, measured
    assert pb.count_words("在线 softmax", "zh") == pytest.approx(1 + 2 / r)
    assert pb.count_words("第 1 步", "zh") == pytest.approx(1 + 2 / r)


def test_text_inside_expanders_and_popovers_is_not_counted():
    m, at = pb.measure_app("blocks", "en")
    hidden = [n for n, h in pb.walk(at.main) if h and pb._kind(n) in pb.PROSE]
    shown = pb.prose_blocks(at)
    assert hidden and shown                                   # both exist on the blocks page
    assert not set(pb._text(n) for n in hidden) & set(shown) - {""}
    assert m.words == round(sum(pb.count_words(s, "en") for s in shown))
