"""Transcripts built from the shapes of real coding-agent sessions (Claude Code, Codex), written as spec events.

The shapes come from the sessions in ``tests/data/samples`` and from the issue's
findings: long opening prompts with pasted logs, a run of failing edits and commands
(each with the call that caused it and a long output), transient API errors among
them, a person correcting with "no, use ...", and long quiet turns of reading files
in between that compete for the budget.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

from tests.reflection.conftest import add_events, ts

REAL_ERRORS = [
    (
        "Edit",
        {"file_path": "lib/app/session_live.ex", "old_string": "def mount(params, session, socket) do\n"},
        "String to replace not found in file.\nString: def mount(params, session, socket) do",
    ),
    (
        "Bash",
        {"command": "mix test test/app/transcript_test.exs --trace", "description": "Run the transcript tests"},
        "Exit code 1\n  1) test parses a compaction boundary (App.TranscriptTest)\n     ** (MatchError) no match of right hand side value: {:error, :unknown_record}",
    ),
    (
        "Read",
        {"file_path": "/home/USER/projects/app/test/fixtures/transcripts/huge.jsonl"},
        "File content (85812 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters",
    ),
    (
        "Bash",
        {"command": "git commit -m 'wip'", "description": "Commit"},
        "Exit code 1\nThe following paths are ignored by one of your .gitignore files:\npriv/static/assets",
    ),
    (
        "shell",
        {"command": ["bash", "-lc", "pnpm -C web build"], "workdir": "/repo"},
        "exit status 2: src/api/client.ts(41,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    ),
    (
        "apply_patch",
        {"input": "*** Begin Patch\n*** Update File: src/main.rs\n@@ fn main() {\n-    run();\n+    run_all();\n*** End Patch"},
        "apply_patch verification failed: Failed to find expected lines in src/main.rs",
    ),
]
TRANSIENT = ["API Error: 529 overloaded_error", "ETIMEDOUT registry.npmjs.org", "connection reset by peer"]
CORRECTIONS = [
    "no, use the other file: the fixture is under test/fixtures/transcripts, not under priv",
    "That's not what I asked: keep the public API unchanged and only fix the parser",
    "不对，应该是 staging 集群，不是生产集群",
    "eso no es lo que pedí: en vez de borrar la tabla, añade una columna",
]


def build_agent(root: Path, agent: str, start: datetime, conversations: int = 4, seed: int = 13) -> datetime:
    """Write ``conversations`` transcripts to ``agent``; each has a quiet turn, a triggering turn, a quiet turn.

    Returns the time of the last event."""
    rng = random.Random(seed)
    at = start
    for c in range(conversations):
        events: list[dict] = []
        for kind in ("quiet", "trigger", "quiet"):
            at += timedelta(minutes=rng.randint(5, 40))
            events += _trigger_turn(rng, at, c) if kind == "trigger" else _quiet_turn(rng, at, c)
            at += timedelta(minutes=30)
        add_events(root, agent, f"built-{c}", events)
    return at


def _stamp(at: datetime, n: int) -> str:
    return ts(at + timedelta(seconds=n))


def _quiet_turn(rng: random.Random, at: datetime, c: int) -> list[dict]:
    turn = f"q{int(at.timestamp())}"
    events = [
        {"ts": _stamp(at, 0), "type": "turn_start", "turn": turn, "skills_indexed": []},
        {
            "ts": _stamp(at, 1),
            "type": "user",
            "text": f"Read the parser module and summarise how records are typed (conversation {c})",
        },
    ]
    for i in range(5):
        events.append(
            {
                "ts": _stamp(at, 2 + i),
                "type": "tool_call",
                "id": f"{turn}-{i}",
                "name": "Read",
                "args": {"file_path": f"lib/app/parser_{i}.ex"},
            }
        )
        body = "".join(
            f'{n:5}  defp parse_record(%{{"type" => "{rng.choice(["user", "assistant", "system"])}"}} = r), do: {{:ok, r}}\n'
            for n in range(300)
        )
        events.append({"ts": _stamp(at, 2 + i), "type": "tool_result", "id": f"{turn}-{i}", "ok": True, "output": body})
    events.append(
        {
            "ts": _stamp(at, 20),
            "type": "assistant",
            "text": "Records are typed by their `type` field; unknown ones fall through to :unknown_record.",
        }
    )
    events.append({"ts": _stamp(at, 21), "type": "turn_end", "turn": turn, "status": "ok"})
    return events


def _trigger_turn(rng: random.Random, at: datetime, c: int) -> list[dict]:
    turn = f"t{int(at.timestamp())}"
    paste = "".join(
        f"2026-02-11T21:{n % 60:02d}:00Z [error] ** (exit) {rng.choice(['badarg', 'timeout', 'noproc'])} in Parser.run/2\n"
        for n in range(400)
    )
    events = [
        {"ts": _stamp(at, 0), "type": "turn_start", "turn": turn, "skills_indexed": []},
        {
            "ts": _stamp(at, 1),
            "type": "user",
            "text": f"OPENING-{c}: make the parser read the new transcripts. Here is the log of a run on them:\n{paste}",
        },
    ]
    n = 2
    picked = [*rng.sample(REAL_ERRORS, 4), rng.choice(REAL_ERRORS)]
    for i, (tool, args, message) in enumerate(picked):
        call = f"{turn}-e{i}"
        events.append(
            {"ts": _stamp(at, n), "type": "tool_call", "id": call, "name": tool, "args": {**args, "note": f"attempt {c}.{i}"}}
        )
        output = message + "\n" + "".join(f"    at frame {k} (lib/app/parser.ex:{100 + k})\n" for k in range(120))
        events.append(
            {
                "ts": _stamp(at, n + 1),
                "type": "tool_result",
                "id": call,
                "ok": False,
                "error": f"{message} [#{c}.{i}]",
                "output": output,
            }
        )
        if i == 1:
            events.append(
                {
                    "ts": _stamp(at, n + 2),
                    "type": "tool_call",
                    "id": f"{call}-t",
                    "name": "WebFetch",
                    "args": {"url": "https://hexdocs.pm/elixir"},
                }
            )
            events.append(
                {"ts": _stamp(at, n + 3), "type": "tool_result", "id": f"{call}-t", "ok": False, "error": rng.choice(TRANSIENT)}
            )
        if i == 2:
            events.append({"ts": _stamp(at, n + 4), "type": "user", "text": CORRECTIONS[c % len(CORRECTIONS)]})
        events.append({"ts": _stamp(at, n + 5), "type": "assistant", "text": f"Trying another way after attempt {i}."})
        n += 6
    for k in range(4):
        events.append(
            {"ts": _stamp(at, n + k), "type": "tool_call", "id": f"{turn}-ok{k}", "name": "Bash", "args": {"command": "mix test"}}
        )
        events.append(
            {
                "ts": _stamp(at, n + k),
                "type": "tool_result",
                "id": f"{turn}-ok{k}",
                "ok": True,
                "output": "." * 2000 + "\n42 tests, 0 failures",
            }
        )
    events.append({"ts": _stamp(at, n + 10), "type": "assistant", "text": "Fixed: unknown records are now skipped and reported."})
    events.append({"ts": _stamp(at, n + 11), "type": "turn_end", "turn": turn, "status": "ok"})
    return events
