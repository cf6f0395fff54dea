"""An operation failing, then succeeding after a change.

One operation (see `commands.operation`) failed, then succeeded after a change of the
command itself (a flag, an environment variable, a wrapper, the folder) or of a
configuration file. A code edit that makes a test pass is ordinary work, not a lesson;
scratch files and documentation are never the fix."""

from __future__ import annotations

import re

from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.moments.base import (
    AFTER,
    AGENT_TOOLS,
    INSIDE,
    MODULE_MISSING,
    PROGRAM_MISSING,
    TEST_FAILURE,
    Moment,
    edit_lines,
    failed,
    first_error_line,
    guard_added,
)
from orbit_learnings.curation.capture.moments.between import (
    Rerun,
    person_fixed,
    repairs_files,
    set_up_first,
    step_of,
)
from orbit_learnings.curation.capture.sessions import TOOL_RESULT, TOOL_USE, Turn

WINDOW = 12  # tool calls looked ahead for the retry of a failed operation
# A configuration file by its shape, not a list of tools: `*.config.js` (eslint, vite,
# jest, next, tailwind, …), dot-rc files, manifests, lockfiles, CI and container files.
CONFIG = re.compile(
    r"(^|/)(pyproject\.toml|setup\.cfg|setup\.py|requirements[^/]*\.txt|package\.json|tsconfig[^/]*"
    r"|\.env[^/]*|Dockerfile[^/]*|docker-compose[^/]*|compose\.ya?ml|Makefile|justfile|\.github/"
    r".*|[^/]*\.(toml|ini|cfg|ya?ml|lock)|go\.mod|Cargo\.toml|Gemfile|conftest\.py"
    r"|[^/]+\.config\.[cm]?[jt]s|[^/]+\.config\.json|\.[a-z]+rc(\.[a-z]+)?)$"
)


def error_fix_moments(turns: list[Turn], cwd: str | None) -> list[Moment]:
    results = {t.tool_id: t for t in turns if t.kind == TOOL_RESULT and t.tool_id}
    calls = [t for t in turns if t.kind == TOOL_USE]
    moments: list[Moment] = []
    used: set[int] = set()
    for position, call in enumerate(calls):
        key = operation_of(call)
        if key is None or not failed(results.get(call.tool_id)) or position in used:
            continue
        if key.split()[0].lower() in AGENT_TOOLS:
            continue  # the agent's patch not applying is the harness's, never the project's
        last_failure, between, moved = call, [], None
        for offset, later in enumerate(calls[position + 1 : position + 1 + WINDOW], start=1):
            if operation_of(later) != key:
                between.append(later)
                continue
            used.add(position + offset)
            if failed(results.get(later.tool_id)):
                moved = moved or _got_past(call, later, results, between)
                last_failure, between = later, []
                continue
            moment = _error_fix(key, call, last_failure, later, between, cwd, results, turns)
            if moment is not None:
                moments.append(moment)
                moved = None  # the pass tells the lesson better than getting past did
            break
        if moved is not None:
            moments.append(moved)
    return moments


GOT_PAST = 0.45  # no pass seen: the change may have fixed the first failure, or not


def _got_past(
    first: Turn, later: Turn, results: dict[str, Turn], between: list[Turn]
) -> Moment | None:
    """The operation failed, was rerun another way (quoting, a flag, `&` for `.`) or after a
    command that repaired files (line endings, a mode bit) and failed differently: the change
    got past the first failure, which is what the next person meets."""
    before, after = results[first.tool_id], results[later.tool_id]
    error, then = first_error_line(before.text), first_error_line(after.text)
    if not error or error == then:
        return None
    shape, new_shape = run_shape(first), run_shape(later)
    # A repair counts for the same command rerun.
    repairs = [c for c in between if repairs_files(c, results)] if shape == new_shape else []
    if not repairs and not how_changed(shape, new_shape):
        return None
    if TEST_FAILURE.search(before.text[:4000]):
        return None  # tests failing for real
    moment = Moment("error-fix", [first.line, later.line], GOT_PAST)
    moment.operation = operation_of(first) or ""
    moment.failed = str(first.tool_input.get("command", "")).strip()
    moment.fixed = str(later.tool_input.get("command", "")).strip()
    moment.error = error
    moment.changes = what_changed(shape, new_shape)
    if repairs:
        moment.lines.insert(1, repairs[-1].line)
        moment.changes = [f"{AFTER}`{step_of(repairs[-1])}`"]
    return moment


