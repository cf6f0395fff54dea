"""What every kind of moment shares: the `Moment` itself, how a turn's files and failures
are read, and the words that make a message read as a standing rule."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from orbit_learnings.core.agents import tools as agenttools
from orbit_learnings.curation.capture.sessions import TOOL_USE, USER, Turn

# The transcripts capture reads (Claude Code's, Codex's), by the tools their turns name.
_TRANSCRIBED = ("claude-code", "claude-code (retired)", "anthropic-api", "codex")
EDIT_TOOLS = {t for agent in _TRANSCRIBED for t in agenttools.tools_of(agent, agenttools.EDIT)}
FILE_TOOLS = EDIT_TOOLS | set(agenttools.tools_of("claude-code", agenttools.READ))


@dataclass
class Moment:
    kind: str
    lines: list[int]  # the key line first
    score: float
    said: str = ""  # the person's words (the agent's, for what the agent found or meant)
    files: list[str] = field(default_factory=list)  # files the moment is about (raw paths)
    operation: str = ""
    failed: str = ""  # the failing command
    error: str = ""  # its first telling output line
    fixed: str = ""  # the command that then succeeded
    edits: list[tuple[str, str, str]] = field(default_factory=list)  # (file, old, new)
    changes: list[str] = field(default_factory=list)  # how the rerun differed, in words


# Words that make a message read as a standing rule, in the languages seen in public
# sessions. Strong ones ("never", "from now on", "以后") lift a moment's score; weak ones
# ("not", "use", "用") only a little, since bug reports and questions are full of them.
# No moment needs one.
STRONG_CUES = re.compile(
    r"\b(don'?t|do not|never|always|instead|should|must|prefer|avoid|"
    r"from now on|going forward|make sure|remember|"
    r"immer|niemals|statt|anstatt|nie|jamais|toujours|au lieu|"
    r"nunca|siempre|en lugar|en vez|hay que|debe|debemos|sempre|em vez|"
    r"всегда|никогда|нельзя|вместо|не надо|нужно|должн\w*)\b"
    r"|不要|别|应该|必须|总是|不能|改用|以后|而非|而不是|一律|统一|始终|记住|"
    r"ではなく|しないで|必ず|常に|今後|だめ|ダメ|항상|절대|대신|말고|하지 마|해야",
    re.I,
)
WEAK_CUES = re.compile(
    r"\b(wrong|not|no|use|nicht|kein|bitte|ne pas|utilise|usa|não|только)\b"
    r"|不是|使用|用|違う|使って",
    re.I,
)


# Words that make a sentence a standing rule rather than this task's requirement: "never",
# "always", "don't", "from now on", "禁止", "必ず"; "must" and "should" only negated (a task's
# "the page should show X" is its requirement, "you must not commit .env" a rule).
# "stop using …", "must not …": forbidding words the gate's firm shapes share (one definition).
STANDING_STOP_OR_MUST_NOT = (
    r"\bstop (using|running|doing|adding|calling|writing|asking)\b|"
    r"\b(must|should) ?(not|never)\b|\bmustn'?t\b|\bshouldn'?t\b"
)
STANDING = re.compile(
    STANDING_STOP_OR_MUST_NOT + r"|"
    r"\b(don'?t|do not|never|always|avoid|instead of|from now on|going forward|"
    r"rather than|prefer|"
    r"immer|niemals|nie|statt|anstatt|jamais|toujours|au lieu|nunca|siempre|en lugar|en vez|"
    r"всегда|никогда|нельзя|вместо|important|caveat|gotcha|known issue|note that)\b"
    r"|不要|别用|禁止|严禁|切勿|务必|必须|一律|始终|总是|不能|不许|而非|而不是|改用|今后|"
    r"以后(都|一律|不要|别|请|也|所有|凡是|每次)|"
    r"しないで|ではなく|必ず|必須|常に|今後|てはいけない|注意|항상|절대|하지 마|반드시|대신|말고",
    re.I,
)


# Where one sentence ends: a stop and a space, a CJK stop (no space follows it), a question
# or exclamation mark right before CJK text, a line break.
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|(?<=[?!])(?=[\u3040-\u9fff])|\n+")
# Chinese, Japanese and Korean characters: words without spaces between them.
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def rule_cue(text: str) -> bool:
    """Whether words read as a standing rule (`never`, `always`, `instead`, `以后`, …)."""
    return bool(STRONG_CUES.search(text) or WEAK_CUES.search(text))


# A program that is not installed, as shells, Windows, dash and Codex's runner say it: one
# definition for the moments that read it (`operations`, `environment`).
PROGRAM_MISSING = (
    r"command not found|is not recognized as (an internal or external command|the name of a)|"
    r"^execution error: No such file or directory|(Exit code|exited with code)[:\s]+127\b|"
    r"^sh: \d+: [\w.+-]+: not found"
)
# A module an interpreter cannot import: read by `operations.UNAVAILABLE` and by the gate
# (another interpreter, the project's venv, is then the fix).
MODULE_MISSING = r"[Nn]o module named|ModuleNotFoundError|[Cc]annot find (module|package)"
ERROR_OUTPUT = re.compile(
    r"^(error|ERROR|Error|fatal|FATAL|Traceback)\b[:\s(]|^failed in sandbox\b|"
    r"Operation not permitted|PermissionDenied|Permission denied|"
    r"command not found|No such file or directory|ModuleNotFoundError|Cannot find module|"
    r"^sh: \d+: [\w.+-]+: not found",
    re.M,
)


# The agent's own tools when called through the shell: their syntax is the harness's.
AGENT_TOOLS = frozenset(
    {"apply_patch", "applypatch", "update_plan", "todowrite", "str_replace_editor"}
)


# A command line that ends in a guard (`… || true`, `|| exit 0`, `|| echo failed`) passes
# whatever happened: a guard added in the rerun is no evidence of a fix (one both runs had
# leaves their output to tell).
_CANNOT_FAIL = re.compile(r"\|\|\s*(true|:|exit 0|echo\b[^;&|]*)\s*(#.*)?$")


def _cannot_fail(command: str) -> bool:
    lines = command.strip().splitlines()
    return bool(lines) and bool(_CANNOT_FAIL.search(lines[0 if "<<" in lines[0] else -1]))


def guard_added(failed_command: str, rerun: str) -> bool:
    """The rerun gained a guard the failing command did not have: its pass proves nothing."""
    return _cannot_fail(rerun) and not _cannot_fail(failed_command)


def failed(result: Turn | None) -> bool:
    """A non-zero exit, or an exit 0 whose output says it failed (`|| true`, tools that
    always exit 0)."""
    if result is None or result.rejected:
        return False
    return result.is_error or bool(ERROR_OUTPUT.search(result.text[:4000]))


def changed_files(turn: Turn) -> list[str]:
    if turn.kind != TOOL_USE or turn.tool not in FILE_TOOLS:
        return []
    paths = turn.tool_input.get("paths")
    if isinstance(paths, list):
        return [str(p) for p in paths]
    value = turn.tool_input.get("file_path") or turn.tool_input.get("notebook_path")
    value = value or turn.tool_input.get("path")
    return [value] if isinstance(value, str) and value else []


def edited(span: list[Turn]) -> list[str]:
    return [f for t in span if t.tool in EDIT_TOOLS for f in changed_files(t)]


def files_in(span: list[Turn]) -> list[str]:
    seen: dict[str, None] = {}
    for turn in span:
        for path in changed_files(turn):
            seen.setdefault(path, None)
    return list(seen)


def agent_span(turns: list[Turn], at: int, step: int) -> list[Turn]:
    """The turns between `at` and the person's previous (step -1) or next (step 1) message."""
    span: list[Turn] = []
    position = at + step
    while 0 <= position < len(turns) and turns[position].kind != USER:
        span.append(turns[position])
        position += step
    return span


