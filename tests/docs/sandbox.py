"""Where recipes run: a throw-away clone holding the example store and the files recipes name.

A reader runs a recipe in their own repository, which has learnings, an `origin` and the files
the recipe mentions (`--body-file why.md`, `--task-file task.yaml`). The sandbox gives every
block the same: a clone of a one-commit repository with `.orbit-example/` as `.orbit/` and the
`FIXTURES` below, its own HOME and XDG folders, this venv's `orbit` first on PATH, and proxies
that lead nowhere, so a recipe that reaches for the network fails here rather than on a
reader's machine. A `fresh` block (the README's tour) gets none of that: an empty repository,
so it has to make every file it uses, as a newcomer following it would.

A few commands need state no file can give: `PREPARE` sets it up before the block runs, keyed
by what the block says (an ID to resolve a conflict on, a draft ID, a transcript folder).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.testing import EXAMPLE, REPO

TRANSCRIPTS = REPO / "tests" / "fixtures" / "transcripts"
NOWHERE = "http://127.0.0.1:9"  # the discard port: a proxy that refuses every connection

FIXTURES: dict[str, str] = {
    "why.md": "Postgres DDL is transactional: a failed step rolls back cleanly.\n",
    "task.yaml": (
        "title: Add a NOT NULL column to orders\n"
        "description: The orders table needs a currency column.\n"
        "context_files: [db/migrations/0042_orders.sql, services/billing/invoice.py]\n"
        "tags: [database]\n"
    ),
    "agent.log": "Done.\nLEARNING_HELPFUL: L-0002\nLEARNING_NOT_HELPFUL: L-0004\n",
    "agent-output.txt": "LEARNING_HELPFUL: L-0001\n",
    "CLAUDE.md": "# Conventions\n\n- Use pnpm, never npm, in this repository.\n",
    "AGENTS.md": "# Agents\n\n- Run `make test` before every commit.\n",
    "web/AGENTS.md": "# Web\n\n- Components live in `web/src/components/`, one per file.\n",
    ".cursor/rules/db.mdc": (
        "---\nglobs: db/**\n---\n- Every migration runs inside a transaction.\n"
    ),
    ".github/instructions/api.instructions.md": (
        '---\napplyTo: "services/api/**"\n---\n- Handlers return problem+json errors.\n'
    ),
    ".claude/rules/web.md": "---\npaths: web/**\n---\n- Query tests by role, not CSS class.\n",
    "db/migrations/0042_orders.sql": "ALTER TABLE orders ADD COLUMN currency text;\n",
    "services/billing/invoice.py": "AMOUNT_CENTS = 100\n",
    "services/orders/service.py": (
        '"""Orders."""\n\n\nclass OrderService:\n'
        "    def create(self, order):\n        return self.repo.insert(order)\n\n"
        "    def update(self, order):\n"
        "        if order.version != self.current_version(order.id):\n"
        "            raise Conflict(order.id)\n"
        "        self.repo.save(order, retries=3)\n        return order\n"
    ),
}


RECIPE_HANG_GUARD_SECONDS = 900


@dataclass(frozen=True)
class Templates:
    """Built once a session; each block gets a copy of one of them."""

    example: Path  # a clone holding .orbit-example/ as .orbit/
    fresh: Path  # an empty repository: no commit, no file, no origin, no .orbit/
    draft: dict[str, object]  # a draft as `orbit learning extract` writes it


@dataclass(frozen=True)
class Sandbox:
    repo: Path
    home: Path
    env: dict[str, str]

    def run(self, script: str, *, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run a bash script in the repository; stops at the first failing command."""
        path = self.home.parent / "recipe.sh"
        trace = "trap 'echo \"recipe: failed at: $BASH_COMMAND\" >&2' ERR\n"
        path.write_text(trace + script, encoding="utf-8")
        command = ["bash", "-e", "-o", "pipefail", str(path)]
        with subprocess.Popen(
            command,
            cwd=self.repo,
            env=self.env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own process group, so a stray server can be stopped
        ) as process:
            # The timeout is a safety net for a server left running, not a timing assertion:
            # the pre-commit recipe builds its environment from the package index and took
            # over 120 s on a busy two-core machine.
            try:
                out, err = process.communicate(stdin, timeout=RECIPE_HANG_GUARD_SECONDS)
            finally:
                _stop_group(process)
        return subprocess.CompletedProcess(command, process.returncode, out, err)


