"""orbit-learnings: reviewed, path-scoped project learnings kept in git.

Kept import-free on purpose: agent hooks import this package on every file an
agent touches, so anything heavy here would tax every step of every session.
`__version__` and `inject_learnings` are resolved on first access.
"""

__all__ = ["__version__", "inject_learnings"]

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing is not free
if TYPE_CHECKING:  # what `__getattr__` resolves, as type checkers should see it
    from orbit_learnings.api import inject_learnings as inject_learnings
    from orbit_learnings.api import search_learnings as search_learnings

    __version__: str


def __getattr__(name: str) -> object:
    """Lazy access, so `import orbit_learnings` stays free."""
    if name == "__version__":
        from orbit_learnings.core import VERSION

        return VERSION
    if name in ("inject_learnings", "search_learnings"):  # the second: its old, misleading name
        from orbit_learnings import api

        return getattr(api, name)
    raise AttributeError(f"module 'orbit_learnings' has no attribute {name!r}")
