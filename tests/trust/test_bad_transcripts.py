"""Garbage in Claude Code and Codex transcripts: the import never crashes, and what it writes is valid."""

from __future__ import annotations

import json
import shutil
import string

from hypothesis import example, given
from hypothesis import strategies as st

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.importers.run import FORMATS, import_files
from tests.trust.conftest import FUZZ, only_agent, status_json

KEYS = [
    "type",
    "timestamp",
    "message",
    "role",
    "content",
    "text",
    "id",
    "name",
    "input",
    "tool_use_id",
    "is_error",
    "isMeta",
    "isSidechain",
    "isApiErrorMessage",
    "apiErrorStatus",
    "subtype",
    "payload",
    "call_id",
    "arguments",
    "output",
    "status",
    "exit_code",
    "metadata",
    "error",
    "reason",
    "action",
    "command",
    "cmd",
    "uuid",
    "sessionId",
]
TYPES = [
    "user",
    "assistant",
    "system",
    "tool_use",
    "tool_result",
    "text",
    "response_item",
    "event_msg",
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
    "user_message",
    "turn_aborted",
    "task_complete",
    "stream_error",
    "session_meta",
    "turn_context",
    "?",
]
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=15),
    st.sampled_from([*TYPES, "2026-11-20T10:00:00Z", "not a time", "{}", "[]"]),
)
VALUE = st.recursive(
    SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4), max_leaves=12
)
RECORD = st.dictionaries(st.sampled_from(KEYS), VALUE, max_size=6).flatmap(
    lambda d: st.sampled_from(TYPES).map(lambda t: {**d, "type": t})
)
LINE = st.one_of(
    RECORD.map(lambda r: json.dumps(r).encode()),
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
    st.text(alphabet=string.printable, max_size=30).map(lambda t: t.replace("\n", "").encode()),
)


@FUZZ
@example(fmt="claude-code", lines=[b'{"type": "system", "subtype": []}'], split=0)  # found by the long run
@example(fmt="claude-code", lines=[b'{"type": "assistant", "message": {"content": [{"type": []}]}}'], split=1)
@given(fmt=st.sampled_from(sorted(FORMATS)), lines=st.lists(LINE, max_size=25), split=st.integers(min_value=0, max_value=25))
def test_any_transcript_imports_without_crashing_into_a_readable_log(tmp_path_factory, fmt, lines, split) -> None:
    """Imported twice (the second time with more lines), as the watcher would; status reads the result cleanly."""
    root = tmp_path_factory.mktemp("ws")
    paths = AgentPaths(root / "agents" / "a1")
    paths.conversations.mkdir(parents=True)
    source = root / "src" / "0f4c2e1a-1b2c-4d5e-8f90-123456789abc.jsonl"
    source.parent.mkdir()
    source.write_bytes(b"".join(line + b"\n" for line in lines[:split]))
    import_files(paths, Settings(), fmt, [source], settle=0.0)
    with open(source, "ab") as handle:
        handle.write(b"".join(line + b"\n" for line in lines[split:]))
    stats = import_files(paths, Settings(), fmt, [source], settle=0.0)
    assert stats.files == 1
    agent = only_agent(status_json(root))
    assert agent["malformed_lines"] == 0  # the importer writes only spec events
    shutil.rmtree(root)
