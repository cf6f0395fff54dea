"""Ranking in SQL (#17): FTS5 cuts the candidates, and rows are read only for the ones
that can still reach the places asked for. Every answer must be the one a ranking of
every candidate gives: same learnings, same order, same scores and confidences."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbit_learnings.core import fts
from orbit_learnings.core.results import Hit, Scored
from orbit_learnings.core.scope import Scope
from orbit_learnings.index import fulltext
from orbit_learnings.index.build import open_fresh
from orbit_learnings.retrieval import combined, queries, scoring
from orbit_learnings.store import feedback
from orbit_learnings.store.workspace import Workspace
from tests.testing import isolate, wait_until_settled

WORDS = [
    "retry",
    "retries",
    "billing",
    "invoice",
    "webhook",
    "idempotency",
    "migration",
    "index",
    "postgres",
    "lock",
    "timeout",
    "deadlock",
    "cache",
    "redis",
    "queue",
    "kafka",
    "consumer",
    "offset",
    "schema",
    "deploy",
    "rollback",
    "canary",
    "pod",
    "memory",
    "leak",
    "latency",
    "p99",
    "thread",
    "pool",
    "async",
    "await",
    "token",
    "refresh",
    "session",
    "cookie",
    "cors",
    "header",
    "gzip",
    "upload",
    "chunk",
    "stream",
    "parser",
    "yaml",
    "json",
    "encoding",
    "unicode",
    "locale",
    "timezone",
]
QUERIES = [
    "retries billing",
    "invoice webhook idempotency",
    "postgres lock timeout deadlock",
    "cache",
    "kafka consumer offset rollback",
    "memory leak in the thread pool",
    "token refresh cookie session cors",
    "unicode timezone",
    "deploy",
    "nothing matches zzzqqq",
]


def _generate(root: Path, count: int, seed: int = 3) -> None:
    """Learnings with skewed vocabularies (some words everywhere, some rare), votes,
    feedback, statuses and recency that is either none or full (so that the clock
    moving between two searches cannot change a score)."""
    rng = random.Random(seed)
    learnings = root / ".orbit" / "learnings"
    learnings.mkdir(parents=True, exist_ok=True)
    weights = [1.0 / (rank + 1) for rank in range(len(WORDS))]
    for n in range(1, count + 1):
        lid = f"L-{n:04d}"
        folder = learnings / lid
        folder.mkdir()
        summary = " ".join(rng.choices(WORDS, weights, k=rng.randrange(3, 9)))
        body = " ".join(rng.choices(WORDS, weights, k=rng.randrange(0, 25)))
        status = rng.choice(["active"] * 8 + ["archived"])
        stamp = "2099-01-02T10:00:00Z" if n % 7 == 0 else "2020-01-02T10:00:00Z"
        tags = rng.sample(["db", "api", "ops", "web"], rng.randrange(1, 3))
        (folder / "learning.yaml").write_text(
            f"id: {lid}\nschemaVersion: 1\nstatus: {status}\n"
            f"created_at: 2020-01-01T10:00:00Z\nupdated_at: {stamp}\ncreated_by: test\n"
            f"scope:\n  paths: []\n  tags: [{', '.join(tags)}]\n"
            f"summary: {summary or 'lesson'} {n}\nbody: |\n  {body or 'body'}\n"
            f"evidence: []\nsupersedes: null\npriority: {n % 3}\n"
        )
        votes = [
            {"learning_id": lid, "voter_model": "m", "task_id": f"T-{v}"}
            | {"voted_at": rng.choice(["2024-01-01T00:00:00Z", "2026-01-01T00:00:00Z"])}
            for v in range(rng.choice([0, 0, 1, 2, 5]))
        ]
        if votes:
            (folder / "votes.jsonl").write_text("".join(json.dumps(v) + "\n" for v in votes))
        if n % 5 == 0:
            rows = [
                {"learning_id": lid, "task_id": f"T-{k}", "helpful": rng.random() < 0.6}
                | {"model": "m", "at": "2026-01-01T00:00:00Z"}
                for k in range(rng.randrange(1, 6))
            ]
            (folder / "feedback.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _settled_store(root: Path) -> Workspace:
    _generate(root, 600)
    wait_until_settled(root)  # older than the racy window: read once
    ws = Workspace(root)
    queries.list_learnings(ws, status="all")  # the index, built and trusted
    return ws


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """Built once a module: 600 learnings and their index take a second to write and parse.
    Tests only read it; a test that writes takes `own_store`."""
    from orbit_learnings.store.setup import init_store

    root = tmp_path_factory.mktemp("ranked-store")
    with pytest.MonkeyPatch.context() as mp:
        isolate(mp, tmp_path_factory.mktemp("home"))
        init_store(root)
        return _settled_store(root)


@pytest.fixture
def store(shared_store: Workspace, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("ORBIT_LEARNING_VOTE_HALF_LIFE_DAYS", "0")  # raw counts: no clock
    return shared_store


@pytest.fixture
def own_store(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """The same store, this test's own to write to."""
    monkeypatch.setenv("ORBIT_LEARNING_VOTE_HALF_LIFE_DAYS", "0")
    return _settled_store(workspace)


