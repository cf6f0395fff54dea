"""Free-text search: how well each learning matches the query (`combined` adds the tie-breakers).

The text match decides the order; votes, recency and helpfulness only break near-ties
(`combined` holds the whole score):

    relevance = 0.45 * bm25 / best bm25 of this query     # relative, never saturating
              + 0.35 * coverage                           # share of the query's idf weight,
                                                          # among the words the store holds
              + 0.15 * phrase                             # the longest phrase it contains
              + 0.05 * near                               # every term within 10 words

Defaults: text 1.0, votes 0.04, recency 0.01, helpfulness 0.02 (at most 0.07 in
all, so a tie-breaker cannot lift a weak match over a strong one); override them
in `.orbit/config.yaml` under `search: {weights: {...}}`. A query word that
matches nothing is looked for among the words sharing most of its trigrams
(`idempotncy` -> `idempotency`), and glossary groups widen a word to its aliases.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import KeysView, Sequence

from orbit_learnings.core import fts
from orbit_learnings.core.results import Scored
from orbit_learnings.index import fulltext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.core.fts import Glossary

DEFAULT_WEIGHTS = {"text": 1.0, "votes": 0.04, "recency": 0.01, "helpfulness": 0.02}
RELEVANCE_WEIGHTS = {"bm25": 0.45, "coverage": 0.35, "phrase": 0.15, "near": 0.05}
MIN_TYPO_LENGTH = 5
TYPO_SIMILARITY = 0.8
TYPO_DISCOUNT = 0.5
# The most bm25 a word held by half the store or more can add: FTS5 floors its idf at
# 1e-6, and a phrase's term-frequency factor stays below k1 + 1 = 2.2.
_FLOORED_BM25 = 2.2e-6
# Compiled on first use (by `re`'s cache), and only for text with a character this high:
# compiling the class costs a search process over a millisecond.
_CJK = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+"
_CJK_FROM = "\u3040"
_WORD = re.compile(r"\w+", re.UNICODE)


def _cjk_match(learning_id: str) -> Scored:
    """A CJK run found verbatim: the whole run matched, as a phrase would."""
    found = Scored(
        learning_id, "cjk", 0.0, 0.5, 1.0, 1.0, rarity=1.0, weight=0.5, summary=1.0, matched=1.0
    )
    found.known_coverage = 1.0
    return found


class TextMatch:
    """The candidates of one query, and what the query itself looked like to the index."""

    __slots__ = ("corrected", "evidence", "scored", "semantic", "terms", "unknown_share")

    def __init__(self) -> None:
        self.scored: dict[str, Scored] = {}
        self.evidence: _Evidence | None = None
        self.unknown_share = 0.0  # share of the query's terms no learning contains
        self.terms = 0  # how many terms the query was searched for with
        self.semantic = False  # whether vectors took part in the ranking
        self.corrected: dict[str, str] = {}  # typo -> the word searched for

    def summarise(
        self, conn: sqlite3.Connection, scored: dict[str, Scored], ids: Sequence[str]
    ) -> None:
        """Set `summary` (the share of the query's weight in the one-line summary) of the
        learnings returned: only the match confidence of a result reads it, and finding every
        summary that holds a word most of the store holds cost a search ~1 ms at 10,000."""
        if self.evidence is not None:
            self.evidence.summarise(conn, scored, ids)


def weights_from(config: dict[str, object]) -> dict[str, float]:
    from orbit_learnings.core.errors import OrbitError

    section = config.get("search") if isinstance(config.get("search"), dict) else {}
    given = section.get("weights", {}) if isinstance(section, dict) else {}
    weights = dict(DEFAULT_WEIGHTS)
    if not isinstance(given, dict):
        raise OrbitError(".orbit/config.yaml: search.weights must be a mapping")
    for key, value in given.items():
        if key not in weights or not isinstance(value, int | float) or isinstance(value, bool):
            raise OrbitError(f".orbit/config.yaml: unknown or non-numeric search weight {key!r}")
        weights[key] = float(value)
    return weights


def text_matches(
    conn: sqlite3.Connection,
    text: str,
    statuses: Sequence[str],
    tags: Sequence[str],
    glossary: Glossary | None = None,
    *,
    keep: int | None = None,
    slack: float = math.inf,
) -> TextMatch:
    """Candidates from the OR of every term, scored by relative BM25, coverage and phrases.

    With `keep`, learnings that hold only words most of the store holds are left out
    when `keep` others lead each of them by more than `slack` (what the tie-breakers can
    make up): they cannot place, and scoring them cost a search most of its BM25 time.
    """
    match = TextMatch()
    plan = fts.plan(text, glossary)
    if plan.terms:
        plan, counts = _term_sets(conn, plan, match)
        match.evidence = _Evidence(conn, plan, counts, match)
        _score(conn, match.evidence, statuses, tags, match, keep, slack)
    for run in re.findall(_CJK, text) if text and max(text) >= _CJK_FROM else ():
        for learning_id in fulltext.substring_matches(conn, run, statuses, tags):
            match.scored.setdefault(learning_id, _cjk_match(learning_id))
    return match


def _term_sets(
    conn: sqlite3.Connection, plan: fts.Plan, match: TextMatch
) -> tuple[fts.Plan, list[int]]:
    """How many learnings hold each term; a term found nowhere gets its likely spelling."""
    counts = []
    for index, term in enumerate(plan.terms):
        count = fulltext.term_count(conn, term.expression())
        if not count and len(term.word) >= MIN_TYPO_LENGTH and term.word.isalpha():
            fixed = typo_fix(conn, term.word)
            if fixed is not None:
                term = term.with_alternative(fixed)
                plan = plan.replaced(index, term)
                match.corrected[term.word] = fixed
                count = fulltext.term_count(conn, term.expression())
        counts.append(count)
    match.unknown_share = sum(1 for count in counts if not count) / len(counts)
    match.terms = len(counts)
    return plan, counts


def _score(
    conn: sqlite3.Connection,
    evidence: _Evidence,
    statuses: Sequence[str],
    tags: Sequence[str],
    match: TextMatch,
    keep: int | None,
    slack: float,
) -> None:
    """bm25 is asked of the terms fewer than half the store holds: FTS5 floors the others'
    idf, so they add next to nothing to it (they count in coverage). Learnings holding
    only those words follow with a bm25 of 0, unless `keep` others lead them all."""
    terms = evidence.plan.terms
    common = evidence.common_terms()
    if not common:
        candidates = fulltext.word_matches(conn, evidence.plan.any_expression(), statuses, tags)
        match.scored.update(evidence.scored(candidates)[0])
        return
    rare = " OR ".join(t.expression() for n, t in enumerate(terms) if n not in common)
    candidates = fulltext.word_matches(conn, rare, statuses, tags)
    if keep is not None:
        scored, best = evidence.scored(candidates)
        leaders = sorted((s.relevance for s in scored.values()), reverse=True)[keep - 1 : keep]
        if leaders and leaders[0] > evidence.left_out_bound(common, best) + slack:
            match.scored.update(scored)
            return
    if len(candidates) < fulltext.CANDIDATES:
        only = " OR ".join(terms[n].expression() for n in common)
        # In the order FTS5 gives them (by their words' counts), as one query for every
        # term would: their own bm25 is all below the floor.
        rest = fulltext.word_matches(
            conn, f"({only}) NOT ({rare})", statuses, tags, fulltext.CANDIDATES - len(candidates)
        )
        candidates = candidates + [(i, 0.0, row) for i, _, row in rest]
    match.scored.update(evidence.scored(candidates)[0])


class _Evidence:
    """What scoring one query's candidates needs besides their bm25: each term's weight
    (its idf) and which rows hold each term, phrase, nearness and summary word."""

    def __init__(
        self, conn: sqlite3.Connection, plan: fts.Plan, counts: list[int], match: TextMatch
    ) -> None:
        self.plan = plan
        self.total = fulltext.document_count(conn)
        expressions = [term.expression() for term in plan.terms]
        self.containing = [
            fulltext.TermRows(
                conn, own, " OR ".join(expressions[:n] + expressions[n + 1 :]), count, self.total
            )
            for n, (own, count) in enumerate(zip(expressions, counts, strict=True))
        ]
        self.weights = [_idf(self.total, count) for count in counts]
        for index, term in enumerate(plan.terms):
            if term.word in match.corrected:
                self.weights[index] *= TYPO_DISCOUNT  # a guessed spelling is weaker evidence
        self.all_weight = sum(self.weights) or 1.0
        # The weight of the words some learning holds: a word no learning holds weighs as
        # much as the rarest in `all_weight`, so a query with words the store never uses
        # covers little of itself anywhere, answered or not, and its bm25 outweighed its
        # coverage. The relevance and `known_coverage` measure coverage against this.
        self.known_weight = sum(w for w, count in zip(self.weights, counts, strict=True) if count)
        self.top_idf = _idf(self.total, 1)
        self.phrases = _phrase_shares(conn, plan, self.weights, self.all_weight)
        near_expression = plan.near_expression()
        self.near = fulltext.matching_rows(conn, near_expression) if near_expression else set()
        self.rows: dict[str, int] = {}  # id -> FTS rowid of every candidate scored

    def common_terms(self) -> list[int]:
        """The terms held by at least half the store, where FTS5 floors a word's idf at
        1e-6: their bm25 is next to nothing. Only single-form terms (an alternative is
        its own FTS5 phrase, with its own idf), and never every term."""
        common = [
            n
            for n, (term, rows) in enumerate(zip(self.plan.terms, self.containing, strict=True))
            if len(term.forms) == 1 and 2 * rows.count >= self.total
        ]
        return common if len(common) < len(self.plan.terms) else []

    def left_out_bound(self, common: list[int], best: float) -> float:
        """The highest relevance a learning holding only the `common` terms can have: their
        bm25 (each below FTS5's idf floor times k1 + 1), their weight, and the phrases made
        of them alone. It cannot be near (nearness needs every term)."""
        others = {t.word for n, t in enumerate(self.plan.terms) if n not in common}
        phrase = max(
            (
                share
                for text, (_, share) in zip(self.plan.phrases, self.phrases, strict=True)
                if not others & set(text.split())
            ),
            default=0.0,
        )
        coverage = min(sum(self.weights[n] for n in common) / (self.known_weight or 1.0), 1.0)
        bm25 = _FLOORED_BM25 * len(common) / best
        w = RELEVANCE_WEIGHTS
        return w["bm25"] * bm25 + w["coverage"] * coverage + w["phrase"] * phrase

    def summarise(
        self, conn: sqlite3.Connection, scored: dict[str, Scored], ids: Sequence[str]
    ) -> None:
        """`TextMatch.summarise`, for the candidates of this store among `ids`."""
        rows = {self.rows[i]: i for i in ids if i in self.rows and i in scored}
        if not rows:
            return
        plan, weights = self.plan, self.weights
        in_summary = [
            fulltext.matching_rows(conn, "summary : " + term.expression(), among=rows.keys())
            if holding.count
            else set()
            for term, holding in zip(plan.terms, self.containing, strict=True)
        ]
        for row, (weight, _, _) in _held_by(rows.keys(), weights, in_summary).items():
            scored[rows[row]].summary = weight / self.all_weight

    def scored(self, candidates: list[tuple[str, float, int]]) -> tuple[dict[str, Scored], float]:
        """Each candidate's match, and the best bm25 its relative bm25 is measured against."""
        found: dict[str, Scored] = {}
        if not candidates:
            return found, 1.0
        best = max(-raw for _, raw, _ in candidates) or 1.0
        weights, all_weight, top_idf = self.weights, self.all_weight, self.top_idf
        known_weight = self.known_weight or 1.0
        # What each candidate holds, from set intersections (in C) rather than one membership
        # test per candidate and set. Sums are accumulated in term order, as `sum` would.
        candidate_rows = {row for _, _, row in candidates}
        holders = [term.holding(candidate_rows) for term in self.containing]
        held = _held_by(candidate_rows, weights, holders)
        phrases = self.phrases
        best_phrase: dict[int, float] = {}
        for rows, share in phrases:
            for row in held.keys() & rows:
                best_phrase[row] = max(best_phrase.get(row, 0.0), share)
        whole_rows = phrases[0][0] if phrases and phrases[0][1] >= 0.999 else set()
        near_rows = held.keys() & self.near
        bm25_w, coverage_w = RELEVANCE_WEIGHTS["bm25"], RELEVANCE_WEIGHTS["coverage"]
        phrase_w, near_w = RELEVANCE_WEIGHTS["phrase"], RELEVANCE_WEIGHTS["near"]
        terms = len(self.weights) or 1
        for learning_id, raw, row in candidates:
            coverage, rarest, count = held[row]
            phrase = best_phrase.get(row, 0.0)
            nearness = 1.0 if row in near_rows else 0.0
            share, known = coverage / all_weight, min(coverage / known_weight, 1.0)
            relevance = bm25_w * (-raw / best) + coverage_w * known + phrase_w * phrase
            relevance += near_w * nearness
            tier = (
                "phrase"
                if row in whole_rows
                else "part"
                if phrase
                else "near"
                if nearness
                else "any"
            )
            found[learning_id] = Scored(
                learning_id,
                tier,
                round(-raw, 4),
                relevance,
                share,
                phrase,
                rarity=rarest / top_idf,
                weight=min(coverage / top_idf, 4.0) / 4.0,
                matched=count / terms,
                known_coverage=known,
                rarest_share=rarest / all_weight,
            )
            self.rows[learning_id] = row
        return found, best


def _held_by(
    rows: set[int] | KeysView[int], weights: list[float], containing: list[set[int]]
) -> dict[int, tuple[float, float, int]]:
    """Row -> (sum, largest, how many) of the weights of the sets holding it, for each of
    `rows`."""
    total = dict.fromkeys(rows, 0.0)
    largest = dict.fromkeys(rows, 0.0)
    count = dict.fromkeys(rows, 0)
    for weight, ids in zip(weights, containing, strict=True):
        for row in total.keys() & ids:
            total[row] += weight
            largest[row] = max(largest[row], weight)
            count[row] += 1
    return {row: (total[row], largest[row], count[row]) for row in total}


def _idf(total: int, frequency: int) -> float:
    """BM25's idf; a word no learning holds weighs as much as the rarest one."""
    return math.log(1.0 + (total - frequency + 0.5) / (frequency + 0.5))


def _phrase_shares(
    conn: sqlite3.Connection,
    plan: fts.Plan,
    weights: list[float],
    all_weight: float,
) -> list[tuple[set[int], float]]:
    """(ids holding the phrase, share of the query's weight its words carry) per phrase."""
    by_word = {term.word: weight for term, weight in zip(plan.terms, weights, strict=True)}
    shares = []
    for phrase in plan.phrases:
        share = sum(by_word.get(w, 0.0) for w in set(phrase.split())) / all_weight
        ids = fulltext.matching_rows(conn, plan.phrase_expression(phrase)) if share else set()
        shares.append((ids, min(share, 1.0)))
    return shares


def typo_fix(conn: sqlite3.Connection, word: str) -> str | None:
    """The word of the store closest to a misspelt one, if any is close enough.

    Hurried typos keep their first letter (`idempotncy`, `webhoks`); requiring it
    keeps real words the store lacks from being bent into ones it has (`sentry` is
    not `entry`, `argo` not `cargo`)."""
    best, best_ratio = None, TYPO_SIMILARITY
    seen: set[str] = set()
    for text in fulltext.trigram_neighbours(conn, word):
        for candidate in _WORD.findall(text.lower()):
            if candidate in seen or abs(len(candidate) - len(word)) > 2 or candidate[0] != word[0]:
                continue
            seen.add(candidate)
            import difflib  # only when there is a spelling to compare: it costs ~1 ms

            ratio = difflib.SequenceMatcher(None, word, candidate).ratio()
            if ratio > best_ratio:
                best, best_ratio = candidate, ratio
    return best


def semantic_enabled() -> bool:
    """On when the model is installed, unless ORBIT_SEMANTIC=0; decided without importing
    the semantic module (and its hashlib and numpy) when it cannot be on."""
    import os

    if os.environ.get("ORBIT_SEMANTIC", "1") == "0":
        return False
    if not _installed("numpy"):
        return False
    from orbit_learnings.retrieval import semantic

    return semantic.available()


def _installed(name: str) -> bool:
    """`importlib.util.find_spec(name) is not None` for a top-level name, asked of the
    import system's finders directly: `importlib.util` (and its contextlib) cost a
    search process ~0.7 ms to import, for a default install that has no numpy."""
    import sys

    if name in sys.modules:
        return True
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is not None and find_spec(name, None) is not None:
            return True
    return False
