"""A twin of a workspace, changed by the real CLI, to compare the dashboard's files with.

A change made from the page must leave the files exactly as the matching `orbit`
command leaves them; only the time stamps (`updated_at`, `voted_at`) may differ.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from tests.testing import run_orbit

STAMP = re.compile(r"^(\s*updated_at:\s*).*$", re.MULTILINE)


def make_twin(root: Path, twin: Path) -> Path:
    """A copy of the workspace's files (its derived state left behind)."""
    shutil.copytree(root, twin, ignore=shutil.ignore_patterns("state"))
    return twin


def cli(twin: Path, *args: str) -> str:
    """Run the installed `orbit` in the twin, as a reviewer at the repository's root would."""
    outcome = run_orbit(*args, cwd=twin)
    assert outcome.code == 0, outcome.err
    return outcome.out


def learning_text(root: Path, learning_id: str) -> str:
    """learning.yaml with its `updated_at` value blanked: the one line allowed to differ."""
    text = (root / ".orbit/learnings" / learning_id / "learning.yaml").read_text()
    return STAMP.sub(r"\1<stamp>", text)


def learning_data(root: Path, learning_id: str) -> dict[str, Any]:
    """learning.yaml parsed, to compare key by key."""
    from orbit_learnings.store.yamlio import safe_load

    data = safe_load((root / ".orbit/learnings" / learning_id / "learning.yaml").read_text())
    assert isinstance(data, dict)
    return data


def votes(root: Path, learning_id: str) -> list[dict[str, str]]:
    """votes.jsonl rows without their `voted_at`."""
    path = root / ".orbit/learnings" / learning_id / "votes.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [{k: v for k, v in row.items() if k != "voted_at"} for row in rows]


def differing_files(left: Path, right: Path) -> list[str]:
    """Learning folders whose files differ between two workspaces, stamps aside."""
    differ: list[str] = []
    folders = sorted(p.name for p in (left / ".orbit/learnings").iterdir() if p.is_dir())
    for folder in folders:
        if learning_text(left, folder) != learning_text(right, folder):
            differ.append(f"{folder}/learning.yaml")
        if _votes_or_none(left, folder) != _votes_or_none(right, folder):
            differ.append(f"{folder}/votes.jsonl")
    return differ


def _votes_or_none(root: Path, folder: str) -> list[dict[str, str]] | None:
    exists = (root / ".orbit/learnings" / folder / "votes.jsonl").exists()
    return votes(root, folder) if exists else None
