"""Kiro CLI: `orbit hook kiro`, from the `hooks` of the project's custom agents.

Kiro runs hooks only for a custom agent: each `.kiro/agents/<name>.json` may carry a
`hooks` object (`agentSpawn`, `userPromptSubmit`, `preToolUse`, `postToolUse`, `stop`),
each a list of `{"command", "matcher", "timeout_ms", "cache_ttl_seconds"}`. The event
arrives as JSON on stdin: `hook_event_name`, `cwd`, and `prompt` (userPromptSubmit) or
`tool_name`/`tool_input`/`tool_response` (tool events). On exit 0 the stdout of
`agentSpawn` and `userPromptSubmit` "is added to agent's context"; for the tool events
and `stop` the page says only that the hook succeeded, and stdout in general "is
captured but not shown to user". So orbit answers where the model listens:

- `agentSpawn`: the note that the project keeps learnings, and a fresh dedup set;
- `userPromptSubmit`: the learnings for the files the prompt names and the words it
  matches confidently, as plain text;
- tool events: nothing, and nothing marked shown (an answer no model reads would hide
  the learning from the next prompt). Orbit installs no tool entries.

Kiro sends no session id, so one dedup set per repository (`SESSION`), started afresh
at each `agentSpawn`. `hooks install kiro` merges into every agent file the project has;
with none, it writes its own agent (`.kiro/agents/orbit.json`, every tool, as Kiro's
default agent has) for `kiro-cli --agent orbit`.

Reference (read 2026-11-26): https://kiro.dev/docs/cli/hooks ("Page updated: November 24,
2025") and https://kiro.dev/docs/cli/custom-agents/configuration-reference (hooks field).
"""

from __future__ import annotations

from orbit_learnings.integrations.agenthook import AgentHook, text_field
from orbit_learnings.push import hookflow

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook path must not pay for typing or pathlib imports
    from pathlib import Path
    from typing import Any, ClassVar

    from orbit_learnings.integrations.base import Check, SetupReport
    from orbit_learnings.store.workspace import Workspace

AGENTS_DIR = ".kiro/agents"
OWN_AGENT = f"{AGENTS_DIR}/orbit.json"
OWN_SETTINGS = {  # the agent orbit writes when the project has none (hooks aside)
    "name": "orbit",
    "description": "Kiro's default tools, with the project's learnings at spawn and prompt",
    "tools": ["*"],
}
SESSION = "kiro"  # Kiro's events carry no session id: one dedup set, reset at agentSpawn


class Kiro(AgentHook):
    name = "kiro"
    summary = "Kiro CLI: context at agent spawn and for the prompt, in .kiro/agents/*.json"
    hook_help = (
        "Kiro CLI hook: reads an agentSpawn or userPromptSubmit event on stdin and prints the "
        "learnings as plain text (Kiro adds that stdout to the agent's context); tool events "
        "get nothing. Always exits 0.\n\n"
        "\b\nExample (.kiro/agents/NAME.json, merged by `orbit hooks install kiro`):\n"
        '  {"hooks": {"userPromptSubmit": [\n'
        '    {"command": "orbit hook kiro", "timeout_ms": 10000}]}}'
    )
    settings = OWN_AGENT
    events: ClassVar[dict[str, str | None]] = {"agentSpawn": None, "userPromptSubmit": None}
    start_events = ("agentSpawn",)
    prompt_events = ("userPromptSubmit",)

    def handler(self, command: str, matcher: str | None) -> dict[str, Any]:
        return {"command": command, "timeout_ms": 10000}

    def answer(self, event: str, text: str) -> str:
        return text + "\n" if text else ""  # plain stdout is what reaches the model

    def respond(self, payload: dict[str, object], ws: Workspace, *, record: bool) -> str:
        event = self.event_of(payload)
        if event == "agentSpawn":  # a new conversation: what the last one saw is gone
            return self.answer(event, hookflow.session_started(ws, SESSION, "clear"))
        if event != "userPromptSubmit":
            return ""  # tool events and stop: their stdout does not reach the model
        prompt = text_field(payload, "prompt")
        return self.answer(
            event, hookflow.prompt_submitted(ws, SESSION, prompt, layer=self.name, record=record)
        )

    def probe(self, ws: Workspace, path: str) -> tuple[str, dict[str, object]]:
        prompt = f"What should I know before changing {path}?"
        payload: dict[str, object] = {"hook_event_name": "userPromptSubmit", "prompt": prompt}
        payload["cwd"] = ws.root_str
        return "userPromptSubmit", payload

    # --- every agent file of the project --------------------------------------------

    def agent_files(self, ws: Workspace) -> list[Path]:
        folder = ws.root / AGENTS_DIR
        return sorted(p for p in folder.glob("*.json") if p.is_file()) if folder.is_dir() else []

    def install(
        self, ws: Workspace, *, command: str | None = None, prompt: bool = True
    ) -> SetupReport:
        from orbit_learnings.integrations import hookfiles
        from orbit_learnings.integrations.base import SetupReport

        report, own = SetupReport(), ws.root / OWN_AGENT
        wanted = self.wanted(command or hookfiles.entry(self.command), prompt=prompt)
        targets = self.agent_files(ws) or [own]
        for path in targets:  # every file readable first: a broken one stops before any write
            hookfiles.load(path)
        for path in targets:
            extra = OWN_SETTINGS if path == own and not path.exists() else None  # ours only
            done = hookfiles.install(path, wanted, self.markers(command), nested=False, extra=extra)
            _merge(report, done, ws)
        if own.exists():
            report.warnings.append(
                f"Kiro runs hooks only for a custom agent: start it with `kiro-cli --agent orbit` "
                f"(or `kiro-cli agent set-default orbit`), or add your own agent to {AGENTS_DIR}/ "
                "and install again"
            )
        return report

    def uninstall(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        import json

        from orbit_learnings.integrations import hookfiles
        from orbit_learnings.integrations.base import SetupReport

        report, own = SetupReport(), ws.root / OWN_AGENT
        for path in self.agent_files(ws):
            _merge(report, hookfiles.uninstall(path, self.markers(command), nested=False), ws)
        if own.exists() and hookfiles.load(own) == json.loads(json.dumps(OWN_SETTINGS)):
            own.unlink()  # only what our install wrote is left
        for folder in (own.parent, own.parent.parent):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        return report

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        from orbit_learnings.core.errors import OrbitError
        from orbit_learnings.integrations import hookfiles
        from orbit_learnings.integrations.base import Check

        label, found = "kiro hook", []
        for path in self.agent_files(ws):
            name = path.relative_to(ws.root).as_posix()
            try:
                found += [(name, c) for c in hookfiles.commands_in(path, f"hook {self.name}")]
            except ValueError:
                return [Check(label, "fail", f"{name} is not valid JSON: Kiro cannot load it")]
            except OrbitError as exc:  # a link out of the repository, a FIFO, a device
                return [Check(label, "fail", exc.message)]
        if not found:
            return [Check(label, "skip", f"not installed (`orbit hooks install {self.name}`)")]
        files = ", ".join(dict.fromkeys(name for name, _ in found))
        commands = [command for _, command in found]
        runs = f"{files} run"
        return self.entry_checks(ws, commands, sample_path, guarded=runs, unguarded=runs)


def _merge(report: SetupReport, done: SetupReport, ws: Workspace) -> None:
    """One file's report into the whole install's, its paths relative to the repository."""
    import os

    for into, items in ((report.changed, done.changed), (report.unchanged, done.unchanged)):
        into += [os.path.relpath(item, ws.root_str) for item in items]
    report.warnings += done.warnings


INTEGRATION = Kiro()
