"""Crash-safe file primitives: atomic replace, O_APPEND line appends, locks.

A crash mid-write must leave the old file or the new one, never half of one:
write a temp file in the same folder, fsync it, `os.replace` it, fsync the folder.
"""

from __future__ import annotations

import errno
import os
import time

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store.layout import CONFIG_FILE, ORBIT_DIR, STATE_DIR

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


def make_folder(path: str | os.PathLike[str]) -> None:
    """A folder below `.orbit/` and its parents (`org-feedback/O-0012/`), never made
    through a link committed to the repository."""
    refuse_links(os.fspath(path))
    os.makedirs(path, exist_ok=True)


def read_regular_text(path: str | os.PathLike[str], *, limit: int = MAX_FILE_BYTES) -> str:
    """A small regular file's text, opened without following a link.

    A link, a device (`/dev/zero`), a folder or an oversized file is refused with an
    OrbitError naming it; a missing file raises FileNotFoundError, bad UTF-8
    UnicodeDecodeError, as `open` would.
    """
    target = os.fspath(path)
    fd, size = _open_regular(target)
    try:
        if size > limit:
            raise OrbitError(f"{target} is {size} bytes; a record is at most {limit}")
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


# --- the one door to a file the repository provides ---------------------------------
# A clone is input from strangers: a committed link may point at ~/.bashrc, /dev/zero or
# a FIFO that blocks forever. Every file orbit reads or writes that a repository can
# commit (config, glossary, state files, rule files, AGENTS.md, cited code) is opened
# through `open_repo_file` or written through `write_repo_text`, both of which ask
# `repo_file` first.


_PLACES = {ORBIT_DIR: ORBIT_DIR, STATE_DIR: f"{ORBIT_DIR}/{STATE_DIR}"}


def repo_file(
    path: str | os.PathLike[str], *, within: str, name: str | None = None, folder: bool = False
) -> str:
    """The real location of `path`, which must stay inside the folder `within` (the
    repository, or `.orbit` for orbit's own files) and, when it exists, be a regular file
    (a folder, with `folder=True`).

    A link leading outside, a link loop, a name too long for the file system, a FIFO, a
    device or a folder is refused with one OrbitError naming the file (`name`, or the
    path relative to `within`). A missing file is not refused: FileNotFoundError comes
    from the open, as it would without the check.
    """
    import stat

    target = os.path.abspath(os.fspath(path))
    shown = name or os.path.relpath(target, os.path.abspath(within))
    root = _real_root(within)
    try:
        real, mode = _walk_without_links(target, within, root)
    except OSError as exc:  # ENAMETOOLONG, ELOOP on the way down
        raise OrbitError(f"{shown}: {exc.strerror or exc}") from None
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        place = _PLACES.get(os.path.basename(root), "the repository")
        raise OrbitError(f"{shown} leads outside {place} (to {real}); orbit does not follow it")
    if mode is None:
        return real  # missing: the caller's open says so
    if stat.S_ISLNK(mode):  # realpath leaves a link it cannot resolve: a loop
        raise OrbitError(f"{shown} is a symbolic link loop")
    if not (stat.S_ISDIR if folder else stat.S_ISREG)(mode):
        raise OrbitError(f"{shown} is not a {'folder' if folder else 'regular file'}")
    return real


_REAL_ROOTS: dict[str, str] = {}


def _real_root(within: str) -> str:
    """`within` with its links resolved, once per process (a repository does not move)."""
    known = _REAL_ROOTS.get(within)
    if known is None:
        known = _REAL_ROOTS[within] = os.path.realpath(within)
    return known


