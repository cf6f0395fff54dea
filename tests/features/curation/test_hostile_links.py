"""A cloned repository is input from strangers: what it commits as a link, a special
file or an odd path must never make orbit read or write anywhere else, block or crash.

Every file a repository provides goes through one door (`store.fileops.repo_file`):
a link out of the repository (or out of `.orbit` for orbit's own files) is refused, a
FIFO or a device is refused without being waited on, and reads are bounded. Each case
here once leaked, blocked, ran out of memory or exited 3 (issue 31).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from orbit_learnings.core.timestamps import now_iso
from orbit_learnings.curation.exporting import MARKER
from tests.testing import ORBIT_BIN, CliRunner, Outcome, dashboard_app, git

SECRET = "API_KEY = 'hunter2'\nTOKEN = 'swordfish'\n"
BOUNDED_SECONDS = 30  # a hang guard only: every case here answers in well under a second
MEMORY_CAP = 1024**3  # /dev/zero read whole once ran out of memory; here it is a quick exit


def add(orbit: CliRunner, summary: str, *args: str) -> None:
    outcome = orbit("learning", "add", "--summary", summary, *args)
    assert outcome.code == 0, outcome.err


@pytest.fixture
def store(workspace: Path, orbit: CliRunner) -> Path:
    git(workspace, "init", "-q", "-b", "main")
    add(orbit, "Money is integer cents", "--path", "billing/**")
    add(orbit, "Index every foreign key", "--tag", "database")
    return workspace


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the repository: what a committed `../outside/...` link reaches."""
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def cap_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_bounded(*args: str, cwd: Path, prefix: tuple[str, ...] = (), **env: str) -> Outcome:
    """A real `orbit` process with a memory cap and a hang guard: a timeout is a failure."""
    try:
        proc = subprocess.run(
            [*prefix, str(ORBIT_BIN), *args],
            cwd=cwd,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=BOUNDED_SECONDS,
            preexec_fn=cap_memory,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return Outcome(-1, "", f"orbit {' '.join(args)} blocked for {BOUNDED_SECONDS}s")
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


def cite(store: Path, orbit: CliRunner, relative: str, text: str = SECRET) -> Path:
    """L-0003, anchored on lines 1-2 of `relative` (created with `text`)."""
    code = store / relative
    code.parent.mkdir(parents=True, exist_ok=True)
    code.write_text(text)
    add(orbit, "Keys live in the vault", "--tag", "secrets", "--anchor", f"{relative}:1-2")
    return code


def repoint_anchor(store: Path, old: str, new: str) -> None:
    learning = store / ".orbit/learnings/L-0003/learning.yaml"
    text = learning.read_text()
    assert f"path: {old}\n" in text
    learning.write_text(text.replace(f"path: {old}\n", f"path: {new}\n"))


def dashboard(store: Path) -> TestClient:
    from orbit_learnings.integrations.dashboard.app import build_app
    from orbit_learnings.store.workspace import Workspace

    return TestClient(build_app(Workspace(store), "t"), base_url="http://127.0.0.1:8765")


def settle(client: TestClient) -> None:
    """Let the staleness worker finish before the fixture's folders go away."""
    dashboard_app(client).state.api.stale_cache.fresh(timeout=60)


# --- writes through a committed link (items 4, 5) -------------------------------------


def test_export_never_writes_agents_md_through_a_link_out_of_the_repository(
    store: Path, orbit: CliRunner, tmp_path: Path
) -> None:
    victim = tmp_path / "victim/.bashrc"
    victim.parent.mkdir()
    victim.write_text("# mine\n")
    (store / "AGENTS.md").symlink_to("../victim/.bashrc")
    refused = orbit("learning", "export", "--format", "agents-md")
    assert refused.code == 1 and "AGENTS.md leads outside the repository" in refused.err
    assert victim.read_text() == "# mine\n" and (store / "AGENTS.md").is_symlink()
    (store / "AGENTS.md").unlink()  # a link that stays inside is written through
    (store / "docs").mkdir()
    (store / "docs/AGENTS.md").write_text("# Team notes\n")
    (store / "AGENTS.md").symlink_to("docs/AGENTS.md")
    assert orbit("learning", "export", "--format", "agents-md").code == 0
    assert (store / "AGENTS.md").is_symlink()
    written = (store / "docs/AGENTS.md").read_text()
    assert written.startswith("# Team notes\n") and "Money is integer cents" in written


@pytest.mark.parametrize(
    ("fmt", "folder"),
    [
        ("cursor", ".cursor/rules"),
        ("copilot", ".github/instructions"),
        ("claude-rules", ".claude/rules"),
    ],
)
def test_export_never_writes_or_removes_in_a_rule_folder_linked_outside(
    store: Path, orbit: CliRunner, outside: Path, fmt: str, folder: str
) -> None:
    theirs = outside / "orbit-notes.md"
    theirs.write_text(f"<!-- {MARKER} -->\nSomeone else's file that happens to carry the marker\n")
    (store / folder).parent.mkdir(parents=True, exist_ok=True)
    (store / folder).symlink_to(outside)
    refused = orbit("learning", "export", "--format", fmt)
    assert refused.code == 1 and f"{folder} leads outside the repository" in refused.err
    assert [p.name for p in outside.iterdir()] == ["orbit-notes.md"]
    assert "Someone else's file" in theirs.read_text()


def test_export_never_removes_a_rule_file_it_did_not_write(store: Path, orbit: CliRunner) -> None:
    """A link named like a generated rule is not one: orbit only ever writes regular files."""
    rules = store / ".cursor/rules"
    rules.mkdir(parents=True)
    (store / "docs").mkdir()
    (store / "docs/shared.mdc").write_text(f"<!-- {MARKER} -->\nkept by hand\n")
    (rules / "orbit-shared.mdc").symlink_to("../../docs/shared.mdc")
    assert orbit("learning", "export", "--format", "cursor").code == 0
    assert (rules / "orbit-shared.mdc").is_symlink()
    assert (store / "docs/shared.mdc").read_text().endswith("kept by hand\n")
    assert (rules / "orbit-billing.mdc").is_file()  # what it did write is there


def test_an_orbit_folder_linked_outside_is_never_used(
    store: Path, orbit: CliRunner, outside: Path
) -> None:
    """A committed `.orbit` linked to another folder once took every learning, state file
    and `.gitignore` orbit writes there."""
    shutil.move(store / ".orbit", outside / "store")
    (store / ".orbit").symlink_to("../outside/store")
    before = sorted(str(p.relative_to(outside)) for p in outside.rglob("*"))
    for args in (("learning", "add", "--summary", "A third lesson", "--tag", "x"), ("init",)):
        refused = orbit(*args)
        assert refused.code == 1 and ".orbit is a link out of the repository" in refused.err, args
    assert sorted(str(p.relative_to(outside)) for p in outside.rglob("*")) == before


@pytest.mark.parametrize("agent", ["claude-code", "cursor", "gemini"])
def test_hooks_install_never_writes_an_agents_settings_through_a_link_outside(
    store: Path, orbit: CliRunner, outside: Path, agent: str
) -> None:
    """A committed `.claude` linked to the user's own folder once received orbit's
    settings and skill there."""
    folder = {"claude-code": ".claude", "cursor": ".cursor", "gemini": ".gemini"}[agent]
    (store / folder).symlink_to(outside)
    refused = orbit("hooks", "install", agent)
    assert refused.code == 1 and "leads outside the repository" in refused.err
    assert list(outside.iterdir()) == []


# --- reads through a committed link or path (items 6-11) -------------------------------


def test_an_anchor_path_out_of_the_repository_is_reported_and_never_read(
    store: Path, orbit: CliRunner, outside: Path
) -> None:
    (outside / "secret.py").write_text(SECRET)
    cite(store, orbit, "src/s.py").unlink()
    repoint_anchor(store, "src/s.py", "../outside/secret.py")
    check = orbit("learning", "check")
    assert check.code == 1 and "anchors[0].path must be a repository-relative" in check.out
    for args in (("learning", "show", "L-0003"), ("learning", "anchors")):
        outcome = orbit(*args)
        assert outcome.code in (0, 1) and "hunter2" not in outcome.out, args
        assert "../outside" not in outcome.out, args


def test_import_never_reads_a_rule_file_that_links_outside(
    store: Path, orbit: CliRunner, outside: Path
) -> None:
    """A committed CLAUDE.md linked to the user's own notes would turn them into learnings
    that the next commit publishes."""
    (outside / "notes.md").write_text("# Private\n\n- The staging password is hunter2\n")
    (store / "CLAUDE.md").symlink_to("../outside/notes.md")
    refused = orbit("learning", "import", "CLAUDE.md", "--apply")
    assert refused.code == 1 and "CLAUDE.md leads outside the repository" in refused.err
    assert "hunter2" not in refused.out + refused.err
    assert sorted(p.name for p in (store / ".orbit/learnings").glob("L-*")) == ["L-0001", "L-0002"]


def test_cited_code_that_now_links_outside_is_never_shown(
    store: Path, orbit: CliRunner, outside: Path
) -> None:
    (outside / "secret.py").write_text(SECRET)
    code = cite(store, orbit, "src/linked.py")
    code.unlink()
    code.symlink_to("../../outside/secret.py")  # the same lines, now outside
    show = orbit("learning", "show", "L-0003")
    assert show.code == 0 and "hunter2" not in show.out and "broken" in show.out


def test_a_config_linked_outside_is_refused_and_never_quoted(
    store: Path, orbit: CliRunner, outside: Path
) -> None:
    (outside / "credentials").write_text("ids: [AKIA-NOT-YOURS]\n")
    (store / ".orbit/config.yaml").symlink_to("../../outside/credentials")
    refused = orbit("learning", "add", "--summary", "A third lesson", "--tag", "x")
    assert refused.code == 1 and ".orbit/config.yaml leads outside .orbit" in refused.err
    assert "AKIA" not in refused.err and not (store / ".orbit/learnings/L-0003").exists()


def test_a_glossary_linked_outside_never_widens_a_search(
    store: Path, orbit: CliRunner, outside: Path
) -> None:
    (outside / "words.yaml").write_text("money: [zebra]\n")
    (store / ".orbit/glossary.yaml").symlink_to("../../outside/words.yaml")
    found = orbit("learning", "search", "zebra", "--json")
    assert found.code == 1 and ".orbit/glossary.yaml leads outside .orbit" in found.err
    assert "L-0001" not in found.out


def test_a_stale_report_linked_outside_never_reaches_the_page(store: Path, outside: Path) -> None:
    from orbit_learnings.curation.stalecache import StaleCache
    from orbit_learnings.store.workspace import Workspace

    planted = {"key": StaleCache(Workspace(store)).key(), "reasons": {"L-0001": ["PLANTED"]}}
    (outside / "stale.json").write_text(json.dumps(planted))
    (store / ".orbit/state").mkdir(exist_ok=True)
    (store / ".orbit/state/stale.json").symlink_to(outside / "stale.json")
    client = dashboard(store)
    detail = client.get("/api/learnings/L-0001")
    listed = client.get("/api/learnings", params={"stale": "true"})
    settle(client)
    assert detail.status_code == 200 and "PLANTED" not in detail.text
    assert "PLANTED" not in listed.text
    assert json.loads((outside / "stale.json").read_text()) == planted


def test_an_injection_log_linked_outside_is_never_counted(
    store: Path, orbit: CliRunner, outside: Path
) -> None:
    row = {"at": now_iso(), "layer": "hook", "session": "s", "ids": ["L-0001"], "trigger": {}}
    (outside / "log.jsonl").write_text(json.dumps(row) + "\n")
    (store / ".orbit/state").mkdir(exist_ok=True)
    (store / ".orbit/state/injections.jsonl").symlink_to(outside / "log.jsonl")
    stats = orbit("learning", "stats", "--json")
    assert stats.code == 0
    assert {r["id"]: r["injected"] for r in stats.json()["learnings"]} == {"L-0001": 0, "L-0002": 0}
    client = dashboard(store)
    assert client.get("/api/learnings/L-0001").json()["injections"] == []
    settle(client)


# --- anchor paths the file system cannot look up (item 18) -----------------------------


def test_an_anchor_path_of_300_characters_is_reported_and_skipped(
    store: Path, orbit: CliRunner
) -> None:
    cite(store, orbit, "src/s.py")
    repoint_anchor(store, "src/s.py", "src/" + "x" * 300 + ".py")
    check = orbit("learning", "check")
    assert check.code == 1 and "anchors[0].path must be a repository-relative" in check.out
    for args in (("learning", "check", "--stale"), ("learning", "anchors")):
        outcome = orbit(*args)
        assert outcome.code in (0, 1) and "unexpected" not in outcome.err, (args, outcome.err)
    client = dashboard(store)
    detail = client.get("/api/learnings/L-0003")  # an invalid record, said in one line
    assert detail.status_code == 404 and "anchors[0].path must be" in detail.json()["error"]
    assert client.get("/api/learnings").status_code == 200
    settle(client)


def test_an_anchor_path_that_is_a_link_loop_is_reported_and_skipped(
    store: Path, orbit: CliRunner
) -> None:
    code = cite(store, orbit, "src/s.py")
    code.unlink()
    code.symlink_to("t.py")
    (store / "src/t.py").symlink_to("s.py")
    stale = orbit("learning", "check", "--stale")
    assert stale.code == 1 and "L-0003 cites src/s.py:1-2" in stale.out, stale.err
    anchors = orbit("learning", "anchors")
    assert anchors.code == 0 and "broken" in anchors.out
    assert orbit("learning", "show", "L-0003").code == 0
    client = dashboard(store)
    assert client.get("/api/learnings/L-0003").status_code == 200
    settle(client)


# --- links to /dev/zero or a FIFO (item 20) --------------------------------------------

READERS = [
    (".orbit/config.yaml", ("learning", "add", "--summary", "A third lesson", "--tag", "x")),
    (".orbit/glossary.yaml", ("learning", "search", "cents")),
    (".orbit/.gitattributes", ("init",)),
    (".orbit/.gitattributes", ("hooks", "install")),
    (".orbit/.gitignore", ("init",)),
    ("AGENTS.md", ("learning", "export", "--format", "agents-md")),
    (".orbit/state/injections.jsonl", ("learning", "stats")),
    (".orbit/state/injections.jsonl", ("learning", "check", "--unused", "30")),
]


@pytest.fixture(params=["dev-zero", "fifo"])
def endless(request: pytest.FixtureRequest, outside: Path) -> Path:
    """A file that never ends (/dev/zero) or never answers (a FIFO nobody writes)."""
    if request.param == "dev-zero":
        return Path("/dev/zero")
    fifo = outside / "fifo"
    os.mkfifo(fifo)
    return fifo


@pytest.mark.parametrize(
    ("linked", "command"), READERS, ids=lambda v: "-".join(v) if isinstance(v, tuple) else v
)
def test_a_file_linked_to_an_endless_one_is_refused_without_waiting(
    store: Path, endless: Path, linked: str, command: tuple[str, ...]
) -> None:
    (store / linked).parent.mkdir(parents=True, exist_ok=True)
    (store / linked).unlink(missing_ok=True)
    (store / linked).symlink_to(endless)
    outcome = run_bounded(*command, cwd=store)
    assert outcome.code in (0, 1), outcome.err
    assert "unexpected" not in outcome.err and "Traceback" not in outcome.err


def test_the_dashboard_starts_beside_an_endless_stale_report(store: Path, endless: Path) -> None:
    (store / ".orbit/state").mkdir(exist_ok=True)
    (store / ".orbit/state/stale.json").symlink_to(endless)
    script = (
        "import sys\n"
        "from orbit_learnings.integrations.dashboard.app import build_app\n"
        "from orbit_learnings.store.workspace import Workspace\n"
        "app = build_app(Workspace(sys.argv[1]), 't')\n"
        "print(app.state.api.stale_cache.fresh(timeout=60).pending)\n"
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", script, str(store)],
            capture_output=True,
            text=True,
            timeout=BOUNDED_SECONDS * 2,
            preexec_fn=cap_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the dashboard blocked on .orbit/state/stale.json")
    assert proc.returncode == 0 and proc.stdout.strip() == "False", proc.stderr
    assert (store / ".orbit/state/stale.json").is_file()  # derived state, taken back


def test_a_fifo_inside_the_repository_is_refused_without_waiting(store: Path) -> None:
    """No link leaves the repository here: the FIFO itself is refused."""
    os.mkfifo(store / ".orbit/config.yaml")
    refused = run_bounded("learning", "add", "--summary", "A third lesson", "--tag", "x", cwd=store)
    assert refused.code == 1 and ".orbit/config.yaml is not a regular file" in refused.err


# --- the staleness worker (item 23) ----------------------------------------------------


def test_the_staleness_worker_outlives_a_linked_report(store: Path, outside: Path) -> None:
    """A link in its place once killed the worker thread: "checking…" forever."""
    from orbit_learnings.curation.stalecache import StaleCache
    from orbit_learnings.store.workspace import Workspace

    (outside / "stale.json").write_text("{}")
    (store / ".orbit/state").mkdir(exist_ok=True)
    (store / ".orbit/state/stale.json").symlink_to(outside / "stale.json")
    view = StaleCache(Workspace(store)).fresh(timeout=60)
    assert not view.pending and view.error is None
    assert (outside / "stale.json").read_text() == "{}"
    assert not (store / ".orbit/state/stale.json").is_symlink()


# --- a read-only checkout (item 26) ----------------------------------------------------


@pytest.fixture
def read_only(store: Path, orbit: CliRunner) -> Iterator[tuple[str, ...]]:
    """The store made read-only, and the prefix that makes a process feel it: root
    writes anywhere, so as root the process runs without the capability to override
    file modes (util-linux `setpriv`)."""
    assert orbit("learning", "list").code == 0  # the index exists, as in a CI cache
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: a read-only checkout cannot be made")
        prefix = (setpriv, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all")
    modes = {p: p.stat().st_mode for p in [store, *store.rglob("*")] if not p.is_symlink()}
    for path, mode in modes.items():
        path.chmod(mode & ~0o222)
    yield prefix
    for path, mode in modes.items():
        path.chmod(mode)


def test_a_read_only_checkout_refuses_a_write_in_one_line(
    store: Path, read_only: tuple[str, ...]
) -> None:
    refused = run_bounded(
        "learning", "add", "--summary", "A third lesson", "--tag", "x", cwd=store, prefix=read_only
    )
    assert refused.code == 1, refused.err
    assert refused.err.count("\n") == 1 and "read-only" in refused.err
    assert "unexpected" not in refused.err


def test_a_read_only_checkout_answers_when_the_user_cache_is_read_only_too(
    store: Path, read_only: tuple[str, ...], tmp_path: Path
) -> None:
    """A CI runner whose HOME cannot be written either: the index goes to a private
    temp folder and every read answers."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o555)
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {"XDG_CACHE_HOME": str(cache), "TMPDIR": str(temp)}
    listed = run_bounded(
        "learning", "list", "--path", "billing/a.py", "--json", cwd=store, prefix=read_only, **env
    )
    assert listed.code == 0, listed.err
    assert [r["id"] for r in json.loads(listed.out)["results"]] == ["L-0001"]
    found = run_bounded("learning", "search", "foreign key", cwd=store, prefix=read_only, **env)
    assert found.code == 0 and "L-0002" in found.out, found.err
    payload = {
        "hook_event_name": "PostToolUse",
        "session_id": "ci",
        "cwd": str(store),
        "tool_name": "Read",
        "tool_input": {"file_path": str(store / "billing/a.py")},
    }
    hook = subprocess.run(
        [*read_only, str(ORBIT_BIN), "hook", "claude-code"],
        cwd=store,
        env={**os.environ, **env},
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=BOUNDED_SECONDS,
    )
    assert hook.returncode == 0 and "L-0001" in hook.stdout, hook.stderr
