"""Where the agent runs is not where the person thinks: a command that never returns in the
agent's shell, a path the person names that the agent cannot reach.

Both are lessons about the environment (an interactive tool, a remote machine, the wrong
folder) that no edit fixes and no rule cue announces. The agent's next words, which
usually say what it found, are quoted."""

from __future__ import annotations

import re

from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.moments.base import PROGRAM_MISSING, Moment, failed
from orbit_learnings.curation.capture.moments.findings import sentence_around
from orbit_learnings.curation.capture.sessions import ASSISTANT, TOOL_RESULT, TOOL_USE, USER, Turn

HANG = 0.55
UNREACHABLE = 0.55

# --- a command that never returns ----------------------------------------------------------

# The harness saying so (Claude Code's two-minute limit, a background task still running
# when its output was asked for, Codex's limit), or `timeout`'s exit 124; never a test's
# own "timed out" in its output.
_TIMED_OUT = re.compile(
    r"^\s*(Exit code \d+\s+)?(Command timed out|command timed out|<retrieval_status>timeout)|"
    r"(Exit code|exited with code)[:\s]+124\b"
)
_BACKGROUND = re.compile(r"running in background with ID:\s*(\w+)")
_STOPS = {"TaskStop", "KillShell", "KillBash"}
# Meant to keep running: stopping a server or a watcher is ordinary work.
_LONG_RUNNING = re.compile(
    r"\b(dev|serve|server|start|watch|up|preview|storybook|runserver|uvicorn|gunicorn|"
    r"http\.server|sleep|logs -f|tail -f)\b|--watch|flask run|rails s\b"
)


def hangs(turns: list[Turn]) -> list[Moment]:
    """A command that timed out, or that the agent had to stop before it said anything;
    servers and watchers excepted."""
    moments: list[Moment] = []
    calls = {t.tool_id: t for t in turns if t.kind == TOOL_USE and t.tool_id}
    background: dict[str, Turn] = {}
    for position, turn in enumerate(turns):
        call = calls.get(turn.tool_id) if turn.kind == TOOL_RESULT else None
        if call is None or call.tool in _STOPS:
            continue
        if call.tool not in ("TaskOutput", "BashOutput") and (
            task := _BACKGROUND.search(turn.text)
        ):
            background[task.group(1)] = call
        hung = background.get(_task_of(call)) if _TIMED_OUT.search(turn.text[:600]) else None
        hung = hung or (
            call if call.tool == "Bash" and _TIMED_OUT.search(turn.text[:600]) else None
        )
        command = str(hung.tool_input.get("command", "")) if hung else ""
        if hung is None or _LONG_RUNNING.search(command) or not commands.operation(command):
            continue
        if any(hung.line in m.lines for m in moments):
            continue
        said = _next_words(turns, position)
        moment = Moment("hang", [hung.line, turn.line], HANG, said=said, failed=command[:300])
        moment.operation = commands.operation(command) or ""
        moments.append(moment)
    return moments


def _task_of(call: Turn) -> str:
    for key in ("task_id", "shell_id", "bash_id"):
        if isinstance(call.tool_input.get(key), str):
            return str(call.tool_input[key])
    return ""


def _next_words(turns: list[Turn], at: int) -> str:
    """The agent's next words (before the person speaks again), its first two sentences."""
    for turn in turns[at + 1 :]:
        if turn.kind == USER:
            break
        if turn.kind == ASSISTANT and turn.text.strip():
            return sentence_around(turn.text, 0)
    return ""


# --- a path the agent cannot reach ----------------------------------------------------------

_WINDOWS_PATH = re.compile(r"\b[A-Za-z]:\\[^\s\"'<>|?*,;]+")
_POSIX_PATH = re.compile(r"(?<![\w.:/])(~/[^\s\"'<>|,;]+|/(?:Users|home|root|mnt|Volumes|srv|opt)"
                         r"/[^\s\"'<>|,;]+)")  # fmt: skip
