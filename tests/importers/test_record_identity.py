"""A Claude Code record is known by what it says, never by its ``uuid`` alone (importers/repeats.py).

Two real cases: a resumed pair of Claude Code 2.1.12 (entireio/cli's own sessions, see
tests/data/samples/README.md), whose second file copies the first one's records with the
same ``uuid`` under its own ``sessionId``; and the real sample session copied under a new
session id on another day with its uuids kept, as a public or redacted history repeats
them: another session, whose records all count.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest

from orkas_tui.importers.run import import_files
from tests.importers.conftest import BIG_SESSION

PAIR = "claude-code/entireio-cli__resumed/-work-cli"
FIRST = "e1bc91d1-2731-4b12-bf00-44f4dcddffd1"
RESUMED = "b4dcf65c-8a8f-4be8-80c2-fcebbda55946"


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def source_calls(paths: list[Path]) -> set[str]:
    return {
        block["id"]
        for path in paths
        for r in records(path)
        if r.get("type") == "assistant" and not r.get("isSidechain")
        for block in r["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    }


def imported_calls(agent) -> list[str]:
    return [
        event["id"]
        for conv in agent.conversations.glob("*.jsonl")
        for event in map(orjson.loads, conv.read_bytes().splitlines())
        if event["type"] == "tool_call"
    ]


def prompts(agent) -> list[str]:
    return [
        event["text"]
        for conv in agent.conversations.glob("*.jsonl")
        for event in map(orjson.loads, conv.read_bytes().splitlines())
        if event["type"] == "user"
    ]


@pytest.mark.parametrize("order", ["first-then-resumed", "resumed-then-first"])
def test_a_real_resumed_pair_counts_each_call_and_prompt_once(samples, workspace, agent, order):
    first, resumed = samples / PAIR / f"{FIRST}.jsonl", samples / PAIR / f"{RESUMED}.jsonl"
    assert {r["sessionId"] for r in records(resumed) if "sessionId" in r} == {RESUMED}  # the copies carry the new id
    files = [first, resumed] if order == "first-then-resumed" else [resumed, first]
    import_files(agent, workspace.settings, "claude-code", files, settle=0)
    calls = imported_calls(agent)
    assert len(calls) == len(set(calls)) == len(source_calls([first, resumed]))
    typed = prompts(agent)
    assert len(typed) == len(set(typed))  # the copied prompt opened no second turn


@pytest.mark.parametrize("reverse", [False, True])
def test_another_session_with_the_same_uuids_counts_in_full_whatever_the_order(samples, workspace, agent, tmp_path, reverse):
    """The real session and a copy under another session id, a day later, its uuids unchanged: every call of
    each counts, in either file order (before, the second file imported lost all its records)."""
    original = samples / BIG_SESSION
    session = original.stem
    copy = tmp_path / "src" / "33333333-3333-4333-8333-333333333333.jsonl"
    copy.parent.mkdir()
    text = original.read_text().replace(session, copy.stem).replace('"2026-02-11T', '"2026-02-12T')
    copy.write_text(text)
    assert {r["uuid"] for r in records(copy) if "uuid" in r} == {r["uuid"] for r in records(original) if "uuid" in r}
    files = [copy, original] if reverse else [original, copy]
    stats = import_files(agent, workspace.settings, "claude-code", files, settle=0)
    per_file = len(source_calls([original]))
    assert stats.repeated == 0
    assert len(imported_calls(agent)) == 2 * per_file
    assert sorted(c.stem for c in agent.conversations.glob("*.jsonl")) == sorted([f"claude-{session}", f"claude-{copy.stem}"])
    shutil.rmtree(copy.parent)
