"""Stream failures are transient: real phrasings from Codex, Claude Code and HTTP clients.

The phrasings are the ones users quote in public bug reports (Codex's "stream
disconnected before completion: ...", with and without the Reconnecting prefix) and the
exact messages of the HTTP libraries agents run on. Errors that only mention a stream
(a test about a Stream type, an "upstream" error) stay real.
"""

from __future__ import annotations

import pytest

from orkas_tui.core.observe.transient import TransientRule
from orkas_tui.core.read.settings import Settings

RULE = TransientRule.from_settings(Settings())

STREAM_FAILURES = [
    # Codex CLI / app (openai/codex issues 6397, 14200, 22472, 27677)
    "stream disconnected before completion: An error occurred while processing your request. You can retry your "
    "request, or contact us through our help center at help.openai.com if the error persists.",
    "stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)",
    "stream disconnected before completion: stream closed before response.completed",
    "Reconnecting... 2/5 (stream disconnected before completion: Transport error: network error: error decoding response body)",
    "[System Error] stream disconnected before completion",
    # HTTP/2 and SSE clients
    "stream error: stream ID 3; INTERNAL_ERROR; received from peer",
    "API Error: stream error",
    # Python: httpx/h11, requests/urllib3
    "httpx.RemoteProtocolError: peer closed connection without sending complete message body (incomplete chunked read)",
    "ChunkedEncodingError: ('Connection broken: IncompleteRead(0 bytes read, 2 more expected)', "
    "IncompleteRead(0 bytes read, 2 more expected))",
    "requests.exceptions.ChunkedEncodingError: Response ended prematurely",
    # Node
    "Error [ERR_STREAM_PREMATURE_CLOSE]: Premature close",
]

STILL_REAL = [
    "upstream error: no such remote 'origin'",
    "Stream.error/1 is undefined or private",
    "TypeError: stream.pipe is not a function",
    "StreamingTextResponse is not exported from 'ai'",
    "incomplete type 'struct stream' used in nested name specifier",
]


@pytest.mark.parametrize("message", STREAM_FAILURES)
def test_stream_failures_are_transient(message: str) -> None:
    verdict = RULE.classify(message)
    assert verdict.transient, message
    assert "network/limit pattern" in verdict.reason


@pytest.mark.parametrize("message", STILL_REAL)
def test_errors_that_only_mention_a_stream_stay_real(message: str) -> None:
    assert not RULE.classify(message).transient


def test_a_stream_error_flagged_not_transient_by_the_runtime_is_real() -> None:
    assert not RULE.classify("stream disconnected before completion", flag=False).transient
