"""The rules the kernels and the app share, each kept in one place: what counts as an integer, which tiles
the compiled kernels take, bytes per element and how bytes are written, which query row follows N, and where
colours come from, and which room may import which."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
import torch

import flashviz_kernels as fk
from flashviz.charts import palette as P
from flashviz.infra.errors import InputError, check_int
from flashviz.ui.config import follow_row
from flashviz.infra.units import ELEM_BYTES, KERNEL_DTYPES, fmt_bytes
from flashviz_kernels import api, rules


@pytest.mark.parametrize("x", [3, np.int64(3), np.int32(3), np.uint16(3), np.int8(3)])
def test_integral_numbers_are_integers(x):
    assert rules.as_int(x) == 3 and type(rules.as_int(x)) is int
    assert check_int("N", x, 1, 4) == 3


@pytest.mark.parametrize("x", [True, False, np.True_, 3.0, np.float64(3), "3", None, torch.tensor(3), [3]])
def test_bools_floats_and_the_rest_are_not(x):
    assert rules.as_int(x) is None
    with pytest.raises(InputError, match="N must be an integer"):
        check_int("N", x, 1)


def test_one_message_for_the_app_and_the_kernels():
    """The app's InputError and the kernels' KernelInputError say the same thing for the same value."""
    for x, lo, hi, msg in [(0, 1, 4, "N must be in 1..4, got 0"), (9, 1, None, None),
                           (0, 1, None, "N must be at least 1, got 0"), (9, None, 4, "N must be at most 4, got 9"),
                           (2.5, 1, 4, "N must be an integer, got 2.5")]:
        if msg is None:
            assert check_int("N", x, lo, hi) == rules.check_int("N", x, lo, hi) == x
            continue
        with pytest.raises(InputError) as app:
            check_int("N", x, lo, hi)
        with pytest.raises(fk.KernelInputError) as kernel:
            rules.check_int("N", x, lo, hi, error=fk.KernelInputError)
        assert str(app.value) == str(kernel.value) == msg


def test_tile_rule():
    gpu = [x for x in range(1, 600) if rules.is_gpu_tile(x)]
    assert gpu == [16, 32, 64, 128, 256]
    assert rules.is_gpu_tile(np.int64(64)) and not rules.is_gpu_tile(64.0) and not rules.is_gpu_tile(True)
    assert rules.tile_problem(24, compiled=False, any_size=True) is None          # the teaching kernel pads lanes
    assert "power of two" in rules.tile_problem(24, compiled=False)              # the fast kernel does not
    assert rules.tile_problem(8, compiled=False) is None                          # the interpreter takes < 16
    assert ">= 16" in rules.tile_problem(8, compiled=True)
    assert [rules.next_pow2(x) for x in (0, 1, 2, 3, 17, 64, 65)] == [1, 1, 2, 4, 32, 64, 128]


def test_elem_bytes_are_torch_element_sizes():
    for name, b in ELEM_BYTES.items():
        assert torch.empty(0, dtype=getattr(torch, name)).element_size() == b
    assert set(KERNEL_DTYPES) == {str(d).removeprefix("torch.") for d in api.KERNEL_DTYPES}


def test_fmt_bytes():
    assert [fmt_bytes(b) for b in (0, 512, 1023, 1024, 1536, 3 * 2 ** 20, 2 ** 30, 5 * 2 ** 40)] == [
        "0 B", "512 B", "1023 B", "1.00 KiB", "1.50 KiB", "3.00 MiB", "1.00 GiB", "5.00 TiB"]
    assert fmt_bytes(float("nan")) == fmt_bytes(float("inf")) == "—"


@pytest.mark.parametrize("row,old_n,new_n,want", [
    (15, 16, 64, 15),          # a row that still exists stays where it was (the last row too)
    (3, 16, 64, 3),
    (40, 64, 16, 15),          # would fall off the end: the new last row (the stepper says so)
    (15, 16, 0, 15),           # an invalid N leaves the row alone (the config check reports N)
    (15, 16, None, 15),
    (np.int64(15), 16, np.int64(32), 15),
    (np.int64(40), 64, np.int64(32), 31),
    ("x", 16, 32, "x"),
])
def test_row_follows_n(row, old_n, new_n, want):
    assert follow_row(row, old_n, new_n) == want


def test_colours_come_from_the_palette():
    """A page or a chart names its colours from flashviz/charts/palette.py: no colour literal elsewhere there."""
    root = Path(__file__).resolve().parents[2] / "flashviz"
    literal = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|rgba?\(")
    found = [f"{p.relative_to(root)}:{i}: {line.strip()}"
             for p in sorted([*(root / "ui").glob("*.py"), *(root / "charts").glob("*.py")]) if p.name != "palette.py"
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if literal.search(line)]
    assert found == []
    assert literal.search(P.VERMILLION) and len(set(P.SEQUENCE)) == len(P.SEQUENCE)


ROOM_FLOORS = {"i18n": 0, "client": 0, "infra": 1, "engine": 2, "charts": 3, "bench": 3, "ui": 4}


def _imported_rooms(path: Path, package: list[str]) -> set[str]:
    """The rooms (flashviz.<room>, or "kernels" for flashviz_kernels) that a module imports, lazy imports too."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            names = [mod] if node.module else [f"{mod}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "flashviz_kernels":
                out.add("kernels")
            elif parts[0] == "flashviz" and len(parts) > 1 and parts[1] in ROOM_FLOORS:
                out.add(parts[1])
    return out


def test_rooms_import_only_rooms_below_them():
    """The rule of flashviz/__init__.py: a room imports rooms on lower floors only (none above, none beside, so no
    circle between rooms), and the kernels import nothing of flashviz."""
    root = Path(__file__).resolve().parents[2]
    assert {p.name for p in (root / "flashviz").iterdir() if p.is_dir() and p.name != "__pycache__"} == set(ROOM_FLOORS)
    wrong = []
    for room, floor in ROOM_FLOORS.items():
        for p in sorted((root / "flashviz" / room).glob("*.py")):
            for other in _imported_rooms(p, ["flashviz", room]) - {room, "kernels"}:
                if ROOM_FLOORS[other] >= floor:
                    wrong.append(f"flashviz/{room}/{p.name} imports flashviz.{other}")
    for p in sorted((root / "kernels").glob("*.py")):
        if _imported_rooms(p, ["flashviz_kernels"]) - {"kernels"}:
            wrong.append(f"kernels/{p.name} imports flashviz")
    assert wrong == []
