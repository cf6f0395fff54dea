"""Cline: `orbit hook cline`, run by the hook scripts `.clinerules/hooks/<HookName>`.

Cline's hooks are executables named after the hook, one per hook per folder; each gets
JSON on stdin (`hookName`, `taskId`, `workspaceRoots`, and its own object:
`postToolUse` with `toolName` and `parameters`, `userPromptSubmit` with `prompt`,
`taskStart` with `taskMetadata.initialTask`) and must print `{"cancel": false, ...}`;
`contextModification` reaches the next model request. A non-zero exit, bad JSON or a
timeout *blocks* Cline, so every path here answers `{"cancel": false}` and exits 0: the
script orbit writes prints that line itself when orbit is missing or says anything
else, and the hook stops its own work after `DEADLINE_SECONDS` (`ORBIT_HOOK_DEADLINE`).

Orbit writes `TaskStart` (the note, and the learnings the task's first message finds),
`UserPromptSubmit` and `PostToolUse`; a script of that name that is not orbit's is left
alone, with a warning. Dedup is per `taskId`.

Reference (read 2026-11-26): https://docs.cline.bot/features/hooks/hook-reference
(cline/cline `docs/features/hooks/hook-reference.mdx`).
"""

from __future__ import annotations

import json
import os

from orbit_learnings.integrations.agenthook import AgentHook, first_root, text_field, tool_arguments
from orbit_learnings.push import hookflow

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, ClassVar

    from orbit_learnings.integrations.base import Check, SetupReport
    from orbit_learnings.store.workspace import Workspace

HOOKS_DIR = ".clinerules/hooks"
NO_PROMPT = "--no-prompt"
DEADLINE_SECONDS = 3.0  # Cline's own timeout is longer; a slow machine raises ours with:
DEADLINE_ENV = "ORBIT_HOOK_DEADLINE"  # seconds
ALLOW = '{"cancel": false}'
MARK = "# orbit-learnings: written by `orbit hooks install cline`"
SCRIPT = """#!/bin/sh
{mark}; `orbit hooks uninstall cline` removes it.
# Cline blocks its task when a hook exits non-zero or prints bad JSON: this one never does.
out=$({{ {run}; }} 2>/dev/null)
case "$out" in
  '{{"cancel": false'*) printf '%s\\n' "$out" ;;
  *) printf '%s\\n' '{allow}' ;;
esac
exit 0
"""


class HookDeadline(Exception):
    """The hook ran out of its time: answer `{"cancel": false}` rather than be killed."""


