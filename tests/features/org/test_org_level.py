"""The org level end to end: a bare org remote, two subscribing repositories, real git."""

from __future__ import annotations

import json
from pathlib import Path

from tests.features.org.conftest import Org
from tests.testing import git


def _hits(out: str) -> list[dict[str, object]]:
    """The hits of a `--json` list or search (one place to follow the envelope)."""
    data = json.loads(out)
    found = data.get("results", data.get("learnings"))
    return list(found if found is not None else data.get("data", {}).get("results", []))


def _ids(org: Org, repo: Path, *args: str) -> list[str]:
    code, out, err = org.run(repo, "learning", "list", "--json", *args)
    assert code == 0, err
    return sorted(str(hit["id"]) for hit in _hits(out))


def test_org_init_declares_the_prefix_and_add_allocates_it(org: Org) -> None:
    assert "id_prefix: O" in (org.source / ".orbit" / "config.yaml").read_text()
    assert org.add("-s", "Use the money type for amounts", "-p", "**/*.py") == "O-0001"
    assert org.add("-s", "Log with structlog", "-t", "logging") == "O-0002"


def test_subscribe_pins_the_full_sha_and_both_repositories_read_org_learnings(org: Org) -> None:
    money = org.add("-s", "Use the money type for amounts", "-p", "**/*.py")
    head = org.publish()
    for repo in (org.payments, org.web):
        code, out, err = org.run(repo, "org", "subscribe", str(org.remote), "--branch", "main")
        assert code == 0, err
        lock = (repo / ".orbit" / "org.lock").read_text()
        assert f"commit: {head}\n" in lock
        config = (repo / ".orbit" / "config.yaml").read_text()
        assert str(org.remote) in config and "branch: main" in config
        assert _ids(org, repo, "--path", "src/app.py") == [money]
        code, out, _ = org.run(repo, "learning", "list", "--json", "--level", "org")
        assert _hits(out)[0]["level"] == "org"
        assert _ids(org, repo, "--level", "project") == []
        assert not list(repo.glob(".orbit/**/clone.git"))  # the checkout is in the cache
    assert (org.cache).is_dir()
    code, out, _ = org.run(org.web, "learning", "show", money, "--json")
    assert code == 0 and json.loads(out)["level"] == "org"


def test_subscribe_in_a_repository_without_orbit_creates_its_store(
    org: Org, tmp_path: Path
) -> None:
    """`org subscribe` is often a repository's first orbit command: it makes `.orbit/`
    (only once the org answered: a bad URL leaves the folder as it was)."""
    money = org.add("-s", "Use the money type for amounts", "-p", "**")
    org.publish()
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q", "-b", "main")
    code, _, err = org.run(fresh, "org", "subscribe", str(tmp_path / "nowhere.git"))
    assert code == 1 and "does not appear to be a git repository" in err
    assert not (fresh / ".orbit").exists()
    code, out, err = org.run(fresh, "org", "subscribe", str(org.remote))
    assert code == 0, err
    assert "Commit .orbit/" in out
    assert (fresh / ".orbit" / "org.lock").is_file() and (fresh / ".orbit" / ".gitignore").is_file()
    assert _ids(org, fresh, "--path", "src/app.py") == [money]


def test_repository_scoped_learnings_apply_only_where_they_belong(org: Org) -> None:
    payments_only = org.add("-s", "Call the payments API with an idempotency key", "-p", "**")
    org.scope_repos(payments_only, "payments-*")
    everywhere = org.add("-s", "Never log secrets", "-p", "**")
    org.publish()
    for repo in (org.payments, org.web):
        assert org.run(repo, "org", "subscribe", str(org.remote))[0] == 0
    assert _ids(org, org.payments, "--path", "src/app.py") == sorted([payments_only, everywhere])
    assert _ids(org, org.web, "--path", "src/app.py") == [everywhere]
    _, out, _ = org.run(org.web, "learning", "search", "idempotency", "--json", "--weak")
    assert payments_only not in out
    _, out, _ = org.run(org.payments, "learning", "search", "idempotency", "--json", "--weak")
    assert payments_only in out
    # repo_name in .orbit/config.yaml wins over the origin URL and the folder
    (org.web / ".orbit" / "config.yaml").write_text(
        (org.web / ".orbit" / "config.yaml").read_text() + "repo_name: payments-web\n"
    )
    assert payments_only in _ids(org, org.web, "--path", "src/app.py")


