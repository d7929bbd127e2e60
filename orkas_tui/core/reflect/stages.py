"""A running reflection's stages and its progress line: what the app shows of a reflection without
importing the reflection itself (pydantic and the answer's models come with it: a third of the
app's start-up, for a screen that has not asked to reflect yet)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

BUNDLE, WAITING, RETRYING, VALIDATING, APPLYING, DONE = "bundle", "waiting", "retrying", "validating", "applying", "done"
NOTHING_NEW = "nothing new since the last reflection: every turn was read by one already (read marks); nothing sent"


@dataclass(frozen=True)
class Progress:
    """One step of a running reflection, for a progress line or a log."""

    agent: str
    stage: str
    message: str


ProgressFn = Callable[[Progress], None]
