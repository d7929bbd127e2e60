"""Where a path really is, and reading it safely: confinement, regular-file opens, versions.

Every path named under a workspace root (registered by :func:`register_root`, as
``Workspace`` and ``AgentPaths`` do) is confined to it: each open, append, lock,
write and delete (here and in :mod:`.write`) first resolves the path and raises
:class:`OutsideWorkspace` (an ``OSError``, so callers that survive an unreadable file
survive this too) if its real location is outside the root's, then opens the resolved
path with ``O_NOFOLLOW`` and ``O_NONBLOCK``, so neither a link swapped in since nor a
FIFO is followed or waited on. Done here, in the primitives, so that no caller can
forget it.

A file's *version* is the SHA-256 of its bytes (``None`` when it does not exist):
what a writer passes back to :mod:`.write` to refuse overwriting an edit made since.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import overload

import orjson


class OutsideWorkspace(OSError):
    """The path's real location (links resolved) is outside its workspace: never read or written through."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.EXDEV, "links outside the workspace", path)

    def __str__(self) -> str:
        return f"{self.filename}: links outside the workspace; not read or written"


_ROOTS: dict[str, str] = {}  # a workspace root as named (absolute, not normalised) -> its real location


def register_root(root: Path | str) -> None:
    """Confine every path named under ``root`` to ``root``'s real location from now on (idempotent)."""
    named = os.path.abspath(root)
    if named not in _ROOTS:
        _ROOTS[named] = os.path.realpath(named)


def _absolute(path: Path | str) -> str:
    """``path`` made absolute without normalising ``..`` (``root/self/../../x`` stays under ``root`` as named)."""
    raw = os.fspath(path)
    return raw if os.path.isabs(raw) else os.path.join(os.getcwd(), raw)


def _root_of(named: str) -> str | None:
    """The real location of the innermost registered root ``named`` lies under, if any."""
    probe = named
    while True:
        real = _ROOTS.get(probe)
        if real is not None:
            return real
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def confined(path: Path | str) -> str:
    """``path``'s real location (links and ``..`` resolved; a missing tail kept as named).

    Raises :class:`OutsideWorkspace` when ``path`` is named under a registered workspace root
    but really lies outside it: a linked folder, a link to an outside file, a ``../`` target.
    """
    named = _absolute(path)
    real = os.path.realpath(named)
    root = _root_of(named)
    if root is not None and real != root and not real.startswith(root if root.endswith("/") else root + "/"):
        raise OutsideWorkspace(named)
    return real


@overload
def version_of(data: bytes) -> str: ...
@overload
def version_of(data: bytes | None) -> str | None: ...
def version_of(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def open_confined(path: Path | str, flags: int, mode: int = 0o644) -> int:
    """``os.open`` of ``path``'s real location, confined (:func:`confined`), never following a last link
    (a link loop, or a link swapped in since the check, fails with ``ELOOP``). ``O_NONBLOCK``: a FIFO
    never blocks the open (on a regular file the flag does nothing); anything but a regular file then
    raises ``OSError`` (``EINVAL``)."""
    real = confined(path)
    fd = os.open(real, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path: Path | str):
    """``path`` opened for binary reading, confined to its workspace (:func:`confined`).

    Anything but a regular file (a FIFO would block forever, a device never end, a link
    loop never resolve) raises :class:`OSError` instead of being read; so does a path whose
    real location is outside its workspace, except that a link to nothing reads as missing
    (``FileNotFoundError``: there is nothing to leak, and a writer may replace the link).
    """
    try:
        fd = open_confined(path, os.O_RDONLY)
    except OutsideWorkspace:
        if not os.path.lexists(os.path.realpath(_absolute(path))):
            raise FileNotFoundError(errno.ENOENT, "no such file", os.fspath(path)) from None
        raise
    return os.fdopen(fd, "rb")


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


def read_regular(path: Path) -> bytes:
    """A confined regular file's bytes; a missing one raises :class:`FileNotFoundError`."""
    with open_regular(path) as handle:
        return handle.read()


def current_version(path: Path) -> str | None:
    return read_versioned(path)[1]


def read_json_object(path: Path) -> dict:
    """A JSON object file such as ``state.json``; missing, unreadable, outside or corrupt reads as empty."""
    try:
        with open_regular(path) as handle:
            value = orjson.loads(handle.read())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}