def test_add_repo_writes_scope_repos_in_an_org_store_only(org: Org) -> None:
    """`--repo` (repeatable, on add, propose and update) writes `scope.repos`; a project
    or personal store refuses it, since its learnings are read in one place anyway."""
    scoped = org.add("-s", "Payments calls carry a key", "-p", "src/**", "--repo", "payments-*")
    text = (org.source / ".orbit" / "learnings" / scoped / "learning.yaml").read_text()
    assert "  repos:\n    - payments-*\n" in text
    code, out, err = org.run(
        org.source, "learning", "propose", "-s", "Web rule", "-p", "**", "--repo", "web",
        "--repo", "Web",
    )  # fmt: skip
    assert code == 0, err
    proposed = out.strip().splitlines()[0]
    text = (org.source / ".orbit" / "learnings" / proposed / "learning.yaml").read_text()
    assert "    - web\n    - Web\n" in text  # case-sensitive: two repositories
    code, _, err = org.run(org.source, "learning", "update", scoped, "--add-repo", "web")
    assert code == 0, err
    code, _, err = org.run(org.source, "learning", "update", scoped, "--remove-repo", "payments-*")
    assert code == 0, err
    code, out, _ = org.run(org.source, "learning", "show", scoped, "--json")
    assert json.loads(out)["scope"]["repos"] == ["web"]
    org.publish()
    for repo in (org.payments, org.web):
        assert org.run(repo, "org", "subscribe", str(org.remote))[0] == 0
    assert scoped in _ids(org, org.web, "--path", "src/app.py")
    assert scoped not in _ids(org, org.payments, "--path", "src/app.py")
    for bad, says in (("payments/api", "never a folder"), ("pay[", "unclosed '['"), ("", "empty")):
        code, _, err = org.run(
            org.source, "learning", "add", "-s", "x y", "-p", "**", "--repo", bad
        )
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
    code, _, err = org.run(org.source, "learning", "update", scoped, "--remove-repo", "nope")
    assert code == 2 and "has no repo 'nope'" in err
    for args in (("--repo", "web"), ("--repo", "web", "--level", "user")):
        code, _, err = org.run(org.web, "learning", "add", "-s", "Local", "-p", "src/**", *args)
        assert code == 2 and "no org store" in err and len(err.strip().splitlines()) == 1
    local = org.run(org.web, "learning", "add", "-s", "Local", "-p", "src/**")[1].strip()
    code, _, err = org.run(org.web, "learning", "update", local, "--add-repo", "web")
    assert code == 2 and "no org store" in err


def test_fetch_never_moves_the_pin_and_update_moves_it_in_one_line(org: Org) -> None:
    first = org.add("-s", "Use the money type for amounts", "-p", "**/*.py")
    pinned = org.publish()
    assert org.run(org.web, "org", "subscribe", str(org.remote))[0] == 0
    git(org.web, "add", "-A")
    git(org.web, "commit", "-q", "-m", "subscribe")
    second = org.add("-s", "Prefer UTC timestamps", "-p", "**/*.py")
    newest = org.publish("second")
    code, out, err = org.run(org.web, "org", "fetch")
    assert code == 0, err
    assert pinned[:12] in out and "pin stays" in out
    assert f"commit: {pinned}" in (org.web / ".orbit" / "org.lock").read_text()
    assert _ids(org, org.web, "--path", "src/app.py") == [first]
    code, out, err = org.run(org.web, "org", "update")
    assert code == 0, err
    diff = git(org.web, "diff", "--unified=0", "--", ".orbit/org.lock")
    changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in "+++---"]
    assert changed == [f"-commit: {pinned}", f"+commit: {newest}"]
    assert _ids(org, org.web, "--path", "src/app.py") == sorted([first, second])


def test_a_force_pushed_branch_is_named_and_the_last_pin_is_still_read(org: Org) -> None:
    first = org.add("-s", "Use the money type for amounts", "-p", "**/*.py")
    org.publish()
    assert org.run(org.web, "org", "subscribe", str(org.remote))[0] == 0
    git(org.source, "commit", "-q", "--amend", "-m", "rewritten")
    git(org.source, "push", "-q", "--force", "origin", "HEAD:main")
    code, _, err = org.run(org.web, "org", "fetch")
    assert code == 0
    assert "force-pushed" in err and "still reading the pinned commit" in err
    assert _ids(org, org.web, "--path", "src/app.py") == [first]
    code, _, err = org.run(org.web, "org", "update")
    assert code == 1 and "does not descend from the pin" in err and "--force" in err
    assert org.run(org.web, "org", "update", "--force")[0] == 0


