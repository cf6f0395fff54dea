"""Allocating the next learning ID: sequential by default, random for busy branches.

Whoever allocates holds the store lock; the bundle folder's `mkdir` is the atomic
claim, so two processes can never end up with the same ID.
"""

from __future__ import annotations

import os

from orbit_learnings.core import ids
from orbit_learnings.store.workspace import Workspace


def next_sequential_id(ws: Workspace) -> str:
    highest = 0
    if ws.learnings_dir.is_dir():
        for entry in os.scandir(ws.learnings_dir):
            name = entry.name.removesuffix(".yaml")
            match = ids.SEQUENTIAL_ID.match(name)
            if match and name.startswith(ws.prefix):
                highest = max(highest, int(match.group(1)))
    return ids.format_sequential_id(highest + 1, ws.prefix)


def _random_id(prefix: str) -> str:
    import secrets

    while True:
        body = "".join(secrets.choice(ids.RANDOM_ALPHABET) for _ in range(ids.RANDOM_LENGTH))
        if any(ch.isalpha() for ch in body):  # never mistakable for a sequential id
            return f"{prefix}-{body}"


def allocate_id(ws: Workspace) -> str:
    """Reserve a fresh ID by creating its bundle folder; callers hold the store lock.

    Sequential (`L-0042`, the default) or random (`ids: random` in
    `.orbit/config.yaml`, for teams with many parallel branches).
    """
    from orbit_learnings.store.config import id_mode

    ws.learnings_dir.mkdir(parents=True, exist_ok=True)
    random_ids = id_mode(ws) == "random"
    while True:
        candidate = _random_id(ws.prefix) if random_ids else next_sequential_id(ws)
        try:
            ws.bundle_dir(candidate).mkdir()  # atomic: exactly one process wins a name
        except FileExistsError:
            continue
        return candidate
