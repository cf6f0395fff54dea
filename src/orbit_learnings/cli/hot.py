"""The hot commands' bodies, shared by the Typer commands and the lean dispatch.

Stdlib only: `entry.py` calls these without importing Typer or rich, and the
Typer commands call the very same functions, so both routes behave the same.
"""

from __future__ import annotations

import os
import sys

from orbit_learnings.cli.output import (
    emit_json,
    info,
    is_terminal,
    render_hits,
    render_list,
    warn,
    warn_problems,
)
from orbit_learnings.core.errors import UsageError
from orbit_learnings.core.scope import Scope
from orbit_learnings.retrieval import queries
from orbit_learnings.store.workspace import Workspace

SEMANTIC_ENV = "ORBIT_SEMANTIC"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.core.results import Hit

FORMATS = ("reminder", "json", "markdown")
OLD_MIN_HELPFULNESS = "--min-confidence"  # its name in 0.1.0: "confidence" is a match's now


def resolve_min_helpfulness(new: float | None, old: float | None) -> float | None:
    """`--min-helpfulness`, or the same threshold given by its deprecated name, which still
    works and says once on stderr that it is deprecated (stdout, a script's, is untouched).
    Agents' hooks never take the option, so they never print the note."""
    if old is None:
        return new
    if new is not None:
        raise UsageError(f"{OLD_MIN_HELPFULNESS} is the old name of --min-helpfulness: pass one")
    warn(f"{OLD_MIN_HELPFULNESS} is deprecated; use --min-helpfulness (the same threshold)")
    return old


def do_list(
    ws: Workspace,
    scope: Scope,
    *,
    status: str,
    limit: int | None,
    json_out: bool,
    level: str = "all",
) -> int:
    result = queries.list_learnings(ws, scope, status=status, limit=limit, level=level)
    render_list(result, json_out=json_out)
    if not result.hits and scope.tags:
        _suggest_tags(ws, scope.tags)
    return 0


def _suggest_tags(ws: Workspace, tags: tuple[str, ...]) -> None:
    """Nothing carries these tags: name the closest tags that exist, on stderr."""
    import difflib

    known = queries.known_tags(ws)
    for tag in tags:
        close = difflib.get_close_matches(tag.strip().lstrip("#").lower(), known, n=2, cutoff=0.6)
        if close:
            sys.stderr.write(
                f"orbit: no learning has the tag {tag!r}; did you mean {close[0]!r}?\n"
            )


WEAK_SHOWN = 3  # a person asking and finding nothing confident still sees the closest


def do_search(
    ws: Workspace,
    query: str,
    *,
    tags: list[str],
    status: str,
    include_all: bool,
    limit: int,
    explain: bool,
    min_helpfulness: float | None,
    level: str,
    weak: bool,
    json_out: bool,
) -> int:
    """`orbit learning search` and `orbit search TEXT`, for a person or a script: the
    confident matches, or the closest weak ones marked weak, never nothing when something
    matched. `--json` returns every result with `match_confidence` and `confident`, and
    the script chooses; agents get the gate elsewhere (hooks, MCP, inject)."""
    result = queries.search_text(
        ws,
        query,
        tags=tags,
        status=status,
        include_all=include_all,
        limit=limit,
        explain=explain,
        min_helpfulness=min_helpfulness,
        level=level,
    )
    warn_problems(result.warnings)
    if json_out:
        emit_json(result.to_dict())
        return 0
    shown = [h for h in result.hits if h.confident]
    if weak:
        shown = result.hits
        _say_which_are_weak("weak matches", shown)
    elif not shown and result.hits:
        shown = result.hits[:WEAK_SHOWN]
        _say_which_are_weak(f"no confident match for {query!r}; the closest, marked weak", shown)
    if not shown:
        warn(f"no match for {query!r} (no learning shares a word with it)")
        return 0
    render_hits(shown, show_score=True)
    for hit in shown if explain else []:
        info(f"{hit.id}: " + ", ".join(f"{k}={v}" for k, v in (hit.explain or {}).items()))
    return 0


def do_inject(
    ws: Workspace,
    scope: Scope,
    *,
    task_file: str | None,
    limit: int | None,
    session: str | None,
    max_tokens: int | None,
    output_format: str,
    feedback_hint: bool,
    min_helpfulness: float | None = None,
    include_stale: bool = False,
) -> int:
    if output_format not in FORMATS:
        raise UsageError(f"unknown --format {output_format!r}; choose one of {', '.join(FORMATS)}")
    if limit is not None and limit < 0:
        raise UsageError("--limit must be zero or more")
    from orbit_learnings.push import inject  # not imported by `list`, which never injects

    task_text = ""
    if task_file:
        task_scope, task_text = inject.read_task_file(task_file)
        scope = scope.merged(task_scope)

    def render(hits: list[Hit]) -> str:
        if output_format == "markdown":
            return inject.format_markdown(hits, feedback_hint=feedback_hint)
        return inject.format_reminder(hits, feedback_hint=feedback_hint)

    chosen = inject.select(
        ws,
        scope,
        limit=limit,
        session_id=inject.session_from_env(session),
        max_tokens=max_tokens,
        render=render,
        layer="inject",
        trigger={**scope.to_dict(), "task_file": task_file},
        min_helpfulness=min_helpfulness,
        task_text=task_text,
        include_stale=include_stale,
    )
    if output_format == "json":
        emit_json(chosen.to_dict())
    else:
        sys.stdout.write(render(chosen.hits))
    return 0


def _say_which_are_weak(head: str, shown: list[Hit]) -> None:
    """On stderr: a terminal's table marks each weak match itself; a pipe's stdout is
    exactly `ID<TAB>summary`, so the line names them and their match confidence."""
    weak = [h for h in shown if not h.confident]
    if not weak or (is_terminal() and head == "weak matches"):
        return
    marks = ", ".join(f"{h.id} {h.match_confidence:.2f}" for h in weak)
    warn(f"{head}:" if is_terminal() else f"{head} ({marks}):")


def do_hook(name: str, root: str | None, flags: list[str]) -> int:
    """Run the named integration's hook on stdin. Always exit 0: a hook never blocks the agent."""
    from orbit_learnings import integrations

    # A hook answers within milliseconds on every call an agent makes; loading the
    # embedding model (the semantic extra) costs about half a second a call. Hooks match
    # by words (BM25 and the match-confidence gate) unless ORBIT_SEMANTIC=1 asks for vectors.
    os.environ.setdefault(SEMANTIC_ENV, "0")
    integration = integrations.find(name)
    if integration is None or not integration.has_hook:
        sys.stderr.write(f"orbit hook: no hook named {name!r}\n")
        return 0
    try:
        stdin_text = sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        sys.stderr.write(f"orbit hook: cannot read stdin ({exc})\n")
        return 0
    out, err = integration.hook(stdin_text, root=root, flags=flags)
    if out:
        sys.stdout.write(out)
    if err:
        sys.stderr.write(err)
    return 0
