"""The in-process API for engines written in Python (layer 1 without a subprocess).

    from orbit_learnings import inject_learnings
    hits = inject_learnings(paths=task.context_files, tags=task.tags, limit=5)

It *is* `orbit learning inject` (ranking, caps, session dedup, and the injection log it
writes), so an engine and the CLI never disagree. It was called `search_learnings`, which
it never was: that name still works, with a DeprecationWarning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from orbit_learnings.core.scope import Scope
from orbit_learnings.push import inject
from orbit_learnings.store.workspace import find_workspace


def inject_learnings(
    paths: Sequence[str] = (),
    tags: Sequence[str] = (),
    limit: int | None = None,
    *,
    root: str | None = None,
    session_id: str | None = None,
    max_tokens: int | None = None,
    task_text: str = "",
) -> list[dict[str, Any]]:
    """Active learnings for these paths and tags, best first, as `inject --format json` gives;
    `task_text` (the task's title and description) ranks them by what the task is about."""
    ws = find_workspace(root)
    chosen = inject.select(
        ws,
        Scope(paths, tags),
        limit=limit,
        session_id=inject.session_from_env(session_id),
        max_tokens=max_tokens,
        layer="api",
        task_text=task_text,
    )
    return [inject.hit_summary(h) for h in chosen.hits]


def search_learnings(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """Deprecated: `inject_learnings` (it selects for injection and records what it chose)."""
    import warnings

    warnings.warn(
        "orbit_learnings.search_learnings is now inject_learnings (it injects, it does not "
        "search); the old name will be removed",
        DeprecationWarning,
        stacklevel=2,
    )
    return inject_learnings(*args, **kwargs)
