"""Setting a store up and moving it forward: `init`, and the one-way flat-to-bundle migration."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from orbit_learnings.core import ids
from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.allocation import store_lock
from orbit_learnings.store.bundles import learning_file, legacy_files
from orbit_learnings.store.fileops import atomic_write_text, read_repo_text, write_repo_text
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
from orbit_learnings.store.workspace import Workspace, refuse_linked_store

# --- migration ----------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    source: str
    destination: str


def migrate_layout(ws: Workspace) -> list[Move]:
    """Move flat-layout files into bundles; one-way, idempotent, refuses to overwrite."""
    moves: list[Move] = []
    with store_lock(ws):
        for source in legacy_files(ws):
            learning_id = source.stem
            if not ids.is_learning_id(learning_id):
                raise OrbitError(f"{ws.relative(source)}: file name is not a learning id")
            target = learning_file(ws, learning_id)
            if target.exists():
                raise OrbitError(
                    f"cannot move {ws.relative(source)}: {ws.relative(target)} already exists"
                )
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
            moves.append(Move(ws.relative(source), ws.relative(target)))
        old = ws.learnings_dir / LEGACY_SUPERSEDED_DIR
        if old.is_dir() and not any(old.iterdir()):
            shutil.rmtree(old)
    return moves


# --- workspace set-up -----------------------------------------------------------

TEMP_PATTERN = "*.tmp"  # an atomic write's temp file, if a crash left one behind
GITIGNORE_TEXT = (
    f"# Derived, rebuildable state: the index, locks, sessions.\n{STATE_DIR}/\n"
    f"# A write killed before its rename leaves a temp file; never commit one.\n{TEMP_PATTERN}\n"
)
MERGE_DRIVER = "orbit-learning"  # git config `merge.<name>.driver`; see `orbit hooks install`
MERGE_ATTRIBUTE = f"{LEARNINGS_DIR}/*/{LEARNING_FILE} merge={MERGE_DRIVER}"
ORG_FEEDBACK_ATTRIBUTES = tuple(
    f"{ORG_FEEDBACK_DIR}/*/{name} merge=union" for name in (VOTES_FILE, FEEDBACK_FILE)
)  # this repository's votes and feedback on org learnings, append-only as well
GITATTRIBUTES_TEXT = (
    "# Append-only sidecars: votes cast on two branches merge without conflict.\n"
    f"{LEARNINGS_DIR}/*/{VOTES_FILE} merge=union\n"
    f"{LEARNINGS_DIR}/*/{FEEDBACK_FILE} merge=union\n"
    + "".join(f"{line}\n" for line in ORG_FEEDBACK_ATTRIBUTES)
    + "# Two edits of one learning merge field by field once the driver is in git config\n"
    "# (`orbit hooks install`); without it git falls back to its own line merge.\n"
    f"{MERGE_ATTRIBUTE}\n"
)


@dataclass(frozen=True)
class InitReport:
    root: Path
    created: list[str]


def init_store(root: Path) -> InitReport:
    """Create `.orbit/learnings/` and `.orbit/.gitignore`; harmless to run twice."""
    refuse_linked_store(root)
    orbit = root / ORBIT_DIR
    created: list[str] = []
    learnings = orbit / LEARNINGS_DIR
    if not learnings.is_dir():
        learnings.mkdir(parents=True)
        created.append(f"{ORBIT_DIR}/{LEARNINGS_DIR}/")
    keep = learnings / ".gitkeep"
    if not keep.exists():
        atomic_write_text(keep, "")
        created.append(f"{ORBIT_DIR}/{LEARNINGS_DIR}/.gitkeep")
    for name, text in ((".gitignore", GITIGNORE_TEXT), (".gitattributes", GITATTRIBUTES_TEXT)):
        if _own_lines(orbit, name) is None:
            write_repo_text(orbit / name, text, within=str(orbit), name=f"{ORBIT_DIR}/{name}")
            created.append(f"{ORBIT_DIR}/{name}")
    lines = _own_lines(orbit, ".gitignore") or []
    if TEMP_PATTERN not in lines:  # stores made before temp files were ignored
        write_repo_text(
            orbit / ".gitignore",
            "\n".join([*lines, TEMP_PATTERN]) + "\n",
            within=str(orbit),
            name=f"{ORBIT_DIR}/.gitignore",
        )
        created.append(f"{ORBIT_DIR}/.gitignore ({TEMP_PATTERN})")
    if ensure_merge_attribute(root):  # stores made before the merge driver
        created.append(f"{ORBIT_DIR}/.gitattributes (merge={MERGE_DRIVER})")
    return InitReport(root, created)


def ensure_merge_attribute(root: Path) -> bool:
    """Give `learning.yaml` the field-by-field merge driver in `.orbit/.gitattributes`;
    True when the line had to be added."""
    return _ensure_attributes(root, (MERGE_ATTRIBUTE,))


def ensure_org_feedback_merge(root: Path) -> bool:
    """Union merge for `org-feedback/` sidecars in `.orbit/.gitattributes` (stores made
    before it, on `org subscribe` and `org update`); True when a line had to be added."""
    return _ensure_attributes(root, ORG_FEEDBACK_ATTRIBUTES)


def _ensure_attributes(root: Path, wanted: tuple[str, ...]) -> bool:
    orbit = root / ORBIT_DIR
    lines = _own_lines(orbit, ".gitattributes") or []
    missing = [line for line in wanted if line not in lines]
    if not missing:
        return False
    text = "\n".join([*lines, *missing]) + "\n"
    name = f"{ORBIT_DIR}/.gitattributes"
    write_repo_text(orbit / ".gitattributes", text, within=str(orbit), name=name)
    return True


def _own_lines(orbit: Path, name: str) -> list[str] | None:
    """The lines of one of orbit's files in `.orbit/`, None when it does not exist. A link
    out of `.orbit` (to ~/.bashrc, /dev/zero, a FIFO) is refused, never read or written."""
    try:
        text = read_repo_text(orbit / name, within=str(orbit), name=f"{ORBIT_DIR}/{name}")
    except (FileNotFoundError, NotADirectoryError):
        return None
    return text.splitlines()
