"""Context for a task: the learnings most relevant to a description and its files.

Combines text relevance (the search score) with scope matches: a path match
adds 0.5 and a tag match 0.3, so a learning that is both about the words and
about the files comes first. The block fits a token budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from orbit_learnings.core.results import Hit
from orbit_learnings.core.scope import EMPTY, Scope
from orbit_learnings.push import inject
from orbit_learnings.retrieval import queries
from orbit_learnings.store.workspace import Workspace

PATH_BONUS, TAG_BONUS = 0.5, 0.3
MIN_TEXT_SCORE = 0.45  # below this a text-only match is noise (one common word)


@dataclass
class TaskContext:
    hits: list[Hit]
    block: str
    tokens: int

    def to_dict(self) -> dict[str, object]:
        return {
            "learnings": [
                {**inject.hit_summary(h), "score": round(h.score or 0.0, 6)} for h in self.hits
            ],
            "tokens": self.tokens,
        }


def build(
    ws: Workspace,
    text: str,
    scope: Scope = EMPTY,
    *,
    limit: int = 5,
    max_tokens: int | None = None,
) -> TaskContext:
    by_id: dict[str, Hit] = {}
    for hit in queries.search_text(ws, text, limit=50).hits if text.strip() else []:
        if (hit.score or 0.0) >= MIN_TEXT_SCORE:
            by_id[hit.id] = hit
    if scope:
        for hit in queries.list_learnings(ws, scope).hits:
            bonus = (PATH_BONUS if any(m.startswith("path:") for m in hit.matched_by) else 0.0) + (
                TAG_BONUS if any(m.startswith("tag:") for m in hit.matched_by) else 0.0
            )
            known = by_id.get(hit.id)
            if known is None:
                hit.score = bonus
                by_id[hit.id] = hit
            else:
                known.score = (known.score or 0.0) + bonus
                known.matched_by = [*known.matched_by, *hit.matched_by]
    ranked = sorted(by_id.values(), key=lambda h: h.id)
    ranked.sort(key=lambda h: h.score or 0.0, reverse=True)
    chosen = ranked[:limit]
    if max_tokens is not None:
        while chosen and inject.estimate_tokens(inject.format_markdown(chosen)) > max_tokens:
            chosen.pop()
    block = inject.format_markdown(chosen)
    return TaskContext(chosen, block, inject.estimate_tokens(block))
