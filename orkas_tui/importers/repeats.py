"""Records a session file repeats from another one: Claude Code's ``--continue`` and ``--resume``.

Resuming starts a new session file that first copies the earlier conversation's records,
each with its own ``uuid`` (and, in recent versions, its original ``sessionId``), then goes
on with new ones. A message record (``user``, ``assistant``, ``system``) whose ``uuid`` the
agent already imported is skipped, so nothing is counted twice; a record with no ``uuid``
is never skipped. The uuids a session imported are kept in its own import state, so they
are saved, or cut back by a crash's rollback, together with the events they stand for (a
state saved before states kept them gets them once from the bytes it had read).

The agent-wide set is read from the other sessions' states only when needed: for a file
read from its start (a resumed file's first records are copies), or once it was read for
an earlier file of the same import. An incremental import of a session that grew checks
its new records against its own uuids only.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import read_json_object

MESSAGES = frozenset({"user", "assistant", "system"})


class ImportedRecords:
    """The uuids imported into one agent: its sessions' saved states, plus those of the sessions this import read
    (saved or not yet, and read from the source for a state saved before states kept them)."""

    def __init__(self, imports: Path) -> None:
        self.imports = imports
        self.taken: set[str] = set()  # held by the sessions this import read
        self.known: set[str] | None = None  # every session's, once read

    def agent_wide(self) -> set[str]:
        """Every uuid imported into the agent, the saved states read once per import."""
        if self.known is None:
            self.known = set(self.taken)
            for path in self.imports.glob("*.json"):
                self.known.update(saved_uuids(path))
        return self.known

    def took(self, uuids: list[str]) -> None:
        """``uuids`` are held by a session this import read."""
        self.taken.update(uuids)
        if self.known is not None:
            self.known.update(uuids)


class SessionRecords:
    """One session file's check: its own uuids always, the agent's when :class:`ImportedRecords` says so."""

    def __init__(self, imported: ImportedRecords, own: list[str], from_start: bool) -> None:
        self.imported = imported
        self.own = own
        self.seen = set(own)
        self.others = imported.agent_wide() if from_start or imported.known is not None else None
        self.new: list[str] = []

    def repeated(self, record: dict) -> bool:
        """Whether ``record`` was imported already; a new message record's uuid is taken by this session."""
        uuid = record.get("uuid")
        if record.get("type") not in MESSAGES or not isinstance(uuid, str):
            return False
        if uuid in self.seen or (self.others is not None and uuid in self.others):
            return True
        self.seen.add(uuid)
        self.new.append(uuid)
        return False

    def done(self) -> list[str]:
        """The session's uuids to save in its state; the import's next files see them at once."""
        held = self.own + self.new
        self.imported.took(held)
        return held


def saved_uuids(path: Path) -> list[str]:
    """The uuids a session's saved import state holds (none from a state that is unreadable or kept none)."""
    uuids = read_json_object(path).get("uuids")
    return [u for u in uuids if isinstance(u, str)] if isinstance(uuids, list) else []


def uuids_before(path: Path, offset: int) -> list[str]:
    """The message uuids in the first ``offset`` bytes of ``path``: a session imported before states kept them."""
    if not offset:
        return []
    with open(path, "rb") as handle:
        data = handle.read(offset)
    uuids = []
    for raw in data.splitlines():
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict) and value.get("type") in MESSAGES and isinstance(value.get("uuid"), str):
            uuids.append(value["uuid"])
    return list(dict.fromkeys(uuids))
