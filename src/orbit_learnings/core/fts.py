"""Turning free text into a query plan: terms, their aliases and the phrases worth trying.

User text never reaches FTS5 syntax directly: it is split into word tokens and
each is double-quoted, so quotes, dashes, colons, `AND`/`NEAR` and non-ASCII
input can only ever be searched for, never parsed as operators.

A pasted error message is long and noisy (timestamps, pod hashes, line numbers),
and its answer usually quotes only part of it, so besides the whole query the
plan keeps each punctuation-delimited run of words as a phrase of its own:
`OOMKilled Exit Code: 137` tries "oomkilled exit code" and "137".

A glossary groups words that mean the same (`PDB`, "PodDisruptionBudget"); a query
word in a group is searched for as any member of it. The defaults cover the
field's common abbreviations; a team adds its own in `.orbit/glossary.yaml`
(`store.config.glossary`), which extends these groups rather than replacing them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

_WORD = re.compile(r"\w+", re.UNICODE)
# Runs of words separated by punctuation other than word-joining marks; a pasted
# message's parts ("Exit Code: 137", '"orders_id_seq"') each become a phrase.
_SEGMENT_BREAK = re.compile(r"[^\w\s'./+-]+|\s[-/]\s|\n")
_CODE = re.compile(r"[a-z]{1,4}\d{2,6}")  # E0502, SC2086, TS2345: error codes, not noise
NEAR_WINDOW = 10
MAX_TERMS = 24
MAX_PHRASES = 8
MAX_PHRASE_WORDS = 8

_STOPWORD_TEXT = (  # function words of questions and tasks: they say nothing of the topic
    "a about after again all also an and another any are as at be been before being but by can "
    "could did do does done for from get got had has have here how i if in into is it its just "
    "like me might my need needs new now of on one or other our same should so some still than "
    "that the their them then there they this to us use used using very want was way we what "
    "when where which while who why will with would you your "
    # the other pronouns and auxiliaries, and the pieces a contraction or possessive splits
    # into ("doesn't" -> doesn, t; "player's" -> s): a stray "s" matched a third of a store.
    # Not "am" (9 am) nor "won" (won't, and a match won): they are words of their own too.
    "aren couldn d didn doesn doing don hadn hasn haven having "
    "he her hers herself him himself his isn itself ll m mine myself ours "
    "ourselves re s she shan shouldn t theirs themselves these those ve wasn "
    "were weren whom wouldn yours yourself yourselves "
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def is_noise(word: str) -> bool:
    """Hashes, pod suffixes and ids from pasted logs: letters and digits mixed, no code shape."""
    digits = sum(c.isdigit() for c in word)
    if digits == 0 or digits == len(word):
        return False
    return len(word) >= 5 and digits >= 2 and not _CODE.fullmatch(word)


class Term:
    """One query word and the words or phrases that mean the same (glossary, typo fix)."""

    __slots__ = ("alternatives", "prefix", "word")

    def __init__(self, word: str, alternatives: tuple[str, ...] = (), *, prefix: bool = False):
        self.word = word
        self.alternatives = alternatives
        self.prefix = prefix

    def __repr__(self) -> str:
        return f"Term({self.word!r}, {self.alternatives!r}, prefix={self.prefix})"

    @property
    def forms(self) -> tuple[str, ...]:
        return (self.word, *self.alternatives)

    def expression(self) -> str:
        parts = [_quote(form) for form in self.forms]
        if self.prefix:
            parts[0] += "*"
        return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"

    def with_alternative(self, form: str) -> Term:
        if form in self.forms:
            return self
        return Term(self.word, (*self.alternatives, form), prefix=self.prefix)


class Plan:
    """What to ask the full-text index for one query. (Plain classes here and in
    `retrieval.scoring`: `dataclasses` would cost every search its `inspect` import.)"""

    __slots__ = ("phrases", "terms")

    def __init__(self, terms: tuple[Term, ...], phrases: tuple[str, ...]) -> None:
        self.terms = terms
        self.phrases = phrases  # the whole query first, then its punctuation-delimited parts

    def any_expression(self) -> str:
        return " OR ".join(term.expression() for term in self.terms)

    def near_expression(self) -> str | None:
        if len(self.terms) < 2:
            return None
        words = " ".join(_quote(term.word) for term in self.terms)
        return f"NEAR({words}, {NEAR_WINDOW})"

    @staticmethod
    def phrase_expression(phrase: str) -> str:
        return _quote(phrase)

    def replaced(self, index: int, term: Term) -> Plan:
        terms = list(self.terms)
        terms[index] = term
        return Plan(tuple(terms), self.phrases)


def terms_of(text: str) -> list[str]:
    """Distinct lower-case word tokens, without stop words (unless nothing else is left)."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text):
        seen.setdefault(word.lower(), None)
    content = [w for w in seen if w not in STOPWORDS and not is_noise(w)]
    return (content or list(seen))[:MAX_TERMS]


