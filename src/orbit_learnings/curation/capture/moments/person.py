"""The person speaking: refusals, interruptions, messages typed while the agent worked,
messages that made the agent redo an edit, failures the person answers, later rules.

Which message counts comes from what happened around it, in any language; the words only
weigh it (`score`): a rule cue lifts it, a question, thanks or a bare "yes" lower it."""

from __future__ import annotations

import re

from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.moments.base import (
    CJK,
    EDIT_TOOLS,
    ERROR_OUTPUT,
    SENTENCE_BREAK,
    STANDING,
    STRONG_CUES,
    WEAK_CUES,
    Moment,
    agent_span,
    changed_files,
    edit_lines,
    edited,
    failed,
    files_in,
)
from orbit_learnings.curation.capture.moments.operations import CONFIG
from orbit_learnings.curation.capture.sessions import (
    ASSISTANT,
    INTERRUPT,
    TOOL_RESULT,
    TOOL_USE,
    USER,
    Turn,
)

FOLLOW_UP = 0.4  # a plain later message: a moment only with a rule cue or a concrete thing
CONCRETE_LIFT = 0.05
# A message that opens with this task's next step ("add …", "now fix …"): work, not a fact.
_TASK_OPENING = re.compile(
    r"^\W*(now |then |also |and |please |pls |ok,? |okay,? )*(add|fix|create|implement|update|"
    r"make|build|remove|delete|change|write|refactor|rename|move|run|try|check|show|commit|"
    r"push|deploy|continue|go|do|let'?s)\b",
    re.I,
)
_BASE = {
    "queued": 0.55,
    "redo": 0.55,
    "pasted-error": 0.55,
    "after-error": 0.5,
    "follow-up": FOLLOW_UP,
}
ASKING = re.compile(
    r"^\W*((how|what|why|where|when|which|who|can|could|would|is|are|does|do|did|should i|"
    r"wie|was|warum|wo|comment|pourquoi|cómo|qué|por qué|como|почему|как|что)\b|"
    r"为什么|什么|怎么|如何|是否|どう|なぜ|何)",  # no word boundary between CJK characters
    re.I,
)
REPORT = re.compile(
    r"\b(Error|Exception|Uncaught|Traceback|undefined|null|crash\w*|fails?|failed|"
    r"shows?|says?|prints?)\b|报错|错误|エラー|ошибк|"
    r"(?i:\b(does not|doesn'?t|did not|didn'?t|still (does ?n[o']t|not)) work|"
    r"\bstill (get(ting)? )?(an )?error)",
)
# Questions without a question mark, as Chinese, Japanese and Korean often write them: a
# final particle before a comma or the end, an A-not-A question ("会不会", "有没有").
QUESTION = re.compile(
    r"[?？]|[吗嗎呢](\s*$|[,，。\s])|[か]\s*$|니까\s*$|(ですか|ますか|나요|까요)\s*$|"
    r"(?P<a>会|是|有|能|可|要|好)不(?P=a)|有没有|什么办法|怎么办"
)
_THANKS = re.compile(
    r"^\W*(thanks|thank you|thx|great|perfect|awesome|nice|lgtm|looks good|danke|merci|gracias"
    r"|obrigad|谢谢|多谢|好的|ありがとう|完璧)",
    re.I,
)


# Agreeing with what the agent proposed ("yes, let's try option 1", "ok go ahead"): a choice,
# rarely a rule, unless a rule cue follows.
_AGREEING = re.compile(
    r"^\W*\d{1,2}[.)]?\s*$|^\W*((option|choice) \d|yes|yeah|yep|yup|ok(ay)?|sure|go ahead|"
    r"let'?s? (do|go|try)|sounds good|"
    r"ja|oui|sí|si|да|ок|好|是的|可以|行|はい|ええ|네|응)\b",
    re.I,
)


def cue_weight(text: str) -> float:
    return 0.2 if STRONG_CUES.search(text) else 0.05 if WEAK_CUES.search(text) else 0.0


