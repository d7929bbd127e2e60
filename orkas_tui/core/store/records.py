"""Numbered records of one type: ``<agent>/.orkas/<folder>/<letter><N>.json``, id ``<agent>.<letter><N>``.

Proposals (``p``) and applied changes (``c``) are both such records, so one store
lists, loads, numbers and saves them. The id alone finds a record: :class:`RecordId`
knows its agent, its letter and its number. A record is read as untrusted input,
decoded straight into its msgspec Struct, every field checked; what is wrong is said
with the field's path (``at `$.operations[0].status```). A record whose id does not
name its own file and agent (a copied or renamed file) is never used. Writes are
atomic, indented JSON.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec
import orjson

from orkas_tui.core.disk.confine import read_regular
from orkas_tui.core.disk.write import atomic_write
from orkas_tui.core.read.workspace import AgentPaths, Workspace, WorkspaceError

ID = re.compile(r"^([a-z0-9_-]{1,64})\.([pc])([0-9]{1,9})$")


@dataclass(frozen=True)
class RecordId:
    """``coder.p3``: the record ``p3.json`` of the agent ``coder``."""

    agent: str
    letter: str  # "p": a proposal, "c": an applied change
    number: int

    @classmethod
    def parse(cls, text: object, letter: str | None = None) -> RecordId | None:
        """The id ``text`` names (of the records of ``letter``, if given), or ``None`` when it is not one."""
        m = ID.match(text) if isinstance(text, str) else None
        return cls(m.group(1), m.group(2), int(m.group(3))) if m and letter in (None, m.group(2)) else None

    @property
    def stem(self) -> str:
        return f"{self.letter}{self.number}"

    def __str__(self) -> str:
        return f"{self.agent}.{self.stem}"


class Record(msgspec.Struct, kw_only=True):
    """What every numbered record holds: its own id and its agent."""

    id: str
    agent: str

    def __post_init__(self) -> None:
        if not ID.match(self.id):
            raise ValueError(f"id {self.id[:80]!r} is not a record id")

    @property
    def ref(self) -> RecordId:
        ref = RecordId.parse(self.id)
        assert ref is not None  # checked when the record was made
        return ref

    def to_json(self) -> dict[str, Any]:
        return msgspec.to_builtins(self)


R = TypeVar("R", bound=Record)


class RecordStore(Generic[R]):
    """The records of type ``kind`` in ``.orkas/<folder>``; ``error`` is raised with what went wrong."""

    def __init__(self, folder: str, letter: str, kind: type[R], noun: str, error: type[Exception]) -> None:
        self.folder, self.letter, self.noun, self.error = folder, letter, noun, error
        self._decoder = msgspec.json.Decoder(kind)

    def dir(self, paths: AgentPaths) -> Path:
        return paths.private / self.folder

    def parse(self, text: str) -> RecordId:
        """The id ``text`` names; ``error`` unless it is one of this store's."""
        ref = RecordId.parse(text, self.letter)
        if ref is None:
            raise self.error(f"not a {self.noun} id: {text!r} (like coder.{self.letter}1)")
        return ref

    def next_number(self, paths: AgentPaths) -> int:
        """One more than the highest number a file in the folder has (damaged or not)."""
        folder, highest = self.dir(paths), 0
        if folder.is_dir():
            for entry in folder.iterdir():
                m = re.fullmatch(rf"{self.letter}([0-9]+)\.json", entry.name)
                if m:
                    highest = max(highest, int(m.group(1)))
        return highest + 1

    def list(self, paths: AgentPaths) -> list[R]:
        """Every readable record of one agent, oldest first (damaged ones are left out: never acted on)."""
        found = []
        folder = self.dir(paths)
        if folder.is_dir():
            for entry in folder.glob(f"{self.letter}*.json"):
                try:
                    record = self._decoder.decode(read_regular(entry))
                except (OSError, msgspec.DecodeError):
                    continue
                if record.id == f"{paths.id}.{entry.stem}" and record.agent == paths.id:  # else: copied or renamed
                    found.append(record)
        return sorted(found, key=lambda r: r.ref.number)

    def get(self, paths: AgentPaths, ref: RecordId) -> R | None:
        """The record stored under ``ref``, or ``None`` (missing, damaged, or naming another)."""
        try:
            record = self._decoder.decode(read_regular(self.dir(paths) / f"{ref.stem}.json"))
        except (OSError, msgspec.DecodeError):
            return None
        return record if record.id == str(ref) and record.agent == paths.id else None

    def load(self, workspace: Workspace, text: str) -> tuple[AgentPaths, R]:
        """The record ``text`` names, and its agent's paths; ``error`` says why it cannot be used."""
        ref = self.parse(text)
        try:
            paths = workspace.agent(ref.agent)
            data = read_regular(self.dir(paths) / f"{ref.stem}.json")
            record = self._decoder.decode(data)
        except msgspec.ValidationError as exc:
            raise self.error(f"{self.noun} {text} is damaged ({exc}); not used") from exc
        except (WorkspaceError, FileNotFoundError, msgspec.DecodeError) as exc:
            raise self.error(f"no {self.noun} {text!r}") from exc
        if record.id != text or record.agent != ref.agent:
            raise self.error(f"{self.noun} {text} is damaged (it names {record.id!r}); not used")
        return paths, record

    def save(self, paths: AgentPaths, record: R) -> None:
        ref = self.parse(record.id)
        data = orjson.dumps(record.to_json(), option=orjson.OPT_INDENT_2) + b"\n"
        atomic_write(self.dir(paths) / f"{ref.stem}.json", data)
