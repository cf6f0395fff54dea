"""Scope matching: concrete paths, folder/glob containment, and agreement with pathspec."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbit_learnings.core import matching
from orbit_learnings.core.globs import InvalidGlob, compile_glob

PERF = "crates/orbit-engine/**/perf*.rs"


def matches_query(glob: str, query: str, is_dir: bool = False) -> bool:
    q = matching.make_query(query, is_directory=is_dir)
    if q.is_pattern:
        return matching.globs_overlap(glob, q.segments)
    return matching.path_matches(compile_glob(glob).regex, q.text)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("crates/orbit-engine/**", True),
        ("crates/", True),
        ("benchmarks/**", False),
        ("crates/orbit-engine/src/lib.rs", False),
        ("crates/orbit-engine/src/perf_stats.rs", True),
        ("crates/orbit-engine/perf.rs", True),
        ("crates/other/src/perf.rs", False),
        ("", True),
    ],
)
def test_issue_examples_for_the_perf_glob(query: str, expected: bool) -> None:
    assert matches_query(PERF, query) is expected


@pytest.mark.parametrize(
    ("glob", "query", "expected"),
    [
        ("src/**", "src/app/**", True),
        ("**/*.rs", "crates/", True),
        ("**/*.rs", "docs/", True),
        ("*.py", "src/deep/x.py", True),
        ("*.py", "src/deep/x.rs", False),
        ("src/app", "src/app/models/user.py", True),
        ("src/app/", "src/app/models/user.py", True),
        ("docs/**/*.md", "docs/*.md", True),
        ("docs/**/*.md", "docs/*.txt", False),
        ("web/src/**/*.test.tsx", "web/src/components/", True),
        ("web/src/**/*.test.tsx", "web/lib/", False),
        ("a/[bc]/x", "a/c/x", True),
        ("a/[bc]/x", "a/d/x", False),
        ("a/[!b]/x", "a/[bc]/x", True),
        ("a/?/x", "a/bb/x", False),
        ("services/*/models/**", "services/api/models/", True),
        ("services/*/models/**", "services/api/views/", False),
    ],
)
def test_glob_containment(glob: str, query: str, expected: bool) -> None:
    assert matches_query(glob, query) is expected


def test_folder_named_without_slash_is_a_folder_query() -> None:
    assert matches_query(PERF, "crates", is_dir=True)
    assert not matches_query(PERF, "crates", is_dir=False)


@pytest.mark.parametrize("bad", ["", "   ", "!negated", "# comment"])
def test_globs_that_can_never_match_are_refused(bad: str) -> None:
    with pytest.raises(InvalidGlob):
        compile_glob(bad)


def test_anchor_is_the_literal_leading_folder() -> None:
    assert compile_glob(PERF).anchor == "crates/orbit-engine/"
    assert compile_glob("*.py").anchor == ""
    assert compile_glob("src/*/x.py").anchor == "src/"
    assert compile_glob("/setup.py").anchor == ""


segment = st.sampled_from(["a", "b", "src", "x.py", "y.rs", "perf_a.rs", "ab"])
pattern_segment = st.sampled_from(
    ["a", "b", "src", "*", "*.py", "perf*.rs", "?", "[ab]", "**", "a*"]
)


@settings(max_examples=400, deadline=None)
@given(
    glob_parts=st.lists(pattern_segment, min_size=1, max_size=4),
    leading_slash=st.booleans(),
    trailing_slash=st.booleans(),
    path_parts=st.lists(segment, min_size=1, max_size=5),
)
def test_segment_model_agrees_with_pathspec(
    glob_parts: list[str], leading_slash: bool, trailing_slash: bool, path_parts: list[str]
) -> None:
    """Containment of a concrete path must equal pathspec's own regex verdict."""
    glob = ("/" if leading_slash else "") + "/".join(glob_parts) + ("/" if trailing_slash else "")
    path = "/".join(path_parts)
    regex_says = re.search(compile_glob(glob).regex, path) is not None
    segments_say = matching._segments_overlap(
        matching.learning_glob_segments(glob), tuple(path_parts)
    )
    assert segments_say == regex_says, (glob, path)


@settings(max_examples=300, deadline=None)
@given(
    glob_parts=st.lists(pattern_segment, min_size=1, max_size=4),
    path_parts=st.lists(segment, min_size=1, max_size=5),
)
def test_anchor_never_hides_a_match(glob_parts: list[str], path_parts: list[str]) -> None:
    """The index only tests globs whose anchor is a prefix of the path: prove that is safe."""
    compiled = compile_glob("/".join(glob_parts))
    path = "/".join(path_parts)
    if re.search(compiled.regex, path):
        assert compiled.anchor in matching.anchor_candidates(path)