def _rows(hits: Sequence[Hit]) -> list[tuple[object, ...]]:
    return [(h.id, h.score, h.match_confidence, h.matched_by, h.explain) for h in hits]


def test_the_first_places_are_those_of_a_ranking_of_every_candidate(store: Workspace) -> None:
    for text in QUERIES:
        full = queries.search_text(store, text, limit=None, explain=True).hits
        for limit in (1, 3, 5, 20):
            cut = queries.search_text(store, text, limit=limit, explain=True)
            assert _rows(cut.hits) == _rows(full[:limit]), (text, limit)
            confident = queries.search_text(store, text, limit=limit, confident_only=True)
            expected = [h.id for h in full[:limit] if (h.match_confidence or 0) >= 0.35]
            assert [h.id for h in confident.hits] == expected, (text, limit)
            if not confident.hits and full:
                assert confident.weakest_left_out is not None
                assert confident.weakest_left_out.id == full[0].id


def test_tags_and_statuses_cut_the_same_way(store: Workspace) -> None:
    for text in QUERIES[:5]:
        for tags, status in ((["db"], "active"), ([], "archived"), (["web", "ops"], "all")):
            full = queries.search_text(store, text, tags=tags, status=status, limit=None).hits
            cut = queries.search_text(store, text, tags=tags, status=status, limit=5).hits
            assert _rows(cut) == _rows(full[:5]), (text, tags, status)


@pytest.mark.parametrize("decay", [True, False])
def test_a_limited_tag_lookup_pages_to_the_same_first_places(
    store: Workspace, monkeypatch: pytest.MonkeyPatch, decay: bool
) -> None:
    if decay:
        monkeypatch.delenv("ORBIT_LEARNING_VOTE_HALF_LIFE_DAYS")
    for tags in (["db"], ["api", "ops"], ["web"]):
        every = queries.list_learnings(store, Scope([], tags)).hits
        assert len(every) > queries.PAGE_FROM * 20
        for limit in (1, 5, 20):
            paged = queries.list_learnings(store, Scope([], tags), limit=limit).hits
            # the same learnings, and scores alike but for the decay between the calls
            assert [h.id for h in paged] == [h.id for h in every[:limit]]
            for hit, reference in zip(paged, every, strict=False):
                assert hit.vote_score == pytest.approx(reference.vote_score, rel=1e-6)


def _reference(
    conn: sqlite3.Connection, expression: str, statuses: list[str], tags: list[str], limit: int
) -> list[tuple[str, float, int]]:
    """The candidate query before #17: every match joined to its row, then ranked."""
    tag_sql = (
        " AND EXISTS (SELECT 1 FROM tags t WHERE t.learning_id = l.id"
        f" AND t.folded IN ({','.join('?' * len(tags))}))"
        if tags
        else ""
    )
    rows = conn.execute(
        "SELECT f.id, bm25(learnings_fts, 0.0, 3.0, 1.0, 2.0) AS rank, f.rowid"
        " FROM learnings_fts f JOIN learnings_index l ON l.id = f.id"
        f" WHERE learnings_fts MATCH ? AND l.effective_status IN ({','.join('?' * len(statuses))})"
        f"{tag_sql} ORDER BY rank, f.rowid LIMIT ?",
        (expression, *statuses, *tags, limit),
    )
    return [(str(r[0]), float(r[1]), int(r[2])) for r in rows]


