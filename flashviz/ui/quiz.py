"""Page "Quiz": multiple-choice questions with immediate feedback, an explanation, and a link to the page that
shows the idea. Answers live in session state (`quiz.<id>`, kept across page switches, stored as the option's key so
they survive any order); the score is the number of answers that are right now. Each session draws one seed
(`quiz.seed`) and every question's options are shuffled from it: the same order on every rerun of a session,
deterministic for a given seed. Numbers in the text are the engines' (flashviz/engine/quiz_facts.py). All text is in
flashviz/i18n/quiz.py.
"""
from __future__ import annotations

import random
import secrets
from dataclasses import dataclass

import streamlit as st

from flashviz.i18n import t
from flashviz.engine.quiz_facts import facts
from flashviz.ui import pages, state
from flashviz.ui.common import shown_errors

NS = "quiz"
OPTIONS = ("a", "b", "c", "d")
SEED_KEY = f"{NS}.seed"


@dataclass(frozen=True)
class Question:
    id: str
    correct: str
    pages: tuple[str, ...]          # the pages that show the idea, preferred first (slugs of flashviz.ui.pages)

    @property
    def page(self) -> str:
        """The first of `pages` the app registers (the hardware lesson, where there is one)."""
        return next(p for p in self.pages if p in pages.BY_SLUG)


QUESTIONS = (
    Question("reduces", "b", ("blocks",)),
    Question("alpha", "c", ("stepper",)),
    Question("early", "a", ("stepper",)),
    Question("recompute", "d", ("backward",)),
    Question("memory", "b", ("speed",)),
    Question("masked", "c", ("stepper",)),
    Question("tile", "b", ("blocks",)),
    Question("order", "d", ("blocks",)),
    Question("decode", "a", ("decoding",)),
    Question("paged", "c", ("decoding",)),
    Question("skip", "b", ("variants",)),
    Question("gqa", "d", ("variants",)),
    Question("zigzag", "a", ("ring",)),
    Question("ringmem", "c", ("ring",)),
    Question("regs", "b", ("hardware", "blocks")),
    Question("membound", "c", ("hardware", "blocks")),
    Question("roofline", "a", ("hardware", "blocks")),
    Question("pingpong", "d", ("inside",)),
)


def text(key: str, lang: str) -> str:
    """A quiz string with the engines' numbers filled in."""
    return t(f"quiz.{key}", lang, **facts())


def key(q: Question) -> str:
    return f"{NS}.{q.id}"


def session_seed() -> int:
    """This session's seed, drawn once (kept across reruns and page switches)."""
    ss = st.session_state
    if not isinstance(ss.get(SEED_KEY), int):
        ss[SEED_KEY] = secrets.randbelow(2 ** 31)
    return ss[SEED_KEY]


def order(q: Question, seed: int) -> tuple[str, ...]:
    """The option keys of `q` in the order this seed shows them."""
    out = list(OPTIONS)
    random.Random(f"{seed}:{q.id}").shuffle(out)
    return tuple(out)


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


def question(i: int, q: Question, seed: int, lang: str) -> None:
    st.radio(f"**{t('quiz.number', lang, i=i, n=len(QUESTIONS))}** · {text(f'{q.id}_q', lang)}", order(q, seed),
             index=None, format_func=lambda o: text(f"{q.id}_{o}", lang), **state.kept(key(q), None))
    given = st.session_state.get(key(q))
    if given is None:
        return
    why = text(f"{q.id}_why", lang)
    if given == q.correct:
        st.success(f"{t('quiz.right', lang)} {why}", icon=":material/check_circle:")
    else:
        st.error(f"{t('quiz.wrong', lang)} {why}", icon=":material/cancel:")
    pages.link(q.page, lang, label=t("quiz.see_page", lang, page=pages.title(q.page, lang)))


def render() -> None:
    lang, _ = state.page_start(NS, fields=None)
    seed = session_seed()
    right, answered = score()                 # callbacks already ran: the score of the answers given so far
    st.caption(t("quiz.score", lang, right=right, total=len(QUESTIONS), answered=answered))
    for i, q in enumerate(QUESTIONS, 1):
        with st.container(border=True), shown_errors(lang, where=f"question {q.id}"):
            question(i, q, seed, lang)
    right, answered = score()
    st.subheader(t("quiz.score", lang, right=right, total=len(QUESTIONS), answered=answered))
    if right == len(QUESTIONS):
        st.success(t("quiz.all_right", lang, total=len(QUESTIONS)), icon=":material/school:")
    st.button(t("quiz.reset", lang), key=f"{NS}.reset", icon=":material/restart_alt:", on_click=_reset)
