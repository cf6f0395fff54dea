"""Allocating the next learning ID (sequential by default, random for busy branches),
and clearing what a writer killed mid-write left behind before one is claimed.

Whoever allocates holds the store lock; the bundle folder's `mkdir` is the atomic
claim, so two processes can never end up with the same ID.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path
from typing import Any

from orbit_learnings.core import ids
from orbit_learnings.core.errors import LegacyLayoutError
from orbit_learnings.store.fileops import file_lock
from orbit_learnings.store.layout import LEARNING_FILE, LEGACY_SUPERSEDED_DIR
from orbit_learnings.store.layout import legacy_files as legacy_names
from orbit_learnings.store.workspace import Workspace


def _numbered(ws: Workspace, prefix: str | None = None) -> list[tuple[int, str]]:
    """(number, entry name) of every sequential ID in the learnings folder; legacy flat
    files (`L-0003.yaml`) count, so a new bundle never takes a migrated file's ID."""
    prefix = prefix or ws.prefix
    found = []
    if ws.learnings_dir.is_dir():
        for entry in os.scandir(ws.learnings_dir):
            name = entry.name.removesuffix(".yaml")
            number = ids.sequential_number(name, prefix)
            if number is not None:
                found.append((number, entry.name))
    return found


def next_sequential_id(
    ws: Workspace, taken: Collection[str] = (), *, prefix: str | None = None
) -> str:
    """One past the highest sequential ID here or in `taken` (IDs held elsewhere: the
    target branch's), so a gap never hands out a number another branch already has."""
    prefix = prefix or ws.prefix
    elsewhere = (ids.sequential_number(t, prefix) for t in taken)
    numbers = [number for number, _ in _numbered(ws, prefix)]
    numbers += [number for number in elsewhere if number is not None]
    highest = max(numbers, default=0)
    candidate = ids.format_sequential_id(highest + 1, prefix)
    if not ids.is_learning_id(candidate):  # a committed L-999999999999 used the last one
        from orbit_learnings.core.errors import OrbitError

        raise OrbitError(f"no sequential ID is left after {prefix}-{highest}; set ids: random")
    return candidate


def _random_id(prefix: str) -> str:
    import secrets

    while True:
        body = "".join(secrets.choice(ids.RANDOM_ALPHABET) for _ in range(ids.RANDOM_LENGTH))
        if any(ch.isalpha() for ch in body):  # never mistakable for a sequential id
            return f"{prefix}-{body}"


def allocate_id(ws: Workspace, taken: Collection[str] = ()) -> str:
    """Reserve a fresh ID by creating its bundle folder; callers hold the store lock.

    Sequential (`L-0042`, the default) or random (`ids: random` in
    `.orbit/config.yaml`, for teams with many parallel branches); an org repository's
    IDs take the prefix it declares (`id_prefix: O`). `taken` are IDs this store does not
    hold but must not reuse: those the target branch already has.
    """
    from orbit_learnings.store.config import id_mode, id_prefix

    ws.learnings_dir.mkdir(parents=True, exist_ok=True)
    random_ids = id_mode(ws) == "random"
    prefix = id_prefix(ws)
    while True:
        candidate = (
            _random_id(prefix) if random_ids else next_sequential_id(ws, taken, prefix=prefix)
        )
        if candidate in taken:
            continue
        try:
            ws.bundle_dir(candidate).mkdir()  # atomic: exactly one process wins a name
        except FileExistsError:
            continue
        return candidate


RECENT_BUNDLES = 8  # a killed `add` reserved the highest ID of its time: look that far back


def heal(ws: Workspace, *, dry_run: bool = False, only: set[str] | None = None) -> list[str]:
    """Clear what a writer killed mid-write left behind: temp files, and bundle folders
    holding nothing else. Callers hold the store lock, so no write is in flight.
    With `dry_run`, only name what would go (the preview `check --fix --dry-run` shows);
    with `only`, look in those bundles alone (the write path's cheap heal)."""
    removed: list[str] = []
    if not ws.learnings_dir.is_dir():
        return removed
    for entry in os.scandir(ws.learnings_dir):
        if only is not None and entry.name not in only:
            continue
        if not entry.is_dir(follow_symlinks=False) or not ids.is_learning_id(entry.name):
            continue
        names = os.listdir(entry.path)
        leftovers = [n for n in names if n.startswith(f".{LEARNING_FILE}.") and n.endswith(".tmp")]
        for name in leftovers:
            if not dry_run:
                os.unlink(os.path.join(entry.path, name))
            removed.append(f"{entry.name}/{name}")
        if LEARNING_FILE not in names and len(leftovers) == len(names):
            if not dry_run:
                os.rmdir(entry.path)
            removed.append(f"{entry.name}/")
    return removed


def heal_before_write(ws: Workspace, learning_id: str | None = None) -> None:
    """What a write must not trip over, without opening every bundle (150 ms at 10,000):
    the newest sequential bundles, where a killed `add` left its reserved folder, and
    the bundle about to be written. Random IDs have no newest, so they get the full heal;
    `sync` and `check --fix` always sweep everything."""
    from orbit_learnings.store.config import id_mode

    if id_mode(ws) == "random":
        heal(ws)
        return
    recent = {name for _, name in sorted(_numbered(ws))[-RECENT_BUNDLES:]}
    heal(ws, only=recent | ({learning_id} if learning_id else set()))


def store_lock(ws: Workspace) -> Any:
    """The store-wide writer lock: ID allocation and multi-file changes."""
    return file_lock(ws.locks_dir / "store.lock")


def clear_crash_leftovers(ws: Workspace, *, dry_run: bool = False) -> list[str]:
    """What killed writes left behind (`L-0009/`, `L-0002/.learning.yaml.55.tmp`), removed
    under the store lock; a checkout this user cannot write is left as it is."""
    try:
        with store_lock(ws):
            return heal(ws, dry_run=dry_run)
    except OSError:
        return heal(ws, dry_run=True) if dry_run else []


def legacy_files(ws: Workspace) -> list[Path]:
    """Flat-layout files (`<id>.yaml`, `superseded/<id>.yaml`) that predate bundles,
    by the same rule the index's scan applies (`layout.legacy_files`)."""
    folder = ws.learnings_dir
    if not folder.is_dir():
        return []
    others = [
        entry.name
        for entry in os.scandir(folder)
        if entry.is_file() or (entry.name == LEGACY_SUPERSEDED_DIR and entry.is_dir())
    ]
    return [folder / name for name in legacy_names(str(folder), others)]


def refuse_legacy_layout(ws: Workspace) -> None:
    legacy = legacy_files(ws)
    if legacy:
        raise LegacyLayoutError.for_files(ws.relative(legacy[0]), len(legacy))