def phrases_of(text: str) -> list[str]:
    """The whole query (when it has several words), then each part of two or more words."""
    phrases: dict[str, None] = {}
    whole = [w.lower() for w in _WORD.findall(text)]
    if len(whole) > 1:
        phrases[" ".join(whole[: MAX_TERMS * 2])] = None
    for segment in _SEGMENT_BREAK.split(text):
        for run in _runs_between_noise(segment):
            while run and run[0] in STOPWORDS:
                run.pop(0)
            while run and run[-1] in STOPWORDS:
                run.pop()
            if 1 < len(run) <= MAX_PHRASE_WORDS:
                phrases.setdefault(" ".join(run), None)
    return list(phrases)[: MAX_PHRASES + 1]


def _runs_between_noise(segment: str) -> list[list[str]]:
    """A segment's words, split where a hash or pod suffix interrupts them."""
    runs: list[list[str]] = [[]]
    for word in (w.lower() for w in _WORD.findall(segment)):
        if is_noise(word):
            runs.append([])
        else:
            runs[-1].append(word)
    return [run for run in runs if run]


def plan(text: str, glossary: Glossary | None = None) -> Plan:
    """Terms (with glossary aliases) and phrases for `text`; no terms means no search."""
    words = terms_of(text)
    if not words:
        return Plan((), ())
    prefix = len(words) == 1 and len(words[0]) >= 3
    terms = [Term(word, prefix=prefix) for word in words]
    if glossary is not None:
        terms = glossary.expand(terms, [w.lower() for w in _WORD.findall(text)])
    return Plan(tuple(terms), tuple(phrases_of(text)))


# --- the glossary ---------------------------------------------------------------

ACRONYMS: dict[str, tuple[str, ...]] = {
    "pdb": ("PodDisruptionBudget", "pod disruption budget"),
    "hpa": ("HorizontalPodAutoscaler", "horizontal pod autoscaler", "autoscaler"),
    "pvc": ("PersistentVolumeClaim", "persistent volume claim"),
    "k8s": ("kubernetes",),
    "oom": ("out of memory", "OOMKilled"),
    "dlq": ("dead letter queue", "deadletter", "dead-letter"),
    "n+1": ("n plus one",),
    "jwt": ("json web token",),
    "mtls": ("mutual tls",),
    "rbac": ("role based access control",),
    "wal": ("write ahead log",),
    "cdn": ("content delivery network",),
    "csp": ("content security policy",),
    "cors": ("cross origin resource sharing", "cross-origin"),
    "csrf": ("cross site request forgery",),
    "xss": ("cross site scripting",),
    "slo": ("service level objective",),
    "sla": ("service level agreement",),
    "ttl": ("time to live", "expiry"),
    "etl": ("extract transform load",),
    "sso": ("single sign on",),
    "mfa": ("multi factor", "2fa", "two factor"),
    "orm": ("object relational mapper",),
    "ssr": ("server side rendering",),
    "gc": ("garbage collection", "garbage collector"),
    "a11y": ("accessibility",),
    "i18n": ("internationalization", "internationalisation", "translation"),
    "l10n": ("localization", "localisation"),
    "iac": ("infrastructure as code",),
    "rps": ("requests per second",),
    "qps": ("queries per second",),
    "db": ("database",),
    "pg": ("postgres", "postgresql"),
    "tf": ("terraform",),
    "gha": ("github actions",),
    "pr": ("pull request",),
    "ci": ("continuous integration",),
    "env": ("environment",),
    "txn": ("transaction",),
    "authn": ("authentication",),
    "authz": ("authorization", "authorisation"),
    "perf": ("performance",),
    "prod": ("production",),
    "repo": ("repository",),
    "deps": ("dependencies",),
    "config": ("configuration",),
    "ssl": ("tls",),
}
# The field's synonyms and spelling variants, for paraphrases: two ways engineers name one
# thing, never a looser "related to" (each alternative is searched as the word itself).
# General software-engineering vocabulary; a team's own terms go in .orbit/glossary.yaml.
FIELD_LEXICON: dict[str, tuple[str, ...]] = {
    "timezone": ("time zone", "tz"),
    "dst": ("daylight saving", "daylight savings", "summer time"),
    "float": ("floating point", "floating-point"),
    "flaky": ("flakey", "intermittent", "nondeterministic", "non-deterministic"),
    "timeout": ("time out", "timed out", "time-out"),
    "throttling": ("rate limiting", "rate limit", "throttle"),
    "latency": ("response time",),
    "p99": ("99th percentile", "tail latency"),
    "speedup": ("speed up", "speed-up"),
    "microbenchmark": ("benchmark", "micro benchmark"),
    "memory leak": ("leaks memory", "leaking memory"),
    "deprecation": ("deprecate", "deprecated", "sunset", "end of life", "eol"),
    "rollback": ("roll back", "rolled back"),
    "rollout": ("roll out", "rolled out"),
    "idempotent": ("idempotency", "idempotence"),
    "deduplicate": ("dedupe", "dedup", "deduplication"),
    "pagination": ("paging", "paginate", "paginated"),
    "race condition": ("data race",),
    "environment variable": ("env var", "envvar", "env variable"),
    "personal data": ("personally identifiable information", "pii"),
    "uuid": ("guid",),
    "regex": ("regular expression", "regexp"),
    "async": ("asynchronous",),
    "login": ("log in", "sign in", "signin", "logon"),
    "logout": ("log out", "sign out", "signout"),
    "signup": ("sign up",),
    "memory": ("ram",),
    "webhook": ("web hook",),
    "cron": ("crontab", "scheduled job"),
    "feature flag": ("feature toggle", "feature switch"),
    "e2e": ("end to end", "end-to-end"),
    "ui": ("user interface",),
    "dns": ("domain name system",),
    "vm": ("virtual machine",),
    "os": ("operating system",),
    "cd": ("continuous delivery", "continuous deployment"),
    "off by one": ("off-by-one", "fencepost"),
    "stale": ("outdated", "out of date", "out-of-date"),
    "charset": ("character encoding", "character set"),
    "utf-8": ("utf8",),
    "segfault": ("segmentation fault",),
    "stack trace": ("traceback", "backtrace", "stacktrace"),
    "credentials": ("credential", "secret", "secrets"),
}
DEFAULT_ENTRIES: dict[str, tuple[str, ...]] = {**ACRONYMS, **FIELD_LEXICON}


