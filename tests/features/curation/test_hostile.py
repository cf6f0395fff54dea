"""A store is input from anyone who can open a pull request: links, bombs, escapes, crashes.

Each case ends in a clear refusal or a healed store, nothing written outside `.orbit`,
and every other learning still answering.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.testing import CliRunner, git, run_orbit


def add(orbit: CliRunner, summary: str, *args: str) -> None:
    outcome = orbit("learning", "add", "--summary", summary, *args)
    assert outcome.code == 0, outcome.err


@pytest.fixture
def store(workspace: Path, orbit: CliRunner) -> Path:
    add(orbit, "Money is integer cents", "--path", "billing/**")
    add(orbit, "Index every foreign key", "--tag", "database")
    return workspace


def still_answers(orbit: CliRunner) -> None:
    listed = orbit("learning", "list", "--tag", "database", "--json")
    assert listed.code == 0 and [r["id"] for r in listed.json()["results"]] == ["L-0002"]


def test_a_linked_injection_log_is_never_written_through(store: Path, tmp_path: Path) -> None:
    outside = tmp_path / "bashrc"
    outside.write_text("# mine\n")
    state = store / ".orbit/state"
    state.mkdir(exist_ok=True)
    (state / "injections.jsonl").symlink_to(outside)
    stdin = json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "session_id": "s",
            "cwd": str(store),
            "tool_name": "Read",
            "tool_input": {"file_path": str(store / "billing/$(touch x).py")},
        }
    )
    outcome = run_orbit("hook", "claude-code", cwd=store, stdin=stdin)
    assert outcome.code == 0 and "L-0001" in outcome.out  # the agent still gets its context
    assert outside.read_text() == "# mine\n"


def test_a_linked_votes_file_or_bundle_folder_is_refused(
    store: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("")
    (store / ".orbit/learnings/L-0001/votes.jsonl").symlink_to(target)
    vote = orbit("learning", "upvote", "L-0001", "--model", "m", "--task", "T")
    assert vote.code == 1 and "symbolic link" in vote.err and target.read_text() == ""
    real = tmp_path / "real-bundle"
    os.rename(store / ".orbit/learnings/L-0002", real)
    (store / ".orbit/learnings/L-0002").symlink_to(real)
    before = (real / "learning.yaml").read_text()
    update = orbit("learning", "update", "L-0002", "--summary", "changed")
    assert update.code == 1 and "symbolic link" in update.err
    assert (real / "learning.yaml").read_text() == before


def test_a_learning_file_that_is_a_device_is_reported_not_read(
    store: Path, orbit: CliRunner
) -> None:
    bundle = store / ".orbit/learnings/L-0003"
    bundle.mkdir()
    (bundle / "learning.yaml").symlink_to("/dev/zero")
    still_answers(orbit)
    check = orbit("learning", "check")
    assert check.code == 1 and "L-0003/learning.yaml" in check.out
    assert "symbolic link" in check.out


def test_an_alias_bomb_is_refused_and_the_rest_keeps_answering(
    store: Path, orbit: CliRunner
) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in range(1, 9):
        prev, name = chr(96 + n), chr(97 + n)
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]")
    bundle = store / ".orbit/learnings/L-0003"
    bundle.mkdir()
    (bundle / "learning.yaml").write_text("\n".join(lines) + "\n")
    still_answers(orbit)
    check = orbit("learning", "check")
    assert check.code == 1 and "aliases (*name) are not allowed" in check.out


def test_escape_sequences_in_a_summary_never_reach_the_terminal_raw(
    store: Path, orbit: CliRunner
) -> None:
    add(orbit, "Harmless \x1b]0;pwned\x07 title \x1b[2J", "--tag", "evil")
    for args in (["learning", "list", "--tag", "evil"], ["learning", "show", "L-0003"]):
        out = orbit(*args).out
        assert "\x1b" not in out and "\x07" not in out and "\\x1b" in out, args
    injected = orbit("learning", "inject", "--tag", "evil").out
    assert "\x1b" not in injected and "\\x1b]0;pwned" in injected


def test_a_write_killed_mid_way_is_healed_by_the_next_write(store: Path, orbit: CliRunner) -> None:
    """kill -9 between the folder and the file once left a folder `check` failed on."""
    crashed = store / ".orbit/learnings/L-0003"
    crashed.mkdir()
    (crashed / ".learning.yaml.4242.99.tmp").write_text("id: L-00")
    (store / ".orbit/learnings/L-0001/.learning.yaml.4243.1.tmp").write_text("half")
    add(orbit, "A third lesson", "--tag", "third")
    assert (store / ".orbit/learnings/L-0003/learning.yaml").exists()  # the ID is reused
    assert not list((store / ".orbit/learnings").glob("*/.learning.yaml.*.tmp"))
    assert orbit("learning", "check").code == 0


def test_paths_and_bad_bytes_get_clean_errors(store: Path, orbit: CliRunner) -> None:
    escape = orbit("learning", "update", "/etc/passwd", "--summary", "x")
    assert escape.code == 1 and escape.err.startswith("orbit: error: no learning /etc/passwd")
    (store / ".orbit/learnings/L-0001/learning.yaml").write_bytes(b"summary: \xff\xfe\n")
    bad = orbit("learning", "update", "L-0001", "--summary", "x")
    assert bad.code == 1 and "not UTF-8" in bad.err and "Traceback" not in bad.err
    still_answers(orbit)


def damage_the_tables(index: Path) -> None:
    """Garbage over every page but the first three (the schema and `meta`), so the schema
    check passes and the damage shows only when a table is read."""
    data = bytearray(index.read_bytes())
    start, end = 3 * 4096, len(data)
    data[start:end] = (b"\xde\xad\xbe\xef" * ((end - start) // 4 + 1))[: end - start]
    index.write_bytes(bytes(data))


def test_a_damaged_index_rebuilds_itself(store: Path, orbit: CliRunner) -> None:
    """It once failed every read and every sync with "database disk image is malformed"."""
    index = store / ".orbit/state/index.sqlite3"
    assert orbit("learning", "sync").code == 0
    damage_the_tables(index)
    still_answers(orbit)  # the fast path: nothing changed, the damage shows in the lookup
    damage_the_tables(index)
    assert orbit("learning", "sync").code == 0
    still_answers(orbit)


def test_a_crlf_file_keeps_its_line_endings_through_an_update(
    store: Path, orbit: CliRunner
) -> None:
    path = store / ".orbit/learnings/L-0002/learning.yaml"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert orbit("learning", "update", "L-0002", "--summary", "Index foreign keys").code == 0
    data = path.read_bytes()
    assert b"Index foreign keys" in data and data.count(b"\n") == data.count(b"\r\n")


def test_an_absurd_query_glob_is_refused_not_matched(store: Path, orbit: CliRunner) -> None:
    outcome = orbit("learning", "list", "--path", "a/" * 700, "--json")
    assert outcome.code == 2 and "longer than" in outcome.err


def test_a_backtracking_glob_never_reaches_the_regex_engine(
    store: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`*a*a*a…b` once made a lookup double per character: 16.6 s on a 34-character path.
    Such globs are matched on the segment model (polynomial) and never by `re`."""
    from orbit_learnings.core import globs, matching

    evil = "*a" * 16 + "*b"
    add(orbit, "Evil", "--path", evil)
    add(orbit, "Also evil", "--path", f"src/{evil}/**")
    evil_regexes = {globs.compile_glob(g).regex for g in (evil, f"src/{evil}/**")}
    real = matching.compiled.__wrapped__

    def guarded(regex: str) -> object:
        assert regex not in evil_regexes, "a heavy glob reached the backtracking engine"
        return real(regex)

    monkeypatch.setattr(matching, "compiled", guarded)
    for path in ("a" * 34, "src/" + "a" * 200 + "/x.py", "aaab"):
        assert orbit("learning", "list", "--path", path, "--json").code == 0
    matched = orbit("learning", "list", "--path", "a" * 16 + "b", "--json").json()["results"]
    assert "L-0003" in [r["id"] for r in matched]  # still matches what it says
    nested = orbit("learning", "list", "--path", "src/" + "a" * 20 + "b/x.py", "--json")
    assert "L-0004" in [r["id"] for r in nested.json()["results"]]
    query = orbit("learning", "list", "--path", evil, "--json").json()["results"]
    assert "L-0003" in [r["id"] for r in query]
    assert orbit("learning", "check", "--stale").code in (0, 1)  # staleness too


