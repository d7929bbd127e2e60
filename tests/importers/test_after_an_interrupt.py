"""What follows an interrupt belongs to the aborted turn or to the next prompt: it never opens a turn of its own.

Real cases: a Claude Code 2.1.29 session (entireio/cli's own, tests/data/samples/README.md) where,
after "[Request interrupted by user]", Claude Code writes an assistant record of its own
(``model: "<synthetic>"``, "No response requested."); and a Codex 0.40.0 rollout with four
``turn_aborted`` events, each followed by the next ``user_message``.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from orkas_tui.importers.run import import_files
from tests.importers.test_codex_formats import NEURO

INTERRUPTED = "claude-code/entireio-cli__interrupted/-work-cli/0a93878f-dc30-4a5d-882f-3cd81cd3d499.jsonl"


def turn_starts_after_aborts(agent) -> list[str]:
    """The trigger of each turn that opens right after an aborted one."""
    found = []
    for conv in agent.conversations.glob("*.jsonl"):
        previous = None
        for event in map(orjson.loads, conv.read_bytes().splitlines()):
            if event["type"] == "turn_end":
                previous = event["status"]
            elif event["type"] == "turn_start":
                if previous == "aborted":
                    found.append(event.get("trigger", "prompt"))
                previous = None
    return found


def test_claude_codes_own_reply_after_an_interrupt_opens_no_turn(samples, workspace, agent):
    path = samples / INTERRUPTED
    records = [json.loads(line) for line in path.read_text().splitlines()]
    synthetic = [r for r in records if r["type"] == "assistant" and r["message"].get("model") == "<synthetic>"]
    assert [c["text"] for r in synthetic for c in r["message"]["content"]] == ["No response requested."]
    stats = import_files(agent, workspace.settings, "claude-code", [path], settle=0)
    assert stats.interrupts == 1
    assert turn_starts_after_aborts(agent) == ["prompt"]  # before: a "resumed" turn holding only that reply
    assert stats.skipped["Claude Code's own reply after an interrupt (<synthetic>)"] == 1


def test_codex_turns_after_an_abort_are_the_next_prompts(samples, workspace, agent):
    path: Path = samples / NEURO
    typed = sum(1 for line in path.read_text().splitlines() if '"type":"user_message"' in line)
    stats = import_files(agent, workspace.settings, "codex", [path], settle=0)
    assert (stats.turns, stats.interrupts) == (typed, 4)
    assert set(turn_starts_after_aborts(agent)) == {"prompt"}
