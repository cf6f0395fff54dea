"""The one small interface every agent and surface implements, and what it reports.

An integration has a name (its key in the registry and its `orbit hook NAME`), and
may offer any of: a hook entry point an agent runs on every tool call, install and
uninstall into the files that agent reads, and checks for `orbit doctor`. The CLI,
`doctor` and the lean dispatch in `entry.py` only ever talk to this interface.

Plain classes, no dataclasses or typing at run time: a hook call imports this module
on every file an agent touches.
"""

from __future__ import annotations

from orbit_learnings.core.errors import UsageError

# `doctor` runs installed entries for real with this set: answer as usual, record nothing
# (no "shown" marks, no usage log), for the agent hooks and the git hooks alike.
DRY_RUN_ENV = "ORBIT_HOOK_DRY_RUN"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from orbit_learnings.store.workspace import Workspace


class SetupReport:
    """What an install or uninstall changed, what it found already as wanted, and what
    will not work even so (said, never silent)."""

    __slots__ = ("changed", "unchanged", "warnings")

    def __init__(self) -> None:
        self.changed: list[str] = []
        self.unchanged: list[str] = []
        self.warnings: list[str] = []


class Check:
    """One line of `orbit doctor`: ok, warn, fail or skip, in words a newcomer reads."""

    __slots__ = ("detail", "message", "name", "status")

    STATUSES = ("ok", "warn", "fail", "skip")

    def __init__(self, name: str, status: str, message: str, detail: str = "") -> None:
        assert status in self.STATUSES, status
        self.name = name
        self.status = status
        self.message = message
        self.detail = detail

    def to_dict(self) -> dict[str, str]:
        return {
            "name": self.name,
            "status": self.status,
            "message": self.message,
            "detail": self.detail,
        }


class Integration:
    """Override what the integration offers; `has_hook` and `installs` say which."""

    name = ""
    summary = ""  # one line, shown by `orbit hooks --help` and `orbit doctor`
    hook_help = ""  # the `orbit hook NAME --help` text, flags included
    has_hook = False
    installs = False

    def hook(self, stdin_text: str, *, root: str | None, flags: Sequence[str]) -> tuple[str, str]:
        """(stdout, stderr) for one hook call. Never raises: a hook never blocks its agent."""
        raise UsageError(f"{self.name} has no hook")

    def install(
        self, ws: Workspace, *, command: str | None = None, prompt: bool = True
    ) -> SetupReport:
        """`prompt=False`: leave out the entry that answers the user's prompt, if any."""
        raise UsageError(f"{self.name} has nothing to install")

    def uninstall(self, ws: Workspace, *, command: str | None = None) -> SetupReport:
        raise UsageError(f"{self.name} has nothing to uninstall")

    def doctor(self, ws: Workspace, *, sample_path: str | None = None) -> list[Check]:
        return []
