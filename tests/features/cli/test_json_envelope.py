"""The `--json` contract: every command's document is `{"version": 1, ...}`, and a failure
under `--json` is `{"version": 1, "error": {"code", "message"}}` on stdout, the same one
line on stderr as without it, and a non-zero exit, on the lean path as on Typer's."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from orbit_learnings.cli.output import JSON_VERSION, envelope, wants_json
from tests.testing import REPO, CliRunner, copy_of, git, isolate, run_orbit

SESSION = str(REPO / "tests/fixtures/transcripts/correction.jsonl")

# One successful run of every command that declares `--json`, in the store `store` builds
# ("{draft}" is its one draft's ID). A command that gains `--json` needs a line here, or
# `test_every_json_command_prints_the_versioned_envelope` fails naming it.
EXAMPLES: dict[str, list[str]] = {
    "init": [],
    "doctor": [],
    "search": ["money"],
    "learning add": ["--summary", "Retries need jitter", "--tag", "net"],
    "learning list": [],
    "learning show": ["L-0001"],
    "learning update": ["L-0001", "--tag", "money"],
    "learning supersede": ["L-0001", "--with", "L-0002"],
    "learning archive": ["L-0001", "--reason", "the service is gone"],
    "learning restore": ["L-0001"],
    "learning upvote": ["L-0001", "--model", "m", "--task", "T-1"],
    "learning search": ["money"],
    "learning feedback": ["L-0001", "--helpful", "--task", "T-1"],
    "learning sync": [],
    "learning migrate-layout": [],
    "learning embed": [],
    "learning stats": [],
    "learning context": ["money"],
    "learning import": ["CLAUDE.md"],
    "learning prune": [],
    "learning check": [],
    "learning anchors": [],
    "learning resolve-conflict": ["L-0002"],  # in the store `conflicted` builds
    "learning renumber": ["L-0002", "--force"],
    "learning extract": [SESSION],
    "learning propose": ["--summary", "Feature flags live in config/flags.yaml", "--tag", "x"],
    "learning approve": ["L-0003"],
    "learning reject": ["L-0003"],
    "learning drafts list": [],
    "learning drafts show": ["{draft}"],
    "learning drafts accept": ["{draft}"],
}


def json_commands() -> list[str]:
    """Every command of the Typer app that declares a `--json` option."""
    import typer.main

    from orbit_learnings.cli.app import app

    found: list[str] = []

    def walk(command: object, prefix: tuple[str, ...]) -> None:
        children = getattr(command, "commands", None)
        if children:
            for name, child in children.items():
                walk(child, (*prefix, name))
        elif any("--json" in getattr(p, "opts", ()) for p in getattr(command, "params", ())):
            found.append(" ".join(prefix))

    walk(typer.main.get_command(app), ())
    return found


def _orbit(root: Path, *args: str) -> str:
    """The CLI in-process, for a store built once per module (no capsys there)."""
    from orbit_learnings.cli.app import run

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = run(["--root", str(root), *args])
    assert code == 0, args
    return out.getvalue()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A git repository with two learnings, a proposal, a draft and a CLAUDE.md rule."""
    root = tmp_path_factory.mktemp("envelope") / "store"
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, tmp_path_factory.mktemp("home"))
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        _orbit(root, "init")
        _orbit(root, "learning", "add", "--summary", "Money is integer cents", "--path", "src/**")
        _orbit(root, "learning", "add", "--summary", "Pods need readiness probes", "--tag", "k8s")
        _orbit(root, "learning", "propose", "--summary", "Use pnpm in web/", "--tag", "tooling")
        _orbit(root, "learning", "extract", SESSION)
        (root / "src").mkdir()
        (root / "src/a.py").write_text("TOTAL = 0\n")
        (root / "CLAUDE.md").write_text("# Rules\n\n- Always run the linter before a commit.\n")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "base")
        yield root


