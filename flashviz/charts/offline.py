"""The offline stepper, pure (no streamlit): one self-contained HTML page that steps through a configuration with no
server and no network (the stepper page's "offline page" download). plotly.js is inlined from the installed plotly
package, the player from flashviz/client, the payload from flashviz/charts/stepper_payload.py."""
from __future__ import annotations

import json
import re

from .. import __version__
from . import palette as P
from .export import escape, plain

OFFLINE_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="generator" content="flashviz {version}" />
<title>{title}</title>
<style>
body {{ font-family: "Source Sans Pro", "Noto Sans CJK SC", "Noto Sans SC", "Microsoft YaHei", Arial, sans-serif;
        color: {text_color}; max-width: 1200px; margin: 1.5rem auto; padding: 0 1rem; }}
h1 {{ font-size: 2rem; margin: 0 0 0.5rem; }} h2 {{ font-size: 1.4rem; margin: 1.5rem 0 0.5rem; }}
.fv-meta {{ font-size: 0.85rem; opacity: 0.7; }}
{css}
</style>
<script type="application/json" id="flashviz-metadata">{meta}</script>
<script type="application/json" id="flashviz-payload">{payload}</script>
<script>{plotly}</script>
<script>{player}</script>
</head>
<body>
<h1>{title}</h1>
<p>{intro}</p>
<p class="fv-meta">{describe} {keys}</p>
<div id="fv-main"></div>
<h2>{formula}</h2>
<div id="fv-formula"></div>
<h2>{acc}</h2>
<div id="fv-acc"></div>
<p class="fv-meta">{note}</p>
<script>
(function () {{
  var V = FV.player, P = V.decode(JSON.parse(document.getElementById("flashviz-payload").textContent));
  var s = V.store("offline");
  V.setPayload(s, P, {{ nonce: 0, goto: 0, present: false, fmt: "png" }});
  [["fv-main", "main"], ["fv-formula", "formula"], ["fv-acc", "acc"]].forEach(function (x) {{
    V.mount(document.getElementById(x[0]), x[1], s, P.id);
  }});
  V.schedule(s);
}})();
</script>
</body>
</html>
"""


def _json_in_script(text: str) -> str:
    """JSON that cannot end the <script> element it sits in ("<\\/" is "</" in JSON)."""
    return text.replace("</", "<\\/")


def _js_in_script(text: str) -> str:
    """JavaScript that cannot end its <script> element: only "</script" can, and only inside a string there."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE)


def _md(text: str) -> str:
    """HTML of the few Markdown marks the app's strings use (**bold**, *italic*, `code`), escaped."""
    out = escape(str(text))
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    out = re.sub(r"\*(.+?)\*", r"<i>\1</i>", out)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", out)


def stepper_html(payload: bytes, texts: dict, lang: str, *, meta: dict | None = None) -> bytes:
    """One self-contained page that steps through a configuration with no server and no network: plotly.js
    inlined (the installed plotly package's copy, as write_html(include_plotlyjs=True) does), the stepper's
    script (flashviz/client) and the configuration's payload (flashviz/charts/stepper_payload.py). `texts`:
    title, intro, describe, keys, formula, acc, note in the page's language."""
    from plotly.offline import get_plotlyjs

    from .. import client
    doc = {"app": "flashviz", "version": __version__, "file": "offline stepper", **plain(meta or {}, json_safe=True)}
    fields = {k: _md(v) for k, v in texts.items()}
    html = OFFLINE_PAGE.format(lang=escape(lang), version=__version__, css=client.css(), text_color=P.PAGE_TEXT,
                               meta=_json_in_script(json.dumps(doc, ensure_ascii=False, allow_nan=False)),
                               payload=_json_in_script(payload.decode("utf-8")), plotly=_js_in_script(get_plotlyjs()),
                               player=_js_in_script(client.player_js()), **fields)
    return html.encode("utf-8")
