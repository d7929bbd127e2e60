"""Garbage in conversation logs: never a crash, every malformed line counted, the rest read.

Lines are generated as either a spec event (every field possibly of the wrong
type, timestamps out of order or unparseable, duplicate turn ids, ``turn_end``
with no start) or a line that is malformed by construction, so the expected
malformed count is known exactly without re-implementing the parser.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from orkas_tui.core.read.settings import Settings
from orkas_tui.core.read.workspace import AgentPaths
from orkas_tui.core.summary.scan import AgentScan
from tests.trust.conftest import FUZZ, only_agent, status_json

WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
)
SLUG = st.sampled_from(["deploy", "tests", "git-flow", "", "../etc/passwd"])
TS = st.one_of(
    st.datetimes().map(lambda d: d.isoformat() + "Z"),  # any order, any year
    st.sampled_from(["2026-11-20T10:00:00Z", "2026-13-45T99:99:99Z", "yesterday", "", "2026-11-20T10:00:00+05:00"]),
    WRONG,
)
RIGHT = {
    "turn": st.sampled_from(["t1", "t2", "t3"]),  # duplicates on purpose
    "skills_indexed": st.lists(SLUG, max_size=4),
    "text": st.one_of(st.text(max_size=40), st.sampled_from(["that's wrong", "不对，应该是", "otra vez"])),
    "id": st.sampled_from(["c1", "c2", "c3"]),
    "name": st.sampled_from(["bash", "read_skill", "web", ""]),
    "args": st.one_of(st.just({}), st.fixed_dictionaries({"name": SLUG})),
    "ok": st.booleans(),
    "error": st.sampled_from(["timed out", "exit 2", "429 Too Many Requests", ""]),
    "status": st.one_of(st.sampled_from(["ok", "error", "aborted", "done"]), st.sampled_from([200, 429, 500, 404])),
    "transient": st.booleans(),
    "output": st.text(max_size=40),
    "skill": SLUG,
}
FIELDS = {
    "turn_start": ["turn", "skills_indexed"],
    "user": ["text"],
    "assistant": ["text"],
    "tool_call": ["id", "name", "args"],
    "tool_result": ["id", "ok", "error", "status", "transient", "output"],
    "skill_read": ["skill"],
    "turn_end": ["turn", "status", "error", "transient"],
    "output_edited": ["turn"],
    "something_new": ["text"],
}


@st.composite
def event(draw) -> dict:
    kind = draw(st.sampled_from(sorted(FIELDS)))
    value = {"type": kind}
    if draw(st.booleans()):
        value["ts"] = draw(TS)
    for name in FIELDS[kind]:
        choice = draw(st.sampled_from(["right", "right", "wrong", "missing"]))
        if choice != "missing":
            value[name] = draw(RIGHT[name] if choice == "right" else WRONG)
    return value


MALFORMED = st.one_of(
    st.binary(max_size=60).map(lambda b: b"\x00" + b.replace(b"\n", b"")),  # NUL is never JSON
    st.binary(min_size=1, max_size=20).map(lambda b: b'{"type":"user","text":"\xff' + b.replace(b"\n", b"") + b'"}'),
    st.sampled_from(
        [
            b"[1,2]",
            b'"user"',
            b"42",
            b"null",
            b'{"ts":"2026-11-20T10:00:00Z"}',
            b'{"type":7}',
            b'{"type":null}',
            b'{"type":"user"',
            b"{",
            b"",
            b"   ",
            b'{"type":"user"}{"type":"user"}',
            b"[" * 5000 + b"]" * 5000,
        ]
    ),
)

LINE = st.one_of(event().map(lambda e: ("event", e)), MALFORMED.map(lambda b: ("bad", b)))


def encode(kind: str, value) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode() if kind == "event" else value


def expected_counts(lines: list[tuple[str, object]]) -> tuple[int, int, int]:
    """(malformed lines, turns, orphan events), computed from how the lines were made."""
    malformed = turns = orphans = 0
    open_turn = False
    for kind, value in lines:
        if kind == "bad":
            malformed += 1
            continue
        if value["type"] == "turn_start":
            turns += 1
            open_turn = True
        elif value["type"] == "output_edited":
            orphans += not isinstance(value.get("turn"), str)
        elif value["type"] == "turn_end":
            orphans += not open_turn
            open_turn = False
    return malformed, turns, orphans


def write_agent(root: Path, lines: list[tuple[str, object]], tail: bytes = b"") -> Path:
    conv = root / "agents" / "a1" / "conversations" / "c1.jsonl"
    conv.parent.mkdir(parents=True, exist_ok=True)
    conv.write_bytes(b"".join(encode(k, v) + b"\n" for k, v in lines) + tail)
    return conv


@FUZZ
@given(lines=st.lists(LINE, max_size=40), partial=st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")))
def test_status_survives_any_lines_and_counts_malformed_exactly(tmp_path_factory, lines, partial) -> None:
    root = tmp_path_factory.mktemp("ws")
    write_agent(root, lines, tail=partial)  # a last line with no newline is a write in progress: not read
    agent = only_agent(status_json(root))
    malformed, turns, orphans = expected_counts(lines)
    assert agent["malformed_lines"] == malformed
    assert len(agent["turns"]) == turns
    assert agent["orphan_events"] == orphans
    for turn in agent["turns"]:
        assert turn["status"] in ("ok", "error", "aborted", "running")
        assert turn["score"] == 0 or turn["status"] != "running"
    shutil.rmtree(root)


def snapshot(scan: AgentScan) -> list:
    return [*scan.rows(), {"malformed": scan.malformed_lines, "orphans": scan.orphan_events}]


@FUZZ
@given(lines=st.lists(LINE, max_size=30), cuts=st.lists(st.integers(min_value=0, max_value=10**6), max_size=8))
def test_reading_in_pieces_equals_reading_at_once(tmp_path_factory, lines, cuts) -> None:
    """A runtime's appends may arrive cut anywhere: nothing lost, nothing counted twice."""
    root = tmp_path_factory.mktemp("ws")
    data = b"".join(encode(k, v) + b"\n" for k, v in lines)
    conv = write_agent(root, [])
    paths = AgentPaths(root / "agents" / "a1")
    live = AgentScan(paths, Settings())
    done = 0
    for cut in [*sorted({c % (len(data) + 1) for c in cuts}), len(data)]:
        with open(conv, "ab") as handle:
            handle.write(data[done:cut])
        done = cut
        live.refresh()
    once = AgentScan(paths, Settings())
    once.refresh()
    assert snapshot(live) == snapshot(once)
    shutil.rmtree(root)


