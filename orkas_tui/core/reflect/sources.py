"""The bundle's source ids: each line it sends says where its text came from, and the answer cites them.

An event gets one id the first time the bundle shows it (the front first, then the
activity, oldest first), by its origin: ``u`` typed by the user, ``p`` pasted by the user
(the fenced blocks, quoted lines and log runs of a user's message get their own id
beside the typed words), ``a`` the agent, ``t`` a tool's output (with the tool and
what it read), ``s`` a system event. :meth:`SourceIds.sent` gives the sources of the
lines the bundle kept, with their text redacted as sent: what the answer is checked
against (:mod:`orkas_tui.core.store.provenance`).
"""

from __future__ import annotations

from orkas_tui.core.observe.origins import LETTERS, Origin, split_pasted
from orkas_tui.core.observe.touched import edited_files
from orkas_tui.core.store.provenance import Source
from orkas_tui.core.store.redact import Redactor
from orkas_tui.core.summary.transcript import Step, describe

LEGEND = (
    "Each line carries its source id in braces: u = typed by the user, p = pasted by the user (a log, a file, "
    "code, a quoted message), a = written by the agent, t = a tool's output (the tool and what it read: command, "
    "file, web page, MCP server, subagent), s = a system event.\n"
)


SOURCE_CHARS = 8_000  # of a long text, the head and tail kept as its source (more than any cut sends)


class SourceIds:
    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.redact = Redactor(patterns)  # its own count: the bundle's redaction figure counts what is sent once
        self.tags: dict[tuple[str, int], str] = {}
        self.ids: dict[str, tuple[str, ...]] = {}  # tag: the source ids it shows (a user line may show two)
        self.steps: dict[str, tuple[str, Step | None, str]] = {}  # id: (conversation, step, system text)
        self.count = 0

    def _next(self, origin: Origin) -> str:
        self.count += 1
        return f"{LETTERS[origin]}{self.count}"

    def tag(self, conversation: str, step: Step) -> str:
        """The line's tag (``u3``, ``u3, pasted p4``, ```t5 `WebFetch` web```), given once per event."""
        key = (conversation, step.offset)
        known = self.tags.get(key)
        if known is not None:
            return known
        origin = step.origin
        main = self._next(origin)
        self.steps[main] = (conversation, step, "")
        tag = main
        ids: tuple[str, ...] = (main,)
        if origin is Origin.USER:
            _typed, pasted = split_pasted(_said(step))
            if pasted:
                extra = self._next(Origin.PASTED)
                self.steps[extra] = (conversation, step, "")
                tag, ids = f"{main}, pasted {extra}", (main, extra)
        elif origin is Origin.TOOL:
            tag = f"{main} `{step.tool or '?'}` {step.tool_kind}"
        self.tags[key], self.ids[tag] = tag, ids
        return tag

    def system(self, offset: int, text: str) -> str:
        key = ("", offset)
        known = self.tags.get(key)
        if known is None:
            known = self.tags[key] = self._next(Origin.SYSTEM)
            self.steps[known], self.ids[known] = ("", None, text), (known,)
        return known

    def sent(self, tags: list[str]) -> dict[str, Source]:
        """The sources behind ``tags`` (the tags of the lines the bundle kept), their text redacted."""
        edited = self._edited_after()
        out: dict[str, Source] = {}
        for tag in tags:
            for id_ in self.ids[tag]:
                if id_ not in out:
                    out[id_] = self._source(id_, edited.get(id_, ()))
        return out

    def _edited_after(self) -> dict[str, tuple[str, ...]]:
        """For each typed prompt, the files the agent's calls shown after it edited, up to the next prompt of
        its conversation: what a lesson resting on that prompt is about (:mod:`~orkas_tui.core.observe.touched`)."""
        shown: dict[str, list[tuple[int, str, Step]]] = {}
        for id_, (conversation, step, _text) in self.steps.items():
            if step is not None and id_[0] != "p":
                shown.setdefault(conversation, []).append((step.offset, id_, step))
        edited: dict[str, list[str]] = {}
        for steps in shown.values():
            prompt = None
            for _offset, id_, step in sorted(steps, key=lambda s: s[0]):
                if step.origin is Origin.USER:
                    prompt = id_
                elif prompt is not None and step.event.type == "tool_call":
                    edited.setdefault(prompt, []).extend(edited_files(step.event.name, step.event.args))
        return {id_: tuple(dict.fromkeys(files)) for id_, files in edited.items() if files}

    def _source(self, id_: str, edited: tuple[str, ...] = ()) -> Source:
        conversation, step, text = self.steps[id_]
        if step is None:
            return Source(id=id_, origin=Origin.SYSTEM, text=self.redact(text))
        typed, pasted = split_pasted(_said(step)) if step.origin is Origin.USER else ("", "")
        if id_[0] == "p":
            return Source(id=id_, origin=Origin.PASTED, text=self.redact(pasted), conversation=conversation)
        if step.origin is Origin.USER:
            return Source(id=id_, origin=Origin.USER, text=self.redact(typed), conversation=conversation, edited=edited)
        said = describe(step)
        body = said.text if said.output is None else f"{said.text}\n{said.output}"
        if len(body) > 2 * SOURCE_CHARS:  # the bundle sends at most a cut of it: a 20 MB output is not scanned whole
            body = body[:SOURCE_CHARS] + "\n…\n" + body[-SOURCE_CHARS:]
        return Source(
            id=id_,
            origin=step.origin,
            text=self.redact(body),
            conversation=conversation,
            tool=step.tool if step.origin is Origin.TOOL else None,
            kind=step.tool_kind,
        )


def _said(step: Step) -> str:
    text = step.event.text
    return "" if text is None else str(text)
