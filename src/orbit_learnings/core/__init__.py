"""The pure core: values, rules and text algorithms. No I/O, no terminal, no protocol.

`VERSION` is the release, defined once: the package metadata (pyproject) reads it here.
"""

VERSION = "0.1.0"
