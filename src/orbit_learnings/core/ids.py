"""Learning IDs, store levels and statuses: the one definition every layer reads.

An ID is a level's prefix, a dash, and either a sequential number (`L-0042`) or a
random Crockford base-32 name with at least one letter (`L-7KQ2M9XD`). The prefix
says which store holds it: `L-` the project's, `U-` the personal one, `O-` the
organisation's (a shared repository the project subscribes to, `orbit org`). Adding a
level means adding a line to `PREFIXES`; every pattern below follows.
"""

from __future__ import annotations

import re

from orbit_learnings.core.numbers import whole_number

PREFIXES = {"project": "L", "user": "U", "org": "O"}  # level -> ID prefix
LEVEL_OF_PREFIX = {prefix: level for level, prefix in PREFIXES.items()}
LEVEL_CHOICES = (*PREFIXES, "all")

STATUSES = ("active", "proposed", "superseded", "archived")  # proposed: awaiting review
STATUS_CHOICES = (*STATUSES, "all")

_PREFIX_CLASS = "[" + "".join(PREFIXES.values()) + "]"
# Bounded, so a typed or committed `L-` + 300 digits is no ID (not a file name too long
# for the system, nor a number too large for SQLite), and the next sequential ID stays
# a number every layer can hold.
MAX_SEQUENTIAL_DIGITS = 12
MAX_RANDOM_CHARS = 16
_SEQUENTIAL = rf"\d{{4,{MAX_SEQUENTIAL_DIGITS}}}"
_RANDOM = rf"(?=[0-9A-Z]*[A-Z])[0-9A-Z]{{8,{MAX_RANDOM_CHARS}}}"
# \Z, not $: `$` also matches before a final newline, and "L-0001\n" is no ID.
SEQUENTIAL_ID = re.compile(rf"^{_PREFIX_CLASS}-({_SEQUENTIAL})\Z")
ID_SOURCE = rf"^{_PREFIX_CLASS}-(?:{_SEQUENTIAL}|{_RANDOM})\Z"
# An ID inside free text (agent output, URLs): the same forms, bounded by non-word chars.
ID_IN_TEXT = rf"\b{_PREFIX_CLASS}-(?:{_SEQUENTIAL}|{_RANDOM})\b"
EXAMPLE_ID = "L-0001"

# A vote's or a feedback row's task and model name: an issue key, a run ID, an agent
# family. Bounded where they come in (CLI, MCP, the page) and where they are read.
MAX_TASK_ID_CHARS = 200
MAX_MODEL_CHARS = 100

RANDOM_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I, L, O, U
RANDOM_LENGTH = 8  # 40 bits


def is_learning_id(value: str) -> bool:
    return bool(_id_pattern().match(value))


_compiled: list[re.Pattern[str]] = []


def _id_pattern() -> re.Pattern[str]:
    """Compiled on first use: the hot read path imports this module but never checks an ID."""
    if not _compiled:
        _compiled.append(re.compile(ID_SOURCE))
    return _compiled[0]


def format_sequential_id(number: int, prefix: str = PREFIXES["project"]) -> str:
    return f"{prefix}-{number:04d}"


def meant_id(typed: str, known: list[str]) -> str | None:
    """The known ID a mistyped one most likely meant: case (`l-0001`), missing padding
    (`L-001`, `L-1`), a bare number (`1`), or a near spelling; None when nothing is close."""
    text = typed.strip()
    prefix, dash, rest = text.upper().rpartition("-")
    candidates = [text.upper()]
    number = whole_number(rest)
    if number is not None:
        prefixes = [prefix] if dash else list(PREFIXES.values())
        candidates += [format_sequential_id(number, p) for p in prefixes if p]
    found = [c for c in candidates if c in known and c != text]
    if found:
        return found[0]
    import difflib

    close = difflib.get_close_matches(text.upper(), known, n=1, cutoff=0.75)
    return close[0] if close and close[0] != text else None


def level_of(learning_id: str) -> str:
    """The level whose store holds this ID ("project" for anything unrecognised)."""
    return LEVEL_OF_PREFIX.get(learning_id.partition("-")[0], "project")
