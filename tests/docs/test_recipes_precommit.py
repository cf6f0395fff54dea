"""The pre-commit recipe (docs/curation.md), run by the real pre-commit tool.

`repo:` and `rev:` point at a commit of this work tree (tests/docs/precommit.py); a valid store
passes, and a commit of a broken learning is refused by the hook `pre-commit install` set up.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.precommit import WarmUp, configured, pre_commit
from tests.docs.recipes import Block, recipes_for
from tests.docs.sandbox import Sandbox, Snapshot, Templates
from tests.testing import REPO

CONFIGS = recipes_for(".pre-commit-config.yaml")


def test_the_hook_manifest_is_valid(sandbox: Sandbox) -> None:
    done = pre_commit(sandbox, "validate-manifest", str(REPO / ".pre-commit-hooks.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("block", CONFIGS, ids=lambda b: b.where)
def test_the_hook_passes_a_valid_store_and_refuses_a_broken_commit(
    block: Block,
    snapshot: Snapshot,
    templates: Templates,
    pre_commit_home: Path,
    pre_commit_warm_up: WarmUp,
    tmp_path: Path,
) -> None:
    box = configured(block, snapshot, templates, pre_commit_home, tmp_path)
    pre_commit_warm_up.wait()
    passed = pre_commit(box, "run", "--all-files")
    assert passed.returncode == 0, passed.stdout + passed.stderr

    assert pre_commit(box, "install").returncode == 0
    broken = box.repo / ".orbit" / "learnings" / "L-0002" / "learning.yaml"
    broken.write_text(broken.read_text(encoding="utf-8") + "scope: [\n", encoding="utf-8")
    commit = box.run("git add -A\ngit commit -q -m 'a broken learning'\n")
    assert commit.returncode != 0, commit.stdout + commit.stderr
    assert ".orbit/learnings/L-0002/learning.yaml" in commit.stdout + commit.stderr
