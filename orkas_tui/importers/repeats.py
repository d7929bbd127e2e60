"""Records a session file repeats from another one: Claude Code's ``--continue``, ``--resume`` and forks.

Resuming or forking starts a new session file that first copies the earlier conversation's
records, then goes on with new ones. The copies keep their ``timestamp`` and ``message``; some
versions keep their ``uuid`` and stamp the new ``sessionId`` (2.1.12, a real pair in
tests/data/samples/claude-code), others give them a new ``uuid`` but keep the ``message.id``
and the ``tool_use`` ids. So a record is known by what it says, never by its ``uuid`` alone
(public and redacted histories repeat placeholder uuids): its :func:`record_keys`, each its
``timestamp`` with one of its ``tool_use`` ids, one of its ``tool_result`` ids, or else a hash of
its type and message (``uuid`` only for a record with no message). A message record (``user``,
``assistant``, ``system``) one of whose keys another session of the agent already imported is
skipped, so nothing is counted twice; a record with no timestamp or ``uuid`` is never skipped, and a file
never skips a record for a key it holds itself (its own lines are never copies).

The keys a session imported are kept in its own import state (``records``), saved, or cut
back by a crash's rollback, together with the events they stand for; a state saved before
states kept them gets them once from the bytes it had read.

The agent-wide set is read from the other sessions' states only when needed: for a file read
from its start (a resumed file's first records are copies), or once it was read for an earlier
file of the same import. An incremental import of a session that grew checks nothing against
the others then.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from orkas_tui.core.disk.confine import read_json_object

MESSAGES = frozenset({"user", "assistant", "system"})


def record_keys(record: dict) -> list[str]:
    """What identifies a message record across files: ``<timestamp>|c:<tool_use id>`` for each call,
    ``<timestamp>|r:<tool_use_id>`` for each result, else ``<timestamp>|m:<hash of type and message>``,
    else ``<timestamp>|u:<uuid>``; none for a record with no timestamp or ``uuid`` (Claude Code writes both on every
    message record) or of another type."""
    stamp, uuid = record.get("timestamp"), record.get("uuid")
    if record.get("type") not in MESSAGES or not isinstance(stamp, str) or not isinstance(uuid, str):
        return []
    message = record.get("message")
    if isinstance(message, dict):
        content = message.get("content")
        ids = []
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict):
                    if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                        ids.append(f"{stamp}|c:{block['id']}")
                    elif block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                        ids.append(f"{stamp}|r:{block['tool_use_id']}")
        if ids:
            return ids
        digest = hashlib.blake2b(orjson.dumps([record.get("type"), message.get("id"), content]), digest_size=12)
        return [f"{stamp}|m:{digest.hexdigest()}"]
    return [f"{stamp}|u:{uuid}"]


class ImportedRecords:
    """The record keys imported into one agent: its sessions' saved states, plus those of the sessions this import
    read (saved or not yet, and read from the source for a state saved before states kept them)."""

    def __init__(self, imports: Path) -> None:
        self.imports = imports
        self.taken: dict[str, list[str]] = {}  # by conversation: held by the sessions this import read
        self.known: dict[str, str] | None = None  # key -> the conversation holding it, once read

    def agent_wide(self) -> dict[str, str]:
        """Every key imported into the agent and its conversation, the saved states read once per import."""
        if self.known is None:
            self.known = {}
            for path in self.imports.glob("*.json"):
                for key in saved_keys(path):
                    self.known.setdefault(key, path.stem)
            for conv, keys in self.taken.items():
                for key in keys:
                    self.known.setdefault(key, conv)
        return self.known

    def took(self, conv: str, keys: list[str]) -> None:
        """``keys`` are held by the session ``conv`` this import read."""
        self.taken[conv] = keys
        if self.known is not None:
            for key in keys:
                self.known.setdefault(key, conv)


class SessionRecords:
    """One session file's check against the other sessions' keys, when :class:`ImportedRecords` says so."""

    def __init__(self, imported: ImportedRecords, conv: str, own: list[str], from_start: bool) -> None:
        self.imported = imported
        self.conv = conv
        self.own = own
        self.others = imported.agent_wide() if from_start or imported.known is not None else None
        self.new: list[str] = []

    def repeated(self, record: dict) -> bool:
        """Whether another session imported ``record`` already; a new record's keys are taken by this session."""
        keys = record_keys(record)
        if self.others is not None:
            for key in keys:
                holder = self.others.get(key)
                if holder is not None and holder != self.conv:
                    return True
        self.new += keys
        return False

    def done(self) -> list[str]:
        """The session's keys to save in its state; the import's next files see them at once."""
        held = list(dict.fromkeys(self.own + self.new))
        self.imported.took(self.conv, held)
        return held


def saved_keys(path: Path) -> list[str]:
    """The keys a session's saved import state holds; a state saved before states kept them: from its source's
    bytes it had read (none when that is unreadable)."""
    state = read_json_object(path)
    keys = state.get("records")
    if isinstance(keys, list):
        return [k for k in keys if isinstance(k, str)]
    source, offset = state.get("source"), state.get("offset")
    if "uuids" not in state or not isinstance(source, str) or not isinstance(offset, int):
        return []
    try:
        return keys_before(Path(source), offset)
    except OSError:
        return []


def keys_before(path: Path, offset: int) -> list[str]:
    """The record keys in the first ``offset`` bytes of ``path``: a session imported before states kept them."""
    if not offset:
        return []
    with open(path, "rb") as handle:
        data = handle.read(offset)
    keys: list[str] = []
    for raw in data.splitlines():
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            keys += record_keys(value)
    return list(dict.fromkeys(keys))
