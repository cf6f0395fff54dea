"""A moment turned into a draft a reviewer can accept as is or with light edits.

The summary states the rule (`wording`): the person's sentence that reads as one, in their
language; for a command that failed and then passed, what the change says ("`python` is not
found here: run `python3`", "`pytest` needs `PYTHONPATH=src`"); for the agent's finding, the
cause it found. The body is the evidence: the person's words quoted, the call they refused,
the lines the agent changed after they spoke, the failing output and the old → new command
or lines. The scope comes from the files the moment involved, repo-relative from any OS.
A moment whose words state nothing a reviewer could keep gives no draft.

The package's parts, each for one question: `wording` (the person's or the agent's sentence
that reads as a rule), `reruns` (a command that failed, then passed: its rule, its text and
whether the failure backs it), `evidence` (what the body quotes and shows), `scope` (globs
and tags), `gate` (whether the person's words are a rule a team would keep).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.drafting import evidence, gate, reruns, scope
from orbit_learnings.curation.capture.moments import Moment, rule_cue
from orbit_learnings.curation.capture.moments.base import ANSI
from orbit_learnings.curation.capture.sessions import Turn

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
    if ANSI.search(moment.error):  # terminal colours are no part of a quoted error
        moment = dataclasses.replace(moment, error=ANSI.sub("", moment.error))
    if moment.kind in gate.AGENT_SIDE:  # what it means is the reviewer's call
        return gate.AGENT_SIDE[moment.kind]
    if moment.kind == "error-fix":
        moment = reruns.with_patched_lines(moment, turns)
    text = _text_for(moment, turns, root)
    if text is None:
        return "its words state no rule"
    summary, body = text
    paths = scope.globs_for(moment.files, root)
    reason = gate.machine_reason(scope.repo_words(summary, root))
    reason = reason or _gate(moment, summary, paths, turns)
    if reason:
        return reason
    source: dict[str, object] = {"file": path, "lines": moment.lines, "moment": moment.kind}
    if moment.said:
        source["quote"] = moment.said[:500]
    return Draft(
        moment.kind,
        scope.repo_words(summary, root),
        scope.repo_words(body, root),
        paths,
        scope.tags_for(
            moment, summary, [*paths, *(p for p in moment.files if not commands.is_scratch(p))]
        ),
        moment.score,
        source,
    )


def _gate(moment: Moment, summary: str, paths: list[str], turns: Sequence[Turn]) -> str | None:
    if moment.kind == "error-fix":
        old, new = reruns.changed_thing(moment)
        return reruns.error_fix_reason(moment, turns, old, new)
    if moment.kind == "finding":
        return gate.finding_reason(summary, paths)
    if moment.kind == "hang":  # a tool waiting for a terminal, not a long job of the project's
        return gate.long_job_reason(moment.failed)
    stopped = moment.kind in gate.STOPPED
    reason = gate.person_reason(summary, stopped=stopped, said=moment.said)
    if moment.kind == "stated" and not reason:  # one sentence of the message: is it a template?
        message = "\n".join(t.text for t in turns if t.line == moment.lines[0])
        reason = gate.markup_reason(message)
    if not reason and gate.echoes(moment.said, evidence.agent_words_before(moment, turns)):
        return "the agent's own words handed back (its plan, its offer), not the person's"
    return reason


def _text_for(moment: Moment, turns: Sequence[Turn], root: str | None) -> tuple[str, str] | None:
    if moment.kind == "error-fix":
        return reruns.error_fix_text(moment, root, turns)
    if moment.kind == "hang":
        return evidence.agent_side_text(moment)
    return evidence.person_text(moment, turns, root)


def rule_sentence(said: str) -> str:
    """The person's sentence that reads as a rule (else their first meaningful one)."""
    sentences = [s.strip() for s in _SENTENCE.split(said.strip()) if s and s.strip()]
    meaningful = [s for s in sentences if len(_FILLER.sub("", s).split()) >= 2]
    chosen = next((s for s in meaningful if rule_cue(s)), meaningful[0] if meaningful else "")
    rule = _FILLER.sub("", chosen or (sentences[0] if sentences else "")).strip(" .")
    if len(rule) > MAX_SUMMARY:
        rule = rule[: MAX_SUMMARY - 1].rsplit(" ", 1)[0] + "…"
    return rule[:1].upper() + rule[1:] if rule else ""
