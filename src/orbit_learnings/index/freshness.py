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
# The tick is the filesystem's: a stamp of whole seconds comes from one with 1-second
# timestamps (ext3, HFS+; or, once in a billion, by chance, which costs one re-read);
# any other ticks with the kernel's coarse clock, at most 10 ms on Linux.
RACY_WINDOW_NS = 1_000_000_000
FINE_RACY_WINDOW_NS = 100_000_000
# What `Scan.changes` holds for an entry that is not a bundle: a folder without a
# learning.yaml, and a file (or the legacy folder) beside the bundles. Two values, so
# that one turning into the other changes the quick number too.
NO_BUNDLE = 0
NOT_A_FOLDER = -1


def clock_ns() -> int:
    """The moment racy checks compare a file's change time with. Read through this name
    (never `time.time_ns` directly) so a test can pin it: "written just now" is then a
    fact of the test, not a race against a loaded machine."""
    return time.time_ns()


class Scan:
    """What is on disk right now: one stat of each bundle's `learning.yaml`.

    `quick` folds every stat into one number (the fast path: compare it with the one
    stored at the last refresh). Per-folder `signatures`, needed only when it differs,
    are built lazily (once) from the same stats, so a read never stats a file twice.
    """

    __slots__ = (
        "_racy",
        "_signatures",
        "changes",
        "legacy",
        "missing",
        "names",
        "quick",
        "started_ns",
    )

    def __init__(
        self,
        names: list[str],
        changes: list[int],
        missing: list[str],
        started_ns: int,
        legacy: list[str] | None = None,
        quick: str = "",
    ) -> None:
        self.names = names  # every entry of the learnings folder but dot-files, listing order
        self.changes = changes  # each name's learning.yaml st_ctime_ns (NO_BUNDLE if none)
        self.missing = missing  # folders without a learning.yaml
        self.started_ns = started_ns
        self.legacy = legacy or []
        self.quick = quick
        self._signatures: dict[str, str] | None = None
        self._racy: set[str] | None = None

    @property
    def signatures(self) -> dict[str, str]:
        """Folder -> stat signature of its learning.yaml ("-" when it has none)."""
        if self._signatures is None:
            found = {
                name: signature(changed)
                for name, changed in zip(self.names, self.changes, strict=True)
                if changed > NO_BUNDLE
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
                else {
                    name
                    for name, changed in zip(self.names, self.changes, strict=True)
                    if changed > NO_BUNDLE and is_racy(changed, started)
                }
            )
        return self._racy

    def settled(self) -> bool:
        """True when no file is young enough to be racy: the quick number can be trusted."""
        return not is_racy(max(self.changes, default=0), self.started_ns)

    def storable(self, folder: str) -> str:
        """The signature to persist for one folder: a racy one is poisoned, so that it
        never equals a later current signature and the next read re-parses the bundle."""
        sig = self.signatures[folder]
        return f"racy:{sig}" if folder in self.racy else sig


def signature(ctime_ns: int) -> str:
    """A file's stat signature, the one every cache here keys on: its change time (see
    `scan` for why that field alone tells a changed file from an unchanged one)."""
    return str(ctime_ns)


def is_racy(stamp_ns: int, reference_ns: int) -> bool:
    """Written so close to `reference_ns` that a same-tick rewrite could hide behind its stat."""
    coarse = stamp_ns % 1_000_000_000 == 0
    return stamp_ns >= reference_ns - (RACY_WINDOW_NS if coarse else FINE_RACY_WINDOW_NS)


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
            found[name] = signature(st.st_ctime_ns)
    finally:
        os.close(dir_fd)
    return found


def sidecar_signatures(ws: Workspace, names: list[str], filename: str) -> dict[str, str]:
    """`current_signatures` of a sidecar, joined over every folder it counts from
    (`Workspace.sidecar_dirs_str`: an org learning's bundle and the subscriber's)."""
    found = current_signatures(ws.learnings_dir_str, names, filename)
    org = ws.org_feedback_dir_str
    if org is None:
        return found
    theirs = current_signatures(org, names, filename)
    return {name: _joined(found[name], theirs[name]) for name in names}


def sidecar_signature(ws: Workspace, folder: str, filename: str) -> tuple[str, str]:
    """`file_signature` of a learning's sidecar, joined over every folder it counts from."""
    found = [file_signature(os.path.join(d, filename)) for d in ws.sidecar_dirs_str(folder)]
    if len(found) == 1:
        return found[0]
    return _joined(*(f[0] for f in found)), _joined(*(f[1] for f in found))


def _joined(*signatures: str) -> str:
    """One signature of several files: "-" only when none exists; a racy part keeps the
    whole from ever equalling a later current one."""
    return "-" if all(s == "-" for s in signatures) else "|".join(signatures)


def file_signature(path: str) -> tuple[str, str]:
    """One file's stat as (current, storable): "-" when it does not exist; the storable
    form is poisoned with `racy:` while the file is too young to trust, so that it never
    equals a later current signature and the next read looks again."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # a parent that became a file, too
        return "-", "-"
    sig = signature(st.st_ctime_ns)
    return sig, (f"racy:{sig}" if is_racy(st.st_ctime_ns, clock_ns()) else sig)


def scan(ws: Workspace) -> Scan:
    """Stat each bundle's `learning.yaml` once and never parse anything.

    This runs on every read, once per learning, so the loop does as little as Python
    allows: a stat relative to an open directory descriptor (markedly cheaper than full
    paths) and one append. The one field kept is `st_ctime_ns`, the inode change time:
    every write, rename, chmod or `touch` sets it to the clock, and no tool can set it
    back (unlike the mtime, which `touch -d`, `cp -p` and `rsync -t` restore), so it
    alone tells a changed file from an unchanged one. Keeping a second or third field
    costs ~0.5 ms per field at 10,000 learnings. Folding happens afterwards, in C: the
    quick number hashes the names, read as one big integer, with every change time in
    the same order (ints, unlike strs, hash the same in every process, and this needs
    no zlib import on the hot path).
    """
    started = clock_ns()
    folder = ws.learnings_dir_str
    try:
        names = [name for name in os.listdir(folder) if name[0] != "."]
        dir_fd = os.open(folder, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return Scan([], [], [], started)
    stat, suffix = os.stat, "/" + LEARNING_FILE
    changes: list[int] = []
    missing: list[str] = []
    others: list[str] = []
    keep = changes.append
    try:
        for name in names:
            try:
                keep(stat(name + suffix, dir_fd=dir_fd).st_ctime_ns)
            except FileNotFoundError:  # a folder without learning.yaml (or a legacy folder)
                keep(NO_BUNDLE)
                (others if name == LEGACY_SUPERSEDED_DIR else missing).append(name)
            except NotADirectoryError:  # a file beside the bundles
                keep(NOT_A_FOLDER)
                others.append(name)
    finally:
        os.close(dir_fd)
    folded = hash((int.from_bytes("\0".join(names).encode(), "little"), *changes))
    quick = f"{len(names) - len(missing) - len(others)}:{folded & 0xFFFFFFFFFFFFFFFF:x}"
    return Scan(names, changes, missing, started, legacy_files(folder, others), quick)
