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
    """What is on disk right now, as cheap stat signatures per bundle folder."""

    __slots__ = ("legacy", "quick", "signatures", "started_ns")

    def __init__(
        self,
        signatures: dict[str, str],
        started_ns: int,
        legacy: list[str] | None = None,
        quick: str = "",
    ) -> None:
        self.signatures = signatures
        self.started_ns = started_ns
        self.legacy = legacy or []
        self.quick = quick  # the aggregate `quick_check` computes for the same state

    def fingerprint(self, stored: dict[str, str] | None = None) -> str:
        source = stored if stored is not None else self.signatures
        text = "".join(f"{folder}={source[folder]}\n" for folder in sorted(source))
        return blake2b(text.encode(), digest_size=20).hexdigest()

    def storable(self) -> dict[str, str]:
        """Signatures to persist; racy ones are poisoned so the next read re-parses them."""
        return {
            folder: (f"racy:{sig}" if _is_racy(sig, self.started_ns) else sig)
            for folder, sig in self.signatures.items()
        }


def _is_racy(signature: str, started_ns: int) -> bool:
    for part in signature.split("|"):
        if part != "-" and int(part.split(":", 1)[0]) >= started_ns - RACY_WINDOW_NS:
            return True
    return False


_MASK = (1 << 64) - 1


def _mix(name: str, mtime_ns: int, size: int, ino: int) -> int:
    """One entry's contribution to the aggregate; order-independent, name-sensitive."""
    return ((crc32(name.encode()) + 1) * (mtime_ns ^ (size << 20) ^ (ino << 40))) & _MASK


def quick_check(ws: Workspace) -> tuple[str, int] | None:
    """The fast path of freshness: one stat per bundle folded into one number.

    Returns (aggregate, newest mtime), or None without a learnings folder. Building
    per-folder signatures (the slow path, `scan`) is only needed when this changed.
    """
    folder = ws.learnings_path
    try:
        names = os.listdir(folder)
        dir_fd = os.open(folder, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    stat = os.stat
    suffix = "/" + LEARNING_FILE
    total = count = newest = 0
    try:
        for name in names:  # the body is `_mix`, inlined: this runs per learning per read
            if name[0] == ".":
                continue
            try:
                st = stat(name + suffix, dir_fd=dir_fd)
            except (FileNotFoundError, NotADirectoryError):
                total += crc32(name.encode())
                continue
            mtime = st.st_mtime_ns
            total += (crc32(name.encode()) + 1) * (
                mtime ^ (st.st_size << 20) ^ (st.st_ino << 40)
            ) & _MASK
            count += 1
            if mtime > newest:
                newest = mtime
    finally:
        os.close(dir_fd)
    return f"{count}:{total & _MASK:x}", newest


def scan(ws: Workspace) -> Scan:
    """Stat every bundle's files (never parse them): the cheap half of freshness.

    Paths are resolved relative to an open directory descriptor, which makes
    each stat markedly cheaper than resolving the full path again.
    """
    started = time.time_ns()
    signatures: dict[str, str] = {}
    legacy: list[str] = []
    folder = ws.learnings_path
    try:
        entries = list(os.scandir(folder))
        dir_fd = os.open(folder, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return Scan({}, started)
    stat = os.stat
    suffix = "/" + LEARNING_FILE
    total = count = 0
    try:
        for entry in entries:
            name = entry.name
            if name[0] == ".":
                continue
            if not entry.is_dir():
                total += crc32(name.encode())
            if entry.is_dir():
                try:
                    st = stat(name + suffix, dir_fd=dir_fd)
                    yaml_sig = f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"
                    total += _mix(name, st.st_mtime_ns, st.st_size, st.st_ino)
                    count += 1
                except FileNotFoundError:
                    yaml_sig = "-"
                    total += crc32(name.encode())
                if name == "superseded" and yaml_sig == "-":
                    legacy.extend(
                        f"superseded/{n}"
                        for n in os.listdir(entry.path)
                        if n.endswith((".yaml", ".yml"))
                    )
                    continue
                # Only learning.yaml: votes are checked lazily for the rows a query returns.
                signatures[name] = yaml_sig
            elif name.endswith((".yaml", ".yml")) and name != "tags.yaml":
                legacy.append(name)
    finally:
        os.close(dir_fd)
    return Scan(signatures, started, sorted(legacy), f"{count}:{total & _MASK:x}")
