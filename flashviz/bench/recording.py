"""The top of a committed recording (HBM bytes, ring attention, variants, timelines): one check for every kind;
and the one order in which pages offer recordings (complete_first).

Their schemas speak plain English (nobody uploads them), unlike the timing datasets' translated messages in
flashviz/bench/dataset.py; both are made of flashviz/bench/schema.py's guarded reading and field checks.
"""
from __future__ import annotations

from flashviz.infra.errors import DatasetError

from . import schema as sc


def check_object(where: str, obj, keys, required=()) -> None:
    """A nested object of a recording (a cell, its config or method), the same for every kind: an object, no field
    the schema does not name, the required ones present."""
    if not isinstance(obj, dict):
        sc.fail(where, "must be an object")
    for k in obj:
        if k not in keys:
            sc.fail(f"{where}.{str(k)[:40]}", "is not a field of the schema")
    for k in required:
        if k not in obj:
            sc.fail(where, f"missing required field {k!r}")


def check_top(obj, *, kind: str, about: str, versions: tuple, keys, required) -> None:
    """The top of a recording, the same for every kind (HBM, ring, variants, timeline): an object not nested too
    deep, its kind and schema version, no unknown and no missing keys, and the run's complete / elapsed_s / stopped."""
    if not isinstance(obj, dict):
        raise DatasetError(key="errors.ds_top_object")
    if sc.depth(obj) > sc.MAX_DEPTH:
        raise DatasetError(key="errors.ds_too_deep", max=sc.MAX_DEPTH)
    if obj.get("kind") != kind:
        sc.fail("kind", f"must be {kind!r} ({about})")
    v = obj.get("schema_version")
    if isinstance(v, bool) or v not in versions:
        sc.fail("schema_version", f"{str(v)[:20]} is not supported (this version reads "
                                    f"{' and '.join(str(x) for x in versions)})")
    for k in obj:
        if k not in keys:
            sc.fail(str(k)[:40], "is not a field of the schema")
    for k in required:
        if k not in obj:
            sc.fail(k, "missing")
    sc.boolean("complete", obj.get("complete"), null=True)
    sc.number("elapsed_s", obj.get("elapsed_s"), bound=1e7)
    sc.text("stopped", obj.get("stopped"), 300, null=True)


def complete_first(recordings):
    """The same recordings (a dict name -> recording, or a list of recordings), complete ones first, each group in
    its given order (newest name first): a run cut short by its time budget stays listed but is never the one a
    page opens on, nor the one it reads a number from, while a complete recording exists."""
    if isinstance(recordings, dict):
        return dict(sorted(recordings.items(), key=lambda kv: kv[1].get("complete", True) is False))
    return sorted(recordings, key=lambda r: r.get("complete", True) is False)
