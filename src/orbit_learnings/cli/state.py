"""Global options shared by every command (set by the app callback)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from orbit_learnings.store.workspace import Workspace, find_workspace


@dataclass
class GlobalState:
    root: str | None = None
    debug: bool = bool(os.environ.get("ORBIT_DEBUG"))

    def workspace(self) -> Workspace:
        return find_workspace(self.root)

    def workspace_for(self, learning_id: str) -> Workspace:
        """The store an ID lives in: `U-` IDs are in the personal store."""
        from orbit_learnings.store.levels import for_id

        return for_id(self.workspace(), learning_id.strip())


STATE = GlobalState()
