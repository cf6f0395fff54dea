"""Global options shared by every command (set by the app callback)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from orbit_learnings.workspace import Workspace, find_workspace


@dataclass
class GlobalState:
    root: str | None = None
    debug: bool = bool(os.environ.get("ORBIT_DEBUG"))

    def workspace(self) -> Workspace:
        return find_workspace(self.root)


STATE = GlobalState()
