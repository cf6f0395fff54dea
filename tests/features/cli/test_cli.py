"""The CLI adapter: output shapes, exit codes, one-line errors, workspace discovery."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.testing import CliRunner, leaf_commands


def add(orbit: CliRunner, *args: str) -> str:
    outcome = orbit("learning", "add", *args)
    assert outcome.code == 0, outcome.err
    return outcome.out.strip()


def test_add_prints_the_id_and_json_form(workspace: Path, orbit: CliRunner) -> None:
    assert add(orbit, "--summary", "One", "--path", "src/**") == "L-0001"
    outcome = orbit("learning", "add", "--summary", "Two", "--tag", "db", "--json")
    payload = outcome.json()
    assert payload["id"] == "L-0002" and payload["created_at"].endswith("Z")


def test_add_accepts_the_spec_scope_form_and_body_file(
    workspace: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    body = tmp_path / "body.md"
    body.write_text("**Why:** because.\n")
    add(
        orbit,
        "--summary",
        "S",
        "--scope",
        "paths=a/**,b/*.py",
        "--scope",
        "tags=x,y",
        "--body-file",
        str(body),
        "--evidence",
        "task=T-1",
        "--evidence",
        "commit=abc",
        "--priority",
        "2",
        "--created-by",
        "claude",
    )
    record = orbit("learning", "show", "L-0001", "--json").json()
    assert record["scope"] == {"paths": ["a/**", "b/*.py"], "tags": ["x", "y"]}
    assert record["body"] == "**Why:** because.\n"
    assert record["evidence"] == [{"kind": "task", "ref": "T-1"}, {"kind": "commit", "ref": "abc"}]
    assert (record["priority"], record["created_by"]) == (2, "claude")


def test_list_json_has_the_spec_result_shape(workspace: Path, orbit: CliRunner) -> None:
    add(
        orbit,
        "--summary",
        "Perf",
        "--path",
        "crates/orbit-engine/**/perf*.rs",
        "--tag",
        "performance",
    )
    payload = orbit(
        "learning",
        "list",
        "--path",
        "crates/orbit-engine/src/perf_stats.rs",
        "--tag",
        "performance",
        "--json",
    ).json()
    (hit,) = payload["results"]
    assert set(hit) == {
        "id",
        "summary",
        "tags",
        "paths",
        "matched_by",
        "updated_at",
        "status",
        "vote_count",
        "level",
    }
    assert hit["matched_by"] == ["path:crates/orbit-engine/src/perf_stats.rs", "tag:performance"]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("crates/orbit-engine/**", True),
        ("crates/", True),
        ("benchmarks/**", False),
        ("crates/orbit-engine/src/lib.rs", False),
        ("crates/orbit-engine/src/perf_stats.rs", True),
    ],
)
def test_path_containment_from_the_issue(
    workspace: Path, orbit: CliRunner, query: str, found: bool
) -> None:
    add(orbit, "--summary", "Perf", "--path", "crates/orbit-engine/**/perf*.rs")
    hits = orbit("learning", "list", "--path", query, "--json").json()["results"]
    assert bool(hits) is found


def test_existing_directory_without_slash_is_a_folder_query(
    workspace: Path, orbit: CliRunner
) -> None:
    add(orbit, "--summary", "Perf", "--path", "crates/orbit-engine/**/perf*.rs")
    (workspace / "crates").mkdir()
    assert orbit("learning", "list", "--path", "crates", "--json").json()["results"]


def test_paths_are_normalised(
    workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(orbit, "--summary", "Src", "--path", "src/app/*.py")
    for spelling in ("./src/app/x.py", str(workspace / "src/app/x.py"), "src\\app\\x.py"):
        hits = orbit("learning", "list", "--path", spelling, "--json").json()["results"]
        assert hits[0]["matched_by"] == ["path:src/app/x.py"], spelling
    (workspace / "src/app").mkdir(parents=True)
    monkeypatch.chdir(workspace / "src")
    hits = orbit("learning", "list", "--path", "app/x.py", "--json").json()["results"]
    assert hits[0]["matched_by"] == ["path:src/app/x.py"]


def test_path_outside_the_workspace_is_an_error(workspace: Path, orbit: CliRunner) -> None:
    outcome = orbit("learning", "list", "--path", "../elsewhere/x.py")
    assert outcome.code == 1
    assert "outside the workspace" in outcome.err
    assert outcome.err.count("\n") == 1


def test_show_reports_derived_vote_fields(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "--summary", "S", "--tag", "t")
    vote = orbit(
        "learning", "upvote", "--id", "L-0001", "--model", "claude", "--task", "T-9", "--json"
    ).json()
    assert vote["vote_count"] == 1 and vote["learning_id"] == "L-0001"
    record = orbit("learning", "show", "L-0001", "--json").json()
    assert record["vote_count"] == 1
    assert record["last_voted_at"] == vote["last_voted_at"]


def test_update_and_supersede_through_the_cli(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "--summary", "Old", "--tag", "t")
    add(orbit, "--summary", "New", "--tag", "t")
    assert orbit("learning", "update", "L-0001", "--tag", "a", "--tag", "b").code == 0
    assert orbit("learning", "show", "L-0001", "--json").json()["scope"]["tags"] == ["a", "b"]
    assert orbit("learning", "supersede", "L-0001", "--with", "L-0002").code == 0
    listed = orbit("learning", "list", "--json").json()["results"]
    assert [h["id"] for h in listed] == ["L-0002"]
    everything = orbit("learning", "list", "--status", "all", "--json").json()["results"]
    assert {h["id"]: h["status"] for h in everything} == {
        "L-0001": "superseded",
        "L-0002": "active",
    }
    again = orbit("learning", "supersede", "L-0001", "--with", "L-0002")
    assert again.code == 1 and "already superseded" in again.err


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "foo-bar",
        "a:b",
        "AND",
        "NEAR(x",
        "x OR",
        "*",
        "()",
        "日本語",
        "ñandú café",
        "'; DROP TABLE",
        "^",
        "",
    ],
)
def test_fts_hostile_queries_never_crash(example: Path, orbit: CliRunner, query: str) -> None:
    outcome = orbit("learning", "search", query, "--json")
    assert outcome.code == 0, outcome.err
    assert isinstance(outcome.json()["results"], list)


def test_search_ranks_phrase_matches_first_and_reports_score(
    example: Path, orbit: CliRunner
) -> None:
    results = orbit("learning", "search", "schema migration", "--json").json()["results"]
    assert results[0]["id"] == "L-0002"
    assert all("score" in r for r in results)
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)


def test_search_prefix_matches_single_terms_and_filters(example: Path, orbit: CliRunner) -> None:
    found = {r["id"] for r in orbit("learning", "search", "migrat", "--json").json()["results"]}
    assert {"L-0002", "L-0013"} <= found
    tagged = orbit("learning", "search", "migrat", "--tag", "migrations", "--json").json()[
        "results"
    ]
    assert [r["id"] for r in tagged] == ["L-0002"]
    plain = orbit("learning", "search", "latency", "--json").json()["results"]
    assert plain == []  # L-0001 is superseded
    every = orbit("learning", "search", "latency", "--all", "--json").json()["results"]
    assert [r["id"] for r in every] == ["L-0001"]


def test_unified_search_forms(example: Path, orbit: CliRunner) -> None:
    text = orbit("search", "redis", "--kind", "learning", "--json").json()["results"]
    assert [r["id"] for r in text] == ["L-0005"]
    by_path = orbit(
        "search", "path", "tests/integration/test_cache.py", "--kind", "learning", "--json"
    ).json()
    assert [r["id"] for r in by_path["results"]] == ["L-0005"]
    bad = orbit("search", "x", "--kind", "task")
    assert bad.code == 2 and "only 'learning'" in bad.err


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["learning", "show", "L-0404"], 1, "no learning L-0404"),
        (["learning", "add", "--tag", "x"], 2, "Missing option '--summary'"),
        (["learning", "add", "--summary", "x"], 2, "at least one path glob, tag or anchor"),
        (
            ["learning", "add", "--summary", "x", "--tag", "t", "--evidence", "ticket=1"],
            2,
            "KIND=REF with KIND one of task|commit|pr|issue|url|file",
        ),
        (
            ["learning", "add", "--summary", "x", "--tag", "t", "--body", "a", "--body-file", "f"],
            2,
            "either --body",
        ),
        (
            ["learning", "upvote", "--id", "L-0001", "--model", "claude"],
            2,
            "Missing option '--task'",
        ),
        (["learning", "list", "--status", "zombie"], 2, "unknown status"),
        (["learning", "update", "L-0404", "--summary", "x"], 1, "no learning L-0404"),
        (["learning", "frobnicate"], 2, "No such command"),
    ],
)
def test_bad_input_gets_one_line_and_an_exit_code(
    workspace: Path, orbit: CliRunner, args: list[str], code: int, fragment: str
) -> None:
    before = sorted(p.relative_to(workspace) for p in (workspace / ".orbit/learnings").rglob("*"))
    outcome = orbit(*args)
    assert outcome.code == code
    assert fragment in outcome.err
    assert outcome.err.startswith("orbit: error: ") and outcome.err.count("\n") == 1
    assert "Traceback" not in outcome.err
    assert (
        sorted(p.relative_to(workspace) for p in (workspace / ".orbit/learnings").rglob("*"))
        == before
    )


def test_no_workspace_suggests_init(
    tmp_path: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    outcome = orbit("learning", "list")
    assert outcome.code == 1 and "orbit init" in outcome.err


def test_root_option_beats_orbit_root(
    tmp_path: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    for root in (first, second):
        root.mkdir()
        assert orbit("--root", str(root), "init").code == 0
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ORBIT_ROOT", str(first))
    assert orbit("learning", "add", "--summary", "in one", "--tag", "x").code == 0
    assert (
        orbit("--root", str(second), "learning", "add", "--summary", "in two", "--tag", "x").code
        == 0
    )
    assert (first / ".orbit/learnings/L-0001").is_dir() and (
        second / ".orbit/learnings/L-0001"
    ).is_dir()
    assert "in two" in (second / ".orbit/learnings/L-0001/learning.yaml").read_text()
    missing = orbit("--root", str(tmp_path / "nowhere"), "learning", "list")
    assert missing.code == 1 and "orbit init" in missing.err


def test_walks_up_to_find_the_workspace(
    workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(orbit, "--summary", "S", "--tag", "x")
    deep = workspace / "a/b/c"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert orbit("learning", "list", "--json").json()["results"][0]["id"] == "L-0001"


def test_sync_reports_and_fails_with_file_line(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "--summary", "S", "--tag", "x")
    assert orbit("learning", "sync", "--json").json()["learnings"] == 1
    votes = workspace / ".orbit/learnings/L-0001/votes.jsonl"
    votes.write_text("{broken\n")
    outcome = orbit("learning", "sync")
    assert outcome.code == 1
    assert ".orbit/learnings/L-0001/votes.jsonl:1: invalid JSON" in outcome.err


def test_list_warns_about_a_bad_record_but_shows_the_rest(
    workspace: Path, orbit: CliRunner
) -> None:
    add(orbit, "--summary", "Good", "--tag", "x")
    add(orbit, "--summary", "Bad", "--tag", "x")
    (workspace / ".orbit/learnings/L-0002/learning.yaml").write_text(": : :\n")
    outcome = orbit("learning", "list", "--json")
    assert outcome.code == 0
    assert [h["id"] for h in outcome.json()["results"]] == ["L-0001"]
    assert "L-0002/learning.yaml" in outcome.err


def test_migrate_layout_command(workspace: Path, orbit: CliRunner) -> None:
    add(orbit, "--summary", "S", "--tag", "x")
    learnings = workspace / ".orbit/learnings"
    (learnings / "L-0001/learning.yaml").rename(learnings / "L-0001.yaml")
    (learnings / "L-0001").rmdir()
    refused = orbit("learning", "list")
    assert refused.code == 1 and "migrate-layout" in refused.err
    moved = orbit("learning", "migrate-layout", "--json").json()
    assert moved == {
        "version": 1,
        "moved": [
            {"from": ".orbit/learnings/L-0001.yaml", "to": ".orbit/learnings/L-0001/learning.yaml"}
        ],
    }
    assert orbit("learning", "list", "--json").json()["results"][0]["id"] == "L-0001"


def test_human_output_in_a_pipe_is_plain_lines(example: Path, orbit: CliRunner) -> None:
    outcome = orbit("learning", "list", "--path", "db/migrations/0001.sql")
    assert outcome.out.splitlines()[0].startswith("L-00")
    assert "\x1b[" not in outcome.out


def test_every_command_has_help_with_an_example_that_fits_80_columns(
    orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rendered as an 80-column terminal renders it: nothing cut, nothing wider."""
    monkeypatch.setenv("COLUMNS", "80")
    commands = leaf_commands()
    assert len(commands) >= 30
    groups = sorted({path[:depth] for path in commands for depth in range(len(path))})
    assert {(), ("learning",), ("learning", "drafts"), ("hook",), ("hooks",)} <= set(groups)
    for path in [*groups, *commands]:
        outcome = orbit(*path, "--help")
        assert outcome.code == 0, path
        assert "Example" in outcome.out, path
        wide = [line for line in outcome.out.splitlines() if len(line) > 80]
        assert not wide, (path, wide)


