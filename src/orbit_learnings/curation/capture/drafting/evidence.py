"""The evidence a reviewer reads under a draft's rule: the person's words quoted, how they
came (a refusal, an interruption, after a failure), the call they refused and the lines the
agent changed after they spoke; the agent's own words when the moment is its finding or a
command that never returned. What each shows is what the moment was, never a guess at why.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.drafting import scope
from orbit_learnings.curation.capture.drafting.wording import (
    finding_rule,
    first_line,
    person_rule,
    reads_as_rule,
)
from orbit_learnings.curation.capture.moments import (
    EDIT_TOOLS,
    Moment,
    changed_files,
    first_error_line,
)
from orbit_learnings.curation.capture.sessions import ASSISTANT, TOOL_RESULT, TOOL_USE, USER, Turn

_HOW = {
    "rejection": "refused the agent's action and said",
    "interruption": "interrupted the agent and said",
    "queued": "said while the agent was working",
    "redo": "said after the agent's edit, which the agent then redid",
    "pasted-error": "showed a failure from their own terminal",
    "follow-up": "said",
}
# Kinds whose only signal is that the person spoke: their words must read as a rule.
_NEEDS_CUE = {"after-error", "follow-up", "queued", "pasted-error"}
QUOTE_CHARS = 400


def person_text(moment: Moment, turns: Sequence[Turn], root: str | None) -> tuple[str, str] | None:
    files = scope.globs_for(moment.files, root)
    about = f"\n\nFiles: {', '.join(f'`{f}`' for f in files)}" if files else ""
    if moment.kind == "finding":  # the agent's words, not the person's
        found = finding_rule(moment.said)
        if found is None:
            return None
        return found, f"The agent found:\n\n{_quote(moment.said)}{about}"
    if moment.kind in _NEEDS_CUE and not reads_as_rule(moment.said):
        return None  # "remove config files" after a failure: the next step, not a rule
    before = call_before(moment, turns)
    rule = person_rule(moment.said, instead_of=_program(before))
    if rule is None:
        return None
    how = _HOW.get(moment.kind, "said")
    if moment.kind == "after-error":
        failure = _failure_before(moment, turns)  # a tool's own failure is no news to show
        how = f"said after `{failure[0]}` failed ({failure[1]})" if failure else "said"
    body = f"The user {how}:\n\n{_quote(moment.said, around=rule)}"
    body += _evidence(moment, before, turns, root) + about
    return rule, body


def _quote(said: str, *, around: str = "") -> str:
    """The words quoted, up to `QUOTE_CHARS`; in a longer message, its opening and the part
    that holds the rule (`around`) when that lies past the cut: the evidence must show it."""
    text = said.strip() if len(said) <= QUOTE_CHARS else said[:QUOTE_CHARS].rstrip() + " …"
    at = _where(said, around) if len(said) > QUOTE_CHARS else -1
    if at > QUOTE_CHARS - len(around):
        start = max(said.rfind("\n", 0, at) + 1, at - 80)  # its line, or just before it
        end = max(start + QUOTE_CHARS // 2, at + len(around) + 20)
        excerpt = said[start:end].rstrip()
        text = said[: QUOTE_CHARS // 2].rstrip() + " …\n…\n" + excerpt + " …"
    return "\n".join(f"> {line}".rstrip() for line in text.splitlines())


def _where(said: str, rule: str) -> int:
    """Where the rule's opening words stand in the message (the rule is the message's own
    sentence, code-formatted and cut), or -1."""
    words = rule.replace("`", "").split()[:4]
    if len(words) < 2:
        return -1
    return said.replace("`", "").lower().find(" ".join(words).lower())


def call_before(moment: Moment, turns: Sequence[Turn]) -> Turn | None:
    """The agent's tool call the person refused or interrupted (the last one before)."""
    if moment.kind not in ("rejection", "interruption"):
        return None
    earlier = [t for t in turns if t.line <= moment.lines[0] and not t.sidechain]
    for turn in reversed(earlier[-8:]):
        if turn.kind == TOOL_USE:
            return turn
        if turn.kind == USER and turn.line < moment.lines[0]:
            return None
    return None


def agent_words_before(moment: Moment, turns: Sequence[Turn]) -> str:
    """What the agent had just said or meant to do when the person spoke: the input of the
    call they refused or interrupted, and the agent's last message."""
    refused = call_before(moment, turns)
    meant = " ".join(map(str, refused.tool_input.values())) if refused is not None else ""
    said = [t.text for t in turns if t.line < moment.lines[0] and t.kind == ASSISTANT]
    return f"{meant}\n{said[-1] if said else ''}"


