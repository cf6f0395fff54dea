"""The agent finding out: it names a cause it just found, or takes back what it said.

The gotchas of a code base live here more than in anything a person types. Causes and
retractions, in the languages seen in public sessions; no one session's wording. Only
right after a person's question or report, or a failure: an agent explaining unprompted
is no moment."""

from __future__ import annotations

import re

from orbit_learnings.curation.capture.moments.base import Moment, failed, files_in
from orbit_learnings.curation.capture.moments.person import ASKING, QUESTION, REPORT
from orbit_learnings.curation.capture.sessions import ASSISTANT, INTERRUPT, TOOL_RESULT, USER, Turn

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


def findings(turns: list[Turn]) -> list[Moment]:
    """The agent's statement of a cause or a retraction, after a person's question or
    report, or after a failure: one moment per statement, its sentence quoted."""
    moments: list[Moment] = []
    for position, turn in enumerate(turns):
        if turn.kind != ASSISTANT:
            continue
        match = _FINDING.search(turn.text)
        answer = not match and len(turn.text.split()) >= 6 and _answers_why(turns, position)
        at = match.start() if match else 0 if answer else -1
        if at < 0 or not _prompted(turns, position) or _still_failing(turns, position):
            continue
        said = sentence_around(turn.text, at)
        files = files_in(turns[max(0, position - 6) : position + 2])
        moments.append(Moment("finding", [turn.line], FINDING, said=said, files=files))
    return moments


def _prompted(turns: list[Turn], at: int) -> bool:
    """Whether a question, a report or a failure came just before (within the agent's turn)."""
    for turn in reversed(turns[max(0, at - 8) : at]):
        if turn.kind == TOOL_RESULT and failed(turn):
            return True
        if turn.kind == USER:
            text = turn.text.strip()
            return bool(QUESTION.search(text) or ASKING.match(text) or REPORT.search(text))
    return False


# The person asking why: the agent's answer is the cause, however it words it.
_WHY = re.compile(
    r"\b(why|how come|warum|wieso|weshalb|pourquoi|por qu[eé]|perch[eé]|почему|зачем)\b|"
    r"为什么|為什麼|怎么会|なぜ|どうして|왜",
    re.I,
)


def _answers_why(turns: list[Turn], at: int) -> bool:
    """Whether this is the agent's first words after the person asked why."""
    for turn in reversed(turns[max(0, at - 8) : at]):
        if turn.kind == ASSISTANT and turn.text.strip():
            return False
        if turn.kind == USER:
            return bool(_WHY.search(turn.text[:300]))  # asked up front, not in a pasted log
    return False


def _still_failing(turns: list[Turn], at: int) -> bool:
    """Whether the person stopped the agent before speaking again, or next says it still
    fails: the cause named was not it (an unresolved session's guesses are no gotcha)."""
    for turn in turns[at + 1 :]:
        if turn.kind == INTERRUPT:
            return True
        if turn.kind == USER and turn.text.strip():
            return bool(_STILL.search(turn.text))
    return False


_STILL = re.compile(
    r"\bstill\W+(\w+\W+){0,3}?(error|fail\w*|broken|crash\w*|the same|not work\w*|"
    r"doesn'?t work)|"
    r"\b(same|another) error\b|\bnot (fixed|working)\b|\bdoesn'?t work\b|"
    r"还是(报错|不行|失败)|依然|まだ(エラー|動かない)|immer noch",
    re.I,
)


def sentence_around(text: str, at: int) -> str:
    """The sentence holding position `at` and the next one (the cause is often there)."""
    start = max(text.rfind(mark, 0, at) for mark in (". ", "\n", "。", "! ")) + 1
    pieces = re.split(r"(?<=[.!?。！？])\s+|\n+", text[start:].strip())
    return " ".join(p for p in pieces[:2] if p).strip()[:600]
