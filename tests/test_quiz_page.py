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
