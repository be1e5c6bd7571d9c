"""An uploaded dataset is someone else's file: its text (provenance, cell messages, the file's name) must appear on
the speed page as exactly those characters, never as Markdown (links, remote images, colours, LaTeX, HTML) nor as
Plotly's HTML-like markup in a chart.

The check on a Markdown body follows CommonMark's own rule, not our implementation: a backslash before an ASCII
punctuation character makes it literal. So every punctuation character of an uploaded string must be preceded by a
backslash wherever the string appears in a Markdown body, and the body with escapes removed must hold the string.
"""
from __future__ import annotations

import copy
import json
import re
import string
from pathlib import Path


from helpers import app as app_util

ROOT = Path(__file__).resolve().parents[2]
FWD = ROOT / "assets" / "benchmarks" / "nvidia-h200-fwd-2026-12-01b.json"
MARKDOWN_KINDS = ("markdown", "caption", "info", "success", "warning", "error", "title", "header", "subheader")
LINK, IMAGE = "[click](http://evil)", "![x](http://evil/p.png)"
PAYLOAD = {                                           # provenance field -> what the file says
    "device_name": f"GPU {LINK} {IMAGE}",
    "driver_version": ":red[x] $x$",
    "torch": "<img src=x>",
    "triton": "www.evil.example a@evil.example",
    "git_commit": "**bold** `code` &lt;b&gt;",
    "platform": ":material/home: <a href='http://evil'>t</a>",
    "timer": "$$x^2$$ ~~gone~~",
}
MESSAGE = f"<img src=x> {LINK} :blue[y] $z$"          # a failed cell's message
COMMAND = f"python -m flashviz.bench {LINK}"
FILE_NAME = "[file](http://evil).json"


def crafted() -> tuple[bytes, dict]:
    ds = json.loads(FWD.read_bytes())
    ds["provenance"].update(PAYLOAD, command=COMMAND)
    cell = next(c for c in ds["cells"] if (c["impl"], c["n"], c["d"]) == ("fast", 1024, 128) and not c["causal"]
                and c["mode"] == "fwd")
    cell.update(status="error", message=MESSAGE, ms=None, tflops=None, ms_p20=None, ms_p80=None)
    return json.dumps(ds).encode(), ds


def literal_everywhere(text: str, bodies: list[str]) -> int:
    """How many times `text` appears in the bodies; fails where one of its punctuation characters is not escaped."""
    parts = [(r"\\?" + re.escape(c)) if c in string.punctuation else re.escape(c) for c in text]
    found = 0
    for body in bodies:
        for m in re.finditer("".join(parts), body):
            got, i = m.group(0), 0
            for c in text:                                # walk the match: each punctuation char needs its backslash
                if c in string.punctuation:
                    assert got[i] == "\\", (text, got, body[:300])
                    i += 1
                i += 1
            found += 1
    return found


def markup(text: str, body: str) -> bool:
    """Whether `text` occurs in `body` with none of its punctuation escaped (so Markdown would read it as markup)."""
    pattern = "".join((r"(?<!\\)" + re.escape(c)) if c in string.punctuation else re.escape(c) for c in text)
    return re.search(pattern, body) is not None


def unescaped(body: str) -> str:
    return re.sub(r"\\([%s])" % re.escape(string.punctuation), r"\1", body)


def test_an_uploaded_datasets_text_is_shown_as_plain_text():
    raw, ds = crafted()
    at = app_util.open_page("speed", n=1024, d=128, dtype="float16")
    at.file_uploader[0].set_value((FILE_NAME, raw, "application/json")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key="_w.speed.dataset").value == f"upload:{FILE_NAME}"      # the dataset picked
    bodies = [str(e.value) for kind in MARKDOWN_KINDS for e in getattr(at, kind)]
    shown = "\n".join(map(unescaped, bodies))
    for text in [*PAYLOAD.values(), MESSAGE, FILE_NAME]:
        n = literal_everywhere(text, bodies)
        assert n >= 1 and text in shown, (text, n)         # shown, verbatim, and never as markup
    for bad in ("](http", "![", ":red[", ":blue[", "<img", "<a href", "$x$", "**bold**"):
        assert not any(markup(bad, b) for b in bodies), bad    # (the raw forms: none is left anywhere)
    assert [c.value for c in at.code] == [COMMAND]          # st.code is not Markdown: as it is

    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    hover = [str(x) for s in specs for tr in s["data"] for x in (tr.get("customdata") or [])]
    assert any("&lt;img src=x&gt;" in h and LINK in h for h in hover), hover   # the failed cell, as text
    assert not any("<img" in json.dumps(s) or "<a href" in json.dumps(s) for s in specs)


def test_a_rejected_upload_quotes_the_file_as_plain_text():
    raw, ds = crafted()
    bad = copy.deepcopy(ds)
    bad["cells"][0]["impl"] = "[x](http://evil)"             # refused: the message quotes the field's value
    at = app_util.open_page("speed")
    at.file_uploader[0].set_value(("<img src=x>.json", json.dumps(bad).encode(), "application/json")).run()
    assert not at.exception and len(at.error) == 1
    body = at.error[0].value
    assert literal_everywhere("<img src=x>.json", [body]) == 1 and literal_everywhere("[x](http://evil)", [body]) == 1
    assert not markup("](http", body) and not markup("<img", body)
