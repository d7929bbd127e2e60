"""Incremental JSONL reading: only new bytes, whole lines, truncation-aware.

A :class:`JsonlTail` remembers how far it has read a file. Each :meth:`poll`
reads from that offset to the last newline, holds back a trailing partial line
(a write in progress), and notices a file that shrank or was replaced (new inode,
or different leading bytes), in which case it starts over and says so.
Lines are parsed one at a time from bounded chunks, so a huge file is never held
in memory whole, and neither is a huge line: a line longer than the cap
(``max_line_bytes``) is scanned for its newline chunk by chunk, never kept, and
recorded in :attr:`JsonlTail.long_lines` (start, length) for the caller to report.
A UTF-8 byte order mark at the start of the file is not part of the first line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from orkas_tui.core.disk.confine import open_regular
from orkas_tui.core.read.events import Event, decode_line
from orkas_tui.core.read.settings import Settings

CHUNK = 4 * 1024 * 1024
HEAD = 64
BEFORE = 64  # bytes kept from just before the offset, as read (the summary cache's probe)
BOM = b"\xef\xbb\xbf"
MAX_LINE = Settings().max_line_bytes


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Line(Generic[T]):
    """One complete line: its byte span and its decoded event (``None`` if malformed)."""

    start: int
    end: int
    event: T | None


class JsonlTail:
    def __init__(
        self, path: Path, offset: int = 0, identity: tuple[int, int] | None = None, head: bytes = b"", max_line: int = MAX_LINE
    ) -> None:
        self.path = path
        self.offset = offset
        self.identity = identity
        self.head = head
        self.max_line = max_line
        self.long_lines: list[tuple[int, int]] = []  # (start, length) of lines skipped for their length, not yet taken
        # the last min(BEFORE, offset) bytes before the offset as they were read, so the cache need not open
        # the file again for them; None: not known (read from an offset this object was given, or moved past
        # a skipped line)
        self.before: bytes | None = b"" if offset == 0 else None

    def poll_blocks(self) -> tuple[bool, Iterator[tuple[int, bytes]]]:
        """Like :meth:`poll`, but yield ``(offset, data)`` blocks of whole lines, unparsed.

        For callers that parse millions of lines themselves: no per-line objects.
        The offset advances past a block when the next one is asked for (or the
        iterator ends), so a consumer that stops early re-reads the rest later.
        """
        reset, handle = self._open()
        return reset, (iter(()) if handle is None else self._blocks(handle))

    def poll(self, decode: Callable[[bytes], T | None] = decode_line) -> tuple[bool, Iterator[Line[T]]]:  # type: ignore[assignment]
        """Return ``(reset, lines)``: ``reset`` is true when earlier reads no longer hold.

        Each line is decoded by ``decode`` (a conversation's :func:`~orkas_tui.core.read.events.decode_line`
        unless told, e.g. ``events.jsonl``'s ``decode_system_line``). The file is opened now; lines are
        read lazily as the iterator is consumed, and the offset advances only past lines that were yielded.
        """
        reset, handle = self._open()
        return reset, (iter(()) if handle is None else self._lines(handle, decode))

    def _open(self):
        try:
            handle = open_regular(self.path)
        except FileNotFoundError:
            reset = self.offset > 0 or self.identity is not None
            self.offset, self.identity, self.head, self.before = 0, None, b"", b""
            return reset, None
        except OSError:  # not a regular file, outside the workspace, unreadable: nothing read (the survey says why)
            return False, None
        stat = os.fstat(handle.fileno())
        identity = (stat.st_dev, stat.st_ino)
        reset = False
        if (self.identity is not None and (identity != self.identity or stat.st_size < self.offset)) or (
            self.head and handle.read(len(self.head)) != self.head
        ):
            reset = True
        if reset:
            self.offset, self.head, self.before = 0, b"", b""
        self.identity = identity
        if stat.st_size == self.offset:
            handle.close()
            return reset, None
        return reset, handle

    def _blocks(self, handle) -> Iterator[tuple[int, bytes]]:
        """Whole-line blocks from the offset on. Chunks are at most ``max_line`` long, so a line
        longer than the cap always spans chunks and is caught where it continues one: then its
        bytes are dropped as they are read until its newline (memory: about four times the cap at most)."""
        cap = self.max_line
        size = min(CHUNK, cap)
        with handle:
            base = self.offset  # where the line now being read starts
            if base == 0:
                if len(self.head) < HEAD:
                    handle.seek(0)
                    self.head = handle.read(HEAD)
                if self.head.startswith(BOM):
                    base = len(BOM)
            handle.seek(base)
            pending = b""  # its bytes so far, when it is not over the cap
            skipped = -1  # its length so far, when it is (its bytes are not kept)
            while True:
                chunk = handle.read(size)
                if not chunk:
                    return
                data = pending + chunk if pending else chunk
                newline = data.find(b"\n")
                if skipped >= 0 or newline + 1 > cap or (newline < 0 and len(data) > cap):
                    skipped = max(skipped, 0)
                    if newline < 0:
                        skipped, pending = skipped + len(data), b""
                        continue
                    base = self._skip(base, skipped + newline + 1)
                    data, skipped = data[newline + 1 :], -1
                cut = data.rfind(b"\n")
                if cut < 0:
                    pending = data
                    continue
                pending = data[cut + 1 :]
                block = data[: cut + 1]
                yield base, block
                if len(block) >= BEFORE:
                    before = block[-BEFORE:]
                elif self.before is not None and self.offset == base:  # the bytes kept end where this block starts
                    before = (self.before + block)[-BEFORE:]
                else:
                    before = None
                base += cut + 1
                self.offset, self.before = base, before

    def _skip(self, start: int, length: int) -> int:
        """Record the over-cap line at ``start`` and move past it; return where the next line starts."""
        self.long_lines.append((start, length))
        self.offset, self.before = start + length, None
        return self.offset

    def take_long_lines(self) -> list[tuple[int, int]]:
        """The lines skipped for their length since the last call."""
        taken, self.long_lines = self.long_lines, []
        return taken

    def _lines(self, handle, decode: Callable[[bytes], T | None]) -> Iterator[Line[T]]:
        for base, block in self._blocks(handle):
            pos = base
            for raw in block.split(b"\n")[:-1]:
                start = pos
                pos += len(raw) + 1
                self.offset = pos
                yield Line(start, pos, decode(raw))


def read_span(handle, path: Path, start: int, end: int | None = None, max_line: int = MAX_LINE) -> list[tuple[int, Event | None]]:
    """The events of bytes ``start``..``end`` (the end of the file: ``None``) of ``path``, open as ``handle``
    (confined: :func:`~orkas_tui.core.disk.confine.open_regular`), each with the byte its line starts at; a
    line over ``max_line`` is skipped unread, as when it was first observed. The handle stays open."""
    events: list[tuple[int, Event | None]] = []
    bounded = _Bounded(handle, end)
    for base, block in JsonlTail(path, start, max_line=max_line)._blocks(bounded):
        offset = base
        for raw in block.split(b"\n")[:-1]:
            events.append((offset, decode_line(raw)))
            offset += len(raw) + 1
    return events


class _Bounded:
    """A file handle that reads nothing past ``end`` (``None``: to its end), and is left open."""

    def __init__(self, handle, end: int | None) -> None:
        self.handle, self.end = handle, end

    def __enter__(self) -> _Bounded:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def seek(self, offset: int) -> None:
        self.handle.seek(offset)

    def read(self, size: int) -> bytes:
        if self.end is None:
            return self.handle.read(size)
        return self.handle.read(max(0, min(size, self.end - self.handle.tell())))
