"""Drafts from transcripts, the review loop, and the personal (user-level) store."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from orbit_learnings.curation.capture.extract import extract_sessions
from tests.testing import REPO, CliRunner

FIXTURES = REPO / "tests/fixtures/transcripts"
SESSIONS = REPO / "tests/fixtures/sessions"


def drafts_of(name: str, root: str = "/home/dev/shop") -> list[tuple[str, str, list[str]]]:
    found = extract_sessions([str(FIXTURES / name)], root).drafts
    return [(d.detector, d.summary, d.paths) for d in found]


def test_the_old_fixtures_still_yield_their_lesson_and_nothing_from_noise() -> None:
    assert drafts_of("correction.jsonl") == [
        ("follow-up", "Use pnpm instead of npm in this repo", ["web/package.json"])
    ]
    assert drafts_of("correction.md")[0][1].startswith("Don't add NOT NULL columns")
    assert drafts_of("error_fix.jsonl") == [
        (
            "error-fix",
            "`pytest` needs `\"httpx\"` in `pyproject.toml` (`No module named 'httpx'`)",
            ["pyproject.toml"],
        )
    ]
    assert drafts_of("noisy.jsonl") == drafts_of("noisy.md") == []


def test_extract_review_accept_reject(workspace: Path, orbit: CliRunner) -> None:
    files = [str(FIXTURES / n) for n in ("correction.jsonl", "error_fix.jsonl", "noisy.md")]
    created = orbit("learning", "extract", *files, "--json").json()
    assert len(created["drafts"]) == 2
    assert [f["moments"] for f in created["files"]] == [1, 1, 0]
    assert not list((workspace / ".orbit/learnings").glob("L-*"))  # drafts never enter the store
    again = orbit("learning", "extract", *files, "--json").json()
    assert again["drafts"] == [] and again["skipped_existing"] == 2
    listed = orbit("learning", "drafts", "list", "--json").json()["drafts"]
    by_detector = {d["detector"]: d["id"] for d in listed}
    shown = orbit("learning", "drafts", "show", by_detector["follow-up"])
    assert "pnpm" in shown.out and "correction.jsonl" in shown.out
    accepted = orbit(
        "learning",
        "drafts",
        "accept",
        by_detector["follow-up"],
        "--summary",
        "Use pnpm, never npm, in the web app",
        "--tag",
        "tooling",
        "--json",
    ).json()
    record = orbit("learning", "show", accepted["id"], "--json").json()
    assert record["summary"] == "Use pnpm, never npm, in the web app"
    assert record["scope"] == {"paths": ["web/package.json"], "tags": ["tooling"]}
    assert record["created_by"] == "orbit-extract"
    assert orbit("learning", "drafts", "reject", by_detector["error-fix"]).code == 0
    assert orbit("learning", "drafts", "list", "--json").json() == {"version": 1, "drafts": []}
    assert orbit("learning", "drafts", "show", "D-00000000").code == 1


def test_accept_suggests_an_upvote_for_a_near_duplicate(workspace: Path, orbit: CliRunner) -> None:
    orbit(
        "learning", "add", "--summary", "Use pnpm instead of npm in this repo", "--tag", "tooling"
    )
    draft_id = orbit("learning", "extract", str(FIXTURES / "correction.jsonl"), "--json").json()[
        "drafts"
    ][0]["id"]
    refused = orbit("learning", "drafts", "accept", draft_id)
    assert refused.code == 1 and "upvote" in refused.err and "L-0001" in refused.err
    assert orbit("learning", "drafts", "list", "--json").json()["drafts"]  # still there for review


def test_a_short_form_is_the_same_word_to_the_duplicate_measure() -> None:
    """ "repo" and "repository", "config" and "configuration": one word to a reader."""
    from orbit_learnings.retrieval.similar import SIMILARITY, likeness

    assert likeness("Never use npm in this repo", "Never use npm in this repository") == 1.0
    short, long = "Keep the repo config in pyproject", "Keep repository configuration in pyproject"
    assert likeness(short, long) >= SIMILARITY


def test_personal_store_beside_the_project(workspace: Path, orbit: CliRunner) -> None:
    user_root = Path(os.environ["XDG_DATA_HOME"]) / "orbit-learnings"
    assert (
        orbit(
            "learning",
            "add",
            "--summary",
            "Prefer ripgrep over grep -r",
            "--path",
            "**",
            "--tag",
            "shell",
            "--level",
            "user",
            "--json",
        ).json()["id"]
        == "U-0001"
    )
    assert (user_root / ".orbit/learnings/U-0001/learning.yaml").exists()
    assert not (Path.home() / ".orbit").exists()
    orbit("learning", "add", "--summary", "Shell scripts use set -euo pipefail", "--tag", "shell")
    rows = orbit("learning", "list", "--tag", "shell", "--json").json()["results"]
    assert [(r["id"], r["level"]) for r in rows] == [("L-0001", "project"), ("U-0001", "user")]
    assert [
        r["id"] for r in orbit("learning", "list", "--level", "user", "--json").json()["results"]
    ] == ["U-0001"]
    assert [
        r["id"] for r in orbit("learning", "list", "--level", "project", "--json").json()["results"]
    ] == ["L-0001"]
    assert orbit("learning", "show", "U-0001", "--json").json()["level"] == "user"
    orbit("learning", "upvote", "--id", "U-0001", "--model", "claude", "--task", "T-1")
    assert (user_root / ".orbit/learnings/U-0001/votes.jsonl").exists()
    found = orbit("learning", "search", "ripgrep", "--json").json()["results"]
    assert [(r["id"], r["level"]) for r in found] == [("U-0001", "user")]
    injected = orbit("learning", "inject", "--path", "scripts/x.sh", "--format", "json").json()[
        "learnings"
    ]
    assert [h["id"] for h in injected] == ["U-0001"]
    assert orbit("learning", "list", "--level", "galaxy").code == 2
    bad = orbit("learning", "supersede", "L-0001", "--with", "U-0001")
    assert bad.code == 2 and "cannot supersede each other" in bad.err


def test_no_personal_store_means_project_only(workspace: Path, orbit: CliRunner) -> None:
    orbit("learning", "add", "--summary", "A project lesson", "--tag", "t")
    assert [r["level"] for r in orbit("learning", "list", "--json").json()["results"]] == [
        "project"
    ]
    assert not (Path(os.environ["XDG_DATA_HOME"]) / "orbit-learnings").exists()
    assert orbit("learning", "show", "U-0001").code == 1


def test_linux_user_folder_matches_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the direct XDG computation is Linux-only")
    from platformdirs import user_data_dir

    from orbit_learnings.store.levels import user_root

    assert user_root() == user_data_dir("orbit-learnings", appauthor=False)
    monkeypatch.delenv("XDG_DATA_HOME")
    assert user_root() == user_data_dir("orbit-learnings", appauthor=False)


def test_json_of_drafts_is_valid(workspace: Path, orbit: CliRunner) -> None:
    orbit("learning", "extract", str(FIXTURES / "error_fix.jsonl"))
    (draft,) = json.loads(orbit("learning", "drafts", "list", "--json").out)["drafts"]
    assert draft["tags"] == ["dependencies", "python", "testing"] and draft["paths"] == [
        "pyproject.toml"
    ]


def test_proposals_are_in_the_store_checked_but_never_served_until_approved(
    workspace: Path, orbit: CliRunner
) -> None:
    made = orbit(
        "learning", "propose", "--summary", "Use pnpm, never npm", "--path", "web/**", "--json"
    ).json()
    learning_id = made["id"]
    assert (
        "status: proposed"
        in (workspace / ".orbit/learnings" / learning_id / "learning.yaml").read_text()
    )
    assert orbit("learning", "list", "--path", "web/app.ts", "--json").json()["results"] == []
    assert orbit("search", "pnpm", "--json").json()["results"] == []
    injected = orbit("learning", "inject", "--path", "web/app.ts")
    assert injected.code == 0 and learning_id not in injected.out
    assert orbit("learning", "check").code == 0  # a valid record, awaiting review
    listed = orbit("learning", "list", "--status", "proposed", "--json").json()["results"]
    assert [r["id"] for r in listed] == [learning_id]
    assert orbit("learning", "approve", learning_id).code == 0
    assert [r["id"] for r in orbit("learning", "list", "--path", "web/a.ts", "--json").json()[
        "results"
    ]] == [learning_id]  # fmt: skip
    refused = orbit("learning", "reject", learning_id)
    assert refused.code == 1 and "not a proposal" in refused.err


def test_reject_deletes_a_proposal_and_accepting_a_draft_proposes(
    workspace: Path, orbit: CliRunner
) -> None:
    draft = orbit("learning", "extract", str(FIXTURES / "correction.jsonl"), "--json").json()[
        "drafts"
    ][0]
    accepted = orbit("learning", "drafts", "accept", draft["id"], "--json").json()
    record = orbit("learning", "show", accepted["id"], "--json").json()
    assert record["status"] == "proposed"
    assert orbit("learning", "reject", accepted["id"]).code == 0
    assert not (workspace / ".orbit/learnings" / accepted["id"]).exists()


@pytest.mark.parametrize(
    ("existing", "paraphrase"),
    [
        (
            "Money amounts are stored as integer cents; never use floats for money",
            "Store money as integer cents, never floats",
        ),
        ("Use pnpm, never npm, in this repository.", "Use pnpm instead of npm in this repo."),
    ],
)
def test_paraphrased_duplicates_are_caught_at_add_and_propose(
    workspace: Path, orbit: CliRunner, existing: str, paraphrase: str
) -> None:
    assert orbit("learning", "add", "--summary", existing, "--tag", "money").code == 0
    for command in ("add", "propose"):
        refused = orbit("learning", command, "--summary", paraphrase, "--tag", "x")
        assert refused.code == 1 and "L-0001 already says this" in refused.err


def test_a_close_but_different_rule_is_not_a_duplicate(workspace: Path, orbit: CliRunner) -> None:
    orbit("learning", "add", "--summary", "Run migrations in a transaction", "--tag", "db")
    added = orbit("learning", "add", "--summary", "Run migrations before deploying the API",
                  "--tag", "db")  # fmt: skip
    assert added.code == 0 and "looks similar" not in added.err


def test_two_proposals_of_one_lesson_are_duplicates(workspace: Path, orbit: CliRunner) -> None:
    orbit("learning", "propose", "--summary", "Use pnpm, never npm, in this repository", "-t", "x")
    again = orbit(
        "learning", "propose", "--summary", "Use pnpm instead of npm in this repo", "-t", "x"
    )
    assert again.code == 1 and "L-0001" in again.err


def test_check_names_proposals_and_fails_on_them_only_when_asked(
    workspace: Path, orbit: CliRunner
) -> None:
    orbit("learning", "propose", "--summary", "Pin actions to a commit SHA", "--tag", "ci")
    plain = orbit("learning", "check")
    assert plain.code == 0 and "1 proposal(s) awaiting review: L-0001" in plain.err
    assert orbit("learning", "check", "--json").json()["proposals"] == ["L-0001"]
    assert orbit("learning", "check", "--proposals").code == 1
    orbit("learning", "approve", "L-0001")
    assert orbit("learning", "check", "--proposals").code == 0
