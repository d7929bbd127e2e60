"""Codex's output formats on real rollouts of several CLI versions (tests/data/samples/codex, README).

Each expectation is read from the rollout itself with a few lines of plain JSON reading
here, not with the importer's code: what the call's output says (its exit code, Codex's
own failure words), against what the importer wrote.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import orjson
import pytest

from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.observe.turns import tool_failure
from orkas_tui.core.read.events import decode_line
from orkas_tui.importers.run import import_files

FORMATS = "codex/formats"
PROMETHEUS = (
    f"{FORMATS}/Prometheus-AGS-prometheus-parking-lot-rs__rollout-2025-12-06T15-11-37-019af581.jsonl"  # 0.2.0-alpha.2 build
)
MOONMIND = f"{FORMATS}/MoonLadderStudios-MoonMind__rollout-2025-11-12T17-48-11-019a7ae6.jsonl"  # 0.57.0
NEURO = f"{FORMATS}/Python-AI-Solutions-agentic-neurodata-conversion__rollout-2025-09-26T17-01-04-019985ca.jsonl"  # 0.40.0
ACIDIC = "codex/AcidicSoil-codex-session-view__rollout-2025-11-17T15-30-28-019a93b9.jsonl"  # 0.58.0
AGENTV = f"{FORMATS}/EntityProcess-agentv__rollout-2026-06-18T02-34-50-019ed893.jsonl"  # 0.140.0
ALL = [NEURO, MOONMIND, ACIDIC, PROMETHEUS, AGENTV]
HEADER = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)", re.MULTILINE)
FAILURE_WORDS = ("apply_patch verification failed", "execution error:", "failed in sandbox", "exec command rejected by user")


def outputs(path: Path) -> dict[str, tuple[int | None, str, str]]:
    """Each call's (exit code, output text, command) as the rollout writes them."""
    commands, found = {}, {}
    for line in path.read_text().splitlines():
        payload = json.loads(line).get("payload") or {}
        kind = payload.get("type")
        if kind in ("function_call", "custom_tool_call"):
            commands[payload["call_id"]] = payload.get("arguments") or payload.get("input") or ""
        elif kind in ("function_call_output", "custom_tool_call_output") and isinstance(payload.get("output"), str):
            text, code = payload["output"], None
            if text.startswith("{"):
                value = json.loads(text)
                text, code = value.get("output") or "", (value.get("metadata") or {}).get("exit_code")
            else:
                head = HEADER.search(text.split("\nOutput:", 1)[0])
                code = int(head.group(1)) if head else None
            found[payload["call_id"]] = (code, text, commands.get(payload["call_id"], ""))
    return found


def no_match(code: int | None, text: str, command: str) -> bool:
    """``rg``/``grep`` ending the command line, exit 1, and nothing printed after the ``Output:`` line
    of the newer header but the shell's start-up line (nvm's "Now using node ...")."""
    body = text.split("\nOutput:", 1)[1] if "\nOutput:" in text else text
    value = json.loads(command).get("command") if command.startswith("{") else command
    shell = value[-1] if isinstance(value, list) else str(value)
    searches = re.split(r"\|\||&&|;|\|", shell)[-1].split()[:1] in (["rg"], ["grep"])
    banner_only = all(line.startswith("Now using node v") for line in body.splitlines() if line.strip())
    return code == 1 and searches and (not body.strip() or ("&&" not in shell and banner_only))


def results(agent) -> dict[str, dict]:
    found = {}
    for conv in agent.conversations.glob("*.jsonl"):
        for line in conv.read_bytes().splitlines():
            event = orjson.loads(line)
            if event["type"] == "tool_result":
                found[event["id"]] = event
    return found


