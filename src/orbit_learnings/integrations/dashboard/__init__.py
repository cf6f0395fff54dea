"""The Knowledge > Learnings page and its JSON API (`orbit dashboard`, Starlette).

Registered for `orbit doctor`; the app is `app.py`, imported only when it serves.
"""

from __future__ import annotations

from orbit_learnings.integrations.base import Check, Integration

TYPE_CHECKING = False
if TYPE_CHECKING:
    from orbit_learnings.store.workspace import Workspace


class Dashboard(Integration):
    name = "dashboard"
    summary = "the Knowledge > Learnings page (`orbit dashboard`)"

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        import importlib.util

        missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
        if missing:
            return [Check("dashboard", "fail", f"missing {', '.join(missing)}; reinstall orbit")]
        return [Check("dashboard", "ok", "`orbit dashboard` can serve (Starlette, uvicorn)")]


INTEGRATION = Dashboard()
