"""Whether a moment's wording is a rule a team would keep, or stays a moment for review.

Blind reviewers kept 8 of 20 deterministic drafts of the tuning set. Most rejects were the
person's message made a title though it held no rule (a one-off task request, a chatty
remark, an interruption, answers to the agent's setup questions); then a failed-then-fixed
command credited with the wrong cause, or the agent's own sandbox; then what belongs to one
machine (a Windows path, someone's home folder) or a silent refusal read as "don't remove X".
So a draft is made only when its rule can be stated with confidence; every other moment is
still found, counted, shown by `extract` and sent to a team's model (`--with`), with the
reason it got no draft. Each check returns that reason, or None when the draft may stand.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from orbit_learnings.curation.capture.drafting.wording import GENERAL_CLASS, RULE_WORD
from orbit_learnings.curation.capture.moments.base import (
    CJK,
    STANDING,
    STANDING_STOP_OR_MUST_NOT,
)

# The word lists, each for its own question: `_ALWAYS`, `_FORBIDS` and `_PREFER` below, the
# firm standing shapes a draft needs; `moments.base.STANDING`, any word that can make a
# sentence a standing rule (enough to outweigh shapes that only usually mean no rule, not
# enough for a draft); `wording.RULE_WORD`, a rule word the sentence chooser weights ("must",
# "should" too: a task uses them as often); the moment scorer's `STRONG_CUES` / `WEAK_CUES`
# (how likely a message holds a rule); and here the
# milder marks the gate takes when the person stopped the agent ("rather than"; "only" went:
# "CRLF warning only, no content diff" is a refusal's reason, not a rule).
_ALSO_RULE = re.compile(r"\b(rather than|anstatt|en vez)\b|總是", re.I)
# "X, not Y" and its equivalents: a second clause that negates ("…, 自动创建的不管").
_LATIN_CONTRAST = re.compile(
    r"[,;]\s*(and )?(not|never|no|nicht|nie|pas|jamais|não|не|без)\b", re.I
)
_CJK_CONTRAST = re.compile(
    r"[，,;；][^，,;；]{0,24}(不要|不用|不管|不许|不准|不必)|[，,;；]\s*(别|勿)"
)
_CONTRAST = re.compile(f"{_LATIN_CONTRAST.pattern}|{_CJK_CONTRAST.pattern}", re.I)
# "Use X" is a rule's imperative (the tool, the library, the form to use), in its languages.
_USE = re.compile(
    r"^(use|utili[sz]e|reference|stick (to|with)|go with|switch to|verwende|benutze|utilise|"
    r"usa|utiliza|usar|используй\w*|使用|用|改用|使って)\b",
    re.I,
)
# Verbs of this task's deliverable: "add …", "fix …", "adjust …", "talk to me about …".
_TASK_VERB = re.compile(
    r"^(add|fix|create|adjust|implement|update|make|build|remove|delete|change|write|refactor|"
    r"rename|move|talk|explain|show|check|look|try|help|tell|do|deploy|commit|push|test|run|"
    r"start|stop|finish|continue|go|edit|modify|rewrite|convert|generate|set up|setup|install)\b",
    re.I,
)
# Something only the conversation shows: "the folder I provided", "上面的", "the one above".
_DEICTIC = re.compile(
    r"\b(the|that|this|those|these) ([\w-]+ ){0,3}(I|you) (gave|provided|mentioned|sent|showed|"
    r"shared|linked|pasted|attached)\b|\b(the above|as (mentioned |shown |said )?above|"
    r"(mentioned|shown|listed|given) (above|below))\b|我(提供|给出|发|贴|上传)的|上面的|"
    r"(该|那个)(文件夹|目录|文件|路径)|"
    r"上述|前面的|以上的|上記|先ほどの|按你的建议|你(说|建议)的|\bas you (said|suggested)\b",
    re.I,
)


# Moments the agent's side shows, which no words of a rule come with.
AGENT_SIDE = {
    "refused": "a refusal without a word: what it means is the reviewer's call",
    "unreachable": "a path on one machine, not a rule for the team",
    "blocked": "what the machine refused: the reviewer reads the lesson off the failure",
}


# Not a rule whatever its words, as blind reviewers of 27 drafts from 32 more public
# sessions judged (both rejected all of these shapes): the speaker's own state ("I don't
# see how…", "I thought…"), a requirement of the thing being built ("It should force…",
# "Must be updated…"), a bug report, a pasted error, a pointer at what follows or at "that".
_SPEAKER = re.compile(
    r"^(I|I'm|I've|I'd|I'll|I was|I am|(?i:it|this|that) (makes|seems|looks|feels))\b"
    r"(?! (always|never|prefer|want you to|would prefer|'d prefer))(?!'d (prefer|rather))|"
    r"^(我们?想|我希望|希望)"
)
# Bound to this task: "don't change any other files", "we don't need X anymore".
_THIS_TASK = re.compile(
    r"\bother files\b|\bthis (task|change|pr|commit)\b|\bneed\b.*\banymore\b|这一步|这次|这个步骤",
    re.I,
)
# What this task may touch: "don't change my code, just tell me why", "不要改我的代码" (a word
# like `never` or `以后` makes it standing: `_ALWAYS`).
_MY_CODE = re.compile(
    r"\b(change|touch|modify|edit|rewrite)\b[^.;]*\b(my|the user's) (code|files?|changes)\b|"
    r"(不要|别|不用|不许|不准)(修改|改动|改|动)(我的)?(代码|文件)",
    re.I,
)
_ALWAYS_WORDS = (  # the words that make a sentence standing wherever they stand (`_ALWAYS`)
    r"\b(never|always|from now on|going forward|in future|every time|whenever|by default|"
    r"immer|niemals|nie|jamais|toujours|nunca|siempre|всегда|никогда)\b|"
    r"以后|今后|永远|总是|始终|一律|每次|禁止|严禁|必ず|常に|今後|항상|절대"
)
# A rule about what may be touched that says where or why stands ("Don't touch my code in
# legacy/, it is frozen for the audit", "以后不要改我的代码").
_SCOPED = re.compile(
    r"\b(in|under|inside)\s+`?[\w.-]*/|\bbecause\b|,\s*(it|they|tests?) (is|are|compare)\b|"
    + _ALWAYS_WORDS,
    re.I,
)
# A fragment: it opens with a preposition and has no second clause ("Instead of duplicate
# tables with the same structure"); one with a standing word is a clause ("In tests always …").
_FRAGMENT = re.compile(r"^(instead of|because|if|when|with|without|in|for|from)\b[^,;:]*$", re.I)
_REQUIREMENT = re.compile(
    r"^((it|this|that|they|the [\w-]+) (should|must|needs? to)|(must|should) be)\b", re.I
)
_BUG_REPORT = re.compile(
    r"\b(there is a bug|is not shown|isn'?t shown|not shown|doesn'?t work|does not work|"
    r"still (fails|broken)|this means that)\b",
    re.I,
)
_POINTER = re.compile(
    r"([:\\]\s*$)|\b(touch|change|fix|remove|use|do) (that|this|it|them)\W*$|"
    r"^(see|look at|check out)\b",
    re.I,
)
_THIS_ONE = re.compile(r"\bthis \w+:", re.I)  # "use this remote: <url>", unless a rule says so
_OUTPUT = re.compile(r"^(error|fatal|warning|exception)\s*:|^traceback\b", re.I)
# This task's deliverable, in the other languages people write to agents in.
_TASK_VERB_ELSEWHERE = re.compile(
    r"^(查看|生成|创建|添加|修改|删除|实现|帮我|给我|提交|继续|部署|运行|作って|追加して|修正して|実装して|"
    r"만들어|추가해|수정해|삭제해|(erstelle|füge|ändere|lösche|implementiere|schreibe|"
    r"crea|agrega|añade|modifica|elimina|implementa|escribe)\b)",
    re.I,
)


_TASK_VERB_ANY = re.compile(f"{_TASK_VERB.pattern}|{_TASK_VERB_ELSEWHERE.pattern}", re.I)


# The person stopped the agent: refused its call or interrupted it. Behaviour enough to
# take "use X" for a rule; any other message needs a word that makes it standing. (A class
# word or a "should" alone was enough until reviewers of two more rounds rejected all five
# such drafts: "继续创建项目，使用 `--approve-all`", "python3 should point to 3.11".)
STOPPED = {"rejection", "interruption"}


def person_reason(summary: str, *, stopped: bool = False, said: str = "") -> str | None:
    """The person's words as a rule, or why not. Not a pointer at what only the conversation
    shows, the speaker's state, a requirement of what is being built, a bug report or this
    task's request. Then a firm standing shape, read without code spans and flags: a word
    that makes it standing wherever it stands (`never`, `always`, `以后`, …), a clause that
    opens by forbidding ("Don't …", "…, dont talk about it"), "X, not Y", "use X instead of
    Y", "prefer X over Y", or a class with a rule word ("each X must …"); when the person
    `stopped` the agent, "use X". A rule word inside a clause of the task's request
    ("assume I do not, just use …", "… 대신 …") leaves it a moment."""
    reason = _not_a_rule(summary) or markup_reason(said)
    if reason:
        return reason
    words = _prose(summary)  # `--approve-all` and `--pipeline all` name no class of things
    sentence = _prose(_sentence_of(summary, said))  # "stop running the suite; use `make x`"
    both = f"{words}\n{sentence}"
    firm = bool(
        _ALWAYS.search(both)
        or _FORBIDS.search(both)
        or _CONTRAST.search(words)
        or (_USE.match(words) and _INSTEAD.search(words))  # "Use pnpm instead of npm"
        or _PREFER.search(words)  # "Prefer pnpm over npm in this repo"
        or (GENERAL_CLASS.search(words) and RULE_WORD.search(words))  # "cada X debe …"
    )
    if firm and _only_the_task_forbids(words, both):
        return "a request for this task, not a standing rule"  # "Commit it, don't push yet"
    if firm or (stopped and (_USE.match(words) or _ALSO_RULE.search(words))):
        return _conversation_reason(words)
    if STANDING.search(both) or RULE_WORD.search(words):
        return "its rule word serves one-off requests as often (instead, must, 대신): a moment"
    if _TASK_VERB.match(summary):
        return "a request for this task, not a standing rule"
    return "no word makes it standing (never, always, don't, instead, from now on, 以后, …)"


# The firm standing shapes (`person_reason`): `_ALWAYS`, a word that makes a sentence a rule
# wherever it stands; `_FORBIDS`, a clause that opens by forbidding; `_PREFER`.
_ALWAYS = re.compile(_ALWAYS_WORDS, re.I)
# A clause that opens by forbidding ("Don't …", "…, dont talk about it", "We don't need …",
# "请不要…", "禁止…"), or forbids with "must not", "stop using": the person's own rule, where a
# "don't" or an "instead" inside a clause as often shapes this task's request ("assume I do
# not, just use …", "… 대신 …", "preview it with separators instead of …").
_FORBIDS = re.compile(
    r"(^|[,;:]\s*)(please |pls |pleas |we )?(don'?t|dont|do not|never|avoid|no more)\b|"
    r"(^|[，,；;]\s*)(请|請)?(不要|别|別|勿|禁止|不许|不準)|" + STANDING_STOP_OR_MUST_NOT,
    re.I,
)
_PREFER = re.compile(
    r"^(please )?prefer\s+(?!to\b)|"
    r"\bprefer\w*\s+(?!to\b)\S.*\b(over|rather than|instead of)\b",
    re.I,
)
_INSTEAD = re.compile(r"\b(instead of|rather than|not)\b|而不是|而非|代わりに|대신", re.I)
_CODE_SPAN = re.compile(r"`[^`]*`|(?<!\w)--?[\w-]+(=\S+)?")


def _only_the_task_forbids(words: str, both: str) -> bool:
    """The only firm shape is a negation after a comma in a sentence that opens with this
    task's verb ("Commit the changes, don't push yet", "提交到GitHub，仓库名不要惹眼"), and the
    negation names no tool to use instead ("Run tests with pnpm, don't use npm" is a rule)."""
    negation = _FORBIDS.search(words) or _CJK_CONTRAST.search(words)
    if negation is None or negation.start() == 0 or not _TASK_VERB_ANY.match(words):
        return False
    if _ALWAYS.search(both) or _LATIN_CONTRAST.search(words) or _PREFER.search(words):
        return False
    return not re.match(r"\s+(use|run|call|install)\b", words[negation.end() :], re.I)


def _prose(text: str) -> str:
    """The words without code spans and flags, typographic apostrophes made plain ("Don’t"):
    the gate reads what the person said, not the names of the things they said it about."""
    return _CODE_SPAN.sub(" ", text.replace("\u2019", "'"))


# A message the person pasted rather than wrote: markup (an HTML fragment, a prompt
# template's `<steps CRITICAL="TRUE">` … `</steps>`) is an example or a harness's text. One tag
# named in a sentence ("never wrap labels in a <p> tag") is not; a tag in code format is code.
_WITH_ATTRIBUTES = re.compile(r"<[A-Za-z][\w-]*(\s+[\w-]+=\"[^\"]*\")+\s*/?>")
_OPENING = re.compile(r"<([A-Za-z][\w-]*)[\s>]")


def markup_reason(said: str) -> str | None:
    """Markup is a pair of one tag (`<steps …>` … `</steps>`) or two tags with attributes;
    a placeholder (`<token>`) or a generic (`Promise<any>`) is neither."""
    prose = _prose(said)
    paired = any(f"</{name}>" in prose for name in _OPENING.findall(prose))
    if paired or len(_WITH_ATTRIBUTES.findall(prose)) >= 2:
        return "pasted markup or a prompt template, not the person's rule"
    return None


# Words that answer the conversation rather than state a rule ("use terminal instead of
# powershell then", "it was the wrong file"): checked after the firm shapes, so "Never edit
# the wrong file again" and "…, push a branch then" with a standing word stay rules.
_ANSWERING = re.compile(r"\bthen\W*$|\b(the )?wrong file\b", re.I)


def _conversation_reason(words: str) -> str | None:
    if _ANSWERING.search(words) and not _ALWAYS.search(words):
        return "it points at something only the conversation shows"
    return None


def _sentence_of(summary: str, said: str) -> str:
    """The sentence of the person's words the summary was taken from, what they put in code
    format blanked out ("" when not found). Found on the text without backticks: the
    summary puts in code format what the person did not."""
    start = summary.replace("`", "").strip(" .").lower()[:15]
    plain, code = _unquoted(said)
    at = plain.lower().find(start) if start else -1
    if at < 0:
        return ""
    marks = (". ", "! ", "? ", "\n", "。")
    before = max(plain.rfind(mark, 0, at) for mark in marks)
    ends = [i for mark in marks if (i := plain.find(mark, at)) >= 0]
    end = min(ends) if ends else len(plain)
    return "".join(" " if code[i] else plain[i] for i in range(before + 1, end))


def _unquoted(text: str) -> tuple[str, list[bool]]:
    """The text without backticks, and for each of its characters whether it was in code."""
    chars: list[str] = []
    code: list[bool] = []
    inside = False
    for char in text:
        if char == "`":
            inside = not inside
            continue
        chars.append(char)
        code.append(inside)
    return "".join(chars), code


def _not_a_rule(summary: str) -> str | None:
    """Why the words are no rule whatever they hold, or None. A standing word ("never",
    "always", "don't", `以后`…) outweighs the shapes that only usually mean a task, a
    requirement, a report or a fragment ("The tests must never hit the network", "When
    running tests always use `make test`"); it never outweighs a pointer at the
    conversation, too few words or the speaker's own view."""
    if _DEICTIC.search(summary) or _POINTER.search(summary):
        return "it points at something only the conversation shows"
    if len(summary.split()) < 3 and len(CJK.findall(summary)) < 6:
        return "too short to state a rule"
    if _SPEAKER.match(summary):
        return "the speaker's own view or state, not a rule"
    if _THIS_TASK.search(summary) or (_MY_CODE.search(summary) and not _SCOPED.search(summary)):
        return "a request for this task, not a standing rule"
    if _BUG_REPORT.search(summary) and not STANDING.match(summary):
        return "a bug report or an error, not a rule"  # not "Don't use npm, it doesn't work …"
    fragment = _FRAGMENT.match(summary)
    if fragment and not STANDING.search(summary, fragment.end(1)):
        return "a fragment, not a rule"  # "In tests always use …" is a clause: its word follows
    if STANDING.search(summary):
        return None
    if _THIS_ONE.search(summary):
        return "it points at something only the conversation shows"
    if _TASK_VERB_ELSEWHERE.match(summary):
        return "a request for this task, not a standing rule"
    if _REQUIREMENT.match(summary):
        return "a requirement of what is being built, not a rule for the team"
    if _BUG_REPORT.search(summary) or _OUTPUT.match(summary):
        return "a bug report or an error, not a rule"
    return None


_ECHO_WORD = re.compile(r"\w+")
ECHO_RUN = 4  # words in a row: a run this long shared with the call is copied, not vocabulary
ECHOED = 0.6  # of the person's runs found in what the agent had just said or meant to do
ECHO_WORDS = 12  # a short message shares runs with anything ("use pnpm" with `npm i`)


def echoes(said: str, agents: str) -> bool:
    """Whether the person's words are the agent's own handed back: the plan they were shown,
    pasted into a refusal with its markdown gone, or the agent's offer copied as the request
    ("help you ignore only specific output image paths"). It reads like a rule, but every
    word of it is the agent's. Runs of words, not words: a correction of a long plan uses the
    plan's vocabulary, not its sentences."""
    words = [w.lower() for w in _ECHO_WORD.findall(said)]
    if len(words) < ECHO_WORDS or _adds_a_standing_word(said, agents):
        return False
    given = [w.lower() for w in _ECHO_WORD.findall(agents)]
    runs = {tuple(given[i : i + ECHO_RUN]) for i in range(len(given) - ECHO_RUN + 1)}
    said_runs = [tuple(words[i : i + ECHO_RUN]) for i in range(len(words) - ECHO_RUN + 1)]
    return sum(run in runs for run in said_runs) >= ECHOED * len(said_runs)


def _adds_a_standing_word(said: str, agents: str) -> bool:
    """A standing or forbidding word the person added to the agent's sentence ("Yes,
    always …", "Never …"): their rule, whatever else they repeated."""

    def standing(text: str) -> set[str]:
        found = [*STANDING.finditer(text), *_ALWAYS.finditer(text)]  # "every time" too
        return {match.group(0).lower() for match in found}

    return bool(standing(said) - standing(agents))


# A script of the project run by its interpreter (`python train.py`, `node build.js`): a long
# job runs long by design, while a tool that never returns (`claude doctor`, `vim x.py`)
# wants a terminal.
_SCRIPT = re.compile(
    r"(^|[;&|(]\s*|\b(uv run|poetry run|exec|nohup|time)\s+)(python[\d.]*|node|ruby|bash|sh|"
    r"Rscript|perl|php|julia|deno|bun|tsx|ts-node)\s+(-\S+\s+)*\S+\.(py|js|mjs|ts|rb|sh|pl|"
    r"php|jl|R)\b"
)


def long_job_reason(command: str) -> str | None:
    if _SCRIPT.search(command.strip()):
        return "a script of the project that runs long: whether it should is the reviewer's call"
    return None


def finding_reason(summary: str, paths: Sequence[str]) -> str | None:
    """The agent's finding as a fact about named code in a file of the repository: "`x` is
    `nil` in …", never "the server …" or "both mechanisms …" with no file to scope it to."""
    if "`" not in " ".join(summary.split()[:3]):
        return "its subject names no code"
    if re.match(r"(in|at|on|from|with)\b", summary, re.I):
        return "it says where, not what is wrong"
    if not paths:
        return "it names no file of the repository"
    return None


# "~/.claude/skills" is every machine's; "/Users/bholt/…" and "C:\\Users\\…" are one machine's.
_MACHINE = re.compile(r"(?<![\w.~])([A-Za-z]:\\|/(home|Users|root)/\w|/tmp/|\\\\\w)")
# The agent's own tools, named in a rule: their syntax and quirks are the harness's.
_TOOL_NAMED = re.compile(
    r"\b(apply_patch|update_plan|exec_command|write_stdin|shell_command|TodoWrite|MultiEdit|"
    r"NotebookEdit|str_replace_editor|str_replace_based_edit_tool)\b|`(Edit|Write|Bash|Read)`|"
    r"\bthe (Edit|Write|Bash|Read|shell|patch) tool\b"
)


def machine_reason(summary: str) -> str | None:
    """A path of one machine (a drive letter, a home folder, /tmp) is no rule for a team,
    and neither is the agent's own tool (`apply_patch`, `Edit`): any moment's summary."""
    if _MACHINE.search(summary):
        return "a path on one machine, not a rule for the team"
    if _TOOL_NAMED.search(summary):
        return "the agent's own tool syntax, not the project's"
    return None