def words_of(text: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORD.findall(text))


MAX_ALTERNATIVES = 32  # words searched for one query word: a built-in group has 2 to 4
_Groups = dict[tuple[str, ...], set[tuple[str, ...]]]
_default_groups: _Groups | None = None  # the built-in entries' groups, made once per process


class Glossary:
    """Groups of equivalent words or phrases, looked up by any member."""

    __slots__ = ("_groups",)

    def __init__(self, entries: Mapping[str, Sequence[str]] = DEFAULT_ENTRIES) -> None:
        global _default_groups
        self._groups: _Groups = {}
        if entries is not DEFAULT_ENTRIES:
            self.extend(entries)
            return
        if _default_groups is None:  # a long-lived server searches many times
            self.extend(entries)
            _default_groups = dict(self._groups)
        # `extend` replaces a group's set and never changes one in place: sharing is safe.
        self._groups = dict(_default_groups)

    def extend(self, entries: Mapping[str, Sequence[str]]) -> None:
        """Add groups; a member already in a group joins the others to it.

        Linear in the entries (a union-find), so a chained glossary (`a: [b]`, `b: [c]`,
        ... 14,000 times) is one group made once, not remade at every link."""
        parent: dict[tuple[str, ...], tuple[str, ...]] = {}

        def find(member: tuple[str, ...]) -> tuple[str, ...]:
            root = member
            while parent.setdefault(root, root) != root:
                root = parent[root]
            while parent[member] != root:  # path compression: every later find is short
                parent[member], member = root, parent[member]
            return root

        for key, aliases in entries.items():
            listed = [m for m in (words_of(text) for text in (key, *aliases)) if m]
            for member in listed:
                parent[find(member)] = find(listed[0])
        for member in list(parent):  # a member already in a group brings that group along
            old = self._groups.get(member)
            if old:
                parent[find(next(iter(old)))] = find(member)
        joined: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
        for member in list(parent):
            joined.setdefault(find(member), set()).add(member)
        for members in joined.values():
            olds = {id(group): group for m in list(members) if (group := self._groups.get(m))}
            for group in olds.values():
                members |= group
            for member in members:
                self._groups[member] = members

    def group(self, member: str) -> set[tuple[str, ...]]:
        return self._groups.get(words_of(member), set())

    def expand(self, terms: Iterable[Term], words: Sequence[str]) -> list[Term]:
        """Give each term its group's other members; a multi-word member found in the
        query's words becomes one term searched for as any member of its group."""
        expanded: list[Term] = []
        consumed: set[str] = set()
        for member, group in self._groups.items():
            if len(member) > 1 and _contains(words, member):
                expanded.append(Term(" ".join(member), _others(group, member)))
                consumed |= set(member)
        for term in terms:
            if term.word in consumed:
                continue
            known = self._groups.get((term.word,))
            if known:
                fresh = [o for o in _others(known, (term.word,)) if o not in term.forms]
                term = Term(term.word, (*term.alternatives, *fresh), prefix=term.prefix)
            expanded.append(term)
        return expanded


def _others(group: set[tuple[str, ...]], member: tuple[str, ...]) -> tuple[str, ...]:
    """A member's group without it, in order, at most `MAX_ALTERNATIVES`: a query is one
    OR over them, and a glossary of thousands of chained entries must not make it huge."""
    from heapq import nsmallest  # the first few of a large group, in one pass

    others = nsmallest(MAX_ALTERNATIVES, (m for m in group if m != member))
    return tuple(" ".join(m) for m in others)


def _contains(words: Sequence[str], run: tuple[str, ...]) -> bool:
    size = len(run)
    return any(tuple(words[i : i + size]) == run for i in range(len(words) - size + 1))
