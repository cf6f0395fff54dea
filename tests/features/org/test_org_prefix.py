"""An org repository that declares its own ID prefix (`orbit org init --prefix ACME`):
it allocates `ACME-` IDs, its subscribers read them as they are, and a prefix that could
collide with `L-` or `U-` (or is no prefix at all) is refused or ignored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.features.org.conftest import Org
from tests.features.org.test_org_level import _hits, _ids
from tests.testing import agent_payload, git, hook_context, run_entry


def _acme(org: Org) -> None:
    code, out, err = org.run(org.source, "org", "init", "--prefix", "ACME")
    assert code == 0, err
    assert "ACME- IDs" in out


def test_org_init_prefix_declares_it_and_add_allocates_it(org: Org) -> None:
    _acme(org)
    assert "id_prefix: ACME" in (org.source / ".orbit" / "config.yaml").read_text()
    assert org.add("-s", "Use the money type for amounts", "-p", "**/*.py") == "ACME-0001"
    assert org.add("-s", "Log with structlog", "-t", "logging") == "ACME-0002"
    code, out, err = org.run(org.source, "learning", "show", "ACME-0002", "--json")
    assert code == 0, err
    assert json.loads(out)["id"] == "ACME-0002"
    # a store holding ACME- learnings keeps its prefix
    code, _, err = org.run(org.source, "org", "init", "--prefix", "BETA")
    assert code == 2 and "ACME-0001" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("prefix", "says"),
    [
        ("L", "project store's"),
        ("U", "user store's"),
        ("../x", "1-4 capital letters"),
        ("A" * 300, "1-4 capital letters"),
        ("É", "1-4 capital letters"),
        ("acme", "capital letters"),
        ("", "1-4 capital letters"),
    ],
)
def test_org_init_refuses_a_prefix_that_could_collide_or_is_none(
    org: Org, prefix: str, says: str
) -> None:
    before = (org.source / ".orbit" / "config.yaml").read_text()
    code, _, err = org.run(org.source, "org", "init", "--prefix", prefix)
    assert code == 2 and says in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert (org.source / ".orbit" / "config.yaml").read_text() == before


def test_subscribers_read_the_org_prefix_everywhere(org: Org) -> None:
    """list, show, search, the hook, MCP and the dashboard all show `ACME-0001`."""
    from starlette.testclient import TestClient

    from orbit_learnings.integrations.dashboard.app import build_app
    from orbit_learnings.integrations.mcp.tools import LearningTools
    from orbit_learnings.store.workspace import Workspace

    _acme(org)
    money = org.add("-s", "Use the money type for amounts", "-p", "src/**")
    org.publish()
    code, _, err = org.run(org.web, "org", "subscribe", str(org.remote))
    assert code == 0, err
    assert _ids(org, org.web, "--path", "src/app.py") == [money] == ["ACME-0001"]
    code, out, err = org.run(org.web, "learning", "show", money, "--json")
    assert code == 0, err
    assert json.loads(out)["id"] == money and json.loads(out)["level"] == "org"
    code, out, _ = org.run(org.web, "learning", "search", "money type", "--json", "--weak")
    assert [h["id"] for h in _hits(out)] == [money]
    assert _ids(org, org.web, "--level", "org") == [money]
    payload = agent_payload("claude-code.PostToolUse.Read", org.web, "s1").replace(
        "billing/invoice.py", "src/app.py"
    )
    context = hook_context(
        run_entry("orbit hook claude-code", payload, org.web, env=None), "PostToolUse"
    )
    assert f"{money} (org; scope src/**" in context
    tools = LearningTools(Workspace(org.web), "s1")
    assert tools.do_show(id=money)["level"] == "org"
    client = TestClient(build_app(Workspace(org.web), "t"), base_url="http://127.0.0.1:8765")
    auth = {"X-Orbit-Token": "t"}
    assert client.get(f"/api/learnings/{money}", headers=auth).json()["id"] == money
    assert client.get("/api/learnings/RFC-2119", headers=auth).status_code == 404


def test_a_long_lived_server_reads_the_prefix_pinned_now(org: Org) -> None:
    """An MCP server or dashboard started before the repository subscribed (or before the
    pin moved to an org that declares its prefix) still answers for `ACME-0001`."""
    from orbit_learnings.core import ids
    from orbit_learnings.integrations.mcp.tools import LearningTools
    from orbit_learnings.store.workspace import Workspace

    _acme(org)
    money = org.add("-s", "Use the money type for amounts", "-p", "src/**")
    org.publish()
    tools = LearningTools(Workspace(org.web), "s1")
    ids.declare_source(lambda: [])  # what the server knew when it started: no org
    assert not ids.is_learning_id(money)
    assert org.run(org.web, "org", "subscribe", str(org.remote))[0] == 0
    ids.declare_source(lambda: [])
    assert [h["id"] for h in tools.do_list(path="src/app.py")["learnings"]] == [money]
    ids.declare_source(lambda: [])
    assert tools.do_show(id=money)["id"] == money


def test_a_local_supersede_and_a_promotion_use_the_org_prefix(org: Org) -> None:
    _acme(org)
    money = org.add("-s", "Use the money type for amounts", "-p", "src/**")
    org.publish()
    assert org.run(org.web, "org", "subscribe", str(org.remote))[0] == 0
    local = org.run(org.web, "learning", "add", "-s", "Integer cents", "-p", "src/**")[1].strip()
    code, _, err = org.run(org.web, "learning", "supersede", money, "--with", local)
    assert code == 0, err
    assert _ids(org, org.web, "--path", "src/app.py") == [local]
    code, out, err = org.run(org.web, "learning", "check")
    assert code == 0, out + err  # `supersedes: ACME-0001` is a valid link here
    other = org.run(org.web, "learning", "add", "-s", "Retry webhooks", "-p", "src/**")[1].strip()
    code, out, err = org.run(org.web, "learning", "promote", other, "--to", "org", "--push")
    assert code == 0, err
    assert "ACME-0002" in out
    git(org.source, "fetch", "-q", "origin")  # the org merges it; the pin moves
    git(org.source, "merge", "-q", "--ff-only", f"origin/promote/{other}")
    git(org.source, "push", "-q", "origin", "HEAD:main")
    code, out, err = org.run(org.web, "org", "update")
    assert code == 0, err
    assert f"{other} is now superseded by ACME-0002" in out
    assert _ids(org, org.web, "--path", "src/app.py") == sorted([local, "ACME-0002"])


@pytest.mark.parametrize("declared", ["L", "'../x'", "A" * 300, "'ÉCOLE'", "[O]"])
def test_a_hostile_org_prefix_is_ignored_with_one_line_and_never_read_as_l(
    org: Org, declared: str
) -> None:
    """An org declaring `L` would hand out IDs that pass for the project's: its
    declaration is ignored (one line), only its `O-` bundles are read, and hooks answer."""
    config = org.source / ".orbit" / "config.yaml"
    config.write_text(f"id_prefix: {declared}\n")
    for learning_id in ("L-0001", "O-0002"):
        folder = org.source / ".orbit" / "learnings" / learning_id
        folder.mkdir(parents=True)
        (folder / "learning.yaml").write_text(
            f"id: {learning_id}\nschemaVersion: 1\nstatus: active\n"
            "created_at: 2026-05-09T18:00:00Z\nupdated_at: 2026-05-09T18:00:00Z\n"
            f"scope:\n  paths: ['src/**']\nsummary: org lesson {learning_id}\n"
        )
    org.publish()
    code, _, err = org.run(org.web, "org", "subscribe", str(org.remote))
    assert code == 0, err
    about = [line for line in err.splitlines() if "config.yaml" in line]
    assert len(about) == 1 and "IDs read as O-" in about[0], err
    assert "L-0001" in err and "not a O- learning" in err
    local = org.run(org.web, "learning", "add", "-s", "Local", "-p", "src/**")[1].strip()
    assert local == "L-0001"  # the project's own, not the org's
    code, out, err = org.run(org.web, "learning", "list", "--path", "src/app.py", "--json")
    assert code == 0
    assert {(h["id"], h["level"]) for h in _hits(out)} == {("L-0001", "project"), ("O-0002", "org")}
    payload = agent_payload("claude-code.PostToolUse.Read", org.web, "s2").replace(
        "billing/invoice.py", "src/app.py"
    )
    context = hook_context(
        run_entry("orbit hook claude-code", payload, org.web, env=None), "PostToolUse"
    )
    assert "O-0002 (org;" in context and "org lesson L-0001" not in context


def test_a_tampered_cached_prefix_never_crashes_a_hook(org: Org) -> None:
    _acme(org)
    org.add("-s", "Use the money type for amounts", "-p", "src/**")
    org.publish()
    assert org.run(org.web, "org", "subscribe", str(org.remote))[0] == 0
    tree = next(org.cache.glob("*/trees/*"))
    (tree / ".orbit" / "config.yaml").chmod(0o644)
    (tree / ".orbit" / "config.yaml").write_text("id_prefix: L\n" + "x" * 10_000)
    payload = agent_payload("claude-code.PostToolUse.Read", org.web, "s3").replace(
        "billing/invoice.py", "src/app.py"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "orbit_learnings", "hook", "claude-code"],
        input=payload,
        cwd=org.web,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr


def test_prose_is_never_an_id_even_with_a_declared_prefix(org: Org) -> None:
    from orbit_learnings.core import ids
    from orbit_learnings.store.workspace import find_workspace

    _acme(org)
    find_workspace(org.source)
    assert ids.is_learning_id("ACME-0001") and ids.level_of("ACME-0001") == "org"
    text = "Per RFC-2119 and ISO-8601, see ACME-0001 and L-0002 (not ACME-001)."
    assert ids.id_in_text().findall(text) == ["ACME-0001", "L-0002"]
    for prose in ("RFC-2119", "ISO-8601", "HTTP-0200"):
        assert not ids.is_learning_id(prose)
    git(org.source, "status")  # the repository is untouched by judging IDs


def test_feedback_markers_name_org_ids_with_the_declared_prefix(tmp_path: Path) -> None:
    from orbit_learnings.core import ids

    ids.declare_source(lambda: ["ACME"])
    try:
        import re

        from orbit_learnings.store.feedback import MARKER

        pattern = re.compile(MARKER.format(ids.id_in_text().pattern))
        found = pattern.findall("LEARNING_HELPFUL: ACME-0003 LEARNING_NOT_HELPFUL: RFC-2119")
        assert found == [("HELPFUL", "ACME-0003")]
    finally:
        ids.declare_source(lambda: [])
