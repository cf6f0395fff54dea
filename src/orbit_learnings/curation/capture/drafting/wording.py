"""The line a reviewer reads first: a rule, in the words and the language it was said in.

Blind reviewers kept 4 of 30 drafts that quoted the person's first sentence as the summary:
it was a question, an acknowledgement, a bug report or a pasted log as often as a rule. So
the summary is chosen, not copied: the sentence that reads most like a standing rule (a rule
word, a quantifier such as "every" or "以后所有"), never a question, an acknowledgement, a
report of what the screen shows, output pasted from a terminal, or a sentence that points at
"line 16"; lead-ins ("no,", "let's", "I need to correct my earlier advice", "the issue is
that") dropped; commands, paths and identifiers in code format; about 80 characters, cut at
a clause. When nothing is left that a reviewer could keep, there is no summary (and no
draft): the moment was real, its words hold no rule.
"""

from __future__ import annotations

import re

from orbit_learnings.curation.capture.moments import rule_cue
from orbit_learnings.curation.capture.moments.base import SENTENCE_BREAK

MAX_SUMMARY = 90  # cut at a clause beyond this ...
MAX_WHOLE = 120  # ... but a rule without one is kept whole up to this, rather than cut
# A rule word: normative, or imperative with a rule in it ("never", "must", "以后", "ではなく").
# One list, read here to choose a sentence and by the draft gate to decide a draft.
RULE_WORD = re.compile(
    r"\b(don'?t|do not|never|always|instead|must|should|prefer|avoid|from now on|going forward|"
    r"make sure|remember|immer|niemals|nie|statt|jamais|toujours|au lieu|nunca|siempre|debe\w*|"
    r"hay que|em vez|sempre|всегда|никогда|нельзя|вместо|нужно|должн\w*)\b"
    r"|不要|别|应该|必须|总是|不能|改用|以后|而非|而不是|一律|统一|始终|记住|"
    r"ではなく|しないで|必ず|常に|今後|항상|절대|대신|말고|해야",
    re.I,
)
# A class of things rather than this one thing: "every", "all", "only", "所有", "すべて".
GENERAL_CLASS = re.compile(
    r"\b(every|each|all|any|whenever|only|cada|todos?|todas?|jede[rsn]?|alle|tous|toutes|"
    r"chaque|все|каждый)\b|所有|全部|每个|任何|すべて|全て|모든",
    re.I,
)
# Words that lean a sentence toward a rule in languages the moment cues cover thinly: a
# negation, "use". ("I want you to" is left out: far more often a task than a rule.)
_LEANS = re.compile(
    r"\b(не|без|используй\w*|должн\w*|usa|utiliza|no|nicht|kein\w*|sans)\b|不|別|하지",
    re.I,
)


def reads_as_rule(text: str) -> bool:
    """Whether any sentence leans toward a rule (a rule word, a negation, "I want you to")."""
    return rule_cue(text) or bool(RULE_WORD.search(text) or _LEANS.search(text))


_LEAD = re.compile(
    r"^(no+|nope|nah|actually|wait|hmm+|ok(ay)?|well|also|and|but|so|pleas?e?|pls|plz|hey|lol|yes|"
    r"yeah|sure|right|let'?s|let us|i want you to|i'?d like you to|can you|could you|"
    r"you (should|need to|have to|must)|we (should|need to|have to|must)|"
    r"und|bitte|nein|doch|non|não|いや|いいえ|不对|不是|采用如下方案|按这个方案|就这样|好的)\b"
    r"[,.!:;，。！ ]*\s*",
    re.I,
)
_ASKS = re.compile(
    r"[?？]\s*$|[吗嗎呢]\s*$|か\s*$|니까\s*$|吗[,，]|会不会|是不是|能不能|要不要|有没有|好不好"
)
# A question word first asks only when no rule word follows ("Do not use npm" is a rule).
_ASKING = re.compile(
    r"^\W*(how|what|why|where|when|which|who|can|could|would|is|are|does|do|did|wie|was|warum|"
    r"comment|pourquoi|cómo|qué|por qué|почему|как|что)\b",
    re.I,
)


def _asks(sentence: str) -> bool:
    return bool(
        _ASKS.search(sentence) or (_ASKING.match(sentence) and not RULE_WORD.search(sentence))
    )


