"""What goes up to the app besides the intents: questions, results and the few requests only
the app can serve. Each message is a dataclass (toolong's style).

The intents themselves (a person's edits, each carrying its core call) are in
:mod:`orkas_tui.tui.intents`. A widget or screen posts an intent, or an :class:`Ask` whose
answers are intents; the app runs an intent's core call in a thread worker and posts back
what the call returned: a :class:`Done` (say how it went, read the touched areas again), an
:class:`Ask` (the file changed on disk: overwrite it?) or one of the results below that open
a screen. A result comes back to every view through the same load path as a change on disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar, dataclass_transform

from textual.message import Message
from textual.notifications import SeverityLevel

from orkas_tui.core.read.workspace import Area
from orkas_tui.core.store.proposals import Proposal
from orkas_tui.core.store.skills import BrokenSkill, Skill, SkillStore

if TYPE_CHECKING:  # the reflection path is imported only when a bundle is built
    from orkas_tui.core.reflect.reflection import Prepared

Touched = dict[str, set[Area]]  # agent id -> the areas to read again ({}: no agent, the queue only)
T = TypeVar("T", bound=Message)


@dataclass_transform(eq_default=False)
def message(cls: type[T]) -> type[T]:
    """A message class as a dataclass, but compared by identity (two saves of the same text are two
    events) and without a generated ``__repr__`` (Textual logs a message by ``__rich_repr__``):
    the app imports some thirty of them before its first paint, and each generated method costs
    start-up time."""
    return dataclass(eq=False, repr=False)(cls)


@dataclass(frozen=True)
class Question:
    """A question with a few answers; ``then`` holds the message posted for an answer (none for the others)."""

    text: str
    answers: list[tuple[str, str]]
    then: dict[str, Message] = field(default_factory=dict)
    danger: str | None = None


def changed_on_disk(name: str, overwrite: Message, reload: Message | None = None, reload_note: str = "") -> Question:
    """The question asked when a file changed on disk while a person edited it: never overwritten silently."""
    if reload is None:
        return Question(
            f"{name} changed on disk since you opened it.\nOverwrite it with your version, or keep editing?",
            [("keep", "Keep editing"), ("overwrite", "Overwrite")],
            {"overwrite": overwrite},
            danger="overwrite",
        )
    return Question(
        f"{name} changed on disk since you opened it.\n"
        f"Overwrite it with your version, reload the version on disk{reload_note}, or keep editing?",
        [("keep", "Keep editing"), ("reload", "Reload from disk"), ("overwrite", "Overwrite")],
        {"overwrite": overwrite, "reload": reload},
        danger="overwrite",
    )


@message
class Ask(Message):
    """Ask a person ``question``, after reading ``reread`` again (an open editor then hears of the change)."""

    question: Question
    reread: Touched | None = None


@message
class Done(Message):
    """A core call is done or refused: what to say (nothing when ``text`` is empty), what to read again."""

    text: str = ""
    title: str = ""
    severity: SeverityLevel = "information"
    timeout: float | None = None
    reread: Touched | None = None


@message
class ShowText(Message):
    """Show a text whole, read-only (an event the Events tab cuts to its width); then ask ``then``, if any."""

    title: str
    text: str
    then: Question | None = None


@message
class SkillOpened(Message):
    """A skill read to be edited: ``text`` is its body, or the whole file of one that does not parse."""

    agent: str
    store: SkillStore
    opened: Skill | BrokenSkill
    text: str
    version: str | None


@message
class SkillDeleted(Message):
    """A skill's file was removed: its open editors close."""

    agent: str
    slug: str


@message
class DiscardSkill(Message):
    """Drop the unsaved edits of a skill's open editors and read it again from disk."""

    agent: str
    slug: str


@message
class DiscardNote(Message):
    """Drop the unsaved edits of a self note and read it again from disk."""

    agent: str
    note: str


@message
class SettingsOpened(Message):
    """``orkas.toml`` read to be edited (the commented template when there is none yet)."""

    text: str
    version: str | None


@message
class SettingsSaved(Message):
    """``orkas.toml`` written: it is loaded now, and its editor says whether it applied."""

    text: str
    version: str | None


@message
class BundleReady(Message):
    """The bundle a reflection on ``agent`` would send now: a person is asked before it is sent (``over``: why
    today's budget says wait)."""

    agent: str
    prepared: Prepared
    over: str | None


@message
class EditOperation(Message):
    """Open one operation of a proposal in the editor, to change its fields before approving it."""

    proposal: Proposal
    index: int


@message
class SelectAgent(Message):
    """Show an agent (from the command palette): the sidebar's cursor moves to it."""

    agent: str


@message
class ActivityChanged(Message):
    """The running reflection moved on (a stage, a second, a spinner frame): its bar and badge are drawn again."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ActivityChanged)
