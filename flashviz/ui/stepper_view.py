"""The stepper on the page, stepped in the browser: one Streamlit component (st.components.v2, inline JS and CSS
from flashviz/client, no iframe, no build step) in parts that share one store in the page.

    stepper_view.main(cfg, lang)              controls, step label, score strip, counters, table, recurrence chart
    stepper_view.part("formula", cfg, lang)  the recurrence with this step's numbers (FA2 / Algorithm 1)
    stepper_view.part("acc", cfg, lang)      the accumulator o/ℓ and its distance from the exact answer

The main part carries the configuration's whole trace once (flashviz/charts/stepper_payload.py, built once per
configuration and language and shared read-only by every session); Next, Previous, the slider, the keys and
autoplay then run in the browser and cost the server nothing. A change of N, tile, seed or any sidebar field is a
normal rerun that sends the next configuration's payload. `request_step(i)` moves the browser's step from the
server (a button's callback); the browser keeps its step across reruns otherwise.

plotly.js: the copy inside the installed plotly package, gzip-compressed once into a folder served by this server
(a Streamlit static component route, flashviz.client.plotly_assets), fetched once per browser and kept there.
"""
from __future__ import annotations

import hashlib
import json

import streamlit as st

from flashviz import client
from flashviz.infra.cache import MiB, memo
from flashviz.charts import stepper_payload
from flashviz.engine.online_softmax import Trace, online_softmax_trace
from flashviz.ui import state
from flashviz.ui.config import Config, row_problem

NAME = "flashviz.stepper"
STORE = "stepper"                       # the page's store in the browser (window.__flashviz.stores)
STEP_KEY, NONCE_KEY = "stepper.step", "stepper.nonce"
ASSETS = "assets"                       # v1 component name that only serves flashviz.client.plotly_assets()

_component = st.components.v2.component(NAME, css=client.css(), js=client.module_js(), isolate_styles=False)


def payload_id(cfg: Config, lang: str) -> str:
    return hashlib.sha1(repr((cfg, lang)).encode()).hexdigest()[:16]


@memo("stepper.trace", 128 * MiB)
def trace(cfg: Config, form: str = "fa2") -> Trace:
    """The engine's trace for this configuration in accumulator form `form` (keyed on every field of the frozen
    config); shared by every session, read-only. At N = 16384, d = 256 one trace holds up to ~100 MiB: the budget
    is in bytes."""
    scores, values = row_problem(cfg)
    return online_softmax_trace(scores, values, cfg.tile, guard=cfg.guard, form=form)


@memo("stepper.payload", 64 * MiB)
def payload(cfg: Config, lang: str) -> bytes:
    """The configuration's payload for the browser (flashviz/charts/stepper_payload.py), per configuration and
    language."""
    return stepper_payload.build(trace(cfg, "fa2"), trace(cfg, "fa1"), lang, key=payload_id(cfg, lang),
                                 slug=cfg.slug(), typed=cfg.typed)


_served: dict = {}


def _asset_urls() -> dict:
    """URLs of plotly.js (gzip and plain) on this server; the folder is registered once per runtime as a static
    component route (a Streamlit v1 component that is never drawn, only serves files)."""
    from streamlit import config
    from streamlit.components.v1 import declare_component
    from streamlit.runtime import Runtime
    runtime = id(Runtime.instance()) if Runtime.exists() else None
    if _served.get("runtime") != runtime or "urls" not in _served:
        folder, gz, plain = client.plotly_assets()
        declare_component(ASSETS, path=str(folder))             # this module's name + "." + ASSETS
        base = "/" + config.get_option("server.baseUrlPath").strip("/")
        root = f"{base.rstrip('/')}/component/{__name__}.{ASSETS}"
        _served.update(runtime=runtime, urls={"gz": f"{root}/{gz}", "js": f"{root}/{plain}",
                                              "version": client.plotly_version()})
    return _served["urls"]


def request_step(i: int) -> None:
    """From a callback: the browser goes to step i (0-based) on the next run."""
    ss = st.session_state
    ss[STEP_KEY] = int(i)
    ss[NONCE_KEY] = ss.get(NONCE_KEY, 0) + 1


def _head(part: str, pid: str, **extra) -> bytes:
    ss = st.session_state
    opts = dict(nonce=ss.get(NONCE_KEY, 0), goto=int(ss.get(STEP_KEY, 0) or 0), present=state.presenting(),
                fmt=state.export_format())
    return json.dumps(dict(part=part, key=STORE, id=pid, opts=opts, plotly=_asset_urls(), **extra),
                      separators=(",", ":")).encode()


def main(cfg: Config, lang: str) -> None:
    body = payload(cfg, lang)
    _component(key="stepper.view", data=_head("main", payload_id(cfg, lang)) + b"\n" + body, height="content")


def part(name: str, cfg: Config, lang: str) -> None:
    _component(key=f"stepper.view.{name}", data=_head(name, payload_id(cfg, lang)), height="content")
