"""The error family: exit codes adapters rely on, and Problems located as `file:line`."""

from __future__ import annotations

import pytest

from orbit_learnings.core import errors
from orbit_learnings.core.errors import Problem, ValidationFailed


@pytest.mark.parametrize(
    ("cls", "code"),
    [
        (errors.OrbitError, 1),
        (errors.UsageError, 2),
        (errors.WorkspaceNotFound, 1),
        (errors.NotFound, 1),
        (errors.LegacyLayoutError, 1),
    ],
)
def test_each_error_carries_its_exit_code(cls: type[errors.OrbitError], code: int) -> None:
    error = cls("boom")
    assert isinstance(error, errors.OrbitError)
    assert (error.exit_code, error.message, str(error)) == (code, "boom", "boom")


def test_duplicate_suspected_carries_the_similar_learnings() -> None:
    similar: list[dict[str, object]] = [{"id": "L-0001", "summary": "same"}]

    error = errors.DuplicateSuspected("looks like L-0001", similar)
    assert error.similar == similar
    assert error.exit_code == 1


def test_legacy_layout_wording_names_the_file_count_and_the_fix() -> None:
    error = errors.LegacyLayoutError.for_files(".orbit/learnings/L-0001.yaml", 3)
    assert isinstance(error, errors.LegacyLayoutError)
    assert error.message == (
        ".orbit/learnings/L-0001.yaml uses the legacy flat layout (3 file(s));"
        " run `orbit learning migrate-layout` to move them into bundles"
    )


def test_problem_renders_as_file_colon_line() -> None:
    problem = Problem("a.yaml", 7, "bad", "L-0001", "yaml")
    assert str(problem) == "a.yaml:7: bad"
    assert problem.to_dict() == {
        "file": "a.yaml",
        "line": 7,
        "id": "L-0001",
        "kind": "yaml",
        "message": "bad",
    }
    assert repr(problem) == "Problem('a.yaml', 7, 'bad', 'L-0001', 'yaml')"


def test_problems_compare_and_hash_by_value() -> None:
    a = Problem("a.yaml", 1, "bad")
    assert a == Problem("a.yaml", 1, "bad", None, "schema")
    assert a != Problem("a.yaml", 2, "bad")
    assert a != Problem("a.yaml", 1, "bad", kind="votes")
    assert a != "a.yaml:1: bad"
    assert len({a, Problem("a.yaml", 1, "bad"), Problem("b.yaml", 1, "bad")}) == 2


def test_problem_has_no_instance_dict() -> None:
    """Slots: built for every row on the hot path."""
    with pytest.raises(AttributeError):
        Problem("a", 1, "m").extra = 1  # type: ignore[attr-defined]  # the slots refuse it


def test_validation_failed_leads_with_the_first_problem_and_counts_the_rest() -> None:
    problems = [Problem("a.yaml", 1, "first"), Problem("b.yaml", 2, "second")]
    error = ValidationFailed(problems)
    assert str(error) == "a.yaml:1: first (and 1 more)"
    assert error.problems == problems
    assert str(ValidationFailed(problems[:1])) == "a.yaml:1: first"
    assert str(ValidationFailed([])) == "validation failed"
