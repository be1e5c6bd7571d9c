"""The whole online-softmax algorithm for one query row in a dozen lines of plain Python, as the stepper page shows
it (this project's own version of the loop the seed text gives). LOOP_SOURCE is the text on the page, and
`online_softmax` is that very text executed: the tests run what the page shows and compare it with the engine
(flashviz.engine.online_softmax), which does the same with a guard for fully masked tiles and a trace of every step."""
from __future__ import annotations

LOOP_SOURCE = '''\
import math
import numpy as np

def online_softmax(scores, values, tile):
    """softmax(scores) @ values, reading the keys one tile at a time."""
    m, l = -math.inf, 0.0              # running max, running sum of exp(s - m)
    o = np.zeros(values.shape[1])      # running sum of exp(s - m) * v, not yet divided by l
    for start in range(0, len(scores), tile):
        s = scores[start:start + tile]         # this tile's scores: all that is on chip
        m_new = max(m, s.max())
        alpha = math.exp(m - m_new)            # puts what was summed so far on the new max
        p = np.exp(s - m_new)
        l = alpha * l + p.sum()
        o = alpha * o + p @ values[start:start + tile]
        m = m_new
    return o / l
'''

_namespace: dict = {}
exec(compile(LOOP_SOURCE, "<flashviz.engine.softmax_loop>", "exec"), _namespace)
online_softmax = _namespace["online_softmax"]
