"""The quick completion path answers exactly as Typer does, shell by shell.

`cli/quickcomplete.py` answers IDs, tags and paths without importing Typer. It reads only
what the completion scripts Typer installs send (`orbit --show-completion SHELL`: the
`_ORBIT_COMPLETE` variable, `COMP_WORDS`/`COMP_CWORD` for bash, `_TYPER_COMPLETE_ARGS` and
`_TYPER_COMPLETE_FISH_ACTION` for zsh and fish) and prints what those scripts read back. A
Typer release that changes either side fails here, against Typer's own answer, rather than
in a user's shell.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LINES = [
    "orbit learning show ",
    "orbit learning show L-000",
    "orbit learning upvote L-0002",
    "orbit learning supersede L-0001 --with ",
    "orbit learning feedback ",
    "orbit learning list --tag ",
    "orbit learning list --tag d",
    "orbit learning list -t mo",
    "orbit learning list --path ",
    "orbit learning list --path services/b",
    "orbit learning list -p src/",
]


def request(shell: str, words: str) -> dict[str, str]:
    """The environment a completion script Typer installed sets for one Tab."""
    env = {**os.environ, "_ORBIT_COMPLETE": f"complete_{shell}"}
    if shell == "bash":
        env.update(COMP_WORDS=words, COMP_CWORD=str(len(words.split(" ")) - 1))
    else:
        env["_TYPER_COMPLETE_ARGS"] = words
        if shell == "fish":
            env["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    return env


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("parity")
    env = {**os.environ, "HOME": str(root / "home"), "ORBIT_SEMANTIC": "0"}
    orbit = [sys.executable, "-m", "orbit_learnings"]
    subprocess.run([*orbit, "--root", str(root), "init"], env=env, check=True, capture_output=True)
    for summary, tag in [
        ("Index every foreign key", "database"),
        ("Money is integer cents: never $floats or `round()`", "money"),
        ('A "quoted" summary (parens, a: colon) and it\'s long enough to be cut at sixty', "db"),
    ]:
        subprocess.run(
            [*orbit, "--root", str(root), "learning", "add", "--summary", summary, "--tag", tag],
            env=env,
            check=True,
            capture_output=True,
        )
    (root / "services/billing").mkdir(parents=True)
    (root / "src/app").mkdir(parents=True)
    (root / "src/main.py").write_text("")
    return root


def typer_answer(capsys: pytest.CaptureFixture[str]) -> str:
    """What Typer itself prints for the request in the environment (the full CLI)."""
    from orbit_learnings.cli.app import run

    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:  # Typer answers a Tab, then exits
        run([])
    captured = capsys.readouterr()
    assert exit_.value.code in (0, None) and captured.err == "", captured.err
    return captured.out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_quick_path_answers_as_typer_does(
    store: Path, shell: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from orbit_learnings.cli.quickcomplete import complete

    monkeypatch.chdir(store)
    for words in LINES:
        for name, value in request(shell, words).items():
            monkeypatch.setenv(name, value)
        quick = complete(f"complete_{shell}")
        assert quick is not None, f"the quick path left {words!r} to Typer"
        assert quick.rstrip("\n") == typer_answer(capsys).rstrip("\n"), words
        if shell == "bash":
            monkeypatch.delenv("COMP_WORDS")


def test_what_the_quick_path_reads_is_what_the_installed_scripts_send(store: Path) -> None:
    """The variables come from the scripts users install (Typer's public output), never from
    Typer's modules: were a release to rename one, this fails before any Tab does."""
    sent = {
        "bash": ["_ORBIT_COMPLETE=complete_bash", "COMP_WORDS", "COMP_CWORD"],
        "zsh": ["_ORBIT_COMPLETE=complete_zsh", "_TYPER_COMPLETE_ARGS"],
        "fish": ["_ORBIT_COMPLETE=complete_fish", "_TYPER_COMPLETE_ARGS", "get-args"],
    }
    # The script for a named shell, whichever shell runs the test: Typer's switch for that.
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    for shell, names in sent.items():
        script = subprocess.run(
            [sys.executable, "-m", "orbit_learnings", "--show-completion", shell],
            capture_output=True,
            text=True,
            cwd=store,
            env=env,
        )
        assert script.returncode == 0, script.stderr
        for name in names:
            assert name in script.stdout, (shell, name)
