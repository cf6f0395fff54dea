"""Context for a task: the learnings most relevant to a description and its files.

The same selection as every push layer (`retrieval.tasks`): scope specificity
first, then how well the description matches, weak candidates left out; the
block fits a token budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


BEGIN = "<!-- orbit-learnings:context (replaced by the next `orbit learning context --inject`) -->"
END = "<!-- orbit-learnings:context:end -->"


def inject_into(path: Path, block: str) -> str:
    """Put the block into the file between orbit's markers, keeping everything else:
    the markers' old block is replaced, else the block goes on top (a prompt's prefix);
    a missing file is created. What it did: "created", "replaced" or "added".

    `--inject FILE` once replaced the whole file, task text and all, without a word."""
    from orbit_learnings.store.fileops import read_repo_text, write_repo_text

    within = str(path.parent)
    section = f"{BEGIN}\n{block.rstrip()}\n{END}\n"
    try:  # through a link only inside its folder; never a FIFO or a device
        text = read_repo_text(path, within=within, name=str(path))
    except FileNotFoundError:
        text, done = section, "created"
    else:
        start, end = text.find(BEGIN), text.find(END, max(text.find(BEGIN), 0))
        if 0 <= start < end:
            tail = text[end + len(END) :].removeprefix("\n")
            text, done = text[:start] + section + tail, "replaced"
        else:
            text, done = section + ("\n" + text if text else ""), "added"
    write_repo_text(path, text, within=within, name=str(path))
    return done
