"""Shell completion, as bash, zsh and fish ask for it: commands, IDs, tags and paths."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing import ORBIT_BIN, CliRunner


def complete(root: Path, shell: str, words: str) -> str:
    """What the installed completion script gets back for the command line `words`."""
    env = {**os.environ, "_ORBIT_COMPLETE": f"complete_{shell}"}
    if shell == "bash":
        env.update(COMP_WORDS=words, COMP_CWORD=str(len(words.split(" ")) - 1))
    else:
        env["_TYPER_COMPLETE_ARGS"] = words
        if shell == "fish":
            env["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    proc = subprocess.run([str(ORBIT_BIN)], env=env, cwd=root, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


@pytest.fixture
def store(workspace: Path, orbit: CliRunner) -> Path:
    orbit("learning", "add", "--summary", "Index every foreign key", "--tag", "database")
    orbit("learning", "add", "--summary", "Money is integer cents", "--tag", "money")
    (workspace / "services/billing").mkdir(parents=True)
    return workspace


def test_commands_complete_in_every_shell(store: Path) -> None:
    assert complete(store, "bash", "orbit learning sh").split() == ["show"]
    assert '"list"' in complete(store, "zsh", "orbit learning li")
    assert complete(store, "fish", "orbit learning li").startswith("list")


def test_ids_complete_with_their_summaries(store: Path) -> None:
    # L-0001 last edited years ago: most recent first would list it second. Completion
    # is ID order, whether the two were written within one clock second or not.
    path = store / ".orbit/learnings/L-0001/learning.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"(?m)^updated_at: .*$", "updated_at: 2020-01-01T00:00:00Z", text))
    assert complete(store, "bash", "orbit learning show ").split() == ["L-0001", "L-0002"]
    zsh = complete(store, "zsh", "orbit learning show L-000")
    assert '"L-0002":"Money is integer cents"' in zsh
    assert complete(store, "bash", "orbit learning upvote L-0002").split() == ["L-0002"]


def test_tags_and_paths_complete(store: Path) -> None:
    assert complete(store, "bash", "orbit learning list --tag mo").split() == ["money"]
    assert complete(store, "bash", "orbit learning list --path services/b").split() == [
        "services/billing/"
    ]


def test_completion_outside_a_workspace_completes_nothing_quietly(tmp_path: Path) -> None:
    assert complete(tmp_path, "bash", "orbit learning show ").strip() == ""


def test_the_completion_script_is_there_to_install(store: Path) -> None:
    # From bash, as a user types it: Typer asks the parent process which shell it is
    # (shellingham), so a test runner with no shell above it would get "Shell not supported".
    proc = subprocess.run(
        ["bash", "-c", f"'{ORBIT_BIN}' --show-completion bash; exit"],  # no exec: bash stays
        capture_output=True,
        text=True,
        cwd=store,
    )
    assert proc.returncode == 0 and "_ORBIT_COMPLETE=complete_bash" in proc.stdout


def test_ids_tags_and_paths_answer_without_importing_typer(store: Path) -> None:
    """Every Tab runs orbit: the common completions skip Typer's import."""
    code = (
        "import sys; from orbit_learnings.entry import main; main([]); "
        "sys.stderr.write(' '.join(sorted(sys.modules)))"
    )
    for words in (
        "orbit learning show ",
        "orbit learning list --tag d",
        "orbit learning list -p s",
    ):
        env = {
            **os.environ,
            "_ORBIT_COMPLETE": "complete_bash",
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(words.split(" ")) - 1),
        }
        proc = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=store, capture_output=True, text=True
        )
        assert proc.stdout.strip(), words
        assert "typer" not in proc.stderr.split() and "click" not in proc.stderr.split(), words