def test_a_deleted_branch_is_named_and_the_last_pin_is_still_read(org: Org) -> None:
    first = org.add("-s", "Use the money type for amounts", "-p", "**/*.py")
    org.publish()
    git(org.source, "push", "-q", "origin", "HEAD:refs/heads/rules")
    assert org.run(org.web, "org", "subscribe", str(org.remote), "--branch", "rules")[0] == 0
    git(org.source, "push", "-q", "origin", ":rules")
    code, _, err = org.run(org.web, "org", "fetch")
    assert code == 0 and "'rules' is gone" in err and "still reading" in err
    assert _ids(org, org.web, "--path", "src/app.py") == [first]
    code, _, err = org.run(org.web, "org", "update")
    assert code == 1 and "gone" in err


def test_offline_reads_use_the_cache_and_a_missing_cache_is_one_hint(org: Org) -> None:
    first = org.add("-s", "Use the money type for amounts", "-p", "**/*.py")
    org.publish()
    assert org.run(org.web, "org", "subscribe", str(org.remote))[0] == 0
    org.remote.rename(org.remote.with_name("gone.git"))  # offline: the remote is unreachable
    assert _ids(org, org.web, "--path", "src/app.py") == [first]
    code, _, err = org.run(org.web, "org", "fetch")
    assert code == 1 and "cannot fetch" in err
    import shutil

    shutil.rmtree(org.cache)  # a teammate's machine: the lock is committed, the cache empty
    project = org.run(org.web, "learning", "add", "-s", "Local lesson", "-p", "src/**")[1].strip()
    code, out, err = org.run(org.web, "learning", "list", "--path", "src/app.py", "--json")
    assert code == 0
    assert [h["id"] for h in _hits(out)] == [project]
    hints = [line for line in err.splitlines() if "org fetch" in line]
    assert len(hints) == 1 and len(err.splitlines()) == 1
    org.remote.with_name("gone.git").rename(org.remote)  # back online: fetch brings the pin
    code, _, err = org.run(org.web, "org", "fetch", "--quiet")
    assert code == 0, err
    assert _ids(org, org.web, "--path", "src/app.py") == sorted([first, project])


def _subscribed(org: Org, *summaries: str, glob: str = "**/*.py", priority: int = 0) -> list[str]:
    """Org learnings on `glob`, published, and `web` subscribed to them."""
    made = [org.add("-s", s, "-p", glob, "--priority", str(priority)) for s in summaries]
    org.publish()
    assert org.run(org.web, "org", "subscribe", str(org.remote))[0] == 0
    return made


def test_supersede_locally_writes_only_the_project_learning_and_hides_the_org_one(
    org: Org,
) -> None:
    (money,) = _subscribed(org, "Use the money type for amounts")
    code, out, err = org.run(
        org.web, "learning", "add", "-s", "Amounts here are integer cents", "-p", "src/**"
    )
    local = out.strip()
    before = git(org.source, "rev-parse", "HEAD")
    code, out, err = org.run(org.web, "learning", "supersede", money, "--with", local)
    assert code == 0, err
    assert (
        f"supersedes: {money}"
        in (org.web / ".orbit" / "learnings" / local / "learning.yaml").read_text()
    )
    tree = next(org.cache.glob("*/trees/*"))
    assert "superseded" not in (tree / ".orbit" / "learnings" / money / "learning.yaml").read_text()
    assert git(org.source, "rev-parse", "HEAD") == before
    assert _ids(org, org.web, "--path", "src/app.py") == [local]
    code, out, _ = org.run(org.web, "learning", "search", "money type", "--json", "--weak")
    assert money not in out
    (org.payments / ".orbit" / "org.lock").write_text(
        (org.web / ".orbit" / "org.lock").read_text()
    )  # another repository that pins the same commit still sees it
    assert _ids(org, org.payments, "--path", "src/app.py") == [money]