def edit_lines(turn: Turn) -> list[tuple[str, str, str]]:
    """(file, old, new) of an edit call."""
    old = str(turn.tool_input.get("old_string", ""))
    new = str(turn.tool_input.get("new_string", turn.tool_input.get("content", "")))
    return [(path, old, new) for path in changed_files(turn)] if turn.tool in EDIT_TOOLS else []


# How `Moment.changes` names where a rerun ran and what set it up: read by the gate and the
# wording, so each prefix is defined once.
INSIDE = "inside "
AFTER = "after "
# A test that failed for real: its output, not the environment's.
TEST_FAILURE = re.compile(
    r"AssertionError|assert |\b[Ee]xpected\b|✕|\b\d+ failed\b|FAILED|Tests?:.*failed|"
    r"\bFAIL\b|failures?:|not ok \d"
)


_TELLING = re.compile(
    r"(error|Error|ERROR|failed|FAILED|not found|No such file|denied|Traceback|exception|"
    r"Exception|cannot|Cannot|fatal|invalid|Invalid|refused|missing|Missing)"
)


ANSI = re.compile(r"\x1b?\[\d+(;\d+)*m")  # terminal colours: no part of a quoted error


def one_line(text: str, most: int) -> str:
    """Text as one line of at most `most` characters, blanks collapsed, an ellipsis where it
    was cut: a moment's words where `extract` lists it and where a hook names it."""
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def words_of(moment: Moment) -> str:
    """What a moment quotes: the person's or the agent's words, else the failing command,
    else its error."""
    return moment.said or moment.failed or moment.error


def first_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    chosen = next((ln for ln in lines if _TELLING.search(ln)), lines[0] if lines else "")
    return chosen[:200]
