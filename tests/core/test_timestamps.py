"""Timestamps: every accepted form comes back as ISO 8601 UTC with `Z`."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from orbit_learnings.core import timestamps as ts


def test_now_is_aware_utc_without_microseconds() -> None:
    moment = ts.now()
    assert moment.tzinfo is UTC and moment.microsecond == 0


def test_now_iso_is_in_the_canonical_form() -> None:
    text = ts.now_iso()
    assert datetime.strptime(text, ts.FORMAT) and text.endswith("Z") and len(text) == 20


def test_format_treats_naive_as_utc_and_converts_other_zones() -> None:
    assert ts.format_ts(datetime(2026, 5, 9, 18, 0)) == "2026-05-09T18:00:00Z"
    plus_two = timezone(timedelta(hours=2))
    assert ts.format_ts(datetime(2026, 5, 9, 18, 0, tzinfo=plus_two)) == "2026-05-09T16:00:00Z"


@pytest.mark.parametrize(
    "text",
    [
        "2026-05-09T18:00:00Z",
        "2026-05-09T18:00:00z",
        " 2026-05-09T18:00:00Z ",
        "2026-05-09 18:00:00Z",
        "2026-05-09T18:00:00",
        "2026-05-09T18:00:00+00:00",
        "2026-05-09T20:00:00+02:00",
        "2026-05-09T18:00:00.75Z",
    ],
)
def test_normalise_accepts_iso_forms(text: str) -> None:
    assert ts.normalise_ts(text) == "2026-05-09T18:00:00Z"


def test_parse_accepts_datetimes_as_yaml_returns_them() -> None:
    naive = datetime(2026, 5, 9, 18, 0)
    assert ts.parse_ts(naive) == naive.replace(tzinfo=UTC)
    aware = datetime(2026, 5, 9, 18, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert ts.parse_ts(aware) is aware


@pytest.mark.parametrize(
    "bad", ["yesterday", "", "2026-13-01T00:00:00Z", 1715277600, None, date(2026, 5, 9)]
)
def test_anything_else_is_a_value_error(bad: object) -> None:
    """Validators catch ValueError to report a bad field; nothing else may escape."""
    with pytest.raises(ValueError):
        ts.normalise_ts(bad)
