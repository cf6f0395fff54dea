"""The anchor as `learning.yaml` stores it, and the `--anchor` forms a user types.

An anchor keeps the cited path and line range as written, plus what it takes to find
the lines again without the old text: a whitespace-free fingerprint of the whole block
(it survives re-indenting and re-wrapping) and one short hash per meaningful line (it
measures how much changed and where the lines went).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ANCHOR_KEYS = (
    "path",
    "lines",
    "symbol",
    "within",
    "recorded",
    "fingerprint",
    "line_hashes",
    "syntax",
)
MAX_ANCHOR_LINES = 300  # cite the function, not the file: longer ranges are refused
_LINES = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")
_HASH = re.compile(r"^[0-9a-f]{8}$")
_FINGERPRINT = re.compile(r"^[0-9a-f]{16}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


MAX_PATH_CHARS = 1024  # a cited file's path; file systems refuse longer ones anyway
MAX_NAME_BYTES = 255  # one folder or file name, as every common file system bounds it


def is_repository_path(path: str) -> bool:
    """Whether an anchor's path can only name a file inside the repository: relative, no
    `..` step out of it, no NUL, and short enough that the file system can look it up
    (a 300-character name once made `check --stale` exit with "File name too long")."""
    text = path.strip()
    if not text or text.startswith(("/", "\\")) or "\x00" in text or len(text) > MAX_PATH_CHARS:
        return False
    parts = text.replace("\\", "/").split("/")
    too_long = any(len(p.encode("utf-8", "replace")) > MAX_NAME_BYTES for p in parts)
    return ".." not in parts and not too_long


class Anchor:
    """One citation: `path` lines `start`-`end` (1-based, inclusive) as recorded on `recorded`."""

    __slots__ = (
        "end",
        "fingerprint",
        "line_hashes",
        "path",
        "recorded",
        "start",
        "symbol",
        "syntax",
        "within",
    )

    def __init__(
        self,
        path: str,
        start: int,
        end: int,
        *,
        fingerprint: str,
        line_hashes: tuple[str, ...],
        recorded: str,
        symbol: str | None = None,
        within: str | None = None,
        syntax: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.start = start
        self.end = end
        self.fingerprint = fingerprint
        self.line_hashes = line_hashes
        self.recorded = recorded
        self.symbol = symbol  # cited by name (`path::Name`): the definition wherever it is
        self.within = within  # the definition around cited lines: rewritten is not deleted
        self.syntax = syntax  # Python: one hash per cited statement's tree (see syntax.py)

    @property
    def lines(self) -> str:
        return str(self.start) if self.start == self.end else f"{self.start}-{self.end}"

    @property
    def cited(self) -> str:
        """`src/orders/service.py:120-140`, the form people read and type."""
        return f"{self.path}:{self.lines}"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "lines": self.lines}
        if self.symbol:
            data["symbol"] = self.symbol
        if self.within:
            data["within"] = self.within
        data["recorded"] = self.recorded
        data["fingerprint"] = self.fingerprint
        data["line_hashes"] = " ".join(self.line_hashes)
        if self.syntax:
            data["syntax"] = " ".join(self.syntax)
        return data

    @classmethod
    def stored(cls, data: Mapping[str, Any]) -> Anchor:
        """The inverse of `to_dict`, for what the index holds: it stores only anchors that
        passed `anchor_from_mapping`, so a push does not validate them again."""
        start, _, end = str(data["lines"]).partition("-")
        return cls(
            data["path"],
            int(start),
            int(end or start),
            fingerprint=data["fingerprint"],
            line_hashes=tuple(data["line_hashes"].split()),
            recorded=data["recorded"],
            symbol=data.get("symbol"),
            within=data.get("within"),
            syntax=tuple(str(data.get("syntax") or "").split()),
        )

    def moved_to(self, path: str, start: int, end: int) -> Anchor:
        """The same citation at a new place: the fingerprint and date are the recorded ones."""
        return Anchor(
            path,
            start,
            end,
            fingerprint=self.fingerprint,
            line_hashes=self.line_hashes,
            recorded=self.recorded,
            symbol=self.symbol,
            within=self.within,
            syntax=self.syntax,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Anchor) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.path, self.start, self.end, self.fingerprint))

    def __repr__(self) -> str:
        return f"Anchor({self.cited!r}, symbol={self.symbol!r})"


class AnchorRequest:
    """What `--anchor` asked for: a line range (`path:120-140`) or a symbol (`path::Name`)."""

    __slots__ = ("end", "path", "start", "symbol")

    def __init__(
        self, path: str, *, start: int = 0, end: int = 0, symbol: str | None = None
    ) -> None:
        self.path = path
        self.start = start
        self.end = end
        self.symbol = symbol


def parse_request(text: str) -> AnchorRequest:
    """`src/x.py:120-140`, `src/x.py:7` or `src/x.py::Class.method`; ValueError says why not."""
    raw = text.strip()
    if "::" in raw:
        path, _, symbol = raw.partition("::")
        if not path.strip() or not re.fullmatch(r"[A-Za-z_][\w.]*", symbol.strip()):
            raise ValueError(f"--anchor {text!r}: use PATH::Name or PATH::Class.method")
        return AnchorRequest(path.strip(), symbol=symbol.strip())
    path, sep, lines = raw.rpartition(":")
    if not sep or not path.strip():
        raise ValueError(f"--anchor {text!r}: use PATH:START-END (e.g. src/app.py:120-140)")
    start, end = parse_lines(lines, context=f"--anchor {text!r}")
    return AnchorRequest(path.strip(), start=start, end=end)


def parse_lines(value: object, *, context: str) -> tuple[int, int]:
    """`120-140` (or `120`, or the integer a YAML loader made of it) as (start, end)."""
    match = _LINES.match(str(value)) if not isinstance(value, bool) else None
    if match is None:
        raise ValueError(f"{context}: lines must look like 120-140 or 120")
    start = int(match.group(1))
    end = int(match.group(2) or start)
    if start < 1 or end < start:
        raise ValueError(f"{context}: lines must run forward from 1, got {value}")
    if end - start + 1 > MAX_ANCHOR_LINES:
        raise ValueError(f"{context}: an anchor cites at most {MAX_ANCHOR_LINES} lines")
    return start, end


def anchor_from_mapping(data: Any, where: str) -> tuple[Anchor | None, list[tuple[str, str]]]:
    """Validate one stored anchor; the problems are (key, message) pairs."""
    if not isinstance(data, Mapping):
        return None, [("", f"{where} must be a mapping with path, lines and fingerprint")]
    problems: list[tuple[str, str]] = []
    path = data.get("path")
    if not isinstance(path, str) or not is_repository_path(path):
        problems.append(("path", f"{where}.path must be a repository-relative file path"))
    try:
        start, end = parse_lines(data.get("lines"), context=f"{where}.lines")
    except ValueError as exc:
        problems.append(("lines", str(exc)))
        start = end = 0
    fingerprint = data.get("fingerprint")
    if not isinstance(fingerprint, str) or not _FINGERPRINT.match(fingerprint):
        problems.append(("fingerprint", f"{where}.fingerprint must be 16 hex digits"))
    hash_list = _hash_list(
        data.get("line_hashes", ""), f"{where}.line_hashes", problems, key="line_hashes"
    )
    syntax = _hash_list(data.get("syntax", ""), f"{where}.syntax", problems, key="syntax")
    recorded = data.get("recorded")
    if isinstance(recorded, date):
        recorded = recorded.isoformat()  # YAML reads an unquoted 2026-10-02 as a date
    if not isinstance(recorded, str) or not _DATE.match(recorded):
        problems.append(("recorded", f"{where}.recorded must be a date like 2026-10-02"))
    symbol, within = data.get("symbol"), data.get("within")
    for key, value in (("symbol", symbol), ("within", within)):
        if value is not None and not isinstance(value, str):
            problems.append((key, f"{where}.{key} must be a name like Class.method"))
    if problems:
        return None, problems
    return (
        Anchor(
            str(path).strip(),
            start,
            end,
            fingerprint=str(fingerprint),
            line_hashes=hash_list,
            recorded=str(recorded),
            symbol=symbol,
            within=within,
            syntax=syntax,
        ),
        [],
    )


def _hash_list(
    value: Any, where: str, problems: list[tuple[str, str]], *, key: str
) -> tuple[str, ...]:
    """Space-separated 8-hex-digit hashes, at most one a cited line; a problem otherwise."""
    hashes = tuple(value.split()) if isinstance(value, str) else ()
    if not isinstance(value, str) or not all(_HASH.match(h) for h in hashes):
        problems.append((key, f"{where} must be 8-hex-digit hashes"))
    elif len(hashes) > MAX_ANCHOR_LINES:
        problems.append((key, f"{where} holds {len(hashes)} hashes; at most {MAX_ANCHOR_LINES}"))
    return hashes
