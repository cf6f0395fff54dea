"""Learning IDs: the L-/U- prefixes, sequential and random forms, and IDs inside prose."""

from __future__ import annotations

import re

import pytest

from orbit_learnings.core import ids


@pytest.mark.parametrize(
    "good", ["L-0001", "L-12345", "U-0001", "L-7KQ2M9XD", "U-ABCDEFGH", "L-0000ABCD"]
)
def test_valid_ids(good: str) -> None:
    assert ids.is_learning_id(good)


@pytest.mark.parametrize(
    "bad",
    [
        "L-001",  # sequential needs four digits
        "X-0001",  # unknown level prefix
        "l-0001",
        "L-12345678X ",
        "L-7KQ2M9X",  # random needs eight characters
        "L-7kq2m9xd",  # random is upper case
        "L_0001",
        " L-0001",
    ],
)
def test_invalid_ids(bad: str) -> None:
    assert not ids.is_learning_id(bad)


def test_an_all_digit_body_is_sequential_never_random() -> None:
    """Random names carry a letter so they can never be mistaken for sequential ones."""
    assert ids.SEQUENTIAL_ID.match("L-12345678")
    assert not ids.SEQUENTIAL_ID.match("L-1234567A")
    assert ids.is_learning_id("L-1234567A")


def test_sequential_match_captures_the_number() -> None:
    match = ids.SEQUENTIAL_ID.match("U-0042")
    assert match is not None and match.group(1) == "0042"


def test_format_sequential_id_pads_to_four_digits_and_uses_the_prefix() -> None:
    assert ids.format_sequential_id(7) == "L-0007"
    assert ids.format_sequential_id(12345) == "L-12345"
    assert ids.format_sequential_id(3, "U") == "U-0003"


@pytest.mark.parametrize(
    ("learning_id", "level"),
    [("L-0001", "project"), ("U-0001", "user"), ("U-7KQ2M9XD", "user"), ("nonsense", "project")],
)
def test_level_of(learning_id: str, level: str) -> None:
    assert ids.level_of(learning_id) == level


def test_levels_and_prefixes_agree() -> None:
    assert ids.LEVEL_OF_PREFIX == {"L": "project", "U": "user", "O": "org"}
    assert ids.LEVEL_CHOICES == ("project", "user", "org", "all")
    assert ids.STATUS_CHOICES == ("active", "proposed", "superseded", "archived", "all")


def test_id_in_text_finds_ids_inside_prose() -> None:
    text = "LEARNING_HELPFUL: U-0001, and L-7KQ2M9XD. (see L-0042)"
    assert re.findall(ids.ID_IN_TEXT, text) == ["U-0001", "L-7KQ2M9XD", "L-0042"]


def test_id_in_text_needs_a_word_boundary_after_the_id() -> None:
    assert re.findall(ids.ID_IN_TEXT, "L-0001x L-0002_draft L-001") == []


def test_random_alphabet_is_crockford_base32() -> None:
    assert len(ids.RANDOM_ALPHABET) == 32
    assert not set("ILOU") & set(ids.RANDOM_ALPHABET)
    assert ids.is_learning_id("L-" + ids.RANDOM_ALPHABET[-ids.RANDOM_LENGTH :])


def test_a_trailing_newline_is_not_part_of_an_id() -> None:
    """`$` matches before a final newline; `supersedes: "L-0002\\n"` must not validate."""
    assert not ids.is_learning_id("L-0001\n")
    assert not ids.SEQUENTIAL_ID.match("L-0001\n")


def test_an_id_inside_text_starts_at_a_word_boundary() -> None:
    import re

    assert re.findall(ids.ID_IN_TEXT, "HTML-0001 and (L-0002)") == ["L-0002"]


def test_a_declared_org_prefix_is_an_id_only_where_it_is_declared() -> None:
    """`ACME-0001` is an ID in a repository that declares or reads `ACME`, nowhere else;
    capitals in prose (`RFC-2119`) never are, and the lookup runs only for such IDs."""
    asked: list[int] = []

    def lookup() -> list[str]:
        asked.append(1)
        return ["ACME", "L", "../x"]  # only valid, new prefixes count

    try:
        ids.declare_source(lambda: [])
        assert not ids.is_learning_id("ACME-0001")
        ids.declare_source(lookup)
        assert ids.is_learning_id("L-0001") and ids.level_of("O-0001") == "org" and not asked
        assert ids.is_learning_id("ACME-0001") and ids.level_of("ACME-0001") == "org"
        assert ids.declared_prefixes() == ("ACME",) and len(asked) == 1
        assert not ids.is_learning_id("RFC-2119") and ids.level_of("RFC-2119") == "project"
        assert ids.sequential_number("ACME-0042", "ACME") == 42
        assert ids.sequential_number("ACME-0042", "O") is None
        # typed in lower case, an ID still names its level, so the did-you-mean finds it
        assert ids.level_of("acme-1") == "org" and ids.level_of("u-3") == "user"
    finally:
        ids.declare_source(lambda: [])


@pytest.mark.parametrize(
    ("value", "ok"),
    [("O", True), ("ACME", True), ("X", True), ("L", False), ("U", False), ("ACMEX", False),
     ("acme", False), ("A1", False), ("É", False), ("", False), (None, False), (["O"], False)],
)  # fmt: skip
def test_prefix_problem(value: object, ok: bool) -> None:
    assert (ids.prefix_problem(value) is None) is ok
