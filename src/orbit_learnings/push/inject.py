"""Push injection: choose the few learnings an agent should see, once per session.

Shared by every push layer — `orbit learning inject` (layer 1), the learnings MCP attaches
(layer 2) and the Claude Code hook (layer 3) — so caps, dedup and the
injection log behave identically everywhere. Stdlib only: it runs on every
file an agent touches.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Collection, Sequence

from orbit_learnings.core.errors import OrbitError, UsageError
from orbit_learnings.core.numbers import whole_number
from orbit_learnings.core.results import Hit, printable
from orbit_learnings.core.scope import RepoPath, Scope
from orbit_learnings.core.timestamps import now_iso
from orbit_learnings.retrieval import tasks
from orbit_learnings.store.fileops import (
    HOT_LOCK_SECONDS,
    LockBusy,
    append_line,
    atomic_write_text,
    posix_lock,
    remove_if_present,
)
from orbit_learnings.store.layout import (
    INJECTIONS_FILE,
    SESSION_LOCK_FILE,
    SESSION_SHOWN_FILE,
    SESSIONS_DIR,
)
from orbit_learnings.store.workspace import Workspace

PER_CALL_ENV = "ORBIT_LEARNING_PER_CALL_CAP"
SESSION_CAP_ENV = "ORBIT_LEARNING_SESSION_CAP"
SESSION_ENV = "ORBIT_SESSION_ID"
DEFAULT_PER_CALL = 5
DEFAULT_SESSION_CAP = 20
TASK_FILE_KEYS = ("context_files", "tags", "title", "description")
FEEDBACK_HINT = (
    "If one of these helped or misled you, say LEARNING_HELPFUL: <id> "
    "or LEARNING_NOT_HELPFUL: <id>."
)
_UNSAFE_SESSION_CHARS = re.compile(r"[^A-Za-z0-9._-]")


class Injection:
    """What a push layer should show, and why the rest was left out."""

    __slots__ = ("dropped", "hits", "session_id")

    def __init__(self, hits: list[Hit], session_id: str | None, dropped: dict[str, int]) -> None:
        self.hits = hits
        self.session_id = session_id
        self.dropped = dropped

    def to_dict(self) -> dict[str, object]:
        return {"learnings": [hit_summary(h) for h in self.hits]}


def hit_summary(hit: Hit) -> dict[str, object]:
    return (
        {
            "id": hit.id,
            "summary": hit.summary,
            "tags": hit.tags,
            "paths": hit.paths,
            "matched_by": hit.matched_by,
            "vote_count": hit.vote_count,
        }
        | ({"note": hit.note} if hit.note else {})
        | ({"level": hit.level} if hit.level != "project" else {})
    )


def env_cap(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    number = whole_number(raw)
    if number is None:
        raise UsageError(f"{name} must be a non-negative integer, got {raw!r}")
    return number


def session_from_env(explicit: str | None) -> str | None:
    value = explicit if explicit is not None else os.environ.get(SESSION_ENV)
    return value.strip() if value and value.strip() else None


def session_dir(ws: Workspace, session_id: str) -> str:
    safe = _UNSAFE_SESSION_CHARS.sub("_", session_id)[:128].strip(".")
    if not safe:
        raise UsageError(f"unusable session id {session_id!r}")
    return os.path.join(ws.state_dir_str, SESSIONS_DIR, safe)


def agent_session(session_id: str | None, agent_id: str | None) -> str | None:
    """The dedup key of one agent's context: a subagent has its own, so it sees its own."""
    if session_id is None:
        return None
    return f"{session_id}.agent-{agent_id}" if agent_id else session_id


def forget_session(ws: Workspace, session_id: str) -> bool:
    """Forget what a session was shown (its context was compacted or cleared), so the
    next touch shows the learnings again and the session cap starts over."""
    folder = session_dir(ws, session_id)
    state_file = os.path.join(folder, SESSION_SHOWN_FILE)
    if not os.path.exists(state_file):
        return False
    try:
        with posix_lock(os.path.join(folder, SESSION_LOCK_FILE), deadline=HOT_LOCK_SECONDS):
            remove_if_present(state_file)
    except LockBusy:
        remove_if_present(state_file)  # an unlink is atomic; forgetting cannot wait
    return True


def estimate_tokens(text: str) -> int:
    """A deliberately simple estimate (about four characters a token), stable across runs."""
    return (len(text) + 3) // 4


