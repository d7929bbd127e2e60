"""The cyclic garbage collector on the app's schedule, so a live append never waits for a full pass.

Left to itself, Python runs a full (generation 2) pass whenever enough objects have
survived the young ones; the tables' render caches keep growing between appends,
and on a 4,000-turn agent those passes took 30 to 90 ms each, landing between a
write and its row. The app instead collects the young generations every second and
makes one full pass once it has been idle for a while after a change (or, if changes
never stop, once a minute). What survives
that pass is frozen, so the next one walks only what is new; after the person
switches agents the next pass thaws everything first, so rows of the agent left
behind are reclaimed and memory stays bounded.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

YOUNG_S = 1.0  # how often the young generations are collected (a few milliseconds)
IDLE_S = 5.0  # quiet time after a change before the full pass
BUSY_S = 60.0  # a workspace that never goes quiet still gets a full pass this often


class Collector:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._was_enabled = gc.isenabled()
        self._changed_at: float | None = None  # the last change not yet followed by a full pass
        self._thaw = False
        self._reading = 0
        self._full_at = clock()

    def start(self) -> None:
        """Take over from the automatic collector; call before any worker thread starts reading."""
        self._was_enabled = gc.isenabled()
        gc.disable()

    def stop(self) -> None:
        gc.unfreeze()  # what the app froze is garbage from now on
        if self._was_enabled:
            gc.enable()

    def changed(self, thaw: bool = False) -> None:
        """Something was shown: a full pass is due once things are quiet again. ``thaw``: what was
        frozen may have become garbage (another agent is shown), so that pass walks it too."""
        self._changed_at = self._clock()
        self._thaw = self._thaw or thaw

    @contextmanager
    def reading(self) -> Iterator[None]:
        """A whole workspace is being read (from a worker thread): a young pass would walk the
        millions of objects just made (60 to 120 ms a second, while the app paints); none runs
        until the reader has frozen what it keeps."""
        self._reading += 1
        try:
            yield
        finally:
            self._reading -= 1

    def tick(self) -> None:
        """Called every :data:`YOUNG_S` seconds."""
        if self._reading:
            return
        now = self._clock()
        if self._changed_at is None or (now - self._changed_at < IDLE_S and now - self._full_at < BUSY_S):
            gc.collect(1)
            return
        self._changed_at, self._full_at = None, now
        if self._thaw:
            self._thaw = False
            gc.unfreeze()
        gc.collect()
        gc.freeze()
