"""Writing a recording: one atomic JSON write every recorder shares (the benchmark command, the variants bench, the
timeline). A leaf module: it imports nothing of the package, so any recorder can use it without an import circle."""
from __future__ import annotations

import json
import os
from pathlib import Path


def write_json(data: dict, path: Path) -> None:
    """Atomic write (temporary file + rename); NaN/inf can never reach the file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
