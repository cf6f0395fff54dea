"""Codex CLI: `orbit hook codex`, from `.codex/hooks.json` (the project's config layer).

Codex's hooks speak Claude Code's wire format: snake_case payloads with `session_id`,
`cwd`, `hook_event_name`, `turn_id`, `model`; answers in
`hookSpecificOutput.additionalContext`, which Codex adds to the next model request.
Orbit answers:

- `SessionStart` (sources `startup`, `resume`, `clear`, `compact`): the note, and
  forgetting what a cleared or compacted session was shown;
- `UserPromptSubmit`: the learnings for the prompt's files and confident words;
- `PostToolUse` (and `PreToolUse`, when a team adds that entry) for `Bash` and
  `apply_patch`: the learnings for the files touched. A patch arrives whole in
  `tool_input.command`; its `*** Update File:` / `*** Add File:` lines name the files.

The entry is guarded like every agent entry, so a teammate without orbit gets a silent
success. Codex runs project hooks only in a trusted project, after the user trusts
each hook.

Reference (read 2026-11-26): https://developers.openai.com/codex/hooks and the payload
schemas in openai/codex `codex-rs/hooks/schema/generated/` (apply_patch hooks: PR #18391,
released in 0.123.0).
"""

from __future__ import annotations

import json

from orbit_learnings.integrations.agenthook import AgentHook

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook path must not pay for typing imports
    from pathlib import Path
    from typing import Any, ClassVar

    from orbit_learnings.integrations.base import Check
    from orbit_learnings.store.workspace import Workspace

TOOLS = "Bash|apply_patch"


class Codex(AgentHook):
    name = "codex"
    summary = "Codex CLI: context for the prompt and after Bash/apply_patch, in .codex/hooks.json"
    hook_help = (
        "Codex CLI hook: reads a SessionStart, UserPromptSubmit, PreToolUse or PostToolUse "
        "payload on stdin and prints hookSpecificOutput.additionalContext when learnings "
        "apply; always exits 0.\n\n"
        "\b\nExample (.codex/hooks.json, written by `orbit hooks install --codex`):\n"
        '  {"hooks": {"PostToolUse": [{"matcher": "Bash|apply_patch", "hooks": [\n'
        '    {"type": "command", "command": "orbit hook codex", "timeout": 10}]}]}}'
    )
    settings = ".codex/hooks.json"
    nested = True
    events: ClassVar[dict[str, str | None]] = {
        "SessionStart": None,  # every source: `clear` and `compact` forget, all get the note
        "UserPromptSubmit": None,  # Codex ignores matchers here
        "PostToolUse": TOOLS,
    }

    def handler(self, command: str, matcher: str | None) -> dict[str, Any]:
        return {"type": "command", "command": command, "timeout": 10}  # seconds

    start_events = ("SessionStart",)
    prompt_events = ("UserPromptSubmit",)

    def answer(self, event: str, text: str) -> str:
        if not text:
            return ""
        specific = {"hookEventName": event or "PostToolUse", "additionalContext": text}
        return json.dumps({"hookSpecificOutput": specific}) + "\n"

    def probe(self, ws: Workspace, path: str) -> tuple[str, dict[str, object]]:
        import shlex

        payload: dict[str, object] = {"session_id": "orbit-doctor", "transcript_path": None}
        payload |= {"cwd": ws.root_dir, "hook_event_name": "PostToolUse", "model": "doctor"}
        payload |= {"turn_id": "doctor", "tool_name": "Bash", "tool_use_id": "doctor"}
        tool_input = {"command": f"cat {shlex.quote(path)}"}
        return "PostToolUse", {**payload, "tool_input": tool_input, "tool_response": ""}

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        """The entry, and whether a Codex config in reach switches hooks off."""
        from pathlib import Path

        from orbit_learnings.integrations.base import Check

        checks = super().doctor(ws, sample_path=sample_path)
        if checks[0].status != "ok":
            return checks
        for config in (ws.root / ".codex/config.toml", Path.home() / ".codex/config.toml"):
            if hooks_switched_off(config):
                message = f"{config} sets hooks = false under [features]: Codex runs no hook"
                checks.append(Check("codex hooks enabled", "warn", message))
        return checks


def hooks_switched_off(config: Path) -> bool:
    """Whether this config.toml turns hooks off (`hooks`, or the older `codex_hooks`)."""
    import tomllib

    try:
        features = tomllib.loads(config.read_text(encoding="utf-8")).get("features", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(features, dict) and False in (
        features.get("hooks"),
        features.get("codex_hooks"),
    )


INTEGRATION = Codex()
