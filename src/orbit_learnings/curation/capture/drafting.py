"""A moment turned into a draft a reviewer can accept as is or with light edits.

The summary states the rule (`wording`): the person's sentence that reads as one, in their
language; for a command that failed and then passed, what the change says ("`python` is not
found here: run `python3`", "`pytest` needs `PYTHONPATH=src`"); for the agent's finding, the
cause it found. The body is the evidence: the person's words quoted, the call they refused,
the lines the agent changed after they spoke, the failing output and the old → new command
or lines. The scope comes from the files the moment involved, repo-relative from any OS.
A moment whose words state nothing a reviewer could keep gives no draft.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from orbit_learnings.curation.capture import commands, gate, wording
from orbit_learnings.curation.capture.moments import EDIT_TOOLS, Moment, changed_files, rule_cue
from orbit_learnings.curation.capture.sessions import TOOL_RESULT, TOOL_USE, USER, Turn

MAX_SUMMARY = 160
_FILLER = re.compile(
    r"^(no+|nope|nah|actually|wait|hmm+|ok(ay)?|well|also|and|but|so|please|pls|hey|"
    r"nein|doch|also|non|não|いや|いいえ|不|不对|不是)\b[,.!:;，。！ ]*\s*",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n+")  # CJK: no space after a stop


@dataclass
class Draft:
    detector: str
    summary: str
    body: str
    paths: list[str]
    tags: list[str]
    confidence: float
    source: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        return {
            "detector": self.detector,
            "summary": self.summary,
            "body": self.body,
            "paths": self.paths,
            "tags": self.tags,
            "confidence": round(self.confidence, 2),
            "source": self.source,
        }


def draft_for(
    moment: Moment, *, path: str, root: str | None, turns: Sequence[Turn] = ()
) -> Draft | None:
    """The moment as a draft, or None when no rule can be stated with confidence."""
    made = draft_or_reason(moment, path=path, root=root, turns=turns)
    return made if isinstance(made, Draft) else None


def draft_or_reason(
    moment: Moment, *, path: str, root: str | None, turns: Sequence[Turn] = ()
) -> Draft | str:
    """The moment as a draft, or why it stays a moment without one (`gate`): its words hold
    no rule (a question, a task request, a bug report, a guess), the failure does not name
    what fixed it, the path is one machine's, the refusal said nothing. `turns` are the
    session's, for the evidence around the moment: the refused call, the agent's edit after."""
    if wording.ANSI.search(moment.error):  # terminal colours are no part of a quoted error
        moment = dataclasses.replace(moment, error=wording.ANSI.sub("", moment.error))
    if moment.kind in gate.AGENT_SIDE:  # what it means is the reviewer's call
        return gate.AGENT_SIDE[moment.kind]
    if moment.kind == "error-fix":
        moment = _with_patched_lines(moment, turns)
    text = _text_for(moment, turns, root)
    if text is None:
        return "its words state no rule"
    summary, body = text
    paths = globs_for(moment.files, root)
    reason = gate.machine_reason(_repo_words(summary, root))
    reason = reason or _gate(moment, summary, paths, turns)
    if reason:
        return reason
    source: dict[str, object] = {"file": path, "lines": moment.lines, "moment": moment.kind}
    if moment.said:
        source["quote"] = moment.said[:500]
    return Draft(
        moment.kind,
        _repo_words(summary, root),
        _repo_words(body, root),
        paths,
        _tags(moment, summary, [*paths, *(p for p in moment.files if not commands.is_scratch(p))]),
        moment.score,
        source,
    )


def _gate(moment: Moment, summary: str, paths: list[str], turns: Sequence[Turn]) -> str | None:
    if moment.kind == "error-fix":
        old, new = gate.changed_thing(moment)
        return gate.error_fix_reason(moment, turns, old, new)
    if moment.kind == "finding":
        return gate.finding_reason(summary, paths)
    if moment.kind == "hang":  # a tool waiting for a terminal, not a long job of the project's
        return gate.long_job_reason(moment.failed)
    return gate.person_reason(summary, stopped=moment.kind in gate.STOPPED, said=moment.said)


def _with_patched_lines(moment: Moment, turns: Sequence[Turn]) -> Moment:
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


def _text_for(moment: Moment, turns: Sequence[Turn], root: str | None) -> tuple[str, str] | None:
    if moment.kind == "error-fix":
        return _error_fix_text(moment, root, turns)
    if moment.kind == "hang":
        return _agent_side_text(moment)
    return _said(moment, turns, root)


def rule_sentence(said: str) -> str:
    """The person's sentence that reads as a rule (else their first meaningful one)."""
    sentences = [s.strip() for s in _SENTENCE.split(said.strip()) if s and s.strip()]
    meaningful = [s for s in sentences if len(_FILLER.sub("", s).split()) >= 2]
    chosen = next((s for s in meaningful if rule_cue(s)), meaningful[0] if meaningful else "")
    rule = _FILLER.sub("", chosen or (sentences[0] if sentences else "")).strip(" .")
    if len(rule) > MAX_SUMMARY:
        rule = rule[: MAX_SUMMARY - 1].rsplit(" ", 1)[0] + "…"
    return rule[:1].upper() + rule[1:] if rule else ""


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


