"""Read paths shared by every adapter: list by path/tag, text search, show.

The CLI, the MCP server, the hooks and the dashboard all call these functions,
so a learning looks the same wherever it surfaces. Each call first lets the
index bring itself up to date with the files.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence

from orbit_learnings.core import matching, ranking
from orbit_learnings.core.errors import NotFound, Problem, UsageError
from orbit_learnings.core.ids import STATUS_CHOICES, STATUSES
from orbit_learnings.core.results import Detail, Hit, Result
from orbit_learnings.core.scope import EMPTY, FOLDER, GLOB, RepoPath, Scope
from orbit_learnings.index import reads
from orbit_learnings.index.build import Index, healing, open_fresh
from orbit_learnings.index.rows import refresh_votes
from orbit_learnings.store.workspace import Workspace, typed_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path must not pay for typing or pathlib imports
    from typing import Any

    from orbit_learnings.retrieval.candidates import TextCandidates
    from orbit_learnings.retrieval.orgview import OrgView


def known_tags(ws: Workspace) -> list[str]:
    """Every tag of an active learning in the project store, as written."""
    with open_fresh(ws) as index:
        return reads.active_tags(index.conn)


def parse_status(value: str | None, *, include_all: bool = False) -> tuple[str, ...]:
    """Accept `active`, `learning:active`, `all`; return the statuses to include."""
    if include_all:
        return STATUSES
    raw = (value or "active").strip().lower().removeprefix("learning:")
    if raw not in STATUS_CHOICES:
        raise UsageError(f"unknown status {value!r}; choose one of {', '.join(STATUS_CHOICES)}")
    return STATUSES if raw == "all" else (raw,)


def resolve_queries(
    ws: Workspace, raw_paths: Sequence[str], cwd: str | os.PathLike[str] | None = None
) -> list[matching.PathQuery]:
    """Paths a person typed, as match queries: each read once (`workspace.typed_path`)."""
    return [path_query(typed_path(ws, raw, cwd)) for raw in raw_paths]


def path_query(path: RepoPath) -> matching.PathQuery:
    """The match query for a path already read where it entered: its text is used as it
    is, never normalised or parsed again."""
    return matching.make_query(
        path.text, is_directory=path.kind == FOLDER, literal=path.kind != GLOB
    )


def match_scope(
    conn: sqlite3.Connection,
    queries: Sequence[matching.PathQuery],
    tags: Sequence[str],
    statuses: Sequence[str],
) -> tuple[dict[str, list[str]], dict[str, dict[str, float]]]:
    """Matched_by labels of a path OR tag match (spec 3.3), and the scope specificity of
    every learning whose scope matches: for each path asked about that it matches, its
    most specific matching glob there (`{}` for a tag match alone). Injection weighs each
    file of a task on its own, so a narrow match on one file is not judged by another's."""
    matched: dict[str, list[str]] = {}
    specificity: dict[str, dict[str, float]] = {}
    for query in queries:
        found = reads.path_hits(conn, query, statuses)
        for learning_id in sorted(found):
            _add_label(matched, learning_id, query.label)
            best = max(ranking.glob_specificity(g, query.text) for g in found[learning_id])
            per_path = specificity.setdefault(learning_id, {})
            per_path[query.text] = max(per_path.get(query.text, 0.0), best)
    for learning_id, tag in reads.tag_hits(conn, tags, statuses):
        _add_label(matched, learning_id, f"tag:{tag}")
        specificity.setdefault(learning_id, {})
    return matched, specificity


def _add_label(matched: dict[str, list[str]], learning_id: str, label: str) -> None:
    labels = matched.setdefault(learning_id, [])
    if label not in labels:
        labels.append(label)


def list_learnings(
    ws: Workspace,
    scope: Scope = EMPTY,
    *,
    status: str | None = "active",
    limit: int | None = None,
    cwd: str | os.PathLike[str] | None = None,
    level: str | None = "all",
    resolved: Sequence[RepoPath] = (),
) -> Result:
    """Learnings whose scope matches any path or tag (all of them when neither is given).

    `scope.paths` are as a person typed them (read here, once, against `cwd`); `resolved`
    are paths already read where they entered (a hook's payload), used as they are.
    Reads the project store and, unless `level` says otherwise, the personal store;
    paths are always resolved against the project.
    """
    from orbit_learnings.retrieval.orgview import OrgView

    statuses = parse_status(status)
    queries = resolve_queries(ws, scope.paths, cwd) + [path_query(p) for p in resolved]
    hits: list[Hit] = []
    warnings: list[Problem] = []
    view = OrgView(ws)
    for store_ws in _stores(ws, level, warnings):
        found, problems = _lookup_in(store_ws, queries, scope.tags, statuses, limit, view)
        warnings += problems
        for hit in found:
            hit.level = store_ws.level
        hits += found
    ranked = ranking.rank(hits) if len(hits) > 1 else hits
    return Result(ranked[:limit] if limit is not None else ranked, warnings)


