"""Adding a learning: the near-duplicate policy first, then the store's plain write.

The store writes what it is given; whether a second copy of a lesson is welcome is
a retrieval question (does the store already say this?), asked here, once, for
every way a learning arrives: `add`, the MCP tool, accepted drafts.
"""

from __future__ import annotations

from orbit_learnings.core.errors import DuplicateSuspected
from orbit_learnings.core.model import Learning
from orbit_learnings.retrieval.similar import Similar, find_similar
from orbit_learnings.store import bundles
from orbit_learnings.store.workspace import Workspace


class Added:
    """The new learning and the near-duplicates it was added beside (with `force`)."""

    __slots__ = ("learning", "similar")

    def __init__(self, learning: Learning, similar: list[Similar]) -> None:
        self.learning = learning
        self.similar = similar


def add_learning(ws: Workspace, new: bundles.NewLearning, *, force: bool = False) -> Added:
    """Refuse a near-duplicate of an active learning unless forced, then write it."""
    # a clean refusal before any search
    bundles.check_content(new.summary, new.scope, anchored=bool(new.anchors))
    similar = find_similar(ws, new.summary)
    if similar and not force:
        best = similar[0]
        raise DuplicateSuspected(
            f"{best.id} already says this ({best.summary!r}, similarity {best.similarity:.2f}); "
            f"upvote it instead (`orbit learning upvote {best.id} --model M --task T`) "
            "or pass --force to add anyway",
            [s.to_dict() for s in similar],
        )
    from orbit_learnings.curation.branches.idrule import taken_on_target

    # never an ID the target branch already has: it would collide at the merge
    return Added(bundles.create_learning(ws, new, taken_on_target(ws)), similar)