def person_moments(turns: list[Turn]) -> list[Moment]:
    moments: list[Moment] = []
    seen_task = False
    for position, turn in enumerate(turns):
        if turn.kind == INTERRUPT:
            said = turn.text or _next_said(turns, position)
            if said:
                moments.append(_moment("interruption", 0.75, turn, said, turns, position))
            continue
        if turn.kind == USER and not turn.text.strip():
            seen_task = True  # a command the person ran with nothing typed after it
            continue
        if turn.kind != USER or _after_interrupt(turns, position):
            continue
        if turn.tool_id:  # a refused call's reason
            moments.append(_moment("rejection", 0.9, turn, turn.text, turns, position))
        elif _after_refusal(turns, position):
            moments.append(_moment("rejection", 0.8, turn, turn.text, turns, position))
        elif not seen_task:
            seen_task = True  # the first message states the task; a standing rule in it counts
            moments += stated_in_task(turn)
        else:
            kind = _follow_up_kind(turns, position)
            moment = _moment(kind, _BASE[kind], turn, turn.text, turns, position)
            moments.append(_kept_as_rule(moment, turns, position))
    return _one_per_saying(moments + refusals(turns))


def _follow_up_kind(turns: list[Turn], at: int) -> str:
    """What a later message follows: typed while the agent worked, the agent's edit it
    then redid, or a failure the person answers (often with what the agent could not know)."""
    if turns[at].queued:
        return "queued"
    if ERROR_OUTPUT.search(turns[at].text):
        return "pasted-error"  # the person ran it in their own terminal and shows it failing
    if _redo(turns, at):
        return "redo"
    results = [t for t in agent_span(turns, at, -1) if t.kind == TOOL_RESULT]
    return "after-error" if any(failed(t) for t in results) else "follow-up"


def _one_per_saying(moments: list[Moment]) -> list[Moment]:
    """A message the harness repeats (queued, then sent; resent after a refusal) is one
    moment, kept at its strongest reading."""
    best: dict[str, Moment] = {}
    for moment in moments:
        kept = best.get(moment.said)
        if kept is None or moment.score > kept.score:
            best[moment.said] = moment
    return sorted(best.values(), key=lambda m: m.lines[0])


def _moment(kind: str, base: float, turn: Turn, said: str, turns: list[Turn], at: int) -> Moment:
    files = files_in(turns[max(0, at - 6) : at + 6])
    answering = QUESTION.search(_last_words(turns, at)[-300:]) is not None
    value = score(base, said, shown=kind == "pasted-error", answering=answering)
    return Moment(kind, [turn.line], value, said=said.strip(), files=files)


# The files agents keep standing instructions in (Claude Code, Codex, Gemini, Cursor,
# Copilot, Windsurf, Cline, aider): writing one right after a message makes it a rule.
_INSTRUCTIONS = re.compile(
    r"(^|/)((claude|agents|gemini|conventions|memory)(\.local)?\.md|\.cursorrules|"
    r"\.windsurfrules|\.clinerules|copilot-instructions\.md)$|(^|/)\.(cursor|clinerules)/rules?/",
    re.I,
)
KEPT_AS_RULE = 0.2


# Settings a person keeps: a configuration file by its shape (`operations.CONFIG`), a
# dotfile's folder (`~/.config/zellij/config.kdl`), `settings.json`, `*.conf`.
_SETTINGS = re.compile(r"(^|/)\.config/|(^|/)(config|settings)(\.\w+)?$|\.(conf|kdl|ini)$")
SET_AS_SETTING = 0.1


def _kept_as_rule(moment: Moment, turns: list[Turn], at: int) -> Moment:
    """A message the agent answers by writing an instructions file (CLAUDE.md, AGENTS.md,
    .cursor/rules/…) states a standing rule, whatever its language or wording; one it
    answers by changing a setting ("there shouldn't be any pane labels" → `pane_frames
    false`) states a preference that lasts."""
    written = [commands.normalise_path(path) for path in edited(agent_span(turns, at, 1))]
    lift = 0.0
    if any(_INSTRUCTIONS.search(path) for path in written):
        lift = KEPT_AS_RULE
    elif any(_SETTINGS.search(p) or CONFIG.search(p) for p in written) and not REPORT.search(
        moment.said
    ):  # "I added it to the settings and still get an error" reports; it prefers nothing
        lift = SET_AS_SETTING
    moment.score = round(min(moment.score + lift, 1.0), 2)
    return moment


