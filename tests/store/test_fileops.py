"""Crash-safe file primitives: whole-file replaces, whole-line appends, locks."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from orbit_learnings.core.errors import OrbitError
from orbit_learnings.store import fileops


def test_atomic_write_creates_folders_and_replaces_the_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "f.txt"
    fileops.atomic_write_text(target, "a much longer first version\n")
    fileops.atomic_write_text(str(target), "short\n", durable=False)
    assert target.read_text() == "short\n"
    assert os.listdir(target.parent) == ["f.txt"]


def test_atomic_write_keeps_text_byte_for_byte(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    fileops.atomic_write_text(target, "crlf\r\nünï\n")
    assert target.read_bytes() == "crlf\r\nünï\n".encode()


def test_a_failure_mid_write_keeps_the_old_content_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old\n")
    with pytest.raises(UnicodeEncodeError):
        fileops.atomic_write_text(target, "new half\n\udc80 unencodable")
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["f.txt"]


def test_remove_if_present_tolerates_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "gone"
    path.write_text("x")
    fileops.remove_if_present(str(path))
    fileops.remove_if_present(str(path))
    assert not path.exists()


def test_fsync_dir_ignores_folders_it_cannot_open(tmp_path: Path) -> None:
    fileops.fsync_dir(tmp_path / "missing")
    fileops.fsync_dir(tmp_path)


def test_append_line_writes_exactly_one_newline(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    fileops.append_line(path, "first")
    fileops.append_line(path, "second\n", durable=False)
    fileops.append_line(path, "third\n\n")
    assert path.read_text() == "first\nsecond\nthird\n"


def test_append_line_is_one_write_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One O_APPEND write per line is what keeps concurrent appenders from interleaving."""
    sizes: list[int] = []
    real_write = os.write

    def counting_write(fd: int, data: bytes) -> int:
        sizes.append(len(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", counting_write)
    path = tmp_path / "log.jsonl"
    path.write_text("earlier\n")
    fileops.append_line(path, "x" * 100_000)
    assert sizes == [100_001]
    assert path.read_text() == "earlier\n" + "x" * 100_000 + "\n"


def test_file_lock_excludes_a_second_holder_with_a_clear_error(tmp_path: Path) -> None:
    lock_path = tmp_path / "state" / "locks" / "store.lock"
    with fileops.file_lock(lock_path):
        assert lock_path.parent.is_dir()
        with (
            pytest.raises(OrbitError, match=r"another orbit process holds store\.lock"),
            fileops.file_lock(lock_path, timeout=0),
        ):
            pass
    with fileops.file_lock(lock_path, timeout=0):  # released on exit
        pass


def _try_flock(path: str) -> bool:
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)


def test_posix_lock_holds_an_exclusive_lock_until_exit(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "a.lock"
    lock = fileops.posix_lock(path)
    with lock:
        assert not _try_flock(str(path))
    assert _try_flock(str(path))
    assert lock.fd == -1
