"""The toolkit every recorded-dataset schema shares (timing datasets, HBM bytes, ring attention, variants, timelines,
tune files): guarded JSON reading (size cap, strict UTF-8, no NaN / Infinity / huge numbers / duplicate keys,
nesting depth), the field checks a validator is made of (fail, text, number, int_in, boolean, provenance,
unique_cells), and
Schema: one validator turned into parse (bytes), load (a path or bytes) and list (a folder, newest name first).
Nothing is ever evaluated. fail's `what` is the key of a translated message (flashviz/i18n/errors.py, for the
datasets users upload) or, for recordings nobody uploads, a plain English text.
"""
from __future__ import annotations

import datetime
import json
import math
import os
from pathlib import Path

from flashviz.infra.errors import DatasetError
from flashviz_kernels.rules import as_int

MAX_BYTES = 5 * 1024 * 1024
MAX_DEPTH = 6
_NUM = (int, float)
PROV_REQUIRED = ("device", "device_name", "torch", "python", "platform", "created_utc", "git_commit", "command",
                 "timer")
PROV_INTS = ("sm_count", "total_memory_bytes", "cudnn_version", "cpu_threads")
PROV_BOOLS = ("git_dirty",)


def fail(where: str, what: str, **params):
    """A schema error at `where` (a JSON path); `what` is the key of the message (flashviz/i18n/errors.py) or, for
    the schemas of the committed recordings that nobody uploads (HBM bytes, ring attention), a plain English text."""
    from flashviz.i18n.errors import STRINGS
    if f"errors.ds_{what}" not in STRINGS:
        raise DatasetError(key="errors.ds_field_text", where=where, what=what)
    raise DatasetError(key="errors.ds_field", where=where, what=(f"errors.ds_{what}", params))


def _or_null(kind: str, null: bool) -> str:
    return f"{kind} or null" if null else kind


def _reject_constant(name):
    raise DatasetError(key="errors.ds_literal", name=name)


def _float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise DatasetError(key="errors.ds_overflow", text=text[:40])
    return x


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 24:
        raise DatasetError(key="errors.ds_int_long", text=text[:40])
    return int(text)


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise DatasetError(key="errors.ds_dup_key", k=repr(k[:60]))
        out[k] = v
    return out


def depth(obj) -> int:
    deepest, stack = 0, [(obj, 0)]
    while stack:
        o, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > MAX_DEPTH:
            break
        if isinstance(o, dict):
            stack += [(v, d + 1) for v in o.values()]
        elif isinstance(o, list):
            stack += [(v, d + 1) for v in o]
    return deepest


def read_json(data: bytes):
    """Bytes of a dataset file -> the parsed JSON object, read with every guard (size, UTF-8, no NaN or huge
    numbers, no duplicate keys, depth); DatasetError otherwise. Shared by every recorded-dataset schema."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DatasetError(key="errors.ds_bytes_type", got=type(data).__name__)
    data = bytes(data)
    if len(data) > MAX_BYTES:
        raise DatasetError(key="errors.ds_file_size", mib=f"{len(data) / 2**20:.1f}", cap=f"{MAX_BYTES / 2**20:.0f}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DatasetError(key="errors.ds_not_utf8", reason=e.reason, pos=e.start) from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_float, parse_int=_int,
                          object_pairs_hook=_no_duplicates)
    except DatasetError:                                 # ours, from the hooks above: already says what is wrong
        raise
    except json.JSONDecodeError as e:
        raise DatasetError(key="errors.ds_not_json", reason=e.msg, line=e.lineno, col=e.colno) from None
    except RecursionError:
        raise DatasetError(key="errors.ds_too_deep", max=MAX_DEPTH) from None
    except ValueError as e:                              # int conversion limits etc.
        raise DatasetError(key="errors.ds_value", detail=str(e)) from None


def read_source(source) -> bytes:
    """A path (str or Path) or bytes -> the bytes of a dataset file, within MAX_BYTES; DatasetError otherwise."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    path = Path(os.fspath(source))
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise DatasetError(key="errors.ds_path_size", name=path.name, mib=f"{size / 2**20:.1f}",
                               cap=f"{MAX_BYTES / 2**20:.0f}")
        return path.read_bytes()
    except OSError as e:
        raise DatasetError(key="errors.ds_cannot_read", name=path.name, reason=e.strerror) from None


