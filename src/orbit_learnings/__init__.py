"""orbit-learnings: reviewed, path-scoped project learnings kept in git.

Kept (nearly) import-free on purpose: agent hooks import this package on every file an
agent touches, so anything heavy here would tax every step of every session.
"""

from orbit_learnings.core.version import VERSION as __version__

__all__ = ["__version__", "search_learnings"]


def __getattr__(name: str) -> object:
    """Lazy access to `search_learnings`, so `import orbit_learnings` stays free."""
    if name == "search_learnings":
        from orbit_learnings.api import search_learnings

        return search_learnings
    raise AttributeError(f"module 'orbit_learnings' has no attribute {name!r}")
