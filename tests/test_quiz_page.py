"""AppTest of the quiz page: at least six questions, right and wrong answers give feedback with a link to the
page that shows it, the score counts (and resets), answers survive page switches, Chinese renders."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from flashviz.i18n import t
from flashviz.ui import pages, quiz
from flashviz.ui.pages import switch

APP = str(Path(__file__).resolve().parents[1] / "app.py")
QUIZ = "quiz"


def open_app(page: str | None = None, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    if page:
        switch(at, page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def answer(at: AppTest, qid: str, option: str) -> AppTest:
    return at.radio(key=f"_w.quiz.{qid}").set_value(option).run()


def links(at: AppTest) -> list[str]:
    return [pl.proto.label for pl in at.get("page_link")]


def shown_score(at: AppTest, right: int, answered: int) -> bool:
    """The score line the page shows above and below the questions."""
    want = t("quiz.score", "en", right=right, total=len(quiz.QUESTIONS), answered=answered)
    return at.caption[0].value == want and at.subheader[-1].value == want


def test_at_least_six_questions_unanswered_at_first():
    at = open_app(QUIZ)
    assert at.title[0].value == "Quiz: check what stuck"
    assert len(quiz.QUESTIONS) >= 6 and len(at.radio) == len(quiz.QUESTIONS)
    assert all(r.value is None for r in at.radio)
    assert not at.success and not at.error and not links(at)
    assert shown_score(at, right=0, answered=0)


@pytest.mark.parametrize("q", quiz.QUESTIONS, ids=lambda q: q.id)
def test_right_and_wrong_answers_give_feedback_and_a_link(q):
    at = open_app(QUIZ)
    answer(at, q.id, q.correct)
    assert len(at.success) == 1 and at.success[0].value.startswith("Right.")
    assert links(at) == [f"See it on “{pages.title(q.page, 'en')}”"]
    assert at.get("page_link")[0].proto.page == ("" if q.page == pages.DEFAULT else q.page)   # the default is /
    wrong = next(o for o in quiz.OPTIONS if o != q.correct)
    answer(at, q.id, wrong)
    assert not at.success and len(at.error) == 1 and at.error[0].value.startswith("Not quite.")
    assert len(links(at)) == 1


def test_score_counts_and_resets():
    at = open_app(QUIZ)
    for q in quiz.QUESTIONS[:3]:
        answer(at, q.id, q.correct)
    answer(at, quiz.QUESTIONS[3].id, next(o for o in quiz.OPTIONS if o != quiz.QUESTIONS[3].correct))
    assert shown_score(at, right=3, answered=4) and at.caption[0].value.startswith("Score: 3 /")
    for q in quiz.QUESTIONS:
        answer(at, q.id, q.correct)
    assert any("All" in s.value for s in at.success)
    at.button(key="quiz.reset").click().run()
    assert shown_score(at, right=0, answered=0) and all(r.value is None for r in at.radio)


def test_answers_survive_a_page_switch():
    at = open_app(QUIZ)
    answer(at, "alpha", "c")
    switch(at, "stepper").run()
    switch(at, QUIZ).run()
    assert at.radio(key="_w.quiz.alpha").value == "c" and shown_score(at, right=1, answered=1)


def test_chinese_renders():
    at = open_app(QUIZ, lang="zh")
    assert at.title[0].value == "自测：检验一下学到了什么"
    answer(at, "masked", "c")
    assert at.success[0].value.startswith("正确。") and "exp(−∞ − (−∞))" in at.success[0].value
    assert links(at)[0].startswith("到“")
    assert "第 1 题" in at.radio[0].label


# ----------------------------------------------------------------------------- the explanations hold in the engines

def test_a_causal_mask_alone_never_fully_masks_the_first_tile_but_padding_does():
    import numpy as np
    from dataclasses import replace
    from flashviz.online_softmax import online_softmax_trace
    from flashviz.ui.config import Config, row_problem, with_preset
    for n in (1, 5, 16, 33):
        for tile in sorted({1, 2, 4, n}):
            for row in range(n):
                s, v = row_problem(Config(n=n, d=2, block_n=min(tile, n), causal=True, row=row, guard=False))
                tr = online_softmax_trace(s, v, min(tile, n), guard=False)
                assert np.isfinite(tr.tile_max[0]) and not np.isnan(tr.l).any()      # key 0 is always visible
    preset = with_preset(Config(), "masked_tile")
    s, v = row_problem(replace(preset, guard=False))
    off = online_softmax_trace(s, v, preset.block_n, guard=False)
    assert off.tile_max[0] == -np.inf and np.isnan(off.l[-1])                       # padding keys 0-3: NaN
    s_causal, _ = row_problem(replace(preset, masked=""))
    assert np.isfinite(online_softmax_trace(s_causal, v, preset.block_n, guard=False).l).all()   # causal alone: no
    on = online_softmax_trace(s, v, preset.block_n, guard=True)                     # guard: exp(−∞ − 0) = 0
    assert on.l[0] == 0 and np.abs(on.output - on.exact).max() < 1e-12
    text = quiz_text("masked_why")
    assert "every row sees key 0" in text and "exp(−∞ − 0) = 0" in text and "treat the exponent as 0" not in text


def quiz_text(key: str, lang: str = "en") -> str:
    from flashviz.i18n import t
    return t(f"quiz.{key}", lang)


def test_q1_counts_the_same_flops_as_the_speed_page():
    from flashviz.bench.spec import flops
    n, d = 1024, 64
    mult_adds = n * n * d + n * n * d                      # Q·Kᵀ (N×d by d×N) and P·V (N×N by N×d), one head
    assert flops(n, d, False, 1, 1) == 2 * mult_adds == 4 * n * n * d
    text = quiz_text("reduces_why")
    assert "2·N²·d multiply-adds per head" in text and "4·N²·d FLOPs" in text and "same N²·d" not in text


def test_q5_one_log_sum_exp_per_row_as_the_kernels_store():
    import torch
    import flashviz_kernels as fk
    from flashviz.bench.spec import ideal_bytes
    q, k, v = (torch.randn(1, 2, 64, 16, generator=torch.Generator().manual_seed(i)) for i in range(3))
    out, lse = fk.attention_with_lse(q, k, v, impl="teaching", block_m=32, block_n=32)
    assert lse.shape == (1, 2, 64)                           # one number per query row, not two
    ref = torch.logsumexp((q.double() @ k.double().transpose(-1, -2)) / 4.0, dim=-1)
    torch.testing.assert_close(lse.double(), ref, rtol=1e-5, atol=1e-5)
    assert ideal_bytes(64, 16, "float32", 1, 2) == 1 * 2 * 64 * 16 * 4 + 1 * 2 * 64 * 4
    assert "one log-sum-exp per query row" in quiz_text("memory_b")
    assert "two numbers" not in quiz_text("memory_why") and "每行两个数" not in quiz_text("memory_why", "zh")
