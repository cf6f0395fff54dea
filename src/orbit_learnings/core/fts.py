"""Turning free text into safe FTS5 queries, ranked phrase > near > any term.

User text never reaches FTS5 syntax directly: it is split into word tokens and
each is double-quoted, so quotes, dashes, colons, `AND`/`NEAR` and non-ASCII
input can only ever be searched for, never parsed as operators.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"\w+", re.UNICODE)
NEAR_WINDOW = 10
MAX_TERMS = 16


@dataclass(frozen=True)
class Tier:
    name: str
    expression: str
    weight: float  # added to the normalised BM25 so better tiers always rank first


_STOPWORD_TEXT = (
    "a an and are as at be but by can do does for from how i if in into is it its me my of on "
    "or should so that the their there this to was we what when where which while who why "
    "will with you your "
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def terms_of(text: str) -> list[str]:
    """Distinct lower-case word tokens, without stop words (unless nothing else is left)."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text):
        seen.setdefault(word.lower(), None)
    content = [w for w in seen if w not in STOPWORDS]
    return (content or list(seen))[:MAX_TERMS]


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def tiers_for(text: str) -> list[Tier]:
    """Phrase (every word, in order), then NEAR and OR over the content words."""
    terms = terms_of(text)
    if not terms:
        return []
    words = [w.lower() for w in _WORD.findall(text)][: MAX_TERMS * 2]
    if len(terms) == 1:
        tiers = [Tier("prefix", _quote(terms[0]) + "*", 1.0)]
        return [Tier("phrase", _quote(" ".join(words)), 3.0), *tiers] if len(words) > 1 else tiers
    quoted = [_quote(t) for t in terms]
    return [
        Tier("phrase", _quote(" ".join(words)), 3.0),
        Tier("near", f"NEAR({' '.join(quoted)}, {NEAR_WINDOW})", 2.0),
        Tier("any", " OR ".join(quoted), 1.0),
    ]


def normalise_bm25(raw: float) -> float:
    """SQLite's bm25() is negative, lower is better; map it into (0, 1), higher is better."""
    strength = max(-raw, 0.0)
    return strength / (1.0 + strength)