_NOT_THERE = re.compile(
    r"does not exist|No such file|not found|cannot find|can't find|ENOENT|cannot access|"
    r"не найден|не существует|找不到|不存在|見つかりません|không tìm thấy",
    re.I,
)


def unreachable_paths(turns: list[Turn], cwd: str | None) -> list[Moment]:
    """The person names a path outside the agent's folder that the agent then fails to
    reach, or a path of another system than the one the agent runs on (`C:\\Users\\…`
    while the agent runs in `/root`)."""
    moments: list[Moment] = []
    for position, turn in enumerate(turns):
        if turn.kind != USER or not cwd:
            continue
        for path in _paths(turn.text):
            if commands.repo_relative(path, cwd) is not None:
                continue
            missed = _missed(turns, position, path)
            if missed is None and not _foreign(path, cwd):
                continue
            lines = [turn.line, missed.line] if missed else [turn.line]
            said = _next_words(turns, position)
            moments.append(Moment("unreachable", lines, UNREACHABLE, said=said, files=[path]))
            break
    return moments


def _paths(text: str) -> list[str]:
    return [p.rstrip(".)]") for p in _WINDOWS_PATH.findall(text) + _POSIX_PATH.findall(text)]


def _foreign(path: str, cwd: str) -> bool:
    """A Windows path while the agent runs on a POSIX system, or the other way round."""
    windows_cwd = bool(re.match(r"^[A-Za-z]:[\\/]", cwd))
    windows_path = bool(re.match(r"^[A-Za-z]:\\", path))
    return windows_cwd != windows_path and not path.startswith("~")


def _not_there(result: Turn) -> bool:
    """The result says the path is not there (a tool missing, a parse error: not this)."""
    return bool(_NOT_THERE.search(result.text[:600]))


def _missed(turns: list[Turn], at: int, path: str) -> Turn | None:
    """The failing result of a call in the agent's answer that names the path (or its last
    part): the agent could not reach it."""
    name = commands.normalise_path(path).rstrip("/").rsplit("/", 1)[-1]
    wanted: set[str] = set()
    for turn in turns[at + 1 :]:
        if turn.kind == USER:
            break
        if turn.kind == TOOL_USE and name and name in commands.normalise_path(str(turn.tool_input)):
            wanted.add(turn.tool_id)
        elif turn.kind == TOOL_RESULT and turn.tool_id in wanted and _not_there(turn):
            return turn
    return None


# --- what the machine refuses ------------------------------------------------------------------

BLOCKED = 0.5
# The machine, not the code: a permission, a full disk, a daemon down, a certificate, a port
# taken, a name that does not resolve. Tools print these in English. (A program missing is
# not here: agents meet that often and run another, `replaced_moments`' case when related.)
_REFUSED_BY_MACHINE = re.compile(
    r"Permission denied|EACCES|Operation not permitted|Read-only file system|"
    r"No space left on device|Cannot connect to the Docker daemon|certificate verify failed|"
    r"EADDRINUSE|[Aa]ddress already in use|Could not resolve host|"
    r"Temporary failure in name resolution|[Nn]etwork is unreachable|"
    r"not a git repository|detected dubious ownership"
)


def machine_refusals(turns: list[Turn]) -> list[Moment]:
    """An operation the machine refused (see `_REFUSED_BY_MACHINE`) that never ran later in
    the session: the agent gave up or worked around it, and the next person will meet it."""
    calls = [t for t in turns if t.kind == TOOL_USE and t.tool == "Bash"]
    results = {t.tool_id: t for t in turns if t.kind == TOOL_RESULT and t.tool_id}
    moments: list[Moment] = []
    for position, call in enumerate(calls):
        command = str(call.tool_input.get("command", ""))
        key, result = commands.operation(command), results.get(call.tool_id)
        if key is None or result is None or any(m.operation == key for m in moments):
            continue
        refused = _REFUSED_BY_MACHINE.search(result.text[:3000])
        went_wrong = result.is_error or result.text.lstrip().startswith("failed in sandbox")
        if not went_wrong or refused is None or _ran_later(key, calls[position + 1 :], results):
            continue
        moment = Moment("blocked", [call.line, result.line], BLOCKED, failed=command[:300])
        moment.operation, moment.error = key, _line_of(result.text, refused.start())
        moment.said = _next_words(turns, turns.index(result))
        moments.append(moment)
    return moments


