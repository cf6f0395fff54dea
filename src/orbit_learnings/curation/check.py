"""`orbit learning check`: read-only validation of the whole store, for CI and pre-commit.

Every problem is located as `path:line` and has a kind, so it can be printed
for people, as GitHub Actions annotations, or as JSON.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from orbit_learnings.core import model
from orbit_learnings.core.errors import OrbitError, Problem, UsageError, ValidationFailed
from orbit_learnings.core.ids import is_learning_id, level_of, prefix_problem
from orbit_learnings.core.progress import report
from orbit_learnings.store import bundles as store
from orbit_learnings.store.feedback import oversized as oversized_feedback
from orbit_learnings.store.feedback import oversized_file
from orbit_learnings.store.fileops import read_regular_text
from orbit_learnings.store.layout import (
    FEEDBACK_FILE,
    LEARNING_FILE,
    LEARNINGS_DIR,
    LEGACY_SUPERSEDED_DIR,
    ORBIT_DIR,
    ORG_FEEDBACK_DIR,
    STATE_DIR,
    VOTES_FILE,
)
from orbit_learnings.store.votes import read_votes
from orbit_learnings.store.workspace import Workspace
from orbit_learnings.store.yamlio import line_containing


class _Parsed:
    def __init__(self, folder: str, path: str, text: str, learning: model.Learning | None) -> None:
        self.folder = folder
        self.path = path
        self.text = text
        self.learning = learning


def check_store(
    ws: Workspace, *, stale: bool = False, base: str | None = None, staged: bool = False
) -> list[Problem]:
    """Every problem in the store; with `staged`, the learnings as git's index holds them
    (what the next commit will contain), not as the working tree has them."""
    if staged:
        with staged_copy(ws) as copy:
            problems, parsed = _content_problems(copy)
    else:
        problems, parsed = _content_problems(ws)
    problems += _tracked_state(ws)
    if stale:
        from orbit_learnings.curation.anchors.review import anchor_problems

        problems += _stale_problems(ws, parsed) + anchor_problems(ws)
    if base:
        from orbit_learnings.curation.anchors.review import touched_anchors
        from orbit_learnings.curation.branches.collisions import collisions_with

        problems += collisions_with(ws, base) + touched_anchors(ws, base)
    return sorted(set(problems), key=lambda p: (p.file, p.line, p.message))


def _content_problems(ws: Workspace) -> tuple[list[Problem], list[_Parsed]]:
    problems = [
        Problem(
            ws.relative(p),
            1,
            "legacy flat layout; run `orbit learning migrate-layout`",
            None,
            "layout",
        )
        for p in store.legacy_files(ws)
    ]
    links = _links(ws)
    read_problems: list[Problem] = []
    parsed = _parse_all(ws, read_problems)
    read_problems += _org_feedback_problems(ws)
    linked = {link.file for link in links}  # each link once, with its target, not again per reader
    problems += links + [p for p in read_problems if p.file not in linked]
    problems += _duplicate_ids(parsed)
    problems += _link_problems(parsed)
    return problems, parsed


@contextmanager
def staged_copy(ws: Workspace) -> Iterator[Workspace]:
    """A throwaway workspace holding `.orbit/` exactly as staged in git's index."""
    from orbit_learnings.curation import gitutil

    if not gitutil.is_repository(ws.root_str):
        raise UsageError("--staged needs a git repository")
    listed = gitutil.run_git(ws.root_str, "ls-files", "-z", "--", ORBIT_DIR)
    with tempfile.TemporaryDirectory(prefix="orbit-staged-") as folder:
        os.makedirs(os.path.join(folder, ORBIT_DIR, LEARNINGS_DIR))
        if listed:
            gitutil.run_git(
                ws.root_str,
                "checkout-index",
                f"--prefix={folder}{os.sep}",
                "-z",
                "--stdin",
                check=False,  # an unmerged path is skipped here and reported by its markers
                stdin=listed,
            )
        yield Workspace(folder)


