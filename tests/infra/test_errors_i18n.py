"""Every error a user can see is translated: typed errors carry a message key, and a Chinese page shows no English
error sentence for bad input (N = 0, negative, tile > N, unsupported d, NaN scores, a bad upload, ...)."""
from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from helpers import app as app_util
from flashviz.bench.dataset import parse_dataset
from flashviz.infra.errors import DatasetError, FlashvizError, InputError
from flashviz.infra.literal import unmd
from flashviz.i18n import STRINGS
from flashviz.i18n.errors import TERMS, kernel_message, message
from flashviz.engine.online_softmax import online_softmax_trace, parse_scores
from flashviz.engine.tiling import make_config
from flashviz.ui.config import Config

ROOT = Path(__file__).resolve().parents[2]
# four or more English words in a row: an untranslated sentence (single terms such as "tile" or "Br" are fine)
ENGLISH_SENTENCE = re.compile(r"[A-Za-z]{2,}(?:[ ,'’]+[A-Za-z]{2,}){3,}")


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            yield node


def _name(node) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


SOURCES = sorted(p for p in (ROOT / "flashviz").rglob("*.py") if "i18n" not in p.parts)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_typed_errors_carry_a_known_key(path):
    """InputError / DatasetError / FlashvizError are raised with key=..., never with an English-only text (the one
    exception wraps a kernel error with `from e`, whose own key is translated)."""
    for call in _calls(path):
        if _name(call) not in ("InputError", "DatasetError", "FlashvizError"):
            continue
        kw = {k.arg: k.value for k in call.keywords}
        if "key" not in kw:
            assert ast.unparse(call) == "InputError(str(e))", f"{path.name}:{call.lineno} {ast.unparse(call)}"
            continue
        key = kw["key"].value
        assert key in STRINGS, f"{path.name}:{call.lineno} unknown key {key}"
        fields = {f for _, f, _, _ in string.Formatter().parse(STRINGS[key]["en"]) if f}
        assert fields == set(kw) - {"key"}, f"{path.name}:{call.lineno} {key}: {fields} vs {set(kw)}"
    if path.name == "dataset.py":                 # fail(where, "<what>", **params) -> errors.ds_<what>
        for call in _calls(path):
            if _name(call) in ("_fail", "fail"):
                assert f"errors.ds_{call.args[1].value}" in STRINGS, f"dataset.py:{call.lineno}"


def test_named_quantities_are_terms():
    """Every literal name handed to a range check is a translated term."""
    for path in SOURCES:
        for call in _calls(path):
            if _name(call) in ("check_int", "_int") and call.args and isinstance(call.args[0], ast.Constant):
                assert call.args[0].value in TERMS, f"{path.name}:{call.lineno} {call.args[0].value!r}"
    for label in ("N", "head dim d", "query block Br", "tile size Bc", "seed", "query row", "batch B", "heads H"):
        assert label in TERMS


def test_kernel_keys_exist():
    for path in (ROOT / "kernels").glob("*.py"):
        for call in _calls(path):
            for k in call.keywords:
                if k.arg == "key" and isinstance(k.value, ast.Constant) and _name(call).startswith("Kernel"):
                    assert f"errors.{k.value.value}" in STRINGS, f"{path.name}:{call.lineno}"


def test_english_str_and_chinese_localized():
    with pytest.raises(InputError) as e:
        make_config(0, 64, br=1, bc=1)
    assert str(e.value) == "N must be in 1..1048576, got 0"
    assert e.value.localized("zh") == "N 必须在 1..1048576 之间，当前为 0"
    with pytest.raises(InputError) as e:
        online_softmax_trace([1.0, 2.0], [[1.0], [2.0]], 3)
    assert e.value.localized("zh") == "tile 大小必须在 1 到 N = 2 之间，当前为 3"
    with pytest.raises(InputError) as e:
        parse_scores("1, nan")
    assert "NaN" in str(e.value) and e.value.localized("zh").startswith("第 2 个分数是 NaN")
    with pytest.raises(InputError) as e:
        Config(d=0).check()
    assert e.value.localized("zh") == "头维度 d 必须在 1 到 256 之间，当前为 0"
    with pytest.raises(DatasetError) as e:
        parse_dataset(b'{"schema_version": 1, "kind": "flashviz-bench", "provenance": 3, "sweep": {}, "cells": []}')
    assert str(e.value) == "provenance: must be an object" and e.value.localized("zh") == "provenance：必须是一个 JSON 对象"
    with pytest.raises(DatasetError) as e:
        parse_dataset(b"{not json")
    assert not ENGLISH_SENTENCE.search(e.value.localized("zh")), e.value.localized("zh")
    assert FlashvizError("plain").localized("zh") == "plain"          # a message without a key is shown as it is


