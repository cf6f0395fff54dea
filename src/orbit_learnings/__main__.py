"""Allow ``python -m orbit_learnings``."""

from orbit_learnings.entry import console

console()
