"""Codex CLI: `orbit hook codex`, from `.codex/hooks.json` or, when the project keeps its
hooks there, the `[hooks]` tables of `.codex/config.toml` (`configtoml`).

Codex's hooks speak Claude Code's wire format: snake_case payloads with `session_id`,
`cwd`, `hook_event_name`, `turn_id`, `model`; answers in
`hookSpecificOutput.additionalContext`, which Codex adds to the next model request.
Orbit answers:

- `SessionStart` (sources `startup`, `resume`, `clear`, `compact`): the note, and
  forgetting what a cleared or compacted session was shown;
- `UserPromptSubmit`: the learnings for the prompt's files and confident words;
- `PostToolUse` (and `PreToolUse`, when a team adds that entry) for `Bash`,
  `apply_patch` and MCP tools about files (`mcp__SERVER__read_file`, ...): the learnings
  for the files touched. A patch arrives whole in `tool_input.command`; its
  `*** Update File:` / `*** Add File:` lines name the files;
- `SubagentStart`: the note; a subagent's events carry `agent_id` (and its parent's
  `session_id`), and get a dedup set of their own;
- capture's opt-in moments (`capture.nudge`, `capture.reflect` in .orbit/config.yaml), as
  for Claude Code: the nudge after the prompt's learnings, and a `Stop` entry whose answer
  `{"decision": "block", "reason": …}` asks once for a proposal, naming the moments the
  rollout (`transcript_path`) shows.

The entry is guarded like every agent entry, so a teammate without orbit gets a silent
success. Codex runs project hooks only in a trusted project, after the user trusts
each hook.

Reference (read 2026-11-26): https://developers.openai.com/codex/hooks and the payload
schemas in openai/codex `codex-rs/hooks/schema/generated/` (apply_patch hooks: PR #18391,
released in 0.123.0; SubagentStart: PR #22782; Stop: `stop.command.input.schema.json`,
`stop.command.output.schema.json`).
"""

from __future__ import annotations

import json

from orbit_learnings.core.agents import tools as agenttools
from orbit_learnings.integrations.agenthook import (
    AgentHook,
    capture_nudge,
    capture_reflection,
    text_field,
    touch_of,
)
from orbit_learnings.push import hookflow, inject

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook path must not pay for typing imports
    from pathlib import Path
    from typing import Any, ClassVar

    from orbit_learnings.integrations.base import Check, SetupReport
    from orbit_learnings.store.workspace import Workspace

# Codex matchers are regular expressions over the tool name; MCP tools are named
# `mcp__SERVER__TOOL`: the ones about files and folders (a filesystem server's
# read_file, write_file, edit_file, list_directory, directory_tree, ...).
TOOLS = agenttools.matcher("codex") + "|mcp__.*(file|director).*"
MCP_PREFIX = "mcp__"
MCP_ALIASES = {  # a filesystem MCP server's tools, as the file tools orbit reads
    "read_text_file": "read_file",
    "read_multiple_files": "read_many_files",
    "edit_file": "write_file",
    "directory_tree": "list_directory",
    "get_file_info": "read_file",
}
CONFIG_TOML = ".codex/config.toml"


