"""One strict rule for a written number, shared by the lean CLI, env caps and the dashboard."""

from __future__ import annotations

import pytest

from orbit_learnings.core.numbers import whole_number


@pytest.mark.parametrize("text", ["", "²", "١٢", "+1", "-1", " 1", "1 ", "1_000", "1.0", "0x1"])
def test_anything_but_ascii_digits_is_not_a_number(text: str) -> None:
    assert whole_number(text) is None


@pytest.mark.parametrize(("text", "number"), [("0", 0), ("7", 7), ("012", 12), ("10000", 10000)])
def test_ascii_digits_are_their_number(text: str, number: int) -> None:
    assert whole_number(text) == number
