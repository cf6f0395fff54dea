"""Merging orbit's hook entries into an agent's JSON settings, and taking them out again.

The settings file belongs to the user (and often to the whole team): we add only our
own entries, change nothing else, add nothing on a second run, and remove only what is
ours. An entry is ours when its command runs `orbit hook NAME`. Two layouts exist:

- nested (Claude Code, Gemini CLI): `hooks.Event = [{"matcher": M, "hooks": [handler]}]`
- flat (Cursor, Copilot): `hooks.event = [handler]`, the matcher inside the handler

The command written is guarded so that a teammate without orbit on PATH gets a silent
success, never a failing hook: some agents (Copilot CLI) deny the tool call when a
hook fails. When the `orbit` running `hooks install` is not the one PATH finds (a project
venv, the usual way to try a Python tool), the entry runs that `orbit` first, by its
absolute path, and falls back to PATH: the agent's own PATH rarely holds the venv, and a
teammate whose checkout lacks that path still gets the PATH form or a silent success.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.integrations.base import SetupReport
from orbit_learnings.store.fileops import read_repo_text, write_repo_text
from orbit_learnings.store.layout import ORBIT_DIR

Handler = dict[str, Any]
GUARD = "command -v orbit >/dev/null 2>&1 && {command} || true"


LOCAL = "if [ -x {orbit} ]; then {orbit} {args}; else {guarded}; fi"


def guarded(command: str) -> str:
    """A shell command that exits 0 and prints nothing when orbit is not installed."""
    return GUARD.format(command=command)


def entry(command: str) -> str:
    """What `hooks install` writes for `orbit ...`: this install's own `orbit` first when
    PATH would find another one or none (a venv), else the PATH form; guarded either way."""
    import shutil
    import sys

    own = os.path.join(os.path.dirname(sys.executable), "orbit")
    on_path = shutil.which("orbit")
    if not os.access(own, os.X_OK) or (
        on_path and os.path.realpath(on_path) == os.path.realpath(own)
    ):
        return guarded(command)
    args = command.removeprefix("orbit ")
    return LOCAL.format(orbit=shlex.quote(own), args=args, guarded=guarded(command))


def _local_form(command: str) -> re.Pattern[str]:
    """Any `entry` written for `command` from some install's orbit (another venv too)."""
    args = re.escape(command.removeprefix("orbit "))
    path = r"(?P<orbit>'[^']+'|\S+)"
    body = rf"if \[ -x {path} \]; then (?P=orbit) {args}; else {re.escape(guarded(command))}; fi"
    return re.compile(body)


def is_guarded(command: str) -> bool:
    text = command.rstrip()
    if text.startswith("if [ -x ") and text.endswith("|| true; fi"):
        return True
    return command.startswith("command -v ") and text.endswith("|| true")


def repository_of(path: Path) -> str:
    """The repository a settings file belongs to: the nearest folder above it holding
    `.orbit` (the file's own folder when none does). Its links may not lead out of it."""
    start = Path(os.path.abspath(path)).parent
    for folder in (start, *start.parents):
        if (folder / ORBIT_DIR).is_dir():
            return str(folder)
    return str(start)


def read_settings(path: Path) -> str | None:
    """The settings file's text, None when there is none. A committed link to the user's
    own settings (~/.claude/settings.json), to /dev/zero or a FIFO is refused."""
    try:
        return read_repo_text(path, within=repository_of(path), name=str(path))
    except (FileNotFoundError, NotADirectoryError):
        return None


def load(path: Path) -> dict[str, Any]:
    """The settings as a JSON object; a broken file is refused, never overwritten."""
    text = read_settings(path)
    if text is None:
        return {}
    try:
        data = json.loads(text or "{}")
    except ValueError as exc:
        raise OrbitError(f"{path}: not valid JSON ({exc}); fix it before installing") from None
    if not isinstance(data, dict):
        raise OrbitError(f"{path}: expected a JSON object")
    return data