def _said(moment: Moment, turns: Sequence[Turn], root: str | None) -> tuple[str, str] | None:
    files = globs_for(moment.files, root)
    about = f"\n\nFiles: {', '.join(f'`{f}`' for f in files)}" if files else ""
    if moment.kind == "finding":  # the agent's words, not the person's
        found = wording.finding_rule(moment.said)
        if found is None:
            return None
        return found, f"The agent found:\n\n{_quote(moment.said)}{about}"
    if moment.kind in _NEEDS_CUE and not wording.reads_as_rule(moment.said):
        return None  # "remove config files" after a failure: the next step, not a rule
    before = _call_before(moment, turns)
    rule = wording.person_rule(moment.said, instead_of=_program(before))
    if rule is None:
        return None
    how = _HOW.get(moment.kind, "said")
    if moment.kind == "after-error":
        failure = _failure_before(moment, turns)  # a tool's own failure is no news to show
        how = f"said after `{failure[0]}` failed ({failure[1]})" if failure else "said"
    body = f"The user {how}:\n\n{_quote(moment.said)}"
    body += _evidence(moment, before, turns, root) + about
    return rule, body


def _quote(said: str) -> str:
    text = said.strip() if len(said) <= QUOTE_CHARS else said[:QUOTE_CHARS].rstrip() + " …"
    return "\n".join(f"> {line}".rstrip() for line in text.splitlines())


def _call_before(moment: Moment, turns: Sequence[Turn]) -> Turn | None:
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
            shown += f"\n\nThe agent {tense} run: `{wording.first_line(command)}`"
        elif target:
            rel = commands.repo_relative(target[0], root) or target[0]
            shown += f"\n\nThe agent {tense} change `{rel}`."
    if moment.kind == "redo":
        shown += _redone(moment, turns, root)
    return shown


def _failure_before(moment: Moment, turns: Sequence[Turn]) -> tuple[str, str] | None:
    """The command that failed just before the person spoke, and its telling line."""
    from orbit_learnings.curation.capture.moments import first_error_line

    earlier = [t for t in turns if t.line < moment.lines[0]][-12:]
    calls = {t.tool_id: t for t in earlier if t.kind == TOOL_USE and t.tool_id}
    for turn in reversed(earlier):
        call = calls.get(turn.tool_id) if turn.kind == TOOL_RESULT and turn.is_error else None
        if call is not None and str(call.tool_input.get("command", "")).strip():
            return wording.first_line(str(call.tool_input["command"])), first_error_line(turn.text)
    return None


def _redone(moment: Moment, turns: Sequence[Turn], root: str | None) -> str:
    """The agent's next edit after the person spoke: the lines it changed."""
    later = [t for t in turns if t.line > moment.lines[0] and t.kind == TOOL_USE]
    for turn in later[:6]:
        if turn.tool not in EDIT_TOOLS or not changed_files(turn):
            continue
        diff = _edit_diff(turn.tool_input)
        if diff:
            name = changed_files(turn)[0]
            rel = commands.repo_relative(name, root) or os.path.basename(name)
            return f"\n\nThe agent then changed `{rel}`:\n\n```\n{diff}\n```"
    return ""


