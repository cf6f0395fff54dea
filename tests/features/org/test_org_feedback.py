"""Feedback on an org learning lives in the subscriber's `.orbit/org-feedback/<ID>/`,
committed with the project: never in the org cache, which `org update` replaces.
Real files, real git: an org remote, a subscriber, a vote, a changed org, an update."""

from __future__ import annotations

import json
from pathlib import Path

from tests.features.org.conftest import Org
from tests.testing import git


def _subscribe(org: Org, repo: Path, *summaries: str) -> list[str]:
    """Org learnings on `src/**`, published, `repo` subscribed and the lock committed."""
    made = [org.add("-s", s, "-p", "src/**") for s in summaries]
    org.publish()
    code, _, err = org.run(repo, "org", "subscribe", str(org.remote))
    assert code == 0, err
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "subscribe")
    return made


def _shown(org: Org, repo: Path, learning_id: str) -> dict[str, object]:
    code, out, err = org.run(repo, "learning", "show", learning_id, "--json")
    assert code == 0, err
    data: dict[str, object] = json.loads(out)
    return data


def _listed(org: Org, repo: Path, learning_id: str) -> dict[str, object]:
    code, out, err = org.run(repo, "learning", "list", "--json", "--path", "src/app.py")
    assert code == 0, err
    (hit,) = [h for h in json.loads(out)["results"] if h["id"] == learning_id]
    return dict(hit)


def _move_the_org(org: Org, repo: Path) -> None:
    """A changed org remote, and `org update` in `repo`: the pinned tree is replaced."""
    org.add("-s", "Prefer UTC timestamps", "-p", "src/**")
    newest = org.publish("another org learning")
    code, _, err = org.run(repo, "org", "update")
    assert code == 0, err
    assert f"commit: {newest}" in (repo / ".orbit" / "org.lock").read_text()


def _untracked(repo: Path) -> list[str]:
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    return [line[3:] for line in status.splitlines()]