def test_huge_lines_are_read_or_counted(tmp_path: Path) -> None:
    """A 7 MB event (under the 8 MB line cap) is read; a 7 MB garbage line is one malformed line."""
    big_text = "x" * (7 * 1024 * 1024)
    lines = [
        ("event", {"ts": "2026-11-20T10:00:00Z", "type": "turn_start", "turn": "t1", "skills_indexed": []}),
        ("event", {"ts": "2026-11-20T10:00:00Z", "type": "user", "text": "run it"}),
        ("event", {"ts": "2026-11-20T10:00:00Z", "type": "tool_call", "id": "c1", "name": "bash", "args": {}}),
        ("event", {"ts": "2026-11-20T10:00:00Z", "type": "tool_result", "id": "c1", "ok": False, "error": "exit 1: " + big_text}),
        ("bad", b"\x00" + b"y" * (7 * 1024 * 1024)),
        ("event", {"ts": "2026-11-20T10:00:01Z", "type": "turn_end", "turn": "t1", "status": "ok"}),
    ]
    write_agent(tmp_path, lines)
    agent = only_agent(status_json(tmp_path))
    assert agent["malformed_lines"] == 1
    (turn,) = agent["turns"]
    assert turn["status"] == "ok" and "error_recovery" in turn["signals"]  # the 7 MB error was read


def test_deep_json_is_counted_not_fatal(tmp_path: Path) -> None:
    """Nesting past the parser's limit (1024) is one malformed line; moderate nesting is read."""

    def nested(depth: int) -> dict:
        return (
            {"ts": "2026-11-20T10:00:00Z", "type": "assistant", "text": "ok", "extra": orjson.loads(b"[" * depth + b"]" * depth)}
            if depth <= 1000
            else {}
        )

    lines = [
        ("event", {"ts": "2026-11-20T10:00:00Z", "type": "turn_start", "turn": "t1"}),
        ("event", nested(500)),
        ("bad", b'{"type":"assistant","extra":' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        ("bad", b'{"type":"assistant","extra":' + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"}"),
        ("event", {"ts": "2026-11-20T10:00:01Z", "type": "turn_end", "turn": "t1", "status": "ok"}),
    ]
    write_agent(tmp_path, lines)
    agent = only_agent(status_json(tmp_path))
    assert agent["malformed_lines"] == 2
    assert [t["status"] for t in agent["turns"]] == ["ok"]
