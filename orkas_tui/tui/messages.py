"""A person's intents, posted by the widget or screen where they are expressed.

Only the app acts on them: it runs the core call in a thread worker, says how it went
(a notification) and reads the touched areas again, so the result reaches every view
through the same load path as any change on disk. An editor recognises its own save
when the new version comes back (see ``SelfPane.show`` and ``SkillEditor.disk_changed``).
"""

from __future__ import annotations

from textual.message import Message

from orkas_tui.core.store.proposals import Proposal
from orkas_tui.core.store.scopes import Scope


class ShowText(Message):
    """Show a text whole, read-only (an event the Events tab cuts to its width)."""

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title, self.text = title, text


class SaveNote(Message):
    """Write a self note, if it is still at the version ``expected`` (or whatever it is, ``force``)."""

    def __init__(self, agent: str, note: str, text: str, expected: str | None, force: bool = False) -> None:
        super().__init__()
        self.agent, self.note, self.text, self.expected, self.force = agent, note, text, expected, force


class RevertNote(Message):
    """Drop the unsaved edits to a self note and show it as it is on disk (asks first)."""

    def __init__(self, agent: str, note: str) -> None:
        super().__init__()
        self.agent, self.note = agent, note


class OpenSkill(Message):
    """Open a skill in the editor: parsed, or as its whole text when its file does not parse."""

    def __init__(self, agent: str, slug: str) -> None:
        super().__init__()
        self.agent, self.slug = agent, slug


class SaveSkill(Message):
    """Write a skill: its description and body, or (``whole_file``) the whole text of a file that did not parse."""

    def __init__(
        self,
        agent: str,
        slug: str,
        description: str,
        body: str,
        expected: str | None,
        whole_file: bool,
        force: bool = False,
    ) -> None:
        super().__init__()
        self.agent, self.slug, self.description, self.body = agent, slug, description, body
        self.expected, self.whole_file, self.force = expected, whole_file, force


class DeleteSkill(Message):
    """Remove a skill's file (the history keeps its text), if it is still at the version ``expected``."""

    def __init__(self, agent: str, slug: str, expected: str | None) -> None:
        super().__init__()
        self.agent, self.slug, self.expected = agent, slug, expected


class ResolveHandEdit(Message):
    """Show how a skill's exported copy was edited by hand, then adopt the edit or overwrite it, as a person chooses."""

    def __init__(self, agent: str, slug: str) -> None:
        super().__init__()
        self.agent, self.slug = agent, slug


class ChangeScope(Message):
    """Ask a person where a skill belongs (global, one of the repositories it was learned in, or as learned), then set it."""

    def __init__(self, agent: str, slug: str, scope: Scope) -> None:
        super().__init__()
        self.agent, self.slug, self.scope = agent, slug, scope


class ApproveProposal(Message):
    """Apply one pending operation of a proposal, or every pending one (``index`` None). ``quarantined``:
    why the one operation is quarantined (the app asks a person to confirm it first); ``confirm``: they did."""

    def __init__(self, proposal_id: str, index: int | None, quarantined: str | None = None, confirm: bool = False) -> None:
        super().__init__()
        self.proposal_id, self.index = proposal_id, index
        self.quarantined, self.confirm = quarantined, confirm


class RejectProposal(Message):
    """Reject one operation of a proposal."""

    def __init__(self, proposal_id: str, index: int) -> None:
        super().__init__()
        self.proposal_id, self.index = proposal_id, index


class EditOperation(Message):
    """Open one operation of a proposal in the editor, to change its fields before approving it."""

    def __init__(self, proposal: Proposal, index: int) -> None:
        super().__init__()
        self.proposal, self.index = proposal, index


class RevertChange(Message):
    """Undo one applied change (a skill's or a note's), refused when its file changed since."""

    def __init__(self, change_id: str) -> None:
        super().__init__()
        self.change_id = change_id