# The command, script or module asked for does not exist here: what to run instead is the
# lesson (`yarn test:web` → `yarn test`, `make check` → `make test`, `pip` → `python -m pip`).
UNAVAILABLE = re.compile(
    PROGRAM_MISSING + r"|[Cc]ouldn'?t find a script|[Mm]issing script|"
    r"[Uu]nknown (command|script|subcommand|task)|[Nn]o such (command|subcommand|task)|"
    r"[Nn]o rule to make target|" + MODULE_MISSING + r"|is not (installed|available)",
    re.M,
)
NEAR = 4  # tool calls looked ahead for the command that ran instead


def replaced_moments(turns: list[Turn]) -> list[Moment]:
    """An operation that does not exist here, then a related one (same program, another
    script, subcommand or folder) that ran: "run X, not Y". The second may still fail for
    its own reasons (a test failing): it got past what was missing."""
    results = {t.tool_id: t for t in turns if t.kind == TOOL_RESULT and t.tool_id}
    calls = [t for t in turns if t.kind == TOOL_USE and operation_of(t)]
    moments: list[Moment] = []
    for position, call in enumerate(calls):
        result = results.get(call.tool_id)
        if result is None or not failed(result) or not UNAVAILABLE.search(result.text[:2000]):
            continue
        key = str(operation_of(call))
        for later in calls[position + 1 : position + 1 + NEAR]:
            other = str(operation_of(later))
            answer = results.get(later.tool_id)
            if other == key or other.split()[0] != key.split()[0] or answer is None:
                continue
            if guard_added(_command(call), _command(later)):
                continue  # `… || true` added: it passes whatever happened
            if not UNAVAILABLE.search(answer.text[:2000]):
                moments.append(_replaced(key, call, result, later))
            break
    return moments


def missing_named(text: str, name: str) -> bool:
    """Whether a line of the output says `name` itself is missing (`pytest: command not
    found`, `Couldn't find a script named "test:web"`, `No rule to make target 'check'`):
    a whole token, so `csv-chunker.test.ts` does not name `test`."""
    token = re.compile(rf"(?<![\w./-]){re.escape(name)}(?![\w./-])")
    return any(UNAVAILABLE.search(line) and token.search(line) for line in text.splitlines())


def _replaced(key: str, call: Turn, result: Turn, later: Turn) -> Moment:
    moment = Moment("error-fix", [call.line, later.line], REPLACED)
    moment.operation = key
    moment.failed = str(call.tool_input.get("command", "")).strip()
    moment.fixed = str(later.tool_input.get("command", "")).strip()
    moment.error = first_error_line(result.text)
    moment.changes = what_changed(run_shape(call), run_shape(later))
    return moment


REPLACED = 0.6  # below a rerun that succeeded outright


def _command(call: Turn) -> str:
    return str(call.tool_input.get("command", "")).strip()


def operation_of(call: Turn) -> str | None:
    if call.tool != "Bash":
        return None
    return commands.operation(str(call.tool_input.get("command", "")))