def refusals(turns: list[Turn]) -> list[Moment]:
    """A tool call the person refused without a word, and said nothing after: the refusal
    is the lesson, and the agent's words before the call say what it meant to do."""
    moments: list[Moment] = []
    calls = {t.tool_id: t for t in turns if t.kind == TOOL_USE and t.tool_id}
    for position, turn in enumerate(turns):
        if turn.kind != TOOL_RESULT or not turn.rejected or _answered(turns, position):
            continue
        call = calls.get(turn.tool_id)
        if call is None or not _changes_something(call):
            continue  # stopping the agent from looking, or a refusal we cannot place
        meant = _last_words(turns, position)
        moment = Moment("refused", [call.line, turn.line], REFUSED, said=meant.strip()[:600])
        moment.files, moment.edits = changed_files(call), edit_lines(call)
        moment.failed = str(call.tool_input.get("command", ""))[:300]
        moments.append(moment)
    return moments


def _changes_something(call: Turn) -> bool:
    """An edit, or a command that runs an operation (not `ls`, `git status`, a search): a
    person who refuses to let the agent look has rarely a rule in mind."""
    if call.tool in EDIT_TOOLS:
        return True
    return (
        call.tool == "Bash"
        and commands.operation(str(call.tool_input.get("command", ""))) is not None
    )


def _last_words(turns: list[Turn], at: int) -> str:
    """The agent's words just before the call: what it meant to do."""
    for turn in turns[max(0, at - 12) : at][::-1]:
        if turn.kind == ASSISTANT and turn.text.strip():
            return turn.text
        if turn.kind == USER:
            break
    return ""


REFUSED = 0.6  # below a refusal with a reason: the reviewer has to read the lesson off the call


def _answered(turns: list[Turn], at: int) -> bool:
    """Whether the person said something right after the refusal (its reason, a message,
    an interruption with words): that is the stronger moment."""
    for turn in turns[at + 1 : at + 5]:
        if turn.kind == USER or (turn.kind == INTERRUPT and turn.text):
            return True
        if turn.kind == TOOL_USE:
            return False
    return False


_ONLY_URL = re.compile(r"^<?https?://\S+>?$")
# The language the person wants answers, comments or documents in: said once, meant for good.
_IN_A_LANGUAGE = re.compile(
    r"\b(in|auf|en) (english|chinese|japanese|korean|german|french|spanish|portuguese|"
    r"italian|russian|englisch|deutsch|französisch|français|anglais|allemand|español|inglés|"
    r"alemán)\b|用(中文|英文|日文|韩文)|(中文|英文)(回答|回复|写)|(日本語|英語)で|"
    r"(한글|한국어|영어)로|на (русском|английском)",
    re.I,
)
LANGUAGE_LIFT = 0.1


def score(base: float, said: str, *, shown: bool = False, answering: bool = False) -> float:
    """How likely the words state a rule worth keeping (`answering`: the agent had just asked
    something, so a path or a name in the message answers it rather than states a fact)."""
    text = said.strip()
    words = len(text.split()) + len(CJK.findall(text)) // 2
    value = base + cue_weight(text)
    strong = bool(STRONG_CUES.search(text))
    concrete = _CONCRETE.search(text) and not _TASK_OPENING.match(text)
    if concrete and not cue_weight(text) and not answering and words >= 3:
        value += CONCRETE_LIFT  # a statement about named code, a path, a flag: often a fact to keep
    if _IN_A_LANGUAGE.search(text) and not answering:
        value += LANGUAGE_LIFT  # "한글로 답변해줘", "schreibe alles auf Deutsch": a standing choice
    if _THANKS.match(text):
        value -= 0.25  # appreciation first: whatever follows is rarely a rule
    if _AGREEING.match(text) and not strong:
        value -= 0.2  # agreeing to the agent's plan picks an option; it states no rule
    if words < 3 and not _ONLY_URL.match(text):  # a bare link points at the right thing
        value -= 0.35  # "yes", "continue", "ok go", "exit": below the bar even interrupting
    if _only_asks(text, strong=strong) and not shown:
        value -= 0.3  # a question asks; it rarely states a rule (a pasted failure shows one)
    if REPORT.search(text) and not strong and not shown:
        value -= 0.15  # a bug report or an observation: the lesson is not in these words
    if len(text) > 1500:
        value -= 0.25  # a pasted spec or log, not a lesson
    return round(min(value, 1.0), 2)


