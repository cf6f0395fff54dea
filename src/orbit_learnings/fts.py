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


def terms_of(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for word in _WORD.findall(text):
        seen.setdefault(word.lower(), None)
    return list(seen)[:MAX_TERMS]


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def tiers_for(text: str) -> list[Tier]:
    terms = terms_of(text)
    if not terms:
        return []
    if len(terms) == 1:
        return [Tier("prefix", _quote(terms[0]) + "*", 1.0)]
    quoted = [_quote(t) for t in terms]
    return [
        Tier("phrase", _quote(" ".join(terms)), 3.0),
        Tier("near", f"NEAR({' '.join(quoted)}, {NEAR_WINDOW})", 2.0),
        Tier("any", " OR ".join(quoted), 1.0),
    ]


def normalise_bm25(raw: float) -> float:
    """SQLite's bm25() is negative, lower is better; map it into (0, 1), higher is better."""
    strength = max(-raw, 0.0)
    return strength / (1.0 + strength)
