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
    when the run holds every code line cited (`code_lines`); else None, and the anchor
    is judged on its text alone (a range that cuts a statement in half)."""
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
    """A parsed file's statements, hashed only where a search reaches: looking inside one
    definition costs that definition, not the file."""

    __slots__ = ("_hashes", "_memo", "_tree")

    def __init__(self, tree: ast.Module) -> None:
        self._tree = tree
        self._hashes: dict[int, str] = {}  # by node id: the tree is alive meanwhile
        self._memo: dict[int, str] = {}

    def runs(
        self, hashes: Sequence[str], within: Sequence[tuple[int, int]] = ()
    ) -> list[tuple[int, int]] | None:
        """(first line, last line) of every run of sibling statements with these hashes,
        inside one of the `within` line ranges when given; None when the tree is too deep
        to write out (a pathological expression: the caller judges the text instead)."""
        found: list[tuple[int, int]] = []
        try:
            self._search(self._tree.body, list(hashes), within, found)
        except RecursionError:
            return None
        return found

    def _search(
        self,
        body: list[ast.stmt],
        wanted: list[str],
        within: Sequence[tuple[int, int]],
        found: list[tuple[int, int]],
    ) -> None:
        size = len(wanted)
        spans = [span(statement) for statement in body]
        for i, statement in enumerate(body):
            first, last = spans[i]
            if within and not any(low <= last and first <= high for low, high in within):
                continue
            fits = i + size <= len(body) and _inside(first, spans[i + size - 1][1], within)
            if fits and all(self._hash(body[i + k]) == wanted[k] for k in range(size)):
                found.append((first, spans[i + size - 1][1]))
            for child in _child_lists(statement):
                self._search(child, wanted, within, found)

    def _hash(self, statement: ast.stmt) -> str:
        key = id(statement)
        if key not in self._hashes:
            self._hashes[key] = line_hash(canonical(statement, self._memo))
        return self._hashes[key]


def _inside(first: int, last: int, within: Sequence[tuple[int, int]]) -> bool:
    return not within or any(low <= first and last <= high for low, high in within)


def _child_lists(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists right inside a statement: bodies, branches, handlers, cases."""
    for _, value in ast.iter_fields(statement):
        if not isinstance(value, list) or not value:
            continue
        if isinstance(value[0], ast.stmt):
            yield value
        elif isinstance(value[0], ast.excepthandler | ast.match_case):
            for part in value:
                yield part.body