def select(
    ws: Workspace,
    scope: Scope,
    *,
    limit: int | None = None,
    session_id: str | None = None,
    max_tokens: int | None = None,
    render: Callable[[list[Hit]], str] | None = None,
    layer: str = "inject",
    trigger: dict[str, object] | None = None,
    cwd: str | None = None,
    record: bool = True,
    min_helpfulness: float | None = None,
    task_text: str = "",
    exclude: Collection[str] = (),
    resolved: Sequence[RepoPath] = (),
    include_stale: bool = False,
) -> Injection:
    """Rank by relevance to the task, then apply dedup, the per-call cap, the session cap
    and the token budget.

    Only what survives every cut is recorded as shown, so a learning dropped for
    budget reasons can still surface on a later call. `record=False` (a dry run) neither
    logs nor touches the session's shown set: the next dry run answers the same.
    `resolved`: the files an agent named (a hook's, an MCP call's), read where they entered;
    each file's learnings are then judged against that file's (`tasks.shortlist`).
    """
    per_call = limit if limit is not None else env_cap(PER_CALL_ENV, DEFAULT_PER_CALL)
    if not scope and not resolved and not task_text.strip():
        return Injection([], session_id, {})
    candidates = tasks.rank_for_task(ws, scope, task_text, cwd=cwd, resolved=resolved)
    ranked = [h for h in candidates if h.id not in exclude]
    if any(h.anchored for h in ranked):  # only then load the anchors' code and query them
        from orbit_learnings.retrieval.anchors import judge_hits

        ranked = judge_hits(ws, ranked, include_stale=include_stale)
    if min_helpfulness is not None:
        from orbit_learnings.store.feedback import helpfulness_for

        scores = helpfulness_for(ws, [h.id for h in ranked])
        ranked = [h for h in ranked if scores[h.id].helpfulness >= min_helpfulness]
    ranked = tasks.shortlist(ranked, per_file=bool(resolved))
    dropped: dict[str, int] = {}
    ranked = _org_share(ranked, per_call, dropped)
    if session_id is None or not record:  # a dry run (doctor) marks nothing shown either
        hits = _budget(_cap(ranked, per_call, dropped, "per_call"), max_tokens, render, dropped)
    else:
        hits = _select_in_session(ws, session_id, ranked, per_call, max_tokens, render, dropped)
    if hits and record:
        _log(ws, layer, session_id, hits, trigger or dict(scope.to_dict()))
    return Injection(hits, session_id, dropped)


def _org_share(hits: list[Hit], cap: int, dropped: dict[str, int]) -> list[Hit]:
    """Org learnings take at most half of a call's places when project learnings match:
    the repository's own lessons are the most specific, and a large org store must not
    crowd them out."""
    if not any(h.level == "project" for h in hits) or not any(h.level == "org" for h in hits):
        return hits
    room, taken, kept = cap // 2, 0, []
    for hit in hits:
        if hit.level == "org":
            if taken >= room:
                dropped["org_share"] = dropped.get("org_share", 0) + 1
                continue
            taken += 1
        kept.append(hit)
    return kept


def _cap(hits: list[Hit], cap: int, dropped: dict[str, int], reason: str) -> list[Hit]:
    if len(hits) > cap:
        dropped[reason] = dropped.get(reason, 0) + len(hits) - cap
    return hits[:cap]


def _budget(
    hits: list[Hit],
    max_tokens: int | None,
    render: Callable[[list[Hit]], str] | None,
    dropped: dict[str, int],
) -> list[Hit]:
    if max_tokens is None or not hits:
        return hits
    draw = render or format_reminder
    kept = list(hits)
    while kept and estimate_tokens(draw(kept)) > max_tokens:
        kept.pop()
        dropped["token_budget"] = dropped.get("token_budget", 0) + 1
    return kept


def _select_in_session(
    ws: Workspace,
    session_id: str,
    ranked: list[Hit],
    per_call: int,
    max_tokens: int | None,
    render: Callable[[list[Hit]], str] | None,
    dropped: dict[str, int],
) -> list[Hit]:
    """Dedup against the session's shown set under a lock, so two processes never both show
    one. A lock held past `HOT_LOCK_SECONDS` (a stuck holder) is not waited on: the answer
    goes out without the dedup, and nothing is recorded as shown."""
    folder = session_dir(ws, session_id)
    state_file = os.path.join(folder, SESSION_SHOWN_FILE)
    try:
        with posix_lock(os.path.join(folder, SESSION_LOCK_FILE), deadline=HOT_LOCK_SECONDS):
            shown = _read_shown(state_file)
            fresh = [h for h in ranked if h.id not in shown]
            if len(fresh) < len(ranked):
                dropped["already_shown"] = len(ranked) - len(fresh)
            hits = _cap(fresh, per_call, dropped, "per_call")
            session_cap = env_cap(SESSION_CAP_ENV, DEFAULT_SESSION_CAP)
            hits = _cap(hits, max(session_cap - len(shown), 0), dropped, "session_cap")
            hits = _budget(hits, max_tokens, render, dropped)
            if hits:
                shown_list = [*shown, *(h.id for h in hits)]
                payload = {"session_id": session_id, "shown": shown_list, "updated_at": now_iso()}
                atomic_write_text(state_file, json.dumps(payload, indent=2) + "\n", durable=False)
    except LockBusy:
        dropped["lock_busy"] = 1
        return _budget(_cap(ranked, per_call, dropped, "per_call"), max_tokens, render, dropped)
    return hits


