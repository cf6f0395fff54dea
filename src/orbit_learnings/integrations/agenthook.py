"""The shape every agent with JSON hook settings shares: install, uninstall, doctor, and
a hook that never fails its agent. An agent's package says only what differs — its
settings file and layout, its events, how to read its payload and where its answer goes.
"""

from __future__ import annotations

import json
import os

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.integrations.base import DRY_RUN_ENV, Check, Integration
from orbit_learnings.push import hookflow
from orbit_learnings.store.workspace import Workspace, find_workspace

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook path must not pay for typing or pathlib imports
    from pathlib import Path
    from typing import Any, ClassVar

    from orbit_learnings.integrations.base import SetupReport


class AgentHook(Integration):
    has_hook = True
    installs = True
    settings = ""  # the agent's settings file, relative to the repository (POSIX)
    nested = False  # Claude-style groups {matcher, hooks: [...]} or flat handlers
    events: ClassVar[dict[str, str | None]] = {}  # event -> matcher (None: no matcher)

    # --- what each agent says -----------------------------------------------------

    def handler(self, command: str, matcher: str | None) -> dict[str, Any]:
        """One entry as the agent's settings spell it (flat layouts carry the matcher)."""
        entry: dict[str, Any] = {"command": command, "timeout": 10}
        if matcher and not self.nested:
            entry["matcher"] = matcher
        return entry

    def extra_settings(self) -> dict[str, Any]:
        return {}

    session_keys: tuple[str, ...] = ("session_id",)
    tool_keys = ("tool_name", "tool_input")  # where the payload names the tool and its input
    start_events: tuple[str, ...] = ()  # a session (re)starts: the note, and forgetting on clear
    compact_events: tuple[str, ...] = ()  # the context is about to be compacted: forget
    prompt_events: tuple[str, ...] = ()  # the user submitted a prompt (its text in `prompt`)
    stop_events: tuple[str, ...] = ()  # a turn ends: capture's reflection, with capture.reflect

    def event_of(self, payload: dict[str, object]) -> str:
        return text_field(payload, "hook_event_name") or ""

    def answer(self, event: str, text: str) -> str:
        """The hook's stdout for this text, in the agent's own field ("" for no text)."""
        raise NotImplementedError

    def respond(self, payload: dict[str, object], ws: Workspace, *, record: bool) -> str:
        event = self.event_of(payload)
        session = text_field(payload, *self.session_keys)
        if event in self.start_events:
            source = text_field(payload, "source") or "startup"
            return self.answer(event, hookflow.session_started(ws, session, source))
        if event in self.compact_events:
            hookflow.session_started(ws, session, "compact")
            return ""
        if event in self.prompt_events:
            prompt = text_field(payload, "prompt")
            text = hookflow.prompt_submitted(ws, session, prompt, layer=self.name, record=record)
            return self.answer(event, text)
        touch = touch_of(payload, *self.tool_keys, session=session)
        if touch is None:
            return ""
        text = hookflow.context_for_touch(ws, touch, layer=self.name, record=record)
        return self.answer(event, text)

    def probe(self, ws: Workspace, path: str) -> tuple[str, dict[str, object]] | None:
        """(event, payload) doctor feeds the installed entry: the agent's own shape for a
        read of `path` (repository-relative), or for a prompt that names it. None: this
        agent has no dry run yet (doctor says so and skips it)."""
        return None

    # --- the shared part ------------------------------------------------------------

    @property
    def command(self) -> str:
        return f"orbit hook {self.name}"

    empty_answer = ""  # what stdout says when there is nothing to add
    quiet = False  # the agent shows stderr to the user: say nothing there unless debugging

    def hook(self, stdin_text: str, *, root: str | None, flags: Any) -> tuple[str, str]:
        out, err = self._hook(stdin_text, root=root)
        if self.quiet and not os.environ.get("ORBIT_DEBUG"):
            err = ""
        return out or self.empty_answer, err

    def _hook(self, stdin_text: str, *, root: str | None) -> tuple[str, str]:
        """The one way every agent's hook reads its payload, finds the workspace (`cwd`,
        else the first workspace root holding one) and keeps its failures from the agent."""
        record = os.environ.get(DRY_RUN_ENV) != "1"
        try:
            payload = json.loads(stdin_text)
            if not isinstance(payload, dict):
                return "", "orbit hook: stdin JSON is not an object\n"
            return self.respond(payload, workspace_of(payload, root), record=record), ""
        except ValueError:
            return "", "orbit hook: stdin is not JSON; expected a hook payload\n"
        except Exception as exc:  # a hook must never break the agent
            return "", f"orbit hook: skipped ({type(exc).__name__}: {exc})\n"

    def wanted(
        self, command: str, *, prompt: bool = True, reflect: bool = False
    ) -> dict[str, list[Any]]:
        """Our entry per event; the stop events only with `reflect` (capture.reflect)."""
        entries: dict[str, list[Any]] = {}
        stops = dict.fromkeys(self.stop_events if reflect else ())
        for event, matcher in {**self.events, **stops}.items():
            if event in self.prompt_events and not prompt:
                continue
            handler = self.handler(command, matcher)
            if self.nested:
                group: dict[str, Any] = {"hooks": [handler]}
                if matcher:
                    group = {"matcher": matcher, **group}
                entries[event] = [group]
            else:
                entries[event] = [handler]
        return entries

    def reflects(self, ws: Workspace) -> bool:
        """Whether the stop events get an entry: this agent has one, and the repository
        switched capture's reflection on (`capture.reflect` in .orbit/config.yaml)."""
        from orbit_learnings.curation.capture.nudge import enabled

        return bool(self.stop_events) and enabled(ws, "reflect")

    def markers(self, command: str | None) -> tuple[str, ...]:
        """The commands orbit writes here, or `command` when one was given."""
        from orbit_learnings.integrations import hookfiles

        written = (hookfiles.guarded(self.command), self.command)
        return (*written, command) if command else written

    def settings_path(self, ws: Workspace) -> Path:
        return ws.root / self.settings

    def install(
        self, ws: Workspace, *, command: str | None = None, prompt: bool = True
    ) -> SetupReport:
        from orbit_learnings.integrations import hookfiles

        entry = command or hookfiles.entry(self.command)
        return hookfiles.install(
            self.settings_path(ws),
            self.wanted(entry, prompt=prompt, reflect=self.reflects(ws)),
            self.markers(command),
            nested=self.nested,
            extra=self.extra_settings(),
            label=str(self.settings),
        )

    def uninstall(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        from orbit_learnings.integrations import hookfiles

        path = self.settings_path(ws)
        report = hookfiles.uninstall(
            path, self.markers(command), nested=self.nested, label=str(self.settings)
        )
        folder = path.parent  # the folder our install made, if it is empty again
        gone = report.changed and not path.exists() and folder != ws.root
        if gone and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
        return report

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        """The entry in the settings file, then the entry run for real (`dryrun`)."""
        from orbit_learnings.integrations import hookfiles

        path = self.settings_path(ws)
        label = f"{self.name} hook"
        if not path.exists():
            return [Check(label, "skip", f"not installed (`orbit hooks install {self.name}`)")]
        try:
            commands = hookfiles.commands_in(path, f"hook {self.name}")
        except ValueError:
            return [Check(label, "fail", f"{self.settings} is not valid JSON")]
        except OrbitError as exc:  # a link out of the repository, a FIFO, a device
            return [Check(label, "fail", exc.message)]
        if not commands:
            return [Check(label, "skip", f"no orbit entry in {self.settings}")]
        runs = f"{self.settings} runs"
        return self.entry_checks(ws, commands, sample_path, guarded=runs, unguarded=runs)

    def entry_checks(
        self,
        ws: Workspace,
        commands: list[str],
        sample_path: str | None,
        *,
        guarded: str,
        unguarded: str,
    ) -> list[Check]:
        """Doctor's verdict on the orbit entries found (at least one) in an agent's settings,
        whatever file holds them: a warning unless every one is guarded (a bare `orbit` fails
        the agent's tool call on a teammate's machine without it), then the first run for
        real. `guarded` and `unguarded` name where the entries are, as the subject and verb
        of the check's message ("config.toml runs")."""
        from orbit_learnings.integrations import dryrun, hookfiles

        label = f"{self.name} hook"
        if all(hookfiles.is_guarded(c) for c in commands):
            found = Check(label, "ok", f"{guarded} `{self.command}` (guarded)")
        else:
            found = Check(label, "warn", f"{unguarded} orbit unguarded: {commands[0]}")
        return [found, dryrun.check(self.name, self.probe, ws, commands[0], sample_path)]


def capture_nudge(
    ws: Workspace, session: str | None, payload: dict[str, object], found: str
) -> str:
    """The prompt's learnings (`found`) and capture's opt-in nudge after them: a line when
    the prompt reads as a rule, and the moments the transcript showed since the last one
    named (curation.capture.nudge; nothing unless capture.nudge is on)."""
    from orbit_learnings.curation.capture import nudge

    prompt, transcript = text_field(payload, "prompt"), text_field(payload, "transcript_path")
    try:
        said = nudge.at_prompt(ws, session, prompt, transcript=transcript)
    except Exception:  # an opt-in extra never costs the prompt its learnings
        said = ""
    return "\n\n".join(text for text in (found, said) if text)


def capture_reflection(ws: Workspace, session: str | None, payload: dict[str, object]) -> str:
    """Capture's opt-in reflection at a turn's end: block the stop once, with the request
    (and the moments noticed) as the reason; "" otherwise. Claude Code's and Codex's Stop
    read `{"decision": "block", "reason": …}` alike."""
    from orbit_learnings.curation.capture import nudge

    try:
        reason = nudge.at_stop(
            ws,
            session,
            already_active=payload.get("stop_hook_active") is True,
            transcript=text_field(payload, "transcript_path"),
        )
    except Exception:  # a hint that cannot be worked out is no reason to keep the agent going
        return ""
    return json.dumps({"decision": "block", "reason": reason}) + "\n" if reason else ""


def text_field(payload: dict[str, object], *keys: str) -> str | None:
    """The first of these keys holding a non-empty string."""
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _roots(payload: dict[str, object]) -> list[object]:
    """The payload's workspace roots: `workspace_roots` (Cursor) or `workspaceRoots` (Cline)."""
    roots = payload.get("workspace_roots", payload.get("workspaceRoots"))
    return roots if isinstance(roots, list) else []


def first_root(payload: dict[str, object]) -> str | None:
    roots = _roots(payload)
    return str(roots[0]) if roots else None


def workspace_of(payload: dict[str, object], root: str | None) -> Workspace:
    """The workspace the payload is about: its cwd, else the first of its roots holding one."""
    from orbit_learnings.core.errors import WorkspaceNotFound

    roots = _roots(payload)
    candidates = [text_field(payload, "cwd"), *roots]
    for candidate in [c for c in candidates if isinstance(c, str) and c]:
        try:
            return find_workspace(root, cwd=candidate)
        except WorkspaceNotFound:
            continue
    return find_workspace(root)


def tool_arguments(value: object) -> dict[str, object]:
    """A tool's arguments, whether sent as an object or as a JSON string."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def touch_of(
    payload: dict[str, object], tool_key: str, input_key: str, *, session: str | None
) -> hookflow.Touch | None:
    tool = text_field(payload, tool_key)
    if tool is None:
        return None
    cwd = text_field(payload, "cwd") or first_root(payload)
    arguments = tool_arguments(payload.get(input_key))
    agent = text_field(payload, "agent_id")  # a subagent's call: its own dedup set
    return hookflow.Touch(tool, arguments, session_id=session, agent_id=agent, cwd=cwd)
