"""The learning.yaml merge driver's three-way merge, field by field, on file texts."""

from __future__ import annotations

from orbit_learnings.curation.branches.fieldmerge import merge_learning, merge_list
from orbit_learnings.store.bundles import parse_learning
from orbit_learnings.store.yamlio import has_conflict_markers

BASE = """\
id: L-0001
schemaVersion: 1
status: active
created_at: 2026-05-09T18:00:00Z
updated_at: 2026-05-09T18:00:00Z
created_by: claude
scope:
  paths:
    - src/billing/**
  tags: [money]
summary: Amounts are integer cents
body: |
  Floats lose cents.
evidence:
  - kind: pr
    ref: '12'
supersedes: null
priority: 0
"""


def edit(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def test_edits_of_different_fields_merge_cleanly_and_keep_the_later_time() -> None:
    ours = edit(
        BASE,
        ("updated_at: 2026-05-09T18:00:00Z", "updated_at: 2026-06-01T10:00:00Z"),
        ("summary: Amounts are integer cents", "summary: Money amounts are integer cents"),
    )
    theirs = edit(
        BASE,
        ("updated_at: 2026-05-09T18:00:00Z", "updated_at: 2026-06-02T09:00:00Z"),
        ("priority: 0", "priority: 2"),
        ("  Floats lose cents.\n", "  Floats lose cents.\n  Use Decimal at the edges.\n"),
    )
    merged = merge_learning(BASE, ours, theirs)
    assert merged.clean
    learning = parse_learning(merged.text, "L-0001", "learning.yaml")
    assert learning.summary == "Money amounts are integer cents"
    assert learning.priority == 2 and "Use Decimal" in learning.body
    assert learning.updated_at == "2026-06-02T09:00:00Z"


def test_lists_keep_what_either_side_added_and_drop_what_either_removed() -> None:
    ours = edit(BASE, ("  tags: [money]", "  tags: [money, payments]"))
    theirs = edit(
        BASE,
        ("    - src/billing/**\n", "    - src/invoices/**\n"),
        ("  tags: [money]", "  tags: [money, tax]"),
        ("    ref: '12'\n", "    ref: '12'\n  - kind: issue\n    ref: '40'\n"),
    )
    merged = merge_learning(BASE, ours, theirs)
    assert merged.clean, merged.text
    learning = parse_learning(merged.text, "L-0001", "learning.yaml")
    assert learning.tags == ("money", "payments", "tax")
    assert learning.paths == ("src/invoices/**",)
    assert [e.ref for e in learning.evidence] == ["12", "40"]


def test_one_field_changed_differently_is_the_only_conflict() -> None:
    ours = edit(
        BASE,
        ("summary: Amounts are integer cents", "summary: Ours"),
        ("priority: 0", "priority: 1"),
    )
    theirs = edit(BASE, ("summary: Amounts are integer cents", "summary: Theirs"))
    merged = merge_learning(BASE, ours, theirs)
    assert merged.conflicts == ["summary"] and not merged.whole
    assert has_conflict_markers(merged.text)
    lines = merged.text.splitlines()
    start = lines.index("<<<<<<< ours (orbit: summary changed on both branches)")
    assert lines[start + 1 : start + 5] == [
        "summary: Ours",
        "=======",
        "summary: Theirs",
        ">>>>>>> theirs",
    ]
    assert "priority: 1" in lines  # the clean part of the merge is kept


def test_an_indented_copy_of_a_key_in_the_body_is_not_mistaken_for_it() -> None:
    base = edit(BASE, ("  Floats lose cents.\n", "  Floats lose cents.\n  priority: 0\n"))
    ours = edit(base, ("\npriority: 0", "\npriority: 1"))
    theirs = edit(base, ("\npriority: 0", "\npriority: 2"))
    merged = merge_learning(base, ours, theirs)
    assert merged.conflicts == ["priority"]
    assert "  priority: 0\n" in merged.text.split("<<<<<<<")[0]  # the body is untouched


def test_two_different_learnings_under_one_id_stay_one_whole_conflict() -> None:
    ours = edit(BASE, ("created_at: 2026-05-09T18:00:00Z", "created_at: 2026-07-01T00:00:00Z"))
    theirs = edit(BASE, ("created_at: 2026-05-09T18:00:00Z", "created_at: 2026-07-02T00:00:00Z"))
    merged = merge_learning("", ours, theirs)
    assert merged.whole and merged.text.startswith("<<<<<<< ours\n")


def test_merge_list_is_a_three_way_union() -> None:
    assert merge_list(["a", "b"], ["a", "b", "c"], ["b", "d"]) == ["b", "c", "d"]
    assert merge_list([], ["x"], ["x"]) == ["x"]