def _parse_all(ws: Workspace, problems: list[Problem]) -> list[_Parsed]:
    parsed: list[_Parsed] = []
    folder_root = ws.learnings_dir
    if not folder_root.is_dir():
        return parsed
    entries = [
        entry
        for entry in sorted(os.scandir(folder_root), key=lambda e: e.name)
        if entry.is_dir() and not entry.name.startswith(".") and entry.name != LEGACY_SUPERSEDED_DIR
    ]
    for number, entry in enumerate(entries, 1):
        if number % 25 == 0 or number == len(entries):  # seconds for a large store
            report("validating learnings", number, len(entries))
        path = ws.relative(os.path.join(entry.path, LEARNING_FILE))
        try:
            text = read_regular_text(os.path.join(entry.path, LEARNING_FILE))
        except OrbitError as exc:  # a link, a device, an oversized file
            problems.append(Problem(path, 1, exc.message, entry.name, "layout"))
            continue
        except FileNotFoundError:
            problems.append(
                Problem(path, 1, "bundle folder has no learning.yaml", entry.name, "layout")
            )
            continue
        except UnicodeDecodeError:
            problems.append(Problem(path, 1, "file is not UTF-8 text", entry.name, "yaml"))
            continue
        learning = None
        try:
            learning = store.parse_learning(text, entry.name, path)
        except ValidationFailed as exc:
            problems.extend(exc.problems)
        if learning is not None:
            for glob in learning.paths:
                if (refusal := _refusal(glob)) is not None:
                    line = line_containing(text, glob)
                    problems.append(Problem(path, line, refusal, learning.id, "glob"))
        votes_display = ws.relative(os.path.join(entry.path, VOTES_FILE))
        problems.extend(read_votes(ws.bundle_dir(entry.name), entry.name, votes_display)[1])
        if (busy := oversized_feedback(ws, entry.name)) is not None:
            problems.append(busy)
        parsed.append(_Parsed(entry.name, path, text, learning))
    return parsed


