"""Renames: `prune` and `check --stale` name where a stale learning's files went, and
`prune --follow-renames` rewrites the scope, against real git repositories."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.testing import CliRunner, git


def add(orbit: CliRunner, *args: str) -> str:
    outcome = orbit("learning", "add", "--summary", "lesson", "--force", *args)
    assert outcome.code == 0, outcome.err
    return outcome.out.strip()


def write(repo: Path, *paths: str) -> None:
    for path in paths:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(f"content of {path}\n" * 20)


def commit(repo: Path, message: str = "c") -> str:
    """Commit everything; the commit's abbreviated hash, as `git log --format=%h` says it."""
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "log", "-1", "--format=%h").strip()


def move(repo: Path, old: str, new: str) -> str:
    (repo / new).parent.mkdir(parents=True, exist_ok=True)
    git(repo, "mv", old, new)
    return commit(repo, f"move {old}")


def renames(orbit: CliRunner) -> dict[str, list[dict[str, str]]]:
    outcome = orbit("learning", "prune", "--json")
    assert outcome.code == 0, outcome.err
    return {s["id"]: s["renames"] for s in outcome.json()["stale"]}


def learning_file(repo: Path, learning_id: str) -> Path:
    return repo / ".orbit/learnings" / learning_id / "learning.yaml"


@pytest.fixture
def moved_api(git_repo: Path, orbit: CliRunner) -> tuple[Path, str]:
    """src/old/api.py, scoped by L-0001, then `git mv` to src/new/api.py; the move's hash."""
    write(git_repo, "src/old/api.py", "src/other.py")
    commit(git_repo)
    add(orbit, "--path", "src/old/api.py")
    return git_repo, move(git_repo, "src/old/api.py", "src/new/api.py")


def test_prune_and_check_name_a_renamed_file(moved_api: tuple[Path, str], orbit: CliRunner) -> None:
    _, sha = moved_api
    assert renames(orbit) == {
        "L-0001": [{"from": "src/old/api.py", "to": "src/new/api.py", "commit": sha}]
    }
    said = f"paths-gone (src/old/api.py → src/new/api.py, renamed in {sha})"
    assert f"L-0001\t{said}\tlesson" in orbit("learning", "prune").out
    checked = orbit("learning", "check", "--stale")
    assert checked.code == 1
    assert f"L-0001 is stale ({said}); preview the rename with" in checked.out


def test_a_moved_folder_carries_its_globs(git_repo: Path, orbit: CliRunner) -> None:
    write(git_repo, "src/old/a.py", "src/old/deep/b.py", "src/old/c.md", "keep.txt")
    commit(git_repo)
    for glob in ("src/old/**", "src/old/**/*.py", "src/old", "src/old/", "src/old/*.md"):
        add(orbit, "--path", glob)
    sha = move(git_repo, "src/old", "lib/new")
    assert {
        lid: [(r["from"], r["to"], r["commit"]) for r in found]
        for lid, found in renames(orbit).items()
    } == {
        "L-0001": [("src/old/**", "lib/new/**", sha)],
        "L-0002": [("src/old/**/*.py", "lib/new/**/*.py", sha)],
        "L-0003": [("src/old", "lib/new", sha)],
        "L-0004": [("src/old/", "lib/new/", sha)],
        "L-0005": [("src/old/*.md", "lib/new/*.md", sha)],
    }


def test_what_cannot_be_mapped_stays_plain_paths_gone(git_repo: Path, orbit: CliRunner) -> None:
    write(git_repo, "split/a.py", "split/b.py", "deleted/x.py", "float/api.py", "keep.txt")
    commit(git_repo)
    add(orbit, "--path", "split/**")  # L-0001: its files went to two folders
    add(orbit, "--path", "deleted/x.py")  # L-0002: deleted, not renamed
    add(orbit, "--path", "api.py")  # L-0003: floats to any depth: names no place
    add(orbit, "--path", "*.py", "--path", "float/api.py")  # L-0004: live by *.py
    for old, new in (("split/a.py", "one/a.py"), ("split/b.py", "two/b.py")):
        (git_repo / new).parent.mkdir(exist_ok=True)
        git(git_repo, "mv", old, new)
    git(git_repo, "rm", "-q", "deleted/x.py")
    git(git_repo, "mv", "float/api.py", "float/api2.py")
    commit(git_repo)
    assert renames(orbit) == {"L-0001": [], "L-0002": [], "L-0003": []}
    assert "L-0002\tpaths-gone\tlesson" in orbit("learning", "prune").out


def test_a_file_moved_twice_follows_both_moves(git_repo: Path, orbit: CliRunner) -> None:
    write(git_repo, "a/x.py", "keep.txt")
    commit(git_repo)
    add(orbit, "--path", "a/x.py")
    move(git_repo, "a/x.py", "b/x.py")
    last = move(git_repo, "b/x.py", "c/y.py")
    assert renames(orbit) == {"L-0001": [{"from": "a/x.py", "to": "c/y.py", "commit": last}]}


