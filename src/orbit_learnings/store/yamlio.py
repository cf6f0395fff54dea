"""YAML in two speeds: a fast safe loader for reading, round-trip for editing.

Index rebuilds read thousands of files, so they use libyaml when available.
Edits go through ruamel's round-trip mode so comments, key order, quoting and
unknown keys in a hand-edited file survive byte-for-byte outside changed keys.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from orbit_learnings.core.errors import Problem, UsageError
from orbit_learnings.core.timestamps import format_ts

_FastLoader: type | None
try:  # libyaml via the `ruamel.yaml[libyaml]` extra; ~10x faster than pure Python
    from ruamel.yaml.cyaml import CSafeLoader as _FastLoader
except ImportError:  # pragma: no cover - depends on the platform's wheels
    _FastLoader = None


class YamlSyntaxError(Exception):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _refuse_bombs(text: str) -> None:
    """Walk the parse events (no objects built) for aliases and runaway nesting."""
    from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent

    depth = 0
    try:
        for event in _events(text):
            if isinstance(event, AliasEvent):
                line = event.start_mark.line + 1 if event.start_mark else 1
                raise YamlSyntaxError("YAML aliases (*name) are not allowed in learnings", line)
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    line = event.start_mark.line + 1 if event.start_mark else 1
                    raise YamlSyntaxError(f"nested more than {MAX_DEPTH} levels deep", line)
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except YAMLError as exc:
        raise YamlSyntaxError(_describe(exc), _error_line(exc)) from None


def _events(text: str) -> Iterator[Any]:
    """Parse events from libyaml when present: `YAML.parse` runs the pure-Python scanner
    even then, which made every index build three times slower."""
    if _FastLoader is None:
        yield from YAML(typ="safe", pure=True).parse(text)
        return
    loader = _FastLoader(text)
    try:
        while loader.check_event():
            yield loader.get_event()
    finally:
        loader.dispose()


def _error_line(exc: YAMLError) -> int:
    if isinstance(exc, MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        if mark is not None:
            return int(mark.line) + 1
    return 1


def _describe(exc: YAMLError) -> str:
    if isinstance(exc, MarkedYAMLError):
        return f"invalid YAML: {exc.problem or exc.context or 'syntax error'}"
    return "invalid YAML"


MAX_DEPTH = 32  # a learning nests three levels deep; far more is an attack or an accident


def _collection_starts_at_most(text: str) -> int:
    """An upper bound on how deep `text` can nest: every collection opens with `[`, `{`,
    a `-` entry or a `:`/`?` key. A typical learning stays under the bound, so its
    extra event walk (a tenth of an index build) is skipped."""
    return sum(text.count(c) for c in "[{-:?")


def safe_load(text: str) -> Any:
    """Plain data (dicts, lists, str, datetime); raises YamlSyntaxError with a line number.

    Aliases are refused and nesting is bounded before anything is built: a few hundred
    bytes of nested aliases expand to gigabytes ("billion laughs"), and learnings come
    from pull requests anyone can open.
    """
    if "&" in text or _collection_starts_at_most(text) > MAX_DEPTH:
        _refuse_bombs(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ruamel's YAML 1.1 float notes are not the user's
            return _load(text)
    except YAMLError as exc:
        raise YamlSyntaxError(_describe(exc), _error_line(exc)) from None
    except (ValueError, OverflowError) as exc:  # a well-formed scalar that is no value: 2026-13-45
        raise YamlSyntaxError(f"invalid value: {exc}", 1) from None


def _load(text: str) -> Any:
    if _FastLoader is not None:
        loader = _FastLoader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    return YAML(typ="safe", pure=True).load(text)


def _round_trip(indent: int = 2, block_seq_indent: int = 2) -> YAML:
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=indent, sequence=indent + block_seq_indent, offset=block_seq_indent)
    yaml.representer.add_representer(TimestampText, _represent_timestamp)
    yaml.representer.add_representer(type(None), _represent_null)
    return yaml


class TimestampText(str):
    """A `Z` timestamp written unquoted, so the file reads `2026-05-09T18:00:00Z`."""


def _represent_timestamp(representer: Any, data: TimestampText) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:timestamp", str(data))


def _represent_null(representer: Any, data: None) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def timestamp_value(value: datetime | str) -> TimestampText:
    return TimestampText(format_ts(value) if isinstance(value, datetime) else value)


class SurgicalEditor:
    """Edit a YAML document by replacing only the lines of the keys that change.

    ruamel's round-trip dump re-indents a whole file to one indentation style,
    which would turn a one-key edit of a hand-written file into a noisy diff.
    Here each changed key's block is re-rendered in place and every other byte
    of the file stays as it was.
    """

    def __init__(self, text: str) -> None:
        self.text = text if text.endswith("\n") or not text else text + "\n"
        self._parse()

    def _parse(self) -> None:
        try:
            self.doc = YAML().load(self.text)
        except YAMLError as exc:
            raise YamlSyntaxError(_describe(exc), _error_line(exc)) from None
        self.lines = self.text.splitlines(keepends=True)

    def set(self, key_path: tuple[str, ...], value: Any, after: str | None = None) -> None:
        """Set a (possibly nested) key to a plain value, inserting it after `after` if new."""
        refuse_undecodable(value, key_path[-1])
        parent = self._node(key_path[:-1])
        key = key_path[-1]
        if parent is None or not hasattr(parent, "lc"):
            raise ValueError("cannot edit this document surgically")
        if _is_flow(parent) and key_path[:-1]:
            merged = {**_plain(parent), key: value}
            self.set(key_path[:-1], merged)
            return
        if key in parent:
            start, end = self._span(key_path)
            column = parent.lc.key(key)[1]
            self._splice(start, end, _render_block(key, value, column))
        else:
            column = parent.lc.key(next(iter(parent)))[1] if len(parent) else 0
            sibling = after if after in parent else None
            position = (
                self._span((*key_path[:-1], sibling))[1] if sibling else self._end_of(key_path[:-1])
            )
            self._splice(position, position, _render_block(key, value, column))
        self._parse()

    def block(self, key: str) -> str:
        """The lines of a top-level key and its value, exactly as written ("" when absent)."""
        if key not in self.doc:
            return ""
        start, end = self._span((key,))
        return "".join(self.lines[start:end])

    def line_span(self, key: str) -> tuple[int, int]:
        """Lines [start, end) of a top-level key (an empty span at the end when absent)."""
        end = self._document_end()
        return self._span((key,)) if key in self.doc else (end, end)

    def put_block(self, key: str, block: str) -> None:
        """Replace a top-level key's lines with `block` (another file's lines for that key),
        appending it when the key is new and removing the key when `block` is empty."""
        lines = block.splitlines(keepends=True)
        if key in self.doc:
            start, end = self._span((key,))
            self._splice(start, end, lines)
        else:
            self._splice(self._document_end(), self._document_end(), lines)
        self._parse()

    def _node(self, key_path: tuple[str, ...]) -> Any:
        node = self.doc
        for key in key_path:
            node = node.get(key) if hasattr(node, "get") else None
        return node

    def _end_of(self, key_path: tuple[str, ...]) -> int:
        if not key_path:
            return self._document_end()
        return self._span(key_path)[1]

    def _document_end(self) -> int:
        """The line of a `...` document end marker (what follows it is a new document:
        a key goes before it), else the end of the file."""
        for number, line in enumerate(self.lines):
            if line.rstrip() == "...":
                return number
        return len(self.lines)

    def _span(self, key_path: tuple[str, ...]) -> tuple[int, int]:
        """Lines [start, end) holding a key and its value, without trailing blanks/comments."""
        parent = self._node(key_path[:-1])
        key = key_path[-1]
        keys = list(parent.keys())
        start, column = parent.lc.key(key)
        position = keys.index(key)
        if position + 1 < len(keys):
            end = parent.lc.key(keys[position + 1])[0]
        else:
            end = self._end_of(key_path[:-1])
        while end > start + 1 and _is_trailer(self.lines[end - 1], column):
            end -= 1
        return start, end

    def _splice(self, start: int, end: int, block: list[str]) -> None:
        self.lines[start:end] = block
        self.text = "".join(self.lines)


def _is_flow(node: Any) -> bool:
    return bool(getattr(getattr(node, "fa", None), "flow_style", lambda: False)())


def _plain(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def _is_trailer(line: str, column: int) -> bool:
    stripped = line.strip()
    if not stripped:
        return True
    return stripped.startswith("#") and (len(line) - len(line.lstrip(" "))) <= column


def _render_block(key: str, value: Any, column: int) -> list[str]:
    out = io.StringIO()
    _round_trip().dump({key: value}, out)
    pad = " " * column
    return [
        pad + line if line.strip() else line for line in out.getvalue().splitlines(keepends=True)
    ]


def refuse_undecodable(value: Any, key: str) -> None:
    """Learnings are UTF-8 text. A byte that is not (an argument typed in a Latin-1
    terminal reaches Python as a surrogate escape) would be written as an escape YAML
    cannot read back: refused here, by the field it is in, before anything is written."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            shown = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            raise UsageError(f"{key}: '{shown}' is not UTF-8 text") from None
    elif isinstance(value, dict):
        for inner_key, inner in value.items():
            refuse_undecodable(inner, str(inner_key))
    elif isinstance(value, list | tuple):
        for inner in value:
            refuse_undecodable(inner, key)