def test_show_says_where_an_org_learning_is_superseded_here(org: Org) -> None:
    (money,) = _subscribed(org, "Use the money type for amounts")
    local = org.run(org.web, "learning", "add", "-s", "Integer cents", "-p", "src/**")[1].strip()
    assert org.run(org.web, "learning", "supersede", money, "--with", local)[0] == 0
    code, out, err = org.run(org.web, "learning", "show", money)
    assert code == 0, err
    assert f"status: active (superseded here by {local})" in out
    code, out, _ = org.run(org.web, "learning", "show", money, "--json")
    assert json.loads(out)["superseded_here_by"] == local
    code, out, _ = org.run(org.web, "learning", "show", local)
    assert f"supersedes: {money} (org; hidden in this repository)" in out
    from orbit_learnings.integrations.mcp.tools import LearningTools
    from orbit_learnings.store.workspace import Workspace

    assert LearningTools(Workspace(org.web), "s1").do_show(id=money)["superseded_here_by"] == local
    (org.payments / ".orbit" / "org.lock").write_text(
        (org.web / ".orbit" / "org.lock").read_text()
    )  # a repository that does not replace it: nothing to say
    code, out, _ = org.run(org.payments, "learning", "show", money, "--json")
    assert code == 0 and "superseded_here_by" not in json.loads(out)


def test_hooks_and_inject_show_org_learnings_with_their_level_and_half_the_slots(
    org: Org,
) -> None:
    rules = (f"Org rule number {n} about python" for n in range(4))
    org_ids = _subscribed(org, *rules, glob="src/app.py", priority=10)  # they rank first
    local = [
        org.run(org.web, "learning", "add", "-s", f"Local rule {n}", "-p", "src/app.py")[1].strip()
        for n in range(4)
    ]
    code, out, err = org.run(
        org.web, "learning", "inject", "--path", "src/app.py", "--limit", "4", "--format", "json"
    )
    assert code == 0, err
    shown = [h["id"] for h in json.loads(out)["learnings"]]
    assert len(shown) == 4 and len([i for i in shown if i in org_ids]) == 2
    assert {h.get("level") for h in json.loads(out)["learnings"] if h["id"] in org_ids} == {"org"}
    for bundle in local:  # no project learning matches: org learnings may take every slot
        org.run(org.web, "learning", "update", bundle, "--path", "docs/**")
    code, out, _ = org.run(
        org.web, "learning", "inject", "--path", "src/app.py", "--limit", "4", "--format", "json"
    )
    assert sorted(h["id"] for h in json.loads(out)["learnings"]) == sorted(org_ids)
    from tests.testing import agent_payload, hook_context, run_entry

    payload = agent_payload("claude-code.PostToolUse.Read", org.web, "s1").replace(
        "billing/invoice.py", "src/app.py"
    )
    context = hook_context(
        run_entry("orbit hook claude-code", payload, org.web, env=None), "PostToolUse"
    )
    assert any(i in context for i in org_ids) and "(org; scope src/app.py" in context
    # the header names what is shown: org learnings are not "Project learnings"
    assert context.startswith("Learnings whose scope matches src/app.py:\n")
    code, out, _ = org.run(org.web, "learning", "inject", "--path", "src/app.py")
    assert "\nLearnings relevant to this task:\n" in out and "(org)" in out


def test_promote_then_update_brings_it_in_and_supersedes_the_project_copy(org: Org) -> None:
    _subscribed(org, "Use the money type for amounts")
    added = org.run(
        org.web, "learning", "add", "-s", "Retry webhooks", "-p", "src/**", "-e", "pr=17"
    )
    local = added[1].strip()
    code, out, err = org.run(org.web, "learning", "promote", local, "--to", "org")
    assert code == 0, err
    assert f"promote/{local}" in out and "O-0002" in out and "git --git-dir" in out
    assert git(org.remote, "branch", "--list", f"promote/{local}") == ""  # not pushed yet
    code, out, err = org.run(org.web, "learning", "promote", local, "--to", "org", "--push")
    assert code == 0, err
    shown = git(org.remote, "show", f"promote/{local}:.orbit/learnings/O-0002/learning.yaml")
    assert "id: O-0002" in shown and f"ref: web:{local}" in shown and "kind: pr" in shown
    git(org.source, "fetch", "-q", "origin")  # the org reviews and merges it
    git(org.source, "merge", "-q", "--ff-only", f"origin/promote/{local}")
    git(org.source, "push", "-q", "origin", "HEAD:main")
    code, out, err = org.run(org.web, "org", "update")
    assert code == 0, err
    assert f"{local} is now superseded by O-0002" in out
    record = (org.web / ".orbit" / "learnings" / local / "learning.yaml").read_text()
    assert "status: superseded" in record and "superseded_by: O-0002" in record
    assert "O-0002" in _ids(org, org.web, "--path", "src/app.py")
    assert local not in _ids(org, org.web, "--path", "src/app.py")


