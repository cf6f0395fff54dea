"""`.orbit/config.yaml`: team settings that travel with the repository.

    ids: sequential        # or "random" for teams with many parallel branches

Missing file or key means the default. An invalid file is a clear error.
"""

from __future__ import annotations

import os
from typing import Any

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.workspace import Workspace

CONFIG_FILE = "config.yaml"
ID_MODES = ("sequential", "random")


def load(ws: Workspace) -> dict[str, Any]:
    path = os.path.join(ws.root_dir, ".orbit", CONFIG_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}
    from orbit_learnings.store.yamlio import YamlSyntaxError, safe_load

    try:
        data = safe_load(text)
    except YamlSyntaxError as exc:
        raise OrbitError(f".orbit/{CONFIG_FILE}:{exc.line}: {exc.message}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise OrbitError(f".orbit/{CONFIG_FILE}:1: expected a mapping of settings")
    return data


def id_mode(ws: Workspace) -> str:
    mode = load(ws).get("ids", "sequential")
    if mode not in ID_MODES:
        raise OrbitError(
            f".orbit/{CONFIG_FILE}: ids must be one of {', '.join(ID_MODES)}, got {mode!r}"
        )
    return str(mode)