@pytest.fixture(scope="module")
def conflicted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Two branches that each added L-0002, merged: an add/add conflict to resolve."""
    root = tmp_path_factory.mktemp("conflict") / "store"
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, tmp_path_factory.mktemp("home"))
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        _orbit(root, "init")
        _orbit(root, "learning", "add", "--summary", "base lesson", "--tag", "t")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "base")
        git(root, "checkout", "-qb", "other")
        _orbit(root, "learning", "add", "--summary", "theirs: retry flaky redis", "--tag", "t")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "theirs")
        git(root, "checkout", "-q", "main")
        _orbit(root, "learning", "add", "--summary", "ours: use cents", "--tag", "money")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "ours")
        with contextlib.suppress(subprocess.CalledProcessError):  # the conflict is the point
            git(root, "merge", "-q", "other")
        yield root


@pytest.mark.parametrize("command", json_commands())
def test_every_json_command_prints_the_versioned_envelope(
    command: str,
    template: Path,
    conflicted: Path,
    tmp_path: Path,
    orbit: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert command in EXAMPLES, f"`orbit {command}` has --json: add a run of it to EXAMPLES"
    source = conflicted if command == "learning resolve-conflict" else template
    root = copy_of(source, tmp_path / "store")
    monkeypatch.chdir(root)
    draft = json.loads(orbit("learning", "drafts", "list", "--json").out)["drafts"]
    args = [a.replace("{draft}", draft[0]["id"] if draft else "") for a in EXAMPLES[command]]
    outcome = orbit(*command.split(), *args, "--json")
    document = json.loads(outcome.out)  # one document, nothing else on stdout
    assert isinstance(document, dict) and next(iter(document)) == "version", outcome.out
    assert document["version"] == JSON_VERSION == 1
    if command == "learning embed" and "error" in document:  # without the semantic extra
        assert outcome.code == 1 and document["error"]["code"] == "domain-error"
        return
    assert "error" not in document and outcome.code == 0, (outcome.out, outcome.err)


def test_every_example_names_a_json_command() -> None:
    assert set(EXAMPLES) == set(json_commands())


@pytest.mark.parametrize(
    ("args", "code", "exit_code"),
    [
        (["learning", "show", "L-0404"], "not-found", 1),
        (["learning", "list", "--status", "gone"], "usage-error", 2),  # refused by orbit
        (["learning", "list", "--limit", "0"], "usage-error", 2),  # refused by Typer itself
        (["learning", "show"], "usage-error", 2),  # a missing argument
        (["learning", "add", "--summary", "x", "--path", "src/[a"], "invalid-glob", 2),
    ],
)
def test_a_failure_under_json_is_the_error_object_and_a_non_zero_exit(
    workspace: Path, orbit: CliRunner, args: list[str], code: str, exit_code: int
) -> None:
    orbit("learning", "add", "--summary", "Money is integer cents", "--path", "src/**")
    human = orbit(*args)
    outcome = orbit(*args, "--json")
    assert outcome.code == human.code == exit_code
    assert outcome.err == human.err and outcome.err.startswith("orbit: error: ")
    assert len(outcome.err.splitlines()) == 1 and human.out == ""
    document = json.loads(outcome.out)
    message = document["error"]["message"]  # the stderr line's, word for word
    assert document == {"version": 1, "error": {"code": code, "message": message}}
    assert outcome.err == f"orbit: error: {message}\n"


def test_the_lean_path_fails_in_the_same_envelope(workspace: Path, tmp_path: Path) -> None:
    """list/search answer without Typer: their failures carry the same object and code."""
    outside = tmp_path / "nowhere"
    outside.mkdir()
    for args in (["learning", "list", "--json"], ["search", "money", "--json"]):
        lost = run_orbit(*args, cwd=outside)
        assert lost.code == 1 and lost.err.startswith("orbit: error: no .orbit/ found")
        assert json.loads(lost.out)["error"]["code"] == "workspace-not-found"
        assert json.loads(lost.out)["version"] == 1
    found = run_orbit("learning", "list", "--json", cwd=workspace)
    assert json.loads(found.out) == {"version": 1, "results": []}


def test_the_envelope_has_one_definition() -> None:
    assert envelope({"results": []}) == {"version": 1, "results": []}
    assert list(envelope({"a": 1, "b": 2})) == ["version", "a", "b"]
    with pytest.raises(ValueError, match="version"):
        envelope({"version": 2})


def test_json_is_asked_for_by_the_command_line_but_never_by_an_agent_hook() -> None:
    assert wants_json(["learning", "list", "--json"])
    assert wants_json(["--root", "x", "--debug", "learning", "show", "L-1", "--json"])
    assert not wants_json(["learning", "list"])
    assert not wants_json(["search", "--", "--json"])  # a word searched for, not the flag
    assert not wants_json(["hook", "claude-code", "--json"])  # the agent's protocol owns stdout
    assert not wants_json(["--root", "x", "hook", "cursor", "--json"])
    assert wants_json(["learning", "inject", "--path", "a", "--format", "json"])
    assert wants_json(["learning", "inject", "--format=json"])
    assert not wants_json(["learning", "inject", "--format", "markdown", "--path", "json"])
    assert not wants_json(["learning", "export", "--format", "json"])  # data, not a report


def test_inject_as_json_fails_in_the_envelope_on_both_paths(
    workspace: Path, orbit: CliRunner
) -> None:
    args = ["learning", "inject", "--path", "src/a.py", "--format", "json", "--max-tokens", "0"]
    for outcome in (orbit(*args), run_orbit(*args, cwd=workspace)):  # Typer, then the lean path
        assert outcome.code == 2 and outcome.err.startswith("orbit: error: ")
        assert json.loads(outcome.out)["error"]["code"] == "usage-error"
