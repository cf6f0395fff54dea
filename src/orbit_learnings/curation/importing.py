"""Import bullet points from other agents' instruction files as draft learnings.

Reads CLAUDE.md / AGENTS.md (bullets under headings; the heading becomes a tag),
`.cursor/rules/*.mdc` (front matter `globs:` becomes the path scope) and
`.github/instructions/*.instructions.md` (`applyTo:`). Dry run by default;
`--apply` creates them, skipping near-duplicates of existing learnings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from orbit_learnings.core.errors import UsageError
from orbit_learnings.core.scope import Scope
from orbit_learnings.retrieval.similar import find_similar
from orbit_learnings.store import bundles as store
from orbit_learnings.store.workspace import Workspace

_BULLET = re.compile(r"^\s{0,3}[-*+]\s+(?!\[[ xX]\])(.+?)\s*$")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
MIN_WORDS = 4


@dataclass
class Candidate:
    summary: str
    paths: list[str]
    tags: list[str]
    source: str
    line: int
    duplicate_of: str | None = None
    created: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "summary": self.summary,
            "paths": self.paths,
            "tags": self.tags,
            "source": f"{self.source}:{self.line}",
            "duplicate_of": self.duplicate_of,
            "created": self.created,
        }


@dataclass
class ImportPlan:
    candidates: list[Candidate] = field(default_factory=list)


def _front_matter(text: str) -> tuple[dict[str, str], str, int]:
    if not text.startswith("---"):
        return {}, text, 0
    end = text.find("\n---", 3)
    if end == -1:
        return {}, text, 0
    meta: dict[str, str] = {}
    for line in text[3:end].strip().splitlines():
        key, sep, value = line.partition(":")
        if sep:
            meta[key.strip()] = value.strip().strip("'\"")
    body_start = text.find("\n", end + 1) + 1
    return meta, text[body_start:], text[:body_start].count("\n")


def _globs(value: str) -> list[str]:
    value = value.strip().strip("[]")
    return [g.strip().strip("'\"") for g in value.split(",") if g.strip().strip("'\"")]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:30] or "imported"


def parse_file(path: Path, display: str) -> list[Candidate]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {display}: {exc.strerror}") from None
    meta, body, offset = _front_matter(text)
    paths: list[str] = []
    if path.name.endswith(".mdc"):
        paths = _globs(meta.get("globs", ""))
    elif path.name.endswith(".instructions.md"):
        paths = [g for g in _globs(meta.get("applyTo", "")) if g not in ("**", "**/*")]
    candidates = []
    heading = path.stem.split(".")[0]
    for number, line in enumerate(body.splitlines(), start=offset + 1):
        head = _HEADING.match(line)
        if head:
            heading = head.group(1)
            continue
        bullet = _BULLET.match(line)
        if not bullet:
            continue
        summary = re.sub(r"\s+", " ", bullet.group(1)).strip()
        if len(summary.split()) < MIN_WORDS:
            continue
        tags = ["imported"] if paths else ["imported", _slug(heading)]
        candidates.append(Candidate(summary, paths, tags, display, number))
    return candidates


def plan_import(ws: Workspace, files: list[Path]) -> ImportPlan:
    plan = ImportPlan()
    for path in files:
        for candidate in parse_file(path, ws.relative(path) if path.is_absolute() else str(path)):
            similar = find_similar(ws, candidate.summary)
            candidate.duplicate_of = similar[0].id if similar else None
            plan.candidates.append(candidate)
    return plan


def apply_plan(ws: Workspace, plan: ImportPlan) -> ImportPlan:
    for candidate in plan.candidates:
        if candidate.duplicate_of:
            continue
        similar = find_similar(ws, candidate.summary)  # earlier imports count too
        if similar:
            candidate.duplicate_of = similar[0].id
            continue
        learning = store.create_learning(
            ws,
            store.NewLearning(
                summary=candidate.summary,
                scope=Scope(candidate.paths, candidate.tags),
                body=f"Imported from {candidate.source}:{candidate.line}.",
            ),
        )
        candidate.created = learning.id
    return plan
