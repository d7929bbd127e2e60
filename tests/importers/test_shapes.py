"""One test per record shape of issue 12, each built from real records of the vendored Claude Code session.

Line numbers are those of ``tests/data/samples/claude-code/marot-spotter__8463c716/<session>.jsonl``:
line 6 is the typed prompt; 284 a ``queue-operation`` enqueue of a task notification;
714-715 the compaction (``system`` ``compact_boundary``, then the ``isCompactSummary``
user record); 947 the ``Task`` call whose result (988) names subagent ``a7be2f0``;
1582-1587 the end of the first turn (its last answer, stop hook summary, turn
duration); 1588 the delivered ``<task-notification>`` and 1589 the model's answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import tool_failure
from orkas_tui.core.read.events import Event, decode_line
from orkas_tui.core.summary.scan import AgentScan
from orkas_tui.importers.run import discover, import_files
from tests.importers.conftest import BIG_SESSION
from tests.importers.transcripts import cc_call, cc_result, cc_text, cc_user, write_lines

MAIN = "claude-8463c716-a2ea-4c14-9efa-87158ebd9f20"


def lines(samples: Path, *ranges: tuple[int, int]) -> list[dict]:
    """Records by 1-based line number, ranges inclusive."""
    text = (samples / BIG_SESSION).read_text().splitlines()
    return [json.loads(text[n - 1]) for first, last in ranges for n in range(first, last + 1)]


def run(tmp_path: Path, workspace, agent, records: list[dict], name: str = "s.jsonl"):
    source = write_lines(tmp_path / "src" / name, records)
    stats = import_files(agent, workspace.settings, "claude-code", [source], settle=0)
    conversation = agent.conversations / f"claude-{source.stem}.jsonl"
    events = [orjson.loads(x) for x in conversation.read_bytes().splitlines()] if conversation.exists() else []
    return stats, events


def calls(records: list[dict]) -> set[str]:
    return {
        b["id"] for r in records if r.get("type") == "assistant" for b in r["message"]["content"] if b.get("type") == "tool_use"
    }


def test_compaction_neither_ends_nor_starts_a_turn(tmp_path, samples, workspace, agent):
    records = lines(samples, (6, 6), (700, 760))
    stats, events = run(tmp_path, workspace, agent, records)
    assert [e["type"] for e in events].count("turn_start") == 1
    assert {e["id"] for e in events if e["type"] == "tool_call"} == calls(records)
    assert [e["text"] for e in events if e["type"] == "user"] == [records[0]["message"]["content"]]  # the summary is no prompt
    assert (stats.skipped["compaction summary"], stats.skipped["system/compact_boundary"]) == (1, 1)


def test_work_with_no_turn_open_opens_a_resumed_turn(tmp_path, samples, workspace, agent):
    records = lines(samples, (715, 760))  # a session file that starts at a compaction summary: no typed prompt
    stats, events = run(tmp_path, workspace, agent, records)
    (start,) = [e for e in events if e["type"] == "turn_start"]
    assert start["trigger"] == "resumed" and not [e for e in events if e["type"] == "user"]
    assert {e["id"] for e in events if e["type"] == "tool_call"} == calls(records) and stats.tool_calls == len(calls(records))


def test_a_task_notification_the_model_answers_opens_a_turn_that_is_not_the_users_words(tmp_path, samples, workspace, agent):
    records = lines(samples, (6, 9), (17, 17), (284, 284), (1582, 1593))
    stats, events = run(tmp_path, workspace, agent, records)
    starts = [e for e in events if e["type"] == "turn_start"]
    assert [(s["turn"], s.get("trigger")) for s in starts] == [("t1", None), ("t2", "task-notification")]
    assert starts[1]["ts"] == records[-6]["timestamp"]  # the notification's own time (line 1588)
    assert [e["text"] for e in events if e["type"] == "user"] == [records[0]["message"]["content"]]
    answer = next(e for e in events if e["type"] == "assistant" and e["text"].startswith("That's a notification"))
    assert events.index(answer) > events.index(starts[1])
    assert stats.skipped["queue-operation"] == 1 and stats.turns == 2


def test_a_notification_followed_by_a_typed_prompt_opens_no_empty_turn(tmp_path, samples, workspace, agent):
    prompt = {**lines(samples, (6, 6))[0], "timestamp": "2026-02-11T23:00:00.000Z", "uuid": "a later prompt"}
    records = [*lines(samples, (6, 9), (17, 17), (1588, 1588)), prompt]
    stats, events = run(tmp_path, workspace, agent, records)
    assert [e.get("trigger") for e in events if e["type"] == "turn_start"] == [None, None]
    assert stats.skipped["unanswered <task-notification>"] == 1


def test_a_notification_is_never_a_correction(tmp_path, samples, workspace, agent):
    notification = lines(samples, (1588, 1588))[0]
    notification["message"]["content"] = notification["message"]["content"].replace("completed", "actually failed, try again")
    records = [*lines(samples, (6, 9), (17, 17)), notification, *lines(samples, (1589, 1589))]
    run(tmp_path, workspace, agent, records)
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    assert [t.correction for t in scan.records()] == [None, None]
    assert not any(t.edited for t in scan.records())


def test_a_subagent_is_its_own_conversation_linked_both_ways_and_helpers_are_skipped(samples, workspace, agent):
    folder = samples / "claude-code" / "marot-spotter__8463c716"
    stats = import_files(agent, workspace.settings, "claude-code", discover("claude-code", [folder]), settle=0)
    sub = f"{MAIN}-agent-a7be2f0"
    assert sorted(p.stem for p in agent.conversation_files()) == [MAIN, sub]  # the compaction helper wrote nothing
    main = [orjson.loads(x) for x in (agent.conversations / f"{MAIN}.jsonl").read_bytes().splitlines()]
    (task,) = [e for e in main if e["type"] == "tool_call" and e["name"] == "Task"]
    (result,) = [e for e in main if e["type"] == "tool_result" and e["id"] == task["id"]]
    assert result["subagent"] == sub
    first = orjson.loads((agent.conversations / f"{sub}.jsonl").read_bytes().splitlines()[0])
    assert (first["type"], first["delegated"], first["trigger"], first["parent"]) == ("turn_start", True, "delegated", MAIN)
    helper = folder / "8463c716-a2ea-4c14-9efa-87158ebd9f20" / "subagents" / "agent-acompact-f46190.jsonl"
    assert stats.skipped["Claude Code helper agent (compaction summary, prompt suggestion)"] == len(
        helper.read_text().splitlines()
    )


def test_the_skipped_summary_holds_only_records_with_no_agent_work(samples, workspace, agent):
    path = samples / BIG_SESSION
    records = [json.loads(x) for x in path.read_text().splitlines()]
    stats = import_files(agent, workspace.settings, "claude-code", [path], settle=0)
    work = sum(
        1
        for r in records
        if r["type"] == "assistant"
        or (
            r["type"] == "user"
            and (
                (
                    isinstance(r["message"]["content"], list)
                    and any(b.get("type") == "tool_result" for b in r["message"]["content"])
                )
                or r["message"]["content"] == records[5]["message"]["content"]  # the typed prompt
                or r["message"]["content"].startswith("<task-notification>")
            )
        )
    )  # answered: it opened a turn
    assert sum(stats.skipped.values()) == len(records) - work
    assert set(stats.skipped) == {
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "compaction summary",
        "system/compact_boundary",
        "system/stop_hook_summary",
        "system/turn_duration",
    }


def test_meta_command_and_reminder_records_are_never_prompts(tmp_path, samples, workspace, agent):
    helper = samples / "claude-code" / "marot-spotter__8463c716" / "8463c716-a2ea-4c14-9efa-87158ebd9f20" / "subagents"
    reminders = [
        {**json.loads(x), "isSidechain": False} for x in (helper / "agent-acompact-f46190.jsonl").read_text().splitlines()[:5]
    ]
    bare = {**reminders[0], "isMeta": False, "uuid": "another record"}  # a <system-reminder> even without isMeta
    command = cc_user(
        5, "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>"
    )
    stdout = cc_user(6, "<local-command-stdout>Kept model as Default</local-command-stdout>")
    stats, events = run(tmp_path, workspace, agent, [*reminders, bare, command, stdout])
    assert events == [] and stats.turns == 0
    assert stats.skipped["injected context (isMeta)"] == 5 and stats.skipped["injected <system-reminder>"] == 1


def test_a_correction_read_in_context_marks_the_turn_before_it_edited(tmp_path, workspace, agent):
    """One judgement of a correction: the observer's, in context. The importer writes no
    ``output_edited`` of its own, so a phrase in a question ("...instead?") marks nothing."""
    records = [
        cc_user(1, "write the release notes"),
        cc_call(2, "s1", "Skill", {"skill": "release-notes"}),
        cc_result(3, "s1", "Launching skill: release-notes"),
        cc_text(4, "Done."),
        cc_user(10, "that's not what I meant, group them by area"),
        cc_text(11, "Regrouped."),
        cc_user(20, "could we tag it with the date instead?"),
        cc_text(21, "Tagged."),
        cc_user(30, "thanks"),
    ]
    _, events = run(tmp_path, workspace, agent, records)
    assert [e for e in events if e["type"] == "output_edited"] == []
    scan = AgentScan(agent, workspace.settings)
    scan.refresh()
    turns = list(scan.records())
    assert [(t.turn, t.edited) for t in turns] == [("t1", True), ("t2", False), ("t3", False), ("t4", False)]
    assert [t.correction is not None for t in turns] == [False, True, False, False]


def test_a_huge_tool_output_is_cut_and_reported_and_the_rest_imports(tmp_path, workspace, agent):
    records = [
        cc_user(1, "dump the log"),
        cc_call(2, "b1", "Bash", {"command": "cat big.log"}),
        cc_result(3, "b1", "x" * 5_000_000),
        "{cut line",
        {"type": "brand-new-record"},
        cc_text(4, "It is long."),
    ]
    stats, events = run(tmp_path, workspace, agent, records)
    (result,) = [e for e in events if e["type"] == "tool_result"]
    assert len(result["output"]) == 2_000 and stats.outputs_cut == 1
    assert (stats.malformed, dict(stats.unknown)) == (1, {"brand-new-record": 1})
    assert [e["type"] for e in events] == ["turn_start", "user", "tool_call", "tool_result", "assistant", "turn_end"]


def test_a_skill_call_that_failed_on_its_own_content_counts_as_used(tmp_path, samples, workspace, agent):
    records = lines(samples, (6, 6), (319, 319), (321, 321))  # Skill "handgemacht:commit", then "Bash command failed for pattern"
    stats, events = run(tmp_path, workspace, agent, records)
    (failed,) = [e for e in events if e["type"] == "tool_result"]
    assert failed["ok"] is False and not tool_failure(TransientRule.from_settings(workspace.settings), _read(failed))[2].transient
    assert [e["skill"] for e in events if e["type"] == "skill_read"] == ["commit"] and stats.skill_reads == 1


def _read(event: dict) -> Event | None:
    """The event as the observer reads its line."""
    return decode_line(orjson.dumps(event))


def test_a_mode_record_and_a_model_fallback_are_known_not_unread(tmp_path, workspace, agent):
    """Claude Code 2.1.2xx writes the session's permission mode as its own record and a model
    fallback as an assistant block (real shapes: JanDeDobbeleer/oh-my-posh checkpoints, MIT)."""
    fallback = cc_text(4, "Done.")
    fallback["message"]["content"].insert(0, {"type": "fallback", "from": {"model": "a"}, "to": {"model": "b"}})
    records = [cc_user(1, "write the release notes"), {"type": "mode", "mode": "normal", "sessionId": "s"}, fallback]
    stats, events = run(tmp_path, workspace, agent, records)
    assert not stats.unknown and stats.skipped["mode"] == 1
    assert [e["text"] for e in events if e["type"] == "assistant"] == ["Done."]
