"""`orbit learning check`: one test per problem kind, and the output formats."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.testing import REPO, CliRunner


@pytest.fixture
def store2(workspace: Path, orbit: CliRunner) -> Path:
    # Each step checked, so a failing fixture names its own cause rather than a missing L-0002.
    for args in (
        ("learning", "add", "--summary", "one", "--path", "src/**"),
        ("learning", "add", "--summary", "two", "--tag", "t"),
        ("learning", "upvote", "--id", "L-0001", "--model", "m", "--task", "T"),
    ):
        result = orbit(*args)
        assert result.code == 0, (args, result.out, result.err)
    return workspace


def yaml_of(root: Path, learning_id: str) -> Path:
    return root / f".orbit/learnings/{learning_id}/learning.yaml"


def edit(root: Path, learning_id: str, old: str, new: str) -> None:
    path = yaml_of(root, learning_id)
    path.write_text(path.read_text().replace(old, new))


def break_yaml(root: Path) -> None:
    yaml_of(root, "L-0002").write_text("id: L-0002\nsummary: [oops\n")


def break_schema(root: Path) -> None:
    edit(root, "L-0002", "priority: 0", "priority: high")


def break_votes(root: Path) -> None:
    (root / ".orbit/learnings/L-0001/votes.jsonl").write_text('{"learning_id": "L-0001"}\n')


def duplicate_id(root: Path) -> None:
    (root / ".orbit/learnings/L-0003").mkdir()
    yaml_of(root, "L-0003").write_text(yaml_of(root, "L-0002").read_text())


def id_mismatch(root: Path) -> None:
    edit(root, "L-0002", "id: L-0002", "id: L-0009")


def dangling(root: Path) -> None:
    edit(root, "L-0002", "supersedes: null", "supersedes: L-0404")


def one_sided(root: Path) -> None:
    edit(root, "L-0002", "supersedes: null", "supersedes: L-0001")


def conflict(root: Path) -> None:
    text = yaml_of(root, "L-0002").read_text()
    yaml_of(root, "L-0002").write_text(
        "<<<<<<< HEAD\n" + text + "=======\n" + text.replace("two", "deux") + ">>>>>>> other\n"
    )


def bad_glob(root: Path) -> None:
    edit(root, "L-0001", "- src/**", "- src/[unclosed")


@pytest.mark.parametrize(
    ("breaker", "kind", "fragment", "where"),
    [
        (break_yaml, "yaml", "invalid YAML", "L-0002/learning.yaml"),
        (break_schema, "schema", "priority must be an integer", "L-0002/learning.yaml"),
        (break_votes, "votes", "needs a non-empty string 'voter_model'", "L-0001/votes.jsonl:1"),
        (duplicate_id, "duplicate-id", "duplicate id L-0002", "L-0003/learning.yaml"),
        (id_mismatch, "id-mismatch", "disagrees with its folder", "L-0002/learning.yaml:1"),
        (dangling, "dangling-link", "L-0404, which does not exist", "L-0002/learning.yaml"),
        (one_sided, "one-sided-link", "one-sided link", "L-0002/learning.yaml"),
        (conflict, "conflict", "orbit learning resolve-conflict L-0002", "L-0002/learning.yaml:1"),
        (bad_glob, "glob", "unclosed '['", "L-0001/learning.yaml"),
    ],
)
def test_each_problem_kind(
    store2: Path,
    orbit: CliRunner,
    breaker: Callable[[Path], None],
    kind: str,
    fragment: str,
    where: str,
) -> None:
    assert orbit("learning", "check").code == 0
    breaker(store2)
    snapshot = {p: p.read_bytes() for p in (store2 / ".orbit/learnings").rglob("*") if p.is_file()}
    text = orbit("learning", "check")
    assert text.code == 1
    assert fragment in text.out and where in text.out
    problems = orbit("learning", "check", "--json").json()["problems"]
    assert kind in {p["kind"] for p in problems}
    assert set(problems[0]) == {"file", "line", "id", "kind", "message"}
    # read-only
    assert snapshot == {
        p: p.read_bytes() for p in (store2 / ".orbit/learnings").rglob("*") if p.is_file()
    }


def test_github_annotations(store2: Path, orbit: CliRunner) -> None:
    break_schema(store2)
    outcome = orbit("learning", "check", "--format", "github")
    assert outcome.code == 1
    line = outcome.out.strip().splitlines()[0]
    assert line.startswith("::error file=.orbit/learnings/L-0002/learning.yaml,line=")
    assert line.endswith("::priority must be an integer")


def test_stale_flag(git_repo: Path, orbit: CliRunner) -> None:
    orbit("learning", "add", "--summary", "s", "--path", "gone/**")
    assert orbit("learning", "check").code == 0
    outcome = orbit("learning", "check", "--stale", "--json")
    assert outcome.code == 1
    assert outcome.json()["problems"][0]["kind"] == "stale"


def test_clean_store_passes_and_example_is_valid(example: Path, orbit: CliRunner) -> None:
    outcome = orbit("learning", "check", "--json")
    assert (outcome.code, outcome.json()) == (0, {"version": 1, "problems": [], "proposals": []})


def test_conflict_markers_are_named_by_every_read(store2: Path, orbit: CliRunner) -> None:
    conflict(store2)
    listed = orbit("learning", "list")
    assert "orbit learning resolve-conflict L-0002" in listed.err
    shown = orbit("learning", "show", "L-0002")
    assert shown.code == 1 and "orbit learning resolve-conflict L-0002" in shown.err


def test_pre_commit_hooks_file_is_shipped() -> None:
    text = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "id: orbit-learnings-check" in text and "entry: orbit learning check" in text


def test_a_linked_folder_is_named_once_and_never_walked_into(
    store2: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "deep").mkdir(parents=True)
    (elsewhere / "deep/file.txt").write_text("x")
    (elsewhere / "deep/link").symlink_to(tmp_path)
    (store2 / ".orbit/state/cache").symlink_to(elsewhere)
    outcome = orbit("learning", "check", "--json")
    links = [p for p in outcome.json()["problems"] if p["kind"] == "link"]
    assert [p["file"] for p in links] == [".orbit/state/cache"]
