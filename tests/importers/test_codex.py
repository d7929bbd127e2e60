"""Codex rollouts: calls of every kind, exit codes, aborts, and codex_error_info kinds."""

from __future__ import annotations

from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.importers.run import import_files
from tests.importers.transcripts import cx, cx_call, cx_exec, cx_output, cx_user, write_lines


def rollout() -> list[object]:
    return [
        cx(0, "session_meta", {"id": "019a", "cwd": "/w", "originator": "codex_cli_rs", "cli_version": "0.58.0"}),
        cx(
            1,
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/w</cwd>\n</environment_context>"}],
            },
        ),
        cx_user(2, "fix the build"),
        cx(2, "turn_context", {"cwd": "/w", "model": "gpt-5.1-codex"}),
        cx(3, "response_item", {"type": "reasoning", "summary": []}),
        cx_call(4, "c1", "shell", {"command": ["bash", "-lc", "cat ~/.codex/skills/build-fix/SKILL.md"]}),
        cx_output(5, "c1", cx_exec("---\nname: build-fix", 0)),
        cx_call(6, "c2", "exec_command", {"cmd": "npm run build"}),
        cx_output(7, "c2", "Exit code: 1\nWall time: 2.1 seconds\nOutput:\nerror TS2304: Cannot find name 'x'."),
        cx(
            8,
            "response_item",
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "call_id": "c3",
                "input": "*** Begin Patch\n*** Update File: skills/x/SKILL.md\n*** End Patch",
            },
        ),
        cx_output(9, "c3", cx_exec("Success. Updated the following files:\nM skills/x/SKILL.md", 0), "custom_tool_call_output"),
        cx(
            10,
            "response_item",
            {
                "type": "local_shell_call",
                "call_id": "c4",
                "status": "completed",
                "action": {"type": "exec", "command": ["rg", "nothing-here"]},
            },
        ),
        cx_output(11, "c4", cx_exec("", 1)),
        cx(11, "response_item", {"type": "custom_tool_call", "name": "exec", "call_id": "c6", "input": "text(await tools.ls())"}),
        cx_output(
            11,
            "c6",
            [{"type": "input_text", "text": "Script failed\nWall time: 0.1 seconds"}, {"type": "input_text", "text": "boom"}],
            "custom_tool_call_output",
        ),
        cx(
            11,
            "response_item",
            {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "ts2304"}},
        ),
        cx(
            12,
            "event_msg",
            {
                "type": "stream_error",
                "message": "stream disconnected before completion; Reconnecting... 1/5",
                "codex_error_info": {"response_stream_disconnected": {"http_status_code": None}},
            },
        ),
        cx(13, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]}),
        cx(14, "event_msg", {"type": "task_complete", "last_agent_message": "Fixed."}),
        cx_user(20, "now deploy"),
        cx_call(21, "c5", "shell", {"command": ["bash", "-lc", "make deploy"]}),
        cx_output(22, "c5", "aborted by user"),
        cx(22, "event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        cx_user(30, "retry deploy"),
        cx(
            31,
            "event_msg",
            {"type": "error", "message": "You've hit your usage limit.", "codex_error_info": "usage_limit_exceeded"},
        ),
        cx_user(40, "one more time"),
        cx(
            41,
            "event_msg",
            {
                "type": "error",
                "message": "exceeded retry limit, last status: 502 Bad Gateway",
                "codex_error_info": {"response_too_many_failed_attempts": {"http_status_code": 502}},
            },
        ),
        cx(42, "response_item", {"type": "future_item"}),
        cx(42, "event_msg", {"type": "brand_new_event"}),
        {"type": "weird"},
    ]