_ACKNOWLEDGES = re.compile(
    r"^\W*(yes|yeah|yep|ok(ay)?|sure|sounds good|go ahead|continue|proceed|great|perfect|thanks|"
    r"thank you|nice|cool|lgtm|let'?s (try|go|do)|try (option|that|it)|option \d|好的|好|可以|继续|"
    r"はい|お願いします|ja|oui|sí|да)\b",
    re.I,
)
_REPORTS = re.compile(
    r"\b(it (shows|says|prints|gives)|console shows|i (see|get|got|opened|ran|tried)|"
    r"(still )?(doesn'?t|does not|isn'?t|is not) work|white page|blank page|there is an error|"
    r"it (fails|failed|crashes|broke)|it seems|seems to be|looks like)\b|Uncaught|Traceback|"
    r"Error:|报错|エラー",
    re.I,
)
_POINTS_AT_LINE = re.compile(r"\b(on |at |in )?lines? \d+|\bL\d+\b|第\s*\d+\s*行", re.I)
_PASTED = re.compile(
    r"^\s*(\S+@\S+[^%$#]*[%$#]\s|remote:|To (https?|git@)|Total \d|\*?\s*\[new branch\]|"
    r"https?://\S+$|at \S+:\d+|\d+→|[│|]|```|\$ |> |\s{2,}\S)"
)
_HEADING = re.compile(r"^\s*#{1,6}\s", re.M)
_HARNESS = re.compile(r"<[a-z_-]+>.*?</[a-z_-]+>|\$ARGUMENTS", re.S)
_CLAUSE = re.compile(
    r"\s*(?:;|:| — | – |, (?:because|since|so|which|and then|but)\b| because\b)\s*"
)
# The agent's lead-ins before the news: retractions and "the issue is that".
_RETRACTS = re.compile(
    r"^\W*(yes\W+)?(I need to correct|I was wrong|correction|that'?s (exactly )?(the|why)|"
    r"this is (exactly )?(the|why)|是的|对|正是原因|这正是原因|没错)",
    re.I,
)
_FINDING_LEAD = re.compile(
    r"^(looking at [^,]+,\s*|so,?\s*|ah,?\s*|now I see[,:]?\s*|I see[,:]?\s*)*"
    r"(the (real |actual |underlying |root )?(cause|culprit|problem|issue|reason) (is|was)"
    r"( that)?:?\s*|it turns out( that)?\s*|turns out( that)?\s*|it turned out( that)?\s*)?",
    re.I,
)
_HEDGED = re.compile(
    r"\b(might|may|maybe|perhaps|probably|possibly|likely|could be|i think|i suspect|seems?|"
    r"let me|I'?ll)\b|可能|也许|かもしれ",
    re.I,
)


def person_rule(said: str, *, instead_of: str = "") -> str | None:
    """The person's rule, or None when their words hold none (a question, a thank-you, a
    report, a pasted template). `instead_of` is the program of the call they refused:
    "no, use pnpm" against `npm install` says "Use `pnpm`, not `npm`"."""
    if len(_HEADING.findall(said)) >= 2:
        return None  # a pasted document or a command template, not the person's rule
    sentences = _sentences(_HARNESS.sub(" ", said))
    chosen = _best_clause(sentences)
    if chosen is None:
        return None
    if not RULE_WORD.search(chosen) and any(_REPORTS.search(s) for s in sentences):
        return None  # a bug report: the lesson, if any, is in the fix, not in these words
    chosen = re.sub(r"\s#{1,6}\s*(\d+)\.?", r" §\1", chosen)  # "spec.md ## 5." → "spec.md §5"
    rule = _contrast(_strip_lead(_from_cue(chosen)), instead_of)
    return _finish(_third_person(rule))


def _third_person(rule: str) -> str:
    """ "Never ask me to print the keyring" → "… ask the user …": a rule for the team is read
    by others than the one who said it (English only: elsewhere a pronoun is not a word)."""
    if re.match(r"(?i)i\b", rule) or _CJK.search(rule):
        return rule
    return re.sub(r"\bmy\b", "the user's", re.sub(r"\bme\b", "the user", rule))


