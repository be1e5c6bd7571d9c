"""List every `_`-name that crosses a module boundary: `python -m tools.private_names [ROOT ...] [--modules]`.

A crossing is a module of the project reading another module's private name: `from .x import _y`, or `x._y` on a
module it imported (`from . import x` / `import flashviz.x as x`). Dunders (`__version__`) do not count, nor a
module reaching into itself. --modules also counts imports of private modules (`from . import _env`,
`from ._ws_tile import attend`): a package's private module used inside its package is a different, milder thing,
listed apart. Default roots: flashviz, kernels, tools (the project's code; tests are listed with `tests`).
Prints one line per crossing and the totals; exit 0 always (a count, not a verdict).
"""
from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"flashviz": ROOT / "flashviz", "flashviz_kernels": ROOT / "kernels", "tools": ROOT / "tools"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_of(path: Path) -> str:
    """flashviz.bench.dataset for flashviz/bench/dataset.py; flashviz_kernels.ws for kernels/ws.py."""
    for pkg, base in PACKAGES.items():
        if base in path.parents or path.parent == base:
            rel = path.relative_to(base).with_suffix("")
            parts = [pkg, *rel.parts]
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return path.stem


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module a relative import names."""
    if not level:
        return name or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, name] if name else base)


def _ours(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def crossings(path: Path) -> list[tuple[str, str, str, int]]:
    """(kind, target module, name, line) of each crossing in one file; kind "name" or "module"."""
    me = _module_of(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out, aliases = [], {}                          # local alias -> project module it names
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(me, path.name == "__init__.py", node.level, node.module)
            if not _ours(target):
                continue
            if any(_private(p) for p in target.split(".")[1:]) and target != me:
                out.append(("module", target, "", node.lineno))
            for a in node.names:
                full = f"{target}.{a.name}"
                if _private(a.name) and target != me:
                    is_module = (PACKAGES[target.split(".")[0]] / "/".join(full.split(".")[1:])).with_suffix(
                        ".py").exists()
                    out.append(("module", full, "", node.lineno) if is_module
                               else ("name", target, a.name, node.lineno))
                aliases[a.asname or a.name] = full
        elif isinstance(node, ast.Import):
            for a in node.names:
                if _ours(a.name):
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _private(node.attr):
            target = aliases.get(node.value.id)
            if target and target != me:
                out.append(("name", target, node.attr, node.lineno))
    return out


def scan(roots) -> list[tuple[str, str, str, str, int]]:
    rows = []
    for root in roots:
        base = Path(root) if Path(root).is_absolute() else ROOT / root
        for path in sorted(base.rglob("*.py")):
            for kind, target, name, line in crossings(path):
                rows.append((kind, str(path.relative_to(ROOT)), target, name, line))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", default=["flashviz", "kernels", "tools"])
    ap.add_argument("--modules", action="store_true", help="also list imports of private modules")
    args = ap.parse_args(argv)
    rows = scan(args.roots)
    names = sorted({(f, t, n) for k, f, t, n, _ in rows if k == "name"})
    mods = sorted({(f, t) for k, f, t, n, _ in rows if k == "module"})
    for f, t, n in names:
        print(f"{f}: {t}.{n}")
    if args.modules:
        for f, t in mods:
            print(f"{f}: module {t}")
    print(f"{len(names)} private names cross a module boundary ({len({n for _, _, n in names})} distinct names); "
          f"{len(mods)} imports of private modules")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
