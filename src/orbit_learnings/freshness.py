"""Freshness: has anything under `.orbit/learnings/` changed since the index was built?

Reads answer this on every call, so it never parses YAML: it stats each bundle's
`learning.yaml` (relative to an open directory descriptor) and folds the results
into one number. Only when that number changed does the index build per-bundle
signatures and re-parse the bundles that differ. Stdlib only.
"""

from __future__ import annotations

import os
import time
from zlib import crc32

from orbit_learnings.workspace import Workspace

try:  # the C module behind hashlib.blake2b, without hashlib's OpenSSL start-up cost
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

LEARNING_FILE = "learning.yaml"
VOTES_FILE = "votes.jsonl"
# A file modified this close to the scan could change again within the same
# timestamp tick without its stat changing (git's "racy" case): re-read it next time.
RACY_WINDOW_NS = 1_000_000_000  # covers filesystems with 1-second timestamps


class Scan:
    """What is on disk right now: one stat of each bundle's `learning.yaml`.

    `quick` folds every stat into one number (the fast path: compare it with the one
    stored at the last refresh). Per-folder `signatures`, needed only when it differs,
    are built lazily from the same stats, so a read never stats a file twice.
    """

    __slots__ = ("_fingerprint", "entries", "legacy", "missing", "newest", "quick", "started_ns")

    def __init__(
        self,
        entries: list[tuple[str, int, int, int]],
        missing: list[str],
        started_ns: int,
        legacy: list[str] | None = None,
        quick: str = "",
        newest: int = 0,
    ) -> None:
        self.entries = entries  # (folder, mtime_ns, size, inode) of each learning.yaml
        self.missing = missing  # folders without a learning.yaml
        self.started_ns = started_ns
        self.legacy = legacy or []
        self.quick = quick
        self.newest = newest
        self._fingerprint: str | None = None

    @property
    def signatures(self) -> dict[str, str]:
        found = {name: signature(mtime, size, ino) for name, mtime, size, ino in self.entries}
        found.update(dict.fromkeys(self.missing, "-"))
        return found

    @property
    def racy(self) -> set[str]:
        """Folders written so recently that a same-tick rewrite could hide behind their stat."""
        return {name for name, mtime, _, _ in self.entries if is_racy(mtime, self.started_ns)}

    def settled(self) -> bool:
        """True when no file is young enough to be racy: the quick number can be trusted."""
        return not is_racy(self.newest, self.started_ns)

    def fingerprint(self, stored: dict[str, str] | None = None) -> str:
        if stored is None and self._fingerprint is not None:
            return self._fingerprint
        source = stored if stored is not None else self.signatures
        text = "".join(f"{folder}={source[folder]}\n" for folder in sorted(source))
        digest = blake2b(text.encode(), digest_size=20).hexdigest()
        if stored is None:
            self._fingerprint = digest
        return digest

    def storable(self) -> dict[str, str]:
        """Signatures to persist; racy ones are poisoned so the next read re-parses them."""
        racy = self.racy
        return {f: (f"racy:{sig}" if f in racy else sig) for f, sig in self.signatures.items()}


def signature(mtime_ns: int, size: int, ino: int) -> str:
    return f"{mtime_ns}:{size}:{ino}"


def is_racy(mtime_ns: int, reference_ns: int) -> bool:
    """Written so close to `reference_ns` that a same-tick rewrite could hide behind its stat."""
    return mtime_ns >= reference_ns - RACY_WINDOW_NS


def file_signature(path: str) -> tuple[str, str]:
    """One file's stat as (current, storable): "-" when it does not exist; the storable
    form is poisoned with `racy:` while the file is too young to trust, so that it never
    equals a later current signature and the next read looks again."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "-", "-"
    sig = signature(st.st_mtime_ns, st.st_size, st.st_ino)
    return sig, (f"racy:{sig}" if is_racy(st.st_mtime_ns, time.time_ns()) else sig)


_MASK = (1 << 64) - 1


def scan(ws: Workspace) -> Scan:
    """Stat each bundle's `learning.yaml` once (relative to an open directory descriptor,
    markedly cheaper than full paths) and never parse anything."""
    started = time.time_ns()
    folder = ws.learnings_path
    try:
        names = os.listdir(folder)
        dir_fd = os.open(folder, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return Scan([], [], started)
    stat = os.stat
    suffix = "/" + LEARNING_FILE
    entries: list[tuple[str, int, int, int]] = []
    missing: list[str] = []
    legacy: list[str] = []
    total = newest = 0
    try:
        for name in names:  # runs once per learning on every read: kept tight on purpose
            if name[0] == ".":
                continue
            try:
                st = stat(name + suffix, dir_fd=dir_fd)
            except FileNotFoundError:  # a folder without learning.yaml
                total += crc32(name.encode())
                if name == "superseded":
                    legacy += [
                        f"superseded/{n}"
                        for n in os.listdir(os.path.join(folder, name))
                        if n.endswith((".yaml", ".yml"))
                    ]
                else:
                    missing.append(name)
                continue
            except NotADirectoryError:  # a file beside the bundles
                total += crc32(name.encode())
                if name.endswith((".yaml", ".yml")) and name != "tags.yaml":
                    legacy.append(name)
                continue
            mtime, size, ino = st.st_mtime_ns, st.st_size, st.st_ino
            total += (crc32(name.encode()) + 1) * (mtime ^ (size << 20) ^ (ino << 40)) & _MASK
            entries.append((name, mtime, size, ino))
            if mtime > newest:
                newest = mtime
    finally:
        os.close(dir_fd)
    quick = f"{len(entries)}:{total & _MASK:x}"
    return Scan(entries, missing, started, sorted(legacy), quick, newest)
