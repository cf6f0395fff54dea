"""Where a draft applies and what it is about: repo-relative globs for the files its moment
involved (from any OS, scratch files and other folders left out, a folder glob when several
share one), topic tags from the tools it ran and the kinds of file it touched, and its text
with the repository's own root taken out so a rule reads the same on every machine.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from orbit_learnings.curation.capture import commands
from orbit_learnings.curation.capture.moments import Moment

# Tags from the tools a moment ran and the kinds of file it touched, matched as whole words.
_TOOL_TAGS = (
    (r"pytest|jest|vitest|rspec|mocha|unittest", "testing"),
    (r"npm|pnpm|yarn|bun|npx", "tooling"),
    (r"docker|docker-compose|compose", "docker"),
    (r"git", "git"),
    (r"pip|uv|poetry|no module named|cannot find module", "dependencies"),
    (r"cargo", "rust"),
    (r"alembic|migrations?|migrate", "database"),
    (r"sandbox|escalated|permission ?denied", "permissions"),
)
_FILE_TAGS = {
    ".py": "python", ".ts": "typescript", ".tsx": "typescript", ".js": "javascript",
    ".jsx": "javascript", ".mjs": "javascript", ".rb": "ruby", ".go": "go", ".rs": "rust",
    ".sql": "database", ".tex": "latex", ".sh": "shell", ".vue": "vue", ".java": "java",
    ".kt": "kotlin", ".swift": "swift", ".php": "php", ".cs": "csharp",
}  # fmt: skip


_NAMED_TAGS = {
    "package.json": "javascript", "pyproject.toml": "python", "setup.py": "python",
    "cargo.toml": "rust", "go.mod": "go", "gemfile": "ruby",
}  # fmt: skip


def tags_for(moment: Moment, summary: str, paths: Sequence[str]) -> list[str]:
    """Topic tags from the tools the moment ran or the rule names, and the files' kinds."""
    text = f"{moment.operation} {moment.failed} {moment.error} {summary}".lower()
    tags = {tag for words, tag in _TOOL_TAGS if re.search(rf"(?<![\w.-])({words})(?![\w-])", text)}
    for path in paths:
        name = os.path.basename(path).lower()
        if "/.github/workflows/" in f"/{path}":
            tags.add("ci")
        elif name.startswith(("dockerfile", "docker-compose")):
            tags.add("docker")
        elif tag := _NAMED_TAGS.get(name) or _FILE_TAGS.get(os.path.splitext(name)[1]):
            tags.add(tag)
    return sorted(tags)[:4]


def repo_words(text: str, root: str | None) -> str:
    if not root:
        return text
    for base in {root.rstrip("/\\"), commands.normalise_path(root).rstrip("/")}:
        text = text.replace(base + "/", "").replace(base + "\\", "")
    return text


def globs_for(files: Sequence[str], root: str | None) -> list[str]:
    """Repo-relative globs for the files a moment involved: a folder glob when several share
    a folder, their common folder's when more than three would be listed; files outside the
    repository and scratch files are left out."""
    relative: dict[str, None] = {}
    for path in files:
        if commands.is_scratch(path):
            continue
        rel = commands.repo_relative(path, root)
        if rel:
            relative.setdefault(rel, None)
    by_folder: dict[str, list[str]] = {}
    for rel in relative:
        by_folder.setdefault(os.path.dirname(rel), []).append(rel)
    globs: list[str] = []
    for folder, members in by_folder.items():
        globs.extend([f"{folder}/**"] if len(members) > 1 and folder else members)
    return collapsed(globs)


def collapsed(globs: Sequence[str]) -> list[str]:
    """More than three globs become their common folder's (when they share one); a glob
    another one already covers is left out."""
    import fnmatch

    kept = [g for g in dict.fromkeys(globs) if not any(
        o != g and o.endswith("/**") and fnmatch.fnmatch(g, o) for o in globs
    )]  # fmt: skip
    folders = [g[:-3] if g.endswith("/**") else os.path.dirname(g) for g in kept]
    common = os.path.commonpath(folders) if len(kept) > 3 and all(folders) else ""
    return [f"{common}/**"] if common else kept
