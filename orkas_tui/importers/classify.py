"""What these agents write when something fails, mapped onto the spec's transient rule.

The core rule knows HTTP statuses and network patterns. Claude Code and Codex add
their own words (API errors retried, overloaded, stream disconnected) and Codex
names the error kind in ``codex_error_info``. Usage caps and authentication failures
match some transient patterns ("limit", 429 in a billing text) but are real: the
agent cannot succeed by waiting a moment, so they are checked first.
"""

from __future__ import annotations

import re

from orkas_tui.config import Settings
from orkas_tui.core.errors import ErrorVerdict, TransientRule

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
)

REAL_FIRST = re.compile(
    r"usage limit|usage_limit|quota|insufficient_quota|credit balance|billing|"
    r"invalid api key|invalid x-api-key|authentication|unauthori[sz]ed|"
    r"please run /login|oauth token|permission_error|forbidden|context[_ ]window|prompt is too long",
    re.IGNORECASE,
)

CODEX_TRANSIENT_KINDS = frozenset({
    "http_connection_failed",
    "response_stream_connection_failed",
    "response_stream_disconnected",
    "response_too_many_failed_attempts",
    "internal_server_error",
})
CODEX_REAL_KINDS = frozenset({
    "context_window_exceeded",
    "usage_limit_exceeded",
    "unauthorized",
    "bad_request",
    "sandbox_error",
})

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
    """``codex_error_info`` is a bare kind (``"internal_server_error"``) or ``{kind: {http_status_code}}``."""
    if isinstance(info, str):
        return info, None
    if isinstance(info, dict) and len(info) == 1:
        kind, detail = next(iter(info.items()))
        status = detail.get("http_status_code") if isinstance(detail, dict) else None
        return kind, status if isinstance(status, int) else None
    return None, None
