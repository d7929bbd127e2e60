"""What these agents write when something fails, mapped onto the spec's transient rule.

The core rule knows HTTP statuses and network patterns. Claude Code and Codex add
their own words (API errors retried, overloaded, stream disconnected) and Codex
names the error kind in ``codex_error_info``. Usage caps and authentication failures
match some transient patterns ("limit", 429 in a billing text) but are real: the
agent cannot succeed by waiting a moment, so they are checked first.
"""

from __future__ import annotations

import re

from orkas_tui.core.observe.transient import ErrorVerdict, TransientRule
from orkas_tui.core.read.settings import Settings

EXTRA_TRANSIENT = (
    r"stream (?:was )?disconnected",
    r"stream error",
    r"reconnecting",
    r"connection error",
    r"socket hang up",
    r"fetch failed",
    r"internal server error",
    r"bad gateway",
    r"gateway time",
    r"overloaded_error",
    r"api_error",
    r"request (?:was )?aborted",
    r"mid-(?:stream|response)",
    r"stalled",
    r"failedtoopensocket",
)

REAL_FIRST = re.compile(
    r"(?<!not your )usage[ _]limit|(?:session|weekly|daily|monthly) limit|hit your limit|quota|credit balance|billing|"
    r"invalid api key|invalid x-api-key|authentication|unauthori[sz]ed|"
    r"please run /login|oauth token|permission_error|forbidden|context[_ ]window|prompt is too long",
    re.IGNORECASE,
)

CODEX_TRANSIENT_KINDS = frozenset(
    {
        "server_overloaded",
        "http_connection_failed",
        "response_stream_connection_failed",
        "response_stream_disconnected",
        "response_too_many_failed_attempts",
        "internal_server_error",
    }
)
CODEX_REAL_KINDS = frozenset(
    {
        "context_window_exceeded",
        "usage_limit_exceeded",
        "unauthorized",
        "bad_request",
        "sandbox_error",
        "session_budget_exceeded",
        "cyber_policy",
        "thread_rollback_failed",
        "active_turn_not_steerable",
    }
)
# Claude Code's ``error`` code on an API error record; ``rate_limit`` is decided by its text
CLAUDE_REAL_CODES = frozenset({"authentication_failed", "billing_error", "invalid_request", "permission_error"})
CLAUDE_TRANSIENT_CODES = frozenset({"server_error", "overloaded", "overloaded_error", "api_error", "connection_error", "timeout"})

API_STATUS = re.compile(r"API Error:?\s*\(?(\d{3})\b")


class ErrorClassifier:
    """The core rule plus the agents' own vocabulary; every verdict is explicit."""

    def __init__(self, settings: Settings) -> None:
        self.rule = TransientRule(settings.transient_statuses, settings.transient_patterns + EXTRA_TRANSIENT)

    def classify(self, message: str, status: int | None = None, kind: str | None = None, retried: bool = False) -> ErrorVerdict:
        if kind in CODEX_REAL_KINDS:
            return ErrorVerdict(False, f"codex error kind {kind} is real")
        if kind in CODEX_TRANSIENT_KINDS:
            return ErrorVerdict(True, f"codex error kind {kind} is transient")
        if kind in CLAUDE_REAL_CODES:
            return ErrorVerdict(False, f"API error {kind} is real")
        if kind in CLAUDE_TRANSIENT_CODES:
            return ErrorVerdict(True, f"API error {kind} is transient")
        if REAL_FIRST.search(message or "") or status in (401, 403):
            return ErrorVerdict(False, "usage cap or authentication failure is real")
        if retried:
            return ErrorVerdict(True, "the agent retried it (retry metadata)")
        if status is None:
            found = API_STATUS.search(message or "")
            status = int(found.group(1)) if found else None
        if status is not None and status >= 500:
            return ErrorVerdict(True, f"HTTP status {status} is transient")
        return self.rule.classify(message, status)


def codex_error_kind(info: object) -> tuple[str | None, int | None]:
    """``codex_error_info`` is a bare kind (``"internal_server_error"``) or ``{kind: {http_status_code}}``.

    Rollouts write snake_case; the app-server protocol writes camelCase: both are read.
    """
    if isinstance(info, str):
        return _snake(info), None
    if isinstance(info, dict) and len(info) == 1:
        kind, detail = next(iter(info.items()))
        detail = detail if isinstance(detail, dict) else {}
        status = detail.get("http_status_code", detail.get("httpStatusCode"))
        return _snake(str(kind)), status if isinstance(status, int) and not isinstance(status, bool) else None
    return None, None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
