"""Counts per vendored sample, each expectation derived from the source file itself.

Every test below reads the transcript twice: once through the importer, once with
a few lines of plain JSON reading here (no importer code), and the two must agree:
tool calls imported == distinct ``tool_use`` ids of the thread; failed results
written == its ``is_error: true`` results. Of those, a call cancelled because a
sibling call errored ("Sibling tool call errored"), a call the user rejected and a
call cut by an interrupt are written failed with that fact (``collateral``,
``rejected``, ``interrupted``), which the transient rule judges transient (they are not
the tool's failure); every other ``is_error`` result is a real error.

The hand counts kept from before, for the two small Claude Code samples and the
Codex rollout, still hold and are checked in ``test_hand_counted_samples``.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import tool_failure
from orkas_tui.core.read.events import Event, decode_line
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.importers.run import discover, import_files
from tests.importers.conftest import BIG_SESSION

CLAUDE_THREADS = [
    "claude-code/marot-spotter__short.jsonl",
    "claude-code/marot-spotter__tool_heavy.jsonl",
    BIG_SESSION,
    BIG_SESSION.replace(".jsonl", "/subagents/agent-a7be2f0.jsonl"),
]
MAROT = ("marot-spotter__short.jsonl", "marot-spotter__tool_heavy.jsonl", "marot-spotter__8463c716")
CODEX = "codex/AcidicSoil-codex-session-view__rollout-2025-11-17T15-30-28-019a93b9.jsonl"
NOT_THE_TOOLS_FAULT = (
    "Sibling tool call errored",
    "The user doesn't want to proceed",
    "Permission for this tool use was denied",
    "[Request interrupted by user",
)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def blocks(record: dict) -> list[dict]:
    message = record.get("message") if isinstance(record.get("message"), dict) else {}
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def result_text(block: dict) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def source_counts(path: Path) -> dict:
    """What the thread holds: its own records only (a main thread's inline sidechain copies are not its own)."""
    own = [
        r
        for r in records(path)
        if r.get("type") in ("user", "assistant") and (path.parent.name == "subagents" or not r.get("isSidechain"))
    ]
    calls = {b["id"] for r in own for b in blocks(r) if b.get("type") == "tool_use"}
    results = [b for r in own for b in blocks(r) if b.get("type") == "tool_result"]
    failed = [b for b in results if b.get("is_error") is True]
    excused = [b for b in failed if any(mark in result_text(b) for mark in NOT_THE_TOOLS_FAULT)]
    return {
        "calls": len(calls),
        "results": len({b["tool_use_id"] for b in results}),
        "failed": len(failed),
        "excused": len(excused),
        "result_ids": {b["tool_use_id"] for b in results},
        "call_ids": calls,
    }


def events(agent, conversation: str) -> list[dict]:
    return [orjson.loads(line) for line in (agent.conversations / f"{conversation}.jsonl").read_bytes().splitlines()]


def conversation_of(name: str) -> str:
    path = Path(name)
    return f"claude-{path.parent.parent.name}-{path.stem}" if path.parent.name == "subagents" else f"claude-{path.stem}"


@pytest.mark.parametrize("name", CLAUDE_THREADS)
def test_every_call_and_error_of_a_claude_thread_is_imported(samples, workspace, agent, name):
    expected = source_counts(samples / name)
    stats = import_files(agent, workspace.settings, "claude-code", [samples / name], settle=0)
    got = events(agent, conversation_of(name))
    calls = {e["id"] for e in got if e["type"] == "tool_call"}
    results = [e for e in got if e["type"] == "tool_result"]
    failed = [e for e in results if not e["ok"]]
    assert calls == expected["call_ids"] and stats.tool_calls == expected["calls"]
    assert {e["id"] for e in results} == expected["result_ids"] and len(results) == expected["results"]
    assert len(failed) == expected["failed"]
    rule = TransientRule.from_settings(workspace.settings)
    assert sum(tool_failure(rule, _read(e))[2].transient for e in failed) == expected["excused"]
    assert (stats.real_errors, stats.transient_errors) == (expected["failed"] - expected["excused"], expected["excused"])
    assert (stats.malformed, dict(stats.unknown), stats.problems) == (0, {}, [])
    depth = 0  # every event of agent work lies inside a turn
    for event in got:
        depth += {"turn_start": 1, "turn_end": -1}.get(event["type"], 0)
        assert depth == 1 or event["type"] in ("turn_end", "output_edited")


def test_codex_rollout_calls_and_errors_match_the_source(samples, workspace, agent):
    source = records(samples / CODEX)
    calls = {r["payload"]["call_id"] for r in source if r["type"] == "response_item" and r["payload"]["type"] == "function_call"}
    codes = []
    for r in source:
        if r["type"] == "response_item" and r["payload"]["type"] == "function_call_output":
            raw = r["payload"]["output"]  # shell calls answer {"output", "metadata": {"exit_code"}}; update_plan "Plan updated"
            output = json.loads(raw) if raw.startswith("{") else {"output": raw, "metadata": {"exit_code": 0}}
            codes.append((output["metadata"]["exit_code"], output["output"].strip()))
    no_match = [c for c in codes if c == (1, "")]  # rg/grep exit 1 with no output: nothing found, not a failure
    stats = import_files(agent, workspace.settings, "codex", [samples / CODEX], settle=0)
    got = events(agent, "codex-" + CODEX.split("rollout-", 1)[1][: -len(".jsonl")])
    assert {e["id"] for e in got if e["type"] == "tool_call"} == calls
    assert stats.real_errors == sum(code != 0 for code, _ in codes) - len(no_match) == 2
    assert [e["type"] for e in got].count("turn_start") == sum(r["payload"].get("type") == "user_message" for r in source)


EXPECTED = {
    # file: [(status, tool calls, real errors, transient errors)] per turn, interrupts (see tests/data/samples/README.md)
    "claude-code/marot-spotter__short.jsonl": ([("aborted", 2, 0, 2)], 1),
    "claude-code/marot-spotter__tool_heavy.jsonl": ([("aborted", 2, 0, 0), ("aborted", 4, 0, 0)], 2),
    CODEX: ([("ok", 39, 2, 0)], 0),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hand_counted_samples(samples, workspace, agent, name):
    """Counted by hand, line by line: short.jsonl line 4 is its only prompt, 2 rejected calls, an interrupt on line 13;
    tool_heavy.jsonl has prompts on lines 4 and 26, each interrupted; the rollout has one user_message, 39 calls and
    exit codes 2, 2 and a "no match" 1."""
    fmt = name.split("/")[0]
    stats = import_files(agent, workspace.settings, fmt, [samples / name], settle=0)
    turns_expected, interrupts = EXPECTED[name]
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    got = [(t.status, t.tool_calls, len(t.real_errors), len(t.transient_errors)) for t in scan.records()]
    assert got == turns_expected
    assert stats.interrupts == interrupts
    assert (stats.malformed, stats.unknown, stats.problems, scan.malformed_lines, scan.orphan_events) == (0, {}, [], 0, 0)


def test_codex_sample_scores_as_observed(samples, workspace, agent):
    import_files(agent, workspace.settings, "codex", [samples / CODEX], settle=0)
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    (row,) = scan.newest_turns()
    # its only prompt opens the session: a task, never a correction, however many "instead"s it holds
    assert sorted(row.summary.signals) == ["complex_task", "error_recovery"] and not row.trace.corrections
    assert row.summary.triggers


def test_aborted_claude_turns_do_not_trigger(samples, workspace, agent):
    """One aborted turn per interrupt the user typed (a user record whose own text is the interrupt marker)."""
    files = discover("claude-code", [samples / "claude-code" / name for name in MAROT])
    interrupts = len(  # a resumed file's copy of an interrupt (same uuid) is the same interrupt
        {
            r["uuid"]
            for path in files
            for r in records(path)
            if r.get("type") == "user"
            and not r.get("isSidechain")
            and any(b.get("type") == "text" and b["text"].startswith("[Request interrupted by user") for b in blocks(r))
        }
    )
    import_files(agent, workspace.settings, "claude-code", files, settle=0)
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    aborted = [row for row in scan.newest_turns() if row.summary.status == "aborted"]
    assert len(aborted) == interrupts == 3
    # the interrupt itself never triggers; one interrupted prompt is a real correction of the agent's fix
    # ("scrolling back in xterm.js still does not work ..."), typed right after an interrupt
    assert [sorted(row.summary.signals) for row in aborted if row.summary.triggers] == [["user_correction"]]
    assert [row.trace.corrections[0].reason for row in aborted if row.summary.triggers] == [
        "interrupted the agent, then redirected it"
    ]


def test_double_import_leaves_workspace_byte_identical(samples, workspace, agent):
    for fmt in ("claude-code", "codex"):
        import_files(agent, workspace.settings, fmt, discover(fmt, [samples / fmt]), settle=0)
    before = {p: p.read_bytes() for p in workspace.root.rglob("*") if p.is_file()}
    for fmt in ("claude-code", "codex"):
        stats = import_files(agent, workspace.settings, fmt, discover(fmt, [samples / fmt]), settle=0)
        assert (stats.lines, stats.turns) == (0, 0)
    after = {p: p.read_bytes() for p in workspace.root.rglob("*") if p.is_file()}
    assert after == before


def _read(event: dict) -> Event | None:
    """The event as the observer reads its line."""
    return decode_line(orjson.dumps(event))
