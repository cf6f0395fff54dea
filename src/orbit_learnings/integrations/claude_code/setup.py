"""Installing the Claude Code hook and the orbit-learnings skill into a workspace.

`.claude/settings.json` belongs to the team: we merge our entries into it (see
`hookfiles`), never touch anything else, add nothing on a second run, and remove
only our own on uninstall; an older install's PreToolUse entry is replaced. The
command is guarded, so a teammate without orbit gets a silent success, and Copilot
CLI and VS Code, which read this file too, never see a failing hook. The skill file
is removed only if it is still exactly what we wrote.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from orbit_learnings.core.agents import tools as agenttools
from orbit_learnings.integrations import hookfiles
from orbit_learnings.integrations.base import SetupReport
from orbit_learnings.store.fileops import read_repo_text, repo_file, write_repo_text

HOOK_COMMAND = "orbit hook claude-code"
HOOK_MARKER = "hook claude-code"
FILE_TOOLS_MATCHER = agenttools.matcher("claude-code")
# Event -> matcher (None: every occurrence). No PreToolUse entry: a hook that runs before
# a tool can block it (Copilot CLI, which reads this file too, denies the call when a
# pre-tool hook fails), and orbit never needs to.
EVENTS: dict[str, str | None] = {
    "SessionStart": "startup|clear|compact",
    "UserPromptSubmit": None,
    "PostToolUse": FILE_TOOLS_MATCHER,
    "SubagentStart": None,
}
STOP_EVENT = "Stop"  # only with capture.reflect: true in .orbit/config.yaml
PROMPT_EVENT = "UserPromptSubmit"  # left out by `orbit hooks install --claude --no-prompt`
TIMEOUT_SECONDS = 10
SETTINGS = Path(".claude/settings.json")
SKILL = Path(".claude/skills/orbit-learnings/SKILL.md")

SKILL_TEXT = """\
---
name: orbit-learnings
description: Project learnings for this repository - short, reviewed lessons scoped to paths and tags. Use when asked "what should I know about X", "are there learnings for X", "is there context I'm missing on X", before changing unfamiliar code, and when a task taught something non-obvious worth recording.
allowed-tools:
  - "Bash(orbit learning list:*)"
  - "Bash(orbit learning show:*)"
  - "Bash(orbit learning search:*)"
  - "Bash(orbit search:*)"
  - "Bash(orbit learning propose:*)"
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
`orbit learning upvote L-0001 --model <your agent family> --task <task id>`

## Proposing a learning

Propose one when you just lived a lesson the next person (or agent) in this repository should
be told:
- the user **corrected a project convention** ("we use pnpm here", "never add NOT NULL in one
  step", "run the API tests with `make test-api`");
- a **fix was not obvious and will recur** (a flag, an environment variable, a setup step).

Only when all three hold (the authoring bar):
1. it is **non-obvious** - otherwise it belongs in the code or its comments;
2. it is **not feature-scoped** - a design decision for one feature is an ADR, not a learning;
3. it is **load-bearing across more than one task** - a one-off belongs in the PR description.

Search first (`orbit search ...`, `orbit learning list --path ...`); if one already says it,
upvote it. Otherwise propose it (the MCP tool `orbit.learning.propose` does the same):

```sh
orbit learning propose --summary "One line: the rule, stated so it can be followed" \\
  --path 'the/paths/**' --tag topic \\
  --body "**Why:** the user's words or the error. **How to apply:** what to do instead." \\
  --evidence session=<session id> --created-by <your agent family>
```

A proposal is a file in the pull request; nothing serves it until a person runs
`orbit learning approve ID`. Keep the summary to one line and the scope as narrow as the lesson.

When the project switched capture on, orbit's hooks may add "orbit noticed in this session"
(or ask before you finish): moments where a lesson may show, quoted from the session. They
are pointers, not instructions: propose only those that pass the bar above, in your own words.
"""


def wanted_entries(
    command: str, *, prompt: bool = True, reflect: bool = False
) -> dict[str, list[dict[str, Any]]]:
    """Our entry per event: context after file tools and for the user's prompt, a note
    and forgetting on session start, the task paths a parent hands to a subagent; with
    `reflect` (capture.reflect in .orbit/config.yaml), the end-of-turn reflection."""
    handler = {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}
    events = {**EVENTS, STOP_EVENT: None} if reflect else EVENTS
    return {
        event: [{"matcher": matcher, "hooks": [handler]} if matcher else {"hooks": [handler]}]
        for event, matcher in events.items()
        if prompt or event != PROMPT_EVENT
    }


def _markers(command: str | None) -> tuple[str, ...]:
    """The commands orbit writes (guarded, and the bare form of older installs), or `command`."""
    written = (hookfiles.guarded(HOOK_COMMAND), HOOK_COMMAND)
    return (*written, command) if command else written


def hook_commands(root: Path) -> list[str]:
    """Every command in the settings that runs this hook; ValueError if not JSON."""
    return hookfiles.commands_in(root / SETTINGS, HOOK_MARKER)


def install(root: Path, command: str | None = None, *, prompt: bool = True) -> SetupReport:
    path = root / SETTINGS
    entry = command or hookfiles.entry(HOOK_COMMAND)
    wanted = wanted_entries(entry, prompt=prompt, reflect=reflects(root))
    report = hookfiles.install(path, wanted, _markers(command), nested=True)
    report.changed[:] = [str(SETTINGS)] if report.changed else []
    report.unchanged[:] = [str(SETTINGS)] if report.unchanged else []
    (report.changed if install_skill(root) else report.unchanged).append(str(SKILL))
    return report


def reflects(root: Path) -> bool:
    """Whether the repository switched capture's reflection on (`capture.reflect`)."""
    from orbit_learnings.curation.capture.nudge import enabled
    from orbit_learnings.store.workspace import Workspace

    return enabled(Workspace(root), "reflect")


def install_skill(root: Path) -> bool:
    """Write the skill once; through a committed `.claude` link only inside the repository."""
    real = repo_file(root / SKILL, within=str(root), name=str(SKILL))
    if os.path.exists(real):
        return False
    write_repo_text(real, SKILL_TEXT, within=str(root), name=str(SKILL))
    return True


def uninstall(root: Path, command: str | None = None) -> SetupReport:
    report = hookfiles.uninstall(
        root / SETTINGS, _markers(command), nested=True, label=str(SETTINGS)
    )
    skill = Path(repo_file(root / SKILL, within=str(root), name=str(SKILL)))
    if skill.exists() and read_repo_text(skill, within=str(root), name=str(SKILL)) == SKILL_TEXT:
        skill.unlink()
        for folder in (skill.parent, skill.parent.parent):
            if folder.exists() and not any(folder.iterdir()):
                folder.rmdir()
        report.changed.append(str(SKILL))
    elif skill.exists():
        report.unchanged.append(f"{SKILL} (edited, kept)")
    return report
