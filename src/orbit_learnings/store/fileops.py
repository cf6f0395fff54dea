"""Crash-safe file primitives: atomic replace, O_APPEND line appends, locks.

A crash mid-write must leave the old file or the new one, never half of one:
write a temp file in the same folder, fsync it, `os.replace` it, fsync the folder.
"""

from __future__ import annotations

import errno
import os
import time

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.layout import ORBIT_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def atomic_write_text(path: str | os.PathLike[str], text: str, *, durable: bool = True) -> None:
    """Replace a file's content all at once (temp file in the same folder, fsync, rename).

    The temp name is unique per process and moment, so no `tempfile` import is
    needed on the hot path (session files are written on every hook call).
    """
    target = os.fspath(path)
    refuse_links(target)
    folder = os.path.dirname(target) or "."
    os.makedirs(folder, exist_ok=True)
    tmp_name = os.path.join(
        folder, f".{os.path.basename(target)}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    )
    fd = os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        remove_if_present(tmp_name)
        raise
    if durable:
        fsync_dir(folder)


MAX_FILE_BYTES = 1024 * 1024  # a learning or a sidecar is kilobytes; more is not ours to read


def refuse_links(path: str) -> None:
    """Refuse a path that goes through a symbolic link below `.orbit/`: a link committed
    to the repository must never make orbit write (or read) anywhere else."""
    parts = os.path.abspath(path).split(os.sep)
    if ORBIT_DIR not in parts:
        return
    start = parts.index(ORBIT_DIR) + 1
    for end in range(start + 1, len(parts) + 1):
        candidate = os.sep.join(parts[:end])
        if os.path.islink(candidate):
            raise OrbitError(f"{candidate} is a symbolic link; orbit does not follow links")


def read_regular_text(path: str | os.PathLike[str], *, limit: int = MAX_FILE_BYTES) -> str:
    """A small regular file's text, opened without following a link.

    A link, a device (`/dev/zero`), a folder or an oversized file is refused with an
    OrbitError naming it; a missing file raises FileNotFoundError, bad UTF-8
    UnicodeDecodeError, as `open` would.
    """
    import stat

    target = os.fspath(path)
    refuse_links(os.path.dirname(target))
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OrbitError(f"{target} is a symbolic link; orbit does not follow links") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OrbitError(f"{target} is not a regular file")
        if info.st_size > limit:
            raise OrbitError(f"{target} is {info.st_size} bytes; a record is at most {limit}")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    return data.decode("utf-8")


def remove_if_present(path: str) -> None:
    """Unlink a file that may already be gone (no contextlib import on the hot path)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Make a rename durable; a no-op where directories cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_text_prefix(
    path: str | os.PathLike[str], *, limit: int = MAX_FILE_BYTES
) -> tuple[str, int]:
    """(text, size) of an append-only sidecar: all of it, or when it is past `limit`
    its first `limit` bytes up to the last whole line, so a reader counts what it can
    instead of nothing. Refuses what `read_regular_text` refuses, but the size."""
    fd, size = _open_regular(os.fspath(path))
    try:
        data = os.read(fd, limit)
    finally:
        os.close(fd)
    if size > limit:
        data = data[: data.rfind(b"\n") + 1]
    return data.decode("utf-8"), size


def regular_size(path: str | os.PathLike[str]) -> int:
    """A file's size before a writer appends to it (0 when missing): a link, a FIFO or a
    device there is refused, never written through."""
    import stat

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return 0
    if stat.S_ISLNK(info.st_mode):
        raise OrbitError(f"{os.fspath(path)} is a symbolic link; orbit does not follow links")
    if not stat.S_ISREG(info.st_mode):
        raise OrbitError(f"{os.fspath(path)} is not a regular file; orbit does not write to it")
    return info.st_size


def open_regular(path: str | os.PathLike[str]) -> Any:
    """A regular file opened for reading in binary, as `read_regular_text` would open it:
    for the rare reader that streams a file past the bound (folding a busy sidecar)."""
    fd, _ = _open_regular(os.fspath(path))
    return os.fdopen(fd, "rb")


def _open_regular(target: str) -> tuple[int, int]:
    """An open descriptor on a regular file and its size; never through a link."""
    import stat

    refuse_links(os.path.dirname(target))
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OrbitError(f"{target} is a symbolic link; orbit does not follow links") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise OrbitError(f"{target} is not a regular file")
    return fd, info.st_size


def append_line(path: str | os.PathLike[str], line: str, *, durable: bool = True) -> None:
    """Append one line with a single O_APPEND write, so concurrent appenders never interleave.

    `durable=False` skips the fsync for derived state under `.orbit/state/`
    (session sets, the injection log), which hooks write on every call.
    """
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    refuse_links(os.fspath(path))
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


# The locks are small classes rather than @contextlib.contextmanager functions: this
# module is on the hot path, and importing contextlib costs about a millisecond.


def file_lock(lock_path: Path, timeout: float = 30.0) -> _FileLock:
    """A cross-process lock for writers (ID allocation, sidecar appends, supersede)."""
    return _FileLock(lock_path, timeout)


def posix_lock(lock_path: str | os.PathLike[str]) -> _PosixLock:
    """A lean stdlib lock for the hot path, where importing filelock costs too much."""
    return _PosixLock(os.fspath(lock_path))


class _FileLock:
    def __init__(self, lock_path: Path, timeout: float) -> None:
        from filelock import FileLock

        self.path = lock_path
        self.timeout = timeout
        self.lock = FileLock(str(lock_path), timeout=timeout)

    def __enter__(self) -> None:
        from filelock import Timeout

        from orbit_learnings.core.errors import OrbitError

        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.lock.acquire()
        except Timeout:
            raise OrbitError(
                f"another orbit process holds {self.path.name}"
                f" (waited {self.timeout:.0f}s); try again"
            ) from None

    def __exit__(self, *exc_info: object) -> None:
        self.lock.release()


class _PosixLock:
    def __init__(self, lock_path: str) -> None:
        self.path = lock_path
        self.fd = -1

    def __enter__(self) -> None:
        import fcntl

        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    def __exit__(self, *exc_info: object) -> None:
        import fcntl

        fd, self.fd = self.fd, -1
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
