"""Timestamps in the one form the store writes and reports: ISO 8601 UTC with `Z`."""

from __future__ import annotations

from datetime import UTC, datetime

FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def format_ts(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime(FORMAT)


def now_iso() -> str:
    return format_ts(now())


def parse_ts(value: object) -> datetime:
    """Accept a datetime (as YAML parsers return) or an ISO 8601 string.

    Raises ValueError for anything else, so validators can report it.
    """
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        parsed = datetime.fromisoformat(text.replace(" ", "T", 1))
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise ValueError(f"not a timestamp: {value!r}")


def normalise_ts(value: object) -> str:
    """Canonical `Z` string for any accepted timestamp form."""
    return format_ts(parse_ts(value))
