"""Context for a task: the learnings most relevant to a description and its files.

The same selection as every push layer (`retrieval.tasks`): scope specificity
first, then how well the description matches, weak candidates left out; the
block fits a token budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from orbit_learnings.core.results import Hit
from orbit_learnings.core.scope import EMPTY, Scope
from orbit_learnings.push import inject
from orbit_learnings.retrieval import tasks
from orbit_learnings.store.workspace import Workspace


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
    chosen = tasks.shortlist(tasks.rank_for_task(ws, scope, text))[:limit]
    if max_tokens is not None:
        while chosen and inject.estimate_tokens(inject.format_markdown(chosen)) > max_tokens:
            chosen.pop()
    block = inject.format_markdown(chosen)
    return TaskContext(chosen, block, inject.estimate_tokens(block))