@pytest.mark.parametrize("limit", [1, 7, 200, 5000])
def test_fts5_cuts_the_candidates_as_the_joined_query_did(store: Workspace, limit: int) -> None:
    with open_fresh(store) as index:
        for expression in ('"retries" OR "billing"', '"cache"', '"deploy" OR "pod" OR "canary"'):
            for statuses, tags in ((["active"], []), (["archived"], []), (["active"], ["ops"])):
                found = fulltext.word_matches(index.conn, expression, statuses, tags, limit)
                assert found == _reference(index.conn, expression, statuses, tags, limit)


def test_feedback_is_read_from_the_index_until_its_file_changes(
    own_store: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = queries.search_text(own_store, "kafka consumer offset", limit=3, explain=True).hits
    target = first[0]

    def no_reading(*args: object) -> object:
        raise AssertionError("a search read a feedback file that had not changed")

    monkeypatch.setattr(feedback, "summarise", no_reading)
    again = queries.search_text(own_store, "kafka consumer offset", limit=3, explain=True).hits
    assert _rows(again) == _rows(first)
    monkeypatch.undo()
    monkeypatch.setenv("ORBIT_LEARNING_VOTE_HALF_LIFE_DAYS", "0")
    for n in range(3):
        feedback.record(own_store, target.id, helpful=False, task_id=f"new-{n}", model="m")
    after = queries.search_text(own_store, "kafka consumer offset", limit=None, explain=True).hits
    changed = next(h for h in after if h.id == target.id)
    expected = feedback.summarise(own_store, target.id).helpfulness
    assert changed.explain is not None and target.explain is not None
    assert changed.explain["helpfulness"] == round(0.02 * (expected - 0.5) * 2, 6)
    lowered, before = changed.explain["helpfulness"], target.explain["helpfulness"]
    assert isinstance(lowered, int | float) and isinstance(before, int | float)
    assert lowered < before


def _scored(relevance: float) -> Scored:
    return Scored("x", "any", 0.0, relevance)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40),
    st.integers(1, 12),
    st.fixed_dictionaries(
        {name: st.floats(-0.2, 1.5) for name in ("text", "votes", "recency", "helpfulness")}
    ),
    st.randoms(use_true_random=False),
)
def test_no_candidate_that_can_place_is_left_out(
    relevances: list[float], keep: int, weights: dict[str, float], rng: random.Random
) -> None:
    """Whatever the tie-breakers turn out to be, the first `keep` are contenders."""
    scored = {f"L-{i:04d}": _scored(r) for i, r in enumerate(relevances)}
    chosen = set(combined.contenders(scored, keep, weights))
    totals = {
        learning_id: combined.total(
            combined.parts(
                s.relevance,
                rng.choice([0.0, 1e9, rng.random() * 9]),
                "2020-01-01T00:00:00Z",
                rng.choice([0.1, 1.0, 0.1 + rng.random() * 0.9]),
                weights,
            )
        )
        for learning_id, s in scored.items()
    }
    ranked = sorted(totals, key=lambda i: (-totals[i], i))
    assert set(ranked[:keep]) <= chosen


def _expressions_asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []
    real = fulltext.word_matches

    def spy(conn: sqlite3.Connection, expression: str, *args: Any) -> list[tuple[str, float, int]]:
        asked.append(expression)
        return real(conn, expression, *args)

    monkeypatch.setattr(fulltext, "word_matches", spy)
    return asked


