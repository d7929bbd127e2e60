"""A line over the cap (``max_line_bytes``, 8 MB) is reported and skipped without being held in memory;
a UTF-8 byte order mark before the first line loses nothing."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from orkas_tui.core.read.tail import BOM, JsonlTail
from tests.core.helpers import turn, write_lines
from tests.trust.conftest import FUZZ, NOW, cli, only_agent, status_json

MB = 1024 * 1024


CALL = {"ts": "2026-11-20T10:00:00Z", "type": "tool_call", "id": "c1", "name": "bash", "args": {}}


def huge_error_line(size: int) -> bytes:
    """A failed result of ``CALL`` whose error runs ``size`` bytes: read, it is a real error (``error_recovery``)."""
    return b'{"ts":"2026-11-20T10:00:00Z","type":"tool_result","id":"c1","ok":false,"error":"exit 1: ' + b"x" * size + b'"}\n'


def test_a_line_over_the_cap_is_reported_and_skipped(tmp_path: Path) -> None:
    conv = tmp_path / "agents" / "a1" / "conversations" / "big.jsonl"
    write_lines(conv, [*turn("t1")[:2], CALL])
    start = conv.stat().st_size
    write_lines(conv, [huge_error_line(9 * MB)])
    length = conv.stat().st_size - start
    write_lines(conv, [turn("t1")[-1], *turn("t2", ts="2026-11-20T11:00:00Z")])
    for _run in ("cold", "warm"):  # the warm run reads the caches: the problem is still there
        agent = only_agent(status_json(tmp_path))
        assert [t["turn"] for t in agent["turns"]] == ["t2", "t1"]
        assert "error_recovery" not in agent["turns"][1]["signals"]  # the skipped line is not read at all
        assert agent["malformed_lines"] == 1
        assert (
            f"{conv}: a line of {length:,} bytes at byte {start:,} is over the 8,388,608-byte line cap (max_line_bytes); skipped"
        ) in agent["problems"]
    code, out, err = cli("reflect", "a1", "--dry-run", "--workspace", str(tmp_path), "--now", NOW)
    assert code == 0, err
    assert "xxxxxxxx" not in out and "turn t2 ended ok" in out


def test_the_cap_is_a_setting(tmp_path: Path) -> None:
    (tmp_path / "orkas.toml").write_text("max_line_bytes = 20_000_000\n")
    conv = tmp_path / "agents" / "a1" / "conversations" / "big.jsonl"
    write_lines(conv, [*turn("t1")[:2], CALL, huge_error_line(9 * MB), turn("t1")[-1]])
    agent = only_agent(status_json(tmp_path))
    assert agent["malformed_lines"] == 0 and "error_recovery" in agent["turns"][0]["signals"]
    (tmp_path / "orkas.toml").write_text("max_line_bytes = 10\n")
    code, _, err = cli("status", "--workspace", str(tmp_path))
    assert code == 2 and "max_line_bytes" in err and "allowed 1,024 to" in err


def test_a_huge_line_is_never_held_in_memory_whole(tmp_path: Path) -> None:
    """64 MB without a newline, then a small line: the tail holds a few times the cap at most, never the line."""
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as handle:
        for _ in range(64):
            handle.write(b"y" * MB)
        handle.write(b'\n{"type":"x"}\n')
    tail = JsonlTail(path, max_line=MB)
    tracemalloc.start()
    try:
        _reset, blocks = tail.poll_blocks()
        got = list(blocks)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == [(64 * MB + 1, b'{"type":"x"}\n')]
    assert tail.take_long_lines() == [(0, 64 * MB + 1)]
    assert peak < 8 * MB, f"peak {peak:,} bytes"


LINES = st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30)


@FUZZ
@given(
    lines=LINES,
    tail_bytes=st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
    cap=st.integers(min_value=1, max_value=45),
    bom=st.booleans(),
)
def test_every_line_is_read_or_skipped_exactly_once(tmp_path_factory, lines, tail_bytes, cap, bom) -> None:
    """Against the definition: each whole line at most ``cap`` bytes (newline included) is read, each longer
    one is skipped with its exact span, the unfinished last line waits, and a leading BOM is no line's."""
    path = tmp_path_factory.mktemp("t") / "c.jsonl"
    data = (BOM if bom else b"") + b"".join(line + b"\n" for line in lines) + tail_bytes
    path.write_bytes(data)
    pos = len(BOM) if data.startswith(BOM) else 0  # a file that starts with those bytes starts with a BOM
    kept, skipped = [], []
    for line in data[pos:].split(b"\n")[:-1]:
        (kept if len(line) + 1 <= cap else skipped).append((pos, line))
        pos += len(line) + 1
    tail = JsonlTail(path, max_line=cap)
    _reset, blocks = tail.poll_blocks()
    read = []
    for base, block in blocks:
        for raw in block.split(b"\n")[:-1]:
            read.append((base, raw))
            base += len(raw) + 1
    assert read == kept
    assert tail.take_long_lines() == [(start, len(line) + 1) for start, line in skipped]
    assert tail.offset == pos or not lines


def test_a_bom_before_the_first_line_loses_no_turn(tmp_path: Path) -> None:
    agent = tmp_path / "agents" / "a1"
    conv = agent / "conversations" / "c.jsonl"
    conv.parent.mkdir(parents=True)
    conv.write_bytes(
        BOM + b"".join(orjson.dumps(e) + b"\n" for e in turn("t1", calls=1, results=[{"ok": False, "error": "exit 1: boom"}]))
    )
    (agent / "events.jsonl").write_bytes(
        BOM
        + orjson.dumps({"ts": "2026-11-20T10:00:02Z", "type": "skill_created", "source": "orkas-tui", "skill": "first-skill"})
        + b"\n"
    )
    doc = only_agent(status_json(tmp_path))
    assert doc["malformed_lines"] == 0
    assert [t["turn"] for t in doc["turns"]] == ["t1"] and "error_recovery" in doc["turns"][0]["signals"]
    code, out, err = cli("reflect", "a1", "--dry-run", "--workspace", str(tmp_path), "--now", NOW)
    assert code == 0, err
    assert "turn t1 ended ok" in out and "first-skill" in out


def test_a_turn_reread_for_its_transcript_skips_the_huge_line_too(tmp_path: Path) -> None:
    """The app re-reads a turn's byte span to show its events: the over-cap line inside is skipped unread."""
    from orkas_tui.core.summary.transcript import Spans

    path = tmp_path / "c.jsonl"
    start_event, end_event = turn("t1")[0], turn("t1")[-1]
    path.write_bytes(
        orjson.dumps(start_event)
        + b"\n"
        + huge_error_line(20 * MB)
        + orjson.dumps(end_event)
        + b"\n"
        + orjson.dumps(turn("t2")[0])
        + b"\n"
    )
    end = path.stat().st_size - len(orjson.dumps(turn("t2")[0])) - 1
    tracemalloc.start()
    try:
        with Spans(MB) as spans:
            events = spans.read(path, 0, end)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [event.fields(drop=()) for _, event in events] == [start_event, end_event]
    assert peak < 8 * MB, f"peak {peak:,} bytes"
