"""`make demo`'s workspace: a real session whose store has nothing stale to show."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.testing import REPO, run_orbit


@pytest.mark.skipif(
    not (REPO / ".venv/bin/orbit").exists(), reason="scripts/demo.sh runs the .venv's orbit"
)
def test_the_demo_store_has_no_stale_learning(tmp_path: Path) -> None:
    """Its learnings name code that is there, in a repository of its own: inside this
    checkout (where /demo-workspace/ is ignored) git would list none of its files."""
    demo = tmp_path / "demo"
    session = subprocess.run(
        ["bash", str(REPO / "scripts/demo.sh"), str(demo)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert session.returncode == 0, session.stderr
    pruned = run_orbit("learning", "prune", "--json", cwd=demo)
    assert pruned.code == 0 and json.loads(pruned.out)["stale"] == []
    listed = run_orbit("learning", "list", "--json", cwd=demo)
    assert len(json.loads(listed.out)["results"]) == 15
