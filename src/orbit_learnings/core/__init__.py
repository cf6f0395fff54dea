"""The pure core: values, rules and text algorithms. No I/O, no terminal, no protocol.

Two facts about the package itself live here, each defined once:

- `VERSION` is the release: the package metadata (pyproject) reads it here.
- `SAFE_PATH_FLAG` is how orbit starts itself in a child process (git hooks, the merge
  driver, the dashboard's staleness worker). `python -m` puts the current folder first on
  `sys.path`, those children run with a repository as the current folder, and a cloned
  repository can commit an `orbit_learnings/` package: `-P` (Python 3.11+, the same as
  `PYTHONSAFEPATH`) leaves the current folder off, so the child imports the installed
  package and never code the repository carries. `-I` would too, but it also drops user
  site-packages, where `pip install --user` puts orbit.
"""

VERSION = "0.1.0"
SAFE_PATH_FLAG = "-P"
