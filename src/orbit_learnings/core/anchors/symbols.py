"""Python definitions by qualified name (`OrderService.update`), through the standard
library's `ast`: a symbol anchor follows its function wherever it moves in the file, and
a line anchor inside a function knows which function it is about.
"""

from __future__ import annotations

from collections.abc import Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ast

PYTHON_SUFFIXES = (".py", ".pyi")


def _definitions(text: str) -> Iterator[tuple[str, int, int]]:
    """(qualified name, first line with decorators, last line) of every def and class."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # mid-edit, NUL bytes
        return
    yield from definitions_in(tree)


def definitions_in(tree: ast.AST) -> Iterator[tuple[str, int, int]]:
    """`_definitions` of a tree already parsed."""
    import ast

    stack: list[tuple[str, ast.AST]] = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                yield name, first, child.end_lineno or child.lineno
                stack.append((f"{name}.", child))
            else:
                stack.append((prefix, child))


def is_python(path: str) -> bool:
    return path.lower().endswith(PYTHON_SUFFIXES)


def definitions(path: str, text: str) -> dict[str, tuple[int, int]]:
    """Every definition's lines by qualified name (the first of a name: what a reader
    finds, though Python binds the last); empty for anything but Python."""
    found: dict[str, tuple[int, int]] = {}
    if is_python(path):
        for name, first, last in _definitions(text):
            found.setdefault(name, (first, last))
    return found


def symbol_range(path: str, text: str, symbol: str) -> tuple[int, int] | None:
    return definitions(path, text).get(symbol)


def enclosing_symbol(path: str, text: str, start: int, end: int) -> str | None:
    """The innermost definition holding all of lines start..end, if any."""
    if not is_python(path):
        return None
    best: tuple[int, str] | None = None
    for name, first, last in _definitions(text):
        if first <= start and end <= last and (best is None or last - first < best[0]):
            best = (last - first, name)
    return best[1] if best else None
