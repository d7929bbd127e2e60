"""What Claude Code and Codex write when something fails: each agent's words, as data for the one transient rule.

The rule (:mod:`orkas_tui.core.observe.transient`) knows HTTP statuses and network
patterns from the settings. An imported failure names its agent (the event's
``vocabulary``), and the rule adds that agent's words: the error kinds it names
(Codex's ``codex_error_info``, Claude Code's ``error`` code), the texts it writes for a
cut stream or an overloaded API, and the usage caps and authentication failures that
match a transient pattern ("limit", a 429 in a billing text) but are real, since
waiting a moment cannot fix them. The words live here, in the core, because ``status``
judges imported events without importing the importers.
"""

from __future__ import annotations

import msgspec


class Vocabulary(msgspec.Struct, frozen=True):
    """One agent's words; ``name`` is its importer's format name, which each imported failure carries."""

    name: str
    label: str
    real_kinds: tuple[str, ...]
    transient_kinds: tuple[str, ...]
    real_statuses: tuple[int, ...]  # the status of an auth or permission failure: real even if a pattern matches
    real_patterns: tuple[str, ...]  # checked before any transient pattern
    transient_statuses: tuple[int, ...]  # added to the settings' statuses
    transient_patterns: tuple[str, ...]  # added to the settings' patterns; none repeats a default
    status_in_text: str  # group 1: the HTTP status the agent writes into its error text


# usage caps and authentication failures, as both agents word them
_REAL = (
    r"(?<!not your )usage[ _]limit",
    r"(?:session|weekly|daily|monthly) limit",
    r"hit your limit",
    r"quota",
    r"credit balance",
    r"billing",
    r"invalid api key",
    r"invalid x-api-key",
    r"authentication",
    r"unauthori[sz]ed",
    r"please run /login",
    r"oauth token",
    r"permission_error",
    r"forbidden",
    r"context[_ ]window",
    r"prompt is too long",
)
# a failed request in the agents' own words (the settings' defaults already hold stream
# disconnects, "overloaded", time-outs and connection resets)
_TRANSIENT = (
    r"reconnecting",
    r"connection error",
    r"socket hang up",
    r"fetch failed",
    r"internal server error",
    r"bad gateway",
    r"api_error",
    r"request (?:was )?aborted",
    r"mid-(?:stream|response)",
    r"stalled",
    r"failedtoopensocket",
)
_STATUS_IN_TEXT = r"API Error:?\s*\(?(\d{3})\b"

CLAUDE_CODE = Vocabulary(
    name="claude-code",
    label="Claude Code",
    # the ``error`` code of an API error record; ``rate_limit`` is judged by its text
    real_kinds=("authentication_failed", "billing_error", "invalid_request", "permission_error"),
    transient_kinds=("server_error", "overloaded", "overloaded_error", "api_error", "connection_error", "timeout"),
    real_statuses=(401, 403),
    real_patterns=_REAL,
    transient_statuses=(529,),  # Anthropic's "overloaded"
    transient_patterns=_TRANSIENT,
    status_in_text=_STATUS_IN_TEXT,
)
CODEX = Vocabulary(
    name="codex",
    label="Codex",
    # ``codex_error_info`` kinds, snake_case
    real_kinds=(
        "context_window_exceeded",
        "usage_limit_exceeded",
        "unauthorized",
        "bad_request",
        "sandbox_error",
        "session_budget_exceeded",
        "cyber_policy",
        "thread_rollback_failed",
        "active_turn_not_steerable",
    ),
    transient_kinds=(
        "server_overloaded",
        "http_connection_failed",
        "response_stream_connection_failed",
        "response_stream_disconnected",
        "response_too_many_failed_attempts",
        "internal_server_error",
    ),
    real_statuses=(401, 403),
    real_patterns=_REAL,
    transient_statuses=(),
    transient_patterns=_TRANSIENT,
    status_in_text=_STATUS_IN_TEXT,
)

VOCABULARIES = {vocabulary.name: vocabulary for vocabulary in (CLAUDE_CODE, CODEX)}
# every word of every vocabulary: caches of verdicts hold it in their fingerprint, so editing a word re-judges
CONTENT = [msgspec.structs.astuple(vocabulary) for vocabulary in VOCABULARIES.values()]
