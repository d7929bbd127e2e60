"""The cyclic garbage collector on the app's schedule, so a live append never waits for a full pass.

Left to itself, Python runs a full (generation 2) pass whenever enough objects have
survived the young ones; the tables' render caches keep growing between appends,
and on a 4,000-turn agent those passes took 30 to 90 ms each, landing between a
write and its row. The app instead collects the young generations every second and
makes one full pass after a change once it has been idle for a while.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

YOUNG_S = 1.0  # how often the young generations are collected (a few milliseconds)
IDLE_S = 5.0  # quiet time after a change before the full pass


class Collector:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._was_enabled = gc.isenabled()
        self._changed_at: float | None = None  # the last change not yet followed by a full pass

    def start(self) -> None:
        """Take over from the automatic collector; call before any worker thread starts reading."""
        self._was_enabled = gc.isenabled()
        gc.disable()

    def stop(self) -> None:
        if self._was_enabled:
            gc.enable()

    def changed(self) -> None:
        """Something was shown: a full pass is due once things are quiet again."""
        self._changed_at = self._clock()

    def tick(self) -> None:
        """Called every :data:`YOUNG_S` seconds."""
        if self._changed_at is not None and self._clock() - self._changed_at >= IDLE_S:
            self._changed_at = None
            gc.collect()
        else:
            gc.collect(1)