def test_a_vote_on_an_org_learning_is_in_the_project_and_survives_org_update(org: Org) -> None:
    (money,) = _subscribe(org, org.web, "Use the money type for amounts")
    code, out, err = org.run(
        org.web, "learning", "upvote", money, "--model", "claude", "--task", "T-1", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["vote_count"] == 1
    votes = f".orbit/org-feedback/{money}/votes.jsonl"
    assert (org.web / votes).is_file()
    assert votes in _untracked(org.web)  # git sees it: the team commits it
    assert not list(org.cache.rglob("votes.jsonl"))  # nothing written into the cache
    _move_the_org(org, org.web)
    assert _shown(org, org.web, money)["vote_count"] == 1
    assert _listed(org, org.web, money)["vote_count"] == 1
    code, out, _ = org.run(
        org.web, "learning", "upvote", money, "--model", "claude", "--task", "T-1", "--json"
    )
    assert code == 0 and json.loads(out)["added"] is False  # the same vote counts once
    assert not list(org.cache.glob("*/trees/*/.orbit/state"))  # each tree stays as written
    assert (org.web / ".orbit" / "state" / "org" / "index.sqlite3").is_file()  # its index


def test_a_feedback_marker_for_an_org_id_lands_in_the_project(org: Org, tmp_path: Path) -> None:
    (money,) = _subscribe(org, org.web, "Use the money type for amounts")
    output = tmp_path / "agent.log"
    output.write_text(f"Done.\nLEARNING_HELPFUL: {money}\n")
    code, out, err = org.run(
        org.web, "learning", "feedback", "--from-output", str(output), "--task", "T-2", "--json"
    )
    assert code == 0, err
    assert [r["id"] for r in json.loads(out)["recorded"]] == [money]
    assert f".orbit/org-feedback/{money}/feedback.jsonl" in _untracked(org.web)
    assert not list(org.cache.rglob("feedback.jsonl"))
    _move_the_org(org, org.web)
    shown = _shown(org, org.web, money)
    assert shown["times_helpful"] == 1 and shown["helpfulness"] == 0.55


def test_the_org_bundles_own_votes_and_the_projects_both_count(org: Org) -> None:
    """The org repository's own votes (committed there) and this project's add up."""
    money = org.add("-s", "Use the money type for amounts", "-p", "src/**")
    code, _, err = org.run(
        org.source, "learning", "upvote", money, "--model", "codex", "--task", "ORG-1"
    )
    assert code == 0, err
    _subscribe(org, org.web)
    assert org.run(org.web, "learning", "upvote", money, "-m", "claude", "--task", "T-1")[0] == 0
    assert _shown(org, org.web, money)["vote_count"] == 2
    _move_the_org(org, org.web)
    assert _shown(org, org.web, money)["vote_count"] == 2


def test_one_subscribers_votes_are_not_anothers(org: Org) -> None:
    """Two subscribers read the same pinned tree; each counts its own project's feedback."""
    (money,) = _subscribe(org, org.web, "Use the money type for amounts")
    code, _, err = org.run(org.payments, "org", "subscribe", str(org.remote))
    assert code == 0, err
    assert _shown(org, org.payments, money)["vote_count"] == 0  # its index is built first
    assert org.run(org.web, "learning", "upvote", money, "-m", "claude", "--task", "T-1")[0] == 0
    assert _shown(org, org.web, money)["vote_count"] == 1
    assert _shown(org, org.payments, money)["vote_count"] == 0
    assert not (org.payments / ".orbit" / "org-feedback").exists()


def test_the_dashboard_votes_into_the_project_and_reads_its_feedback(
    org: Org, tmp_path: Path
) -> None:
    from starlette.testclient import TestClient

    from orbit_learnings.integrations.dashboard.app import build_app
    from orbit_learnings.store.workspace import Workspace

    money, _ = _subscribe(org, org.web, "Use the money type for amounts", "Prefer UTC")
    output = tmp_path / "agent.log"
    output.write_text(f"LEARNING_NOT_HELPFUL: {money}\n")
    assert (
        org.run(org.web, "learning", "feedback", "--from-output", str(output), "--task", "T")[0]
        == 0
    )
    client = TestClient(build_app(Workspace(org.web), "t"), base_url="http://127.0.0.1:8765")
    auth = {"X-Orbit-Token": "t"}
    voted = client.post(
        f"/api/learnings/{money}/upvote", json={"model": "human", "task": "R-1"}, headers=auth
    ).json()
    votes = f".orbit/org-feedback/{money}/votes.jsonl"
    assert voted["vote_count"] == 1 and voted["changed"] == [votes]
    assert (org.web / votes).is_file() and not list(org.cache.rglob("votes.jsonl"))
    detail = client.get(f"/api/learnings/{money}", headers=auth).json()
    assert detail["files"]["votes"] == votes and detail["vote_count"] == 1
    low = client.get("/api/learnings?low_helpfulness=1", headers=auth).json()
    assert [r["id"] for r in low["results"]] == [money]  # the other starts at 0.5: not low


def test_votes_on_two_branches_merge_and_both_count(org: Org) -> None:
    """Teammates vote on one org learning on two branches: git's union merge keeps both
    (`org subscribe` gives `org-feedback/` sidecars the union merge in .gitattributes)."""
    (money,) = _subscribe(org, org.web, "Use the money type for amounts")
    attributes = (org.web / ".orbit" / ".gitattributes").read_text()
    assert "org-feedback/*/votes.jsonl merge=union" in attributes
    git(org.web, "checkout", "-q", "-b", "teammate")
    assert org.run(org.web, "learning", "upvote", money, "-m", "codex", "--task", "T-2")[0] == 0
    git(org.web, "add", "-A")
    git(org.web, "commit", "-q", "-m", "teammate's vote")
    git(org.web, "checkout", "-q", "main")
    assert org.run(org.web, "learning", "upvote", money, "-m", "claude", "--task", "T-1")[0] == 0
    git(org.web, "add", "-A")
    git(org.web, "commit", "-q", "-m", "my vote")
    git(org.web, "merge", "-q", "--no-edit", "teammate")
    assert _shown(org, org.web, money)["vote_count"] == 2
    code, _, err = org.run(org.web, "learning", "check")
    assert code == 0, err


def test_a_store_made_before_gains_the_union_merge_at_subscribe(org: Org) -> None:
    money = org.add("-s", "Use the money type for amounts", "-p", "src/**")
    org.publish()
    attributes = org.web / ".orbit" / ".gitattributes"
    old = [line for line in attributes.read_text().splitlines() if "org-feedback" not in line]
    attributes.write_text("\n".join(old) + "\n")
    assert org.run(org.web, "org", "subscribe", str(org.remote))[0] == 0
    lines = attributes.read_text().splitlines()
    assert lines[: len(old)] == old  # the team's lines kept as they were
    assert sorted(set(lines) - set(old)) == [
        "org-feedback/*/feedback.jsonl merge=union",
        "org-feedback/*/votes.jsonl merge=union",
    ]
    assert _shown(org, org.web, money)["level"] == "org"


def test_a_committed_link_for_org_feedback_is_refused_and_nothing_written_through_it(
    org: Org, tmp_path: Path
) -> None:
    (money,) = _subscribe(org, org.web, "Use the money type for amounts")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (org.web / ".orbit" / "org-feedback").symlink_to(elsewhere)
    code, _, err = org.run(org.web, "learning", "upvote", money, "-m", "claude", "--task", "T-1")
    assert code != 0 and "symbolic link" in err and len(err.strip().splitlines()) == 1
    output = tmp_path / "agent.log"
    output.write_text(f"LEARNING_HELPFUL: {money}\n")
    code, _, err = org.run(
        org.web, "learning", "feedback", "--from-output", str(output), "--task", "T"
    )
    assert code != 0 and "symbolic link" in err and len(err.strip().splitlines()) == 1
    assert list(elsewhere.iterdir()) == []
    assert _shown(org, org.web, money)["vote_count"] == 0


def test_check_holds_org_feedback_to_the_sidecars_rules(org: Org) -> None:
    (money,) = _subscribe(org, org.web, "Use the money type for amounts")
    assert org.run(org.web, "learning", "upvote", money, "-m", "claude", "--task", "T-1")[0] == 0
    assert org.run(org.web, "learning", "check")[0] == 0
    folder = org.web / ".orbit" / "org-feedback"
    with (folder / money / "votes.jsonl").open("a") as votes:
        votes.write("{not json\n")
    (folder / "L-0001").mkdir()  # a project learning's sidecars belong in its bundle
    (folder / "ACME-0007").mkdir()  # an org prefix this checkout has not read: not judged
    code, out, err = org.run(org.web, "learning", "check")
    assert code != 0
    said = out + err
    assert f".orbit/org-feedback/{money}/votes.jsonl:2" in said and "invalid JSON" in said
    assert "'L-0001' names no org learning" in said and "ACME-0007" not in said


def test_an_org_prefix_marker_from_a_real_process_lands_in_the_project(
    org: Org, tmp_path: Path
) -> None:
    """`LEARNING_HELPFUL: ACME-0001` in an agent's output, recorded by the console script
    as a team's Stop hook runs it: the org's own prefix, the project's folder."""
    from tests.testing import run_orbit

    assert org.run(org.source, "org", "init", "--prefix", "ACME")[0] == 0
    (money,) = _subscribe(org, org.web, "Use the money type for amounts")
    assert money == "ACME-0001"
    output = tmp_path / "agent.log"
    output.write_text(f"LEARNING_NOT_HELPFUL: {money}\nLEARNING_HELPFUL: ACME-0099\n")
    done = run_orbit(
        "learning", "feedback", "--from-output", str(output), "--task", "T-9", cwd=org.web
    )
    assert done.code == 0, done.err
    assert "ACME-0099" in done.err  # no such org learning: said, skipped
    assert f".orbit/org-feedback/{money}/feedback.jsonl" in _untracked(org.web)
    _move_the_org(org, org.web)
    shown = _shown(org, org.web, money)
    assert shown["times_not_helpful"] == 1 and shown["helpfulness"] == 0.4


def test_an_agent_upvotes_an_org_learning_through_mcp_into_the_project(org: Org) -> None:
    from orbit_learnings.integrations.mcp.tools import LearningTools
    from orbit_learnings.store.workspace import Workspace

    (money,) = _subscribe(org, org.web, "Use the money type for amounts")
    tools = LearningTools(Workspace(org.web), "s1")
    assert tools.do_upvote(id=money, model="claude", task="T-1")["vote_count"] == 1
    assert f".orbit/org-feedback/{money}/votes.jsonl" in _untracked(org.web)
    assert tools.do_show(id=money)["vote_count"] == 1
