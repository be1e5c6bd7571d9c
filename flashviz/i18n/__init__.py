"""English / Chinese strings for every page, chart and explanation.

Each module in this package defines `STRINGS = {"<module>.<name>": {"en": ..., "zh": ...}}`;
they are merged here (keys must be unique). `t(key, lang, **fmt)` looks one up and formats it.
Chinese terminology follows the seeds: 在线 softmax, 分块, 重缩放, IO 感知, 片上 SRAM, HBM.
"""
from __future__ import annotations

import importlib
import pkgutil

LANGS = {"en": "English", "zh": "中文"}
DEFAULT_LANG = "en"


def _load() -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        for key, entry in getattr(mod, "STRINGS", {}).items():
            if key in merged:
                raise KeyError(f"i18n key {key!r} defined twice (second time in {info.name})")
            merged[key] = entry
    return merged


STRINGS = _load()


def normalise_lang(lang: str | None) -> str:
    """'zh-CN', 'zh_TW', 'ZH' -> 'zh'; anything unknown -> the default."""
    code = (lang or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGS else DEFAULT_LANG


def lang_from_accept_language(header: str | None) -> str:
    """Pick the first supported language of an Accept-Language header ('zh-CN,zh;q=0.9,en;q=0.8')."""
    for part in (header or "").split(","):
        code = part.split(";")[0].strip().lower().split("-")[0]
        if code in LANGS:
            return code
    return DEFAULT_LANG


def t(key: str, lang: str | None = None, **fmt) -> str:
    """The string `key` in `lang` (falls back to English), formatted with `fmt`."""
    entry = STRINGS.get(key)
    if entry is None:
        raise KeyError(f"missing i18n key {key!r}")
    text = entry.get(normalise_lang(lang)) or entry["en"]
    return text.format(**fmt) if fmt else text
