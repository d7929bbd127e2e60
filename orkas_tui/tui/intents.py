"""A person's intents: each a message (a dataclass) that carries its core call and the areas it touches.

A widget or screen posts one where it is expressed; the app alone carries it out, in one
way for all (harlequin's shape): :meth:`Intent.run` in a thread worker, then the message it
returns is posted back, a :class:`~orkas_tui.tui.messages.Done` that says how it went and
names the areas to read again, or a result that opens a screen. A core refusal (an
``OrkasError`` or an ``OSError``) becomes :meth:`Intent.refused`; a file changed on disk
since it was read (``ConflictError``) becomes :meth:`Intent.conflict`: refused, or a question
whose answers are the same intent forced, or dropping the edits. Only the core writes files.

An editor recognises its own save when the new version comes back (see ``SelfPane.show`` and
``SkillEditor.disk_changed``).
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.message import Message
from textual.notifications import SeverityLevel

from orkas_tui.core.disk.confine import read_versioned
from orkas_tui.core.disk.write import ConflictError
from orkas_tui.core.errors import OrkasError
from orkas_tui.core.read.workspace import Area, Workspace
from orkas_tui.core.reflect.spend import over_budget
from orkas_tui.core.store.changes import approve, edit_operation, reject, revert_change
from orkas_tui.core.store.export import hand_edit, overwrite_hand_edit, rescope
from orkas_tui.core.store.first_run import display_path
from orkas_tui.core.store.proposals import PROPOSALS
from orkas_tui.core.store.scopes import GLOBAL, LEARNED, REPO, Scope
from orkas_tui.core.store.settings_file import read_settings_text, save_settings_text
from orkas_tui.core.store.skills import BrokenSkill, SkillError, SkillStore
from orkas_tui.core.store.user_edits import adopt_hand_edit, delete_skill, edit_skill, save_note, save_skill_text
from orkas_tui.importers.hook_log import mark_seen
from orkas_tui.tui.exported import export_notice
from orkas_tui.tui.messages import (
    Ask,
    BundleReady,
    DiscardNote,
    DiscardSkill,
    Done,
    Question,
    SettingsOpened,
    SettingsSaved,
    ShowText,
    SkillDeleted,
    SkillOpened,
    changed_on_disk,
    message,
)

if TYPE_CHECKING:  # the reflection path is imported only when a bundle is built (in the worker)
    from orkas_tui.core.reflect.reflection import Prepared

SKILL_EDITED = frozenset({Area.SKILLS, Area.EVENTS, Area.PRIVATE})  # the file, the event logged, the history


@message
class Intent(Message):
    """One core call, run by the app in a thread worker (``group``: the worker's group); never on the event loop."""

    group: ClassVar[str] = "intent"
    title: ClassVar[str] = ""  # of the notification that says why the core refused it
    timeout: ClassVar[float | None] = None
    refusals: ClassVar[tuple[type[Exception], ...]] = (OrkasError, OSError)  # what a person can act on; else a bug

    def run(self, workspace: Workspace, now: datetime) -> Message:
        """The core call, in a thread: the message the app then handles (most often a ``Done``)."""
        raise NotImplementedError

    def refused(self, exc: Exception) -> Message:
        """The core said no (its message says why and what to do): nothing was written."""
        return Done(str(exc), self.title, "error", self.timeout)

    def conflict(self, exc: ConflictError) -> Message:
        """The file changed on disk since it was read: refused, unless the intent asks whether to overwrite."""
        return self.refused(exc)


# skills --------------------------------------------------------------------


@message
class OpenSkill(Intent):
    """Open a skill in the editor: parsed, or as its whole text when its file does not parse."""

    agent: str
    slug: str
    group = "skill-io"

    def run(self, workspace: Workspace, now: datetime) -> Message:
        store = SkillStore(workspace.agent(self.agent), workspace.settings)
        opened = store.open(self.slug)
        if not isinstance(opened, BrokenSkill):
            return SkillOpened(self.agent, store, opened, opened.body, opened.version)
        try:  # a file that does not parse opens as its whole text, to be fixed
            data, version = read_versioned(opened.path)
        except OSError:
            data = None
        if data is None:
            raise SkillError(opened.problem)
        return SkillOpened(self.agent, store, opened, data.decode("utf-8", "replace"), version)


@message
class SaveSkill(Intent):
    """Write a skill: its description and body, or (``whole_file``) the whole text of a file that did not parse,
    if it is still at the version ``expected`` (or whatever it is, ``force``)."""

    agent: str
    slug: str
    description: str
    body: str
    expected: str | None
    whole_file: bool
    force: bool = False
    group = "skill-io"
    title = "Not saved"
    timeout = 8

    def run(self, workspace: Workspace, now: datetime) -> Message:
        paths, settings, slug = workspace.agent(self.agent), workspace.settings, self.slug
        if self.whole_file:
            save_skill_text(paths, settings, slug, self.body, self.expected, now, force=self.force)
        else:
            edit_skill(paths, settings, slug, self.description, self.body, self.expected, now, force=self.force)
        done = "fixed and saved" if self.whole_file else "saved"
        return Done(f"{slug}.md {done}; F2 shows it in the history (revertable)", "Skill", reread={self.agent: set(SKILL_EDITED)})

    def conflict(self, exc: ConflictError) -> Message:
        discard = DiscardSkill(self.agent, self.slug)
        question = changed_on_disk(f"{self.slug}.md", replace(self, force=True), discard, " (your edits are lost)")
        return Ask(question, reread={self.agent: {Area.SKILLS}})  # the editor hears of the change on disk


@message
class DeleteSkill(Intent):
    """Remove a skill's file (the history keeps its text), if it is still at the version ``expected``."""

    agent: str
    slug: str
    expected: str | None
    group = "skill-io"

    def run(self, workspace: Workspace, now: datetime) -> Message:
        delete_skill(workspace.agent(self.agent), workspace.settings, self.slug, self.expected, now)
        return SkillDeleted(self.agent, self.slug)

    def conflict(self, exc: ConflictError) -> Message:
        return Done(f"{self.slug}.md changed on disk; not deleted. Reload it first.", severity="error", timeout=8)


@message
class ResolveHandEdit(Intent):
    """Show how a skill's exported copy was edited by hand (the diff from what the export writes), then ask
    whether to adopt the edit or overwrite it."""

    agent: str
    slug: str
    group = "skill-io"

    def run(self, workspace: Workspace, now: datetime) -> Message:
        slug = self.slug
        found = hand_edit(workspace.agent(self.agent), workspace.settings, slug)
        if found is None:
            return Done(f"{slug}: its exported copy is not edited by hand any more", timeout=5)
        lines = difflib.unified_diff(
            found.ours.splitlines(), found.theirs.splitlines(), "what the export writes", str(found.path), lineterm=""
        )
        question = Question(
            f"{display_path(found.path)} was edited by hand. Adopt the edit into the workspace skill (recorded, "
            "revertable), or overwrite it with the skill?",
            [("adopt", "Adopt the edit"), ("overwrite", "Overwrite it"), ("cancel", "Cancel")],
            {answer: SettleHandEdit(self.agent, slug, answer) for answer in ("adopt", "overwrite")},
        )
        title = f"{slug}: edited by hand in {display_path(found.path)} (esc: then adopt it or overwrite it)"
        return ShowText(title, "\n".join(lines), then=question)


@message
class SettleHandEdit(Intent):
    """Adopt a hand edit of a skill's exported copy into the skill, or overwrite the copy with the skill."""

    agent: str
    slug: str
    answer: str  # "adopt" or "overwrite"
    group = "skill-io"
    title = "Not changed"
    timeout = 10

    def run(self, workspace: Workspace, now: datetime) -> Message:
        paths, settings, slug = workspace.agent(self.agent), workspace.settings, self.slug
        if self.answer == "adopt":
            _skill, change = adopt_hand_edit(paths, settings, slug, now)
            message = f"{slug}: the edit is in the skill ({change.id}; F2 in its editor reverts it)"
        else:
            overwrite_hand_edit(paths, settings, slug, now)
            message = f"{slug}: its exported copy is the skill again"
        return Done(message, "Edited there", reread={self.agent: set(SKILL_EDITED)})


@message
class SetScope(Intent):
    """Set where a skill is exported: ``choice`` global, one repository (``root``), or as its lessons say."""

    agent: str
    slug: str
    choice: str
    root: Path | None
    group = "skill-io"
    title = "Scope not changed"
    timeout = 10

    def run(self, workspace: Workspace, now: datetime) -> Message:
        scope, export = rescope(workspace.agent(self.agent), workspace.settings, self.slug, self.choice, self.root, now)
        exported, look = export_notice(export)
        message = f"{self.slug}: {scope.label} ({scope.why})" + (f"; {exported}" if exported else "")
        return Done(message, "Scope", "warning" if look else "information", reread={self.agent: set(SKILL_EDITED)})


def ask_scope(agent: str, slug: str, scope: Scope) -> Ask:
    """Where the skill belongs: global, one of the repositories it was learned in, or as its lessons say."""
    now = scope.label if scope.root is None else display_path(scope.root)
    answers = [("global", "Global")]
    answers += [(f"repo{i}", f"Only {root.name}") for i, root in enumerate(scope.learned[:3])]
    answers += [("learned", "As learned"), ("cancel", "Cancel")]
    then: dict[str, Message] = {"global": SetScope(agent, slug, GLOBAL, None), "learned": SetScope(agent, slug, LEARNED, None)}
    then |= {f"repo{i}": SetScope(agent, slug, REPO, root) for i, root in enumerate(scope.learned[:3])}
    question = (
        f"Where is {slug} exported? Now: {now} ({scope.why}).\n"
        "A copy an earlier export left elsewhere is listed by the export, never moved."
    )
    return Ask(Question(question, answers, then))


# history and notes -----------------------------------------------------------


@message
class RevertChange(Intent):
    """Undo one applied change (a skill's or a note's), refused when its file changed since."""

    change_id: str
    group = "history"
    title = "Not reverted"
    timeout = 10

    def run(self, workspace: Workspace, now: datetime) -> Message:
        change, export = revert_change(workspace, self.change_id, now)
        exported, look = export_notice(export)
        message = f"{change.id} reverted" + (f"; {exported}" if exported else "")
        target = Area.SKILLS if change.kind == "skill" else Area.SELF
        return Done(
            message, "History", "warning" if look else "information", reread={change.agent: {target, Area.PRIVATE, Area.EVENTS}}
        )


@message
class SaveNote(Intent):
    """Write a self note, if it is still at the version ``expected`` (or whatever it is, ``force``)."""

    agent: str
    note: str
    text: str
    expected: str | None
    force: bool = False
    group = "note-io"
    title = "Not saved"
    timeout = 10

    def run(self, workspace: Workspace, now: datetime) -> Message:
        save_note(workspace.agent(self.agent), workspace.settings, self.note, self.text, self.expected, now, force=self.force)
        saved = f"{self.note}.md saved (recorded in history: `orkas-tui history {self.agent}`, revertable)"
        return Done(saved, "Self", reread={self.agent: {Area.SELF, Area.EVENTS, Area.PRIVATE}})

    def conflict(self, exc: ConflictError) -> Message:
        return Ask(changed_on_disk(f"self/{self.note}.md", replace(self, force=True), DiscardNote(self.agent, self.note)))


def ask_discard_note(agent: str, note: str) -> Ask:
    return Ask(
        Question(
            f"Discard your edits to {note}.md and reload it from disk?",
            [("keep", "Keep editing"), ("reload", "Reload")],
            {"reload": DiscardNote(agent, note)},
            danger="reload",
        )
    )


@message
class MarkHooksSeen(Intent):
    """The hook problems logged up to ``at`` were on screen: the sidebar stops flagging them."""

    agent: str
    at: str
    group = "save"

    def run(self, workspace: Workspace, now: datetime) -> Message:
        mark_seen(workspace.agent(self.agent).private, self.at)
        return Done(reread={self.agent: {Area.PRIVATE}})

    def refused(self, exc: Exception) -> Message:
        return Done(f"cannot note that the hook problems were seen: {exc}", severity="warning")


# proposals -------------------------------------------------------------------


@message
class Decision(Intent):
    """A decision on a proposal: said under the proposal's id, and its agent read again whatever came of it."""

    proposal_id: str
    group = "decide"

    def decide(self, workspace: Workspace, now: datetime) -> tuple[str, bool]:
        """The core call: what to say, and whether it needs a look (a warning)."""
        raise NotImplementedError

    def run(self, workspace: Workspace, now: datetime) -> Message:
        message, look = self.decide(workspace, now)
        return self._done(message, "warning" if look else "information")

    def refused(self, exc: Exception) -> Message:
        return self._done(str(exc), "error")

    def _done(self, message: str, severity: SeverityLevel) -> Done:
        touched = {PROPOSALS.parse(self.proposal_id).agent: {Area.PRIVATE, Area.SKILLS, Area.SELF, Area.EVENTS}}
        return Done(message, self.proposal_id, severity, 10, touched)


@message
class ApproveProposal(Decision):
    """Apply one pending operation of a proposal, or every pending one (``index`` None); ``confirm``: a
    person confirmed applying this quarantined operation."""

    index: int | None
    confirm: bool = False

    def decide(self, workspace: Workspace, now: datetime) -> tuple[str, bool]:
        _, result = approve(workspace, self.proposal_id, now, self.index, confirm=self.confirm)
        message = f"applied {len(result.applied)} change(s)"
        exported, look = export_notice(result.export)
        if exported:
            message += f"; {exported}"
        if result.held:
            message += "; left for approval: " + "; ".join(result.held)
        if result.failed:
            message += "; not applied: " + "; ".join(result.failed)
        return message, bool(result.failed or result.held or look)


def ask_quarantined(proposal_id: str, index: int, why: str) -> Ask:
    """A second, explicit confirmation, of this one operation."""
    question = (
        f"Operation {index} of {proposal_id} is quarantined: {why}.\n"
        "Its sources and the text it repeats are shown above its diff. Apply it anyway?"
    )
    confirmed = ApproveProposal(proposal_id, index, confirm=True)
    return Ask(Question(question, [("keep", "Keep it quarantined"), ("apply", "Apply it")], {"apply": confirmed}, "apply"))


@message
class RejectProposal(Decision):
    """Reject one operation of a proposal."""

    index: int

    def decide(self, workspace: Workspace, now: datetime) -> tuple[str, bool]:
        reject(workspace, self.proposal_id, now, self.index)
        return f"operation {self.index} rejected", False


@message
class SaveOperation(Decision):
    """Change the fields of one operation of a proposal (it is then approved with a)."""

    index: int
    fields: dict

    def decide(self, workspace: Workspace, now: datetime) -> tuple[str, bool]:
        edit_operation(workspace, self.proposal_id, self.index, self.fields)
        return f"operation {self.index} updated; approve it with a", False


# settings --------------------------------------------------------------------


@message
class OpenSettings(Intent):
    """Read ``orkas.toml`` to edit it whole."""

    path: Path
    group = "settings-io"

    def run(self, workspace: Workspace, now: datetime) -> Message:
        return SettingsOpened(*read_settings_text(self.path))

    def refused(self, exc: Exception) -> Message:
        return Done(f"{self.path}: cannot read ({exc})", severity="error")


@message
class SaveSettings(Intent):
    """Write ``orkas.toml`` as a person edited it, if it is still at the version ``expected`` (or ``force``)."""

    path: Path
    text: str
    expected: str | None
    force: bool = False
    group = "settings-io"

    def run(self, workspace: Workspace, now: datetime) -> Message:
        return SettingsSaved(self.text, save_settings_text(self.path, self.text, self.expected, self.force))

    def refused(self, exc: Exception) -> Message:
        return Done(f"{self.path}: not saved ({exc})", severity="error", timeout=10)

    def conflict(self, exc: ConflictError) -> Message:
        return Ask(changed_on_disk("orkas.toml", replace(self, force=True)))


# reflecting: the bundle (the reflection itself, minutes long and cancellable, is tui/reflections.py) ----------


def bundle_text(prepared: Prepared) -> str:
    """What the bundle chose (per triggering turn: kept, cut, tokens), then exactly the messages that would be sent."""
    choice = "── what the bundle holds ──\n" + "\n".join(prepared.bundle.preview())
    blocks = [f"── {m.get('role')} ──\n{m.get('content')}" for m in prepared.prompt.messages]
    return "\n\n".join([choice, *blocks])


@message
class PrepareReflection(Intent):
    """Build the bundle a reflection on ``agent`` would send now, to ask a person before it is sent."""

    agent: str
    group = "prepare"
    refusals = (OrkasError, OSError, ValueError)

    def run(self, workspace: Workspace, now: datetime) -> Message:
        from orkas_tui.core.reflect.reflection import prepare  # in the worker: the app starts without it

        return BundleReady(self.agent, prepare(workspace, self.agent), over_budget(workspace, now))

    def refused(self, exc: Exception) -> Message:
        return Done(f"cannot build the bundle: {exc}", severity="error")


@message
class ShowBundle(Intent):
    """Show exactly what a reflection on ``agent`` would send now."""

    agent: str
    group = "prepare"

    def run(self, workspace: Workspace, now: datetime) -> Message:
        from orkas_tui.core.reflect.reflection import prepare  # in the worker: the app starts without it

        prepared = prepare(workspace, self.agent)
        title = (
            f"Bundle for {self.agent}: {prepared.bundle.tokens:,} tokens, {prepared.prompt.redactions} redaction(s), "
            f"{prepared.prompt.tokens:,} prompt tokens: exactly what would be sent"
        )
        return ShowText(title, bundle_text(prepared))