def _walk_without_links(target: str, within: str, root: str) -> tuple[str, int | None]:
    """The real path of `target` and its lstat mode (None when missing). The common case,
    a path below `within` without a link, costs one lstat per step below `within`
    (`os.path.realpath` would lstat every step from `/`); a link anywhere falls back
    to realpath."""
    import stat

    relative = os.path.relpath(target, os.path.abspath(within))
    parts = relative.split(os.sep)
    here = root
    if relative != "." and ".." not in parts:
        for part in parts:
            here = os.path.join(here, part)
            try:
                mode = os.lstat(here).st_mode
            except (FileNotFoundError, NotADirectoryError):
                return os.path.join(root, relative), None
            if stat.S_ISLNK(mode):
                break
        else:
            return here, mode
    real = os.path.realpath(target)
    try:
        return real, os.lstat(real).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return real, None


def open_repo_file(path: str | os.PathLike[str], *, within: str, name: str | None = None) -> int:
    """A read-only descriptor of a regular file inside `within` (see `repo_file`), opened
    without following a link and without blocking, so a FIFO swapped in after the check
    is still refused rather than waited on. The caller closes it."""
    import stat

    real = repo_file(path, within=within, name=name)
    shown = name or os.path.relpath(os.path.abspath(os.fspath(path)), os.path.abspath(within))
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENAMETOOLONG):
            raise OrbitError(f"{shown}: {exc.strerror}") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OrbitError(f"{shown} is not a regular file")
    return fd


def read_repo_text(
    path: str | os.PathLike[str],
    *,
    within: str,
    name: str | None = None,
    limit: int = MAX_FILE_BYTES,
    errors: str = "strict",
) -> str:
    """A repository-provided file's text, through `open_repo_file`, at most `limit` bytes
    (more is refused, never half-read)."""
    fd = open_repo_file(path, within=within, name=name)
    chunks: list[bytes] = []
    try:
        size = 0
        while size <= limit and (chunk := os.read(fd, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        shown = name or os.path.relpath(os.path.abspath(os.fspath(path)), os.path.abspath(within))
        raise OrbitError(f"{shown} is larger than {limit} bytes; orbit does not read it")
    return data.decode("utf-8", errors)


def read_config_text(root: str) -> str:
    """`.orbit/config.yaml`'s text, read like any file the repository provides (inside
    `.orbit/`, bounded); raises as `read_repo_text` does. For the hot readers of one plain
    line (`id_prefix`, `repo_name`), which must not import a YAML parser."""
    orbit = os.path.join(root, ORBIT_DIR)
    return read_repo_text(
        os.path.join(orbit, CONFIG_FILE), within=orbit, name=f"{ORBIT_DIR}/{CONFIG_FILE}"
    )


def write_repo_text(
    path: str | os.PathLike[str], text: str, *, within: str, name: str | None = None
) -> str:
    """Replace a repository file atomically at its real location: through a link only
    when the link stays inside `within`, never over a FIFO, device or folder. Returns
    the real path written."""
    real = repo_file(path, within=within, name=name)
    atomic_write_text(real, text)
    return real


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


HOT_LOCK_SECONDS = 0.2  # how long a hook waits on a session's lock before going without


class LockBusy(Exception):
    """A lock stayed taken past its deadline: the caller answers without what it guards."""


def posix_lock(lock_path: str | os.PathLike[str], *, deadline: float | None = None) -> _PosixLock:
    """A lean stdlib lock for the hot path, where importing filelock costs too much. With
    `deadline` (seconds), LockBusy instead of waiting longer: an agent's hook never hangs
    on a stuck holder."""
    return _PosixLock(os.fspath(lock_path), deadline)


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
    def __init__(self, lock_path: str, deadline: float | None = None) -> None:
        self.path = lock_path
        self.deadline = deadline
        self.fd = -1

    def __enter__(self) -> None:
        import fcntl

        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if self.deadline is None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            else:
                _flock_within(fd, self.deadline)
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


def _flock_within(fd: int, seconds: float) -> None:
    """Take an exclusive flock, trying every 5 ms, or raise LockBusy after `seconds`."""
    import fcntl
    import time

    end = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= end:
                raise LockBusy(f"lock busy for {seconds} s") from None
            time.sleep(0.005)
