"""Build the real-prompt correction corpus from imported workspaces (issue 30).

Each typed prompt of each conversation, with what the observer knows when it reads it:
what the agent said last, how the turn before ended (aborted, a refused or interrupted
tool call), the prompt's place, and the conversation's earlier prompts (by id). After an
interruption (the turn before ended aborted, or a tool call in it was interrupted), ``acted``
says whether the agent had run a tool in the interrupted turn: at least one of its tool calls
got a result that was neither interrupted nor refused (``null`` on every other prompt). The
transcripts are imported first with orkas-tui's own importer, so the corpus holds the
conversation exactly as the observer sees it:

    orkas-tui --workspace /tmp/ws import claude-code <sessions> --settle 0 --no-skills
    python scripts/correction_corpus.py /tmp/ws/agents/claude-code/conversations --source NAME > part.jsonl

Labels are added by hand afterwards (``label``: ``null`` or the kind, by the rule in
docs/rules.md), with ``language``, ``agent`` and ``part`` (``tune`` or ``held-out``, by session).
Slash commands are left out (they are commands, not prompts); every secret-looking
string is replaced by the redaction mark, as the bundle does.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import orjson

from orkas_tui.core.observe.in_context import AGENT_TAIL
from orkas_tui.core.read.settings import Settings
from orkas_tui.core.store.redact import Redactor

TEXT_LIMIT = 4_000


def prompts(conversation: Path, source: str) -> list[dict]:
    redact = Redactor(Settings().bundle.redact_patterns)
    rows: list[dict] = []
    said: str | None = None
    ended: str | None = None
    refused = interrupted = False  # in the turn running
    ran = False  # a tool of the turn running gave a result: it was not stopped or refused
    before = (False, False, False)  # in the turn before it
    for line in conversation.read_bytes().splitlines():
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        kind = event.get("type")
        if kind == "assistant" and isinstance(event.get("text"), str):
            said = event["text"]
        elif kind == "turn_start":
            before, refused, interrupted, ran = (refused, interrupted, ran), False, False, False
        elif kind == "tool_result":
            failure = (event.get("failure") or {}) if event.get("ok") is False else {}
            refused = refused or bool(failure.get("rejected"))
            interrupted = interrupted or bool(failure.get("interrupted"))
            ran = ran or not (failure.get("rejected") or failure.get("interrupted"))
        elif kind == "turn_end":
            ended = event.get("status")
        elif kind == "user" and isinstance(event.get("text"), str):
            text = event["text"]
            if text.startswith("/"):
                continue
            feedback = "rejected_call" in event
            stopped = interrupted if feedback else before[1]
            after_stop = stopped or (not feedback and ended == "aborted")
            rows.append(
                {
                    "id": hashlib.sha1(f"{conversation.name}:{len(rows)}:{text}".encode()).hexdigest()[:10],
                    "source": source,
                    "session": conversation.stem,
                    "n": len(rows),
                    "text": redact(text[:TEXT_LIMIT]),
                    "agent_said": redact((said or "")[-AGENT_TAIL:]),
                    "before": "feedback" if feedback else ended,
                    "refused": refused if feedback else before[0],
                    "interrupted": stopped,
                    "acted": (ran if feedback else before[2]) if after_stop else None,
                    "earlier": [row["id"] for row in rows],
                }
            )
            said = None if not feedback else said
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="conversations folders of imported agents")
    parser.add_argument("--source", required=True, help="where the transcripts came from (the README names it)")
    parser.add_argument("--cap", type=int, default=25, help="at most this many prompts a conversation (its first)")
    args = parser.parse_args(argv)
    for folder in args.folders:
        for conversation in sorted(folder.glob("*.jsonl")):
            for row in prompts(conversation, args.source)[: args.cap]:
                sys.stdout.buffer.write(orjson.dumps(row) + b"\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
