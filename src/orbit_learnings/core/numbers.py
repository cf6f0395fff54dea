"""What counts as a number where a person or a file writes one: one strict rule for the
CLI's lean path, environment caps and the dashboard's query parameters alike."""

from __future__ import annotations


def whole_number(text: str) -> int | None:
    """`text` as a non-negative integer in ASCII digits, else None. Stricter than `int()`,
    which takes signs, spaces, underscores and other scripts' digits ("١٢" is 12), and
    than `str.isdigit()`, which takes "²" and then `int()` fails on it."""
    return int(text) if text.isascii() and text.isdigit() else None
