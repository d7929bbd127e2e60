"""Lose nothing: atomic, conflict-checked writes, removals, whole-line appends and locks.

A writer passes the version it read (:func:`~.confine.version_of`); if the file on disk
has another version, the write is refused with :class:`ConflictError` unless the caller
forces it. The new bytes go to a temporary file in the same folder, are fsynced, and
renamed over the old file, so a crash leaves either the old file or the new one, never
half. Every path is confined to its workspace first (:mod:`.confine`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import confined, current_version, open_confined
from orkas_tui.core.errors import OrkasError

LOCK_RETRY_S = 0.01  # between tries of a lock with a deadline


class ConflictError(OrkasError, RuntimeError):
    """The file changed on disk since it was read; nothing was written."""

    def __init__(self, path: Path, message: str | None = None) -> None:
        super().__init__(message or f"{path} changed on disk since it was read; not overwritten")
        self.path = path


def atomic_write(
    path: Path,
    data: bytes | str | Sequence[bytes | bytearray | memoryview],
    expected: str | object | None = ...,
    force: bool = False,
    durable: bool = True,
    lock_dir: Path | None = None,
) -> None:
    """Write ``data`` (a list of pieces: in order, never joined into one copy) to ``path`` atomically.

    The new version is :func:`version_of` the bytes written; not computed here, since
    caches of several megabytes never need it.

    ``expected`` is the version the caller read (``None`` = "the file must not
    exist"); leave it out to skip the check. ``force`` overwrites regardless.
    ``durable=False`` skips the ``fsync`` calls: for a cache, which is checked by its
    checksum when read and rebuilt if a crash left it torn. ``lock_dir`` holds the
    lock file instead of ``path``'s folder (a folder not ours, such as an export's).
    """
    import tempfile  # start-up time: it pulls shutil, random, bz2 and lzma; a warm status writes nothing

    pieces = [data.encode("utf-8")] if isinstance(data, str) else [data] if isinstance(data, bytes) else data
    folder = Path(confined(path.parent))  # the link at ``path`` itself is replaced, never followed
    folder.mkdir(parents=True, exist_ok=True)
    with file_lock((lock_dir or folder) / ".orkas-write.lock"):
        if not force and expected is not ... and current_version(path) != expected:
            raise ConflictError(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.writelines(pieces)
                handle.flush()
                if durable:
                    os.fsync(handle.fileno())
            os.replace(tmp, folder / path.name)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        if durable:
            _fsync_dir(folder)


def atomic_write_all(items: Sequence[tuple[Path, bytes]]) -> list[tuple[Path, OSError]]:
    """Write each ``(path, data)`` atomically and durably, as :func:`atomic_write` without a version check.

    Synced as a group rather than file by file: every temporary file is written, then all
    are synced (:func:`sync_files`), then each is renamed over its target, then each folder
    fsynced once; still no target is ever replaced by bytes that are not on disk. An item
    that fails is returned with its error, its temporary file removed; the others are
    written. No lock is taken: the caller holds whatever lock guards these files.
    """
    import tempfile  # start-up time, as in atomic_write

    failed: list[tuple[Path, OSError]] = []
    staged: dict[str, tuple[Path, Path]] = {}  # temporary file -> (target, its real folder)
    for path, data in items:
        try:
            folder = Path(confined(path.parent))  # the link at ``path`` itself is replaced, never followed
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        except OSError as exc:
            failed.append((path, exc))
            continue
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
        except OSError as exc:
            _discard(tmp)
            failed.append((path, exc))
        else:
            staged[tmp] = (path, folder)
    for tmp, error in sync_files(list(staged), names=False):
        _discard(tmp)
        failed.append((staged.pop(tmp)[0], error))
    folders: dict[Path, None] = {}
    for tmp, (path, folder) in staged.items():
        try:
            os.replace(tmp, folder / path.name)
            folders[folder] = None
        except OSError as exc:
            _discard(tmp)
            failed.append((path, exc))
    for folder in folders:
        _fsync_dir(folder)
    return failed


def _discard(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


GROUP_SYNC = 8  # files written together that are synced by one ``syncfs`` rather than one ``fsync`` each


def sync_files(paths: Sequence[str], names: bool = True) -> list[tuple[str, OSError]]:
    """Make what was written to each of ``paths`` durable, with the names of new files unless
    ``names`` is false (a temporary file's name does not matter); return the paths that could
    not be synced, each with its error.

    At least :data:`GROUP_SYNC` files on one filesystem are synced by one ``syncfs`` of it where
    the system has one (Linux): one journal commit for them all instead of one a file (216
    files: 0.07 s against 1.0 s on a busy host). ``syncfs`` also writes other programs' pending
    data on that filesystem, which is why fewer files are each fsynced (then their folders),
    and why a ``syncfs`` that fails sends them down that path, which tells which file failed.
    Each path is opened confined, like every open here.
    """
    if len(paths) >= GROUP_SYNC:
        try:
            devices = {os.stat(confined(path)).st_dev for path in paths}
        except OSError:
            devices = set()
        if len(devices) == 1 and _syncfs(paths[0]):
            return []
    failed: list[tuple[str, OSError]] = []
    folders: dict[str, None] = {}
    for path in paths:
        try:
            fd = open_confined(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            if names:
                folders[os.path.dirname(confined(path))] = None
        except OSError as exc:
            failed.append((path, exc))
    for folder in folders:
        _fsync_dir(Path(folder))
    return failed


_SYNCFS: list = []  # the C library's ``syncfs`` once looked up (``None``: the system has none)


def _syncfs(path: str) -> bool:
    """``syncfs`` of the filesystem holding ``path``; ``False`` where there is none or it failed."""
    if not _SYNCFS:
        import ctypes  # only here: most commands never sync a group

        try:
            _SYNCFS.append(getattr(ctypes.CDLL(None, use_errno=True), "syncfs", None))
        except OSError:
            _SYNCFS.append(None)
    call = _SYNCFS[0]
    if call is None:
        return False
    try:
        fd = open_confined(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return call(fd) == 0
    finally:
        os.close(fd)


def remove_file(path: Path, expected: str | object | None = ..., force: bool = False) -> None:
    """Delete ``path`` (a link: the link itself) if it still has the version the caller read."""
    folder = Path(confined(path.parent))
    with file_lock(folder / ".orkas-write.lock"):
        if not force and expected is not ... and current_version(path) != expected:
            raise ConflictError(path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(folder / path.name)
        _fsync_dir(folder)


def append_jsonl(path: Path, event: dict, sync: bool = True) -> None:
    """Append one event as a single ``write`` so concurrent appenders never interleave."""
    append_bytes(path, orjson.dumps(event) + b"\n", sync)


def append_bytes(path: Path, data: bytes, sync: bool = True) -> None:
    """Append whole lines with ``O_APPEND``, looping until every byte is written.

    Confined like every open here: a link out of the workspace or a FIFO raises ``OSError``
    (a FIFO without a reader at once, ``ENXIO``), never blocks."""
    os.makedirs(os.path.dirname(confined(path)), exist_ok=True)
    fd = open_confined(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        written = os.write(fd, data)
        while written < len(data):
            written += os.write(fd, data[written:])
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def file_lock(path: Path, blocking: bool = True, deadline: float | None = None) -> Iterator[None]:
    """An advisory exclusive lock held for the ``with`` block (between processes too).

    With ``blocking=False`` a lock held elsewhere raises :class:`BlockingIOError` at once;
    with a ``deadline`` (a :func:`time.monotonic` time) it is tried until then, then raises
    it: a hook waits a bounded time, never for another process to finish.
    """
    os.makedirs(os.path.dirname(confined(path)), exist_ok=True)
    fd = open_confined(path, os.O_RDWR | os.O_CREAT)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX if blocking and deadline is None else fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if deadline is None or time.monotonic() >= deadline:
                    raise
                time.sleep(LOCK_RETRY_S)
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
