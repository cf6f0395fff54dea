"""Learning IDs, store levels and statuses: the one definition every layer reads.

An ID is a level's prefix, a dash, and either a sequential number (`L-0042`) or a
random Crockford base-32 name with at least one letter (`L-7KQ2M9XD`). The prefix
says which store holds it: `L-` the project's, `U-` the personal one, `O-` the
organisation's (a shared repository the project subscribes to, `orbit org`). Adding a
level means adding a line to `PREFIXES`; every pattern below follows.

An org repository may declare its own prefix instead of `O` (`orbit org init --prefix
ACME`): 1-4 ASCII capitals, never `L` or `U`. IDs are recognised only with a prefix
this process knows, the built-in three plus the one the current repository declares or
reads (`declare_source`), so prose such as "RFC-2119" or "ISO-8601" never becomes an ID.
The declared one is looked up lazily, the first time an ID with an unknown prefix is
met: reading `L-`, `U-` and `O-` IDs never costs a file read.
"""

from __future__ import annotations

import re

from orbit_learnings.core.numbers import whole_number

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

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
# The built-in levels' forms. \Z, not $: `$` also matches before a final newline, and
# "L-0001\n" is no ID. Code that must also know a declared org prefix calls
# `is_learning_id`, `sequential_number` and `id_in_text` instead.
SEQUENTIAL_ID = re.compile(rf"^{_PREFIX_CLASS}-({_SEQUENTIAL})\Z")
ID_SOURCE = rf"^{_PREFIX_CLASS}-(?:{_SEQUENTIAL}|{_RANDOM})\Z"
# An ID inside free text (agent output, URLs): the same forms, bounded by non-word chars.
ID_IN_TEXT = rf"\b{_PREFIX_CLASS}-(?:{_SEQUENTIAL}|{_RANDOM})\b"
# Any prefix an org may declare, for the shape check only: whether it is one this
# process accepts is asked of `_known` (never a pattern of every capital letter).
MAX_PREFIX_CHARS = 4
RESERVED_PREFIXES = (PREFIXES["project"], PREFIXES["user"])
_ANY_ID = rf"^([A-Z]{{1,{MAX_PREFIX_CHARS}}})-(?:({_SEQUENTIAL})|{_RANDOM})\Z"
EXAMPLE_ID = "L-0001"

# A vote's or a feedback row's task and model name: an issue key, a run ID, an agent
# family. Bounded where they come in (CLI, MCP, the page) and where they are read.
MAX_TASK_ID_CHARS = 200
MAX_MODEL_CHARS = 100

RANDOM_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I, L, O, U
RANDOM_LENGTH = 8  # 40 bits


def is_learning_id(value: str) -> bool:
    match = _compiled("any", _ANY_ID).match(value)
    return match is not None and _known(match.group(1))


def sequential_number(value: str, prefix: str) -> int | None:
    """The number of a sequential ID with this prefix (`L-0042` -> 42), else None."""
    match = _compiled("any", _ANY_ID).match(value)
    if not match or match.group(1) != prefix or match.group(2) is None:
        return None
    return int(match.group(2))


def prefix_problem(value: object) -> str | None:
    """Why `value` cannot be an org's ID prefix, None when it can: 1-4 ASCII capital
    letters, and not a prefix another level's IDs already use."""
    text = value if isinstance(value, str) else ""
    if not (0 < len(text) <= MAX_PREFIX_CHARS and text.isascii() and text.isalpha()):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        return f"an ID prefix is 1-{MAX_PREFIX_CHARS} capital letters A-Z, got {shown}"
    if not text.isupper():
        return f"an ID prefix is capital letters, got {text!r} (try {text.upper()!r})"
    if text in RESERVED_PREFIXES:
        level = LEVEL_OF_PREFIX[text]
        return f"{text}- IDs are the {level} store's; choose another prefix (O by default)"
    return None


_patterns: dict[str, re.Pattern[str]] = {}


def _compiled(name: str, source: str) -> re.Pattern[str]:
    """Compiled on first use: the hot read path imports this module but never checks an ID."""
    pattern = _patterns.get(name)
    if pattern is None:
        pattern = _patterns[name] = re.compile(source)
    return pattern


# The process's current repository, and how to learn the prefix it declares or reads
# (`store.workspace.declare_prefixes` sets it); what that lookup found, once asked.
# One read and one write each, never a check then an index: the dashboard's worker threads
# read while another request declares its repository again.
_source: list[Callable[[], Iterable[str]]] = []
_declared: dict[str, tuple[str, ...]] = {}


def declare_source(lookup: Callable[[], Iterable[str]]) -> None:
    """Name how to find the declared prefixes of the repository being worked in; nothing
    is read until an ID with a prefix other than L, U or O needs judging."""
    _source[:] = [lookup]
    _declared.pop("prefixes", None)
    _patterns.pop("text", None)


def declared_prefixes() -> tuple[str, ...]:
    """The valid prefixes the current repository declares or reads, besides L, U, O."""
    cached = _declared.get("prefixes")
    if cached is not None:
        return cached
    found: list[str] = []
    for lookup in list(_source):
        try:  # a broken declaration is no prefix, never a crash: hooks ask this
            found += [p for p in lookup() if prefix_problem(p) is None]
        except Exception:
            found = []
    prefixes = tuple(p for p in dict.fromkeys(found) if p not in LEVEL_OF_PREFIX)
    _declared["prefixes"] = prefixes
    return prefixes


def _known(prefix: str) -> bool:
    return prefix in LEVEL_OF_PREFIX or prefix in declared_prefixes()


def id_in_text() -> re.Pattern[str]:
    """An ID inside free text (agent output, URLs), with any prefix this process knows."""
    pattern = _patterns.get("text")
    if pattern is None:
        known = sorted((*LEVEL_OF_PREFIX, *declared_prefixes()), key=lambda p: (-len(p), p))
        alternatives = "|".join(known)
        source = rf"\b(?:{alternatives})-(?:{_SEQUENTIAL}|{_RANDOM})\b"
        pattern = _patterns["text"] = re.compile(source)
    return pattern


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
        prefixes = [prefix] if dash else [*PREFIXES.values(), *declared_prefixes()]
        candidates += [format_sequential_id(number, p) for p in prefixes if p]
    found = [c for c in candidates if c in known and c != text]
    if found:
        return found[0]
    import difflib

    close = difflib.get_close_matches(text.upper(), known, n=1, cutoff=0.75)
    return close[0] if close and close[0] != text else None


def level_of(learning_id: str) -> str:
    """The level whose store holds this ID ("project" for anything unrecognised); an
    org's declared prefix is the org's. A prefix typed in lower case (`acme-1`, `u-3`)
    names the same level, so the did-you-mean looks in the store that has the ID."""
    prefix = learning_id.partition("-")[0].upper()
    level = LEVEL_OF_PREFIX.get(prefix)
    if level is not None:
        return level
    return "org" if prefix and prefix in declared_prefixes() else "project"