@settings(max_examples=400, deadline=None)
@given(
    glob_parts=st.lists(pattern_segment, min_size=1, max_size=4),
    leading_slash=st.booleans(),
    trailing_slash=st.booleans(),
    path_parts=st.lists(segment, min_size=1, max_size=5),
)
def test_sql_prefilter_never_drops_a_match(
    glob_parts: list[str], leading_slash: bool, trailing_slash: bool, path_parts: list[str]
) -> None:
    """The SQLite GLOB prefilter may let extra globs through, never lose a real match."""
    import sqlite3

    glob = ("/" if leading_slash else "") + "/".join(glob_parts) + ("/" if trailing_slash else "")
    compiled = compile_glob(glob)
    path = "/".join(path_parts)
    if re.search(compiled.regex, path):
        passed = (
            sqlite3.connect(":memory:")
            .execute("SELECT ? GLOB ?", (path, compiled.sql_glob))
            .fetchone()[0]
        )
        assert passed == 1, (glob, path, compiled.sql_glob)


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("*.py", "**.py*"),
        ("src/**/x.py", "src/*x.py*"),
        ("a/[!b]c", "a/[^b]c*"),
        ("/top", "top*"),
        ("a\\*b", "*a[*]b*"),
        ("**/a", "*a*"),
        ("a/**/b", "a/*b*"),
    ],
)
def test_sql_prefilter_shapes(glob: str, expected: str) -> None:
    from orbit_learnings.core.globs import sql_prefilter

    assert sql_prefilter(glob) == expected.replace("**", "*")


@pytest.mark.parametrize(
    ("raw", "is_dir", "text", "is_pattern", "segments"),
    [
        ("src/app.py", False, "src/app.py", False, ("src", "app.py")),
        ("src/", False, "src/", True, ("src", "*", "**")),
        ("src", True, "src/", True, ("src", "*", "**")),
        ("", False, "", True, ("*", "**")),
        ("src/**/**/x.py", False, "src/**/**/x.py", True, ("src", "**", "x.py")),
    ],
)
def test_make_query_classifies_files_folders_and_globs(
    raw: str, is_dir: bool, text: str, is_pattern: bool, segments: tuple[str, ...]
) -> None:
    query = matching.make_query(raw, is_directory=is_dir)
    assert (query.text, query.is_pattern, query.segments) == (text, is_pattern, segments)
    assert query.label == f"path:{text}"


@pytest.mark.parametrize(
    ("p", "q", "expected"),
    [
        ("*.py", "*.rs", False),
        ("a*", "*b", True),
        ("[ab]x", "[!a]x", True),
        ("[!ab]", "[!cd]", True),
        ("[a-c]", "d", False),
        ("[a-c]", "b", True),
        ("\\*", "*", True),
        ("\\*", "a", False),
        ("?", "ab", False),
        ("", "*", False),
    ],
)
def test_segment_patterns_overlap(p: str, q: str, expected: bool) -> None:
    assert matching.segment_patterns_overlap(p, q) is expected
    assert matching.segment_patterns_overlap(q, p) is expected


def test_anchor_candidates_are_every_literal_folder_prefix() -> None:
    assert matching.anchor_candidates("a/b/c.py") == ["", "a/", "a/b/"]
    assert matching.anchor_candidates("top.py") == [""]


@pytest.mark.parametrize(
    "glob",
    ["*a*a*b", "src/*-*-*.md", "*x*y*z*/**", "docs/**/*a*b*c.txt", "[ab]*c*d*e", "\\*a*b*c*"],
)
@pytest.mark.parametrize(
    "path",
    [
        "aab",
        "xaayb",
        "src/a-b-c.md",
        "src/a-b.md",
        "qxqyqz/deep/file",
        "docs/v1/xaxbxc.txt",
        "docs/abc.txt",
        "acde",
        "bxcxdxe",
        "*ab",
        "a*b",
        "nested/aab",
    ],
)
def test_heavy_globs_match_on_the_segment_model_exactly_as_the_regex_would(
    glob: str, path: str
) -> None:
    """Heavy globs skip `re` on hostile input; on short input both must agree."""
    from orbit_learnings.core.globs import compile_glob

    assert matching.is_heavy(glob)
    regex = compile_glob(glob).regex
    assert matching.path_matches(regex, path, glob) == matching.path_matches(regex, path)


def test_overlap_of_very_long_segments_needs_no_recursion_depth() -> None:
    """The segment model once recursed per character: a 1,000-character name hit
    RecursionError. The table it fills now has no depth to run out of."""
    heavy = compile_glob("*a*a*a*a*a*a*a*a*a*a*a*a*b")
    assert not matching.path_matches(heavy.regex, "a" * 5000, heavy.glob)
    assert matching.path_matches(heavy.regex, "a" * 5000 + "b", heavy.glob)
    assert matching.segment_patterns_overlap("*" + "a" * 3000, "a" * 3000 + "*")
