"""Moments where a lesson shows, found from what happened rather than from phrases.

Signals that hold in any language and with any model's manners:

- `rejection`: the person refused a tool call, usually saying why;
- `interruption`: the person stopped the agent and said something;
- `queued`: the person typed while the agent worked (steering, rarely chat);
- `redo`: right after the agent edited a file, the person spoke and the agent edited that
  file again;
- `error-fix`: one operation (see `commands.operation`) failed, then succeeded after a change
  of the command itself (a flag, an environment variable, a wrapper) or of a configuration
  file. A code edit that makes a test pass is ordinary work, not a lesson; scratch files and
  documentation are never the fix.

A plain follow-up message is a moment only when it reads as a rule (a short multilingual cue
list lifts its score, it is never required). Each moment keeps its evidence: the line numbers,
the person's words, the failing output and the commands or files that changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from orbit_learnings.core.agents import tools as agenttools
from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.sessions import (
    ASSISTANT,
    INTERRUPT,
    TOOL_RESULT,
    TOOL_USE,
    USER,
    Session,
    Turn,
)

# The transcripts capture reads (Claude Code's, Codex's), by the tools their turns name.
_TRANSCRIBED = ("claude-code", "claude-code (retired)", "anthropic-api", "codex")
EDIT_TOOLS = {t for agent in _TRANSCRIBED for t in agenttools.tools_of(agent, agenttools.EDIT)}
FILE_TOOLS = EDIT_TOOLS | set(agenttools.tools_of("claude-code", agenttools.READ))
THRESHOLD = 0.45  # chosen on the tuning set only (scripts/eval_capture.py)
FOLLOW_UP = 0.4  # a plain later message: a moment only with a rule cue
PER_SESSION = 3
WINDOW = 12  # tool calls looked ahead for the retry of a failed operation
# Words that make a message read as a standing rule, in the languages seen in public
# sessions. Strong ones ("never", "from now on", "以后") lift a moment's score; weak ones
# ("not", "use", "用") only a little, since bug reports and questions are full of them.
# No moment needs one.
_STRONG_CUES = re.compile(
    r"\b(don'?t|do not|never|always|instead|should|must|prefer|avoid|"
    r"from now on|going forward|make sure|remember|"
    r"immer|niemals|statt|anstatt|nie|jamais|toujours|au lieu|"
    r"nunca|siempre|en lugar|en vez|hay que|debe|debemos|sempre|em vez|"
    r"всегда|никогда|нельзя|вместо|не надо|нужно|должн\w*)\b"
    r"|不要|别|应该|必须|总是|不能|改用|以后|而非|而不是|一律|统一|始终|记住|"
    r"ではなく|しないで|必ず|常に|今後|だめ|ダメ|항상|절대|대신|말고|하지 마|해야",
    re.I,
)
_WEAK_CUES = re.compile(
    r"\b(wrong|not|no|use|nicht|kein|bitte|ne pas|utilise|usa|não|только)\b"
    r"|不是|使用|用|違う|使って",
    re.I,
)


def rule_cue(text: str) -> bool:
    """Whether words read as a standing rule (`never`, `always`, `instead`, `以后`, …)."""
    return bool(_STRONG_CUES.search(text) or _WEAK_CUES.search(text))


def _cue_weight(text: str) -> float:
    return 0.2 if _STRONG_CUES.search(text) else 0.05 if _WEAK_CUES.search(text) else 0.0


_ASKING = re.compile(
    r"^\W*(how|what|why|where|when|which|who|can|could|would|is|are|does|do|did|should i|"
    r"wie|was|warum|wo|comment|pourquoi|cómo|qué|por qué|como|почему|как|что|"
    r"为什么|什么|怎么|如何|是否|どう|なぜ|何)\b",
    re.I,
)
_REPORT = re.compile(
    r"\b(Error|Exception|Uncaught|Traceback|undefined|null|crash\w*|fails?|failed|"
    r"shows?|says?|prints?)\b|报错|错误|エラー|ошибк",
)
_QUESTION = re.compile(r"[?？]|[吗嗎呢]\s*$|[か]\s*$|니까\s*$")
_THANKS = re.compile(
    r"^\W*(thanks|thank you|thx|great|perfect|awesome|nice|lgtm|looks good|danke|merci|gracias"
    r"|obrigad|谢谢|多谢|好的|ありがとう|完璧)",
    re.I,
)
_CONFIG = re.compile(
    r"(^|/)(pyproject\.toml|setup\.cfg|setup\.py|requirements[^/]*\.txt|package\.json|tsconfig[^/]*"
    r"|\.env[^/]*|Dockerfile[^/]*|docker-compose[^/]*|compose\.ya?ml|Makefile|justfile|\.github/"
    r".*|[^/]*\.(toml|ini|cfg|ya?ml|lock)|go\.mod|Cargo\.toml|Gemfile|vite\.config\.\w+"
    r"|jest\.config\.\w+|webpack\.config\.\w+|\.eslintrc[^/]*|\.babelrc|conftest\.py)$"
)


@dataclass
class Moment:
    kind: str
    lines: list[int]  # the key line first
    score: float
    said: str = ""  # the person's words
    files: list[str] = field(default_factory=list)  # files the moment is about (raw paths)
    operation: str = ""
    failed: str = ""  # the failing command
    error: str = ""  # its first telling output line
    fixed: str = ""  # the command that then succeeded
    edits: list[tuple[str, str, str]] = field(default_factory=list)  # (file, old, new)
    changes: list[str] = field(default_factory=list)  # how the rerun differed, in words


def find_moments(session: Session) -> list[Moment]:
    """The session's strongest moments, at most `PER_SESSION`, in the order they happened."""
    turns = [t for t in session.turns if not t.sidechain]
    found = _person_moments(turns) + _error_fix_moments(turns, session.cwd) + _findings(turns)
    kept = sorted((m for m in found if m.score >= THRESHOLD), key=lambda m: -m.score)
    return sorted(kept[:PER_SESSION], key=lambda m: m.lines[0])


