"""`orbit doctor`: check the set-up end to end, in words a newcomer understands."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.index import build as index
from orbit_learnings.index import reads
from orbit_learnings.integrations.claude_code import setup as claude_setup
from orbit_learnings.retrieval import queries
from orbit_learnings.store.workspace import Workspace, find_workspace

GIT_HOOKS = ("post-merge", "post-checkout", "post-rewrite", "pre-commit")


@dataclass
class Check:
    name: str
    status: str  # ok | warn | fail | skip
    message: str
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {
            "name": self.name,
            "status": self.status,
            "message": self.message,
            "detail": self.detail,
        }


def run_checks(root: str | None, sample_path: str | None = None) -> list[Check]:
    try:
        ws = find_workspace(root)
    except OrbitError as exc:
        return [Check("workspace", "fail", exc.message)]
    checks = [Check("workspace", "ok", f"found {ws.root_dir}/.orbit")]
    checks.append(_store_check(ws))
    checks.append(_index_check(ws))
    checks.append(_git_hooks_check(ws))
    checks.append(_claude_hook_check(ws))
    checks.append(_dry_run(ws, sample_path))
    return checks


def _store_check(ws: Workspace) -> Check:
    try:
        problems = index.validate(ws)
    except OrbitError as exc:
        return Check("store", "fail", exc.message)
    if problems:
        detail = "\n".join(str(p) for p in problems[:10])
        return Check(
            "store", "fail", f"{len(problems)} problem(s); `orbit learning sync` lists them", detail
        )
    return Check("store", "ok", "every learning and votes file is valid")


def _index_check(ws: Workspace) -> Check:
    try:
        result = queries.list_learnings(ws, status="all")
    except OrbitError as exc:
        return Check("index", "fail", exc.message)
    active = sum(1 for h in result.hits if h.status == "active")
    return Check("index", "ok", f"fresh: {len(result.hits)} learning(s), {active} active")


def _git_dir_hooks(ws: Workspace) -> Path | None:
    if shutil.which("git") is None:
        return None
    proc = subprocess.run(
        ["git", "rev-parse", "--git-path", "hooks"], cwd=ws.root_dir, capture_output=True, text=True
    )
    if proc.returncode != 0:
        return None
    return Path(ws.root_dir, proc.stdout.strip())


def _git_hooks_check(ws: Workspace) -> Check:
    hooks = _git_dir_hooks(ws)
    if hooks is None:
        return Check("git hooks", "skip", "not a git repository (or git is not installed)")
    missing = [h for h in GIT_HOOKS if "orbit" not in _read(hooks / h)]
    if missing:
        return Check(
            "git hooks", "warn", f"not installed: {', '.join(missing)}; run `orbit hooks install`"
        )
    return Check(
        "git hooks", "ok", "post-merge, post-checkout, post-rewrite and pre-commit call orbit"
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _claude_hook_check(ws: Workspace) -> Check:
    settings = Path(ws.root_dir) / claude_setup.SETTINGS
    try:
        data = json.loads(settings.read_text(encoding="utf-8")) if settings.exists() else {}
    except ValueError:
        return Check("claude code hook", "fail", f"{claude_setup.SETTINGS} is not valid JSON")
    commands = [
        hook.get("command", "")
        for group in (data.get("hooks", {}) or {}).get("PreToolUse", []) or []
        if isinstance(group, dict)
        for hook in group.get("hooks", []) or []
        if isinstance(hook, dict) and "orbit" in str(hook.get("command", ""))
    ]
    if not commands:
        return Check(
            "claude code hook",
            "warn",
            f"no orbit entry in {claude_setup.SETTINGS}; run `orbit hooks install --claude`",
        )
    program = shlex.split(commands[0])[0] if commands[0].strip() else ""
    if not (shutil.which(program) or os.path.exists(os.path.join(ws.root_dir, program))):
        return Check(
            "claude code hook",
            "fail",
            f"the hook runs `{commands[0]}`, but `{program}` is not on PATH; "
            "install orbit with pip/pipx or point --command at scripts/claude-code-hook.sh",
        )
    return Check("claude code hook", "ok", f"{claude_setup.SETTINGS} runs `{commands[0]}`")


def _dry_run(ws: Workspace, sample_path: str | None) -> Check:
    from orbit_learnings.integrations.claude_code import hook as claude_code

    path = sample_path or _sample_path(ws)
    if path is None:
        return Check("dry run", "skip", "no file in the repository matches any learning's scope")
    payload = json.dumps(
        {
            "session_id": "orbit-doctor",
            "cwd": ws.root_dir,
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": os.path.join(ws.root_dir, path)},
        }
    )
    try:
        output = claude_code.respond(payload, root=ws.root_dir, record=False)
    except Exception as exc:
        return Check("dry run", "fail", f"the hook failed on {path}: {exc}")
    if not output:
        return Check("dry run", "warn", f"the hook would add nothing for {path}")
    context = json.loads(output)["hookSpecificOutput"]["additionalContext"]
    return Check("dry run", "ok", f"for a Read of {path} the model would receive:", context)


def _sample_path(ws: Workspace) -> str | None:
    """A real file in the repository that some active learning's glob matches."""
    from orbit_learnings.core.matching import path_matches

    with index.open_fresh(ws) as fresh:
        regexes = [r for found in reads.glob_regexes(fresh.conn).values() for r in found]
    for folder, dirs, files in os.walk(ws.root_dir):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d not in ("node_modules", "venv")
        )
        for name in sorted(files):
            relative = os.path.relpath(os.path.join(folder, name), ws.root_dir).replace(os.sep, "/")
            if any(path_matches(r, relative) for r in regexes):
                return relative
    return None
