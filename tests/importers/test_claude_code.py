"""Claude Code sessions: every kind of line the format is known to contain."""

from __future__ import annotations

import orjson

from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.importers.run import discover, import_files
from tests.importers.transcripts import REJECTED, cc_call, cc_result, cc_text, cc_user, write_lines

REFUSED = "refused a tool use, then said what to do instead"  # the reason a refusal's feedback corrects


def session() -> list[object]:
    return [
        {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {}},
        cc_user(1, "deploy the docs"),
        cc_call(2, "r1", "Read", {"file_path": "/home/me/.claude/skills/docs-deploy/SKILL.md"}),
        cc_result(3, "r1", "1→---\n2→name: docs-deploy"),
        cc_call(4, "b1", "Bash", {"command": "make docs"}),
        cc_call(4, "b2", "Bash", {"command": "ls site"}),
        cc_result(5, "b1", "Exit code 2\nmake: *** No rule to make target 'docs'.", True),
        cc_result(5, "b2", "<tool_use_error>Sibling tool call errored</tool_use_error>", True),
        cc_call(6, "g1", "Bash", {"command": "rg TODO docs/"}),
        cc_result(7, "g1", "Exit code 1", True),
        cc_call(8, "s1", "Skill", {"skill": "release-notes"}),
        cc_result(9, "s1", "Launching skill: release-notes"),
        cc_user(9, "Base directory for this skill: ...", isMeta=True),
        cc_user(10, [{"type": "text", "text": "<system-reminder>todo list is empty</system-reminder>"}]),
        {
            "type": "user",
            "isSidechain": True,
            "timestamp": "2026-03-01T10:00:11.000Z",
            "message": {"role": "user", "content": "sub task"},
        },
        cc_text(12, "Docs deployed after fixing the target."),
        {**cc_text(12, ""), "message": {"role": "assistant", "content": [{"type": "hologram", "data": 1}]}},
        cc_user(19, [{"type": "text", "text": "<task-notification>background job bae407b finished</task-notification>"}]),
        cc_user(
            20,
            [
                {"type": "text", "text": "<ide_opened_file>The user opened tests/test_a.py</ide_opened_file>"},
                {"type": "text", "text": "run the tests"},
            ],
        ),
        cc_call(21, "b3", "Bash", {"command": "pytest"}),
        cc_result(22, "b3", REJECTED + "use pytest -x on tests/unit only", True),
        {
            "type": "system",
            "subtype": "api_error",
            "level": "error",
            "timestamp": "2026-03-01T10:00:23.000Z",
            "error": {"status": 529, "error": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}},
            "retryInMs": 1200,
            "retryAttempt": 1,
            "maxRetries": 10,
        },
        cc_text(24, "Running only the unit tests."),
        cc_user(
            25, "This session is being continued from a previous conversation that ran out of context.", isCompactSummary=True
        ),
        {"type": "system", "subtype": "compact_boundary", "timestamp": "2026-03-01T10:00:25.000Z"},
        cc_user(
            30,
            "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>12</command-args>",
        ),
        cc_user(30, "Review pull request 12 carefully.", isMeta=True),
        cc_text(31, "Reviewing."),
        cc_text(
            32,
            'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            isApiErrorMessage=True,
        ),
        cc_user(
            40, "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>"
        ),
        cc_user(40, "<local-command-stdout>Kept model as Default</local-command-stdout>"),
        {
            "type": "system",
            "subtype": "local_command",
            "timestamp": "2026-03-01T10:00:40.000Z",
            "content": "<command-name>/model</command-name>",
        },
        cc_user(50, "and the changelog"),
        cc_text(51, "Claude AI usage limit reached|1767261600", isApiErrorMessage=True),
        cc_user(60, "stop the server"),
        cc_call(61, "b4", "Bash", {"command": "kill 1"}),
        cc_result(62, "b4", "[Request interrupted by user for tool use]", True),
        cc_user(62, [{"type": "text", "text": "[Request interrupted by user for tool use]"}]),
        {"type": "mystery-record", "timestamp": "2026-03-01T10:01:03.000Z"},
        {"type": "system", "subtype": "brand_new_subtype", "timestamp": "2026-03-01T10:01:03.000Z"},
        "{not json",
        "[1, 2]",
        '{"timestamp": "2026-03-01T10:01:04.000Z"}',
    ]


def turns(agent, workspace):
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    return list(scan.records()), scan


