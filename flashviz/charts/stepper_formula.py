"""The online-softmax recurrence printed with one step's numbers, in FA2's form and in Algorithm 1's (pure).

Each line is a list of segments joined by " = ": symbolic form, substituted numbers, result. The segments are HTML
templates with {name} fields; the browser (flashviz/client/player.js) fills them for the step on screen, and
`text_lines` fills the same templates here, with the same number format (charts.common.fmt_num), and strips the
markup: what a reader sees, as plain text (the tests compare the two).
"""
from __future__ import annotations

import re

import numpy as np

from ..engine.online_softmax import Trace
from .common import fmt_num

SHOWN_DIMS = 4               # components of o written out (the rest as "…")

M_NEW = "<i>m</i><sub>new</sub>"
S_J = "<i>S</i><sub>j</sub>"
P_J = f"exp({S_J} − {M_NEW})"
TEMPLATES = {
    "fa2": [
        [M_NEW, f"max(<i>m</i>, rowmax({S_J}))", "max({m_prev}, {tile_max})", "{m}"],
        ["<i>α</i>", f"exp(<i>m</i> − {M_NEW})", "exp({m_prev} − {m})", "{alpha}"],
        ["<i>ℓ</i><sub>new</sub>", f"<i>α</i>·<i>ℓ</i> + rowsum({P_J})", "{alpha} · {l_prev} + {tile_sum}", "{l}"],
        ["<i>o</i><sub>new</sub>", f"<i>α</i>·<i>o</i> + {P_J}·<i>V</i><sub>j</sub>", "{alpha} · {o_prev} + {pv}",
         "{o}"],
        ["out", "<i>o</i> / <i>ℓ</i>", "{o} / {l}", "{out}"],
    ],
    "fa1": [
        [M_NEW, f"max(<i>m</i>, rowmax({S_J}))", "max({m_prev}, {tile_max})", "{m}"],
        ["<i>α</i>", f"exp(<i>m</i> − {M_NEW})", "exp({m_prev} − {m})", "{alpha}"],
        ["<i>ℓ</i><sub>new</sub>", f"<i>α</i>·<i>ℓ</i> + rowsum({P_J})", "{alpha} · {l_prev} + {tile_sum}", "{l}"],
        ["<i>o</i><sub>new</sub>",
         f"diag(<i>ℓ</i><sub>new</sub>)<sup>−1</sup>(<i>α</i>·<i>ℓ</i>·<i>o</i> + {P_J}·<i>V</i><sub>j</sub>)",
         "(1 / {l}) · ({alpha} · {l_prev} · {o_prev} + {pv})", "{o}"],
        ["out", "<i>o</i>", "{out}"],
    ],
}


def vec(v: np.ndarray, d: int) -> str:
    parts = [fmt_num(float(x)) for x in np.asarray(v)[:SHOWN_DIMS]]
    return "[" + ", ".join(parts) + (", …" if d > SHOWN_DIMS else "") + "]"


def step_values(tr: Trace, step: int) -> dict:
    """The state before the tile (m, ℓ, o) and after it, at `step`, as numbers (o in tr.form)."""
    first = step == 0
    return dict(m_prev=-np.inf if first else tr.m[step - 1], l_prev=0.0 if first else tr.l[step - 1],
                o_prev=np.zeros(tr.d) if first else tr.o[step - 1], tile_max=tr.tile_max[step],
                m=tr.m[step], alpha=tr.alpha[step], tile_sum=tr.tile_sum[step], pv=tr.tile_pv[step],
                l=tr.l[step], o=tr.o[step], out=tr.o_normalised[step])


def shown_values(tr: Trace, step: int) -> dict[str, str]:
    """step_values as the page prints them."""
    v = step_values(tr, step)
    return {k: vec(x, tr.d) if np.ndim(x) else fmt_num(float(x)) for k, x in v.items()}


def fill(template: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)


def text_lines(tr: Trace, step: int) -> list[str]:
    """The recurrence in tr.form at `step`, as plain text: 'symbolic = substituted = result' per line."""
    v = shown_values(tr, step)
    return [re.sub(r"<[^>]+>", "", " = ".join(fill(seg, v) for seg in line)) for line in TEMPLATES[tr.form]]
