"""Free-text search: how well each learning matches the query (`combined` adds the tie-breakers).

The text match decides the order; votes, recency and helpfulness only break near-ties:

    relevance = 0.45 * bm25 / best bm25 of this query     # relative, never saturating
              + 0.35 * coverage                           # share of the query's idf weight
              + 0.15 * phrase                             # the longest phrase it contains
              + 0.05 * near                               # every term within 10 words
    score     = relevance
              + w_votes * (1 - exp(-vote_score / 3))      # decayed votes, saturating
              + w_recency * max(0, 1 - age_days / 30)     # fades over 30 days
              + w_helpful * (confidence - 0.5) * 2        # feedback, -0.8 .. +1

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
from orbit_learnings.index import fulltext, reads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.core.fts import Glossary

DEFAULT_WEIGHTS = {"text": 1.0, "votes": 0.04, "recency": 0.01, "helpfulness": 0.02}
RELEVANCE_WEIGHTS = {"bm25": 0.45, "coverage": 0.35, "phrase": 0.15, "near": 0.05}
MIN_TYPO_LENGTH = 5
TYPO_SIMILARITY = 0.8
TYPO_DISCOUNT = 0.5
# Compiled on first use (by `re`'s cache), and only for text with a character this high:
# compiling the class costs a search process over a millisecond.
_CJK = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+"
_CJK_FROM = "\u3040"
_WORD = re.compile(r"\w+", re.UNICODE)


class Scored:
    """How one learning matched one query. A plain class: `dataclasses` would cost every
    search process the import of `inspect` and `ast`."""

    __slots__ = (
        "bm25",
        "cosine",
        "coverage",
        "id",
        "phrase",
        "rarity",
        "relevance",
        "summary",
        "tier",
        "weight",
    )

    def __init__(
        self,
        id: str,
        tier: str,
        bm25: float,
        relevance: float,
        coverage: float = 0.0,
        phrase: float = 0.0,
        *,
        rarity: float = 0.0,  # idf of the rarest query word it holds, over the largest possible
        weight: float = 0.0,  # idf it holds in all, in units of that largest idf (capped at 4)
        cosine: float = 0.0,  # similarity of its vector to the query's, when vectors were used
        summary: float = 0.0,  # share of the query's idf weight found in its one-line summary
    ) -> None:
        self.id, self.tier, self.bm25, self.relevance = id, tier, bm25, relevance
        self.coverage, self.phrase, self.rarity, self.weight = coverage, phrase, rarity, weight
        self.cosine, self.summary = cosine, summary

    def copy(self) -> Scored:
        twin = Scored(self.id, self.tier, self.bm25, self.relevance)
        for name in self.__slots__:
            setattr(twin, name, getattr(self, name))
        return twin


def _cjk_match(learning_id: str) -> Scored:
    """A CJK run found verbatim: the whole run matched, as a phrase would."""
    return Scored(learning_id, "cjk", 0.0, 0.5, 1.0, 1.0, rarity=1.0, weight=0.5, summary=1.0)


class TextMatch:
    """The candidates of one query, and what the query itself looked like to the index."""

    __slots__ = ("corrected", "scored", "semantic", "terms", "unknown_share")

    def __init__(self) -> None:
        self.scored: dict[str, Scored] = {}
        self.unknown_share = 0.0  # share of the query's terms no learning contains
        self.terms = 0  # how many terms the query was searched for with
        self.semantic = False  # whether vectors took part in the ranking
        self.corrected: dict[str, str] = {}  # typo -> the word searched for


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
) -> TextMatch:
    """Candidates from the OR of every term, scored by relative BM25, coverage and phrases."""
    match = TextMatch()
    plan = fts.plan(text, glossary)
    if plan.terms:
        plan, containing = _term_sets(conn, plan, match)
        _score(conn, plan, containing, statuses, tags, match)
    for run in re.findall(_CJK, text) if text and max(text) >= _CJK_FROM else ():
        for learning_id in fulltext.substring_matches(conn, run, statuses, tags):
            match.scored.setdefault(learning_id, _cjk_match(learning_id))
    return match


def _term_sets(
    conn: sqlite3.Connection, plan: fts.Plan, match: TextMatch
) -> tuple[fts.Plan, list[set[int]]]:
    """Which learnings hold each term; a term found nowhere gets its likely spelling."""
    containing = []
    for index, term in enumerate(plan.terms):
        ids = fulltext.matching_rows(conn, term.expression())
        if not ids and len(term.word) >= MIN_TYPO_LENGTH and term.word.isalpha():
            fixed = typo_fix(conn, term.word)
            if fixed is not None:
                term = term.with_alternative(fixed)
                plan = plan.replaced(index, term)
                match.corrected[term.word] = fixed
                ids = fulltext.matching_rows(conn, term.expression())
        containing.append(ids)
    match.unknown_share = sum(1 for ids in containing if not ids) / len(containing)
    match.terms = len(containing)
    return plan, containing


def _score(
    conn: sqlite3.Connection,
    plan: fts.Plan,
    containing: list[set[int]],
    statuses: Sequence[str],
    tags: Sequence[str],
    match: TextMatch,
) -> None:
    candidates = fulltext.word_matches(conn, plan.any_expression(), statuses, tags)
    if not candidates:
        return
    total = fulltext.document_count(conn)
    weights = [_idf(total, len(ids)) for ids in containing]
    for index, term in enumerate(plan.terms):
        if term.word in match.corrected:
            weights[index] *= TYPO_DISCOUNT  # a guessed spelling is weaker evidence
    all_weight = sum(weights) or 1.0
    top_idf = _idf(total, 1)
    phrases = _phrase_shares(conn, plan, containing, weights, all_weight)
    near_expression = plan.near_expression()
    near = fulltext.matching_rows(conn, near_expression) if near_expression else set()
    in_summary = [
        fulltext.matching_rows(conn, "summary : " + term.expression()) if ids else set()
        for term, ids in zip(plan.terms, containing, strict=True)
    ]
    best = max(-raw for _, raw, _ in candidates) or 1.0
    # What each candidate holds, from set intersections (in C) rather than one membership
    # test per candidate and set. Sums are accumulated in term order, as `sum` would.
    held = _held_by({row for _, _, row in candidates}, weights, containing)
    in_summary_weight = _held_by(held.keys(), weights, in_summary)
    best_phrase: dict[int, float] = {}
    for rows, share in phrases:
        for row in held.keys() & rows:
            best_phrase[row] = max(best_phrase.get(row, 0.0), share)
    whole_rows = phrases[0][0] if phrases and phrases[0][1] >= 0.999 else set()
    near_rows = held.keys() & near
    bm25_w, coverage_w = RELEVANCE_WEIGHTS["bm25"], RELEVANCE_WEIGHTS["coverage"]
    phrase_w, near_w = RELEVANCE_WEIGHTS["phrase"], RELEVANCE_WEIGHTS["near"]
    for learning_id, raw, row in candidates:
        coverage, rarest = held[row]
        phrase = best_phrase.get(row, 0.0)
        nearness = 1.0 if row in near_rows else 0.0
        share = coverage / all_weight
        relevance = bm25_w * (-raw / best) + coverage_w * share + phrase_w * phrase
        relevance += near_w * nearness
        tier = (
            "phrase" if row in whole_rows else "part" if phrase else "near" if nearness else "any"
        )
        match.scored[learning_id] = Scored(
            learning_id,
            tier,
            round(-raw, 4),
            relevance,
            share,
            phrase,
            rarity=rarest / top_idf,
            weight=min(coverage / top_idf, 4.0) / 4.0,
            summary=in_summary_weight[row][0] / all_weight,
        )


def _held_by(
    rows: set[int] | KeysView[int], weights: list[float], containing: list[set[int]]
) -> dict[int, tuple[float, float]]:
    """Row -> (sum, largest) of the weights of the sets holding it, for each of `rows`."""
    total = dict.fromkeys(rows, 0.0)
    largest = dict.fromkeys(rows, 0.0)
    for weight, ids in zip(weights, containing, strict=True):
        for row in total.keys() & ids:
            total[row] += weight
            largest[row] = max(largest[row], weight)
    return {row: (total[row], largest[row]) for row in total}


def _idf(total: int, frequency: int) -> float:
    """BM25's idf; a word no learning holds weighs as much as the rarest one."""
    return math.log(1.0 + (total - frequency + 0.5) / (frequency + 0.5))


