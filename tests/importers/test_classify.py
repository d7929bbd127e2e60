"""The agents' error vocabularies under the one transient rule: transient when waiting helps, real when it cannot."""

from __future__ import annotations

import pytest

from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.read.events import Failure
from orkas_tui.core.read.settings import Settings
from orkas_tui.importers.codex import codex_error_kind
from orkas_tui.importers.tools import exit_code, no_match, rejection_feedback, skill_reads

CC, CX = "claude-code", "codex"
CASES = [
    ('API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', None, CC, None, False, True),
    ("API Error: 529", None, CC, None, False, True),  # Anthropic's own status for "overloaded"
    ("API Error: 500 Internal server error", None, CC, None, False, True),
    ("API Error: Connection error.", None, CC, None, False, True),
    ("API Error (Request timed out.)", None, CC, None, False, True),
    ("API Error: 429 rate_limit_error", None, CC, None, False, True),
    ("stream disconnected before completion: error sending request", None, CX, None, False, True),
    ("something odd", None, CC, None, True, True),
    ("Claude AI usage limit reached|1767261600", None, CC, None, False, False),
    ("API Error: 401 invalid x-api-key · Please run /login", None, CC, None, False, False),
    ("OAuth token has expired. Please obtain a new token", 401, CC, None, True, False),
    ("You've hit your usage limit. Upgrade to Pro", None, CX, "usage_limit_exceeded", True, False),
    ("error", None, CX, "context_window_exceeded", False, False),
    ("exceeded retry limit, last status: 502", 502, CX, "response_too_many_failed_attempts", False, True),
    ("unexpected status 500", 500, CX, "internal_server_error", False, True),
    ("make: *** No rule to make target 'docs'.", None, CC, None, False, False),
    # Claude Code API error records: the ``error`` code and ``apiErrorStatus``
    ("You've hit your session limit · resets 9:50pm (Asia/Saigon)", 429, CC, "rate_limit", False, False),
    ("Server is temporarily limiting requests (not your usage limit). Retry in 156s.", 429, CC, "rate_limit", False, True),
    ("API Error: 529 Overloaded. This is a server-side issue", 529, CC, "server_error", False, True),
    ("Please run /login · API Error: 401 OAuth access token has expired.", 401, CC, "authentication_failed", False, False),
    ("API Error: Connection closed mid-response", None, CC, None, False, True),
    ("Credit balance is too low", None, CC, "billing_error", False, False),
    # Codex kinds, snake_case (rollouts) as codex_error_kind returns them
    ("server overloaded", None, CX, "server_overloaded", False, True),
    ("budget", None, CX, "session_budget_exceeded", False, False),
    ("temporary capacity", None, CX, "other", False, False),
    # 501 and 505 are real, as for any runtime: only the settings' statuses (and 529 for Claude Code) are transient
    ("API Error: 501 Not Implemented", None, CC, None, False, False),
    ("HTTP Version Not Supported", 505, CX, None, False, False),
]


@pytest.mark.parametrize(("message", "status", "vocabulary", "kind", "retried", "transient"), CASES)
def test_verdicts(message, status, vocabulary, kind, retried, transient):
    facts = Failure(vocabulary, kind, retried=retried)
    assert TransientRule.from_settings(Settings()).classify(message, status, None, facts).transient is transient


def test_codex_error_info_shapes():
    assert codex_error_kind("internal_server_error") == ("internal_server_error", None)
    assert codex_error_kind({"http_connection_failed": {"http_status_code": 503}}) == ("http_connection_failed", 503)
    assert codex_error_kind({"responseStreamDisconnected": {"httpStatusCode": 502}}) == ("response_stream_disconnected", 502)
    assert codex_error_kind("usageLimitExceeded") == ("usage_limit_exceeded", None)
    assert codex_error_kind({"a": 1, "b": 2}) == (None, None)
    assert codex_error_kind(None) == (None, None)


def test_tool_text_helpers():
    assert exit_code("Exit code 127\nbash: foo: command not found") == 127
    assert exit_code("Process exited with code 2\nOutput:") == 2
    assert exit_code("all fine, exit code 3 in prose") is None
    assert exit_code("Chunk ID: ab\nWall time: 1 s\nProcess exited with code 0\nOutput:\nExit code: 9") == 0
    assert exit_code("Chunk ID: ab\nWall time: 10.0 seconds\nProcess running with session ID 4867\nOutput:\n") is None
    assert no_match(["bash", "-lc", "rg -n OLLAMA"], 1, "")
    assert not no_match("rg -n OLLAMA", 1, "rg: regex parse error")
    assert not no_match("make", 1, "")
    banner = "Exit code: 1\nWall time: 1 seconds\nOutput:\nNow using node v22.20.0 (npm v10.9.3)\n"
    assert no_match("git branch | grep -E '^x$'", 1, banner)  # the search ends the pipeline: its exit
    assert no_match("FOO=1 rg -c x src; rg x", 1, "0\n")
    assert not no_match("git ls-remote origin | grep x", 1, "fatal: Could not read from remote repository.")
    assert not no_match("cd app && rg x", 1, banner)  # cd may have failed with 1: only an empty output says
    assert not no_match("rg x || echo none", 1, "")
    assert not no_match("set -o pipefail; make | grep x", 1, banner)
    assert skill_reads("Read", {"file_path": "/h/.claude/skills/Docs Deploy/SKILL.md"}) == ["docs-deploy"]
    assert skill_reads("shell", {"command": ["bash", "-lc", "sed -n 1,80p ~/.codex/skills/build-fix/SKILL.md"]}) == ["build-fix"]
    assert skill_reads("shell", {"command": ["bash", "-lc", "apply_patch <<'P'\n*** Update File: skills/x/SKILL.md"]}) == []
    assert skill_reads("Read", {"file_path": "/h/.claude/skills/docs-deploy/SKILL.md"}) == ["docs-deploy"]
    assert skill_reads("Edit", {"file_path": "/h/.claude/skills/docs-deploy/SKILL.md"}) == []
    assert skill_reads("Skill", {"skill": "plugin:Release Notes"}) == ["release-notes"]
    assert rejection_feedback("...rejected. To tell you how to proceed, the user said:\n  use uv  ") == "use uv"
    assert rejection_feedback("The user doesn't want to proceed with this tool use.") is None
    note = "If the user said what went wrong, consider saving that to memory for future sessions."
    assert rejection_feedback(f"x. To tell you how to proceed, the user said:\nuse uv\n\n{note}") == "use uv"
    assert rejection_feedback("x the user said:\nThe user wants to clarify these questions.\n    Questions asked:") is None