def test_a_new_path_with_glob_characters_is_escaped(git_repo: Path, orbit: CliRunner) -> None:
    write(git_repo, "pages/post.tsx", "keep.txt")
    commit(git_repo)
    add(orbit, "--path", "pages/post.tsx")
    sha = move(git_repo, "pages/post.tsx", "app/[slug]/page.tsx")
    expected = {"from": "pages/post.tsx", "to": "app/\\[slug]/page.tsx", "commit": sha}
    assert renames(orbit) == {"L-0001": [expected]}
    assert orbit("learning", "prune", "--follow-renames", "--yes").code == 0
    assert renames(orbit) == {}


def test_names_that_look_like_git_output_are_only_names(git_repo: Path, orbit: CliRunner) -> None:
    write(git_repo, "docs/commit 1.md", "keep.txt")
    commit(git_repo)
    add(orbit, "--path", "docs/commit 1.md")
    sha = move(git_repo, "docs/commit 1.md", "R100/commit 2.md")
    expected = {"from": "docs/commit 1.md", "to": "R100/commit 2.md", "commit": sha}
    assert renames(orbit) == {"L-0001": [expected]}


def test_dry_run_prints_the_plan_and_writes_nothing(
    moved_api: tuple[Path, str], orbit: CliRunner
) -> None:
    repo, _ = moved_api
    before = learning_file(repo, "L-0001").read_bytes()
    outcome = orbit("learning", "prune", "--follow-renames", "--dry-run")
    assert outcome.code == 0, outcome.err
    assert outcome.out.splitlines() == [
        "L-0001: src/old/api.py → src/new/api.py",
        "Dry run: nothing written.",
    ]
    as_json = orbit("learning", "prune", "--follow-renames", "--dry-run", "--json")
    assert as_json.json()["rewritten"] == []
    assert [step["to"] for step in as_json.json()["rewrites"]] == ["src/new/api.py"]
    assert learning_file(repo, "L-0001").read_bytes() == before


def test_yes_rewrites_the_scope_in_place(moved_api: tuple[Path, str], orbit: CliRunner) -> None:
    repo, sha = moved_api
    path = learning_file(repo, "L-0001")
    path.write_text(path.read_text().replace("scope:", "# moved with the api\nscope:"))
    outcome = orbit("learning", "prune", "--follow-renames", "--yes", "--json")
    assert outcome.code == 0, outcome.err
    result = outcome.json()
    assert result["rewritten"] == ["L-0001"]
    assert result["rewrites"] == [
        {"id": "L-0001", "from": "src/old/api.py", "to": "src/new/api.py", "commit": sha}
    ]
    text = path.read_text()
    assert "src/new/api.py" in text and "src/old/api.py" not in text
    assert "# moved with the api" in text
    assert renames(orbit) == {}  # no longer stale
    again = orbit("learning", "prune", "--follow-renames", "--yes")
    assert again.out.strip() == "No stale learning has a renamed path to follow."


def test_off_a_terminal_without_yes_nothing_is_written(
    moved_api: tuple[Path, str], orbit: CliRunner
) -> None:
    repo, _ = moved_api
    before = learning_file(repo, "L-0001").read_bytes()
    outcome = orbit("learning", "prune", "--follow-renames")
    assert outcome.code == 2
    assert "L-0001: src/old/api.py → src/new/api.py" in outcome.out
    assert outcome.err.count("\n") == 1 and "--yes" in outcome.err
    assert learning_file(repo, "L-0001").read_bytes() == before


class Keyboard(io.StringIO):
    """What a person types at a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "written"), [("n\n", False), ("\n", False), ("y\n", True)])
def test_on_a_terminal_it_asks_first(
    moved_api: tuple[Path, str],
    orbit: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
    written: bool,
) -> None:
    repo, _ = moved_api
    before = learning_file(repo, "L-0001").read_bytes()
    monkeypatch.setattr("sys.stdin", Keyboard(answer))
    outcome = orbit("learning", "prune", "--follow-renames")
    assert outcome.code == 0, outcome.err
    assert "Rewrite the scope of 1 learning(s)?" in outcome.err
    assert (learning_file(repo, "L-0001").read_bytes() != before) == written
    assert ("Rewrote the scope of 1 learning(s)." in outcome.out) == written


def test_a_learning_with_other_live_globs_is_no_candidate(git_repo: Path, orbit: CliRunner) -> None:
    write(git_repo, "src/old/api.py", "src/live.py")
    commit(git_repo)
    add(orbit, "--path", "src/old/api.py", "--path", "src/live.py")
    move(git_repo, "src/old/api.py", "src/new/api.py")
    assert renames(orbit) == {}
    assert "No stale learning" in orbit("learning", "prune", "--follow-renames", "--yes").out


@pytest.mark.parametrize(
    "flags",
    [
        ["--yes"],
        ["--dry-run"],
        ["--follow-renames", "--yes", "--dry-run"],
        ["--follow-renames", "--archive"],
    ],
)
def test_flags_that_do_not_go_together(git_repo: Path, orbit: CliRunner, flags: list[str]) -> None:
    outcome = orbit("learning", "prune", *flags)
    assert outcome.code == 2
    assert outcome.err.startswith("orbit: error: ") and outcome.err.count("\n") == 1
    assert "Traceback" not in outcome.err