def test_kernel_errors_by_key_and_by_class():
    import flashviz_kernels as fk
    e = fk.KernelInputError("block_m = 512 is above the largest tile, 256", key="kernel_block_max",
                            name="block_m", got=512, cap=256)
    assert str(e) == "block_m = 512 is above the largest tile, 256"         # API users keep the English text
    assert message(e, "zh") == "block_m（Br） = 512 超过了最大的 tile 大小 256"
    oom = fk.KernelOutOfMemory("GPU out of memory for {...}: CUDA out of memory")
    assert message(oom, "zh").startswith("这个配置让 GPU 显存不足（原始信息：")
    wrapped = InputError(str(oom))
    wrapped.__cause__ = oom
    assert wrapped.localized("zh") == kernel_message(oom, "zh")
    with pytest.raises(fk.KernelInputError) as info:                    # a real raise site carries its key
        fk.attention(*(__import__("torch").zeros(1, 1, 16, 512) for _ in range(3)), impl="teaching")
    assert info.value.key == "kernel_head_dim" and "512" in message(info.value, "zh")


# ----------------------------------------------------------------------------- pages in Chinese with bad input

STEPPER, BLOCKS, DECODING, SPEED, BACKWARD = "stepper", "blocks", "decoding", "speed", "backward"   # page slugs
BAD = [
    (STEPPER, dict(n=0)), (STEPPER, dict(n=-5)), (STEPPER, dict(block_n=20)), (STEPPER, dict(d=300)),
    (STEPPER, dict(scores="1, nan, 2")), (STEPPER, dict(scores="1, x")), (STEPPER, dict(masked="99")),
    (STEPPER, dict(row=40)), (STEPPER, dict(seed=-1)),
    (BLOCKS, dict(n=0)), (BLOCKS, dict(block_m=5000)), (BLOCKS, dict(d=300)),
    (BLOCKS, {"blocks.gpu": "custom", "blocks.sram_kib": 0}), (BLOCKS, {"blocks.batch": 0}),
    (DECODING, dict(n=0)), (DECODING, dict(block_n=0)), (DECODING, dict(d=-1)),
    (SPEED, dict(n=0)), (SPEED, {"speed.batch": 0}),
    (BACKWARD, dict(n=0)), (BACKWARD, dict(d=300)),
]


def _shown(at) -> list[str]:
    return [str(e.value) for kind in ("error", "warning") for e in getattr(at, kind)]


def _assert_chinese(msgs: list[str]) -> None:
    assert msgs, "the bad input showed no message at all"
    for m in msgs:
        assert re.search(r"[\u4e00-\u9fff]", m), m
        assert not ENGLISH_SENTENCE.search(m), m


@pytest.mark.parametrize("page, values", BAD, ids=[f"{p.split('/')[-1][:-3]}-{v}" for p, v in BAD])
def test_a_chinese_page_shows_bad_input_in_chinese(page, values):
    at = app_util.open_page(page, lang="zh", **values)
    assert not at.exception
    _assert_chinese(_shown(at))


@pytest.mark.parametrize("name, data", [("broken.json", b"{not json at all"), ("list.json", b"[1, 2]"),
                                        ("nan.json", b'{"schema_version": NaN}'),
                                        ("fields.json", b'{"schema_version": 1, "kind": "flashviz-bench", '
                                                        b'"provenance": {}, "sweep": {}, "cells": []}')])
def test_a_rejected_upload_is_explained_in_chinese(name, data):
    at = app_util.open_page(SPEED, lang="zh")
    at.file_uploader[0].set_value((name, data, "application/json")).run()
    assert not at.exception and at.error
    _assert_chinese(_shown(at))
    assert name in unmd(at.error[0].value)                  # the file name, shown as plain text


def test_a_recorded_oom_is_explained_in_chinese_and_its_english_text_marked_as_the_original():
    at = app_util.open_page(SPEED, lang="zh", n=16384, d=128, dtype="float16")
    assert not at.exception
    notes = [w.value for w in at.warning]
    assert notes and all("显存不足（OOM）。测量时记录的原始英文信息：" in w for w in notes)
    for w in notes:                       # the sentence is Chinese; English appears only after the marker
        assert not ENGLISH_SENTENCE.search(w.split("原始英文信息：")[0])
