"""Python code compared on its syntax tree: a formatter never changes it.

What black does -- joining a backslash continuation, adding or removing redundant
parentheses, re-wrapping, switching `"x"` for `'''x'''` -- changes lines, never the tree;
re-indenting a docstring changes the string, so a statement that is only a string is
compared as black's own equivalence check does, each line stripped.
A Python anchor therefore records one short hash per cited statement (the run of sibling
statements that covers every code line it cites) and is found again where such a run of
statements has the same hashes. The tree is written out by hand rather than with
`ast.dump`, whose output changed across Python versions (3.13 leaves out empty fields):
two people on two Pythons must agree on the same code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from orbit_learnings.core.anchors.fingerprint import line_hash
from orbit_learnings.core.anchors.symbols import is_python

# Fields that say how code was written, not what it does (`u"x"`, `# type:` comments).
_IGNORED_FIELDS = frozenset({"kind", "type_comment"})


def parse(path: str, text: str) -> ast.Module | None:
    """The tree of a Python file; None for other files and for code that does not parse."""
    if not is_python(path):
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def bare_string(node: ast.AST) -> str | None:
    """A statement that is only a string (a docstring, mostly) as black leaves it equal:
    each line stripped, blank lines at either end dropped. Black re-indents docstrings
    and strips their trailing spaces, and counts that as no change to the code."""
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Constant):
        return None
    value = node.value.value
    if not isinstance(value, str):
        return None
    return "\n".join(line.strip() for line in value.splitlines()).strip()


def canonical(node: object, memo: dict[int, str] | None = None) -> str:
    """The tree below `node`, without positions, comments or layout (a bare string as
    `bare_string` has it). `memo` keeps each statement's text by node id, so hashing
    every statement of a file writes each once."""
    if isinstance(node, ast.AST):
        if memo is not None and id(node) in memo:
            return memo[id(node)]
        text = _written(node, memo)
        if memo is not None and isinstance(node, ast.stmt):
            memo[id(node)] = text
        return text
    if isinstance(node, list):
        return "[" + ",".join(canonical(item, memo) for item in node) + "]"
    return repr(node)


def _written(node: ast.AST, memo: dict[int, str] | None) -> str:
    doc = bare_string(node)
    if doc is not None:
        return f"Doc({doc!r})"
    parts = []
    for name in node._fields:
        value = getattr(node, name, None)
        if value is None or value == [] or name in _IGNORED_FIELDS:
            continue
        parts.append(f"{name}={canonical(value, memo)}")
    return f"{type(node).__name__}({','.join(parts)})"


def span(node: ast.stmt) -> tuple[int, int]:
    """A statement's first line (its decorators included) and last line."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])
    return first, node.end_lineno or node.lineno


def statement_lists(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every list of sibling statements: bodies, `else` branches, handlers, cases."""
    for node in ast.walk(tree):
        for _, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield value


def cited_run(tree: ast.Module, start: int, end: int) -> list[ast.stmt] | None:
    """The run of sibling statements lying within lines start..end that covers the most
    of them: the statements an anchor on those lines is about. None when no statement
    lies wholly within them."""
    best: list[ast.stmt] | None = None
    for body in statement_lists(tree):
        inside = [s for s in body if start <= span(s)[0] and span(s)[1] <= end]
        if inside and (best is None or _covered(inside) > _covered(best)):
            best = inside
    return best


def _covered(run: list[ast.stmt]) -> int:
    return span(run[-1])[1] - span(run[0])[0]


def record_syntax(tree: ast.Module, start: int, end: int, code_lines: Sequence[int]) -> str | None:
    """The hashes an anchor on lines start..end records: one per statement of its run,
    when the run is consecutive and holds every code line cited (`code_lines`); else None,
    and the anchor is judged on its text alone."""
    run = cited_run(tree, start, end)
    if run is None:
        return None
    first, last = span(run[0])[0], span(run[-1])[1]
    if any(not first <= number <= last for number in code_lines):
        return None
    try:
        return " ".join(line_hash(canonical(statement)) for statement in run)
    except RecursionError:
        return None


class Statements:
    """A parsed file's statements by hash, computed once however many anchors ask."""

    __slots__ = ("_lists",)

    def __init__(self, tree: ast.Module) -> None:
        self._lists: list[tuple[list[str], list[tuple[int, int]]]] = []
        memo: dict[int, str] = {}  # the tree is alive meanwhile: ids are not reused
        for body in statement_lists(tree):
            hashes = [line_hash(canonical(statement, memo)) for statement in body]
            self._lists.append((hashes, [span(statement) for statement in body]))

    def runs(self, hashes: Sequence[str]) -> list[tuple[int, int]]:
        """(first line, last line) of every run of sibling statements with these hashes."""
        wanted = list(hashes)
        size = len(wanted)
        found: list[tuple[int, int]] = []
        for listed, spans in self._lists:
            for i in range(len(listed) - size + 1):
                if listed[i] == wanted[0] and listed[i : i + size] == wanted:
                    found.append((spans[i][0], spans[i + size - 1][1]))
        return found


def statements(tree: ast.Module) -> Statements | None:
    try:
        return Statements(tree)
    except RecursionError:  # a pathologically deep expression: judged on its text
        return None