def _read_shown(state_file: str) -> dict[str, None]:
    try:
        with open(state_file, encoding="utf-8") as handle:
            data = json.load(handle)
    except (FileNotFoundError, ValueError):
        return {}
    shown = data.get("shown") if isinstance(data, dict) else None
    return dict.fromkeys(s for s in shown or [] if isinstance(s, str))


def _log(
    ws: Workspace, layer: str, session_id: str | None, hits: list[Hit], trigger: dict[str, object]
) -> None:
    """Append to `.orbit/state/injections.jsonl`; observability must never break injection."""
    row = {
        "at": now_iso(),
        "layer": layer,
        "session": session_id,
        "ids": [h.id for h in hits],
        "trigger": trigger,
    }
    log = os.path.join(ws.state_dir_str, INJECTIONS_FILE)
    try:
        if os.path.islink(log):  # derived state: a link is removed and the log starts over
            os.unlink(log)
        os.makedirs(ws.state_dir_str, exist_ok=True)
        append_line(log, json.dumps(row), durable=False)
    except (OSError, OrbitError):  # unwritable, or a link we refuse to follow: skip the log
        pass


# --- rendering ----------------------------------------------------------------


def format_reminder(hits: list[Hit], *, feedback_hint: bool = False) -> str:
    """The spec's layer-1 block; empty when nothing matched."""
    if not hits:
        return ""
    lines = ["<system-reminder>", "Learnings relevant to this task:"]
    lines += [f"- [{h.id}] {printable(_noted(h))}" for h in hits]
    lines.append("Read full body via `orbit learning show <id>` if needed.")
    if feedback_hint:
        lines.append(FEEDBACK_HINT)
    lines.append("</system-reminder>")
    return "\n".join(lines) + "\n"


def format_markdown(hits: list[Hit], *, feedback_hint: bool = False) -> str:
    if not hits:
        return ""
    lines = ["## Learnings relevant to this task", ""]
    lines += [f"- **{h.id}** — {printable(_noted(h))}" for h in hits]
    lines += ["", "Read the full body with `orbit learning show <id>`."]
    if feedback_hint:
        lines.append(FEEDBACK_HINT)
    return "\n".join(lines) + "\n"


def provenance_line(hit: Hit) -> str:
    """`L-0001 (scope src/engine/**, 3 votes): summary` — factual, no imperative wording."""
    scope = ", ".join(hit.paths[:2]) if hit.paths else ", ".join(f"tag {t}" for t in hit.tags[:2])
    if len(hit.paths) > 2:
        scope += ", …"
    votes = f"{hit.vote_count} vote" + ("" if hit.vote_count == 1 else "s")
    note = f"{hit.note}; " if hit.note else ""
    note = f"org; {note}" if hit.level == "org" else note
    return printable(f"{hit.id} ({note}scope {scope}, {votes}): {hit.summary}")


def _noted(hit: Hit) -> str:
    """`(anchor drifted: src/x.py:3-9 changed since 2026-10-02) summary` when the cited
    code changed, so an agent weighs the lesson against the code it now reads."""
    summary = f"({hit.note}) {hit.summary}" if hit.note else hit.summary
    return f"(org) {summary}" if hit.level == "org" else summary


def read_task_file(path: str) -> tuple[Scope, str]:
    """`context_files` and `tags` from a task in JSON or YAML, and its title and
    description as the text injection ranks by."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read --task-file {path}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError:
        from orbit_learnings.store.yamlio import YamlSyntaxError, safe_load

        try:
            data = safe_load(text)
        except YamlSyntaxError as exc:
            raise UsageError(f"{path}:{exc.line}: {exc.message}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: a task file must be a mapping with context_files and tags")
    unknown = sorted(str(k) for k in data if k not in TASK_FILE_KEYS)
    if unknown:
        hint = " (did you mean context_files?)" if {"files", "paths"} & set(unknown) else ""
        sys.stderr.write(
            f"orbit: warning: {path}: ignored key(s) {', '.join(unknown)}{hint}; "
            f"a task file has {', '.join(TASK_FILE_KEYS)}\n"
        )
    files, tags = data.get("context_files") or [], data.get("tags") or []
    if not isinstance(files, list) or not isinstance(tags, list):
        raise UsageError(f"{path}: context_files and tags must be lists")
    text = "\n".join(str(data[key]) for key in ("title", "description") if data.get(key))
    return Scope([str(f) for f in files], [str(t) for t in tags]), text