def text(where, v, limit=200, null=False):
    if v is None and null:
        return
    if not isinstance(v, str):
        fail(where, "type", kind=_or_null("a string", null), got=type(v).__name__)
    if len(v) > limit:
        fail(where, "too_long", limit=limit)


def number(where, v, kind="nonneg", bound=1e30, null=True):
    if v is None and null:
        return
    if isinstance(v, bool) or not isinstance(v, _NUM):
        fail(where, "type", kind=_or_null("a number", null), got=type(v).__name__)
    if not math.isfinite(v):
        fail(where, "finite")
    if v < 0 or (kind == "pos" and v == 0):
        fail(where, "sign", sign="positive" if kind == "pos" else "non-negative", got=v)
    if v > bound:
        fail(where, "large", got=f"{v:g}", bound=f"{bound:g}")


def int_in(where, v, lo, hi, null=False):
    if v is None and null:
        return
    if as_int(v) is None:
        fail(where, "type", kind=_or_null("an integer", null), got=type(v).__name__)
    if not lo <= v <= hi:
        fail(where, "range", lo=lo, hi=hi, got=v)


def boolean(where, v, null=False):
    if not (isinstance(v, bool) or (null and v is None)):
        fail(where, "bool", kind=_or_null("true or false", null))


def provenance(p):
    if not isinstance(p, dict):
        fail("provenance", "object")
    for k in PROV_REQUIRED:
        if k not in p:
            fail("provenance", "missing_field", field=repr(k))
    for k, v in p.items():
        where = f"provenance.{k}"
        text(where + " (key)", k, 60)
        if k in PROV_INTS:
            int_in(where, v, 0, 1 << 60, null=True)
        elif k in PROV_BOOLS:
            boolean(where, v, null=True)
        elif k in PROV_REQUIRED:
            text(where, v, 4000 if k == "command" else 300)
        else:
            text(where, v, 300, null=True)
    if p["device"] not in ("cuda", "cpu"):
        fail("provenance.device", "device", got=repr(p["device"][:40]))
    try:
        datetime.datetime.fromisoformat(p["created_utc"])
    except ValueError:
        fail("provenance.created_utc", "not_iso")


def unique_cells(cells, check, key, *, most: int, least: int = 0, same: str) -> None:
    """A recording's "cells": a list of `least` to `most` cells (least 0: at most `most`), each checked by
    check(i, cell), no two with one key(cell); `same` says what the key holds (plain English: for the recordings
    nobody uploads)."""
    if not isinstance(cells, list) or not least <= len(cells) <= most:
        fail("cells", f"must be a list of {least} to {most} cells" if least else f"must be a list of at most {most} cells")
    seen = set()
    for i, c in enumerate(cells):
        check(i, c)
        k = key(c)
        if k in seen:
            fail(f"cells[{i}]", f"duplicates an earlier cell (same {same})")
        seen.add(k)


def list_json(directory: Path) -> list[Path]:
    """The *.json files of a folder, newest name first; [] if the folder is absent."""
    return sorted(directory.glob("*.json"), reverse=True) if directory.is_dir() else []


class Schema:
    """One validator (obj -> obj, DatasetError when it does not follow the schema) and the folder of its committed
    files (a function returning it, read at each call: tests and pages may point a module's DEFAULT_DIR elsewhere),
    as parse (bytes), load (a path or bytes) and list (the folder's *.json, newest name first)."""

    def __init__(self, validate, directory):
        self.validate, self.directory = validate, directory

    def parse(self, data: bytes) -> dict:
        """Bytes of a file -> the validated recording."""
        return self.validate(read_json(data))

    def load(self, source) -> dict:
        """A path (str or Path) or bytes -> the validated recording."""
        return self.parse(read_source(source))

    def list(self, directory=None) -> list[Path]:
        """The committed recordings of this kind, newest name first; [] while none is recorded."""
        return list_json(Path(directory) if directory is not None else Path(self.directory()))
