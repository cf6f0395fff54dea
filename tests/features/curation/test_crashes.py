"""A write killed at every step it takes (os._exit, as kill -9 would: no cleanup runs),
then the store checked: the old state or the new one, and the next write heals the rest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing import CliRunner

pytestmark = pytest.mark.world  # a child process killed at every step of two writes

CHILD = r"""
import os, sys
from pathlib import Path
steps = int(sys.argv[2])
count = [0]
def dying(real):
    def call(*args, **kwargs):
        count[0] += 1
        if count[0] == steps:
            os._exit(9)  # like kill -9: no finally, no cleanup
        return real(*args, **kwargs)
    return call
for name in ("mkdir", "open", "write", "fsync", "replace", "unlink", "rmdir"):
    setattr(os, name, dying(getattr(os, name)))
from orbit_learnings.core.scope import Scope
from orbit_learnings.store import bundles
from orbit_learnings.store.changes import Changes, update_learning
from orbit_learnings.store.workspace import Workspace
ws = Workspace(sys.argv[1])
if sys.argv[3] == "add":
    bundles.create_learning(ws, bundles.NewLearning("Killed lesson", Scope(["k/**"])))
else:
    update_learning(ws, "L-0001", Changes(summary="Edited lesson"))
print("finished", count[0])
"""


def crash_at(root: Path, step: int, action: str) -> bool:
    """Run the action, dying at the step-th file-system call; True when it finished."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(step), action],
        capture_output=True,
        text=True,
    )
    return proc.returncode == 0 and "finished" in proc.stdout


def test_a_write_killed_at_any_step_leaves_old_or_new_and_heals(
    workspace: Path, orbit: CliRunner
) -> None:
    assert orbit("learning", "add", "--summary", "First lesson", "--tag", "one").code == 0
    tried = 0
    for action in ("add", "update"):
        step = 1
        while not crash_at(workspace, step, action):
            tried += 1
            listed = orbit("learning", "list", "--status", "all", "--json")
            assert listed.code == 0, listed.err  # reads answer right after the crash
            payload = listed.json()
            assert isinstance(payload, dict)
            summaries = {r["summary"] for r in payload["results"]}
            assert summaries & {"First lesson", "Edited lesson"}  # old or new, never neither
            heal = orbit("learning", "add", "--summary", f"Heal {action} {step}", "--tag", "h")
            assert heal.code == 0, heal.err
            assert orbit("learning", "check").code == 0, (action, step)
            step += 1
        assert step > 3  # the action really passed through several steps
    assert tried >= 8
