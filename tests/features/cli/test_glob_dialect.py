"""The glob dialect as users meet it: route folders, braces, refusals, broken learnings."""

from __future__ import annotations

import json
from pathlib import Path

from tests.testing import CliRunner, run_orbit

ROUTE = "web/app/[slug]/page.tsx"


def add(orbit: CliRunner, summary: str, *globs: str) -> str:
    args = [a for glob in globs for a in ("--path", glob)]
    outcome = orbit("learning", "add", "--summary", summary, "--force", *args)
    assert outcome.code == 0, outcome.err
    return outcome.out.strip()


def listed(orbit: CliRunner, path: str) -> list[str]:
    outcome = orbit("learning", "list", "--path", path, "--json")
    assert outcome.code == 0, outcome.err
    return [r["id"] for r in outcome.json()["results"]]


def test_a_bracketed_route_file_gets_its_learnings_through_the_hook(
    workspace: Path, orbit: CliRunner
) -> None:
    route = add(orbit, "Route params are strings; parse them", "web/app/\\[slug\\]/**")
    payload = {
        "session_id": "routes",
        "cwd": str(workspace),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",  # a new file: it does not exist yet
        "tool_input": {"file_path": str(workspace / ROUTE), "content": "export {}"},
        "tool_response": {"success": True},
    }
    hook = run_orbit("hook", "claude-code", cwd=workspace, stdin=json.dumps(payload))
    assert hook.code == 0
    assert route in json.loads(hook.out)["hookSpecificOutput"]["additionalContext"]


def test_an_existing_bracketed_file_is_a_path_and_glob_forces_a_pattern(
    workspace: Path, orbit: CliRunner
) -> None:
    route = add(orbit, "Route params are strings; parse them", "web/app/\\[slug\\]/**")
    single = add(orbit, "One-letter folders are reserved", "web/app/s/**")
    (workspace / ROUTE).parent.mkdir(parents=True)
    (workspace / ROUTE).write_text("")
    assert listed(orbit, ROUTE) == [route]  # the file itself, not the class [slug]
    assert listed(orbit, "glob:" + ROUTE) == [single]  # `[slug]` as a class: s, l, u or g
    new_page = "web/app/[slug]/edit/page.tsx"  # not on disk: a glob unless told otherwise
    assert listed(orbit, new_page) == [single]
    assert listed(orbit, "literal:" + new_page) == [route]


def test_brace_globs_match_every_alternative(workspace: Path, orbit: CliRunner) -> None:
    typescript = add(orbit, "Use strict null checks", "**/*.{ts,tsx}")
    nested = add(orbit, "Service code is typed", "{web,api/{v1,v2}}/src/**")
    assert listed(orbit, "web/a/b.tsx") == [typescript]
    assert listed(orbit, "lib/x.ts") == [typescript]
    assert listed(orbit, "lib/x.js") == []
    assert listed(orbit, "api/v2/src/main.py") == [nested]
    assert listed(orbit, "api/v3/src/main.py") == []


def test_globs_the_dialect_cannot_honour_are_refused_with_the_reason(
    workspace: Path, orbit: CliRunner
) -> None:
    for glob, reason in [
        ("logs/[[:digit:]]*.log", "POSIX classes"),
        ("a/[\\]]", "backslash inside"),
        ("{" + ",".join(f"d{n}" for n in range(9)) + "}/{" + ",".join("abcdefghi") + "}", "64"),
    ]:
        outcome = orbit("learning", "add", "--summary", "x y z", "--path", glob)
        assert outcome.code == 2 and reason in outcome.err, (glob, outcome.err)
        assert "Traceback" not in outcome.err
    escaped = add(orbit, "An escaped slash is a slash, as in git", "foo\\/bar")
    assert listed(orbit, "foo/bar/x.py") == [escaped]


def test_a_broken_glob_in_one_learning_leaves_the_others_answering(
    workspace: Path, orbit: CliRunner
) -> None:
    good = add(orbit, "Migrations run in a transaction", "db/**")
    bad = add(orbit, "Placeholder", "logs/**")
    file = workspace / f".orbit/learnings/{bad}/learning.yaml"
    file.write_text(file.read_text().replace("logs/**", "logs/[[:digit:]]*.log"))
    outcome = orbit("learning", "list", "--path", "db/0001.sql", "--json")
    assert outcome.code == 0 and [r["id"] for r in outcome.json()["results"]] == [good]
    check = orbit("learning", "check")
    line = next(n for n, text in enumerate(file.read_text().splitlines(), 1) if "digit" in text)
    assert check.code == 1 and f"{bad}/learning.yaml:{line}:" in check.err + check.out


def test_a_query_glob_reaches_into_the_folders_it_matches(
    workspace: Path, orbit: CliRunner
) -> None:
    cargo = add(orbit, "Pin the toolchain in every crate", "**/Cargo.toml")
    workflows = add(orbit, "Pin actions to a SHA", ".github/**")
    assert listed(orbit, "glob:crates/orbit-*") == [cargo]
    assert workflows in listed(orbit, "glob:.*")
    assert listed(orbit, "glob:docs/*.txt") == []  # a literal extension names files only