def _edit_diff(given: dict[str, object]) -> str:
    """An edit's changed lines: Claude Code's old/new strings, or a Codex patch's -/+ lines."""
    patch = given.get("patch")
    if isinstance(patch, str):
        lines = [ln for ln in patch.splitlines() if ln[:1] in "-+" and ln[:3] not in ("---", "+++")]
        old = "\n".join(ln[1:] for ln in lines if ln.startswith("-"))
        return _changed_lines(old, "\n".join(ln[1:] for ln in lines if ln.startswith("+")))
    old = str(given.get("old_string", ""))
    return _changed_lines(old, str(given.get("new_string", given.get("content", ""))))


def _changed_lines(old: str, new: str, most: int = 3) -> str:
    old_lines = [ln.strip() for ln in old.splitlines() if ln.strip()]
    new_lines = [ln.strip() for ln in new.splitlines() if ln.strip()]
    gone = [ln[:160] for ln in old_lines if ln not in new_lines]
    came = [ln[:160] for ln in new_lines if ln not in old_lines]
    same = set(gone) & set(came)  # lines that differ only past what is shown
    shown = [f"- {ln}" for ln in gone if ln not in same][:most]
    return "\n".join(shown + [f"+ {ln}" for ln in came if ln not in same][:most])


def _agent_side_text(moment: Moment) -> tuple[str, str]:
    """A command that never returned: the rule says what happened; the agent's words are
    quoted as its. (A path out of reach and a refusal without a word stay moments: `gate`.)"""
    words = f"\n\nThe agent said:\n\n{_quote(moment.said)}" if moment.said.strip() else ""
    command = wording.first_line(moment.failed)
    summary = f"`{_program_and_verb(moment) or command[:60]}` hangs when the agent runs it"
    return summary, f"The agent ran:\n\n    {command}\n\nIt never returned.{words}"


def _program_and_verb(moment: Moment) -> str:
    """ "claude doctor" of `claude doctor 2>&1`: the operation with its subcommand."""
    for words in commands.segments(moment.failed):
        if words and words[0] not in ("cd", "export", "source"):
            shown = " ".join(w for w in words[:2] if not w.startswith("-"))
            return shown if shown.startswith(moment.operation or shown) else moment.operation
    return moment.operation


def _error_fix_text(moment: Moment, root: str | None, turns: Sequence[Turn]) -> tuple[str, str]:
    """ "`python` is not found here: run `python3`", "`pytest` needs `PYTHONPATH=src`",
    "`npm test` needs `"dotenv": "^16"` in `package.json`"; the body shows what failed, how,
    and the command or the lines that made it pass."""
    error = moment.error or "an error"
    failed, fixed = wording.first_line(moment.failed), wording.first_line(moment.fixed)
    body = f"Failed:\n\n    {failed}\n    → {error}\n\n"
    if moment.edits and not moment.changes:
        files = list(dict.fromkeys(e[0] for e in moment.edits))
        names = [commands.repo_relative(f, root) or os.path.basename(f) for f in files]
        summary = wording.config_rule(moment, names[0])
        shown = "\n\n".join(
            (f"`{name}`:\n\n" if len(names) > 1 else "") + f"```\n{diff}\n```"
            for name, (_, old, new) in zip(names, moment.edits[:3], strict=False)
            if (diff := _changed_lines(old, new) or _patched(moment, files, turns))
        )
        body += f"It passed after a change to {', '.join(f'`{n}`' for n in names)}"
        body += f":\n\n{shown}" if shown else "."
        return summary, body
    how = f" {', '.join(moment.changes)}" if moment.changes else ""
    same = moment.fixed.strip() == moment.failed.strip()
    body += f"It passed, run unchanged{how}." if same else f"It passed{how} as:\n\n    {fixed}"
    reason = wording.rerun_reason(moment)
    return wording.rerun_rule(moment), f"{reason}\n\n{body}" if reason else body


