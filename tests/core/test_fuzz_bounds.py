"""Fuzzing the two gates hostile input passes through: the record validator and the glob
matcher. Whatever arrives, each answers (a value or its own clean error) and answers soon.

The time bound is a hang guard, not a speed test: no call comes near it however busy the
machine (the slowest seen under a full parallel suite on two cores was 1.2 s, which failed
the 1 s bound this once had), while the exponential case it exists for — `*a` sixty times
against two hundred characters — would run for longer than anyone waits.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbit_learnings.core import matching
from orbit_learnings.core.errors import OrbitError, ValidationFailed
from orbit_learnings.core.globs import InvalidGlob, compile_glob
from orbit_learnings.core.model import PRIORITY_LIMIT, Learning
from orbit_learnings.store.bundles import parse_learning

BOUND_SECONDS = 30.0
T = TypeVar("T")

# --- the glob matcher --------------------------------------------------------

glob_piece = st.sampled_from(
    [
        "a",
        "b",
        "ab",
        "*",
        "**",
        "?",
        "/",
        "[a-c]",
        "[!a]",
        "[z-a]",
        "[",
        "]",
        "\\",
        "\\*",
        ".",
        "..",
        "x.py",
        "{a,b}",
        " ",
        "#",
        "!",
        "\t",
        "\n",
        "\x00",
        "é",
        "%s",
    ]
)
hostile_glob = st.one_of(
    st.lists(glob_piece, max_size=40).map("".join),
    st.text(max_size=300),
    # the backtracking shape from the issue: *a*a*a…*b, as long as 60 stars
    st.integers(min_value=3, max_value=60).map(lambda n: "*a" * n + "*b"),
)
hostile_path = st.one_of(
    st.lists(st.sampled_from(["a", "b", "aa", "/", "x.py", ".", "é"]), max_size=80).map("".join),
    st.integers(min_value=1, max_value=200).map(lambda n: "a" * n),
)


def timed(call: Callable[[], T]) -> T:
    """The call's answer, failing the test when it took longer than the bound."""
    started = time.perf_counter()
    answer = call()
    elapsed = time.perf_counter() - started
    assert elapsed < BOUND_SECONDS, f"took {elapsed:.2f} s"
    return answer


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(glob=hostile_glob, path=hostile_path)
def test_any_learning_glob_is_refused_or_matches_in_bounded_time(glob: str, path: str) -> None:
    try:
        compiled = timed(lambda: compile_glob(glob))
    except InvalidGlob as exc:
        assert exc.message.startswith("invalid scope glob")
        return
    answer = timed(lambda: matching.path_matches(compiled.regex, path, compiled.glob))
    assert isinstance(answer, bool)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(learning_glob=hostile_glob, query=hostile_glob)
def test_any_query_glob_is_refused_or_overlaps_in_bounded_time(
    learning_glob: str, query: str
) -> None:
    """A query glob against a learning glob (`list --path 'src/**'`) never backtracks either."""
    try:
        compile_glob(learning_glob)
        made = matching.make_query(query)
    except OrbitError:
        return
    if made.is_pattern:
        answer = timed(lambda: matching.globs_overlap(learning_glob, made.segments))
        assert isinstance(answer, bool)


# --- the record validator ----------------------------------------------------

VALID = """\
id: L-0001
schemaVersion: 1
status: active
created_at: 2026-01-02T03:04:05Z
updated_at: 2026-01-02T03:04:05Z
created_by: tester
scope:
  paths:
  - src/**
  tags:
  - db
summary: Index every foreign key
body: |
  Unindexed joins scan.
evidence:
- kind: task
  ref: ORB-1
priority: 0
"""

hostile_value = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.integers(min_value=1, max_value=200).map(lambda n: "[" * n + "]" * n),  # 3000: test_hostile
    st.integers(min_value=1, max_value=200).map(lambda n: "{a: " * n + "1" + "}" * n),
    st.sampled_from(
        [
            "&a [1, 2]",
            "*a",
            "!!python/object:os.system",
            "!!binary aGk=",
            "~",
            "true",
            "1e999",
            "'\x1b[31mred'",
            '"\\x00"',
            "[src/[z-a]*]",
            "...",
            "---",
            "|",
            ">-",
            "{",
            "- - -",
            "2026-13-45",
            "nan",
            "0x1F",
            "[L-0001]",
            "'\\u202e'",
            ":",
            "? x",
            "@",
            "%TAG",
        ]
    ),
    st.text(max_size=60),
)
field = st.sampled_from(
    [
        "id",
        "schemaVersion",
        "status",
        "created_at",
        "created_by",
        "paths",
        "tags",
        "summary",
        "body",
        "evidence",
        "priority",
        "ref",
        "kind",
        "unknown_key",
    ]
)


def mutated(key: str, value: str) -> str:
    """VALID with one field's value replaced (or an unknown key added) by hostile YAML."""
    lines = VALID.splitlines()
    for number, line in enumerate(lines):
        stripped = line.lstrip(" -")
        if stripped.startswith(f"{key}:"):
            indent = line[: len(line) - len(stripped)]
            lines[number] = f"{indent}{key}: {value}"
            return "\n".join(lines) + "\n"
    return VALID + f"{key}: {value}\n"


def parsed_or_refused(text: str) -> Learning | None:
    try:
        return timed(
            lambda: parse_learning(text, "L-0001", ".orbit/learnings/L-0001/learning.yaml")
        )
    except ValidationFailed as exc:
        assert exc.problems and all(p.line >= 1 for p in exc.problems)  # file:line for each
        return None


def assert_indexable(learning: Learning) -> None:
    """What the index stores from an accepted record fits SQLite and matches safely."""
    assert -PRIORITY_LIMIT <= learning.priority <= PRIORITY_LIMIT
    assert learning.summary.strip() and (learning.paths or learning.tags)
    for glob in learning.paths:
        with contextlib.suppress(InvalidGlob):  # reported by check, skipped by the index
            compile_glob(glob)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=field, value=hostile_value)
def test_any_field_value_is_accepted_or_reported_with_its_line(key: str, value: str) -> None:
    learning = parsed_or_refused(mutated(key, value))
    if learning is not None:
        assert_indexable(learning)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    position=st.integers(min_value=0, max_value=len(VALID)),
    cut=st.integers(min_value=0, max_value=20),
    insert=st.text(alphabet=":-&*[]{}!|>'\"#\n\t \\%@?~", max_size=12),
)
def test_any_splice_of_the_file_is_accepted_or_reported(
    position: int, cut: int, insert: str
) -> None:
    learning = parsed_or_refused(VALID[:position] + insert + VALID[position + cut :])
    if learning is not None:
        assert_indexable(learning)