def _lookup_in(
    ws: Workspace,
    queries: Sequence[matching.PathQuery],
    tags: Sequence[str],
    statuses: Sequence[str],
    limit: int | None = None,
    view: OrgView | None = None,
) -> tuple[list[Hit], list[Problem]]:
    def read(index: Index) -> tuple[list[Hit], list[Problem]]:
        hidden = _hidden_by(view, index.conn, ws=ws)
        found = lookup(index.conn, queries, tags, statuses, limit=limit, ws=ws, hidden=hidden)
        return found, index.warnings

    return healing(ws, read)


def _hidden_by(view: OrgView | None, conn: sqlite3.Connection, *, ws: Workspace) -> set[str]:
    """What this store hides here: org learnings scoped elsewhere or replaced by a project
    learning (noted from the project's index, read first)."""
    if view is None:
        return set()
    if ws.level == "org":
        return view.hidden(conn)
    if ws.level == "project" and ws.root_str == view.project.root_str:
        view.note_project(conn)
    return set()


def lookup(
    conn: sqlite3.Connection,
    queries: Sequence[matching.PathQuery],
    tags: Sequence[str],
    statuses: Sequence[str],
    *,
    limit: int | None = None,
    ws: Workspace | None = None,
    hidden: set[str] | frozenset[str] = frozenset(),
) -> list[Hit]:
    """The lookup itself, on an already fresh index: match, load rows, rank.

    With a `limit`, a lookup that matches many more learnings (a tag half the store
    carries) loads the rows of only those whose votes can still place them."""
    if queries or tags:
        matched, specificity = match_scope(conn, queries, tags, statuses)
        ids = [i for i in matched if i not in hidden] if hidden else list(matched)
        score = ranking.VoteScorer()  # one moment for the cut and the hits
        if limit is not None and limit > 0 and len(ids) > PAGE_FROM * limit:
            if ws is not None:
                refresh_votes(conn, ws, ids)
                ws = None  # the votes are fresh now: `reads.hits` need not stat them again
            ids = _vote_contenders(conn, ids, statuses, limit, score)
        hits = reads.hits(conn, ids, statuses, ws, score)
        for hit in hits:
            hit.matched_by = matched[hit.id]
            hit.specificity = specificity[hit.id]
    else:
        hits = reads.hits(conn, None, statuses, ws)
        hits = [h for h in hits if h.id not in hidden] if hidden else hits
    ranked = ranking.rank(hits)
    return ranked[:limit] if limit is not None else ranked


PAGE_FROM = 4  # a limited lookup matching more than this many times its limit is paged


def _vote_contenders(
    conn: sqlite3.Connection,
    ids: list[str],
    statuses: Sequence[str],
    keep: int,
    score: ranking.VoteScorer,
) -> list[str]:
    """The learnings that can still be among the first `keep` of `ranking.rank`, which
    puts votes first: each one's vote score comes from its digest in the index, without
    its row, and one below the `keep`-th best cannot place, whatever its priority or date."""
    scores = {i: votes for i, _, votes in reads.tie_breakers(conn, ids, statuses, score)}
    if len(scores) <= keep:
        return ids
    floor = sorted(scores.values(), reverse=True)[keep - 1] - 1e-6  # `rank` rounds to 9 places
    return [i for i in ids if scores.get(i, 0.0) >= floor]


def search_text(
    ws: Workspace,
    text: str,
    *,
    tags: Sequence[str] = (),
    status: str | None = "active",
    include_all: bool = False,
    limit: int | None = 20,
    min_helpfulness: float | None = None,
    explain: bool = False,
    level: str | None = "all",
    confident_only: bool = False,
) -> Result:
    """Free-text search over summary, body and tags, ranked by the combined score.

    Every hit carries `match_confidence`; with `confident_only`, hits below the
    threshold are left out and the best of them is kept as `weakest_left_out`.
    """
    import functools

    from orbit_learnings.retrieval import scoring as search
    from orbit_learnings.retrieval.candidates import TextCandidates
    from orbit_learnings.retrieval.orgview import OrgView
    from orbit_learnings.store import config

    statuses = parse_status(status, include_all=include_all)
    weights = search.weights_from(config.load(ws))
    # Rows are loaded only for the candidates that can still finish among the first
    # `limit` (+1: the last one's match confidence looks at the one after it); a
    # helpfulness threshold looks at every candidate.
    keep = limit + 1 if limit is not None and limit > 0 and min_helpfulness is None else None
    found = TextCandidates(text, statuses, tags, config.glossary(ws), weights, keep)
    view = OrgView(ws)
    for store_ws in _stores(ws, level, found.warnings):
        found.collect(store_ws, functools.partial(_hidden_by, view, ws=store_ws))
    hits = found.hits
    if min_helpfulness is not None:
        hits = [h for h in hits if found.feedback[h.id][0] >= min_helpfulness]
    for hit in hits:
        scored = found.matched[hit.id]
        parts = found.parts[hit.id]
        hit.score = parts["total"]
        hit.matched_by = [f"text:{scored.tier}"]
        if explain:
            hit.explain = {"tier": scored.tier, "bm25": scored.bm25, **parts}
    hits.sort(key=lambda h: h.id)
    hits.sort(key=lambda h: h.level != "project")
    hits.sort(key=lambda h: h.score or 0.0, reverse=True)
    _attach_match_confidence(hits[:keep] if keep is not None else hits, found, explain=explain)
    result = Result(hits[:limit] if limit is not None else hits, found.warnings)
    if confident_only:
        _keep_confident(result, hits)
    return result