def test_rollout_turns(tmp_path, workspace, agent):
    source = write_lines(tmp_path / "2026" / "03" / "01" / "rollout-2026-03-01T10-00-00-019a.jsonl", rollout())
    stats = import_files(agent, workspace.settings, "codex", [source], settle=0)
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    t1, t2, t3, t4 = scan.records()
    assert t1.conversation == "codex-2026-03-01T10-00-00-019a"
    assert (t1.status, t1.tool_calls, len(t1.real_errors), len(t1.transient_errors)) == ("ok", 6, 2, 0)
    assert t1.real_errors[0].source == "exec_command" and "TS2304" in t1.real_errors[0].message
    assert t1.skills_read == ["build-fix"]
    assert (t2.status, t2.tool_calls, len(t2.transient_errors)) == ("aborted", 1, 1)
    assert (t3.status, t3.end_error.transient) == ("error", False)
    assert (t4.status, t4.end_error.transient) == ("error", True)
    assert (stats.turns, stats.tool_calls, stats.interrupts, stats.real_errors, stats.transient_errors) == (4, 7, 1, 3, 2)
    assert dict(stats.unknown) == {"response_item/future_item": 1, "event_msg/brand_new_event": 1, "weird": 1}


def test_failed_task_complete_ends_the_turn_in_error(tmp_path, workspace, agent):
    error = {"message": "You've hit your usage limit. Upgrade to Pro", "codex_error_info": "usage_limit_exceeded"}
    source = write_lines(
        tmp_path / "rollout-y.jsonl",
        [
            cx_user(1, "summarize the repo"),
            cx(2, "event_msg", {"type": "task_complete", "last_agent_message": None, "error": error}),
            cx_user(3, "summarize it again"),
            cx(
                4,
                "event_msg",
                {
                    "type": "stream_error",
                    "message": "idle timeout",
                    "additional_details": "retry 2/5",
                    "codex_error_info": "response_stream_disconnected",
                },
            ),
            cx(5, "event_msg", {"type": "turn_complete", "last_agent_message": None}),
        ],
    )
    import_files(agent, workspace.settings, "codex", [source], settle=3600)
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    first, second = scan.records()
    assert (first.status, first.end_error.transient, first.end_error.message) == ("error", False, error["message"])
    assert (second.status, second.end_error.transient) == ("error", True)


def test_unfinished_last_turn_waits_for_the_file_to_settle(tmp_path, workspace, agent):
    source = write_lines(tmp_path / "rollout-x.jsonl", rollout()[:8])
    stats = import_files(agent, workspace.settings, "codex", [source], settle=3600)
    assert stats.running == [str(source)]
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    assert [t.status for t in scan.records()] == ["running"]
    import_files(agent, workspace.settings, "codex", [source], settle=3600, clock=lambda: source.stat().st_mtime + 3600)
    scan.refresh()
    assert [t.status for t in scan.records()] == ["ok"]


def test_compaction_neither_ends_nor_starts_a_turn_and_aborts_end_one(tmp_path, workspace, agent):
    """Codex compacts in the middle of a turn (a ``compacted`` record holding the summary and the replacement
    history, then a ``context_compacted`` event) and goes on working in the same turn."""
    source = write_lines(
        tmp_path / "rollout-c.jsonl",
        [
            cx_user(1, "migrate the database"),
            cx_call(2, "c1", "shell", {"command": ["bash", "-lc", "make migrate"]}),
            cx_output(3, "c1", cx_exec("done", 0)),
            cx(
                4,
                "compacted",
                {
                    "message": "Summary: the user asked to migrate the database; it was run. Try again with care.",
                    "replacement_history": [
                        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "migrate the database"}]}
                    ],
                },
            ),
            cx(4, "event_msg", {"type": "context_compacted"}),
            cx_call(5, "c2", "shell", {"command": ["bash", "-lc", "make check"]}),
            cx_output(6, "c2", cx_exec("ok", 0)),
            cx(7, "event_msg", {"type": "task_complete", "last_agent_message": "Migrated."}),
            cx(
                8, "response_item", {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c3"}
            ),  # no prompt: resumed
            cx_output(9, "c3", cx_exec("", 0)),
            cx(10, "event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        ],
    )
    stats = import_files(agent, workspace.settings, "codex", [source], settle=0)
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    first, second = scan.records()
    assert (first.status, first.tool_calls, first.correction) == ("ok", 2, None)  # the summary's "Try again" is no prompt
    assert (second.status, second.tool_calls) == ("aborted", 1)
    assert (stats.skipped["compacted"], stats.skipped["event_msg/context_compacted"], stats.interrupts) == (1, 1, 1)
    events = (agent.conversations / "codex-c.jsonl").read_text()
    assert '"trigger":"resumed"' in events and "Summary:" not in events