def _phrase_shares(
    conn: sqlite3.Connection,
    plan: fts.Plan,
    containing: list[set[int]],
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


def hybrid(
    conn: sqlite3.Connection,
    text: str,
    statuses: Sequence[str],
    tags: Sequence[str],
    bm25: dict[str, Scored],
) -> dict[str, Scored]:
    """Fuse BM25 with the vector ranking (when vectors are cached); relevance becomes the
    normalised fused score. Skipped when BM25 is already confident."""
    from orbit_learnings.retrieval import semantic

    strengths = [s.bm25 / (1.0 + s.bm25) for s in bm25.values()]
    if semantic.bm25_confident(strengths):
        return bm25
    vectors = semantic.vector_ranking(conn, text, statuses)
    if tags:
        allowed = reads.ids_with_tags(conn, tags)
        vectors = [(i, c) for i, c in vectors if i in allowed]
    if not vectors:
        return bm25
    bm25_order = sorted(bm25, key=lambda i: (-bm25[i].relevance, i))
    fused = semantic.rrf(
        [bm25_order, [i for i, _ in vectors]], [semantic.BM25_WEIGHT, semantic.VECTOR_WEIGHT]
    )
    cosines = dict(vectors)
    top = semantic.max_rrf()
    out: dict[str, Scored] = {}
    for learning_id, score in fused.items():
        known = bm25.get(learning_id) or Scored(learning_id, "", 0.0, 0.0)
        fused_one = known.copy()
        fused_one.tier = "+".join(
            filter(None, (known.tier, "vector" if learning_id in cosines else ""))
        )
        fused_one.relevance = min(score / top, 1.0)
        fused_one.cosine = cosines.get(learning_id, 0.0)
        out[learning_id] = fused_one
    return out


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