def test_check_names_every_link_and_derived_state_is_taken_back(
    store: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.jsonl").write_text("")
    (store / ".orbit/learnings/L-0001/votes.jsonl").symlink_to(outside / "x.jsonl")
    state = store / ".orbit/state"
    state.mkdir(exist_ok=True)
    (state / "injections.jsonl").symlink_to(outside / "x.jsonl")
    check = orbit("learning", "check", "--json")
    links = [p["file"] for p in check.json()["problems"] if p["kind"] == "link"]
    assert ".orbit/learnings/L-0001/votes.jsonl" in links
    every = [p["file"] for p in check.json()["problems"]]
    assert every.count(".orbit/learnings/L-0001/votes.jsonl") == 1  # named once, with its target
    assert ".orbit/state/injections.jsonl" in links
    orbit("learning", "inject", "--path", "billing/a.py")  # logs an injection
    assert not (state / "injections.jsonl").is_symlink()
    assert (outside / "x.jsonl").read_text() == ""


def test_a_glob_with_a_newline_is_refused(store: Path, orbit: CliRunner) -> None:
    """It once reached an exported Cursor rule's front matter, adding keys of its own."""
    outcome = orbit("learning", "add", "--summary", "x", "--path", "src/**\nalwaysApply: true")
    assert outcome.code == 2 and "control characters" in outcome.err


def test_a_checkout_whose_state_cannot_be_written_still_answers(
    store: Path, orbit: CliRunner
) -> None:
    """A read-only checkout or a full disk once made every read exit 3 on .orbit/state."""
    import shutil

    shutil.rmtree(store / ".orbit/state", ignore_errors=True)
    (store / ".orbit/state").write_text("not a folder: nothing can be created here\n")
    outcome = run_orbit("learning", "list", "--tag", "database", "--json", cwd=store)
    assert outcome.code == 0, outcome.err
    assert [r["id"] for r in json.loads(outcome.out)["results"]] == ["L-0002"]
    assert (store / ".orbit/state").read_text().startswith("not a folder")


@pytest.mark.parametrize(
    ("needle", "replacement", "reported"),
    [
        ("priority: 0", "priority: 9223372036854775808", "priority must be between"),
        ("priority: 0", "priority: 0\nextra: " + "[" * 3000 + "]" * 3000, "nested"),
        ("- billing/**", "- src/[z-a]*", "bad character range"),
    ],
    ids=["huge-priority", "deep-nesting", "reversed-range"],
)
def test_one_bad_record_is_reported_and_skipped_while_the_rest_answer(
    store: Path, orbit: CliRunner, needle: str, replacement: str, reported: str
) -> None:
    good = (store / ".orbit/learnings/L-0001/learning.yaml").read_text()
    assert needle in good
    bundle = store / ".orbit/learnings/L-0003"
    bundle.mkdir()
    (bundle / "learning.yaml").write_text(
        good.replace("L-0001", "L-0003").replace(needle, replacement)
    )
    still_answers(orbit)
    found = orbit("learning", "search", "foreign key", "--json")
    assert found.code == 0 and [r["id"] for r in found.json()["results"]] == ["L-0002"]
    check = orbit("learning", "check")
    assert check.code == 1 and "L-0003/learning.yaml:" in check.out and reported in check.out


def test_an_out_of_range_priority_is_refused_before_anything_is_written(
    store: Path, orbit: CliRunner
) -> None:
    refused = orbit(
        "learning", "add", "--summary", "Boost me", "--tag", "x", "--priority", "10**19"
    )
    assert refused.code != 0
    huge = orbit("learning", "add", "--summary", "Boost me", "--tag", "x", "--priority", str(2**63))
    assert huge.code == 1 and "priority must be between -1000 and 1000" in huge.err
    assert orbit("learning", "update", "L-0001", "--priority", "-5000").code == 1
    assert sorted(p.name for p in (store / ".orbit/learnings").glob("L-*")) == ["L-0001", "L-0002"]
    assert "priority: 0" in (store / ".orbit/learnings/L-0001/learning.yaml").read_text()


def test_leftovers_of_a_killed_write_are_previewed_then_cleared_by_check_fix_or_sync(
    store: Path, orbit: CliRunner
) -> None:
    def leave_debris() -> None:
        (store / ".orbit/learnings/L-0009").mkdir()
        (store / ".orbit/learnings/L-0009/.learning.yaml.77.tmp").write_text("id: L-00")
        (store / ".orbit/learnings/L-0001/.learning.yaml.78.tmp").write_text("half")

    leave_debris()
    assert orbit("learning", "check").code == 1
    preview = orbit("learning", "check", "--fix", "--dry-run")
    assert preview.code == 1 and "Would remove L-0009/" in preview.out
    assert (store / ".orbit/learnings/L-0009").exists()  # a preview touches nothing
    fixed = orbit("learning", "check", "--fix", "--json")
    assert fixed.code == 0 and "L-0009/" in fixed.json()["removed_leftovers"]
    assert sorted(p.name for p in (store / ".orbit/learnings").glob("L-*")) == ["L-0001", "L-0002"]
    leave_debris()
    synced = orbit("learning", "sync", "--json")
    assert synced.code == 0 and len(synced.json()["removed_leftovers"]) == 3
    assert not list((store / ".orbit/learnings").rglob("*.tmp"))
    assert orbit("learning", "check", "--dry-run").code == 2  # a preview of nothing is a usage slip


def test_a_glob_that_would_break_front_matter_never_reaches_an_exported_rule(
    store: Path, orbit: CliRunner
) -> None:
    learning = store / ".orbit/learnings/L-0001/learning.yaml"
    text = learning.read_text()
    line = next(ln for ln in text.splitlines(keepends=True) if ln.strip() == "- billing/**")
    indent = line[: line.index("-")]
    hostile = f'{line}{indent}- "x\\nalwaysApply: true"\n{indent}- "a,b"\n'
    learning.write_text(text.replace(line, hostile))
    assert orbit("learning", "show", "L-0001").code == 0  # a valid record, only odd globs
    assert orbit("learning", "export", "--format", "cursor").code == 0
    rule = (store / ".cursor/rules/orbit-billing.mdc").read_text()
    front = rule.split("---\n")[1].splitlines()
    assert [line.split(":")[0] for line in front] == ["description", "globs", "alwaysApply"]
    assert "globs: billing/**" in front and "alwaysApply: false" in front


def test_derived_state_committed_to_git_is_reported(git_repo: Path, orbit: CliRunner) -> None:
    add(orbit, "Index every foreign key", "--tag", "database")  # builds the index
    assert orbit("learning", "check").code == 0
    git(git_repo, "add", "-f", ".orbit/state/index.sqlite3")
    check = orbit("learning", "check", "--json")
    problems = [p for p in check.json()["problems"] if p["kind"] == "tracked-state"]
    assert check.code == 1 and [p["file"] for p in problems] == [".orbit/state/index.sqlite3"]
    assert "git rm -r --cached .orbit/state" in problems[0]["message"]


def test_a_committed_index_with_a_ghost_learning_is_not_believed_by_a_clone(
    git_repo: Path, tmp_path: Path
) -> None:
    """Every bundle's stat (inode, mtime) differs in a clone, so its first read re-checks
    the index against the files and the row no file backs is dropped."""
    for summary in ("Real lesson", "Ghost lesson"):
        assert (
            run_orbit("learning", "add", "--summary", summary, "--tag", "a", cwd=git_repo).code == 0
        )
    git(git_repo, "add", ".orbit/learnings/L-0001")
    assert "Ghost" in run_orbit("learning", "list", cwd=git_repo).out
    git(git_repo, "add", "-f", ".orbit/state/index.sqlite3")
    git(git_repo, "commit", "-q", "-m", "an index that knows a learning no file holds")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(git_repo), str(clone))
    listed = run_orbit("learning", "list", "--json", cwd=clone)
    assert [r["summary"] for r in json.loads(listed.out)["results"]] == ["Real lesson"]
