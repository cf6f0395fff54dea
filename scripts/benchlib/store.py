"""The synthetic stores the benchmarks time, and the payloads agents send about them.

Each store is synthetic but realistic: deep `**` globs, file globs, exact paths and
tag-only learnings, 0-20 votes each; the staleness and dashboard runs add a git
repository of source files the scopes name.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ORBIT = Path(sys.executable).with_name("orbit")
AREAS = ["api", "billing", "engine", "web", "db", "auth", "search", "infra", "docs", "tests"]
TAGS = ["performance", "database", "security", "testing", "frontend", "ci", "money", "i18n"]


def generate(
    root: Path, count: int, seed: int = 7, commits: Sequence[str] = (), prefix: str = "L"
) -> None:
    """Write `count` learnings with realistic scopes straight to disk (fast, no CLI);
    with `commits`, every third learning cites one of them as evidence; `prefix` is the
    level's (`O` for an org store)."""
    rng = random.Random(seed)
    learnings = root / ".orbit" / "learnings"
    learnings.mkdir(parents=True)
    (root / ".orbit" / ".gitignore").write_text("state/\n")
    for n in range(1, count + 1):
        area, sub = rng.choice(AREAS), f"mod{rng.randrange(200)}"
        shape = n % 4
        if shape == 0:
            paths = [f"services/{area}/**/{sub}*.py"]
        elif shape == 1:
            paths = [f"services/{area}/{sub}/*.py", f"lib/{area}/**"]
        elif shape == 2:
            paths = [f"services/{area}/{sub}/handlers.py"]
        else:
            paths = []
        tags = rng.sample(TAGS, 1 if paths else 2)
        lid = f"{prefix}-{n:04d}"
        folder = learnings / lid
        folder.mkdir()
        path_lines = "".join(f'    - "{p}"\n' for p in paths) or "    []\n"
        cited = commits[n // 3 % len(commits)] if commits and n % 3 == 0 else None
        evidence = f"\n  - kind: commit\n    ref: '{cited}'" if cited else " []"
        (folder / "learning.yaml").write_text(
            f"id: {lid}\nschemaVersion: 1\nstatus: active\n"
            f"created_at: 2026-0{1 + n % 9}-01T10:00:00Z\n"
            f"updated_at: 2026-0{1 + n % 9}-02T10:00:00Z\n"
            f"created_by: bench\nscope:\n  paths:\n{path_lines}  tags: [{', '.join(tags)}]\n"
            f"summary: When touching {area} {sub}, remember lesson {n} about {tags[0]}"
            " and retries.\n"
            f"body: |\n  Longer explanation {n} for {area}: why it matters and how to apply it.\n"
            f"evidence:{evidence}\nsupersedes: null\npriority: {n % 3}\n"
        )
        votes = rng.randrange(21)
        if votes:
            rows = [
                json.dumps(
                    {
                        "learning_id": lid,
                        "voter_model": "claude",
                        "voted_at": "2026-06-01T00:00:00Z",
                        "task_id": f"T-{v}",
                    }
                )
                for v in range(votes)
            ]
            (folder / "votes.jsonl").write_text("\n".join(rows) + "\n")


STALE_FILE_NAMES = [
    "handlers.py",
    "models.py",
    "views.py",
    "schema.py",
    "README.md",
    "tests/test_handlers.py",
    "tests/test_models.py",
    "migrations/0001_init.py",
    "utils/helpers.py",
]
LIB_AREAS = AREAS[:8]  # two areas have no lib/ folder: their `lib/{area}/**` scopes match nothing


def generate_tree(root: Path, files: int) -> None:
    """About `files` source files shaped like the scopes `generate` writes: nine in ten under
    `services/{area}/mod{k}/`, with fewer `mod` folders than the scopes name (so about one
    path-scoped learning in ten is stale), the rest under `lib/{area}/`."""
    per_mod = len(STALE_FILE_NAMES) + 1
    mods = max(1, files * 9 // 10 // (len(AREAS) * per_mod))
    for area in AREAS:
        for k in range(mods):
            folder = root / "services" / area / f"mod{k}"
            for name in [*STALE_FILE_NAMES, f"mod{k}_service.py"]:
                path = folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"")
    per_area = max(1, (files - mods * per_mod * len(AREAS)) // len(LIB_AREAS))
    for area in LIB_AREAS:
        for k in range(per_area):
            path = root / "lib" / area / f"pkg{k // 25}" / f"part{k}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"")


def commit_all(root: Path, message: str) -> str:
    """`git add -A` and commit; the new commit's SHA."""
    env = {
        **os.environ,
        **{
            f"GIT_{who}_{what}": value
            for who in ("AUTHOR", "COMMITTER")
            for what, value in (("NAME", "bench"), ("EMAIL", "bench@example.com"))
        },
    }
    for args in (["add", "-A"], ["commit", "-qm", message]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


def run_git_count(root: Path) -> int:
    """How many files git tracks in `root`."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True)
    return out.stdout.count(b"\0")


def code_files(root: Path, seed: int = 11) -> None:
    """The source tree the learnings' scopes name (half of the modules exist, so some
    learnings are stale), committed to git: staleness asks git, as in a real repository."""
    rng = random.Random(seed)
    for area in AREAS:
        for sub in sorted(rng.sample(range(200), 100)):
            folder = root / "services" / area / f"mod{sub}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "handlers.py").write_text(f"# {area} {sub}\n")
        (root / "lib" / area).mkdir(parents=True, exist_ok=True)
        (root / "lib" / area / "util.py").write_text("")
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com"}
    env.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="b@example.com")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bench"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def read_payload(root: Path, path: str, session: str = "bench") -> str:
    """What Claude Code sends `orbit hook claude-code` after reading `path` in `root`."""
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(root),
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(root / path)},
        }
    )


def prompt_payload(root: Path, prompt: str, session: str = "bench") -> str:
    """What Claude Code sends on UserPromptSubmit: the user's prompt, searched."""
    return json.dumps(
        {"session_id": session, "cwd": str(root), "hook_event_name": "UserPromptSubmit"}
        | {"prompt": prompt}
    )


def patch_payload(root: Path, path: str, session: str = "bench") -> str:
    """What Codex sends after an `apply_patch` that updates `path`."""
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"
    return json.dumps(
        {"session_id": session, "cwd": str(root), "hook_event_name": "PostToolUse"}
        | {"tool_name": "apply_patch", "tool_input": {"command": patch}}
    )


def mcp_payload(root: Path, path: str, session: str = "bench") -> str:
    """What Codex sends after a subagent's MCP filesystem `read_file` of `path`."""
    return json.dumps(
        {"session_id": session, "cwd": str(root), "hook_event_name": "PostToolUse"}
        | {"agent_id": "bench-worker", "tool_name": "mcp__filesystem__read_file"}
        | {"tool_input": {"path": path}}
    )


def kiro_prompt_payload(root: Path, prompt: str) -> str:
    """What Kiro CLI sends on userPromptSubmit (no session id: Kiro has none)."""
    return json.dumps({"hook_event_name": "userPromptSubmit", "cwd": str(root), "prompt": prompt})
