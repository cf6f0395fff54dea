"""Scope globs mean what git means: checked against `git check-ignore` itself.

Two sources of cases: git's own wildmatch test vectors (tests/core/data, credited
there), and a generated tree of a few thousand paths against the globs teams write.
For each case git decides, through a `.gitignore` holding the glob; orbit must agree,
or refuse the glob with a reason (`DOCUMENTED_DIFFERENCES`, also in docs/matching.md).
Skipped where git is not installed.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from orbit_learnings.core.globs import InvalidGlob, compile_glob
from orbit_learnings.core.matching import path_matches

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
VECTORS = Path(__file__).parent / "data" / "wildmatch_vectors.jsonl"
# Globs orbit refuses (with the reason) where git would accept them: never silently dead.
DOCUMENTED_DIFFERENCES = {
    "POSIX classes such as [[:digit:]] are not supported",
    "a backslash inside [...] is not supported",
    "unclosed '[' character class",  # git matches nothing with it; orbit says so at `add`
}


def orbit_verdict(glob: str, path: str) -> bool | str:
    try:
        compiled = compile_glob(glob)
    except InvalidGlob as exc:
        return exc.message
    return path_matches(compiled.regex, path, compiled.glob)


def git_ignored(repo: Path, paths: list[str]) -> set[str]:
    """The paths git ignores, by the `.gitignore` files already written under `repo`."""
    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin", "-z"],
        cwd=repo,
        input="\0".join(paths) + "\0",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return {p for p in proc.stdout.split("\0") if p}


def creatable(path: str) -> bool:
    """A path the file system can hold as a file (git's test skips the same ones)."""
    parts = path.split("/")
    return bool(path) and all(part not in ("", ".", "..") for part in parts)


def new_repo(root: Path) -> Path:
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def disagreements(cases: list[tuple[str, str, bool]]) -> list[str]:
    """`glob  path  git=…  orbit=…` for every case where orbit neither agrees nor refuses
    the glob for a documented reason."""
    found = []
    for glob, path, git in cases:
        ours = orbit_verdict(glob, path)
        if isinstance(ours, str):
            if any(reason in ours for reason in DOCUMENTED_DIFFERENCES):
                continue
            found.append(f"{glob!r} {path!r}: git={git} orbit refused ({ours})")
        elif ours != git:
            found.append(f"{glob!r} {path!r}: git={git} orbit={ours}")
    return found


def test_git_wildmatch_vectors(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "vectors")
    lines = VECTORS.read_text(encoding="utf-8").splitlines()
    pairs = [json.loads(line) for line in lines if line and not line.startswith("#")]
    asked: list[tuple[str, str, str]] = []
    for number, (glob, path) in enumerate(pairs):
        if not creatable(path) or not glob.strip() or glob.startswith(("#", "!")):
            continue
        case = repo / f"case{number}"
        touch(case / path)
        (case / ".gitignore").write_text(glob + "\n", encoding="utf-8")
        asked.append((glob, path, f"case{number}/{path}"))
    ignored = git_ignored(repo, [full for _, _, full in asked])
    cases = [(glob, path, full in ignored) for glob, path, full in asked]
    assert len(cases) >= 120
    assert disagreements(cases) == []


TREE_FOLDERS = ["src", "web", "app", "[slug]", "docs", ".github", "a", "b", "node_modules", "x y"]
TREE_FILES = [
    "x.py",
    "Cargo.toml",
    "README.md",
    "page.tsx",
    ".env",
    "a.test.ts",
    "Makefile",
    "[id].ts",
]
TREE_GLOBS = [
    "*.py",
    "/src",
    "src/",
    "src/**",
    "src/**/",
    "**/",
    "**",
    "**/*.py",
    "docs/**/*.md",
    "a/**/b",
    "a/*/b",
    "web/app/\\[slug\\]/**",
    "\\[slug\\]",
    "[ab]",
    "[!a]*.ts",
    ".*",
    ".github/**",
    "node_modules",
    "**/node_modules/**",
    "*.test.ts",
    "src/*",
    "*/x.py",
    "**/b/**",
    "x\\ y/**",
    "app/**/page.tsx",
    "README.md",
    "/README.md",
    "?akefile",
    "**/[[]id].ts",
    "src/**/*.p?",
]


def generated_tree(seed: int = 11, count: int = 3000) -> list[str]:
    """Random paths up to five deep; folder and file names never collide."""
    rng = random.Random(seed)
    paths: set[str] = set()
    while len(paths) < count:
        folders = [rng.choice(TREE_FOLDERS) for _ in range(rng.randint(0, 4))]
        paths.add("/".join([*folders, rng.choice(TREE_FILES)]))
    return sorted(paths)


def test_a_generated_tree_against_the_globs_teams_write(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "tree")
    files = generated_tree()
    for path in files:
        touch(repo / path)
    cases: list[tuple[str, str, bool]] = []
    for glob in TREE_GLOBS:
        (repo / ".gitignore").write_text(glob + "\n", encoding="utf-8")
        ignored = git_ignored(repo, files)
        cases += [(glob, path, path in ignored) for path in files]
    assert len(files) >= 3000 and sum(git for _, _, git in cases) > 1000
    assert disagreements(cases) == []
