"""The learning record and its validation. Pure: no I/O, no YAML library.

Validation works on the plain data a YAML safe-load returns, and reports every
problem with the key path it concerns so callers can translate it to `file:line`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from orbit_learnings.core.anchors.record import ANCHOR_KEYS, Anchor, anchor_from_mapping
from orbit_learnings.core.ids import EXAMPLE_ID, STATUSES, is_learning_id
from orbit_learnings.core.timestamps import normalise_ts

SCHEMA_VERSION = 1
# session: capture; learning: where a promoted org learning came from (`payments-api:L-0042`)
EVIDENCE_KINDS = ("task", "commit", "pr", "issue", "url", "file", "session", "learning")
KNOWN_KEYS = (
    "id",
    "schemaVersion",
    "status",
    "created_at",
    "updated_at",
    "created_by",
    "scope",
    "summary",
    "body",
    "evidence",
    "supersedes",
    "superseded_by",
    "priority",
    "anchors",
    "archived_reason",
)
SCOPE_KEYS = ("paths", "tags", "repos")
EVIDENCE_KEYS = ("kind", "ref")
# Keys under this prefix are the reader's own (a team's tooling, a newer orbit's experiment):
# kept byte for byte and never reported. Any other unknown key is a typo until proven otherwise.
EXTENSION_PREFIX = "x-"


# A ranking boost needs a handful of levels; the bound keeps every value inside SQLite's
# 64-bit INTEGER, so one record's `priority: 9223372036854775808` cannot stop the index.
PRIORITY_LIMIT = 1000
# A summary is one line a list prints and an agent reads first; a tag is a word or two.
# Every reader refuses more, and every writer validates what it writes, so no door (the
# CLI, the page, MCP, an import) can store what a reader would then refuse. The body is
# bounded by the file itself (`store.fileops.MAX_FILE_BYTES`).
MAX_SUMMARY_CHARS = 1000
MAX_TAG_CHARS = 100


@dataclass(frozen=True)
class Evidence:
    kind: str
    ref: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "ref": self.ref}


@dataclass(frozen=True)
class Learning:
    """A validated learning, with timestamps in canonical `Z` form."""

    id: str
    status: str
    created_at: str
    updated_at: str
    summary: str
    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    body: str = ""
    created_by: str | None = None
    evidence: tuple[Evidence, ...] = ()
    supersedes: str | None = None
    superseded_by: str | None = None
    priority: int = 0
    anchors: tuple[Anchor, ...] = ()
    archived_reason: str | None = None  # why `archive --reason` retired it
    extra: Mapping[str, Any] = field(default_factory=dict)
    repos: tuple[str, ...] = ()  # scope.repos: the repositories an org learning applies in

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "schemaVersion": SCHEMA_VERSION,
            "status": self.status,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "created_by": self.created_by,
            "scope": {"paths": list(self.paths), "tags": list(self.tags)}
            | ({"repos": list(self.repos)} if self.repos else {}),
            "summary": self.summary,
            "body": self.body,
            "evidence": [e.to_dict() for e in self.evidence],
            "supersedes": self.supersedes,
            "superseded_by": self.superseded_by,
            "priority": self.priority,
        } | (
            ({"anchors": [a.to_dict() for a in self.anchors]} if self.anchors else {})
            | ({"archived_reason": self.archived_reason} if self.archived_reason else {})
        )


@dataclass(frozen=True)
class FieldProblem:
    """A schema problem at a key path such as ("scope", "paths", 2)."""

    key_path: tuple[str | int, ...]
    message: str
    kind: str = "schema"


class SchemaError(Exception):
    def __init__(self, problems: list[FieldProblem]) -> None:
        super().__init__("; ".join(p.message for p in problems))
        self.problems = problems


def parse_evidence(text: str) -> Evidence:
    """Parse the CLI form `task=T-1`, `commit=abc123`, `pr=412`, `url=https://...`."""
    kind, sep, ref = text.partition("=")
    kind, ref = kind.strip().lower(), ref.strip()
    if not sep or kind not in EVIDENCE_KINDS or not ref:
        kinds = "|".join(EVIDENCE_KINDS)
        raise ValueError(f"evidence must look like KIND=REF with KIND one of {kinds}, got {text!r}")
    return Evidence(kind, ref)


def validate(data: Any, folder_id: str | None = None) -> Learning:
    """Check a loaded document against schema version 1; raise SchemaError listing all issues."""
    checker = _Checker()
    if not isinstance(data, Mapping):
        raise SchemaError([FieldProblem((), "a learning must be a YAML mapping")])
    checker.unknown_keys(data, KNOWN_KEYS, ())
    learning_id = _checked_id(checker, data, folder_id)
    if data.get("schemaVersion") != SCHEMA_VERSION:
        checker.add(("schemaVersion",), f"schemaVersion must be {SCHEMA_VERSION}")
    status = checker.string(data, "status", required=True)
    if status and status not in STATUSES:
        checker.add(("status",), f"status must be one of {', '.join(STATUSES)}, got {status!r}")
    created_at = checker.timestamp(data, "created_at")
    updated_at = checker.timestamp(data, "updated_at")
    summary = checker.string(data, "summary", required=True)
    if summary is not None and not summary.strip():
        checker.add(("summary",), "summary must not be empty")
    elif summary is not None and len(summary) > MAX_SUMMARY_CHARS:
        checker.add(
            ("summary",),
            f"summary is {len(summary)} characters; at most {MAX_SUMMARY_CHARS}"
            " (the body holds more)",
        )
    anchors = checker.anchors(data.get("anchors"))
    paths, tags = checker.scope(data.get("scope"), anchored=bool(data.get("anchors")))
    repos = checker.repos(data.get("scope"))
    evidence = checker.evidence(data.get("evidence"))
    priority = checker.priority(data.get("priority", 0))
    supersedes = checker.link(data, "supersedes")
    superseded_by = checker.link(data, "superseded_by")
    body = checker.string(data, "body") or ""
    created_by = checker.string(data, "created_by")
    archived_reason = checker.string(data, "archived_reason")
    if checker.problems:
        raise SchemaError(checker.problems)
    return Learning(
        id=str(learning_id),
        status=str(status),
        created_at=str(created_at),
        updated_at=str(updated_at),
        summary=" ".join(str(summary).split()),
        paths=paths,
        tags=tags,
        body=body,
        created_by=created_by,
        evidence=evidence,
        supersedes=supersedes,
        superseded_by=superseded_by,
        priority=priority,
        anchors=anchors,
        archived_reason=archived_reason,
        repos=repos,
        extra={k: v for k, v in data.items() if k not in KNOWN_KEYS},
    )


def _checked_id(checker: _Checker, data: Mapping[str, Any], folder_id: str | None) -> str | None:
    """The record's `id`, checked for its form and against the folder that holds it."""
    learning_id = checker.string(data, "id", required=True)
    if learning_id and not is_learning_id(learning_id):
        checker.add(("id",), f"id {learning_id!r} is not of the form {EXAMPLE_ID}")
    if learning_id and folder_id and learning_id != folder_id:
        mismatch = f"id {learning_id} disagrees with its folder {folder_id}"
        checker.problems.append(FieldProblem(("id",), mismatch, "id-mismatch"))
    return learning_id