def test_words_most_learnings_hold_are_left_out_only_when_nothing_they_hold_can_place(
    own_store: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`retries` is in most of the store: its bm25 is next to nothing, so learnings that
    hold it alone are not scored when enough others lead them (same answer), and are
    when they could place (a rare word held by fewer learnings than asked for)."""
    with open_fresh(own_store) as index:
        everywhere = fulltext.matching_rows(index.conn, '"retries"')
        assert 2 * len(everywhere) >= fulltext.document_count(index.conn)
    folder = Path(own_store.learnings_dir_str) / "L-0002"
    text = (folder / "learning.yaml").read_text().replace("body: |\n", "body: |\n  zqxrare\n")
    (folder / "learning.yaml").write_text(text)
    asked = _expressions_asked(monkeypatch)
    for query, rare, pruned in (
        ("retries billing cache", '"cache"', True),
        ("retries zqxrare", '"zqxrare"', False),
    ):
        full = queries.search_text(own_store, query, limit=None, explain=True).hits
        asked.clear()
        cut = queries.search_text(own_store, query, limit=5, explain=True).hits
        assert _rows(cut) == _rows(full[:5]), query
        assert asked[0] == rare, query
        assert asked[1:] == ([] if pruned else [f'("retries") NOT ({rare})']), query
    assert cut[0].id == "L-0002"  # the one learning holding the rare word leads
    assert len(cut) == 5  # and four holding the common one follow it


def test_the_bound_on_what_a_left_out_learning_can_score_holds(store: Workspace) -> None:
    glossary = fts.Glossary({})
    for text in (
        "retries billing cache",
        "invoice webhook unicode",
        "retry deploy rollback canary",
    ):
        with open_fresh(store) as index:
            plan = fts.plan(text, glossary)
            match = scoring.TextMatch()
            plan, counts = scoring._term_sets(index.conn, plan, match)
            evidence = scoring._Evidence(index.conn, plan, counts, match)
            common = evidence.common_terms()
            assert common, text
            rare_terms = [t for n, t in enumerate(plan.terms) if n not in common]
            every = fulltext.word_matches(
                index.conn, plan.any_expression(), ["active", "archived"], [], 5000
            )
            scored, best = evidence.scored(every)
            rare = set().union(
                *(fulltext.matching_rows(index.conn, t.expression()) for t in rare_terms)
            )
            left_out = [scored[i] for i, _, row in every if row not in rare]
            assert left_out, text
            bound = evidence.left_out_bound(common, best)
            assert max(s.relevance for s in left_out) <= bound, text


@pytest.mark.parametrize("limit", [3, None])
def test_the_summary_feature_is_the_share_of_the_query_in_the_summary(
    store: Workspace, limit: int | None
) -> None:
    """Summaries are looked up for the results alone (one by one for a few, as a whole
    word's rows for many): either way each result's share is the one its words give."""
    text = "retries billing cache"
    hits = queries.search_text(store, text, limit=limit, explain=True).hits
    with open_fresh(store) as index:
        total = fulltext.document_count(index.conn)
        rows = dict(index.conn.execute("SELECT id, rowid FROM learnings_index").fetchall())
        words = [f'"{w}"' for w in text.split()]
        weights = [scoring._idf(total, len(fulltext.matching_rows(index.conn, w))) for w in words]
        in_summary = [fulltext.matching_rows(index.conn, f"summary : {w}") for w in words]
    assert len(hits) == (3 if limit else len(hits)) and len(hits) > 3 * (limit is None)
    shares = set()
    for hit in hits:
        held = sum(w for w, ids in zip(weights, in_summary, strict=True) if rows[hit.id] in ids)
        assert hit.explain is not None
        features = hit.explain["confidence_features"]
        assert isinstance(features, dict)
        share = features["summary"]
        assert share == round(held / sum(weights), 4), hit.id
        shares.add(share)
    assert len(shares) > 1 or limit == 3  # learnings differ in what their summaries hold


def test_which_candidates_hold_a_common_term_is_found_without_fetching_its_rows(
    store: Workspace,
) -> None:
    """A term half the store holds is never fetched whole: which candidates hold it
    comes from those matching another term but not this one. Checked against its rows."""
    lazy_misses = 0
    with open_fresh(store) as index:
        for text in ("retries billing cache", "retry invoice", "billing webhook unicode"):
            plan = fts.plan(text, fts.Glossary({}))
            plan, counts = scoring._term_sets(index.conn, plan, scoring.TextMatch())
            evidence = scoring._Evidence(index.conn, plan, counts, scoring.TextMatch())
            candidates = fulltext.matching_rows(index.conn, plan.any_expression())
            for term, rows in zip(plan.terms, evidence.containing, strict=True):
                really = fulltext.matching_rows(index.conn, term.expression())
                assert rows.count == len(really), term.word
                assert rows.holding(candidates) == really & candidates, term.word
                if rows.rows is None:
                    lazy_misses += len(candidates - really)
    assert lazy_misses > 0  # some candidates lack a common term: the lazy path decided


def test_known_coverage_leaves_out_the_query_words_no_learning_holds(store: Workspace) -> None:
    """`coverage` counts a word the store never uses as heavily as its rarest one, so a
    query with such words covers little of itself anywhere; `known_coverage` is the same
    share among the words some learning holds (what the match-confidence model reads)."""
    known = "retries billing cache"
    for text in (known, f"{known} zqxwvutsr"):
        hits = queries.search_text(store, text, limit=5, explain=True).hits
        with open_fresh(store) as index:
            total = fulltext.document_count(index.conn)
            rows = dict(index.conn.execute("SELECT id, rowid FROM learnings_index").fetchall())
            holders = [fulltext.matching_rows(index.conn, f'"{w}"') for w in known.split()]
        weights = [scoring._idf(total, len(ids)) for ids in holders]
        for hit in hits:
            assert hit.explain is not None
            features = hit.explain["confidence_features"]
            assert isinstance(features, dict)
            held = sum(w for w, ids in zip(weights, holders, strict=True) if rows[hit.id] in ids)
            assert features["known_coverage"] == round(held / sum(weights), 4), (text, hit.id)
            if text != known:  # the unknown word weighs in coverage, not in known_coverage
                assert features["coverage"] < features["known_coverage"]


def test_rarest_share_is_the_weight_of_the_rarest_word_a_result_holds(store: Workspace) -> None:
    """A match resting on one strong word is more often chance than one spread over
    several: the model reads the share of the query's idf weight in the rarest word held."""
    text = "retries billing cache"
    hits = queries.search_text(store, text, limit=None, explain=True).hits
    with open_fresh(store) as index:
        total = fulltext.document_count(index.conn)
        rows = dict(index.conn.execute("SELECT id, rowid FROM learnings_index").fetchall())
        holders = [fulltext.matching_rows(index.conn, f'"{w}"') for w in text.split()]
    weights = [scoring._idf(total, len(ids)) for ids in holders]
    shares = set()
    for hit in hits:
        assert hit.explain is not None
        features = hit.explain["confidence_features"]
        assert isinstance(features, dict)
        rarest = max(w for w, ids in zip(weights, holders, strict=True) if rows[hit.id] in ids)
        assert features["rarest_share"] == round(rarest / sum(weights), 4), hit.id
        shares.add(features["rarest_share"])
    assert len(shares) > 1  # results differ in which words they hold


def test_a_word_no_learning_holds_does_not_change_how_the_others_rank(store: Workspace) -> None:
    """Coverage in the relevance is measured among the words the store holds: a word of
    the query no learning uses weighed as much as the rarest one, so it shrank every
    result's coverage alike and left bm25 to decide (a paraphrase's words often are not
    the store's). A result matched by no phrase and not near keeps its relevance exactly."""
    known = "retries billing cache"

    def relevance(text: str) -> dict[str, float]:
        hits = queries.search_text(store, text, limit=None, explain=True).hits
        out = {}
        for hit in hits:
            assert hit.explain is not None
            features = hit.explain["confidence_features"]
            assert isinstance(features, dict)
            if hit.explain["tier"] == "any" and not features["phrase"]:
                out[hit.id] = features["relevance"]
        return out

    before, after = relevance(known), relevance(f"{known} zqxwvutsr")
    assert before and before.keys() <= after.keys()
    assert all(after[i] == before[i] for i in before)