# --- the agent finding out -------------------------------------------------------------

# The agent names a cause it just found, or takes back what it said: the gotchas of a code
# base live here more than in anything a person types. Causes and retractions, in the
# languages seen in public sessions; no one session's wording.
_FINDING = re.compile(
    r"\b(root cause|the (real |actual |underlying )?(cause|culprit|problem|issue|reason) "
    r"(is|was)|turns out|it turned out|this is why|that'?s why|which is why|"
    r"I need to correct|I was wrong|correction:|my (earlier|previous) (advice|answer|claim)|"
    r"der Grund (ist|war)|liegt daran|stellt sich heraus|la cause (est|était)|"
    r"la causa (es|era)|el problema (es|era)|resulta que|причина в том)\b"
    r"|根本原因|正是原因|原因是|原因在于|问题在于|原来是|原因は|原因でした|実は",
    re.I,
)
FINDING = 0.5  # below a person's own words: the agent's reading can be wrong


def _findings(turns: list[Turn]) -> list[Moment]:
    """The agent's statement of a cause or a retraction, after a person's question or
    report, or after a failure: one moment per statement, its sentence quoted."""
    moments: list[Moment] = []
    for position, turn in enumerate(turns):
        if turn.kind != ASSISTANT or not (match := _FINDING.search(turn.text)):
            continue
        if not _prompted(turns, position):
            continue
        said = _sentence_around(turn.text, match.start())
        files = _files(turns[max(0, position - 6) : position + 2])
        moments.append(Moment("finding", [turn.line], FINDING, said=said, files=files))
    return moments


def _prompted(turns: list[Turn], at: int) -> bool:
    """Whether a question, a report or a failure came just before (within the agent's turn)."""
    for turn in reversed(turns[max(0, at - 8) : at]):
        if turn.kind == TOOL_RESULT and _failed(turn):
            return True
        if turn.kind == USER:
            text = turn.text.strip()
            return bool(_QUESTION.search(text) or _ASKING.match(text) or _REPORT.search(text))
    return False