class _Checker:
    """Collects problems instead of stopping at the first, so one run reports them all."""

    def __init__(self) -> None:
        self.problems: list[FieldProblem] = []

    def add(self, key_path: tuple[str | int, ...], message: str) -> None:
        self.problems.append(FieldProblem(key_path, message))

    def unknown_keys(
        self, data: Mapping[Any, Any], known: tuple[str, ...], where: tuple[str | int, ...]
    ) -> None:
        """A misspelt key (`path:` for `paths:`) would silently drop what it holds."""
        for key in data:
            if isinstance(key, str) and key.startswith(EXTENSION_PREFIX):
                continue
            if key not in known:
                self.add((*where, str(key)), _unknown_key_message(key, known, where))

    def string(self, data: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
        value = data.get(key)
        if value is None:
            if required:
                self.add((key,), f"missing required field {key!r}")
            return None
        if not isinstance(value, str):
            self.add((key,), f"{key} must be a string")
            return None
        return value

    def priority(self, value: Any) -> int:
        if value is None:
            return 0
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(("priority",), "priority must be an integer")
            return 0
        if abs(value) > PRIORITY_LIMIT:
            self.add(
                ("priority",), f"priority must be between -{PRIORITY_LIMIT} and {PRIORITY_LIMIT}"
            )
            return 0
        return value

    def timestamp(self, data: Mapping[str, Any], key: str) -> str | None:
        value = data.get(key)
        if value is None:
            self.add((key,), f"missing required field {key!r}")
            return None
        try:
            return normalise_ts(value)
        except ValueError:
            self.add((key,), f"{key} must be an ISO 8601 timestamp like 2026-05-09T18:00:00Z")
            return None

    def link(self, data: Mapping[str, Any], key: str) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not is_learning_id(value):
            self.add((key,), f"{key} must be a learning id like {EXAMPLE_ID} or null")
            return None
        return value

    def scope(self, scope: Any, *, anchored: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """An anchor's path is scope too, so an anchored learning may name no glob or tag."""
        if not isinstance(scope, Mapping):
            self.add(("scope",), "scope must be a mapping with paths and/or tags")
            return (), ()
        self.unknown_keys(scope, SCOPE_KEYS, ("scope",))
        paths = self.string_list(scope, "paths")
        tags = self.string_list(scope, "tags")
        if not paths and not tags and not anchored:
            self.add(("scope",), "scope needs at least one path glob or tag")
        return paths, tags

    def repos(self, scope: Any) -> tuple[str, ...]:
        """`scope.repos`: repository-name globs; one that is not a glob is refused."""
        if not isinstance(scope, Mapping):
            return ()
        from orbit_learnings.core.scope import repo_glob_problem

        globs = self.string_list(scope, "repos")
        for position, glob in enumerate(globs):
            problem = repo_glob_problem(glob)
            if problem:
                self.add(
                    ("scope", "repos", position), f"scope.repos[{position}] {glob!r} {problem}"
                )
        return globs

    def string_list(self, scope: Mapping[str, Any], key: str) -> tuple[str, ...]:
        values = scope.get(key) or []
        if not isinstance(values, list):
            self.add(("scope", key), f"scope.{key} must be a list of strings")
            return ()
        good: list[str] = []
        for position, value in enumerate(values):
            if not isinstance(value, str) or not value.strip():
                self.add(
                    ("scope", key, position), f"scope.{key}[{position}] must be a non-empty string"
                )
            elif key == "tags" and len(value.strip()) > MAX_TAG_CHARS:
                self.add(
                    ("scope", key, position),
                    f"scope.tags[{position}] is longer than {MAX_TAG_CHARS} characters",
                )
            else:
                good.append(value.strip())
        return tuple(good)

    def evidence(self, values: Any) -> tuple[Evidence, ...]:
        if values is None:
            return ()
        if not isinstance(values, list):
            self.add(("evidence",), "evidence must be a list of {kind, ref}")
            return ()
        items: list[Evidence] = []
        for position, item in enumerate(values):
            if isinstance(item, Mapping):
                self.unknown_keys(item, EVIDENCE_KEYS, ("evidence", position))
            kind = item.get("kind") if isinstance(item, Mapping) else None
            ref = item.get("ref") if isinstance(item, Mapping) else None
            if kind not in EVIDENCE_KINDS or not isinstance(ref, str | int) or not str(ref).strip():
                kinds = "|".join(EVIDENCE_KINDS)
                self.add(("evidence", position), f"evidence items need kind: {kinds} and a ref")
                continue
            items.append(Evidence(str(kind), str(ref)))
        return tuple(items)

    def anchors(self, values: Any) -> tuple[Anchor, ...]:
        if values is None:
            return ()
        if not isinstance(values, list):
            self.add(("anchors",), "anchors must be a list of {path, lines, fingerprint, ...}")
            return ()
        found: list[Anchor] = []
        for position, item in enumerate(values):
            if isinstance(item, Mapping):
                self.unknown_keys(item, ANCHOR_KEYS, ("anchors", position))
            anchor, problems = anchor_from_mapping(item, f"anchors[{position}]")
            for key, message in problems:
                self.add(("anchors", position, key) if key else ("anchors", position), message)
            if anchor is not None:
                found.append(anchor)
        return tuple(found)


def _unknown_key_message(key: object, known: tuple[str, ...], where: tuple[str | int, ...]) -> str:
    import difflib

    place = ".".join(str(part) for part in where if isinstance(part, str))
    spelled = f"{place}.{key}" if place else str(key)
    meant = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
    if meant:
        return f"unknown key {spelled!r}; did you mean {meant[0]!r}?"
    own = f"name your own keys {EXTENSION_PREFIX}..." if not where else ""
    return f"unknown key {spelled!r} (known: {', '.join(known)}){'; ' + own if own else ''}"
