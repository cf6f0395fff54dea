"""Which learnings a task needs: the narrowest scope first, then the task's own words.

Every push layer — `inject`, the agent hooks, the learnings MCP attaches, `context` — asks
this one function, so a task gets the same learnings whichever way it arrives.

    score = 0.55 * specificity      # 1.0 this very file, 0.8 its folder, 0.1 `**/*.py`
          + 0.50 * text match       # the task's title, description and file names, as a
                                    # share of the best text match of the task
          + 0.10 * votes            # saturating; a tie-break, never a reason to show
    a tag match counts 0.35 for scope: less than a narrow glob, more than `**/*.py`

A candidate scoring under `RELATIVE_FLOOR` of the best one (or under `MIN_SCORE`)
is left out even when a slot stays empty: an agent is better served by two
learnings about its file than by five where three are generic. A broad learning
still shows when nothing narrower matches. A learning whose scope does not match
at all still comes in when the task's text matches it confidently (the lesson
about the symptom, not the file).
"""

from __future__ import annotations

import math
import os
import re

from orbit_learnings.core import ranking
from orbit_learnings.core.results import Hit
from orbit_learnings.core.scope import Scope
from orbit_learnings.retrieval import queries
from orbit_learnings.retrieval.confidence import confident
from orbit_learnings.store.workspace import Workspace

WEIGHTS = {"specificity": 0.55, "text": 0.5, "votes": 0.10}
TAG_SPECIFICITY = 0.35
MIN_SCORE = 0.05
RELATIVE_FLOOR = 0.6
TEXT_CANDIDATES = 30
_PATH_WORDS = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")
_GENERIC_PARTS = frozenset({"src", "app", "lib", "tests", "test", "index", "main", "init"})


def words_of_files(paths: tuple[str, ...] | list[str]) -> str:
    """The words a file's path says about the task: `services/billing/rounding.py` ->
    `services billing rounding` (extensions and generic folders dropped)."""
    words: dict[str, None] = {}
    for path in paths:
        stem = os.path.splitext(path)[0]
        for word in _PATH_WORDS.findall(stem.replace("_", " ")):
            if word.lower() not in _GENERIC_PARTS:
                words.setdefault(word.lower(), None)
    return " ".join(words)


def rank_for_task(
    ws: Workspace,
    scope: Scope,
    text: str = "",
    *,
    cwd: str | os.PathLike[str] | None = None,
    literal_paths: bool = False,
) -> list[Hit]:
    """Active learnings for a task, best first, each with its task score (see `drop_weak`).
    `literal_paths`: the scope's paths are files (from an agent), never globs."""
    scoped = (
        queries.list_learnings(
            ws, scope, status="active", cwd=cwd, literal_paths=literal_paths
        ).hits
        if scope
        else []
    )
    candidates = {h.id: h for h in scoped}
    words = f"{text}\n{words_of_files(scope.paths)}".strip() if text.strip() else ""
    text_scores: dict[str, float] = {}
    if words:
        found = queries.search_text(ws, words, limit=TEXT_CANDIDATES).hits
        best = max((h.score or 0.0 for h in found), default=1.0) or 1.0
        for hit in found:
            text_scores[hit.id] = (hit.score or 0.0) / best  # relative to the task's best match
            if hit.id not in candidates and text and confident(hit.match_confidence):
                hit.matched_by = ["text"]
                candidates[hit.id] = hit
    ranked = ranking.rank(list(candidates.values()))  # votes, priority, recency: the tie-breaks
    for hit in ranked:
        hit.score = task_score(hit, text_scores.get(hit.id, 0.0))
    ranked.sort(key=lambda hit: round(hit.score or 0.0, 3), reverse=True)
    return ranked


def drop_weak(ranked: list[Hit]) -> list[Hit]:
    """Leave out what scores far below the best candidate (or nearly nothing at all)."""
    if not ranked:
        return ranked
    floor = max(MIN_SCORE, RELATIVE_FLOOR * (ranked[0].score or 0.0))
    return [hit for hit in ranked if (hit.score or 0.0) >= floor]


def drop_weak_per_path(ranked: list[Hit]) -> list[Hit]:
    """`drop_weak`, except that a learning matched by a path the task names is also judged
    against that path's learnings alone: a prompt naming two files keeps each file's
    learning even when the other file's learning matches the prompt's words far better."""
    kept = {hit.id for hit in drop_weak(ranked)}
    by_path: dict[str, list[Hit]] = {}
    for hit in ranked:
        for match in hit.matched_by:
            if match.startswith("path:"):
                by_path.setdefault(match, []).append(hit)
    for group in by_path.values():
        kept.update(hit.id for hit in drop_weak(group))
    return [hit for hit in ranked if hit.id in kept]


def task_score(hit: Hit, text_score: float) -> float:
    if hit.specificity is not None and any(m.startswith("path:") for m in hit.matched_by):
        specificity = hit.specificity
    elif hit.specificity is not None:
        specificity = TAG_SPECIFICITY
    else:
        specificity = 0.0  # found by its text alone
    votes = 1.0 - math.exp(-hit.vote_score / 3.0)
    return (
        WEIGHTS["specificity"] * specificity
        + WEIGHTS["text"] * text_score
        + WEIGHTS["votes"] * votes
    )
