"""Staleness's file index: its pruning never hides a file the glob's regex would match.

`RepoFiles.candidates` may return too many files, never too few; the regex decides. The
cases are the ones the glob dialect is held to elsewhere: git's wildmatch vectors, the
generated tree with the globs teams write, and random globs on random trees.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbit_learnings.core.globs import InvalidGlob, compile_glob
from orbit_learnings.core.matching import path_matches
from orbit_learnings.curation.staleness import RepoFiles
from tests.core.test_git_agreement import TREE_GLOBS, VECTORS, creatable, generated_tree


def matching(glob: str, files: list[str]) -> tuple[str, set[str]] | None:
    """(regex, the files it matches by brute force); None for a glob orbit refuses."""
    try:
        compiled = compile_glob(glob)
    except InvalidGlob:
        return None
    return compiled.regex, {f for f in files if path_matches(compiled.regex, f, compiled.glob)}


def assert_agrees(glob: str, files: list[str]) -> None:
    found = matching(glob, files)
    if found is None:
        return
    regex, expected = found
    index = RepoFiles(files)
    assert expected <= set(index.candidates(compile_glob(glob).glob)), glob
    assert index.any_match(regex, compile_glob(glob).glob) == bool(expected), glob


def test_git_wildmatch_vectors() -> None:
    lines = VECTORS.read_text(encoding="utf-8").splitlines()
    pairs = [json.loads(line) for line in lines if line and not line.startswith("#")]
    checked = 0
    for glob, path in pairs:
        if creatable(path) and glob.strip() and not glob.startswith(("#", "!")):
            assert_agrees(glob, [path, "unrelated/file.txt"])
            checked += 1
    assert checked >= 120


@pytest.mark.parametrize("glob", [*TREE_GLOBS, "src/**/{a,b}/*.{py,ts}", "**/*.test.ts"])
def test_a_generated_tree_against_the_globs_teams_write(glob: str) -> None:
    files = generated_tree(count=1500)
    assert_agrees(glob, files)
    for kept in (files[::7], files[3::50], [f for f in files if "src" not in f]):
        assert_agrees(glob, kept)


def test_literal_paths_name_files_and_whole_folders() -> None:
    index = RepoFiles(["src/app/x.py", "src/app/y.py", "docs/a.md", "src/apple.py"])
    assert list(index.candidates("src/app")) == ["src/app/x.py", "src/app/y.py"]
    assert list(index.candidates("docs/a.md")) == ["docs/a.md"]
    assert list(index.candidates("src/gone/x.py")) == []
    assert index.below("src/app") == ["src/app/x.py", "src/app/y.py"]  # not src/apple.py


segment = st.sampled_from(["a", "b", "src", "x.py", "y.rs", "perf_a.rs", "ab", "[id].ts"])
pattern_segment = st.sampled_from(
    ["a", "b", "src", "*", "*.py", "perf*.rs", "?", "[ab]", "**", "a*", "*b", "\\[id].ts", "x.p?"]
)


@settings(max_examples=300, deadline=None)
@given(
    glob_parts=st.lists(pattern_segment, min_size=1, max_size=4),
    leading_slash=st.booleans(),
    trailing_slash=st.booleans(),
    files=st.lists(st.lists(segment, min_size=1, max_size=5), min_size=1, max_size=8),
)
def test_random_globs_on_random_trees(
    glob_parts: list[str], leading_slash: bool, trailing_slash: bool, files: list[list[str]]
) -> None:
    glob = ("/" if leading_slash else "") + "/".join(glob_parts) + ("/" if trailing_slash else "")
    paths = sorted({"/".join(parts) for parts in files})
    folders = {"/".join(parts[:end]) for parts in files for end in range(1, len(parts))}
    assert_agrees(glob, [p for p in paths if p not in folders])  # a file is never a folder