def _stop_group(process: subprocess.Popen[str]) -> None:
    """End whatever the recipe started and left running (a server, say), then the script."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    process.wait()


def build_templates(root: Path) -> Templates:
    """The origin repositories and their clones, made once: copying a clone is cheap."""
    home = root / "home"
    home.mkdir()
    example = _clone(
        _origin(root / "example-origin", home, with_store=True), root / "example", home
    )
    fresh = root / "fresh"  # what a newcomer starts from: `git init`, nothing else
    fresh.mkdir()
    shell(fresh, home, "git init -q -b main\n")
    return Templates(example, fresh, _one_draft(example, home))


def shell(cwd: Path, home: Path, script: str) -> str:
    """Set-up steps, in the sandbox's environment (never the developer's HOME or git config)."""
    done = Sandbox(cwd, home, environment(home)).run(script)
    assert done.returncode == 0, f"{script}\n{done.stdout}{done.stderr}"
    return done.stdout


def _origin(path: Path, home: Path, *, with_store: bool) -> Path:
    for name, text in FIXTURES.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    if with_store:
        shutil.copytree(EXAMPLE, path / ".orbit")
    init = "orbit init >/dev/null\n" if with_store else ""  # .gitignore, .gitattributes
    shell(path, home, f"git init -q -b main\n{init}git add -A\ngit commit -q -m origin\n")
    return path


def _clone(origin: Path, path: Path, home: Path) -> Path:
    shell(origin.parent, home, f"git clone -q {origin} {path}\n")
    return path


def _one_draft(repo: Path, home: Path) -> dict[str, object]:
    """A real draft, so a recipe that names a draft ID gets one shaped as `extract` makes it."""
    shell(repo, home, f"orbit learning extract {TRANSCRIPTS / 'correction.jsonl'} >/dev/null\n")
    drafts = repo / ".orbit" / "state" / "drafts"
    draft: dict[str, object] = json.loads(next(drafts.glob("D-*.json")).read_text("utf-8"))
    shutil.rmtree(drafts)
    return draft


@dataclass(frozen=True)
class Snapshot:
    """This checkout as one commit, uncommitted changes included: what a fork would publish."""

    path: Path
    sha: str


def make_snapshot(root: Path) -> Snapshot:
    home, path = root / "home", root / "orbit-learnings"
    home.mkdir()
    listed = shell(REPO, home, "git ls-files -z --cached --others --exclude-standard\n")
    for name in dict.fromkeys(filter(None, listed.split("\0"))):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the work tree is left out, as git would
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, path / name)
    shell(path, home, "git init -q -b main\ngit add -A\ngit commit -q -m snapshot\n")
    return Snapshot(path, shell(path, home, "git rev-parse HEAD\n").strip())


def environment(home: Path) -> dict[str, str]:
    """A reader's shell, minus their HOME and their network."""
    bin_dir = str(Path(sys.executable).parent)  # the test venv: its `orbit` console script
    env = {
        "PATH": os.pathsep.join([bin_dir, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "SHELL": "/bin/bash",
        "LANG": "C.UTF-8",
        "COLUMNS": "120",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_TERMINAL_PROMPT": "0",
        "ORBIT_SEMANTIC": "0",  # the model, when installed, is tested elsewhere
        "PIP_NO_INDEX": "1",
        "RUN_ID": "run-1",  # what recipes pass as --session
        "ORBIT_SESSION_ID": "session-1",
    }
    for role in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{role}_NAME"] = "Reader"
        env[f"GIT_{role}_EMAIL"] = "reader@example.com"
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = NOWHERE
    return env


def make_sandbox(templates: Templates, tmp: Path, *, fresh: bool = False) -> Sandbox:
    repo = tmp / "repo"
    shutil.copytree(templates.fresh if fresh else templates.example, repo, symlinks=True)
    home = tmp / "home"
    home.mkdir()
    return Sandbox(repo, home, environment(home))


# --- state a recipe names but no file can hold ---------------------------------------------


def _conflict(box: Sandbox, templates: Templates, learning_id: str) -> None:
    """An add/add conflict on the ID, as a merge of two branches leaves it."""
    path = box.repo / ".orbit" / "learnings" / learning_id / "learning.yaml"
    ours = path.read_text(encoding="utf-8")
    theirs = re.sub(r"^summary: .*$", "summary: The incoming side's lesson.", ours, flags=re.M)
    # another developer's learning: born elsewhere, at another time
    theirs = re.sub(r"^created_at: .*$", "created_at: 2026-06-01T09:30:00Z", theirs, flags=re.M)
    path.write_text(f"<<<<<<< HEAD\n{ours}=======\n{theirs}>>>>>>> feature\n", encoding="utf-8")


def _not_yet_superseded(box: Sandbox, templates: Templates, learning_id: str) -> None:
    """The example store's L-0001 is superseded already; a recipe superseding it needs it active."""
    learnings = box.repo / ".orbit" / "learnings"
    old = learnings / learning_id / "learning.yaml"
    found = re.search(r"^superseded_by: (L-\d+)$", _text(old), flags=re.M)
    if found:
        _replace(old, (found[0], "superseded_by: null"), ("status: superseded", "status: active"))
        newer = learnings / found[1] / "learning.yaml"
        _replace(newer, (f"supersedes: {learning_id}", "supersedes: null"))


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _replace(path: Path, *pairs: tuple[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    for old, new in pairs:
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


def _draft(box: Sandbox, templates: Templates, draft_id: str) -> None:
    drafts = box.repo / ".orbit" / "state" / "drafts"
    drafts.mkdir(parents=True, exist_ok=True)
    record = {**templates.draft, "id": draft_id}
    (drafts / f"{draft_id}.json").write_text(json.dumps(record, indent=2), encoding="utf-8")


def _transcripts(box: Sandbox, templates: Templates, folder: str) -> None:
    """Claude Code's session files, where `~/.claude/projects/<folder>/*.jsonl` finds them."""
    target = box.home / ".claude" / "projects" / folder
    target.mkdir(parents=True, exist_ok=True)
    for source in TRANSCRIPTS.glob("*.jsonl"):
        shutil.copy(source, target)


SESSIONS = REPO / "tests" / "fixtures" / "sessions"
REVIEWS = REPO / "tests" / "fixtures" / "reviews"


def _codex_sessions(box: Sandbox, templates: Templates, folder: str) -> None:
    """Codex CLI's rollouts, where `~/.codex/sessions/YYYY/MM/*/rollout-*.jsonl` finds them."""
    target = box.home / ".codex" / "sessions" / folder / "21"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(SESSIONS / "codex-rollout.jsonl", target / "rollout-2026-11-21T09-00-00.jsonl")


def _session_file(box: Sandbox, templates: Templates, name: str) -> None:
    """`session.jsonl` in the repository: a Claude Code session, as a user would copy one."""
    shutil.copy(SESSIONS / "claude-code.jsonl", box.repo / name)


def _review_file(box: Sandbox, templates: Templates, name: str) -> None:
    """`review.json`: pull-request review comments as `gh api …/pulls/N/comments` saves them."""
    shutil.copy(REVIEWS / "github-pull-comments.json", box.repo / name)


PREPARE: list[tuple[re.Pattern[str], Callable[[Sandbox, Templates, str], None]]] = [
    (re.compile(r"resolve-conflict (L-\d+)"), _conflict),
    (re.compile(r"supersede (L-\d+) --with"), _not_yet_superseded),
    (re.compile(r"drafts (?:show|accept|reject) (D-[0-9a-f]{8})"), _draft),
    (re.compile(r"~/\.claude/projects/([^/\s]+)/"), _transcripts),
    (re.compile(r"~/\.codex/sessions/(\d{4}/\d{2})/"), _codex_sessions),
    (re.compile(r"extract (session\.jsonl)\b"), _session_file),
    (re.compile(r"--review (review\.json)\b"), _review_file),
]


def prepare(box: Sandbox, templates: Templates, script: str) -> None:
    """Set up what the script's commands take for granted (see PREPARE)."""
    for pattern, action in PREPARE:
        for argument in dict.fromkeys(pattern.findall(script)):
            action(box, templates, argument)
