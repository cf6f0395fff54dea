"""Progress on a terminal's stderr: one line rewritten in place, only for work that has
already taken a second, and never in a pipe."""

from __future__ import annotations

import sys
import time

DELAY_SECONDS = 1.0
EVERY_SECONDS = 0.2


class TerminalProgress:
    def __init__(self) -> None:
        self.started: dict[str, float] = {}
        self.shown = 0.0

    def __call__(self, label: str, done: int, total: int) -> None:
        now = time.monotonic()
        started = self.started.setdefault(label, now)
        finished = done >= total
        if now - started < DELAY_SECONDS:
            if finished:
                self.started.pop(label, None)
            return
        if finished or now - self.shown >= EVERY_SECONDS:
            self.shown = now
            end = "\n" if finished else ""
            sys.stderr.write(f"\rorbit: {label} {done}/{total}{end}")
            sys.stderr.flush()
        if finished:
            self.started.pop(label, None)


def install_if_terminal() -> None:
    """Report progress when stderr is a terminal; stay silent otherwise."""
    if sys.stderr.isatty():
        from orbit_learnings.core.progress import set_reporter

        set_reporter(TerminalProgress())