def finding_rule(said: str) -> str | None:
    """The cause the agent found, said as a fact; None when it is only a guess."""
    sentences = [
        s for s in _sentences(said.replace("**", "")) if not re.match(r"(?i)let me|I'?ll|now\b", s)
    ]
    while len(sentences) > 1 and _RETRACTS.match(sentences[0]) and len(sentences[0]) < 80:
        sentences.pop(0)  # "I need to correct my earlier advice.", "是的，这正是原因。"
    if not sentences:
        return None
    news = _FINDING_LEAD.sub("", sentences[0]).strip()
    if _HEDGED.search(news) or (len(news.split()) < 3 and len(news) < 8):
        return None  # "the issue might be …", "let me check": a guess, not a finding
    news = re.sub(r"\byour\b", "the", news)
    return _finish(news)


def _sentences(text: str) -> list[str]:
    kept: list[str] = []
    for line in text.splitlines():
        if _PASTED.match(line):
            continue  # terminal output, a table row, a quote, code
        kept.extend(s.strip() for s in SENTENCE_BREAK.split(line) if s and s.strip())
    return [s for s in kept if not _PASTED.match(s) and not re.fullmatch(r"\W*", s)]


def _best_clause(sentences: list[str]) -> str | None:
    """The best clause (split at ";"): alone when a later clause of its sentence holds the
    rule ("this is a scratch check; use `make test-billing`"), else its whole sentence
    ("never add it in one step; add it nullable, backfill, then set NOT NULL")."""
    clauses = [(s, c, i) for s in sentences for i, c in enumerate(re.split(r"\s*[;；]\s*", s)) if c]
    best = _best([c for _, c, _ in clauses])
    if best is None:
        return None
    sentence, clause, index = next(x for x in clauses if x[1] == best)
    others = [c for s, c, _ in clauses if s == sentence and c != clause]
    whole = index == 0 or any(RULE_WORD.search(c) for c in others)
    return sentence if whole and not _asks(sentence) else clause


def _best(sentences: list[str]) -> str | None:
    """The sentence that reads most like a standing rule; None when none could be one."""
    scored: list[tuple[float, int, str]] = []
    for position, sentence in enumerate(sentences):
        strong = bool(RULE_WORD.search(sentence))
        leans = rule_cue(sentence) or bool(_LEANS.search(sentence))
        if not _could_be_rule(sentence, strong=strong, leans=leans):
            continue
        weight = 2.0 * strong + bool(GENERAL_CLASS.search(sentence)) + 0.5 * leans
        weight -= strong * min(len(sentence), 300) / 600  # the shorter of two rules
        scored.append((weight, -position, sentence))
    return max(scored)[2] if scored else None


def _could_be_rule(sentence: str, *, strong: bool, leans: bool) -> bool:
    """Not a question, an acknowledgement, a report, a pointer at "line 16", a header."""
    if _asks(sentence) or _POINTS_AT_LINE.search(sentence):
        return False
    if _ACKNOWLEDGES.match(sentence) and len(sentence.split()) <= 6 and not strong:
        return False
    if _REPORTS.search(sentence) and not strong:
        return False
    if len(_strip_lead(sentence)) < 4 or sentence.rstrip().endswith((":", "：")):
        return False  # "Failures:" heads what follows
    wide = len(_CJK.findall(sentence))
    if not wide:
        return " " in sentence  # a single word is no rule
    return wide >= 10 or strong or leans  # "并非我要求创建的" (not what I asked for): a complaint


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _from_cue(sentence: str) -> str:
    """A long sentence from the clause where its rule word stands ("删除…, 以后…" → "以后…")."""
    wide = len(_CJK.findall(sentence)) > len(sentence) / 3
    cue = RULE_WORD.search(sentence)
    if len(sentence) <= (45 if wide else MAX_SUMMARY) or not cue:
        return sentence
    start = max(sentence.rfind(mark, 0, cue.start()) for mark in (",", "，", ";", "；"))
    return sentence[start + 1 :].strip() if start > 0 else sentence


_LIST_MARK = re.compile(r"^([-*•+]|\d{1,2}[.)])\s+")  # a list item's marker: no part of a rule


def _strip_lead(sentence: str) -> str:
    previous = None
    text = sentence.strip()
    while previous != text:
        previous, text = text, _LIST_MARK.sub("", _LEAD.sub("", text)).strip()
    return text.strip(" .。")


_USE = re.compile(r"^(use|run|try|with)\s+`?([\w.+-]+)`?(\s+(here|instead))?\s*$", re.I)


def _contrast(rule: str, instead_of: str) -> str:
    """ "use pnpm" said against a refused `npm install`: "Use `pnpm`, not `npm`"."""
    match = _USE.match(rule)
    if not match or not instead_of or match.group(2) == instead_of:
        return rule
    return f"Use `{match.group(2)}`, not `{instead_of}`"


