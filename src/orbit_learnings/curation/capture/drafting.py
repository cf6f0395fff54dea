"""A moment turned into a draft a reviewer can accept as is or with light edits.

The deterministic draft states the rule in the person's own words (their first sentence,
fillers such as "no," or "actually" dropped) and quotes the moment in the body, so the
reviewer sees the evidence beside the claim. An error-fix draft says which command failed
with what, and the command or the configuration change that made it pass. The scope comes
from the files the moment involved, repo-relative from any OS.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.moments import Moment, rule_cue

MAX_SUMMARY = 160
_FILLER = re.compile(
    r"^(no+|nope|nah|actually|wait|hmm+|ok(ay)?|well|also|and|but|so|please|pls|hey|"
    r"nein|doch|also|non|não|いや|いいえ|不|不对|不是)\b[,.!:;，。！ ]*\s*",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n+")  # CJK: no space after a stop
_TOPIC_TAGS = (
    ("pytest", "testing"),
    ("jest", "testing"),
    ("vitest", "testing"),
    ("npm", "tooling"),
    ("pnpm", "tooling"),
    ("yarn", "tooling"),
    ("docker", "docker"),
    ("git", "git"),
    ("pip", "dependencies"),
    ("no module named", "dependencies"),
    ("cannot find module", "dependencies"),
    ("uv", "dependencies"),
    ("cargo", "rust"),
    ("alembic", "database"),
    ("migrat", "database"),
)


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


def draft_for(moment: Moment, *, path: str, root: str | None) -> Draft:
    summary, body = _error_fix_text(moment) if moment.kind == "error-fix" else _said(moment)
    source: dict[str, object] = {"file": path, "lines": moment.lines, "moment": moment.kind}
    if moment.said:
        source["quote"] = moment.said[:500]
    return Draft(
        moment.kind,
        _repo_words(summary, root),
        _repo_words(body, root),
        globs_for(moment.files, root),
        _tags(moment),
        moment.score,
        source,
    )


def rule_sentence(said: str) -> str:
    """The person's sentence that reads as a rule (else their first meaningful one)."""
    sentences = [s.strip() for s in _SENTENCE.split(said.strip()) if s and s.strip()]
    meaningful = [s for s in sentences if len(_FILLER.sub("", s).split()) >= 2]
    chosen = next((s for s in meaningful if rule_cue(s)), meaningful[0] if meaningful else "")
    rule = _FILLER.sub("", chosen or (sentences[0] if sentences else "")).strip(" .")
    if len(rule) > MAX_SUMMARY:
        rule = rule[: MAX_SUMMARY - 1].rsplit(" ", 1)[0] + "…"
    return rule[:1].upper() + rule[1:] if rule else ""


def _said(moment: Moment) -> tuple[str, str]:
    how = {
        "rejection": "refused the agent's action and said",
        "interruption": "interrupted the agent and said",
        "queued": "said while the agent was working",
        "redo": "said after the agent's edit, which the agent then redid",
        "after-error": "said after a command failed",
        "pasted-error": "showed a failure from their own terminal",
        "follow-up": "said",
    }.get(moment.kind)
    quote = moment.said if len(moment.said) <= 600 else moment.said[:600] + " …"
    if how is None:  # "finding": the agent's words, not the user's
        about = f"\n\nFiles involved: {', '.join(moment.files)}" if moment.files else ""
        return rule_sentence(_past_retraction(moment.said)), f"The agent found:\n\n> {quote}{about}"
    about = f"\n\nFiles involved: {', '.join(moment.files)}" if moment.files else ""
    return rule_sentence(moment.said), f"The user {how}:\n\n> {quote}{about}"


# A sentence that only takes something back or agrees ("I need to correct my earlier advice.",
# "Yes, that's exactly the cause.", "是的，这正是原因。"): the lesson is in the next one.
_ONLY_RETRACTS = re.compile(
    r"^\W*(yes\W+)?(I need to correct|I was wrong|correction|that'?s (exactly )?(the|why)|"
    r"this is (exactly )?(the|why)|是的|对|正是原因|没错)",
    re.I,
)


def _past_retraction(said: str) -> str:
    """The agent's words from the first sentence that says something of its own."""
    sentences = [s.strip() for s in _SENTENCE.split(said.strip()) if s and s.strip()]
    while len(sentences) > 1 and _ONLY_RETRACTS.match(sentences[0]) and len(sentences[0]) < 80:
        sentences.pop(0)
    return " ".join(sentences).replace("**", "")  # markdown emphasis is no part of a rule


def _error_fix_text(moment: Moment) -> tuple[str, str]:
    error = moment.error or "an error"
    if moment.edits:
        changed = ", ".join(dict.fromkeys(e[0] for e in moment.edits))
        summary = f"`{moment.operation}` fails with `{error[:90]}` until {changed} is fixed"
        shown = "\n".join(
            f"{f}:\n  - {o.strip()[:200]}\n  + {n.strip()[:200]}" for f, o, n in moment.edits[:3]
        )
        fix = f"The fix changed {changed}:\n{shown}"
    elif moment.changes or _programs(moment):
        summary = _rerun_rule(moment)
        fix = f"It succeeded as:\n  {moment.fixed}"
    else:
        summary = f"Run `{moment.fixed[:100]}`, not `{moment.failed[:60]}`"
        fix = f"It succeeded as:\n  {moment.fixed}"
    body = f"Failed:\n  {moment.failed}\n  → {error}\n\n{fix}"
    return summary, body


def _programs(moment: Moment) -> tuple[str, str] | None:
    """(old, new) when the rerun ran another program (`python` → `python3`)."""
    from orbit_learnings.curation.capture.commands import segments

    old = next(iter(segments(moment.failed)), [""])[0]
    new = next(iter(segments(moment.fixed)), [""])[0]
    return (old, new) if old and new and old != new and old not in ("cd",) else None


def _rerun_rule(moment: Moment) -> str:
    """ "Use `python3`, not `python`" / "Run `pytest` with `DATABASE_URL=…`"."""
    programs = _programs(moment)
    how = ", ".join(moment.changes)
    if programs:
        return f"Use `{programs[1]}`, not `{programs[0]}`" + (f" ({how})" if how else "")
    return f"Run `{moment.operation}` {how}"


def _tags(moment: Moment) -> list[str]:
    text = f"{moment.operation} {moment.failed} {moment.error} {' '.join(moment.files)}".lower()
    return sorted({tag for needle, tag in _TOPIC_TAGS if needle in text})


def _repo_words(text: str, root: str | None) -> str:
    if not root:
        return text
    for base in {root.rstrip("/\\"), commands.normalise_path(root).rstrip("/")}:
        text = text.replace(base + "/", "").replace(base + "\\", "")
    return text


def globs_for(files: Sequence[str], root: str | None) -> list[str]:
    """Repo-relative globs for the files a moment involved: a folder glob when several share
    a folder; files outside the repository and scratch files are left out."""
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
    return globs