def _only_asks(text: str, *, strong: bool) -> bool:
    """Whether the message asks rather than states: a question mark without a rule word, or
    an opening "how / should I / could you…" even with one ("how should we…?"), unless a
    later sentence states something ("Could you add this to the README? Classes are
    declared with `cls`.")."""
    if strong and not QUESTION.search(text):
        return False  # "Do not use npm, always use pnpm", "When you add packages, always …"
    if not ASKING.match(text):
        return bool(QUESTION.search(text)) and not strong
    stated = [
        s
        for s in SENTENCE_BREAK.split(text)[1:]
        if len(s.split()) >= 4 and not (ASKING.match(s) or QUESTION.search(s))
    ]
    return not stated


def _next_said(turns: list[Turn], at: int) -> str:
    for turn in turns[at + 1 : at + 4]:
        if turn.kind == USER:
            return turn.text
        if turn.kind == TOOL_USE:
            break
    return ""


def _after_refusal(turns: list[Turn], at: int) -> bool:
    for turn in reversed(turns[max(0, at - 4) : at]):
        if turn.kind == TOOL_RESULT:
            return turn.rejected
        if turn.kind == USER:
            return False
    return False


def _after_interrupt(turns: list[Turn], at: int) -> bool:
    """True when this message is what an interruption already quoted."""
    earlier = turns[max(0, at - 3) : at]
    return any(t.kind == INTERRUPT and not t.text for t in earlier)


def _redo(turns: list[Turn], at: int) -> bool:
    """The agent, right after the message, edits a file it had just edited or runs an
    operation it had just run with another command line (a flag, a variable, a wrapper, a
    folder, or what it ran on)."""
    before_span, after_span = agent_span(turns, at, -1), agent_span(turns, at, 1)
    if set(edited(before_span)) & set(edited(after_span)):
        return True
    ran = _commands(before_span)
    return any(  # any change of the command: on the tuning sets, stricter ("how it ran, not
        # what on", `operations.how_changed`) lost three labelled lessons and no false moment
        key in ran and _command(ran[key]) != _command(call)
        for key, call in _commands(after_span).items()
    )


def _command(call: Turn) -> str:
    return str(call.tool_input.get("command", "")).strip()


def _commands(span: list[Turn]) -> dict[str, Turn]:
    """Each operation the agent ran in a span, with its first call."""
    ran: dict[str, Turn] = {}
    for turn in span:
        command = str(turn.tool_input.get("command", "")) if turn.kind == TOOL_USE else ""
        key = commands.operation(command) if command else None
        if key is not None:
            ran.setdefault(key, turn)
    return ran


# --- a standing rule stated with the task ------------------------------------------------------

STATED = 0.5
# Something a rule can be about: code, a path or a file, a flag, an identifier; in a CJK
# sentence any word in Latin script (`base`, `conda`, `pnpm`) names a technical thing.
_CONCRETE = re.compile(
    r"`[^`]+`|(?<![\w/])(~|\.{1,2})?/[\w.-]+(/[\w.-]+)*|\b[\w.-]+/[\w.-]+/[\w./-]+|"
    r"\b[\w-]+/[\w-]+\.\w+\b|\b\w+\.(py|js|ts|json|ya?ml|toml|md|sh|env|lock)\b|"
    r"(?<!\w)--?[a-z][\w-]+|\b[a-z]+_[a-z_]+\b|\b[a-z]{2,}[A-Z][a-z]\w*\b"
)
_LATIN_WORD = re.compile(r"[A-Za-z][\w.-]{1,}")


def stated_in_task(turn: Turn) -> list[Moment]:
    """The one sentence of the task's message that states a standing rule about something
    concrete ("禁止使用 base 环境", "never commit `.env`") or the language the person wants
    ("Tout en français."), as its own moment."""
    best = ""
    for sentence in (s.strip(" -*#>\t") for s in SENTENCE_BREAK.split(turn.text)):
        if 8 <= len(sentence) <= 240 and _IN_A_LANGUAGE.search(sentence) and not best:
            best = sentence
        if not 8 <= len(sentence) <= 240 or not STANDING.search(sentence):
            continue
        if QUESTION.search(sentence) or (ASKING.match(sentence) and not STANDING.match(sentence)):
            continue  # a question, not "Do not commit `.env.local`"
        cjk = bool(CJK.search(sentence))
        if (_LATIN_WORD.search(sentence) if cjk else _CONCRETE.search(sentence)) and not best:
            best = sentence
    return [Moment("stated", [turn.line], STATED, said=best)] if best else []