def _program(call: Turn | None) -> str:
    command = str(call.tool_input.get("command", "")) if call is not None else ""
    operation = commands.operation(command) if command else None
    return operation.split()[0] if operation else ""


def _evidence(moment: Moment, before: Turn | None, turns: Sequence[Turn], root: str | None) -> str:
    """What the agent was doing when the person spoke, and what it changed after."""
    shown = ""
    tense = "was about to" if moment.kind == "rejection" else "was going to"
    if before is not None:
        command = str(before.tool_input.get("command", "")).strip()
        target = changed_files(before)
        if command:
            shown += f"\n\nThe agent {tense} run: `{first_line(command)}`"
        elif target:
            rel = commands.repo_relative(target[0], root) or target[0]
            shown += f"\n\nThe agent {tense} change `{rel}`."
    if moment.kind == "redo":
        shown += _redone(moment, turns, root)
    return shown


def _failure_before(moment: Moment, turns: Sequence[Turn]) -> tuple[str, str] | None:
    """The command that failed just before the person spoke, and its telling line."""
    earlier = [t for t in turns if t.line < moment.lines[0]][-12:]
    calls = {t.tool_id: t for t in earlier if t.kind == TOOL_USE and t.tool_id}
    for turn in reversed(earlier):
        call = calls.get(turn.tool_id) if turn.kind == TOOL_RESULT and turn.is_error else None
        if call is not None and str(call.tool_input.get("command", "")).strip():
            return first_line(str(call.tool_input["command"])), first_error_line(turn.text)
    return None


def _redone(moment: Moment, turns: Sequence[Turn], root: str | None) -> str:
    """The agent's next edit after the person spoke: the lines it changed."""
    later = [t for t in turns if t.line > moment.lines[0] and t.kind == TOOL_USE]
    for turn in later[:6]:
        if turn.tool not in EDIT_TOOLS or not changed_files(turn):
            continue
        diff = edit_diff(turn.tool_input)
        if diff:
            name = changed_files(turn)[0]
            rel = commands.repo_relative(name, root) or os.path.basename(name)
            return f"\n\nThe agent then changed `{rel}`:\n\n```\n{diff}\n```"
    return ""


def edit_diff(given: dict[str, object]) -> str:
    """An edit's changed lines: Claude Code's old/new strings, or a Codex patch's -/+ lines."""
    patch = given.get("patch")
    if isinstance(patch, str):
        lines = [ln for ln in patch.splitlines() if ln[:1] in "-+" and ln[:3] not in ("---", "+++")]
        old = "\n".join(ln[1:] for ln in lines if ln.startswith("-"))
        return changed_lines(old, "\n".join(ln[1:] for ln in lines if ln.startswith("+")))
    old = str(given.get("old_string", ""))
    return changed_lines(old, str(given.get("new_string", given.get("content", ""))))


def changed_lines(old: str, new: str, most: int = 3) -> str:
    old_lines = [ln.strip() for ln in old.splitlines() if ln.strip()]
    new_lines = [ln.strip() for ln in new.splitlines() if ln.strip()]
    gone = [ln[:160] for ln in old_lines if ln not in new_lines]
    came = [ln[:160] for ln in new_lines if ln not in old_lines]
    same = set(gone) & set(came)  # lines that differ only past what is shown
    shown = [f"- {ln}" for ln in gone if ln not in same][:most]
    return "\n".join(shown + [f"+ {ln}" for ln in came if ln not in same][:most])


def agent_side_text(moment: Moment) -> tuple[str, str]:
    """A command that never returned: the rule says what happened; the agent's words are
    quoted as its. (A path out of reach and a refusal without a word stay moments: `gate`.)"""
    words = f"\n\nThe agent said:\n\n{_quote(moment.said)}" if moment.said.strip() else ""
    command = first_line(moment.failed)
    summary = f"`{_program_and_verb(moment) or command[:60]}` hangs when the agent runs it"
    return summary, f"The agent ran:\n\n    {command}\n\nIt never returned.{words}"


def _program_and_verb(moment: Moment) -> str:
    """ "claude doctor" of `claude doctor 2>&1`: the operation with its subcommand."""
    for words in commands.segments(moment.failed):
        if words and words[0] not in ("cd", "export", "source"):
            shown = " ".join(w for w in words[:2] if not w.startswith("-"))
            return shown if shown.startswith(moment.operation or shown) else moment.operation
    return moment.operation