def _sentence_around(text: str, at: int) -> str:
    """The sentence holding position `at` and the next one (the cause is often there)."""
    start = max(text.rfind(mark, 0, at) for mark in (". ", "\n", "。", "! ")) + 1
    pieces = re.split(r"(?<=[.!?。！？])\s+|\n+", text[start:].strip())
    return " ".join(p for p in pieces[:2] if p).strip()[:600]


# --- the person speaking ------------------------------------------------------------------


def _person_moments(turns: list[Turn]) -> list[Moment]:
    moments: list[Moment] = []
    seen_task = False
    for position, turn in enumerate(turns):
        if turn.kind == INTERRUPT:
            said = turn.text or _next_said(turns, position)
            if said:
                moments.append(_moment("interruption", 0.75, turn, said, turns, position))
            continue
        if turn.kind != USER or not turn.text.strip() or _after_interrupt(turns, position):
            continue
        if turn.tool_id:  # a refused call's reason
            moments.append(_moment("rejection", 0.9, turn, turn.text, turns, position))
        elif _after_refusal(turns, position):
            moments.append(_moment("rejection", 0.8, turn, turn.text, turns, position))
        elif not seen_task:
            seen_task = True  # the first message states the task; it corrects nothing
        else:
            kind = _follow_up_kind(turns, position)
            moments.append(_moment(kind, _BASE[kind], turn, turn.text, turns, position))
    return _one_per_saying(moments)


_BASE = {
    "queued": 0.55,
    "redo": 0.55,
    "pasted-error": 0.55,
    "after-error": 0.5,
    "follow-up": FOLLOW_UP,
}


def _follow_up_kind(turns: list[Turn], at: int) -> str:
    """What a later message follows: typed while the agent worked, the agent's edit it
    then redid, or a failure the person answers (often with what the agent could not know)."""
    if turns[at].queued:
        return "queued"
    if _ERROR_OUTPUT.search(turns[at].text):
        return "pasted-error"  # the person ran it in their own terminal and shows it failing
    if _redo(turns, at):
        return "redo"
    results = [t for t in _agent_span(turns, at, -1) if t.kind == TOOL_RESULT]
    return "after-error" if any(_failed(t) for t in results) else "follow-up"


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
    files = _files(turns[max(0, at - 6) : at + 6])
    return Moment(kind, [turn.line], _score(base, said), said=said.strip(), files=files)


def _score(base: float, said: str) -> float:
    """How likely the words state a rule worth keeping."""
    text = said.strip()
    words = len(text.split()) + len(re.findall(r"[\u3040-\u30ff\u3400-\u9fff]", text)) // 2
    score = base + _cue_weight(text)
    strong = bool(_STRONG_CUES.search(text))
    if _THANKS.match(text):
        score -= 0.25  # appreciation first: whatever follows is rarely a rule
    if words < 3:
        score -= 0.3  # "yes", "continue", "ok go"
    if (_QUESTION.search(text) or _ASKING.match(text)) and not strong:
        score -= 0.3  # a question asks; it rarely states a rule
    if _REPORT.search(text) and not strong:
        score -= 0.15  # a bug report or an observation: the lesson is not in these words
    if len(text) > 1500:
        score -= 0.25  # a pasted spec or log, not a lesson
    return round(min(score, 1.0), 2)


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
    before = set(_edited(_agent_span(turns, at, -1)))
    after = set(_edited(_agent_span(turns, at, 1)))
    return bool(before & after)


def _agent_span(turns: list[Turn], at: int, step: int) -> list[Turn]:
    span: list[Turn] = []
    position = at + step
    while 0 <= position < len(turns) and turns[position].kind != USER:
        span.append(turns[position])
        position += step
    return span


