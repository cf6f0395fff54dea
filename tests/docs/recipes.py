"""The recipes in README.md and docs/: each fenced block a reader may copy, and its marker.

Parsing only; what counts as a recipe, how each kind runs and the marker conventions are
described at the top of `tests/docs/test_recipes.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.testing import REPO

SHELL = frozenset({"sh", "bash", "shell", "console"})
DATA = frozenset({"yaml", "yml", "json"})

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_MARKER = re.compile(r"^\s*<!--\s*recipe:(?P<body>.*?)-->\s*$")
_SKIP = re.compile(r"^skip(?:\s+`(?P<command>[^`]+)`)?\s*(?:—|--|-|:)\s*(?P<reason>\S.*)$")
_FILE = re.compile(r"^file\s+(?P<path>\S+)$")
_EXIT = re.compile(r"^exit\s+(?P<code>\d+)$")


class MarkerError(ValueError):
    """A `<!-- recipe: ... -->` comment this module cannot read."""


@dataclass(frozen=True)
class Marker:
    skip: str | None = None  # the reason the whole block is not run
    skip_commands: tuple[tuple[str, str], ...] = ()  # (command prefix, reason)
    output: bool = False
    file: str | None = None
    fresh: bool = False
    exit: int = 0


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    marker: Marker = field(default_factory=Marker)
    problem: str | None = None  # a malformed marker, reported by the test that runs the block

    @property
    def where(self) -> str:
        return f"{shown(self.path)}:{self.line}"


def shown(path: Path) -> str:
    """A page's name as a reader finds it: relative to the repository."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def doc_files() -> list[Path]:
    """README.md and every page under docs/, in a stable order."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def parse_marker(body: str) -> Marker:
    """The directives of one marker comment; MarkerError names what is wrong."""
    marker = Marker()
    for directive in (d.strip() for d in body.split(";")):
        marker = _apply(marker, directive)
    return marker


def _apply(marker: Marker, directive: str) -> Marker:
    from dataclasses import replace

    if skip := _SKIP.match(directive):
        if skip["command"] is None:
            return replace(marker, skip=skip["reason"])
        entry = (skip["command"].strip(), skip["reason"])
        return replace(marker, skip_commands=(*marker.skip_commands, entry))
    if directive == "output":
        return replace(marker, output=True)
    if directive == "fresh":
        return replace(marker, fresh=True)
    if found := _FILE.match(directive):
        return replace(marker, file=found["path"])
    if found := _EXIT.match(directive):
        return replace(marker, exit=int(found["code"]))
    if directive.startswith("skip"):
        raise MarkerError(f"`{directive}` needs a reason: `skip — why it cannot run here`")
    raise MarkerError(f"unknown recipe directive `{directive}` (see tests/docs/test_recipes.py)")


def blocks(path: Path) -> list[Block]:
    """Every recipe block of one page."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for start, end, info, indent in _fences(lines):
        body = [_dedent(line, indent) for line in lines[start + 1 : end]]
        lang = _language(info, body)
        if lang not in SHELL | DATA:
            continue
        above = lines[start - 1] if start else ""
        found.append(_block(path, start + 1, lang, "\n".join(body) + "\n", above))
    return found


def _block(path: Path, line: int, lang: str, text: str, above: str) -> Block:
    comment = _MARKER.match(above)
    if not comment:
        return Block(path, line, lang, text)
    try:
        return Block(path, line, lang, text, parse_marker(comment["body"]))
    except MarkerError as exc:
        return Block(path, line, lang, text, problem=str(exc))


def orphan_markers(path: Path) -> list[str]:
    """Marker comments that are not right above a fence: they would silently do nothing."""
    lines = path.read_text(encoding="utf-8").splitlines()
    openings = {start - 1 for start, _end, _info, _indent in _fences(lines)}
    return [
        f"{shown(path)}:{number + 1}"
        for number, line in enumerate(lines)
        if _MARKER.match(line) and number not in openings
    ]


def _fences(lines: list[str]) -> Iterator[tuple[int, int, str, str]]:
    """(opening index, closing index, info string, indent) of each fenced block."""
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence = opening["fence"]
        end = index + 1
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        yield index, end, opening["info"].strip(), opening["indent"]
        index = end + 1


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.lstrip(fence[0])


def _dedent(line: str, indent: str) -> str:
    return line[len(indent) :] if line.startswith(indent) else line.lstrip()


def _language(info: str, body: list[str]) -> str:
    if info:
        return info.split()[0].lower()
    return "console" if any(line.startswith("$ ") for line in body) else ""


def all_blocks() -> list[Block]:
    return [block for page in doc_files() for block in blocks(page)]


def recipes_for(file_pattern: str) -> list[Block]:
    """The blocks marked `file PATH` with PATH matching the glob (for the dedicated tests)."""
    from fnmatch import fnmatch

    return [b for b in all_blocks() if b.marker.file and fnmatch(b.marker.file, file_pattern)]


def commands(block: Block) -> list[str]:
    """The block's shell commands, a `\\`-continued command as one string with its newlines."""
    lines = block.text.splitlines()
    if block.lang == "console":
        return _console_commands(lines)
    return _join_continuations(lines)


_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(?P<word>\w+)\1")


def _console_commands(lines: list[str]) -> list[str]:
    """`$ ` lines, with their `\\` continuations and here-document bodies (`<<'EOF'` up to
    `EOF`): what a reader pastes, the rest being sample output."""
    found: list[str] = []
    continuing = False
    heredoc: str | None = None
    for line in lines:
        if heredoc is not None:
            found[-1] += "\n" + line
            heredoc = None if line.strip() == heredoc else heredoc
            continue
        if continuing:
            found[-1] += "\n" + line
        elif line.startswith("$ "):
            found.append(line[2:])
        else:
            continue
        continuing = line.endswith("\\")
        opened = _HEREDOC.search(line)
        heredoc = opened["word"] if opened and not continuing else None
    return found


def _join_continuations(lines: list[str]) -> list[str]:
    found: list[str] = []
    continuing = False
    for line in lines:
        if continuing:
            found[-1] += "\n" + line
        else:
            found.append(line)
        continuing = line.endswith("\\")
    return found


def script(block: Block) -> str:
    """The bash script a block becomes: skipped commands are left out, with their reason."""
    lines = []
    for command in commands(block):
        reason = _skipped(command, block.marker)
        lines.append(f": skipped, {reason!r}" if reason else command)
    return "\n".join(lines) + "\n"


def _skipped(command: str, marker: Marker) -> str | None:
    stripped = command.lstrip()
    for prefix, reason in marker.skip_commands:
        if stripped == prefix or stripped.startswith(prefix + " "):
            return reason
    return None


def load(block: Block) -> Any:
    """A YAML or JSON block as the tool reading it would parse it (YAML 1.2: `on` stays `on`)."""
    from ruamel.yaml import YAML

    if block.lang == "json":
        return json.loads(block.text)
    return YAML(typ="safe", pure=True).load(block.text)


def workflow_steps(workflow: Any) -> list[dict[str, Any]]:
    """Every step of a GitHub Actions workflow, after checking the shape GitHub requires."""
    assert isinstance(workflow, dict) and "on" in workflow, "a workflow needs `on:`"
    assert workflow.get("jobs"), "a workflow needs `jobs:`"
    found = []
    for name, job in workflow["jobs"].items():
        assert job.get("runs-on"), f"job {name} has no runs-on"
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), f"a step uses an action or runs: {step}"
            found.append(step)
    return found