class Cline(AgentHook):
    name = "cline"
    summary = "Cline: context for the task, the prompt and after file tools (.clinerules/hooks)"
    hook_help = (
        "Cline hook: reads a TaskStart, UserPromptSubmit or PostToolUse payload on stdin and "
        'prints {"cancel": false, "contextModification": ...}; always {"cancel": false} and '
        f"exit 0, whatever happens. {NO_PROMPT}: do not search the prompt.\n\n"
        "\b\nExample (.clinerules/hooks/PostToolUse, one of the scripts\n"
        "`orbit hooks install cline` writes; TaskStart and UserPromptSubmit alike):\n"
        "  out=$({ orbit hook cline || true; } 2>/dev/null)  # guarded"
    )
    settings = HOOKS_DIR
    events: ClassVar[dict[str, str | None]] = {
        "TaskStart": None,
        "UserPromptSubmit": None,
        "PostToolUse": None,
    }
    prompt_events = ("UserPromptSubmit",)
    empty_answer = ALLOW + "\n"
    quiet = True

    def answer(self, event: str, text: str) -> str:
        return json.dumps({"cancel": False, "contextModification": text}) + "\n" if text else ""

    search_prompt = True  # `--no-prompt` on the hook's command line turns it off

    def hook(self, stdin_text: str, *, root: str | None, flags: Any) -> tuple[str, str]:
        self.search_prompt = NO_PROMPT not in (flags or ())
        try:
            with _deadline(deadline_seconds()):
                return super().hook(stdin_text, root=root, flags=flags)
        except HookDeadline:  # also when it strikes on the way out
            return self.empty_answer, ""

    def respond(self, payload: dict[str, object], ws: Workspace, *, record: bool) -> str:
        event = text_field(payload, "hookName") or ""
        task = text_field(payload, "taskId")
        body = payload.get(event[:1].lower() + event[1:])
        body = body if isinstance(body, dict) else {}
        if event == "PostToolUse":
            tool = text_field(body, "toolName")
            if tool is None:
                return ""
            params = tool_arguments(body.get("parameters"))
            touch = hookflow.Touch(tool, params, session_id=task, cwd=first_root(payload))
            text = hookflow.context_for_touch(ws, touch, layer=self.name, record=record)
            return self.answer(event, text)
        prompt = text_field(body, "prompt")
        if event == "TaskStart":
            meta = body.get("taskMetadata")
            prompt = text_field(meta, "initialTask") if isinstance(meta, dict) else None
        if event not in ("TaskStart", "UserPromptSubmit"):
            return ""
        note = hookflow.session_started(ws, task, "startup") if event == "TaskStart" else ""
        found = ""
        if self.search_prompt:
            found = hookflow.prompt_submitted(ws, task, prompt, layer=self.name, record=record)
        return self.answer(event, "\n\n".join(t for t in (note, found) if t))

    # --- the scripts ----------------------------------------------------------------

    def script(self, command: str | None, *, prompt: bool) -> str:
        from orbit_learnings.integrations import hookfiles

        flag = "" if prompt else f" {NO_PROMPT}"
        run = command or hookfiles.entry(f"{self.command}{flag}")  # a venv's orbit first
        return SCRIPT.format(mark=MARK, run=run, allow=ALLOW)

    def install(
        self, ws: Workspace, *, command: str | None = None, prompt: bool = True
    ) -> SetupReport:
        from orbit_learnings.integrations.base import SetupReport
        from orbit_learnings.store.fileops import atomic_write_text

        report, folder = SetupReport(), self.settings_path(ws)
        if folder.parent.is_file():  # `.clinerules` can be one rules file: no room for hooks
            report.warnings.append(
                f"{folder.parent.name} is a file, so Cline has no {HOOKS_DIR}/ folder here: "
                "move its rules into .clinerules/ (a folder) first"
            )
            return report
        for event in self.events:
            path, text = folder / event, self.script(command, prompt=prompt)
            if event in self.prompt_events and not prompt:
                if _ours(path):
                    path.unlink()
                    report.changed.append(f"{HOOKS_DIR}/{event} (removed: --no-prompt)")
                continue
            if path.exists() and not _ours(path):
                report.warnings.append(
                    f"{HOOKS_DIR}/{event} is not orbit's and Cline runs one script per hook: "
                    f"left alone; add `{self.command}` to it yourself"
                )
            elif path.exists() and path.read_text(encoding="utf-8") == text:
                report.unchanged.append(f"{HOOKS_DIR}/{event}")
            else:
                atomic_write_text(path, text)
                path.chmod(0o755)
                report.changed.append(f"{HOOKS_DIR}/{event}")
        return report

    def uninstall(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        from orbit_learnings.integrations.base import SetupReport

        report, folder = SetupReport(), self.settings_path(ws)
        for event in self.events:
            path = folder / event
            if _ours(path):
                path.unlink()
                report.changed.append(f"{HOOKS_DIR}/{event}")
            elif path.exists():
                report.unchanged.append(f"{HOOKS_DIR}/{event} (not orbit's, kept)")
        for empty in (folder, folder.parent):  # the folders only if we left them empty
            if empty.is_dir() and not any(empty.iterdir()):
                empty.rmdir()
        return report

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        import shlex

        from orbit_learnings.integrations import dryrun
        from orbit_learnings.integrations.base import Check

        folder, label = self.settings_path(ws), "cline hook"
        ours = [e for e in self.events if _ours(folder / e)]
        if not ours:
            return [Check(label, "skip", f"not installed (`orbit hooks install {self.name}`)")]
        stuck = [e for e in ours if not os.access(folder / e, os.X_OK)]
        if stuck:
            return [Check(label, "fail", f"{HOOKS_DIR}/{stuck[0]} is not executable: Cline blocks")]
        found = Check(label, "ok", f"{HOOKS_DIR}/ runs `{self.command}` for {', '.join(ours)}")
        if "PostToolUse" not in ours:
            return [found]
        script = shlex.quote(str(folder / "PostToolUse"))
        return [found, dryrun.check(self.name, self.probe, ws, script, sample_path)]

    def probe(self, ws: Workspace, path: str) -> tuple[str, dict[str, object]]:
        body = {"toolName": "read_file", "parameters": {"path": str(ws.root / path)}}
        payload = {"hookName": "PostToolUse", "taskId": "orbit-doctor"}
        return "PostToolUse", {**payload, "workspaceRoots": [ws.root_str], "postToolUse": body}


def _ours(path: Path) -> bool:
    try:
        return MARK in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def deadline_seconds() -> float:
    """`ORBIT_HOOK_DEADLINE` when it is a positive number of seconds, else the default."""
    try:
        seconds = float(os.environ.get(DEADLINE_ENV, ""))
    except ValueError:
        return DEADLINE_SECONDS
    return seconds if 0 < seconds < 3600 else DEADLINE_SECONDS


class _deadline:
    """Raise `HookDeadline` in this thread after `seconds` (POSIX timers; elsewhere none)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = False

    def __enter__(self) -> None:
        import signal

        if not hasattr(signal, "setitimer"):
            return
        try:
            signal.signal(signal.SIGALRM, _expired)
        except ValueError:  # not the main thread (an embedding caller): no timer
            return
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        self.armed = True

    def __exit__(self, *exc: object) -> None:
        if self.armed:
            import signal

            signal.setitimer(signal.ITIMER_REAL, 0)


def _expired(signum: int, frame: object) -> None:
    raise HookDeadline


INTEGRATION = Cline()