def _error_fix(
    key: str,
    first: Turn,
    last_failure: Turn,
    success: Turn,
    between: list[Turn],
    cwd: str | None,
    results: dict[str, Turn],
    turns: list[Turn],
) -> Moment | None:
    """The moment of one operation that failed (`first`, last at `last_failure`) and then
    passed (`success`), when how it ran changed, a configuration file changed between, or
    a setup step came between; None for a retry or ordinary code work."""
    result = results[first.tool_id]
    failed_command, fixed = _command(last_failure), _command(success)
    if guard_added(failed_command, fixed):
        return None  # `… || true` added: it passes whatever happened
    edits = [e for t in between for e in edit_lines(t) if _counts_as_fix(e[0], cwd)]
    shape, new_shape = run_shape(last_failure), run_shape(success)
    command_changed = how_changed(shape, new_shape)
    config = [e for e in edits if CONFIG.search(commands.normalise_path(e[0]))]
    if not command_changed and not config:
        rerun = Rerun(key, first, result, last_failure, success, between)
        same = shape == new_shape
        return set_up_first(rerun, results) or person_fixed(rerun, turns, results, same=same)
    if command_changed and not config and TEST_FAILURE.search(result.text[:4000]):
        return None  # a test that failed for real: rerunning it differently fixed nothing
    moment = Moment("error-fix", [first.line, success.line], 0.7 if command_changed else 0.65)
    moment.operation, moment.failed, moment.fixed = key, failed_command, fixed
    moment.error = _telling_error(key, result, results[last_failure.tool_id])
    moment.edits = config if not command_changed else []
    moment.changes = what_changed(shape, new_shape) if command_changed else []
    moment.files = [e[0] for e in config]
    return moment


def how_changed(failed_words: list[str], fixed: list[str]) -> bool:
    """Whether the rerun changed *how* it ran — a flag, an environment variable, the
    program (`python` → `python3`), a wrapper, the folder, the sandbox — and not merely
    *what* it ran on (another test file, another script body): only the first is a lesson."""
    if failed_words == fixed:
        return False
    removed = [w for w in failed_words if w not in fixed]
    added = [w for w in fixed if w not in failed_words]
    if fixed[:1] != failed_words[:1] and (fixed[:1] and failed_words[:1]):
        return True  # another program, or a wrapper in front
    # `--filter=a` → `--filter=b` changes what ran, not how: an option whose value alone
    # changed is the target, not a setting.
    retargeted = {_option_key(w) for w in removed} & {_option_key(w) for w in added}
    return any(_is_setting(w) and _option_key(w) not in retargeted for w in (*removed, *added))


def what_changed(failed_words: list[str], fixed: list[str]) -> list[str]:
    """The rerun's difference as phrases a rule can use: "with `DATABASE_URL=…`",
    "outside the sandbox (escalated permissions)", "from `frontend`", "without `--watch`";
    another program is said by the draft as "use X, not Y"."""
    said: list[str] = []
    added = [w for w in fixed if w not in failed_words]
    for position, word in enumerate(added):
        if word == "escalated=True":
            said.append("outside the sandbox (escalated permissions)")
        elif word.startswith("workdir="):
            said.append(f"from `{word.split('=', 1)[1]}`")
        elif word == "cd" and position + 1 < len(added):
            said.append(f"from `{added[position + 1]}`")
        elif _is_setting(word) and word != "cd":
            said.append(f"with `{word[:80]}`")
    said += [f"without `{w[:60]}`" for w in failed_words if w not in fixed and _is_setting(w)]
    place, was = _place(fixed), _place(failed_words)
    if place != was:
        said.insert(0, f"{INSIDE}`{' '.join(place)[:80]}`" if place else "outside the container")
    return list(dict.fromkeys(said))[:4]


def _place(words: list[str]) -> list[str]:
    """The container or pod a command ran in (`docker compose exec web`), [] when here."""
    for start in range(len(words)):
        place, _ = commands.container(words[start:])
        if place:
            return place
    return []


def _is_setting(word: str) -> bool:
    """A word that says how a command runs: a flag, an environment assignment, `cd`."""
    return word.startswith("-") or bool(commands.ASSIGNMENT.match(word)) or word in ("cd", "sudo")


def _option_key(word: str) -> str:
    return word.split("=", 1)[0] if word.startswith("-") else word


def run_shape(call: Turn) -> list[str]:
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


def _telling_error(key: str, first: Turn, last: Turn) -> str:
    """The first failure's telling line, or the last one's when only it says the program is
    missing (a here-document failing on its own text, then `python: command not found`)."""
    program, error = key.split()[0], first_error_line(first.text)
    then = first_error_line(last.text)
    return then if missing_named(then, program) and not missing_named(error, program) else error


def _counts_as_fix(path: str, cwd: str | None) -> bool:
    if commands.is_scratch(path) or commands.is_documentation(path):
        return False
    return commands.repo_relative(path, cwd) is not None