def changed_files(turn: Turn) -> list[str]:
    if turn.kind != TOOL_USE or turn.tool not in FILE_TOOLS:
        return []
    paths = turn.tool_input.get("paths")
    if isinstance(paths, list):
        return [str(p) for p in paths]
    value = turn.tool_input.get("file_path") or turn.tool_input.get("notebook_path")
    value = value or turn.tool_input.get("path")
    return [value] if isinstance(value, str) and value else []


def _edited(span: list[Turn]) -> list[str]:
    return [f for t in span if t.tool in EDIT_TOOLS for f in changed_files(t)]


def _files(span: list[Turn]) -> list[str]:
    seen: dict[str, None] = {}
    for turn in span:
        for path in changed_files(turn):
            seen.setdefault(path, None)
    return list(seen)


# --- an operation failing, then succeeding after a change --------------------------------


def _error_fix_moments(turns: list[Turn], cwd: str | None) -> list[Moment]:
    results = {t.tool_id: t for t in turns if t.kind == TOOL_RESULT and t.tool_id}
    calls = [t for t in turns if t.kind == TOOL_USE]
    moments: list[Moment] = []
    used: set[int] = set()
    for position, call in enumerate(calls):
        key = _operation(call)
        if key is None or not _failed(results.get(call.tool_id)) or position in used:
            continue
        last_failure, between = call, []
        for offset, later in enumerate(calls[position + 1 : position + 1 + WINDOW], start=1):
            if _operation(later) != key:
                between.append(later)
                continue
            used.add(position + offset)
            if _failed(results.get(later.tool_id)):
                last_failure, between = later, []
                continue
            moment = _error_fix(key, call, results[call.tool_id], last_failure, later, between, cwd)
            if moment is not None:
                moments.append(moment)
            break
    return moments


def _operation(call: Turn) -> str | None:
    if call.tool != "Bash":
        return None
    return commands.operation(str(call.tool_input.get("command", "")))


_ERROR_OUTPUT = re.compile(
    r"^(error|ERROR|Error|fatal|FATAL|Traceback)\b[:\s(]|PermissionDenied|Permission denied|"
    r"command not found|No such file or directory|ModuleNotFoundError|Cannot find module",
    re.M,
)


def _failed(result: Turn | None) -> bool:
    """A non-zero exit, or an exit 0 whose output says it failed (`|| true`, tools that
    always exit 0)."""
    if result is None or result.rejected:
        return False
    return result.is_error or bool(_ERROR_OUTPUT.search(result.text[:4000]))


def _error_fix(
    key: str,
    first: Turn,
    result: Turn,
    last_failure: Turn,
    success: Turn,
    between: list[Turn],
    cwd: str | None,
) -> Moment | None:
    failed = str(last_failure.tool_input.get("command", "")).strip()
    fixed = str(success.tool_input.get("command", "")).strip()
    edits = [e for t in between for e in _edit_lines(t) if _counts_as_fix(e[0], cwd)]
    command_changed = _how_changed(_shape(last_failure), _shape(success))
    config = [e for e in edits if _CONFIG.search(commands.normalise_path(e[0]))]
    if not command_changed and not config:
        return None  # a retry, or ordinary code work making a test pass
    if command_changed and not config and _TEST_FAILURE.search(result.text[:4000]):
        return None  # a test that failed for real: rerunning it differently fixed nothing
    moment = Moment("error-fix", [first.line, success.line], 0.7 if command_changed else 0.65)
    moment.operation, moment.failed, moment.fixed = key, failed, fixed
    moment.error = first_error_line(result.text)
    moment.edits = config if not command_changed else []
    moment.changes = what_changed(_shape(last_failure), _shape(success)) if command_changed else []
    moment.files = [e[0] for e in config]
    return moment


_TEST_FAILURE = re.compile(
    r"AssertionError|assert |Expected|expected|✕|\b\d+ failed\b|FAILED|Tests?:.*failed|"
    r"\bFAIL\b|failures?:|not ok \d"
)