def _stores(ws: Workspace, level: str | None, warnings: list[Problem]) -> list[Workspace]:
    """The stores to read, less a personal store that holds nothing yet: opening its
    index and asking it the query cost every read a millisecond or two. An org store
    whose pinned commit is not in the cache adds one hint to `warnings`."""
    from orbit_learnings.store import levels

    hints: list[str] = []
    chosen = levels.stores(ws, levels.check_level(level), hints)
    if hints:
        from orbit_learnings.retrieval.orgview import hint_problem

        warnings += [hint_problem(hint) for hint in hints]
    return [s for s in chosen if s.root_str == ws.root_str or _holds_anything(s)]


def _holds_anything(ws: Workspace) -> bool:
    try:
        with os.scandir(ws.learnings_dir_str) as entries:
            return next(entries, None) is not None
    except (FileNotFoundError, NotADirectoryError):
        return False


def _keep_confident(result: Result, ranked: list[Hit]) -> None:
    """The confident hits; the best one left out is exact whenever no hit is kept (the
    only time it is shown), since the ranked list holds every contender for the top."""
    from orbit_learnings.retrieval.confidence import confident

    result.weakest_left_out = next((h for h in ranked if not confident(h.match_confidence)), None)
    result.hits = [h for h in result.hits if confident(h.match_confidence)]


def _attach_match_confidence(hits: list[Hit], found: TextCandidates, *, explain: bool) -> None:
    from orbit_learnings.retrieval import confidence

    rows = confidence.features([found.matched[h.id] for h in hits], found.profile)
    ceiling = 1.0  # a result is never more confident than the ones ranked above it
    for hit, row in zip(hits, rows, strict=True):
        ceiling = min(ceiling, confidence.probability(row))
        hit.match_confidence = round(ceiling, 4)
        hit.confident = confidence.confident(hit.match_confidence)
        if explain and hit.explain is not None:
            hit.explain["confidence_features"] = {k: round(v, 4) for k, v in row.items()}


def show_learning(project: Workspace, learning_id: str) -> Detail:
    """The full record plus derived vote fields, as of the files right now. An org
    learning a project learning replaces in this repository says by which one
    (`superseded_here_by`): it is hidden here, and only here."""
    from orbit_learnings.store.levels import for_id

    ws = for_id(project, learning_id)
    with open_fresh(ws) as index:
        refresh_votes(index.conn, ws, [learning_id])
        record = reads.full_record(index.conn, learning_id)
        warnings = [w for w in index.warnings if w.id == learning_id]
    if record is None:
        if warnings:
            raise NotFound(f"{learning_id} cannot be read: {warnings[0]}")
        from orbit_learnings.store.bundles import missing

        error = missing(ws, learning_id)
        if "did you mean" in error.message:
            raise error
        raise NotFound(f"no learning {learning_id}; `orbit learning list --status all` lists them")
    record = _with_feedback(ws, record)
    if ws.level == "org" and project.level == "project":
        with open_fresh(project) as index:
            here = reads.superseded_elsewhere(index.conn, project.prefix).get(record["id"])
        if here is not None:
            record["superseded_here_by"] = here
    return Detail(record, warnings)


def full_records(ws: Workspace, status: str | None = "active") -> list[dict[str, Any]]:
    """Every record of these statuses, as `show` reports them, in one pass over the index."""
    statuses = parse_status(status)
    with open_fresh(ws) as index:
        refresh_votes(index.conn, ws, reads.all_ids(index.conn, statuses))
        records = reads.full_records(index.conn, statuses)
    return [_with_feedback(ws, record) for record in records]


def _with_feedback(ws: Workspace, record: dict[str, Any]) -> dict[str, Any]:
    """Helpfulness from the feedback sidecar and the store's level, beside the record."""
    from orbit_learnings.store.feedback import summarise

    record.update(summarise(ws, record["id"]).to_dict())
    record["level"] = ws.level
    return record