_TRAILER = re.compile(r"[,\s]+(please|pls|thanks|thank you|bitte|merci|por favor)\W*$", re.I)


def _finish(rule: str) -> str | None:
    rule = shorten(code_format(_TRAILER.sub("", rule).strip(" .。")))
    if len(rule.split()) < 2 and len(rule) < 6:
        return None
    return rule[:1].upper() + rule[1:]


def shorten(text: str, limit: int = MAX_SUMMARY) -> str:
    """At most `limit` characters: cut where a clause ends early enough; a rule of one clause
    is kept whole up to `MAX_WHOLE` (a rule cut mid-way is worse than a long one); beyond,
    asides in brackets go first, then words."""
    if len(text) <= limit:
        return text
    ends = [
        m.start()
        for m in _CLAUSE.finditer(text)
        if 25 <= m.start() <= limit and text[: m.start()].count("`") % 2 == 0
    ]
    if ends:
        return text[: ends[-1]].rstrip(" ,")
    if len(text) <= max(MAX_WHOLE, limit) and limit == MAX_SUMMARY:
        return text
    bare = re.sub(r"\s*\([^()`]*\)", "", text)
    if len(bare) <= limit:
        return bare
    for stop in ("，", "、", ","):
        at = text.rfind(stop, 0, limit)
        if at >= 15 and text[:at].count("`") % 2 == 0:
            return text[:at]
    head = text[: limit - 1].rsplit(" ", 1)[0]
    if head.count("`") % 2:
        head = head[: head.rfind("`")].rstrip()
    return head + "…"


# Words that are code: paths, file names, ENV_VARS, snake_case, camelCase, dotted names with
# one of those, flags. ASCII boundaries: in CJK text a word's neighbour is a letter to \w.
_TOKEN = re.compile(r"(?<![`A-Za-z0-9_./~-])([~./A-Za-z0-9_-][\w./~@:+=-]*[\w/])(?![`\w])")
_FILE = re.compile(
    r"^[\w.-]+\.(py|js|mjs|cjs|ts|tsx|jsx|json|ya?ml|toml|md|rb|go|rs|sql|sh|tex|lock|cfg|ini|"
    r"html|css|scss|vue|java|kt|swift|php|cs|c|h|cpp|txt|env|xml|gradle)$"
)
_NOT_CODE = {"e.g", "i.e", "macOS", "iOS", "iPhone", "iPad", "eBay", "and/or", "etc"}


def _is_code(word: str) -> bool:
    if word in _NOT_CODE or word.startswith(("http://", "https://")) or word.isdigit():
        return False
    if re.match(r"^[A-Z][a-z]+\.js$", word):
        return False  # Node.js, Vue.js: a product's name
    if "/" in word:
        return word.count("/") > 1 or bool(re.search(r"\.\w+$", word)) or word[0] in "./~"
    return bool(
        _FILE.match(word)
        or re.match(r"^\.[A-Za-z][\w.-]*$", word)  # .env, .github
        or re.match(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$", word)  # VITE_YNAB_REDIRECT_URI
        or re.match(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$", word)  # server_port
        or re.match(r"^[a-z]+[A-Z]\w*$", word)  # firstMonth
        or re.match(r"^--?[a-z][\w-]*(=\S+)?$", word)  # --filter
        or re.match(r"^[A-Z]\w*=\S+$", word)  # PYTHONPATH=src
        or (re.match(r"^\w+(\.\w+)+$", word) and re.search(r"_|[a-z][A-Z]", word))
    )


def code_format(text: str) -> str:
    """Commands, paths and identifiers in backticks; text already in backticks untouched."""
    pieces = text.split("`")
    for index in range(0, len(pieces), 2):  # even pieces are outside backticks
        pieces[index] = _TOKEN.sub(
            lambda m: f"`{m.group(1)}`" if _is_code(m.group(1)) else m.group(1), pieces[index]
        )
    return "`".join(pieces)


# --- a command that failed, then passed -------------------------------------------------


def first_line(command: str) -> str:
    """A command as a rule or a body quotes it: its first line (a here-document is data)."""
    lines = command.strip().splitlines()
    first = lines[0] if lines else ""
    first = first if len(first) <= 160 else first[:159] + "…"
    return first + (" …" if len(lines) > 1 else "")
