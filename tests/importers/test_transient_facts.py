"""Importers write facts, the one transient rule judges them: when read, with the settings of the moment."""

from __future__ import annotations

import json
import re

import msgspec
import orjson
import pytest

from orkas_tui.cli import main
from orkas_tui.core.observe import transient
from orkas_tui.core.observe.transient import COLLATERAL, INTERRUPTED, REJECTED, TransientRule
from orkas_tui.core.observe.turns import end_failure, tool_failure
from orkas_tui.core.observe.vocabularies import VOCABULARIES
from orkas_tui.core.read.events import Event, Failure, decode_line, decode_lines
from orkas_tui.core.read.settings import DEFAULT_TRANSIENT_PATTERNS, DEFAULT_TRANSIENT_STATUSES, Settings
from orkas_tui.importers import claude_code, codex
from orkas_tui.importers.run import import_files
from tests.importers.conftest import BIG_SESSION

CODEX = "codex/AcidicSoil-codex-session-view__rollout-2025-11-17T15-30-28-019a93b9.jsonl"
RULE = TransientRule.from_settings(Settings())
# one text per agent word, which that word matches and no default pattern does: a word that repeats a default has none
WORDS = {
    r"reconnecting": "Reconnecting... 2/5",
    r"connection error": "API Error: Connection error.",
    r"socket hang up": "Error: socket hang up",
    r"fetch failed": "TypeError: fetch failed",
    r"internal server error": "500 Internal Server Error",
    r"bad gateway": "502 Bad Gateway",
    r"api_error": '{"type":"api_error"}',
    r"request (?:was )?aborted": "Request was aborted.",
    r"mid-(?:stream|response)": "output cut mid-stream",
    r"stalled": "the response stalled",
    r"failedtoopensocket": "FailedToOpenSocket",
}


def _pair(verdict) -> tuple[bool, str]:
    return verdict.transient, verdict.reason


def test_every_importer_writes_a_vocabulary_the_rule_knows():
    assert {claude_code.NAME, codex.NAME} == set(VOCABULARIES)
    assert all(
        msgspec.structs.astuple(vocabulary) in transient.VERSION[1] for vocabulary in VOCABULARIES.values()
    )  # in the cache key


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_no_agent_word_repeats_a_default(name):
    vocabulary = VOCABULARIES[name]
    assert set(vocabulary.transient_patterns) == set(WORDS)
    for pattern in vocabulary.transient_patterns:
        assert re.search(pattern, WORDS[pattern], re.IGNORECASE)
        assert not any(re.search(default, WORDS[pattern], re.IGNORECASE) for default in DEFAULT_TRANSIENT_PATTERNS), pattern
    assert not set(vocabulary.transient_statuses) & set(DEFAULT_TRANSIENT_STATUSES)


def test_each_fact_has_its_reason():
    judge = RULE.classify
    cases = {
        Failure("claude-code", rejected=True): (True, REJECTED),
        Failure("codex", interrupted=True): (True, INTERRUPTED),
        Failure("claude-code", collateral=True): (True, COLLATERAL),
        Failure("claude-code", retried=True): (True, "Claude Code retried it (retry metadata)"),
        Failure("codex", kind="server_overloaded"): (True, "Codex error kind server_overloaded is transient"),
        Failure("codex", kind="usage_limit_exceeded"): (False, "Codex error kind usage_limit_exceeded is real"),
        Failure("future-agent", collateral=True): (True, COLLATERAL),
    }
    for facts, (verdict, reason) in cases.items():
        assert _pair(judge("boom", None, None, facts)) == (verdict, reason)
    assert _pair(judge("quota exceeded, rate limit", None, None, Failure("codex"))) == (
        False,
        "real: usage cap or authentication failure 'quota'",
    )
    assert _pair(judge("API Error: 403", None, None, Failure("claude-code"))) == (
        False,
        "real: HTTP status 403 is an authentication or permission failure",
    )
    assert _pair(judge("API Error: 501 Not Implemented", None, None, Failure("claude-code"))) == (False, "real: status 501")


def test_a_runtime_event_is_judged_by_the_spec_alone():
    """Without ``vocabulary`` an event's extra fields are not facts: flag, status, patterns, else real."""
    native = {"type": "tool_result", "ok": False, "error": "quota exceeded, rate limit", "collateral": True}
    assert _pair(tool_failure(RULE, _read(native))[2]) == (True, "message matches network/limit pattern 'rate limit'")
    imported = {**native, "failure": {"vocabulary": "codex", "collateral": True}}
    assert tool_failure(RULE, _read(imported))[2].transient is True
    imported["failure"] = {"vocabulary": "codex"}
    assert _pair(tool_failure(RULE, _read(imported))[2]) == (False, "real: usage cap or authentication failure 'quota'")
    imported["failure"] = {"collateral": True}  # no vocabulary: not a failure object, the spec's order
    assert tool_failure(RULE, _read(imported))[2].transient is True  # (the pattern)
    end = {"type": "turn_end", "status": "error", "error": "upstream", "http_status": 503}
    assert end_failure(RULE, _read(end))[1].transient is False  # a runtime's turn end has no HTTP status
    failed = {**end, "failure": {"vocabulary": "codex", "http_status": 503}}
    assert _pair(end_failure(RULE, _read(failed))[1]) == (True, "HTTP status 503 is transient")
    (event,) = decode_lines([orjson.dumps(failed)])  # the typed path reads the same
    assert _pair(end_failure(RULE, event)[1]) == (True, "HTTP status 503 is transient")


def test_an_event_an_older_importer_judged_keeps_its_verdict_and_shows_its_reason():
    old = {"type": "tool_result", "ok": False, "error": "cancelled: a sibling tool call errored", "transient": True}
    old |= {"reason": COLLATERAL, "collateral": True}
    assert _pair(tool_failure(RULE, _read(old))[2]) == (True, COLLATERAL)
    end = {"type": "turn_end", "status": "error", "error": "Overloaded", "transient": False, "reason": "whatever it said"}
    assert _pair(end_failure(RULE, _read(end))[1]) == (False, "whatever it said")
    del end["reason"]
    assert _pair(end_failure(RULE, _read(end))[1]) == (False, "marked not transient by the runtime")


def status_errors(root, capsys) -> list[dict]:
    assert main(["status", "--workspace", str(root), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    return [error for agent in doc["agents"] for turn in agent["turns"] for error in turn["errors"]]


def test_editing_the_patterns_in_orkas_toml_judges_imported_turns_again(samples, workspace, agent, capsys):
    import_files(agent, workspace.settings, "codex", [samples / CODEX], settle=0)
    before = status_errors(workspace.root, capsys)
    assert [(e["transient"], e["reason"]) for e in before] == [(False, "real: no transient flag, status or network pattern")] * 2
    (workspace.root / "orkas.toml").write_text('[transient]\nextra_patterns = ["no such file or directory"]\n')
    after = status_errors(workspace.root, capsys)  # read through the cache the first status wrote
    assert [(e["transient"], e["reason"]) for e in after] == [
        (True, "message matches network/limit pattern 'No such file or directory'")
    ] * 2


def test_the_collateral_reason_shows_in_status(samples, workspace, agent, capsys):
    import_files(agent, workspace.settings, "claude-code", [samples / BIG_SESSION], settle=0)
    excused = [(e["source"], e["reason"]) for e in status_errors(workspace.root, capsys) if e["transient"]]
    assert excused == [("Bash", COLLATERAL)]


def _read(event: dict) -> Event | None:
    """The event as the observer reads its line."""
    return decode_line(orjson.dumps(event))
