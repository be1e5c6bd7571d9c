"""Page "Quiz": eight multiple-choice questions with immediate feedback, an explanation, and a link to the page
that shows the idea. Answers live in session state (`quiz.<id>`, kept across page switches); the score is the
number of answers that are right now. All text is in flashviz/i18n/quiz.py.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from flashviz.i18n import t
from flashviz.ui import pages, state
from flashviz.ui.common import shown_errors

NS = "quiz"
OPTIONS = ("a", "b", "c", "d")


@dataclass(frozen=True)
class Question:
    id: str
    correct: str
    page: str                       # the page that shows the idea (a slug of flashviz.ui.pages)


QUESTIONS = (
    Question("reduces", "b", "blocks"),
    Question("alpha", "c", "stepper"),
    Question("early", "a", "stepper"),
    Question("recompute", "d", "backward"),
    Question("memory", "b", "speed"),
    Question("masked", "c", "stepper"),
    Question("tile", "b", "blocks"),
    Question("order", "d", "blocks"),
)


def key(q: Question) -> str:
    return f"{NS}.{q.id}"


def answers() -> dict[str, str | None]:
    return {q.id: st.session_state.get(key(q)) for q in QUESTIONS}


def score() -> tuple[int, int]:
    """(right now, answered)."""
    given = answers()
    right = sum(given[q.id] == q.correct for q in QUESTIONS)
    return right, sum(v is not None for v in given.values())


def _reset() -> None:
    for q in QUESTIONS:
        st.session_state[key(q)] = None


def question(i: int, q: Question, lang: str) -> None:
    st.radio(f"**{t('quiz.number', lang, i=i, n=len(QUESTIONS))}** · {t(f'quiz.{q.id}_q', lang)}", OPTIONS,
             index=None, format_func=lambda o: t(f"quiz.{q.id}_{o}", lang), **state.kept(key(q), None))
    given = st.session_state.get(key(q))
    if given is None:
        return
    why = t(f"quiz.{q.id}_why", lang)
    if given == q.correct:
        st.success(f"{t('quiz.right', lang)} {why}", icon=":material/check_circle:")
    else:
        st.error(f"{t('quiz.wrong', lang)} {why}", icon=":material/cancel:")
    pages.link(q.page, lang, label=t("quiz.see_page", lang, page=pages.title(q.page, lang)))


def render() -> None:
    lang, _ = state.page_start(NS, fields=None)
    right, answered = score()                 # callbacks already ran: the score of the answers given so far
    st.caption(t("quiz.score", lang, right=right, total=len(QUESTIONS), answered=answered))
    for i, q in enumerate(QUESTIONS, 1):
        with st.container(border=True), shown_errors(lang, where=f"question {q.id}"):
            question(i, q, lang)
    right, answered = score()
    st.subheader(t("quiz.score", lang, right=right, total=len(QUESTIONS), answered=answered))
    if right == len(QUESTIONS):
        st.success(t("quiz.all_right", lang, total=len(QUESTIONS)), icon=":material/school:")
    st.button(t("quiz.reset", lang), key=f"{NS}.reset", icon=":material/restart_alt:", on_click=_reset)
