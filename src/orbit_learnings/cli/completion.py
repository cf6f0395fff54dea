"""Shell completion (bash, zsh, fish, through Typer): learning IDs, tags and paths.

IDs and tags come from the index, so a Tab answers in a few dozen milliseconds; any
problem (no workspace, a broken store) completes nothing rather than printing an error
into the user's command line.
"""

from __future__ import annotations

import os

from orbit_learnings.cli.state import STATE


def learning_ids(incomplete: str) -> list[tuple[str, str]]:
    """IDs of every learning in ID order (a list to pick from, not a ranking: the same
    store completes the same way whenever it was edited), with its summary as help."""
    try:
        from orbit_learnings.retrieval import queries

        hits = queries.list_learnings(STATE.workspace(), status="all").hits
    except Exception:  # completion must never print an error into the command line
        return []
    prefix = incomplete.upper()
    return sorted((h.id, h.summary[:60]) for h in hits if h.id.startswith(prefix))


def tags(incomplete: str) -> list[str]:
    try:
        from orbit_learnings.retrieval import queries

        known = queries.known_tags(STATE.workspace())
    except Exception:
        return []
    typed = incomplete.lstrip("#").lower()
    return sorted({t for t in known if t.lower().startswith(typed)})


def paths(incomplete: str) -> list[str]:
    """Files and folders (with a trailing slash) below the current folder."""
    folder, _, start = incomplete.rpartition("/")
    try:
        entries = sorted(os.scandir(folder or "."), key=lambda e: e.name)
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.name.startswith(start) and (start.startswith(".") or entry.name[0] != "."):
            name = f"{folder}/{entry.name}" if folder else entry.name
            found.append(name + "/" if entry.is_dir() else name)
    return found