@pytest.mark.parametrize("name", ALL)
def test_every_failed_output_is_a_failure_in_every_format(samples, workspace, agent, name):
    """A non-zero exit (JSON ``metadata.exit_code`` or the ``Exit code: N`` header) and an output in Codex's
    failure words are failed results; a success or a search that found nothing is ok."""
    source = outputs(samples / name)
    import_files(agent, workspace.settings, "codex", [samples / name], settle=0)
    written = results(agent)
    failed = {
        call
        for call, (code, text, command) in source.items()
        if (code not in (None, 0) and not no_match(code, text, command)) or text.startswith(FAILURE_WORDS)
    }
    assert failed, "each of these rollouts holds failures"
    assert {call for call in failed if written[call]["ok"]} == set()
    assert {call for call, event in written.items() if not event["ok"]} == failed


def test_a_search_that_found_nothing_is_ok_in_the_newer_header_too(samples, workspace, agent):
    """The Dec 2025 build writes ``Exit code: 1 / Wall time / Output:`` and its login shell prints nvm's
    line first: two ``... | grep -E`` that found nothing are ok; the one after git's "fatal" is not."""
    import_files(agent, workspace.settings, "codex", [samples / PROMETHEUS], settle=0)
    written = results(agent)
    greps = {
        call: text for call, (code, text, command) in outputs(samples / PROMETHEUS).items() if code == 1 and "grep" in command
    }
    assert len(greps) == 3
    assert sorted(("fatal:" in text, written[call]["ok"]) for call, text in greps.items()) == [
        (False, True),
        (False, True),
        (True, False),
    ]


def test_failures_without_an_exit_code_are_failures(samples, workspace, agent):
    """0.57 and a 0.2.0-alpha build write a failed patch or a failed spawn as plain text, with no exit
    code: 7 such outputs were imported as successes."""
    import_files(agent, workspace.settings, "codex", [samples / PROMETHEUS, samples / MOONMIND], settle=0)
    written = results(agent)
    texts = {call: text for name in (PROMETHEUS, MOONMIND) for call, (_, text, _) in outputs(samples / name).items()}
    words = {call for call, text in texts.items() if text.startswith(("apply_patch verification failed", "execution error:"))}
    assert len(words) == 7
    assert all(not written[call]["ok"] for call in words)


def test_a_sandbox_denial_is_a_real_permission_error(samples, workspace, agent):
    """Under ``workspace-write`` the macOS sandbox refuses with "Operation not permitted": a real error of
    Codex's kind ``sandbox_error``, never a success, never transient."""
    import_files(agent, workspace.settings, "codex", [samples / PROMETHEUS], settle=0)
    denied = [e for e in results(agent).values() if "Operation not permitted" in (e.get("error") or "")]
    assert len(denied) == 10
    rule = TransientRule.from_settings(workspace.settings)
    for event in denied:
        assert event["ok"] is False and event["failure"]["kind"] == "sandbox_error"
        verdict = tool_failure(rule, decode_line(orjson.dumps(event)))[2]
        assert (verdict.transient, verdict.reason) == (False, "Codex error kind sandbox_error is real")


def test_a_tool_search_is_a_call_whose_result_names_the_tools_found(samples, workspace, agent):
    """0.140 looks up deferred tools (``tool_search_call``, then ``tool_search_output`` listing them): a
    call and its ok result naming each tool found, none of the descriptions their authors wrote,
    and nothing counted as not read."""
    rows = [json.loads(line)["payload"] for line in (samples / AGENTV).read_text().splitlines()]
    (call,) = [row for row in rows if row.get("type") == "tool_search_call"]
    (found,) = [row for row in rows if row.get("type") == "tool_search_output"]
    names = [f"{space['name']}.{tool['name']}" for space in found["tools"] for tool in space["tools"]]
    stats = import_files(agent, workspace.settings, "codex", [samples / AGENTV], settle=0)
    assert not stats.unknown
    result = results(agent)[call["call_id"]]
    assert result["ok"] is True and result["output"] == "found " + ", ".join(names)
    conversation = b"".join(path.read_bytes() for path in agent.conversations.glob("*.jsonl"))
    assert found["tools"][0]["tools"][0]["description"][:40].encode() not in conversation
    calls = [orjson.loads(line) for line in conversation.splitlines() if b'"tool_call"' in line]
    assert [(event["name"], event["args"]) for event in calls if event["id"] == call["call_id"]] == [
        ("tool_search", call["arguments"])
    ]
