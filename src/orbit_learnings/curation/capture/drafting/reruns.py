"""A command that failed, then passed: the rule its change states, the evidence, and whether
the failure backs the rule.

The rule names what changed ("`python` is not found here: run `python3`", "`pytest` needs
`PYTHONPATH=src`", "`npm test` needs `"dotenv": "^16"` in `package.json`"); the body shows
what failed, how, and the command or lines that made it pass. A draft stands only when the
failure names what changed (the program, the variable, the flag, the script, the text a
configuration gained): a rerun that passed after an unrelated change credits the wrong
cause, which blind reviewers rejected more than anything but the person's chatter.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence

from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.drafting.evidence import changed_lines, edit_diff
from orbit_learnings.curation.capture.drafting.wording import first_line, shorten
from orbit_learnings.curation.capture.moments import Moment, changed_files
from orbit_learnings.curation.capture.moments.base import (
    AFTER,
    AGENT_TOOLS,
    INSIDE,
    MODULE_MISSING,
)
from orbit_learnings.curation.capture.moments.operations import missing_named
from orbit_learnings.curation.capture.sessions import TOOL_RESULT, TOOL_USE, Turn

# --- the rule ----------------------------------------------------------------------------


def config_rule(moment: Moment, name: str) -> str:
    """ "`pytest` needs `"httpx"` in `pyproject.toml` (`No module named 'httpx'`)" when the
    fix added one short piece of text; else the failure and the file that fixed it."""
    added = [inserted(old, new) for _, old, new in moment.edits]
    error = _error_core(moment.error)
    if len(added) == 1 and added[0]:
        rule = f"`{moment.operation}` needs `{added[0]}` in `{name}`"
        return f"{rule} (`{error}`)" if error and len(rule) + len(error) < 88 else rule
    error = _error_core(moment.error) or shorten(moment.error or "an error", 50)
    return f"`{moment.operation}` fails with `{error}` until `{name}` is fixed"


def inserted(old: str, new: str) -> str | None:
    """The one short piece of text an edit added (nothing removed), else None."""
    import difflib

    ops = [op for op in difflib.SequenceMatcher(None, old, new).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "insert":
        return None
    text = new[ops[0][3] : ops[0][4]].strip(" ,\n")
    return text if 0 < len(text) <= 50 and "\n" not in text else None


def _error_core(error: str) -> str:
    """ "E   ModuleNotFoundError: No module named 'httpx'" → "No module named 'httpx'"."""
    core = error.strip().rsplit(": ", 1)[-1].strip()
    core = re.split(r" (?:imported from|from|at|in) (?:[A-Za-z]:)?[\\/~.]", core)[0]  # where: noise
    return core if 0 < len(core) <= 45 else ""


def changed_programs(moment: Moment) -> tuple[str, str] | None:
    """(old, new) when the rerun ran another program (`python` → `python3`)."""
    old, new = _first_program(moment.failed), _first_program(moment.fixed)
    if new in _PROBES:  # `which python`, `command -v omx`: a look, never the fix
        return None
    return (old, new) if old and new and old != new and old not in ("cd",) else None


_PROBES = {"which", "command", "type", "where", "whereis", "hash"}


def _first_program(command: str) -> str:
    """The program a command line runs, `cd …` and `VAR=value` settings passed over."""
    for words in commands.segments(command):
        words = commands.skip_wrappers(words, keep=_RIGHTS)  # `timeout 15 npm run dev`: npm
        program = words[0] if words else ""
        if program and program not in ("cd", "pushd", "export", "source", ".", "set"):
            return program
    return ""


_RIGHTS = frozenset({"sudo", "doas"})  # a wrapper the rule names: "`x` needs `sudo` here"


def rerun_rule(moment: Moment) -> str:
    """ "`python` is not found here: run `python3`", "Run `yarn test` from `web`, not `yarn
    test:web`", "`pytest` needs `DATABASE_URL=…`"."""
    programs = changed_programs(moment)
    if programs and not any(c.startswith(INSIDE) for c in moment.changes):
        old, new = programs
        if new in ("sudo", "doas"):  # a wrapper in front: the same program, with rights
            return f"`{moment.operation or old}` needs `{new}` here"
        instead = _instead(moment, old, new)
        if _missing_program(moment):
            return f"`{old}` is not found here: run `{instead}`"
        if instead != new:  # `pytest` killed, `python3 -m pytest` passed: the module form
            return f"Run `{instead}`, not `{old}`"
        return f"Use `{new}`, not `{old}`"
    place = next((c for c in moment.changes if c.startswith(INSIDE)), "")
    if place:
        return f"Run `{moment.operation}` {place}"
    if any("sandbox" in c for c in moment.changes):
        return f"`{moment.operation}` needs escalated permissions: the sandbox refuses it"
    before = commands.operation(moment.failed) or moment.operation
    after = commands.operation(moment.fixed) or ""
    if after and before and after != before:  # another script, subcommand or folder
        where = next((f" {c}" for c in moment.changes if c.startswith("from ")), "")
        return f"Run `{after}`{where}, not `{before}`"
    needs = [c[len("with ") :] for c in moment.changes if c.startswith("with ")]
    if needs and len(needs) == len(moment.changes):
        return f"`{moment.operation}` needs {' and '.join(needs)}"
    if moment.changes:
        return f"Run `{moment.operation}` {', '.join(moment.changes)}"
    return f"Run `{first_line(moment.fixed)[:80]}`, not `{first_line(moment.failed)[:60]}`"


def rerun_reason(moment: Moment) -> str:
    """The rule as a sentence for the draft's body when the summary is "`python` is not
    found here: run `python3`": blind reviewers asked for it over a bare failure log."""
    programs = changed_programs(moment)
    if not programs or not _missing_program(moment) or programs[1] in ("sudo", "doas"):
        return ""
    old, new = programs
    instead = _instead(moment, old, new)
    return f"There is no `{old}` on the PATH where the agent runs: call `{instead}` instead."


def _instead(moment: Moment, old: str, new: str) -> str:
    """What to run instead: `python3 -m pytest` when the fix ran the module form."""
    return f"{new} -m {old}" if f"-m {old}" in moment.fixed else new


def _missing_program(moment: Moment) -> bool:
    """The rerun ran another program because the first is not installed here (its failure
    says so), outside a container."""
    programs = changed_programs(moment)
    if not programs or any(c.startswith(INSIDE) for c in moment.changes):
        return False
    return missing_named(moment.error, programs[0])


# --- the draft's text --------------------------------------------------------------------


def with_patched_lines(moment: Moment, turns: Sequence[Turn]) -> Moment:
    """A configuration fixed by a patch (Codex's `apply_patch`) keeps no old and new strings
    in the moment: take them from the patch's -/+ lines, so the rule can name what it added."""
    if not moment.edits or any(old or new for _, old, new in moment.edits):
        return moment
    files = list(dict.fromkeys(e[0] for e in moment.edits))
    diff = _patched(moment, files, turns).splitlines()
    if not diff:
        return moment
    old = "\n".join(ln[2:] for ln in diff if ln.startswith("- "))
    new = "\n".join(ln[2:] for ln in diff if ln.startswith("+ "))
    return dataclasses.replace(moment, edits=[(files[0], old, new)])


def error_fix_text(moment: Moment, root: str | None, turns: Sequence[Turn]) -> tuple[str, str]:
    """ "`python` is not found here: run `python3`", "`pytest` needs `PYTHONPATH=src`",
    "`npm test` needs `"dotenv": "^16"` in `package.json`"; the body shows what failed, how,
    and the command or the lines that made it pass."""
    error = moment.error or "an error"
    failed, fixed = first_line(moment.failed), first_line(moment.fixed)
    body = f"Failed:\n\n    {failed}\n    → {error}\n\n"
    if moment.edits and not moment.changes:
        files = list(dict.fromkeys(e[0] for e in moment.edits))
        names = [commands.repo_relative(f, root) or os.path.basename(f) for f in files]
        summary = config_rule(moment, names[0])
        shown = "\n\n".join(
            (f"`{name}`:\n\n" if len(names) > 1 else "") + f"```\n{diff}\n```"
            for name, (_, old, new) in zip(names, moment.edits[:3], strict=False)
            if (diff := changed_lines(old, new) or _patched(moment, files, turns))
        )
        body += f"It passed after a change to {', '.join(f'`{n}`' for n in names)}"
        body += f":\n\n{shown}" if shown else "."
        return summary, body
    how = f" {', '.join(moment.changes)}" if moment.changes else ""
    same = moment.fixed.strip() == moment.failed.strip()
    body += f"It passed, run unchanged{how}." if same else f"It passed{how} as:\n\n    {fixed}"
    reason = rerun_reason(moment)
    return rerun_rule(moment), f"{reason}\n\n{body}" if reason else body


def _patched(moment: Moment, files: Sequence[str], turns: Sequence[Turn]) -> str:
    """The -/+ lines of the last patch (Codex's `apply_patch`) to the fix's files before it
    passed, read from the session: a moment keeps an edit's old and new strings, a patch
    has neither."""
    low, high = min(moment.lines), max(moment.lines)
    patches = [
        t for t in turns
        if low < t.line < high and t.kind == TOOL_USE and set(changed_files(t)) & set(files)
    ]  # fmt: skip
    return next((d for t in reversed(patches) if (d := edit_diff(t.tool_input))), "")


# --- whether the failure backs the rule ---------------------------------------------------


_TOOL_SYNTAX = re.compile(r"apply_patch|\*\*\* Begin Patch|invalid patch|patch rejected", re.I)
_SOMETHING_MISSING = re.compile(
    r"not found|No such file|cannot find|can't find|couldn'?t find|does not exist|missing|"
    r"not recognized|no tests ran|unknown",
    re.I,
)


def error_fix_reason(moment: Moment, turns: Sequence[Turn], old: str, new: str) -> str | None:
    """A failed-then-passed command gets a draft only when what changed is what the failure
    was about: the failure output names the program, the variable, the flag, the script or
    the text the configuration gained (a folder counts when the failure says not found).
    `old` / `new` are what the rule names as changed (empty for a configuration edit)."""
    program = (commands.operation(moment.failed) or moment.operation or " ").split()[0]
    if program.lower() in AGENT_TOOLS or _TOOL_SYNTAX.search(f"{moment.failed}\n{moment.error}"):
        return "the agent's own tool syntax, not the project's"
    if any("sandbox" in change for change in moment.changes):
        return "the agent's sandbox, not the project"
    if any(c.startswith(AFTER) for c in moment.changes):
        return "a setup step: whether it is the fix is the reviewer's call"
    if {"sudo", "doas"} & (set(moment.fixed.split()) - set(moment.failed.split())):
        return "root rights on one machine, not a rule for the team"
    failure = failure_text(moment, turns)
    if any(c.startswith(INSIDE) for c in moment.changes):
        return None if _UNREACHED.search(failure) else "the failure does not say what was missing"
    if moment.edits and not moment.changes:
        return None if new and _mentions(failure, new) else "the failure does not name the fix"
    if old:
        return _program_or_script_reason(moment, failure, old)
    named = [_key(c) for c in moment.changes if not c.startswith("from ")]
    if not moment.changes or (named and not all(_mentions(failure, c) for c in named)):
        return "the failure does not name what changed"
    if len(named) < len(moment.changes) and not _SOMETHING_MISSING.search(failure):
        return "the failure does not say the folder was wrong"
    return None


def _program_or_script_reason(moment: Moment, failure: str, old: str) -> str | None:
    """ "Run X, not Y" when a line of the failure says Y itself is missing (`python: command not
    found`, `Couldn't find a script named "test:web"`), or Y is an interpreter that lacks the
    project's modules and X another one (`.venv/bin/python`). Not `npm test` failing on a
    missing module then `npm list`, not a stray `#: command not found`, not a probe (`which`)."""
    if missing_named(failure, old.split()[-1]):
        return None
    if changed_programs(moment) and _MODULE_MISSING.search(failure):
        return None
    return "the failure does not say that what changed is missing"


_MODULE_MISSING = re.compile(MODULE_MISSING, re.I)


# What a container holds that the host lacks: a service's host name, a port, a program.
_UNREACHED = re.compile(
    r"could not (connect|translate host)|[Cc]onnection refused|ECONNREFUSED|Name or service not"
    r" known|getaddrinfo|[Uu]nknown host|command not found|not found|No such file"
)


def _key(change: str) -> str:
    """What a change names: "with `DATABASE_URL=x`" → "DATABASE_URL", "without `--watch`" →
    "--watch" (a variable's value is no evidence: "src" is in many a failure)."""
    named = change.split("`")[1] if change.count("`") >= 2 else change
    return named.split("=", 1)[0]


def changed_thing(moment: Moment) -> tuple[str, str]:
    """(what the failing command had, what the fix added) as the rule will name them: the
    program (`python`), the script (`test:web`), the text a configuration gained."""
    if moment.edits and not moment.changes:
        added = [inserted(old, new) for _, old, new in moment.edits]
        return "", (added[0] or "") if len(added) == 1 else ""
    programs = changed_programs(moment)
    if programs:
        return programs[0], ""
    before = (commands.operation(moment.failed) or moment.operation).split()
    after = (commands.operation(moment.fixed) or "").split()
    if after and before and after != before:
        return " ".join(w for w in before if w not in after), ""
    return "", ""


def failure_text(moment: Moment, turns: Sequence[Turn]) -> str:
    """The failing output the moment saw: its telling line, and the results of the calls
    between the first failure and the pass when the session is at hand."""
    low, high = (min(moment.lines), max(moment.lines)) if moment.lines else (0, -1)
    results = [t.text[:4000] for t in turns if t.kind == TOOL_RESULT and low <= t.line < high]
    return "\n".join([moment.error, *results])


_WORD = re.compile(r"[A-Za-z_][\w.:/@-]{2,}")
_COMMON = {"true", "false", "the", "and", "run", "with", "from", "without", "null", "none"}


def _mentions(failure: str, thing: str) -> bool:
    """Whether the failure names the changed thing: one of its words (a variable's name, a
    flag without its dashes, a script, a module), whole and case-insensitive."""
    lowered = failure.lower()
    for word in _WORD.findall(thing.replace("=", " ").replace("`", " ")):
        word = word.strip("-:./").lower()
        if (
            len(word) >= 3
            and word not in _COMMON
            and re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", lowered)
        ):
            return True
    return False
