"""Progress for work that can take seconds (a first index of a large store, `check --stale`).

The layers below the CLI only say how far they are; whoever runs them decides whether and
how to show it. The CLI installs a reporter that writes to a terminal's stderr and stays
silent in pipes and for anything that finishes within a second.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Reporter = Callable[[str, int, int], None]

_reporters: list[Reporter] = []


def set_reporter(reporter: Reporter | None) -> None:
    """Install (or, with None, remove) the one reporter progress goes to."""
    _reporters[:] = [reporter] if reporter is not None else []


def report(label: str, done: int, total: int) -> None:
    """`done` of `total` steps of `label`; a no-op unless someone listens."""
    for reporter in _reporters:
        reporter(label, done, total)
