"""Import the rules of other agents' instruction files as learnings, keeping what they say.

Which files and how they are read is `curation.rulefiles`. Each rule becomes a draft
with its file's scope, its whole text (wrapped lines joined, sub-items in the body) and
its source as `file` evidence. Dry run by default; `--apply` creates them, skipping
near-duplicates of existing learnings and of earlier rules in the same import. Two
rules that name different commands or paths are never duplicates, however many words
they share (`pnpm --filter web run lint` is not `... run typecheck`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from orbit_learnings.core.errors import UsageError
from orbit_learnings.core.model import Evidence
from orbit_learnings.core.scope import Scope
from orbit_learnings.curation.rulefiles import (
    Skipped,
    file_scope,
    loose_front_matter,
    read_rules,
    split_front_matter,
)
from orbit_learnings.retrieval.similar import find_similar
from orbit_learnings.store import bundles as store
from orbit_learnings.store.workspace import Workspace

_SPECIFIC = re.compile(r"`([^`]+)`|(\S+/\S+)|(\S+\.[A-Za-z]{1,5})\b")


@dataclass
class Candidate:
    summary: str
    body: str
    paths: list[str]
    tags: list[str]
    source: str
    line: int
    duplicate_of: str | None = None
    created: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "summary": self.summary,
            "body": self.body,
            "paths": self.paths,
            "tags": self.tags,
            "source": f"{self.source}:{self.line}",
            "duplicate_of": self.duplicate_of,
            "created": self.created,
        }


@dataclass
class SourceFile:
    """What one file yields: its candidates and what was left out, and why."""

    display: str
    paths: list[str]
    candidates: list[Candidate] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.display,
            "paths": self.paths,
            "candidates": [c.to_dict() for c in self.candidates],
            "skipped": [{"line": s.line, "text": s.text, "reason": s.reason} for s in self.skipped],
        }


@dataclass
class ImportPlan:
    files: list[SourceFile] = field(default_factory=list)

    @property
    def candidates(self) -> list[Candidate]:
        return [c for f in self.files for c in f.candidates]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:30]


def parse_file(path: Path, display: str, root: str) -> SourceFile:
    """The candidates of one rule file of the repository at `root`: a file that links
    outside it, or is a FIFO or a device, is refused before it is read."""
    from orbit_learnings.store.fileops import read_repo_text
    from orbit_learnings.store.yamlio import YamlSyntaxError, safe_load  # strict first

    try:
        text = read_repo_text(path, within=root, name=display)
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise UsageError(f"cannot read {display}: {reason}") from None
    front, body, offset = split_front_matter(text)
    try:
        meta = safe_load(front) if front.strip() else {}
    except YamlSyntaxError:
        meta = loose_front_matter(front)
    paths = file_scope(display, meta if isinstance(meta, dict) else {})
    source = SourceFile(display, paths)
    rules, source.skipped = read_rules(body, offset + 1)
    for rule in rules:
        tags = ["imported", *([_slug(rule.heading)] if _slug(rule.heading) else [])]
        source.candidates.append(
            Candidate(rule.summary, rule.body, paths, tags, display, rule.line)
        )
    return source


def specifics(text: str) -> set[str]:
    """The commands, paths and file names a rule names."""
    return {next(g for g in m.groups() if g) for m in _SPECIFIC.finditer(text)}


def duplicate_of(ws: Workspace, candidate: Candidate) -> str | None:
    """An existing learning that says the same thing about the same specifics."""
    named = specifics(candidate.summary)
    for similar in find_similar(ws, candidate.summary):
        if specifics(similar.summary) == named:
            return similar.id
    return None


def plan_import(ws: Workspace, files: list[Path]) -> ImportPlan:
    plan = ImportPlan()
    for path in files:
        display = ws.relative(path)
        source = parse_file(path, display, ws.root_str)
        for candidate in source.candidates:
            candidate.duplicate_of = duplicate_of(ws, candidate)
        plan.files.append(source)
    return plan


def apply_plan(ws: Workspace, plan: ImportPlan) -> ImportPlan:
    from orbit_learnings.curation.branches.idrule import taken_on_target

    taken = taken_on_target(ws)
    for candidate in plan.candidates:
        if candidate.duplicate_of:
            continue
        candidate.duplicate_of = duplicate_of(ws, candidate)  # earlier imports count too
        if candidate.duplicate_of:
            continue
        learning = store.create_learning(
            ws,
            store.NewLearning(
                summary=candidate.summary,
                scope=Scope(candidate.paths, candidate.tags),
                body=candidate.body,
                evidence=[Evidence("file", f"{candidate.source}:{candidate.line}")],
            ),
            taken,
        )
        candidate.created = learning.id
    return plan