def _patched(moment: Moment, files: Sequence[str], turns: Sequence[Turn]) -> str:
    """The -/+ lines of the last patch (Codex's `apply_patch`) to the fix's files before it
    passed, read from the session: a moment keeps an edit's old and new strings, a patch
    has neither."""
    low, high = min(moment.lines), max(moment.lines)
    patches = [
        t for t in turns
        if low < t.line < high and t.kind == TOOL_USE and set(changed_files(t)) & set(files)
    ]  # fmt: skip
    return next((d for t in reversed(patches) if (d := _edit_diff(t.tool_input))), "")


# Tags from the tools a moment ran and the kinds of file it touched, matched as whole words.
_TOOL_TAGS = (
    (r"pytest|jest|vitest|rspec|mocha|unittest", "testing"),
    (r"npm|pnpm|yarn|bun|npx", "tooling"),
    (r"docker|docker-compose|compose", "docker"),
    (r"git", "git"),
    (r"pip|uv|poetry|no module named|cannot find module", "dependencies"),
    (r"cargo", "rust"),
    (r"alembic|migrations?|migrate", "database"),
    (r"sandbox|escalated|permission ?denied", "permissions"),
)
_FILE_TAGS = {
    ".py": "python", ".ts": "typescript", ".tsx": "typescript", ".js": "javascript",
    ".jsx": "javascript", ".mjs": "javascript", ".rb": "ruby", ".go": "go", ".rs": "rust",
    ".sql": "database", ".tex": "latex", ".sh": "shell", ".vue": "vue", ".java": "java",
    ".kt": "kotlin", ".swift": "swift", ".php": "php", ".cs": "csharp",
}  # fmt: skip


_NAMED_TAGS = {
    "package.json": "javascript", "pyproject.toml": "python", "setup.py": "python",
    "cargo.toml": "rust", "go.mod": "go", "gemfile": "ruby",
}  # fmt: skip


def _tags(moment: Moment, summary: str, paths: Sequence[str]) -> list[str]:
    """Topic tags from the tools the moment ran or the rule names, and the files' kinds."""
    text = f"{moment.operation} {moment.failed} {moment.error} {summary}".lower()
    tags = {tag for words, tag in _TOOL_TAGS if re.search(rf"(?<![\w.-])({words})(?![\w-])", text)}
    for path in paths:
        name = os.path.basename(path).lower()
        if "/.github/workflows/" in f"/{path}":
            tags.add("ci")
        elif name.startswith(("dockerfile", "docker-compose")):
            tags.add("docker")
        elif tag := _NAMED_TAGS.get(name) or _FILE_TAGS.get(os.path.splitext(name)[1]):
            tags.add(tag)
    return sorted(tags)[:4]


def _repo_words(text: str, root: str | None) -> str:
    if not root:
        return text
    for base in {root.rstrip("/\\"), commands.normalise_path(root).rstrip("/")}:
        text = text.replace(base + "/", "").replace(base + "\\", "")
    return text


def globs_for(files: Sequence[str], root: str | None) -> list[str]:
    """Repo-relative globs for the files a moment involved: a folder glob when several share
    a folder, their common folder's when more than three would be listed; files outside the
    repository and scratch files are left out."""
    relative: dict[str, None] = {}
    for path in files:
        if commands.is_scratch(path):
            continue
        rel = commands.repo_relative(path, root)
        if rel:
            relative.setdefault(rel, None)
    by_folder: dict[str, list[str]] = {}
    for rel in relative:
        by_folder.setdefault(os.path.dirname(rel), []).append(rel)
    globs: list[str] = []
    for folder, members in by_folder.items():
        globs.extend([f"{folder}/**"] if len(members) > 1 and folder else members)
    return collapsed(globs)


def collapsed(globs: Sequence[str]) -> list[str]:
    """More than three globs become their common folder's (when they share one); a glob
    another one already covers is left out."""
    import fnmatch

    kept = [g for g in dict.fromkeys(globs) if not any(
        o != g and o.endswith("/**") and fnmatch.fnmatch(g, o) for o in globs
    )]  # fmt: skip
    folders = [g[:-3] if g.endswith("/**") else os.path.dirname(g) for g in kept]
    common = os.path.commonpath(folders) if len(kept) > 3 and all(folders) else ""
    return [f"{common}/**"] if common else kept
