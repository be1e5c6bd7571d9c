"""tests/helpers/browser.expect_eval without a browser: it waits for the value a page draws late, and fails with the
last value it read when the value never comes (the CI run that read a chip's '::after' once and got 'none')."""
from __future__ import annotations

import pytest

from helpers.browser import expect_eval


class _Page:
    def __init__(self):
        self.waits = 0

    def wait_for_timeout(self, ms):
        self.waits += 1


class _Locator:
    """A locator whose evaluate() answers from a list, then repeats the last answer (an Exception is raised)."""

    def __init__(self, answers):
        self.answers, self.page = list(answers), _Page()

    @property
    def first(self):
        return self

    def evaluate(self, script):
        got = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(got, Exception):
            raise got
        return got


def test_a_value_drawn_late_is_waited_for():
    loc = _Locator(["none", RuntimeError("element redrawn"), "none", '"5 MiB"'])
    assert expect_eval(loc, "e => 0", '"5 MiB"') == '"5 MiB"'
    assert loc.page.waits == 3


def test_a_value_that_never_comes_fails_with_the_last_one_read():
    with pytest.raises(AssertionError, match="'none' != '\"5 MiB\"'"):
        expect_eval(_Locator(["none"]), "e => 0", '"5 MiB"', timeout=50)
