"""Lose nothing: atomic, conflict-checked writes and whole-line appends.

A file's *version* is the SHA-256 of its bytes (``None`` when it does not exist).
A writer passes the version it read; if the file on disk has another version, the
write is refused with :class:`ConflictError` unless the caller forces it. The new
bytes go to a temporary file in the same folder, are fsynced, and renamed over
the old file, so a crash leaves either the old file or the new one, never half.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import orjson

MISSING = None


class ConflictError(RuntimeError):
    """The file changed on disk since it was read; nothing was written."""

    def __init__(self, path: Path, message: str | None = None) -> None:
        super().__init__(message or f"{path} changed on disk since it was read; not overwritten")
        self.path = path


def version_of(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def open_regular(path: Path):
    """``path`` opened for binary reading; anything but a regular file (a FIFO would block
    forever, a device never end) raises :class:`OSError` instead of being read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        handle.close()
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return handle


def read_versioned(path: Path) -> tuple[bytes | None, str | None]:
    """The file's bytes and version, or ``(None, None)`` if it does not exist.

    Anything but a regular file raises :class:`OSError` instead of being read (:func:`open_regular`).
    """
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        return None, None
    with handle:
        data = handle.read()
    return data, version_of(data)


def current_version(path: Path) -> str | None:
    return read_versioned(path)[1]


def atomic_write(path: Path, data: bytes | str | list[bytes], expected: str | None | object = ..., force: bool = False,
                 durable: bool = True, lock_dir: Path | None = None) -> None:
    """Write ``data`` (a list: its pieces in order, never joined into one copy) to ``path`` atomically.

    The new version is :func:`version_of` the bytes written; not computed here, since
    caches of several megabytes never need it.

    ``expected`` is the version the caller read (``None`` = "the file must not
    exist"); leave it out to skip the check. ``force`` overwrites regardless.
    ``durable=False`` skips the ``fsync`` calls: for a cache, which is checked by its
    checksum when read and rebuilt if a crash left it torn. ``lock_dir`` holds the
    lock file instead of ``path``'s folder (a folder not ours, such as an export's).
    """
    pieces = [data.encode("utf-8")] if isinstance(data, str) else data if isinstance(data, list) else [data]
    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock((lock_dir or path.parent) / ".orkas-write.lock"):
        if not force and expected is not ...:
            if current_version(path) != expected:
                raise ConflictError(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.writelines(pieces)
                handle.flush()
                if durable:
                    os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        if durable:
            _fsync_dir(path.parent)


def remove_file(path: Path, expected: str | None | object = ..., force: bool = False) -> None:
    """Delete ``path`` if it still has the version the caller read."""
    with file_lock(path.parent / ".orkas-write.lock"):
        if not force and expected is not ... and current_version(path) != expected:
            raise ConflictError(path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        _fsync_dir(path.parent)


def read_json_object(path: Path) -> dict:
    """A JSON object file such as ``state.json``; missing, unreadable or corrupt reads as empty."""
    try:
        value = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def append_jsonl(path: Path, event: dict, sync: bool = True) -> None:
    """Append one event as a single ``write`` so concurrent appenders never interleave."""
    append_bytes(path, orjson.dumps(event) + b"\n", sync)


def append_bytes(path: Path, data: bytes, sync: bool = True) -> None:
    """Append whole lines with ``O_APPEND``, looping until every byte is written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(fd, data)
        while written < len(data):
            written += os.write(fd, data[written:])
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def file_lock(path: Path, blocking: bool = True) -> Iterator[None]:
    """An advisory exclusive lock held for the ``with`` block (between processes too).

    With ``blocking=False`` a lock held elsewhere raises :class:`BlockingIOError` at once.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BaseException:
        os.close(fd)
        raise
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