class Codex(AgentHook):
    name = "codex"
    summary = "Codex CLI: context for the prompt and after Bash/apply_patch, in .codex/hooks.json"
    hook_help = (
        "Codex CLI hook: reads a SessionStart, SubagentStart, UserPromptSubmit, PreToolUse or "
        "PostToolUse payload on stdin and prints hookSpecificOutput.additionalContext when "
        "learnings apply; with capture.reflect on, a Stop payload may get "
        '{"decision": "block", "reason": ...} once a session; always exits 0.\n\n'
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
        "SubagentStart": None,  # every agent type: the note, and a dedup set of its own
    }

    def handler(self, command: str, matcher: str | None) -> dict[str, Any]:
        return {"type": "command", "command": command, "timeout": 10}  # seconds

    start_events = ("SessionStart",)
    prompt_events = ("UserPromptSubmit",)
    stop_events = ("Stop",)

    def respond(self, payload: dict[str, object], ws: Workspace, *, record: bool) -> str:
        """As every agent, plus: a subagent (`agent_id`; `session_id` is its parent's) has
        its own context, so its own dedup set; `SubagentStart` gives it the note. An MCP
        tool `mcp__SERVER__TOOL` is read as TOOL (a filesystem server's `read_file`)."""
        event = self.event_of(payload)
        agent = text_field(payload, "agent_id")
        key = inject.agent_session(text_field(payload, "session_id"), agent)
        if event == "SubagentStart":
            return self.answer(event, hookflow.session_started(ws, key, "clear"))
        if event in self.prompt_events:
            prompt = text_field(payload, "prompt")
            found = hookflow.prompt_submitted(ws, key, prompt, layer=self.name, record=record)
            return self.answer(event, capture_nudge(ws, key, payload, found))
        if event in self.stop_events:
            return capture_reflection(ws, key, payload)
        if event in self.start_events:
            return super().respond(payload, ws, record=record)
        touch = touch_of(payload, "tool_name", "tool_input", session=key)
        if touch is None:
            return ""
        if touch.tool.startswith(MCP_PREFIX):
            name = touch.tool.split("__", 2)[-1]
            touch.tool = MCP_ALIASES.get(name, name)
        text = hookflow.context_for_touch(ws, touch, layer=self.name, record=record)
        return self.answer(event, text)

    def answer(self, event: str, text: str) -> str:
        if not text:
            return ""
        specific = {"hookEventName": event or "PostToolUse", "additionalContext": text}
        return json.dumps({"hookSpecificOutput": specific}) + "\n"

    def probe(self, ws: Workspace, path: str) -> tuple[str, dict[str, object]]:
        import shlex

        payload: dict[str, object] = {"session_id": "orbit-doctor", "transcript_path": None}
        payload |= {"cwd": ws.root_str, "hook_event_name": "PostToolUse", "model": "doctor"}
        payload |= {"turn_id": "doctor", "tool_name": "Bash", "tool_use_id": "doctor"}
        tool_input = {"command": f"cat {shlex.quote(path)}"}
        return "PostToolUse", {**payload, "tool_input": tool_input, "tool_response": ""}

    # --- .codex/hooks.json, or the [hooks] tables of .codex/config.toml -------------

    def in_config_toml(self, ws: Workspace) -> bool:
        """Whether orbit's entries belong in config.toml: the project keeps its Codex hooks
        there and has no hooks.json (Codex warns when one layer has both)."""
        from orbit_learnings.integrations.codex import configtoml

        toml = ws.root / CONFIG_TOML
        if self.settings_path(ws).exists():
            return False
        return configtoml.has_block(toml) or configtoml.uses_hooks(toml)

    def install(
        self, ws: Workspace, *, command: str | None = None, prompt: bool = True
    ) -> SetupReport:
        if not self.in_config_toml(ws):
            return super().install(ws, command=command, prompt=prompt)
        from orbit_learnings.integrations import hookfiles
        from orbit_learnings.integrations.base import SetupReport
        from orbit_learnings.integrations.codex import configtoml

        report, toml = SetupReport(), ws.root / CONFIG_TOML
        entry = command or hookfiles.entry(self.command)
        wanted = self.wanted(entry, prompt=prompt, reflect=self.reflects(ws))
        (report.changed if configtoml.install(toml, wanted) else report.unchanged).append(str(toml))
        return report

    def uninstall(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        from orbit_learnings.integrations.base import SetupReport
        from orbit_learnings.integrations.codex import configtoml

        toml = ws.root / CONFIG_TOML
        if not configtoml.has_block(toml):
            return super().uninstall(ws, command=command)
        report = SetupReport()
        if self.settings_path(ws).exists():
            report = super().uninstall(ws, command=command)
        configtoml.uninstall(toml)
        report.changed.append(str(toml))
        return report

    def toml_doctor(self, ws: Workspace, sample_path: str | None) -> list[Check]:
        """The entries in config.toml's [hooks], then the entry run for real."""
        import tomllib

        from orbit_learnings.core.errors import OrbitError
        from orbit_learnings.integrations.base import Check
        from orbit_learnings.integrations.codex import configtoml

        label = "codex hook"
        try:
            commands = configtoml.commands(ws.root / CONFIG_TOML, f"hook {self.name}")
        except tomllib.TOMLDecodeError:
            return [Check(label, "fail", f"{CONFIG_TOML} is not valid TOML: Codex cannot load it")]
        except OrbitError as exc:  # a link out of the repository, a FIFO, a device
            return [Check(label, "fail", exc.message)]
        if not commands:
            return [Check(label, "skip", f"no orbit entry in {CONFIG_TOML}")]
        return self.entry_checks(
            ws,
            commands,
            sample_path,
            guarded=f"{CONFIG_TOML} [hooks] run",
            unguarded=f"{CONFIG_TOML} runs",
        )

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        """The entry, and whether a Codex config in reach switches hooks off."""
        from pathlib import Path

        from orbit_learnings.integrations.base import Check
        from orbit_learnings.integrations.codex import configtoml

        if configtoml.has_block(ws.root / CONFIG_TOML):
            checks = self.toml_doctor(ws, sample_path)
        else:
            checks = super().doctor(ws, sample_path=sample_path)
        if checks[0].status != "ok":
            return checks
        for config in (ws.root / CONFIG_TOML, Path.home() / ".codex/config.toml"):
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
