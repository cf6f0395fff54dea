"""Freshness: has anything under `.orbit/learnings/` changed since the index was built?

Reads answer this on every call, so it never parses YAML: it stats each bundle's
`learning.yaml` (relative to an open directory descriptor) and folds the results
into one number. Only when that number changed does the index build per-bundle
signatures and re-parse the bundles that differ. Stdlib only.
"""

from __future__ import annotations

import os
import time

from orbit_learnings.store.layout import LEARNING_FILE, LEGACY_SUPERSEDED_DIR, legacy_files
from orbit_learnings.store.workspace import Workspace

# A file modified this close to the scan could change again within the same
# timestamp tick without its stat changing (git's "racy" case): re-read it next time.
RACY_WINDOW_NS = 1_000_000_000  # covers filesystems with 1-second timestamps


class Scan:
    """What is on disk right now: one stat of each bundle's `learning.yaml`.

    `quick` folds every stat into one number (the fast path: compare it with the one
    stored at the last refresh). Per-folder `signatures`, needed only when it differs,
    are built lazily (once) from the same stats, so a read never stats a file twice.
    """

    __slots__ = (
        "_racy",
        "_signatures",
        "folders",
        "legacy",
        "missing",
        "newest",
        "quick",
        "started_ns",
        "stats",
    )

    def __init__(
        self,
        folders: list[str],
        stats: list[int],
        missing: list[str],
        started_ns: int,
        legacy: list[str] | None = None,
        quick: str = "",
    ) -> None:
        self.folders = folders  # folders that have a learning.yaml, in listing order
        self.stats = stats  # flat: mtime_ns, size, inode of each of those files in turn
        self.missing = missing  # folders without a learning.yaml
        self.started_ns = started_ns
        self.legacy = legacy or []
        self.quick = quick
        self.newest = max(stats[0::3], default=0)
        self._signatures: dict[str, str] | None = None
        self._racy: set[str] | None = None

    def _entries(self) -> zip[tuple[str, int, int, int]]:
        fields = iter(self.stats)
        return zip(self.folders, fields, fields, fields, strict=True)

    @property
    def signatures(self) -> dict[str, str]:
        """Folder -> stat signature of its learning.yaml ("-" when it has none)."""
        if self._signatures is None:
            found = {
                name: signature(mtime, size, ino) for name, mtime, size, ino in self._entries()
            }
            found.update(dict.fromkeys(self.missing, "-"))
            self._signatures = found
        return self._signatures

    @property
    def racy(self) -> set[str]:
        """Folders written so recently that a same-tick rewrite could hide behind their stat."""
        if self._racy is None:
            started = self.started_ns
            self._racy = (
                set()
                if self.settled()
                else {name for name, mtime, _, _ in self._entries() if is_racy(mtime, started)}
            )
        return self._racy

    def settled(self) -> bool:
        """True when no file is young enough to be racy: the quick number can be trusted."""
        return not is_racy(self.newest, self.started_ns)

    def storable(self, folder: str) -> str:
        """The signature to persist for one folder: a racy one is poisoned, so that it
        never equals a later current signature and the next read re-parses the bundle."""
        sig = self.signatures[folder]
        return f"racy:{sig}" if folder in self.racy else sig


def signature(mtime_ns: int, size: int, ino: int) -> str:
    return f"{mtime_ns}:{size}:{ino}"


def is_racy(mtime_ns: int, reference_ns: int) -> bool:
    """Written so close to `reference_ns` that a same-tick rewrite could hide behind its stat."""
    return mtime_ns >= reference_ns - RACY_WINDOW_NS


def current_signatures(folder: str, names: list[str], filename: str) -> dict[str, str]:
    """The signature of `filename` inside each named subfolder of `folder` ("-" when
    missing), stat'ed relative to one directory descriptor: a result list of thousands
    of learnings checks every one's votes.jsonl."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return dict.fromkeys(names, "-")
    stat, suffix = os.stat, "/" + filename
    found: dict[str, str] = {}
    try:
        for name in names:
            try:
                st = stat(name + suffix, dir_fd=dir_fd)
            except (FileNotFoundError, NotADirectoryError):
                found[name] = "-"
                continue
            found[name] = signature(st.st_mtime_ns, st.st_size, st.st_ino)
    finally:
        os.close(dir_fd)
    return found


def file_signature(path: str) -> tuple[str, str]:
    """One file's stat as (current, storable): "-" when it does not exist; the storable
    form is poisoned with `racy:` while the file is too young to trust, so that it never
    equals a later current signature and the next read looks again."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # a parent that became a file, too
        return "-", "-"
    sig = signature(st.st_mtime_ns, st.st_size, st.st_ino)
    return sig, (f"racy:{sig}" if is_racy(st.st_mtime_ns, time.time_ns()) else sig)


def scan(ws: Workspace) -> Scan:
    """Stat each bundle's `learning.yaml` once and never parse anything.

    This runs on every read, once per learning, so the loop does as little as
    Python allows: a stat relative to an open directory descriptor (markedly cheaper
    than full paths) and three appends. Folding happens afterwards, in C: the quick
    number hashes the tuple of all stat fields together with the folder names in the
    same order, read as one big integer (ints, unlike strs, hash the same in every
    process, and this needs no zlib import on the hot path).
    """
    started = time.time_ns()
    folder = ws.learnings_path
    try:
        names = os.listdir(folder)
        dir_fd = os.open(folder, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return Scan([], [], [], started)
    stat = os.stat
    suffix = "/" + LEARNING_FILE
    folders: list[str] = []
    stats: list[int] = []
    missing: list[str] = []
    others: list[str] = []
    keep_folder, keep_stat = folders.append, stats.append
    try:
        for name in names:
            if name[0] == ".":
                continue
            try:
                st = stat(name + suffix, dir_fd=dir_fd)
            except FileNotFoundError:  # a folder without learning.yaml (or a legacy folder)
                (others if name == LEGACY_SUPERSEDED_DIR else missing).append(name)
                continue
            except NotADirectoryError:  # a file beside the bundles
                others.append(name)
                continue
            keep_folder(name)
            keep_stat(st.st_mtime_ns)
            keep_stat(st.st_size)
            keep_stat(st.st_ino)
    finally:
        os.close(dir_fd)
    listing = "\0".join([*folders, "/", *missing, "/", *others]).encode()
    folded = hash((int.from_bytes(listing, "little"), *stats))
    quick = f"{len(folders)}:{folded & 0xFFFFFFFFFFFFFFFF:x}"
    return Scan(folders, stats, missing, started, legacy_files(folder, others), quick)
