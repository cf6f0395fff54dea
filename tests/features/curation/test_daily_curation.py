"""Daily curation without a hand edit of YAML (issue 36, items 2, 4 and 5).

Tried as a new user would: no command archived or restored one learning (only `prune
--archive` of stale ones, or the dashboard); `update --tag` replaced the whole list, so
adding one tag meant retyping the others; `update` could not set or clear a supersede
link, so a one-sided link (`check`'s own advice refused) needed a YAML edit.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from tests.testing import CliRunner, add_learning


def record(orbit: CliRunner, learning_id: str) -> dict[str, Any]:
    shown = orbit("learning", "show", learning_id, "--json")
    assert shown.code == 0, shown.err
    found: dict[str, Any] = json.loads(shown.out)
    return found


def text_of(root: Path, learning_id: str) -> str:
    return (root / ".orbit/learnings" / learning_id / "learning.yaml").read_text()


# --- 4. archive and restore ----------------------------------------------------------


def test_archive_many_with_a_reason_then_restore(workspace: Path, orbit: CliRunner) -> None:
    first, second, third = (add_learning(workspace, f"Lesson {n}") for n in "abc")
    archived = orbit("learning", "archive", first, second, "--reason", "the v1 API is gone")
    assert archived.code == 0, archived.err
    for learning_id in (first, second):
        shown = record(orbit, learning_id)
        assert shown["status"] == "archived"
        assert shown["archived_reason"] == "the v1 API is gone"
        assert "archived_reason: the v1 API is gone" in text_of(workspace, learning_id)
    listed = orbit("learning", "list", "--json")
    assert [r["id"] for r in json.loads(listed.out)["results"]] == [third]

    restored = orbit("learning", "restore", first)
    assert restored.code == 0, restored.err
    assert record(orbit, first)["status"] == "active"
    assert "archived_reason" not in text_of(workspace, first)
    assert record(orbit, second)["status"] == "archived"
    assert orbit("learning", "check").code == 0


def test_archive_with_an_unknown_id_changes_nothing(workspace: Path, orbit: CliRunner) -> None:
    learning_id = add_learning(workspace)
    before = text_of(workspace, learning_id)
    refused = orbit("learning", "archive", learning_id, "L-0099")
    assert refused.code != 0 and "no learning L-0099" in refused.err
    assert "Traceback" not in refused.err and len(refused.err.splitlines()) == 1
    assert text_of(workspace, learning_id) == before


def test_restore_of_a_superseded_then_archived_learning_is_superseded(
    workspace: Path, orbit: CliRunner
) -> None:
    old, new = add_learning(workspace, "Old way"), add_learning(workspace, "New way")
    assert orbit("learning", "supersede", old, "--with", new).code == 0
    assert orbit("learning", "archive", old).code == 0
    assert orbit("learning", "restore", old).code == 0
    assert record(orbit, old)["status"] == "superseded"


def test_prune_archive_records_why_through_the_same_door(workspace: Path, orbit: CliRunner) -> None:
    add_learning(workspace)  # scope src/**, and there is no src/: stale
    pruned = orbit("learning", "prune", "--archive", "--json")
    assert pruned.code == 0, pruned.err
    (learning_id,) = json.loads(pruned.out)["archived"]
    assert record(orbit, learning_id)["archived_reason"].startswith("stale: ")
    assert orbit("learning", "restore", learning_id).code == 0


# --- 5. one tag or path at a time ----------------------------------------------------


def test_add_and_remove_one_tag_or_path(workspace: Path, orbit: CliRunner) -> None:
    learning_id = add_learning(workspace)
    changed = orbit(
        "learning", "update", learning_id, "--add-tag", "db", "--add-tag", "migrations",
        "--add-path", "db/**", "--remove-path", "src/**",
    )  # fmt: skip
    assert changed.code == 0, changed.err
    shown = record(orbit, learning_id)
    assert shown["scope"] == {"paths": ["db/**"], "tags": ["db", "migrations"]}
    assert orbit("learning", "update", learning_id, "--remove-tag", "db").code == 0
    assert record(orbit, learning_id)["scope"]["tags"] == ["migrations"]
    assert orbit("learning", "update", learning_id, "--add-tag", "migrations").code == 0
    assert record(orbit, learning_id)["scope"]["tags"] == ["migrations"]


def test_removing_what_is_not_there_is_refused(workspace: Path, orbit: CliRunner) -> None:
    learning_id = add_learning(workspace)
    before = text_of(workspace, learning_id)
    refused = orbit("learning", "update", learning_id, "--remove-tag", "nope")
    assert refused.code == 2 and "has no tag 'nope'" in refused.err
    refused = orbit("learning", "update", learning_id, "--remove-path", "src/**")
    assert refused.code == 2 and "needs at least one" in refused.err  # the last scope entry
    assert text_of(workspace, learning_id) == before


# --- 2. links set or cleared on both sides ------------------------------------------


def one_sided(root: Path, orbit: CliRunner) -> tuple[str, str, str]:
    """The supersede race after `resolve-conflict`: L-0001 is superseded by L-0002, and
    L-0003 (the other branch's replacement, renumbered) still says it supersedes L-0001."""
    old, kept, moved = (add_learning(root, f"Lesson {n}") for n in ("old", "kept", "moved"))
    assert orbit("learning", "supersede", old, "--with", kept).code == 0
    path = root / ".orbit/learnings" / moved / "learning.yaml"
    path.write_text(path.read_text().replace("supersedes: null", f"supersedes: {old}"))
    return old, kept, moved


def test_every_link_hint_check_prints_is_a_command_that_works(
    workspace: Path, orbit: CliRunner
) -> None:
    _, _, moved = one_sided(workspace, orbit)
    failed = orbit("learning", "check")
    assert failed.code == 1
    advice = [shlex.split(c)[1:] for c in re.findall(r"`(orbit [^`]+)`", failed.out + failed.err)]
    assert len(advice) == 2, failed.out + failed.err
    for command in advice:  # each one, from the same broken state
        repaired = workspace.parent / f"try-{len(command)}-{command[-1]}"
        import shutil

        shutil.copytree(workspace, repaired)
        outcome = orbit("--root", str(repaired), *command)
        assert outcome.code == 0, (command, outcome.err)
        assert orbit("--root", str(repaired), "learning", "check").code == 0, command
    assert moved in failed.out


def test_update_supersedes_takes_over_a_link_on_both_sides(
    workspace: Path, orbit: CliRunner
) -> None:
    old, kept, moved = one_sided(workspace, orbit)
    assert orbit("learning", "update", moved, "--supersedes", old).code == 0
    assert record(orbit, old)["superseded_by"] == moved
    assert record(orbit, kept)["supersedes"] is None
    assert orbit("learning", "check").code == 0
    assert orbit("learning", "update", old, "--superseded-by", "none").code == 0
    assert record(orbit, old)["status"] == "active"
    assert record(orbit, moved)["supersedes"] is None
    assert orbit("learning", "check").code == 0


def test_update_superseded_by_sets_both_sides(workspace: Path, orbit: CliRunner) -> None:
    old, new = add_learning(workspace, "Old way"), add_learning(workspace, "New way")
    assert orbit("learning", "update", old, "--superseded-by", new).code == 0
    assert record(orbit, old)["status"] == "superseded"
    assert record(orbit, new)["supersedes"] == old
    refused = orbit("learning", "update", old, "--supersedes", "banana")
    assert refused.code == 2 and "--supersedes takes a learning ID or `none`" in refused.err


# --- every other hint `check` prints runs as printed ----------------------------------


def advice_in(text: str) -> list[str]:
    return re.findall(r"`((?:orbit|git) [^`]+)`", text)


def follow_each(repo: Path, orbit: CliRunner, check: tuple[str, ...]) -> list[str]:
    """Run every command `check` advises, each on its own copy of the broken repository,
    and check again there: each must work as printed and take its problem away."""
    import shutil
    import subprocess

    failed = orbit("--root", str(repo), "learning", *check)
    assert failed.code == 1, failed.out + failed.err
    problems = [line for line in (failed.out + failed.err).splitlines() if advice_in(line)]
    commands = list(dict.fromkeys(c for line in problems for c in advice_in(line)))
    assert commands, failed.out + failed.err
    for number, command in enumerate(commands):
        copy = repo.parent / f"{repo.name}-hint-{number}"
        shutil.copytree(repo, copy, symlinks=True)
        argv = shlex.split(command)
        if argv[0] == "orbit":
            done = orbit("--root", str(copy), *argv[1:])
            assert done.code == 0, (command, done.err)
        else:
            subprocess.run(argv, cwd=copy, check=True, capture_output=True)
        if "--dry-run" in argv:
            continue
        after = orbit("--root", str(copy), "learning", *check).out
        fixed = [line for line in problems if command in line and line not in after]
        assert fixed, (command, after)
    return commands


def test_stale_hints_run_as_printed(git_repo: Path, orbit: CliRunner) -> None:
    from tests.testing import git

    (git_repo / "src").mkdir()
    (git_repo / "src/api.py").write_text("x = 1\n")
    assert orbit("learning", "add", "--summary", "About the API", "--path", "src/api.py").code == 0
    assert orbit("learning", "add", "--summary", "About jobs", "--path", "src/jobs.py").code == 0
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "learnings")
    git(git_repo, "mv", "src/api.py", "src/http.py")
    git(git_repo, "commit", "-qm", "rename")
    commands = follow_each(git_repo, orbit, ("check", "--stale"))
    assert "orbit learning prune --follow-renames --yes" in commands
    assert "orbit learning archive L-0002" in commands


def test_the_tracked_state_hint_runs_as_printed(git_repo: Path, orbit: CliRunner) -> None:
    from tests.testing import git

    add_learning(git_repo)
    assert orbit("learning", "sync").code == 0
    git(git_repo, "add", "-f", ".orbit")
    git(git_repo, "commit", "-qm", "oops, the index too")
    assert follow_each(git_repo, orbit, ("check",)) == ["git rm -r --cached .orbit/state"]


def test_the_legacy_layout_hint_runs_as_printed(workspace: Path, orbit: CliRunner) -> None:
    learning_id = add_learning(workspace)
    bundle = workspace / ".orbit/learnings" / learning_id
    (bundle / "learning.yaml").rename(bundle.parent / f"{learning_id}.yaml")
    bundle.rmdir()
    assert follow_each(workspace, orbit, ("check",)) == ["orbit learning migrate-layout"]
