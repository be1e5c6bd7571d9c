"""Every measurement file under assets/ names the git commit of the code it measured (issue 29, item 6): in its
provenance, its top-level git_commit, or its text header; a commit re-derived from history afterwards says how."""
import re
from pathlib import Path

import pytest

from flashviz.bench import evidence

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "assets").rglob("*") if p.suffix in (".json", ".txt"))


def test_the_assets_hold_the_recordings():
    assert len(FILES) >= 43 and all(f.startswith("assets/") for f in FILES)


@pytest.mark.parametrize("path", FILES)
def test_each_recording_names_its_commit(path):
    src = evidence.load(path)
    assert isinstance(src.commit, str) and re.fullmatch(r"[0-9a-f]{7,40}", src.commit), (path, src.commit)
    raw = src.raw if isinstance(src.raw, dict) else {}
    if "git_commit_derived" in raw:                                  # named after the run: it says how
        how = raw["git_commit_derived"]
        assert "git" in how and src.commit[:7] in how, how
