"""The page "Ring attention" read back under AppTest (tests/pages/test_ring_page.py, test_ring_recorded.py): its
Plotly charts as specs, one chart by title, a chart's traces by name, its Markdown, metrics and a table by a column."""

from flashviz.i18n import t
from helpers.app import chart_specs as charts


def chart(at, title: str) -> dict:
    [spec] = [s for s in charts(at) if s["layout"]["title"]["text"] == title]
    return spec


def traces(spec: dict) -> dict:
    return {d["name"]: d for d in spec["data"]}


def markdown(at) -> list[str]:
    return [m.value for m in at.markdown]


def metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def table(at, lang: str, column: str):
    [df] = [d.value for d in at.dataframe if t(column, lang) in d.value.columns]
    return df