def test_org_check_lists_learnings_no_subscriber_needs_and_exits_1(org: Org) -> None:
    used = org.add("-s", "Python code uses the money type", "-p", "src/**/*.py")
    unused = org.add("-s", "Terraform modules pin providers", "-p", "**/*.tf")
    elsewhere = org.add("-s", "Payments code retries", "-p", "src/**")
    org.scope_repos(elsewhere, "payments-*")
    tagged = org.add("-s", "Security review flags eval", "-t", "security")
    code, out, err = org.run(org.source, "org", "check", str(org.web))
    assert code == 1, err
    listed = {line.split("\t")[0] for line in out.splitlines()}
    assert listed == {unused, elsewhere}  # payments-only, and web is not payments
    assert used not in listed and tagged not in listed
    code, out, err = org.run(org.source, "org", "check", str(org.web), str(org.payments))
    assert code == 1 and {line.split("\t")[0] for line in out.splitlines()} == {unused}
    (org.payments / "infra.tf").write_text("terraform {}\n")
    git(org.payments, "add", "infra.tf")
    code, out, _ = org.run(org.source, "org", "check", str(org.web), str(org.payments))
    assert code == 0 and "Every org learning matches" in out


def test_the_hook_reading_org_learnings_imports_nothing_heavy_and_never_runs_git(
    org: Org,
) -> None:
    """The org level on the hot path: the pin is read line by line, the cache folder
    named without hashlib, `repo_name` read without YAML, and no git process started."""
    import subprocess
    import sys

    from tests.e2e.test_processes import heavy_beyond_the_floor
    from tests.testing import wait_until_settled

    scoped = org.add("-s", "Payments code retries", "-p", "src/**")
    org.scope_repos(scoped, "payments-*")
    _subscribed(org, "Use the money type for amounts")
    config = org.web / ".orbit" / "config.yaml"
    config.write_text(config.read_text() + "repo_name: payments-web  # scope.repos\n")
    for store in (org.web, next(org.cache.glob("*/trees/*"))):
        wait_until_settled(store)  # else the first read re-reads racy files, parsing YAML
    assert org.run(org.web, "learning", "list")[0] == 0  # the indexes, warm
    payload = json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "session_id": "budget",
            "cwd": str(org.web),
            "tool_name": "Read",
            "tool_input": {"file_path": str(org.web / "src" / "app.py")},
        }
    )
    code = (
        "import io, sys; sys.stdin = io.StringIO(sys.argv[1]); "
        "from orbit_learnings.entry import main; main(['hook', 'claude-code']); "
        "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, payload], cwd=org.web, capture_output=True, text=True
    )
    assert scoped in proc.stdout and "(org; scope src/**" in proc.stdout
    loaded = {m.split(".")[0] for m in proc.stderr.rsplit("MODULES ", 1)[1].split()}
    budget = heavy_beyond_the_floor() | {"hashlib", "platformdirs", "subprocess"}
    assert not loaded & budget, sorted(loaded & budget)  # no subprocess: git never ran


def test_mcp_and_the_dashboard_show_the_org_level_and_filter_by_it(org: Org) -> None:
    from starlette.testclient import TestClient

    from orbit_learnings.integrations.dashboard.app import build_app
    from orbit_learnings.integrations.mcp.tools import LearningTools
    from orbit_learnings.store.workspace import Workspace

    (money,) = _subscribed(org, "Use the money type for amounts")
    local = org.run(org.web, "learning", "add", "-s", "Local rule", "-p", "src/**")[1].strip()
    tools = LearningTools(Workspace(org.web), "s1")
    listed = tools.do_list(path="src/app.py")["learnings"]
    assert {h["id"]: h["level"] for h in listed} == {money: "org", local: "project"}
    assert tools.do_show(id=money)["level"] == "org"
    client = TestClient(build_app(Workspace(org.web), "t"), base_url="http://127.0.0.1:8765")
    auth = {"X-Orbit-Token": "t"}
    rows = client.get("/api/learnings?level=org", headers=auth).json()
    assert [r["id"] for r in rows["results"]] == [money]
    rows = client.get("/api/learnings", headers=auth).json()
    assert {r["id"] for r in rows["results"]} == {money, local}
    assert client.get("/api/learnings?level=team", headers=auth).status_code == 400
