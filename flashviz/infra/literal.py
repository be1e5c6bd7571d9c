"""Text from outside the app (an uploaded dataset's provenance and messages, an uploaded file's name, an error that
quotes a file) shown as exactly those characters: Markdown, HTML or LaTeX in it must never become a link, a remote
image (a tracking pixel), a colour or a formula on a classroom screen.

    st.caption(f"**GPU** · {literal.md(value)}")          # Streamlit Markdown (st.markdown, caption, info, ...)
    t("export.why_start_failed", lang, detail=literal.code(err))   # the same, as one code span (a literal)
    dict(customdata=[literal.plotly(msg)], ...)          # Plotly titles, names, hover text
"""
from __future__ import annotations

import html
import string

_PUNCT = frozenset(string.punctuation)        # CommonMark: a backslash before any ASCII punctuation makes it literal


def md(text) -> str:
    """`text` for a Markdown body: every ASCII punctuation character backslash-escaped, so no link, image,
    emphasis, code, HTML, math ($), directive (:red[...], :material/...:) or autolink (http://, www., a@b.c) can
    form; line breaks become spaces (no headings, lists or quotes from a value's own lines)."""
    flat = " ".join(str(text).splitlines())
    return "".join("\\" + c if c in _PUNCT else c for c in flat)


def code(text) -> str:
    """`text` as one Markdown code span: shown verbatim in monospace; a backtick inside (which would end the span
    early) becomes ', line breaks become spaces."""
    return "`" + " ".join(str(text).replace("`", "'").splitlines()) + "`"


def plotly(text) -> str:
    """`text` for Plotly (titles, trace names, hover and annotation text render a subset of HTML): &, < and >
    as entities, so <a href>, <img>, <span style> and <br> stay text."""
    return html.escape(str(text), quote=False)


def unmd(body: str) -> str:
    """What Markdown shows for a body made with md(): the backslash escapes removed (for tests and logs)."""
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] in _PUNCT:
            i += 1
        out.append(body[i])
        i += 1
    return "".join(out)