def test_every_known_line_kind(tmp_path, workspace, agent):
    source = write_lines(tmp_path / "projects" / "p" / "sess1.jsonl", session())
    stats = import_files(agent, workspace.settings, "claude-code", [source], settle=0)
    got, scan = turns(agent, workspace)
    assert [t.turn for t in got] == ["t1", "t2", "t3", "t4", "t5"]
    t1, t2, t3, t4, t5 = got
    assert (t1.status, t1.tool_calls, len(t1.real_errors), len(t1.transient_errors)) == ("ok", 5, 1, 1)
    assert t1.real_errors[0].source == "Bash" and "No rule" in t1.real_errors[0].message
    assert t1.skills_read == ["docs-deploy", "release-notes"]
    assert (t2.status, t2.tool_calls, len(t2.real_errors), len(t2.transient_errors), t2.corrections[0].reason) == (
        "ok",
        1,
        0,
        1,
        REFUSED,
    )
    assert (t3.status, t3.end_error.transient) == ("error", True)
    assert (t4.status, t4.end_error.transient) == ("error", False)
    assert (t5.status, len(t5.transient_errors)) == ("aborted", 1)
    assert (stats.turns, stats.interrupts, stats.corrections, stats.skipped["inline subagent (sidechain) record"]) == (5, 1, 1, 1)
    assert (stats.malformed, dict(stats.unknown)) == (
        3,
        {"mystery-record": 1, "system/brand_new_subtype": 1, "assistant block/hologram": 1},
    )
    assert scan.malformed_lines == 0


def test_user_text_and_command_turns(tmp_path, workspace, agent):
    source = write_lines(tmp_path / "sess1.jsonl", session())
    import_files(agent, workspace.settings, "claude-code", [source], settle=0)
    events = [orjson.loads(line) for line in (agent.conversations / "claude-sess1.jsonl").read_bytes().splitlines()]
    users = [e["text"] for e in events if e["type"] == "user"]
    assert users == [
        "deploy the docs",
        "run the tests",
        "instead: use pytest -x on tests/unit only",
        "/review 12",
        "and the changelog",
        "stop the server",
    ]
    rejected = [e for e in events if e["type"] == "tool_result" and e.get("failure", {}).get("rejected")]
    assert rejected == [
        {
            "ts": "2026-03-01T10:00:22Z",
            "type": "tool_result",
            "id": "b3",
            "ok": False,
            "error": "rejected by the user",
            "failure": {"vocabulary": "claude-code", "rejected": True},
        }
    ]
    assert not any("transient" in e or "reason" in e for e in events)  # facts, never a verdict


def test_subagent_file_is_its_own_delegated_conversation(tmp_path, workspace, agent):
    sub = [
        {**cc_user(1, "Explore the repository layout"), "isSidechain": True, "agentId": "a1"},
        {**cc_call(2, "gl", "Glob", {"pattern": "**/*.py"}), "isSidechain": True},
        {**cc_result(3, "gl", "a.py"), "isSidechain": True},
        {**cc_text(4, "Found one module."), "isSidechain": True},
    ]
    write_lines(tmp_path / "sess9" / "subagents" / "agent-a1.jsonl", sub)
    write_lines(tmp_path / "agent-b2.jsonl", sub)  # older versions kept subagents beside the sessions
    import_files(agent, workspace.settings, "claude-code", discover("claude-code", [tmp_path]), settle=0)
    got, _ = turns(agent, workspace)
    assert sorted((t.conversation, t.status, t.tool_calls, t.correction) for t in got) == sorted(
        [
            (f"claude-{tmp_path.name}-agent-b2", "ok", 1, None),  # no sessionId in these lines: the project folder
            ("claude-sess9-agent-a1", "ok", 1, None),
        ]
    )
    assert b'"type":"user"' not in (agent.conversations / "claude-sess9-agent-a1.jsonl").read_bytes()


def test_rejected_skill_read_reads_nothing(tmp_path, workspace, agent):
    source = write_lines(
        tmp_path / "s2.jsonl",
        [
            cc_user(1, "release it"),
            cc_call(2, "k1", "Skill", {"skill": "release"}),
            cc_result(3, "k1", REJECTED + "not now", True),
            cc_call(4, "q1", "AskUserQuestion", {"questions": []}),
            cc_result(5, "q1", REJECTED + "The user wants to clarify these questions.\n    Questions asked:", True),
            cc_call(6, "p1", "Read", {"file_path": "/s/deploy/SKILL.md"}),
            cc_result(7, "p1", "Permission for this tool use was denied. The tool use was rejected.", True),
        ],
    )
    stats = import_files(agent, workspace.settings, "claude-code", [source], settle=0)
    (turn,), _ = turns(agent, workspace)
    assert (turn.skills_read, turn.corrections[0].reason, len(turn.transient_errors), turn.real_errors) == ([], REFUSED, 3, [])
    assert (stats.corrections, stats.skill_reads) == (1, 0)