# A program that is not installed, as shells, Windows and Codex's own runner say it.
_MISSING_PROGRAM = re.compile(PROGRAM_MISSING, re.M)
MISSING_TWICE = 2  # one miss the agent walks around; a program it keeps reaching for is missing


def missing_programs(turns: list[Turn]) -> list[Moment]:
    """A program the agent reached for again and again that is not installed here (`rg`,
    `jq`), and that never ran: the next agent will reach for it too. Once is a moment only
    when the agent remarks on it: agents try a tool, miss, and use another silently."""
    results = {t.tool_id: t for t in turns if t.kind == TOOL_RESULT and t.tool_id}
    misses: dict[str, list[Turn]] = {}
    callers: dict[str, set[str]] = {}  # the program missing → those that reached for it
    ran: dict[str, int] = {}  # a program → the last line it ran without a miss
    for call in (t for t in turns if t.kind == TOOL_USE and t.tool == "Bash"):
        words = commands.segments(str(call.tool_input.get("command", "")))
        program = next((p[0] for w in words if (p := commands.program_words(w))), "")
        result = results.get(call.tool_id)
        if not program or result is None:
            continue
        missing_output = bool(_MISSING_PROGRAM.search(result.text[:2000]))
        if failed(result) and missing_output:
            # `npm test` printing `sh: 1: vitest: not found` is vitest missing, not npm
            named = _named_missing(result)
            missing = named[0] if named else program
            misses.setdefault(missing, []).append(call)
            callers.setdefault(missing, set()).add(program)
        elif not missing_output:
            ran[program] = call.line
    moments = []
    for program, calls in misses.items():
        if program in ran or any(ran.get(c, 0) > calls[-1].line for c in callers[program]):
            continue  # it ran, or what reached for it ran later (after `npm ci`)
        if len(callers[program] - {program}) > 1:
            continue  # `cat` and `npm` both "missing compdef": a shell profile's noise
        if len(calls) >= MISSING_TWICE or _remarked(turns, calls[0], program):
            second = calls[1] if len(calls) > 1 else results[calls[0].tool_id]
            lines = [calls[0].line, second.line]
            moment = Moment("blocked", lines, BLOCKED, operation=program)
            moment.failed = str(calls[0].tool_input.get("command", ""))[:300]
            moment.error = f"{program}: not installed here"
            moments.append(moment)
    return moments


# How shells name the program they could not find: `bash: rg: command not found`,
# `zsh: command not found: rg`, `sh: 1: jest: not found`.
_NAMED_MISSING = re.compile(
    r"command not found: ([\w.+-]+)|([\w.+-]+): (?:command )?not found\b(?!:)"
)


def _named_missing(result: Turn) -> list[str]:
    """The programs the output names as missing, in order."""
    return [a or b for a, b in _NAMED_MISSING.findall(result.text[:2000])]


def _remarked(turns: list[Turn], call: Turn, program: str) -> bool:
    """The agent's next words name the missing program ("`rg` isn't available here, so I'll
    use `find`"): it noticed, and so will the next agent. Its name is the cue, in any language."""
    said = _next_words(turns, turns.index(call))
    return bool(re.search(rf"(?<![\w/-]){re.escape(program)}(?![\w/-])", said))


def _ran_later(key: str, later: list[Turn], results: dict[str, Turn]) -> bool:
    """Whether the operation, or another of its program, ran without the machine refusing."""
    program = key.split()[0]
    for call in later:
        other = commands.operation(str(call.tool_input.get("command", ""))) or ""
        result = results.get(call.tool_id)
        if (
            other.split()[:1] == [program]
            and result is not None
            and not _REFUSED_BY_MACHINE.search(result.text[:3000])
        ):
            return True
    return False


def _line_of(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start : end if end >= 0 else None].strip()[:200]
