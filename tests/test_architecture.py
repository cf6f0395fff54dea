"""The package's shape, checked from its source: layers, cycles, sizes.

Every import counts, including the ones inside functions (the lazy imports that keep
the hot path fast are still dependencies). See docs/architecture.md for the map.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "orbit_learnings"

# Lower layers never import higher ones. Packages of equal rank (push, curation) are
# peers: neither imports the other.
RANKS = {
    "core": 0,
    "store": 1,
    "index": 2,
    "retrieval": 3,
    "push": 4,
    "curation": 4,
    "integrations": 5,
    "cli": 6,
    "api": 7,
    "entry": 7,
    "__main__": 8,
    "__init__": 8,  # the root package: its lazy `inject_learnings` reaches the api
}
# Limits serve the code, they do not decide where it lives: past the soft limit a module or
# folder is worth a look (a warning names it), past the hard one it is refused.
SOFT_MODULES_PER_FOLDER, MAX_MODULES_PER_FOLDER = 12, 16
SOFT_MODULE_LINES, MAX_MODULE_LINES = 400, 600
MAX_FUNCTION_LINES = 60


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


MODULES = {module_name(p): p for p in source_files()}


def imported_modules(path: Path) -> Iterator[str]:
    """Every orbit_learnings module this file imports, at any depth of the code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("orbit_learnings"):
                    yield alias.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("orbit_learnings"):
            assert node.level == 0, f"{path}: relative imports hide the layer"
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                yield candidate if candidate in MODULES else str(node.module)


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


GRAPH = {name: sorted(set(imported_modules(path)) - {name}) for name, path in MODULES.items()}


def test_every_module_sits_in_a_known_layer() -> None:
    assert {layer_of(m) for m in MODULES} <= RANKS.keys()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_go_down_or_stay_inside_the_package(module: str) -> None:
    mine = layer_of(module)
    upward = [
        target
        for target in GRAPH[module]
        if layer_of(target) != mine and RANKS[layer_of(target)] >= RANKS[mine]
    ]
    assert not upward, f"{module} imports from its own layer or above: {upward}"


def test_no_import_cycle_anywhere() -> None:
    cycles = [c for c in strongly_connected(GRAPH) if len(c) > 1]
    assert not cycles, cycles


def strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative-enough for a graph of this size."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    assert strongly_connected({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [
        ["a", "b", "c"],
        ["d"],
    ]


def _over(sizes: dict[str, int], soft: int, hard: int, what: str) -> dict[str, int]:
    """The entries past the hard limit; those past the soft one only warn."""
    for name, size in sizes.items():
        if soft < size <= hard:
            warnings.warn(f"{name}: {size} {what} (worth a look past {soft})", stacklevel=2)
    return {name: size for name, size in sizes.items() if size > hard}


def test_folders_stay_small() -> None:
    counts = {
        str(folder.relative_to(PACKAGE)): len(list(folder.glob("*.py")))
        for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]
    }
    crowded = _over(counts, SOFT_MODULES_PER_FOLDER, MAX_MODULES_PER_FOLDER, "modules")
    assert not crowded, crowded


def test_modules_stay_readable_in_one_sitting() -> None:
    lines = {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in source_files()
    }
    long = _over(lines, SOFT_MODULE_LINES, MAX_MODULE_LINES, "lines")
    assert not long, long


def test_functions_stay_short() -> None:
    long: dict[str, int] = {}
    for path in source_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(PACKAGE)}:{node.name}"] = lines
    assert not long, long
