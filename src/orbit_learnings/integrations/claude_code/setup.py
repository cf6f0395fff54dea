"""Installing the Claude Code hook and the orbit-learnings skill into a workspace.

`.claude/settings.json` belongs to the user: we merge one PreToolUse entry into
it, never touch anything else, add nothing on a second run, and remove only
our own entry on uninstall. The skill file is removed only if it is still
exactly what we wrote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.integrations.base import SetupReport
from orbit_learnings.store.fileops import atomic_write_text

HOOK_COMMAND = "orbit hook claude-code"
HOOK_MATCHER = "Read|Edit|Write|MultiEdit|NotebookEdit"
SETTINGS = Path(".claude/settings.json")
SKILL = Path(".claude/skills/orbit-learnings/SKILL.md")

SKILL_TEXT = """\
---
name: orbit-learnings
description: Project learnings for this repository - short, reviewed lessons scoped to paths and tags. Use when asked "what should I know about X", "are there learnings for X", "is there context I'm missing on X", before changing unfamiliar code, and when a task taught something non-obvious worth recording.
---

# Project learnings (orbit)

Learnings are reviewed lessons the team learned the hard way, kept in `.orbit/learnings/` and
scoped to path globs and tags. Some are pushed to you automatically when you read or edit a
matching file; use these commands to ask for them yourself.

## Find what applies

- Which learnings cover a file, folder or glob:
  `orbit learning list --path src/db/migrate.py --json` (folders and globs overlap-match:
  `--path src/db/`, `--path 'src/**'`)
- By topic: `orbit learning list --tag database --json`
- By words: `orbit search "migration lock" --kind learning --json`
- The full text of one: `orbit learning show L-0001 --json`

Results carry `matched_by` (which path or tag matched). Bodies are not pushed automatically;
read one with `show` when its summary looks relevant.

## When a learning was load-bearing again: upvote, do not duplicate

If an existing learning already covers what you ran into, record that instead of writing a
near-duplicate:
`orbit learning upvote --id L-0001 --model <your agent family> --task <task id>`

## Adding a learning

Only when all three hold (the authoring bar):
1. it is **non-obvious** - otherwise it belongs in the code or its comments;
2. it is **not feature-scoped** - a design decision for one feature is an ADR, not a learning;
3. it is **load-bearing across more than one task** - a one-off belongs in the PR description.

Search first (`orbit search ...`, `orbit learning list --path ...`), then:

```sh
orbit learning add --summary "One line: the rule, stated so it can be followed" \\
  --path 'the/paths/**' --tag topic \\
  --body "**Why:** what went wrong. **How to apply:** what to do instead." \\
  --evidence task=<task id> --created-by <your agent family>
```

Learnings are reviewed in pull requests like code: keep the summary to one line and the scope
as narrow as the lesson.
"""


def _load_settings(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise OrbitError(
            f"{path}: not valid JSON ({exc}); fix it before installing the hook"
        ) from None
    if not isinstance(data, dict):
        raise OrbitError(f"{path}: expected a JSON object")
    return data


def _our_entries(group: dict[str, Any], command: str) -> list[dict[str, Any]]:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return [h for h in hooks or [] if isinstance(h, dict) and h.get("command") == command]


def hook_commands(root: Path) -> list[str]:
    """Commands of PreToolUse entries that run orbit; ValueError if the file is not JSON."""
    path = root / SETTINGS
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    groups = hooks.get("PreToolUse") if isinstance(hooks, dict) else None
    return [
        str(hook.get("command", ""))
        for group in groups or []
        if isinstance(group, dict)
        for hook in group.get("hooks", []) or []
        if isinstance(hook, dict) and "orbit" in str(hook.get("command", ""))
    ]


def install(root: Path, command: str = HOOK_COMMAND) -> SetupReport:
    report = SetupReport()
    path = root / SETTINGS
    settings = _load_settings(path)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise OrbitError(f"{path}: 'hooks' is not an object")
    groups = hooks.setdefault("PreToolUse", [])
    if not isinstance(groups, list):
        raise OrbitError(f"{path}: 'hooks.PreToolUse' is not a list")
    if any(_our_entries(g, command) for g in groups):
        report.unchanged.append(str(SETTINGS))
    else:
        groups.append({"matcher": HOOK_MATCHER, "hooks": [{"type": "command", "command": command}]})
        atomic_write_text(path, json.dumps(settings, indent=2) + "\n")
        report.changed.append(str(SETTINGS))
    (report.changed if install_skill(root) else report.unchanged).append(str(SKILL))
    return report


def install_skill(root: Path) -> bool:
    path = root / SKILL
    if path.exists():
        return False
    atomic_write_text(path, SKILL_TEXT)
    return True


def uninstall(root: Path, command: str = HOOK_COMMAND) -> SetupReport:
    report = SetupReport()
    path = root / SETTINGS
    settings = _load_settings(path)
    hooks = settings.get("hooks")
    groups = hooks.get("PreToolUse") if isinstance(hooks, dict) else None
    if isinstance(groups, list) and any(_our_entries(g, command) for g in groups):
        kept_groups = []
        for group in groups:
            if isinstance(group, dict) and _our_entries(group, command):
                remaining = [
                    h for h in group.get("hooks", []) if h not in _our_entries(group, command)
                ]
                if remaining:
                    kept_groups.append({**group, "hooks": remaining})
            else:
                kept_groups.append(group)
        _set_or_drop(hooks, "PreToolUse", kept_groups)
        _set_or_drop(settings, "hooks", hooks)
        atomic_write_text(path, json.dumps(settings, indent=2) + "\n")
        report.changed.append(str(SETTINGS))
    else:
        report.unchanged.append(str(SETTINGS))
    skill = root / SKILL
    if skill.exists() and skill.read_text(encoding="utf-8") == SKILL_TEXT:
        skill.unlink()
        for folder in (skill.parent, skill.parent.parent):
            if folder.exists() and not any(folder.iterdir()):
                folder.rmdir()
        report.changed.append(str(SKILL))
    elif skill.exists():
        report.unchanged.append(f"{SKILL} (edited, kept)")
    return report


def _set_or_drop(container: Any, key: str, value: Any) -> None:
    if value:
        container[key] = value
    else:
        container.pop(key, None)