def _org_feedback_problems(ws: Workspace) -> list[Problem]:
    """This repository's sidecars of org learnings (`.orbit/org-feedback/<ID>/`), held to
    the bundles' rules: a folder named by an org ID, valid vote rows, files in bounds.
    Whether the org still holds the ID is not asked: its tree may not be in the cache."""
    folder = os.path.join(ws.root_str, ORBIT_DIR, ORG_FEEDBACK_DIR)
    try:
        entries = sorted(e.name for e in os.scandir(folder) if not e.name.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return []
    problems: list[Problem] = []
    for name in entries:
        home = os.path.join(folder, name)
        if not _names_org_id(name):
            message = f"{name!r} names no org learning: org-feedback/ holds org IDs' sidecars"
            problems.append(Problem(ws.relative(home), 1, message, None, "layout"))
            continue
        votes = os.path.join(home, VOTES_FILE)
        problems += read_votes(home, name, ws.relative(votes))[1]
        feedback = os.path.join(home, FEEDBACK_FILE)
        if (busy := oversized_file(feedback, ws.relative(feedback), name)) is not None:
            problems.append(busy)
    return problems


def _names_org_id(name: str) -> bool:
    """An org ID, or one of an org ID's shape: an org's own prefix (`ACME`) is read from
    its tree, which a CI job may not have fetched."""
    if is_learning_id(name):
        return level_of(name) == "org"
    prefix, dash, rest = name.partition("-")
    return bool(dash) and prefix_problem(prefix) is None and is_learning_id(f"O-{rest}")


@lru_cache(maxsize=16384)
def _refusal(glob: str) -> str | None:
    """Why the glob dialect refuses a glob, or None; each distinct glob once (learnings share
    globs, and compiling one costs about 70 us)."""
    from orbit_learnings.core.globs import InvalidGlob, compile_glob

    try:
        compile_glob(glob)
    except InvalidGlob as exc:
        return exc.message
    return None


def _links(ws: Workspace) -> list[Problem]:
    """Every symbolic link below `.orbit/`: orbit never follows one, and a link committed to
    the repository is how a store would make orbit write elsewhere. The folder walk reads
    what each entry is from the folder listing (an `lstat` per entry cost 0.1-0.2 s at
    10,000 learnings) and never descends into a link."""
    found: list[Problem] = []
    pending = [str(ws.orbit_dir)]
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    if entry.is_symlink():
                        target = os.readlink(entry.path)
                        message = f"a symbolic link (to {target}); orbit does not follow links"
                        found.append(Problem(ws.relative(entry.path), 1, message, None, "link"))
                    elif entry.is_dir():
                        pending.append(entry.path)
        except OSError:  # gone or unreadable meanwhile: os.walk skipped those too
            continue
    return found


def _tracked_state(ws: Workspace) -> list[Problem]:
    """Files git tracks under `.orbit/state/`: derived state is rebuilt from the learnings,
    and a committed index or log is how a pull request would hand every clone its own."""
    from orbit_learnings.curation import gitutil

    if not gitutil.is_repository(ws.root_str):
        return []
    state = f"{ORBIT_DIR}/{STATE_DIR}"
    out = gitutil.run_git(ws.root_str, "ls-files", "-z", "--", state, check=False)
    fix = f"derived state is tracked by git; run `git rm -r --cached {state}` (sync rebuilds it)"
    return [Problem(path, 1, fix, None, "tracked-state") for path in out.split("\0") if path]


def _declared_id(item: _Parsed) -> str | None:
    if item.learning is not None:
        return item.learning.id
    for line in item.text.splitlines():
        if line.startswith("id:"):
            return line.split(":", 1)[1].strip().strip("'\"") or None
    return None


def _duplicate_ids(parsed: list[_Parsed]) -> list[Problem]:
    owners: dict[str, list[_Parsed]] = {}
    for item in parsed:
        declared = _declared_id(item)
        if declared:
            owners.setdefault(declared, []).append(item)
    problems = []
    for declared, items in owners.items():
        if len(items) > 1:
            where = ", ".join(i.folder for i in items)
            for item in items:
                problems.append(
                    Problem(
                        item.path,
                        line_containing(item.text, "id:"),
                        f"duplicate id {declared} (declared in {where})",
                        declared,
                        "duplicate-id",
                    )
                )
    return problems


def _link_problems(parsed: list[_Parsed]) -> list[Problem]:
    records = {p.learning.id: p for p in parsed if p.learning is not None}
    problems: list[Problem] = []
    for item in records.values():
        learning = item.learning
        assert learning is not None
        for key, target in (
            ("supersedes", learning.supersedes),
            ("superseded_by", learning.superseded_by),
        ):
            if target is None or level_of(target) != level_of(learning.id):
                continue  # a link into the org store (`supersedes: O-0012`) lives there
            line = line_containing(item.text, f"{key}:")
            other = records.get(target)
            if other is None or other.learning is None:
                problems.append(
                    Problem(
                        item.path,
                        line,
                        f"{key} points at {target}, which does not exist; clear it with "
                        f"`orbit learning update {learning.id} {_flag(key)} none`",
                        learning.id,
                        "dangling-link",
                    )
                )
                continue
            back = (
                other.learning.superseded_by if key == "supersedes" else other.learning.supersedes
            )
            if back != learning.id:
                other_key = "superseded_by" if key == "supersedes" else "supersedes"
                problems.append(
                    Problem(
                        item.path,
                        line,
                        f"one-sided link: {learning.id}.{key} is {target} but "
                        f"{target}.{other_key} is {back or 'unset'}; complete it with "
                        f"`orbit learning update {learning.id} {_flag(key)} {target}` or drop "
                        f"it with `orbit learning update {learning.id} {_flag(key)} none`",
                        learning.id,
                        "one-sided-link",
                    )
                )
    return problems


def _flag(key: str) -> str:
    """The `update` option that sets or clears the link `key`, on both sides."""
    return "--" + key.replace("_", "-")


def _stale_problems(ws: Workspace, parsed: list[_Parsed]) -> list[Problem]:
    from orbit_learnings.curation.staleness import find_stale

    by_id = {p.learning.id: p for p in parsed if p.learning is not None}
    found = find_stale(ws)
    return [
        Problem(
            by_id[s.id].path if s.id in by_id else s.id,
            1,
            f"{s.id} is stale ({s.describe()}); "
            + (
                "preview the rename with `orbit learning prune --follow-renames --dry-run`, "
                "follow it with `orbit learning prune --follow-renames --yes`"
                if s.renames
                else f"update it, or archive it with `orbit learning archive {s.id}`"
            ),
            s.id,
            "stale",
        )
        for s in found.stale
    ]


def github_annotation(problem: Problem) -> str:
    message = problem.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    lines = f"line={problem.line}" + (f",endLine={problem.end_line}" if problem.end_line else "")
    return f"::error file={problem.file},{lines},title=orbit {problem.kind}::{message}"
