"""Which learnings a task needs: the narrowest scope first, then the task's own words.

Every push layer — `inject`, the agent hooks, the MCP sidecar, `context` — asks
this one function, so a task gets the same learnings whichever way it arrives.

    score = 0.55 * specificity      # 1.0 this very file, 0.8 its folder, 0.1 `**/*.py`
          + 0.50 * text match       # the task's title, description and file names, as a
                                    # share of the best text match of the task
          + 0.10 * votes            # saturating; a tie-break, never a reason to show
    a tag match counts 0.35 for scope: less than a narrow glob, more than `**/*.py`

Each candidate has one reason to be shown (`Hit.reason`): the file of the task its
scope fits best (`path:<file>`), the task's tags (`tag`), or its words alone (`text`). The
cut compares like with like: a candidate scoring under `RELATIVE_FLOOR` of the best
of its kind (or under `MIN_SCORE`) is left out even when a slot stays empty — an
agent is better served by two learnings about its file than by five where three are
generic — but a path-scoped learning is never measured against a tag match, whose
scope bonus is not a glob's. Each file's best learning scoped to that very file or its
own folder stays whatever the cut and comes first, so neither a tag nor another file of
the same task takes its slot.
A broad learning still shows when nothing narrower matches. A learning whose scope
does not match at all still comes in when the task's text matches it confidently
(the lesson about the symptom, not the file).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence

from orbit_learnings.core import ranking
from orbit_learnings.core.results import Hit
from orbit_learnings.core.scope import RepoPath, Scope
from orbit_learnings.retrieval import queries
from orbit_learnings.retrieval.confidence import confident
from orbit_learnings.store.workspace import Workspace

WEIGHTS = {"specificity": 0.55, "text": 0.5, "votes": 0.10}
TAG_SPECIFICITY = 0.35
MIN_SCORE = 0.05
RELATIVE_FLOOR = 0.6
TEXT_CANDIDATES = 30
OWN = 0.8  # the specificity of a scope on the file itself or its own folder
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
    resolved: Sequence[RepoPath] = (),
) -> list[Hit]:
    """Active learnings for a task, best first, each with its task score (see `shortlist`).
    `resolved`: paths already read where they entered (an agent's files), beside the
    typed ones of `scope` (see `queries.list_learnings`)."""
    scoped = (
        queries.list_learnings(ws, scope, status="active", cwd=cwd, resolved=resolved).hits
        if scope or resolved
        else []
    )
    candidates = {h.id: h for h in scoped}
    files = [*scope.paths, *(path.text for path in resolved)]
    words = f"{text}\n{words_of_files(files)}".strip() if text.strip() else ""
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
        hit.score, hit.reason = best_reason(hit, text_scores.get(hit.id, 0.0))
    ranked.sort(key=lambda hit: round(hit.score or 0.0, 3), reverse=True)
    return ranked


def shortlist(ranked: list[Hit], *, per_file: bool = False) -> list[Hit]:
    """The candidates worth showing, in the order slots go to them.

    Each is judged against the best of its kind, never across kinds: a path-scoped
    learning against the best path-scoped one (a tag's scope bonus is not a glob's),
    a tag match against the best tag match, one found by its words alone against the
    best of all (words match any task a little). Each file's best learning of its own
    (`OWN`) stays whatever the cut, and those come first, so no tag and no other file's
    lessons take its slot; the rest follow by score.

    `per_file` (an agent's hook or prompt, which names the files it touches): a path-scoped
    learning is judged against the best of its own file's, so a prompt naming two files
    keeps each file's lesson however well the other's matches the words. Not for `inject
    --task`, where that let more noise through on the tuning set."""
    groups: dict[str, list[Hit]] = {}
    for hit in ranked:  # best first, so each group is too
        groups.setdefault(hit.reason or "text", []).append(hit)
    best_path = max((h.score or 0.0 for h in ranked if _path_scoped(h)), default=0.0)
    firsts = {hits[0].id for reason, hits in groups.items() if _own(reason, hits[0])}
    kept = {
        hit.id
        for reason, hits in groups.items()
        for hit in _cut(hits, _judge(reason, hits, best_path if not per_file else None, ranked))
    }
    return [h for h in ranked if h.id in firsts] + [
        h for h in ranked if h.id in kept and h.id not in firsts
    ]


def _path_scoped(hit: Hit) -> bool:
    return (hit.reason or "").startswith("path:")


def _own(reason: str, hit: Hit) -> bool:
    """Scoped to that very file or its own folder (not merely a glob it falls under)."""
    return reason.startswith("path:") and (hit.specificity or {}).get(reason[5:], 0.0) >= OWN


def _judge(reason: str, group: list[Hit], best_path: float | None, ranked: list[Hit]) -> float:
    """The score a group's members are measured against (see `shortlist`); no
    `best_path`: a file's group against its own best."""
    if reason == "tag" or (best_path is None and reason.startswith("path:")):
        return group[0].score or 0.0
    if reason == "text":
        return ranked[0].score or 0.0
    return best_path if best_path is not None else 0.0


def _cut(group: list[Hit], best: float) -> list[Hit]:
    """Leave out what scores far below the best it is judged against (or nearly nothing)."""
    floor = max(MIN_SCORE, RELATIVE_FLOOR * best)
    return [hit for hit in group if (hit.score or 0.0) >= floor]


def best_reason(hit: Hit, text_score: float) -> tuple[float, str]:
    """The task score of a candidate and why: the file its scope fits best, else a tag,
    else its words alone."""
    votes = 1.0 - math.exp(-hit.vote_score / 3.0)
    files = hit.specificity or {}
    if files:
        file = max(files, key=lambda path: files[path])  # the first of equals: stable
        return task_score(files[file], text_score, votes), f"path:{file}"
    if hit.specificity is not None:
        return task_score(TAG_SPECIFICITY, text_score, votes), "tag"
    return task_score(0.0, text_score, votes), "text"


def task_score(specificity: float, text_score: float, votes: float) -> float:
    return (
        WEIGHTS["specificity"] * specificity
        + WEIGHTS["text"] * text_score
        + WEIGHTS["votes"] * votes
    )