def _how_changed(failed: list[str], fixed: list[str]) -> bool:
    """Whether the rerun changed *how* it ran — a flag, an environment variable, the
    program (`python` → `python3`), a wrapper, the folder, the sandbox — and not merely
    *what* it ran on (another test file, another script body): only the first is a lesson."""
    if failed == fixed:
        return False
    removed = [w for w in failed if w not in fixed]
    added = [w for w in fixed if w not in failed]
    if fixed[:1] != failed[:1] and (fixed[:1] and failed[:1]):
        return True  # another program, or a wrapper in front
    # `--filter=a` → `--filter=b` changes what ran, not how: an option whose value alone
    # changed is the target, not a setting.
    retargeted = {_option_key(w) for w in removed} & {_option_key(w) for w in added}
    return any(_is_setting(w) and _option_key(w) not in retargeted for w in (*removed, *added))


def what_changed(failed: list[str], fixed: list[str]) -> list[str]:
    """The rerun's difference as phrases a rule can use: "with `DATABASE_URL=…`",
    "outside the sandbox (escalated permissions)", "from `frontend`", "without `--watch`";
    another program is said by the draft as "use X, not Y"."""
    said: list[str] = []
    added = [w for w in fixed if w not in failed]
    for position, word in enumerate(added):
        if word == "escalated=True":
            said.append("outside the sandbox (escalated permissions)")
        elif word.startswith("workdir="):
            said.append(f"from `{word.split('=', 1)[1]}`")
        elif word == "cd" and position + 1 < len(added):
            said.append(f"from `{added[position + 1]}`")
        elif _is_setting(word) and word != "cd":
            said.append(f"with `{word[:80]}`")
    said += [f"without `{w[:60]}`" for w in failed if w not in fixed and _is_setting(w)]
    return list(dict.fromkeys(said))[:4]


def _is_setting(word: str) -> bool:
    """A word that says how a command runs: a flag, an environment assignment, `cd`."""
    return word.startswith("-") or bool(commands.ASSIGNMENT.match(word)) or word in ("cd", "sudo")


def _option_key(word: str) -> str:
    return word.split("=", 1)[0] if word.startswith("-") else word


def _shape(call: Turn) -> list[str]:
    """How a call ran: its command without what only shapes the output (`| tail -20`,
    `2>&1`), plus the folder and the sandbox it ran in (rerunning outside the sandbox or
    in another folder is a change)."""
    command = str(call.tool_input.get("command", ""))
    if "<<" in command:  # a here-document's body is data, not how the command ran
        command = command.split("\n", 1)[0]
    command = _INLINE_SCRIPT.sub(r"\1 <script>", command)
    kept = [s for s in commands.segments(command) if s[0] not in ("tail", "head", "grep", "tee")]
    extra = [f"{k}={call.tool_input[k]}" for k in _RUN_SETTINGS if call.tool_input.get(k)]
    return [w for s in kept for w in s] + extra


# `node -e CODE`, `python -c CODE`: the code is data, not how the program ran.
_INLINE_SCRIPT = re.compile(r"(\s-(?:e|c|-eval)\s+)(\"[^\"]*\"|'[^']*'|\S+)")
_RUN_SETTINGS = ("workdir", "escalated", "dangerouslyDisableSandbox")


def _edit_lines(turn: Turn) -> list[tuple[str, str, str]]:
    old = str(turn.tool_input.get("old_string", ""))
    new = str(turn.tool_input.get("new_string", turn.tool_input.get("content", "")))
    return [(path, old, new) for path in changed_files(turn)] if turn.tool in EDIT_TOOLS else []


def _counts_as_fix(path: str, cwd: str | None) -> bool:
    if commands.is_scratch(path) or commands.is_documentation(path):
        return False
    return commands.repo_relative(path, cwd) is not None


_TELLING = re.compile(
    r"(error|Error|ERROR|failed|FAILED|not found|No such file|denied|Traceback|exception|"
    r"Exception|cannot|Cannot|fatal|invalid|Invalid|refused|missing|Missing)"
)


def first_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    chosen = next((ln for ln in lines if _TELLING.search(ln)), lines[0] if lines else "")
    return chosen[:200]
