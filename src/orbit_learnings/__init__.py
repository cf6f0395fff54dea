"""orbit-learnings: reviewed, path-scoped project learnings kept in git.

Kept import-free on purpose: agent hooks import this package on every file an
agent touches, so anything heavy here would tax every step of every session.
"""

__version__ = "0.1.0"
