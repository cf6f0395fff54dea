"""A team's own language model, reached through a command it already runs.

`orbit learning extract --with 'claude -p'` (or `codex exec`, `llm`, any command that reads
a prompt on stdin and prints JSON) receives the prompt (`prompt.md` in this package, or the
team's `.orbit/extract-prompt.md`) followed by the moments as JSON, and prints a JSON array
of drafts `{"moment", "summary", "body", "paths", "tags"}`. orbit itself never opens a
network connection: the command is the team's, and nothing runs unless `--with` names it.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from importlib import resources

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.curation.capture.drafting import Draft
from orbit_learnings.curation.capture.drafting.scope import globs_for
from orbit_learnings.curation.capture.moments import Moment
from orbit_learnings.curation.capture.sessions import Session

PROMPT_FILE = "extract-prompt.md"  # a team's own prompt, beside config.yaml in .orbit/
TIMEOUT_SECONDS = 600
MAX_PROMPT_BYTES = 64 << 10


def prompt_text(orbit_dir: str | None) -> str:
    """The team's prompt when it has one, else the packaged default."""
    if orbit_dir:
        from orbit_learnings.store.fileops import read_repo_text

        own = os.path.join(orbit_dir, PROMPT_FILE)
        try:  # a committed file: read through the guarded door, inside .orbit only
            return read_repo_text(
                own, within=orbit_dir, name=f".orbit/{PROMPT_FILE}", limit=MAX_PROMPT_BYTES
            )
        except FileNotFoundError:
            pass
    files = resources.files("orbit_learnings.curation.capture")
    return files.joinpath("prompt.md").read_text(encoding="utf-8")


def moments_json(
    moments: list[tuple[Session, Moment]], root: str | None
) -> list[dict[str, object]]:
    listed: list[dict[str, object]] = []
    for number, (session, moment) in enumerate(moments):
        entry: dict[str, object] = {"moment": number, "kind": moment.kind}
        if moment.said:
            entry["said"] = moment.said[:2000]
        if moment.kind == "error-fix":
            entry.update(failed=moment.failed, error=moment.error, fixed=moment.fixed)
            entry["edits"] = [
                {"file": f, "old": o[:800], "new": n[:800]} for f, o, n in moment.edits
            ]
        entry["files"] = globs_for(moment.files, session.cwd or root)
        listed.append(entry)
    return listed


def drafts_from_model(
    command: str,
    moments: list[tuple[Session, Moment]],
    root: str | None,
    *,
    orbit_dir: str | None = None,
) -> list[Draft]:
    if not moments:
        return []  # nothing to ask: the command is not run
    prompt = prompt_text(orbit_dir) + "\n" + json.dumps(moments_json(moments, root), indent=1)
    answer = _run(command, prompt)
    return [_draft(item, moments) for item in _parse(command, answer)]


def _run(command: str, prompt: str) -> str:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise OrbitError(f"--with {command!r}: {exc}") from None
    if not argv:
        raise OrbitError("--with needs a command, e.g. --with 'claude -p'")
    try:
        done = subprocess.run(
            argv, input=prompt, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False
        )
    except FileNotFoundError:
        raise OrbitError(f"--with: {argv[0]} is not installed or not on PATH") from None
    except subprocess.TimeoutExpired:
        raise OrbitError(f"--with: {argv[0]} gave no answer in {TIMEOUT_SECONDS} s") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise OrbitError(f"--with: {argv[0]} failed: {why}")
    return done.stdout


def _parse(command: str, answer: str) -> list[dict[str, object]]:
    """The JSON array in the answer, tolerating a code fence or a line of prose around it."""
    start, end = answer.find("["), answer.rfind("]")
    try:
        items = json.loads(answer[start : end + 1]) if 0 <= start < end else None
    except ValueError:
        items = None
    if not isinstance(items, list):
        first = (answer.strip().splitlines() or ["nothing"])[0][:80]
        raise OrbitError(f"--with {command!r} did not print a JSON array of drafts: {first!r}")
    return [i for i in items if isinstance(i, dict) and str(i.get("summary", "")).strip()]


def _draft(item: dict[str, object], moments: list[tuple[Session, Moment]]) -> Draft:
    number = item.get("moment")
    source: dict[str, object] = {"moment": "model"}
    if isinstance(number, int) and 0 <= number < len(moments):
        session, moment = moments[number]
        source.update(file=session.path, lines=moment.lines, moment=moment.kind)
    return Draft(
        "model",
        str(item["summary"]).strip()[:300],
        str(item.get("body", "")).strip(),
        _strings(item.get("paths")),
        _strings(item.get("tags")),
        0.8,
        source,
    )


def _strings(value: object) -> list[str]:
    return [str(v) for v in value if str(v).strip()] if isinstance(value, list) else []