def test_version(orbit: CliRunner) -> None:
    from orbit_learnings import __version__

    assert orbit("--version").out.strip() == f"orbit {__version__}"


def test_json_output_is_the_only_thing_on_stdout(example: Path, orbit: CliRunner) -> None:
    json.loads(orbit("learning", "list", "--json").out)
    json.loads(orbit("learning", "show", "L-0002", "--json").out)


def test_piped_list_and_search_are_exactly_id_tab_summary(workspace: Path) -> None:
    """As documented, so `cut -f2` is the summary; why it matched is `matched_by` in --json."""
    from tests.testing import run_orbit

    for summary, scope in (("Index every foreign key", "db/**"), ("Lock the ledger", "db/x.py")):
        added = run_orbit("learning", "add", "--summary", summary, "--path", scope, cwd=workspace)
        assert added.code == 0, added.err
    listed = run_orbit("learning", "list", "--path", "db/x.py", cwd=workspace)  # the lean path
    assert listed.code == 0
    assert sorted(listed.out.splitlines()) == [
        "L-0001\tIndex every foreign key",
        "L-0002\tLock the ledger",
    ]
    found = run_orbit("search", "foreign key", cwd=workspace)
    assert found.out == "L-0001\tIndex every foreign key\n"


def test_created_by_is_gits_user_name_then_the_os_user(
    workspace: Path, orbit: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import getpass
    import subprocess

    monkeypatch.delenv("ORBIT_CREATED_BY")
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    first = add(orbit, "--summary", "Before git knows a name", "--tag", "x")
    assert orbit("learning", "show", first, "--json").json()["created_by"] == getpass.getuser()
    subprocess.run(["git", "config", "user.name", "Alice Example"], cwd=workspace, check=True)
    second = add(orbit, "--summary", "Index every foreign key", "--tag", "db")
    assert orbit("learning", "show", second, "--json").json()["created_by"] == "Alice Example"