def hooks_of(data: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise OrbitError(f"{path}: 'hooks' is not an object")
    return hooks


def ours(commands: tuple[str, ...]) -> Callable[[object], bool]:
    """Whether a handler is one orbit wrote: its command is exactly one of `commands`.

    Exact, so that an entry a user wrote around orbit (say, with an extra flag) is theirs.
    """
    wanted = {c.strip() for c in commands}
    local = [_local_form(c) for c in wanted if c.startswith("orbit ")]

    def test(handler: object) -> bool:
        if not isinstance(handler, dict):
            return False
        texts = [handler.get(k) for k in ("command", "bash", "powershell")]
        strings = [t.strip() for t in texts if isinstance(t, str)]
        return any(t in wanted or any(p.fullmatch(t) for p in local) for t in strings)

    return test


def strip_ours(
    hooks: dict[str, Any], is_ours: Callable[[object], bool], *, nested: bool
) -> list[str]:
    """Remove our handlers from every event, and the groups and events only they filled;
    the events that had one."""
    stripped: list[str] = []
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list):
            continue
        kept: list[object] = []
        for entry in entries:
            if nested and isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
                inner = [h for h in entry["hooks"] if not is_ours(h)]
                if inner or len(inner) == len(entry["hooks"]):  # empty before us: theirs
                    kept.append({**entry, "hooks": inner})
            elif not is_ours(entry):
                kept.append(entry)
        if kept != entries:
            stripped.append(event)
        if kept or not entries:
            hooks[event] = kept
        else:
            del hooks[event]
    return stripped


def write_if_changed(path: Path, before: dict[str, Any], after: dict[str, Any]) -> bool:
    if before == after and path.exists():
        return False
    text = json.dumps(after, indent=2, ensure_ascii=False) + "\n"
    write_repo_text(path, text, within=repository_of(path), name=str(path))
    return True


def install(
    path: Path,
    wanted: dict[str, list[Any]],
    markers: tuple[str, ...],
    *,
    nested: bool,
    extra: dict[str, Any] | None = None,
    label: str | None = None,
) -> SetupReport:
    """Make our entries exactly `wanted` (event -> entries), leaving everything else alone;
    `label` is how the report names the file (the repository-relative path)."""
    report = SetupReport()
    data = load(path)
    before = json.loads(json.dumps(data))
    data.update({k: v for k, v in (extra or {}).items() if k not in data})
    hooks = hooks_of(data, path)
    strip_ours(hooks, ours(markers), nested=nested)
    for event, entries in wanted.items():
        current = hooks.setdefault(event, [])
        if not isinstance(current, list):
            raise OrbitError(f"{path}: 'hooks.{event}' is not a list")
        current.extend(entries)
    changed = write_if_changed(path, before, data)
    (report.changed if changed else report.unchanged).append(label or str(path))
    return report


def uninstall(
    path: Path, markers: tuple[str, ...], *, nested: bool, label: str | None = None
) -> SetupReport:
    """Take our entries out; the report says which (by event), or that the file held
    nothing else and is gone, so "removed X" is never said of a file that is still there."""
    report = SetupReport()
    label = label or str(path)
    if not path.exists():
        report.unchanged.append(f"{label} (not there)")
        return report
    data = load(path)
    before = json.loads(json.dumps(data))
    hooks = data.get("hooks")
    events: list[str] = []
    if isinstance(hooks, dict):
        events = strip_ours(hooks, ours(markers), nested=nested)
        if not hooks:
            del data["hooks"]
    if before != data and set(data) <= {"version"}:  # only what our install added is left
        path.unlink()
        report.changed.append(f"{label} (it held only orbit's entries)")
        return report
    if write_if_changed(path, before, data):
        entries = f"orbit's {', '.join(events)} entries" if events else "orbit's entries"
        report.changed.append(f"{entries} from {label} (the rest of the file kept)")
    else:
        report.unchanged.append(f"{label} (no orbit entry)")
    return report


def commands_in(path: Path, marker: str) -> list[str]:
    """Every command in the file that runs `marker` in any form (ValueError if not JSON)."""
    text = read_settings(path)
    if text is None:
        return []
    data = json.loads(text or "{}")
    hooks = data.get("hooks") if isinstance(data, dict) else None
    events = hooks.values() if isinstance(hooks, dict) else []
    return [
        command for entries in events for command in event_commands(entries) if marker in command
    ]


def event_commands(entries: object) -> list[str]:
    """The commands of one event's entries, nested in groups (`{matcher, hooks: [...]}`) or
    flat; anything malformed is passed over."""
    found: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        handlers = entry.get("hooks") if isinstance(entry, dict) else None
        for handler in handlers if isinstance(handlers, list) else [entry]:
            for key in ("command", "bash"):
                text = handler.get(key) if isinstance(handler, dict) else None
                if isinstance(text, str):
                    found.append(text)
    return found