def dump_new(data: dict[str, Any]) -> str:
    """Render a fresh learning in the house style (2-space maps, indented lists)."""
    refuse_undecodable(data, "learning")
    out = io.StringIO()
    _round_trip().dump(data, out)
    return out.getvalue()


def line_of(text: str, key_path: tuple[str | int, ...]) -> int:
    """Best-effort 1-based line of a key path, for `file:line` problem reports."""
    if not key_path:
        return 1
    try:
        node: Any = YAML().load(text)
    except YAMLError:
        return 1
    line = 1
    for key in key_path:
        try:
            if isinstance(key, int):
                line = node.lc.item(key)[0] + 1
            elif key in node:
                line = node.lc.key(key)[0] + 1
            else:
                return line
            node = node[key]
        except (AttributeError, KeyError, IndexError, TypeError):
            return line
    return line


def line_containing(text: str, needle: str) -> int:
    """The 1-based line where `needle` first appears (1 if nowhere): where a problem with
    a value, such as a glob that does not compile, is reported."""
    return next((n for n, line in enumerate(text.splitlines(), 1) if needle in line), 1)


# --- git conflict markers ---------------------------------------------------------
# Two kinds reach a `learning.yaml`: the merge driver's, labelled with the one field both
# branches changed differently (keep one value), and git's own around a whole file, which
# means two learnings were added under one ID (`resolve-conflict` splits them).

FIELD_CONFLICT = "(orbit: "  # the merge driver's label: one field changed on both branches


def conflict_problems(text: str, folder_id: str | None, display_path: str) -> list[Problem]:
    """One problem per conflict: a field the merge driver could not merge names itself;
    anything else is two learnings under one ID, which `resolve-conflict` splits."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("<<<<<<<"):
            continue
        if FIELD_CONFLICT in line:
            field = line.split(FIELD_CONFLICT, 1)[1].split(" ", 1)[0]
            message = (
                f"{field} of {folder_id or 'this learning'} was changed differently on both "
                "branches; keep one value and delete the conflict markers"
            )
        else:
            fix = f"orbit learning resolve-conflict {folder_id}" if folder_id else "fix it by hand"
            message = f"git conflict markers in {folder_id or 'learning file'}; run `{fix}`"
        problems.append(Problem(display_path, number, message, folder_id, "conflict"))
    return problems


def has_conflict_markers(text: str) -> bool:
    lines = text.splitlines()
    return any(ln.startswith("<<<<<<<") for ln in lines) and any(
        ln.startswith(">>>>>>>") for ln in lines
    )
