"""orbit's entries in the inline `[hooks]` tables of a project's `.codex/config.toml`.

Codex reads hooks from `hooks.json` or from `[hooks]` tables in `config.toml`, and warns at
start-up when one config layer has both ("Prefer one representation per layer"). So a
project that already keeps its hooks in `config.toml` gets orbit's there too.

Why a text merge and not a TOML writer: no TOML writer is a dependency (tomllib only
reads), and rewriting the file through one would reflow the user's comments, order and
quoting. orbit's entries are one delimited block at the end of the file, in TOML's own
array-of-tables form (`[[hooks.EVENT]]`, `[[hooks.EVENT.hooks]]`), which appends to the
user's arrays wherever they were declared; uninstall cuts that block out and leaves every
other byte as it was. Every write is checked with tomllib first: the file must still
parse, and hold exactly the user's data plus orbit's entries, or nothing is written.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from orbit_learnings.core.errors import OrbitError

BEGIN = "# >>> orbit-learnings: written by `orbit hooks install codex`; uninstall removes it"
END = "# <<< orbit-learnings"
STATE_TABLE = "state"  # `[hooks.state]`: Codex's own trust records, not an event


def uses_hooks(path: Path) -> bool:
    """Whether this config.toml declares hooks of its own (orbit's block aside)."""
    text = _read(path)
    if text is None:
        return False
    try:
        hooks = tomllib.loads(without_block(text)).get("hooks")
    except tomllib.TOMLDecodeError:
        return False
    return isinstance(hooks, dict) and any(k != STATE_TABLE for k in hooks)


def has_block(path: Path) -> bool:
    text = _read(path)
    return text is not None and BEGIN in text


def render(wanted: dict[str, list[dict[str, Any]]]) -> str:
    """orbit's block: each event's groups and handlers as arrays of tables."""
    lines = [BEGIN]
    for event, groups in wanted.items():
        for group in groups:
            lines.append(f"[[hooks.{event}]]")
            lines += [f"{k} = {_value(v)}" for k, v in group.items() if k != "hooks"]
            for handler in group.get("hooks", []):
                lines.append(f"[[hooks.{event}.hooks]]")
                lines += [f"{k} = {_value(v)}" for k, v in handler.items()]
    return "\n".join([*lines, END]) + "\n"


def _value(value: object) -> str:
    """A TOML value: JSON's string escapes are TOML basic-string escapes; integers alike."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"no TOML form for {value!r}")
    return json.dumps(value)


def without_block(text: str) -> str:
    """The text with orbit's block (and the blank line set before it) cut out."""
    start = text.find(BEGIN)
    if start < 0:
        return text
    end = text.find(END, start)
    end = len(text) if end < 0 else text.find("\n", end) + 1 or len(text)
    head = text[:start]
    head = head[:-1] if head.endswith("\n\n") else head
    return head + text[end:]


def install(path: Path, wanted: dict[str, list[dict[str, Any]]]) -> bool:
    """Put orbit's block at the end of the file (replacing an earlier one); True if written."""
    text = _read(path) or ""
    base = without_block(text)
    new = (base.rstrip("\n") + "\n\n" if base.strip() else "") + render(wanted)
    _verify(path, base, new, wanted)
    if new == text:
        return False
    _write(path, new)
    return True


def uninstall(path: Path) -> bool:
    text = _read(path)
    if text is None or BEGIN not in text:
        return False
    _write(path, without_block(text))
    return True


def commands(path: Path, marker: str) -> list[str]:
    """Every handler command in the file's `[hooks]` that runs `marker`."""
    text = _read(path)
    hooks = tomllib.loads(text).get("hooks") if text else None
    found: list[str] = []
    for event, groups in hooks.items() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) and event != STATE_TABLE else []:
            for handler in group.get("hooks", []) if isinstance(group, dict) else []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and marker in command:
                    found.append(command)
    return found


def _verify(path: Path, base: str, new: str, wanted: dict[str, list[dict[str, Any]]]) -> None:
    """The new text parses, and is the user's data plus exactly orbit's entries."""
    try:
        theirs, merged = tomllib.loads(base), tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:
        raise OrbitError(
            f"{path}: cannot add orbit's hooks ({exc}); fix the file, or keep hooks in "
            ".codex/hooks.json"
        ) from None
    for event, groups in wanted.items():
        current = merged.get("hooks", {}).get(event, [])
        if current[len(current) - len(groups) :] != groups:
            raise OrbitError(f"{path}: orbit's [[hooks.{event}]] would not read back as written")
        del current[len(current) - len(groups) :]
        if not current and event not in theirs.get("hooks", {}):
            del merged["hooks"][event]
    if merged.get("hooks") == {} and "hooks" not in theirs:
        del merged["hooks"]
    if merged != theirs:
        raise OrbitError(f"{path}: adding orbit's hooks would change your settings; left alone")


def _read(path: Path) -> str | None:
    from orbit_learnings.integrations.hookfiles import read_settings

    return read_settings(path)


def _write(path: Path, text: str) -> None:
    from orbit_learnings.integrations.hookfiles import repository_of
    from orbit_learnings.store.fileops import write_repo_text

    write_repo_text(path, text, within=repository_of(path), name=str(path))
