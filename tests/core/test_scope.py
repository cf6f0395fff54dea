"""Scope: an immutable value of path globs and tags."""

from __future__ import annotations

import pytest

from orbit_learnings.core.scope import EMPTY, KINDS, Scope


def test_scope_is_immutable() -> None:
    scope = Scope(["src/**"], ["db"])
    with pytest.raises(AttributeError, match="immutable"):
        scope.paths = ("other",)
    with pytest.raises(AttributeError):
        scope.colour = "red"
    assert scope.paths == ("src/**",)


def test_iterables_are_frozen_into_tuples() -> None:
    paths = ["a"]
    scope = Scope(paths, iter(["t"]))
    paths.append("b")
    assert (scope.paths, scope.tags) == (("a",), ("t",))


def test_equality_and_hash_are_by_value() -> None:
    assert Scope(["a"], ["t"]) == Scope(("a",), ("t",))
    assert hash(Scope(["a"], ["t"])) == hash(Scope(("a",), ("t",)))
    assert Scope(["a"]) != Scope(tags=["a"])
    assert Scope(["a", "b"]) != Scope(["b", "a"])
    assert Scope(["a"]) != ("a",)
    assert len({Scope(["a"]), Scope(["a"]), Scope(["b"])}) == 2


def test_truthiness_means_any_entry_of_any_kind() -> None:
    assert not EMPTY and not Scope()
    assert Scope(["a"]) and Scope(tags=["t"])


def test_constructor_keeps_what_it_was_given() -> None:
    """Lookups keep blanks, so a blank `--path` can still be refused."""
    scope = Scope([" a ", "", "a"], ["t", "t"])
    assert scope.paths == (" a ", "", "a")
    assert scope.tags == ("t", "t")


def test_cleaned_strips_drops_blanks_and_repeats_keeping_the_first_order() -> None:
    scope = Scope([" b/** ", "", "a", "b/**", "  "], ["x", " y", "x "])
    assert scope.cleaned() == Scope(["b/**", "a"], ["x", "y"])
    assert not Scope(["  "], [""]).cleaned()


def test_merged_keeps_this_scopes_entries_first_without_cleaning() -> None:
    merged = Scope(["a"], ["t"]).merged(Scope(["b", "a"], ["u"]))
    assert merged == Scope(["a", "b", "a"], ["t", "u"])


def test_to_dict_and_repr() -> None:
    scope = Scope(["a"], ["t"])
    assert scope.to_dict() == {"paths": ["a"], "tags": ["t"]}
    assert list(scope.to_dict()) == list(KINDS)
    assert repr(scope) == "Scope(paths=['a'], tags=['t'])"
