"""Compiling scope globs once, at write time: refusals, regex, anchor and SQL prefilter."""

from __future__ import annotations

import re
import sqlite3

import pytest

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.core.globs import CompiledGlob, InvalidGlob, compile_glob, sql_prefilter


def test_compiled_glob_matches_like_gitignore() -> None:
    compiled = compile_glob("  src/**/*.py  ")
    assert compiled.glob == "src/**/*.py"  # stripped
    assert re.search(compiled.regex, "src/a/b/x.py")
    assert re.search(compiled.regex, "src/x.py")
    assert not re.search(compiled.regex, "lib/src/x.py")


def test_a_glob_without_an_inner_slash_floats_to_any_depth() -> None:
    compiled = compile_glob("*.rs")
    assert re.search(compiled.regex, "deep/down/lib.rs")
    assert compiled.anchor == ""


def test_invalid_glob_is_a_user_facing_orbit_error() -> None:
    """The CLI only turns OrbitErrors into clean one-line exits."""
    with pytest.raises(OrbitError):
        compile_glob("!src")


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("src\\", "trailing backslash"),
        ("../src/**", "'.' and '..' segments"),
        ("src/./x", "'.' and '..' segments"),
        ("./x", "'.' and '..' segments"),
        ("src/[ab", "unclosed '['"),
        ("#comment", "comment or negation"),
        ("src/[z-a]*", "bad character range"),
        ("\\/", "names no path"),  # an escaped slash is a slash (as in git); alone it names nothing
    ],
)
def test_globs_that_can_never_match_say_why(bad: str, reason: str) -> None:
    with pytest.raises(InvalidGlob, match=re.escape(reason)):
        compile_glob(bad)


@pytest.mark.parametrize("good", ["a\\\\", "src/\\[ab", "[]]", "a/[!]]b", "..foo", "a/.b"])
def test_escapes_and_dotted_names_are_not_refused(good: str) -> None:
    assert isinstance(compile_glob(good), CompiledGlob)


@pytest.mark.parametrize(
    ("glob", "anchor"),
    [
        ("crates/engine/**/perf*.rs", "crates/engine/"),
        ("/docs/", ""),
        ("/docs/api/*.md", "docs/api/"),
        ("src/**", "src/"),
        ("a/b[cd]/x", "a/"),
        ("a/b\\*/x", "a/"),
        ("**/x.py", ""),
    ],
)
def test_anchor_is_the_literal_leading_folders(glob: str, anchor: str) -> None:
    assert compile_glob(glob).anchor == anchor


def test_sql_prefilter_widens_and_never_narrows() -> None:
    pattern = sql_prefilter("src/**/x.py")
    db = sqlite3.connect(":memory:")
    hits = {
        path: db.execute("SELECT ? GLOB ?", (path, pattern)).fetchone()[0]
        for path in ("src/x.py", "src/a/b/x.py", "src/x.py/inner", "lib/x.py")
    }
    assert hits == {"src/x.py": 1, "src/a/b/x.py": 1, "src/x.py/inner": 1, "lib/x.py": 0}


def test_compiled_glob_carries_its_prefilter() -> None:
    assert compile_glob("docs/*.md").sql_glob == sql_prefilter("docs/*.md") == "docs/*.md*"


@pytest.mark.parametrize("glob", ["a\\", "a\\\\\\", "src/\\\\\\"])
def test_an_odd_run_of_trailing_backslashes_is_a_clean_refusal(glob: str) -> None:
    """Three trailing backslashes once slipped past the check and crashed pathspec (exit 3)."""
    with pytest.raises(InvalidGlob, match="trailing backslash"):
        compile_glob(glob)
