"""Console-script target for `orbit`.

Kept tiny so that a future lean dispatch for the hot commands can answer
before Typer and rich are ever imported.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from orbit_learnings.cli.app import run

    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
