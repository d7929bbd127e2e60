"""Exact counts per shared sample, checked through the core's own observation.

How the expected numbers were established: each sample was read line by line
(a throwaway script printed every record's type, role, isMeta/isSidechain and a
summary of each content block; for Codex each payload type, call id, command and
output head), then counted by hand:

claude-code/marot-spotter__short.jsonl (15 lines)
  line 4 is the only typed prompt ("mix phx.server doesnt seem to start"): 1 turn.
  lines 8 and 10 are tool_use Bash and Glob: 2 calls; lines 11-12 answer both with
  is_error and "The user doesn't want to proceed..." (rejections without feedback:
  written transient, never real); line 13 "[Request interrupted by user for tool
  use]" ends the turn aborted: 1 interrupt. Lines 14-15 are the local /model
  command (system local_command): no turn.
claude-code/marot-spotter__tool_heavy.jsonl (39 lines)
  line 4 "start phoenix in background": Bash (line 5) and Bash tail (line 13), both
  is_error false; line 18 "[Request interrupted by user]": aborted. Lines 20-24 are
  the local /mcp command (caveat isMeta, command-name, local-command-stdout): no
  turn. Line 26 "scrolling back in xterm.js ...": WebSearch, Glob, Read, WebFetch
  (lines 29, 30, 34, 37), results without is_error; line 39 interrupts it. So 2
  turns, 6 calls, 0 errors, 2 interrupts.
codex/...rollout-2025-11-17T15-30-28-019a93b9.jsonl (279 lines)
  one event_msg user_message (line 4; line 2 is environment_context, line 3 the
  same prompt as a response item): 1 turn. 39 function_call (37 shell, 2
  update_plan), each paired with its function_call_output. Exit codes in the
  output metadata: 2 on line 152 (ls lib/ai), 2 on line 194 (rg ... src), 1 with
  empty output on line 235 (rg OLLAMA: "no match", not a failure), all others 0:
  2 real errors. No task_complete (the file ends mid-session): the turn ends ok
  once the file is quiet. The prompt says "use lmstudio instead of ..." so the
  correction heuristic fires on "instead" (a signal, not a verdict).
"""

from __future__ import annotations

import pytest

from orkas_tui.core.notes import SelfNotes
from orkas_tui.core.report import scored_turns
from orkas_tui.core.scan import AgentScan
from orkas_tui.importers.run import discover, import_files

EXPECTED = {
    # file: [(status, tool calls, real errors, transient errors)] per turn, interrupts
    "claude-code/marot-spotter__short.jsonl": ([("aborted", 2, 0, 2)], 1),
    "claude-code/marot-spotter__tool_heavy.jsonl": ([("aborted", 2, 0, 0), ("aborted", 4, 0, 0)], 2),
    "codex/AcidicSoil-codex-session-view__rollout-2025-11-17T15-30-28-019a93b9.jsonl": ([("ok", 39, 2, 0)], 0),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_counts(samples, workspace, agent, name):
    fmt = name.split("/")[0]
    stats = import_files(agent, workspace.settings, fmt, [samples / name], settle=0)
    turns_expected, interrupts = EXPECTED[name]
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    got = [(t.status, t.tool_calls, len(t.real_errors), len(t.transient_errors)) for t in scan.turns()]
    assert got == turns_expected
    assert stats.interrupts == interrupts
    assert (stats.malformed, stats.unknown, stats.problems, scan.malformed_lines, scan.orphan_events) == (0, {}, [], 0, 0)


def test_codex_sample_scores_as_observed(samples, workspace, agent):
    import_files(agent, workspace.settings, "codex", discover("codex", [samples / "codex"]), settle=0)
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    (row,) = scored_turns(scan, SelfNotes(agent, workspace.settings))
    assert sorted(row.score.signals) == ["complex_task", "error_recovery", "user_correction"]
    assert row.score.triggers


def test_aborted_claude_turns_do_not_trigger(samples, workspace, agent):
    import_files(agent, workspace.settings, "claude-code", discover("claude-code", [samples / "claude-code"]), settle=0)
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    rows = scored_turns(scan, SelfNotes(agent, workspace.settings))
    assert len(rows) == 3 and not any(r.triggers for r in (row.score for row in rows))


def test_double_import_leaves_workspace_byte_identical(samples, workspace, agent):
    for fmt in ("claude-code", "codex"):
        import_files(agent, workspace.settings, fmt, discover(fmt, [samples / fmt]), settle=0)
    before = {p: p.read_bytes() for p in workspace.root.rglob("*") if p.is_file()}
    for fmt in ("claude-code", "codex"):
        stats = import_files(agent, workspace.settings, fmt, discover(fmt, [samples / fmt]), settle=0)
        assert (stats.lines, stats.turns) == (0, 0)
    after = {p: p.read_bytes() for p in workspace.root.rglob("*") if p.is_file()}
    assert after == before
