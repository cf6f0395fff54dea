"""YAML: a safe fast loader with line numbers, and edits that touch only changed keys."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from orbit_learnings.store import yamlio
from orbit_learnings.store.yamlio import SurgicalEditor, YamlSyntaxError

HAND_WRITTEN = """\
# Reviewed in PR #42 -- keep this comment
id: L-0001   # trailing comment
created_at: 2026-05-09T18:00:00Z
scope:
    paths:
        - "src/**"   # the hot module
    tags: [db, perf]
summary: Old words

# a comment between keys
evidence:
    - kind: commit
      ref: abc
"""


def test_safe_load_returns_plain_data_with_aware_datetimes() -> None:
    data = yamlio.safe_load("a: 1\nt: 2026-05-09T18:00:00Z\nn: null\nl: [x]\n")
    assert data["a"] == 1 and data["n"] is None and data["l"] == ["x"]
    assert data["t"].astimezone(UTC) == datetime(2026, 5, 9, 18, tzinfo=UTC)


def test_safe_load_reports_the_line_of_a_syntax_error() -> None:
    with pytest.raises(YamlSyntaxError) as caught:
        yamlio.safe_load("a: 1\nb: 2\nc: [unclosed\n")
    assert caught.value.line == 4
    assert caught.value.message.startswith("invalid YAML: ")


def test_safe_load_refuses_python_tags_instead_of_running_them() -> None:
    with pytest.raises(YamlSyntaxError, match="could not determine a constructor"):
        yamlio.safe_load("a: !!python/object/apply:os.system ['true']\n")


def test_a_well_formed_scalar_that_is_no_date_is_a_clean_refusal() -> None:
    """Found by the fuzz test: `2026-13-45` reached the caller as a bare ValueError."""
    with pytest.raises(YamlSyntaxError, match=r"invalid value: month must be in 1\.\.12"):
        yamlio.safe_load("id: 2026-13-45\n")


@pytest.mark.parametrize(
    ("key_path", "line"),
    [
        ((), 1),
        (("id",), 2),
        (("scope", "paths"), 5),
        (("scope", "paths", 0), 6),
        (("scope", "tags", 1), 7),
        (("evidence", 0, "ref"), 13),
        (("scope", "missing"), 4),  # the nearest known ancestor
        (("summary", "deeper"), 8),
    ],
)
def test_line_of_a_key_path(key_path: tuple[str | int, ...], line: int) -> None:
    assert yamlio.line_of(HAND_WRITTEN, key_path) == line


def test_line_of_unparsable_text_is_line_one() -> None:
    assert yamlio.line_of("a: [\n", ("a",)) == 1


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    return [(b, a) for b, a in zip(before.splitlines(), after.splitlines(), strict=True) if b != a]


def test_replacing_a_key_keeps_every_other_byte() -> None:
    editor = SurgicalEditor(HAND_WRITTEN)
    editor.set(("summary",), "New words")
    assert changed_lines(HAND_WRITTEN, editor.text) == [
        ("summary: Old words", "summary: New words")
    ]


def test_replacing_a_nested_key_keeps_its_siblings_and_comments() -> None:
    editor = SurgicalEditor(HAND_WRITTEN)
    editor.set(("scope", "tags"), ["db"])
    assert "    tags:\n      - db\n" in editor.text
    assert '        - "src/**"   # the hot module\n' in editor.text
    assert editor.text.startswith(
        "# Reviewed in PR #42 -- keep this comment\nid: L-0001   # trailing comment\n"
    )
    assert "\n# a comment between keys\nevidence:" in editor.text


def test_a_new_key_goes_after_the_named_sibling_or_at_the_end() -> None:
    editor = SurgicalEditor(HAND_WRITTEN)
    editor.set(("priority",), 3, after="created_at")
    editor.set(("supersedes",), None)
    lines = editor.text.splitlines()
    assert lines[lines.index("created_at: 2026-05-09T18:00:00Z") + 1] == "priority: 3"
    assert lines[-1] == "supersedes: null"
    assert yamlio.safe_load(editor.text)["priority"] == 3


def test_a_key_in_a_flow_mapping_rewrites_that_mapping_only() -> None:
    editor = SurgicalEditor("id: L-0001  # keep\nscope: {paths: [a], tags: []}\nsummary: s")
    editor.set(("scope", "tags"), ["t"])
    assert (
        editor.text
        == "id: L-0001  # keep\nscope:\n  paths:\n    - a\n  tags:\n    - t\nsummary: s\n"
    )


def test_timestamps_are_written_unquoted() -> None:
    editor = SurgicalEditor(HAND_WRITTEN)
    editor.set(("created_at",), yamlio.timestamp_value(datetime(2026, 6, 1, 12, tzinfo=UTC)))
    assert "\ncreated_at: 2026-06-01T12:00:00Z\n" in editor.text


def test_the_editor_refuses_invalid_yaml_with_its_line() -> None:
    with pytest.raises(YamlSyntaxError) as caught:
        SurgicalEditor("a: 1\nb: [\n")
    assert caught.value.line == 3


def test_the_editor_refuses_a_document_that_is_not_a_mapping() -> None:
    with pytest.raises(ValueError, match="cannot edit this document surgically"):
        SurgicalEditor("just text\n").set(("a",), 1)


def test_dump_new_writes_the_house_style() -> None:
    text = yamlio.dump_new(
        {
            "id": "L-0001",
            "created_at": yamlio.timestamp_value("2026-05-09T18:00:00Z"),
            "scope": {"paths": ["src/**"], "tags": []},
            "supersedes": None,
        }
    )
    assert text == (
        "id: L-0001\n"
        "created_at: 2026-05-09T18:00:00Z\n"
        "scope:\n"
        "  paths:\n"
        "    - src/**\n"
        "  tags: []\n"
        "supersedes: null\n"
    )
    assert yamlio.safe_load(text)["scope"] == {"paths": ["src/**"], "tags": []}


def test_timestamp_value_formats_datetimes_and_keeps_strings() -> None:
    assert yamlio.timestamp_value(datetime(2026, 5, 9, 18)) == "2026-05-09T18:00:00Z"
    assert isinstance(yamlio.timestamp_value("2026-05-09T18:00:00Z"), yamlio.TimestampText)
