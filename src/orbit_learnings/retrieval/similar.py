"""Near-duplicate detection: suggest an upvote instead of a second copy of a lesson.

Candidates come from the full-text index. Similarity is by meaning, cheap and explainable
with no model: the two summaries' content words, each reduced to one form (a light stem, and
the glossary's group, so `repo` and `repository` or `DB` and `database` are one term), with
the words that only say how strongly a rule holds (`never`, `always`, `instead`, `must`)
left out. The score is the mean of the Jaccard overlap and the overlap coefficient (shared
terms over the smaller set), so a short restatement of a longer lesson still scores; sets
under three terms count by Jaccard alone. With the semantic extra, cosine similarity of
embeddings can only raise the score. The threshold is `SIMILARITY`, chosen on
tests/eval/duplicates/tuning.yaml (scripts/eval_duplicates.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orbit_learnings.core.fts import Glossary
from orbit_learnings.store.workspace import Workspace

SIMILARITY = 0.6
_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORD_TEXT = (
    "a an and are as at be before but by do does for from has have in into is it its not of "
    "on or so than that the then this to use was were when with without "
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# How strongly a rule holds, not what it is about: "never npm" and "instead of npm" agree.
_FORCE_TEXT = (
    "always never instead dont must should avoid prefer only every all any each one "
    "rather no use using used make sure please here our we you your it's"
)
FORCE_WORDS = frozenset(_FORCE_TEXT.split())


@dataclass(frozen=True)
class Similar:
    id: str
    summary: str
    similarity: float

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "summary": self.summary, "similarity": self.similarity}


def content_words(text: str) -> set[str]:
    words = {w.lower() for w in _WORD.findall(text)}
    meaningful = words - STOPWORDS
    return meaningful or words


def _stem(word: str) -> str:
    """One form for `store`, `stored`, `stores`; `run`, `running`: suffix off, a doubled
    last letter single, a final `e` off. Crude, and the same on both sides."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: len(word) - len(suffix)] + keep
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


# Developers' everyday short forms, each with one meaning in a lesson's summary: "repo" and
# "repository" are one word to a reader. Ambiguous ones ("dev", "ts", "pr") are left out.
SHORT_FORMS = {
    "repo": "repository", "repos": "repository", "config": "configuration",
    "configs": "configuration", "env": "environment", "envs": "environment",
    "dep": "dependency", "deps": "dependency", "db": "database", "dbs": "database",
    "dir": "directory", "dirs": "directory", "doc": "documentation", "docs": "documentation",
    "auth": "authentication", "msg": "message", "msgs": "message", "pkg": "package",
    "pkgs": "package", "prod": "production", "impl": "implementation", "arg": "argument",
    "args": "argument", "param": "parameter", "params": "parameter", "func": "function",
    "var": "variable", "vars": "variable", "tmp": "temporary", "temp": "temporary",
}  # fmt: skip


def meaning_terms(text: str, glossary: Glossary | None = None) -> set[str]:
    """A summary's content words, each in one canonical form."""
    terms: set[str] = set()
    words = {w.lower() for w in _WORD.findall(text.replace("'", ""))}
    for word in words - STOPWORDS - FORCE_WORDS:
        word = SHORT_FORMS.get(word, word)
        group = glossary.group(word) if glossary is not None else set()
        terms.add(min(" ".join(m) for m in group) if group else _stem(word))
    return terms


def likeness(a: str, b: str, glossary: Glossary | None = None) -> float:
    """How nearly two summaries say the same thing, 0..1."""
    left, right = meaning_terms(a, glossary), meaning_terms(b, glossary)
    if not left or not right:
        return 0.0
    shared = len(left & right)
    union = shared / len(left | right)
    smaller = min(len(left), len(right))
    if smaller < 3:
        return union
    return (union + shared / smaller) / 2


def jaccard(a: str, b: str) -> float:
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def _cosines(ws: Workspace, summary: str, ids: list[str]) -> dict[str, float]:
    """Cosine similarity to cached vectors when the semantic extra is in use, rescaled so
    that cosine 0.85 lands on the Jaccard threshold."""
    from orbit_learnings.retrieval import scoring as search

    if not ids or not search.semantic_enabled():
        return {}
    from orbit_learnings.index.build import open_fresh
    from orbit_learnings.retrieval import semantic

    with open_fresh(ws) as fresh:
        if not semantic.has_vectors(fresh.conn):
            return {}
        ranked = dict(semantic.vector_ranking(fresh.conn, summary, ("active",)))
    scale = SIMILARITY / semantic.SIMILAR_COSINE
    return {i: ranked[i] * scale for i in ids if ranked.get(i, 0.0) >= semantic.SIMILAR_COSINE}


def find_similar(ws: Workspace, summary: str, body: str = "", limit: int = 3) -> list[Similar]:
    """Active learnings and open proposals whose summary says nearly the same thing (two
    people, or two agents, proposing one lesson is a duplicate too)."""
    from orbit_learnings.retrieval.queries import search_text
    from orbit_learnings.store import config

    candidates = [
        *search_text(ws, summary, limit=25).hits,
        *search_text(ws, summary, status="proposed", limit=10).hits,
    ]
    cosines = _cosines(ws, summary, [h.id for h in candidates])
    glossary = config.glossary(ws)
    found = [
        Similar(
            hit.id,
            hit.summary,
            round(max(likeness(summary, hit.summary, glossary), cosines.get(hit.id, 0.0)), 3),
        )
        for hit in candidates
    ]
    close = [s for s in found if s.similarity >= SIMILARITY]
    close.sort(key=lambda s: (-s.similarity, s.id))
    return close[:limit]
